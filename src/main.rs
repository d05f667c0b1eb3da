//! The `crossword` command: the server, its administration, and word search from the shell.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use crossword::admin::AdminCommand;
use crossword::config::{Config, Tier};
use crossword::index::IndexManager;
use crossword::lang::Language;
use crossword::store::Scope;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Self-hostable crossword construction service.
#[derive(Parser)]
#[command(name = "crossword", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the HTTP service (base URL http://ADDR/api/v1) until SIGTERM or Ctrl-C.
    Serve {
        /// Address to listen on.
        #[arg(long, env = "CROSSWORD_LISTEN", default_value = "127.0.0.1:8080")]
        listen: SocketAddr,
        /// Directory of the database and the admin secret.
        #[arg(long, env = "CROSSWORD_DATA_DIR", default_value = "./data")]
        data_dir: PathBuf,
        /// Directory holding the index files.
        #[arg(long, env = "CROSSWORD_INDEX_DIR", default_value = "./indexes")]
        index_dir: PathBuf,
        /// TOML file overriding plan and operational limits.
        #[arg(long, env = "CROSSWORD_CONFIG")]
        config: Option<PathBuf>,
    },
    /// Manage accounts and keys (works whether or not the server is running).
    Admin {
        /// Directory of the database and the admin secret.
        #[arg(long, env = "CROSSWORD_DATA_DIR", default_value = "./data", global = true)]
        data_dir: PathBuf,
        #[command(subcommand)]
        command: AdminCli,
    },
    /// Print the best entries matching a pattern (`_` or `?` for an unknown cell).
    Words {
        /// The pattern, e.g. `C_T`, `Л_НА`, `__ラ`.
        pattern: String,
        /// Language code.
        #[arg(long, default_value = "en")]
        lang: String,
        /// Drop entries scoring below this.
        #[arg(long, default_value_t = 0)]
        min_score: u32,
        /// At most this many entries.
        #[arg(long, default_value_t = 50)]
        limit: usize,
        /// Directory holding the index files.
        #[arg(long, env = "CROSSWORD_INDEX_DIR", default_value = "./indexes")]
        index_dir: PathBuf,
        /// Print JSON (`{"words":[{"word":..,"score":..}]}`) instead of a table.
        #[arg(long)]
        json: bool,
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
    /// Create an account; prints `{"id", "tier", ...}`.
    Create {
        /// Plan: free, starter, partner or patron.
        #[arg(long, value_parser = parse_tier)]
        tier: Tier,
        /// Display name.
        #[arg(long)]
        name: Option<String>,
    },
    /// Change an account's plan.
    SetTier {
        /// Account id.
        id: String,
        /// New plan.
        #[arg(value_parser = parse_tier)]
        tier: Tier,
    },
}

#[derive(Subcommand)]
enum KeyCli {
    /// Create a key; prints `{"id", "key", "scopes"}` (the key is shown this once).
    Create(KeyCreate),
    /// Revoke a key for good.
    Revoke {
        /// Key id (`key_...`).
        key_id: String,
    },
    /// List an account's keys.
    List {
        /// Account id.
        #[arg(long)]
        account: String,
    },
}

#[derive(Args)]
struct KeyCreate {
    /// Account id.
    #[arg(long)]
    account: String,
    /// Comma-separated scopes (default: read,solve,puzzles:write).
    #[arg(long, value_delimiter = ',', value_parser = parse_scope)]
    scopes: Vec<Scope>,
}

fn parse_tier(s: &str) -> Result<Tier, String> {
    Tier::parse(s).ok_or_else(|| format!("unknown tier {s:?} (free, starter, partner, patron)"))
}

fn parse_scope(s: &str) -> Result<Scope, String> {
    Scope::parse(s.trim()).ok_or_else(|| format!("unknown scope {s:?} (read, solve, puzzles:write)"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("crossword: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Serve { listen, data_dir, index_dir, config } => {
            tracing_subscriber::fmt()
                .with_env_filter(
                    tracing_subscriber::EnvFilter::try_from_default_env()
                        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
                )
                .with_writer(std::io::stderr)
                .init();
            let config = match config {
                Some(path) => Config::load(&path)?,
                None => Config::default(),
            };
            let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
            runtime.block_on(crossword::server::serve(crossword::server::ServeOptions {
                listen,
                data_dir,
                index_dir,
                config,
            }))
        }
        Command::Admin { data_dir, command } => {
            let command = match command {
                AdminCli::Account { command: AccountCli::Create { tier, name } } => {
                    AdminCommand::AccountCreate { tier, name }
                }
                AdminCli::Account { command: AccountCli::SetTier { id, tier } } => {
                    AdminCommand::AccountSetTier { id, tier }
                }
                AdminCli::Key { command: KeyCli::Create(k) } => {
                    AdminCommand::KeyCreate { account: k.account, scopes: k.scopes }
                }
                AdminCli::Key { command: KeyCli::Revoke { key_id } } => AdminCommand::KeyRevoke { id: key_id },
                AdminCli::Key { command: KeyCli::List { account } } => AdminCommand::KeyList { account },
            };
            println!("{}", crossword::admin::run(&data_dir, command)?);
            Ok(())
        }
        Command::Words { pattern, lang, min_score, limit, index_dir, json } => {
            let language =
                Language::from_code(&lang).ok_or_else(|| anyhow::anyhow!("unknown language code {lang:?}"))?;
            let manager = IndexManager::new(index_dir, u64::MAX);
            let words = manager.search(language, &pattern, min_score, limit)?;
            if json {
                println!("{}", serde_json::json!({ "words": words }));
            } else {
                for w in words {
                    println!("{}\t{}", w.word, w.score);
                }
            }
            Ok(())
        }
    }
}
