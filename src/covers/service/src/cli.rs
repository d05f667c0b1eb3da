//! The `covers` command: `covers serve [--listen ADDR] [--data-dir DIR] [--config FILE]`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::{Parser, Subcommand};
use service_kit::observe::Observer;

use crate::api::{router, AppState};

/// Self-hostable cover-design service.
#[derive(Parser)]
#[command(name = "covers", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the HTTP service until SIGTERM or Ctrl-C.
    Serve {
        /// Address to listen on.
        #[arg(long, env = "COVERS_LISTEN", default_value = "127.0.0.1:8090")]
        listen: SocketAddr,
        /// Directory of the service's data (its database).
        #[arg(long, env = "COVERS_DATA_DIR", default_value = "./covers-data")]
        data_dir: PathBuf,
        /// TOML configuration (read when present; its settings come with issues 16 to 18).
        #[arg(long, env = "COVERS_CONFIG")]
        config: Option<PathBuf>,
        /// Public base URL used in links (default: from the listen address).
        #[arg(long, env = "COVERS_PUBLIC_BASE_URL")]
        public_base_url: Option<String>,
    },
    /// Render a compose intent (a JSON file) from the command line.
    Render {
        /// The intent file.
        intent: PathBuf,
        /// `preview` (1200 px wide PNG), `png` (600 DPI PNG) or `svg`.
        #[arg(long, default_value = "preview")]
        output: String,
        /// Output file.
        #[arg(short = 'o', long = "out")]
        out: PathBuf,
        /// A folder of extra fonts.
        #[arg(long)]
        fonts: Option<PathBuf>,
    },
}

/// Parses the command line and runs the command; failures are printed to stderr.
pub fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("covers: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// `covers render`: the intent, its content from the built-in providers, drawn to a file.
fn render(
    intent: &std::path::Path,
    output: &str,
    out: &std::path::Path,
    fonts: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    use covers_engine::content::ContentProvider;
    let text = std::fs::read_to_string(intent).with_context(|| format!("reading {}", intent.display()))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", intent.display()))?;
    let (intent, report) = covers_engine::intent::parse(&value).map_err(|e| anyhow::anyhow!("{e:?}"))?;
    for u in &report.unsupported {
        eprintln!("dropped {}: {}", u.field, u.reason);
    }
    let format = covers_engine::find(&intent.format).context("unknown format")?;
    let title = intent
        .content
        .as_ref()
        .and_then(|c| covers_engine::content::Builtin.search(c.kind, &c.query).ok()?.into_iter().next());
    let guides = covers_engine::scene::Guides { show: false };
    let bytes = match output {
        "svg" => covers_engine::scene::render(&format, &intent, title.as_ref(), covers_engine::EXPORT_DPI, guides)
            .into_bytes(),
        "png" => {
            let svg = covers_engine::scene::render(&format, &intent, title.as_ref(), covers_engine::EXPORT_DPI, guides);
            let pixmap = covers_engine::raster::draw(&svg, 1.0, covers_engine::raster::fonts(fonts))
                .map_err(|e| anyhow::anyhow!(e.0))?;
            covers_engine::raster::png(&pixmap, covers_engine::EXPORT_DPI).map_err(|e| anyhow::anyhow!(e.0))?
        }
        "preview" => {
            let svg = covers_engine::scene::render(&format, &intent, title.as_ref(), 72, guides);
            covers_engine::raster::preview_png(&svg, crate::designs::PREVIEW_WIDTH, covers_engine::raster::fonts(fonts))
                .map_err(|e| anyhow::anyhow!(e.0))?
        }
        other => anyhow::bail!("unknown output {other:?} (preview, png, svg; pdf comes later)"),
    };
    std::fs::write(out, bytes).with_context(|| format!("writing {}", out.display()))?;
    Ok(())
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Render { intent, output, out, fonts } => render(&intent, &output, &out, fonts.as_deref()),
        Command::Serve { listen, data_dir, config, public_base_url } => {
            tracing_subscriber::fmt()
                .with_env_filter(
                    tracing_subscriber::EnvFilter::try_from_default_env()
                        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
                )
                .with_writer(std::io::stderr)
                .init();
            std::fs::create_dir_all(&data_dir).with_context(|| format!("creating {}", data_dir.display()))?;
            if let Some(path) = &config {
                std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
            }
            let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
            runtime.block_on(async move {
                let listener =
                    tokio::net::TcpListener::bind(listen).await.with_context(|| format!("binding {listen}"))?;
                let bound = listener.local_addr()?;
                let base = public_base_url
                    .map(|b| b.trim_end_matches('/').to_owned())
                    .unwrap_or_else(|| format!("http://{bound}"));
                let store = crate::store::Store::open(&data_dir.join(crate::store::DATABASE_FILE))
                    .map_err(|e| anyhow::anyhow!("opening the database: {e}"))?;
                let fonts = covers_engine::raster::fonts(Some(&data_dir.join("fonts")));
                let state = Arc::new(AppState { observer: Arc::new(Observer::new(base)), store, fonts });
                println!("listening on http://{bound}/api/v1");
                service_kit::shutdown::serve_until(listener, router(state), service_kit::shutdown::signal()).await?;
                tracing::info!("stopped");
                Ok(())
            })
        }
    }
}
