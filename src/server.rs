//! `crossword serve`: opens the database and the index directory, binds, and serves until
//! SIGTERM or Ctrl-C, then lets in-flight requests finish and closes the database cleanly.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;

use crate::admin::{ensure_secret, DATABASE_FILE, SERVER_FILE};
use crate::api::{self, AppState};
use crate::config::Config;
use crate::index::IndexManager;
use crate::store::{RedbStore, StoreError};

/// What `serve` needs.
pub struct ServeOptions {
    /// Address to bind.
    pub listen: SocketAddr,
    /// Data directory (database, admin secret, server.json).
    pub data_dir: PathBuf,
    /// Index directory.
    pub index_dir: PathBuf,
    /// Configuration.
    pub config: Config,
}

/// Builds the shared state: opens the store and the index manager.
pub fn state(options: &ServeOptions, bound: SocketAddr) -> anyhow::Result<Arc<AppState>> {
    std::fs::create_dir_all(&options.data_dir).with_context(|| format!("creating {}", options.data_dir.display()))?;
    let store = match RedbStore::open(&options.data_dir.join(DATABASE_FILE)) {
        Ok(s) => s,
        Err(StoreError::Locked) => {
            anyhow::bail!("{} is in use by another server", options.data_dir.join(DATABASE_FILE).display())
        }
        Err(e) => return Err(e.into()),
    };
    let base_url = if options.config.limits.public_base_url.is_empty() {
        format!("http://{bound}")
    } else {
        options.config.limits.public_base_url.clone()
    };
    Ok(Arc::new(AppState {
        indexes: Arc::new(IndexManager::new(
            &options.index_dir,
            options.config.limits.index_memory_mb.saturating_mul(1 << 20),
        )),
        config: options.config.clone(),
        store: Arc::new(store),
        reads: Default::default(),
        open: Default::default(),
        metrics: Default::default(),
        base_url,
        admin_secret: ensure_secret(&options.data_dir)?,
        auth_cache: Default::default(),
        solver: Arc::new(api::fill::SolverPool::new(options.config.limits.solver_threads)),
        clue_signer: crate::clues::token::ClueSigner::load_or_create(&options.data_dir.join("clue-token.secret"))
            .context("reading the clue token secret")?,
        clue_generator: match &options.config.clue_generator {
            Some(c) => {
                Arc::new(crate::clues::generate::ChatCompletionsGenerator::new(c.clone()).map_err(anyhow::Error::msg)?)
            }
            None => Arc::new(crate::clues::generate::BuiltinGenerator),
        },
    }))
}

/// Runs the server until a shutdown signal.
pub async fn serve(options: ServeOptions) -> anyhow::Result<()> {
    let listener =
        tokio::net::TcpListener::bind(options.listen).await.with_context(|| format!("binding {}", options.listen))?;
    let bound = listener.local_addr()?;
    let state = state(&options, bound)?;
    let server_file = options.data_dir.join(SERVER_FILE);
    std::fs::write(
        &server_file,
        serde_json::json!({ "listen": bound.to_string(), "pid": std::process::id() }).to_string(),
    )?;
    tracing::info!(address = %bound, base = %format!("http://{bound}/api/v1"), "listening");
    println!("listening on http://{bound}/api/v1");
    let app = api::router(state.clone());
    let result = axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>())
        .with_graceful_shutdown(shutdown_signal())
        .await;
    let _ = std::fs::remove_file(&server_file);
    // Dropping the last handle closes the database file cleanly.
    drop(state);
    tracing::info!("stopped");
    result.map_err(Into::into)
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    tracing::info!("shutting down: finishing in-flight requests");
}
