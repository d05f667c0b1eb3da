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
        /// TOML configuration: design lifetime, content providers (see `docs/covers/content.md`).
        #[arg(long, env = "COVERS_CONFIG")]
        config: Option<PathBuf>,
        /// Public base URL used in links (default: from the listen address).
        #[arg(long, env = "COVERS_PUBLIC_BASE_URL")]
        public_base_url: Option<String>,
    },
    /// Accounts and keys, on the data directory (through the running server if there is one).
    Admin {
        /// Directory of the service's data.
        #[arg(long, env = "COVERS_DATA_DIR", default_value = "./covers-data", global = true)]
        data_dir: PathBuf,
        #[command(subcommand)]
        command: AdminCli,
    },
    /// Render a compose intent (a JSON file) from the command line.
    Render {
        /// The intent file.
        intent: PathBuf,
        /// `preview` (1200 px wide PNG), `png` (600 DPI PNG), `pdf` (print file) or `svg`.
        #[arg(long, default_value = "preview")]
        output: String,
        /// Output file.
        #[arg(short = 'o', long = "out")]
        out: PathBuf,
        /// PDF paper: `fit` (the design's own size), `a4`, `letter`, `tabloid` or `a3`.
        #[arg(long, default_value = "fit")]
        paper: String,
        /// PDF without crop and fold marks.
        #[arg(long)]
        no_marks: bool,
        /// PDF without the bleed (the art stops at the trim).
        #[arg(long)]
        no_bleed: bool,
    },
}

#[derive(Subcommand)]
enum AdminCli {
    /// Accounts.
    Account {
        #[command(subcommand)]
        command: AccountCli,
    },
    /// API keys.
    Key {
        #[command(subcommand)]
        command: KeyCli,
    },
}

#[derive(Subcommand)]
enum AccountCli {
    /// Create an account; prints its JSON.
    Create {
        /// free, starter, partner or patron.
        #[arg(long)]
        plan: String,
        /// A display name.
        #[arg(long)]
        name: Option<String>,
        /// Sign-in e-mail.
        #[arg(long)]
        email: Option<String>,
    },
    /// Set an account's password, read from standard input (browser sign-in).
    Password {
        /// The account id.
        id: String,
    },
    /// Print a one-time sign-in link (valid 15 minutes).
    LoginLink {
        /// The account id.
        id: String,
    },
    /// Change an account's plan.
    SetPlan {
        /// The account id.
        id: String,
        /// The new plan.
        plan: String,
    },
}

#[derive(Subcommand)]
enum KeyCli {
    /// Create a key; prints its JSON with the secret `key` (shown once).
    Create {
        /// The account id.
        #[arg(long)]
        account: String,
        /// Comma-separated scopes: read, design:write, export (default: all).
        #[arg(long, default_value = "read,design:write,export")]
        scopes: String,
    },
    /// Revoke a key for good.
    Revoke {
        /// The key id.
        id: String,
    },
    /// List an account's keys (never their secrets).
    List {
        /// The account id.
        #[arg(long)]
        account: String,
    },
}

fn admin_command(command: AdminCli) -> anyhow::Result<crate::accounts::AdminCommand> {
    use crate::accounts::{AdminCommand, Plan, Scope};
    let plan = |p: &str| Plan::named(p).with_context(|| format!("unknown plan {p:?} (free, starter, partner, patron)"));
    Ok(match command {
        AdminCli::Account { command: AccountCli::Create { plan: p, name, email } } => {
            AdminCommand::AccountCreate { plan: plan(&p)?, name, email }
        }
        AdminCli::Account { command: AccountCli::SetPlan { id, plan: p } } => {
            AdminCommand::AccountSetPlan { id, plan: plan(&p)? }
        }
        AdminCli::Key { command: KeyCli::Create { account, scopes } } => {
            let scopes = scopes
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| Scope::named(s).with_context(|| format!("unknown scope {s:?} (read, design:write, export)")))
                .collect::<anyhow::Result<Vec<_>>>()?;
            AdminCommand::KeyCreate { account, scopes }
        }
        AdminCli::Key { command: KeyCli::Revoke { id } } => AdminCommand::KeyRevoke { id },
        AdminCli::Account { command: AccountCli::Password { id } } => {
            let mut password = String::new();
            std::io::stdin().read_line(&mut password).context("reading the password from standard input")?;
            AdminCommand::AccountPassword { id, password: password.trim_end_matches(['\r', '\n']).to_owned() }
        }
        AdminCli::Account { command: AccountCli::LoginLink { id } } => AdminCommand::AccountLoginLink { id },
        AdminCli::Key { command: KeyCli::List { account } } => AdminCommand::KeyList { account },
    })
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

/// How `covers render` prints a PDF.
struct PrintChoices<'a> {
    paper: &'a str,
    marks: bool,
    bleed: bool,
}

/// `covers render`: the intent, its content from the built-in providers, drawn to a file.
fn render(
    intent: &std::path::Path,
    output: &str,
    out: &std::path::Path,
    print: PrintChoices<'_>,
) -> anyhow::Result<()> {
    use covers_engine::content::ContentProvider;
    use covers_engine::export::Output;
    let text = std::fs::read_to_string(intent).with_context(|| format!("reading {}", intent.display()))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", intent.display()))?;
    let (intent, report) = covers_engine::intent::parse(&value).map_err(|e| anyhow::anyhow!("{e:?}"))?;
    for u in &report.unsupported {
        eprintln!("dropped {}: {}", u.field, u.reason);
    }
    let format = intent.format().context("unknown format")?;
    let title = intent
        .content
        .as_ref()
        .and_then(|c| covers_engine::content::Builtin.search(c.kind, &c.query).ok()?.into_iter().next());
    let output = match output {
        "svg" => Output::Svg,
        "preview" => Output::Preview,
        "png" => Output::Png,
        "pdf" => Output::Pdf(covers_engine::pdf::PdfOptions {
            paper: covers_engine::pdf::Paper::named(print.paper)
                .with_context(|| format!("unknown paper {:?} (fit, a4, letter, tabloid, a3)", print.paper))?,
            bleed: print.bleed,
            crop_marks: print.marks,
            fold_marks: print.marks,
        }),
        other => anyhow::bail!("unknown output {other:?} (preview, png, pdf, svg)"),
    };
    let bytes = covers_engine::export::render(&format, &intent, title.as_ref(), &Default::default(), output)
        .map_err(|e| anyhow::anyhow!(e.0))?;
    std::fs::write(out, bytes).with_context(|| format!("writing {}", out.display()))?;
    Ok(())
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Admin { data_dir, command } => {
            let value = crate::accounts::run(&data_dir, admin_command(command)?)?;
            println!("{value}");
            Ok(())
        }
        Command::Render { intent, output, out, paper, no_marks, no_bleed } => {
            render(&intent, &output, &out, PrintChoices { paper: &paper, marks: !no_marks, bleed: !no_bleed })
        }
        Command::Serve { listen, data_dir, config, public_base_url } => {
            tracing_subscriber::fmt()
                .with_env_filter(
                    tracing_subscriber::EnvFilter::try_from_default_env()
                        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
                )
                .with_writer(std::io::stderr)
                .init();
            std::fs::create_dir_all(&data_dir).with_context(|| format!("creating {}", data_dir.display()))?;
            let config = crate::config::Config::load(config.as_deref())?;
            let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
            runtime.block_on(async move {
                let listener =
                    tokio::net::TcpListener::bind(listen).await.with_context(|| format!("binding {listen}"))?;
                let bound = listener.local_addr()?;
                let base = public_base_url
                    .or_else(|| config.service.public_base_url.clone())
                    .map(|b| b.trim_end_matches('/').to_owned())
                    .unwrap_or_else(|| format!("http://{bound}"));
                let store = crate::store::Store::open(&data_dir.join(crate::store::DATABASE_FILE))
                    .map_err(|e| anyhow::anyhow!("opening the database: {e}"))?;
                let state = Arc::new(AppState::new(Arc::new(Observer::new(base)), store, &config, &data_dir));
                match state.store.files_in_use() {
                    Ok(in_use) => {
                        let removed = state.files.sweep(&in_use);
                        if removed > 0 {
                            tracing::info!(removed, "stray files of an interrupted run removed");
                        }
                    }
                    Err(e) => tracing::warn!(error = %e, "files not swept"),
                }
                crate::exports::start(&state);
                let announced = service_kit::admin::ServerFile::write(&data_dir, bound)?;
                println!("listening on http://{bound}/api/v1");
                service_kit::shutdown::serve_until(listener, router(state), service_kit::shutdown::signal()).await?;
                drop(announced);
                tracing::info!("stopped");
                Ok(())
            })
        }
    }
}
