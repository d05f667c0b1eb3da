//! `crossword serve`: opens the database and the index directory, binds, and serves until
//! SIGTERM or Ctrl-C, then lets in-flight requests finish and closes the database cleanly.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use crossword_clues::generate::{BuiltinGenerator, ClueGenerator};
use crossword_clues::token::ClueSigner;
use service_kit::admin::{ensure_secret, AdminGate, ServerFile};
use service_kit::observe::Observer;

use crate::admin::DATABASE_FILE;
use crate::api::solver_pool::SolverPool;
use crate::api::state::MULTI_NODE_AUTH_TTL;
use crate::api::{self, AppState};
use crate::clue_model::ChatCompletionsGenerator;
use crate::config::Config;
use crate::config::{Backend, DATABASE_URL_VARIABLE};
use crate::indexes::IndexManager;
use crate::store::{OffRuntime, PgStore, RedbStore, Store, StoreError};

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

/// Opens the configured store, wrapped for async handlers ([`OffRuntime`]).
pub fn open_store(options: &ServeOptions) -> anyhow::Result<Arc<dyn Store>> {
    match options.config.storage.backend {
        Backend::Redb => {
            let path = options.data_dir.join(DATABASE_FILE);
            match RedbStore::open(&path) {
                Ok(s) => Ok(Arc::new(OffRuntime::writes_and_scans(s))),
                Err(StoreError::Locked) => anyhow::bail!("{} is in use by another server", path.display()),
                Err(e) => Err(e.into()),
            }
        }
        Backend::Postgres => {
            let url = options.config.storage.url();
            if url.trim().is_empty() {
                anyhow::bail!("[storage] backend = \"postgres\" needs a url (or {DATABASE_URL_VARIABLE})");
            }
            let store = PgStore::connect(&url).context("connecting to PostgreSQL")?;
            Ok(Arc::new(OffRuntime::every_call(store)))
        }
    }
}

/// Builds the shared state: opens the store and the index manager.
pub fn state(options: &ServeOptions, bound: SocketAddr) -> anyhow::Result<Arc<AppState>> {
    std::fs::create_dir_all(&options.data_dir).with_context(|| format!("creating {}", options.data_dir.display()))?;
    let store = open_store(options)?;
    let solver = Arc::new(SolverPool::with_store(options.config.limits.solver_threads, store.clone()));
    let limits = &options.config.limits;
    let base_url =
        if limits.public_base_url.is_empty() { format!("http://{bound}") } else { limits.public_base_url.clone() };
    let clue_generator: Arc<dyn ClueGenerator> = match &options.config.clue_generator {
        Some(c) => Arc::new(ChatCompletionsGenerator::new(c.clone()).map_err(anyhow::Error::msg)?),
        None => Arc::new(BuiltinGenerator),
    };
    Ok(Arc::new(AppState {
        indexes: Arc::new(IndexManager::new(&options.index_dir, limits.index_memory_mb.saturating_mul(1 << 20))),
        config: options.config.clone(),
        store,
        reads: Default::default(),
        open: Default::default(),
        observer: Arc::new(Observer::new(base_url)),
        admin: AdminGate::new(ensure_secret(&options.data_dir)?),
        auth_cache: Default::default(),
        auth_ttl: (options.config.storage.backend == Backend::Postgres).then_some(MULTI_NODE_AUTH_TTL),
        solver,
        clue_signer: ClueSigner::load_or_create(&options.data_dir.join("clue-token.secret"))
            .context("reading the clue token secret")?,
        clue_generator,
        fonts: crate::api::state::Fonts::new(options.index_dir.join("fonts")),
    }))
}

/// Runs the server until a shutdown signal.
pub async fn serve(options: ServeOptions) -> anyhow::Result<()> {
    let listener =
        tokio::net::TcpListener::bind(options.listen).await.with_context(|| format!("binding {}", options.listen))?;
    let bound = listener.local_addr()?;
    let state = state(&options, bound)?;
    state.solver.poll_cancels();
    // Showcase submissions a stopped server never pre-checked.
    match crate::puzzles::pre_check_pending(state.store.as_ref()) {
        Ok(0) => {}
        Ok(n) => tracing::info!(puzzles = n, "showcase pre-check caught up"),
        Err(e) => tracing::error!(error = %e, "showcase pre-check failed"),
    }
    let announced = ServerFile::write(&options.data_dir, bound)?;
    tracing::info!(address = %bound, base = %format!("http://{bound}/api/v1"), "listening");
    println!("listening on http://{bound}/api/v1");
    let result =
        service_kit::shutdown::serve_until(listener, api::router(state.clone()), service_kit::shutdown::signal()).await;
    drop(announced);
    // Dropping the last handle closes the database file cleanly.
    drop(state);
    tracing::info!("stopped");
    result.map_err(Into::into)
}
