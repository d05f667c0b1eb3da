//! The `crossword` command: the server, its administration, and word search, fill and clues
//! from the shell. The binary (`src/bin/crossword.rs`) only sets the allocator and calls
//! [`main`].

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Args, Parser, Subcommand};
use crossword_clues::generate::{BuiltinGenerator, GenerateRequest};
use crossword_fill::{fill, FillOptions, FillResult, Grid};
use crossword_index::list_cache::{self, ListOptions, Outcome};
use crossword_index::Index;
use crossword_lang::Language;

use crate::admin::AdminCommand;
use crate::config::{Config, Tier};
use crate::indexes::IndexManager;
use crate::store::Scope;

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
        /// The server's TOML configuration: its `[storage]` section says where the records are
        /// when no server runs (PostgreSQL rather than the data directory's redb file).
        #[arg(long, env = "CROSSWORD_CONFIG", global = true)]
        config: Option<PathBuf>,
        #[command(subcommand)]
        command: AdminCli,
    },
    /// Fill a grid file (`.` empty, `#` block, letters fixed; one row per line).
    Fill(FillCommand),
    /// Puzzle files: export a saved puzzle as .puz, ipuz, HTML or SVG.
    Puzzle {
        #[command(subcommand)]
        command: PuzzleCli,
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
    /// Print the clues of an answer from the clue collection (best first).
    Clues {
        /// The answer (normalized like any answer: case, accents, spaces).
        word: String,
        /// Language code.
        #[arg(long, default_value = "en")]
        lang: String,
        /// At most this many clues.
        #[arg(long, default_value_t = 10)]
        limit: usize,
        /// Also print the built-in generator's clues (`--generate N`).
        #[arg(long)]
        generate: Option<usize>,
        /// Directory holding the index and clue files.
        #[arg(long, env = "CROSSWORD_INDEX_DIR", default_value = "./indexes")]
        index_dir: PathBuf,
        /// Print JSON (`{"clues":[...]}`) instead of lines.
        #[arg(long)]
        json: bool,
    },
}

/// `crossword fill`: its options.
#[derive(Args)]
struct FillCommand {
    /// The grid file.
    grid: PathBuf,
    /// Language code.
    #[arg(long, default_value = "en")]
    lang: String,
    /// Quality goal (the solver goes lower when the grid needs it).
    #[arg(long, default_value_t = 40)]
    min_score: u32,
    /// Time budget in seconds.
    #[arg(long, default_value_t = 25.0)]
    max_time: f64,
    /// Variety: the same seed gives the same fill.
    #[arg(long)]
    seed: Option<u64>,
    /// Keep searching until the time budget ends.
    #[arg(long)]
    try_hard: bool,
    /// Never go below --min-score (report failure instead).
    #[arg(long)]
    strict: bool,
    /// The shortest polish phase after a complete fill, in milliseconds (default 25): more buys
    /// a slightly better mean entry score on grids that fill at once.
    #[arg(long)]
    polish_ms: Option<u64>,
    /// A `WORD;SCORE` list to fill from instead of the language index (scores 0-100). Its index
    /// is built once and kept in the cache directory, keyed by the list's content.
    #[arg(long)]
    wordlist: Option<PathBuf>,
    /// Where indexes built from `--wordlist` are kept (default `$XDG_CACHE_HOME/crossword/lists`
    /// or `~/.cache/crossword/lists`).
    #[arg(long, env = "CROSSWORD_CACHE_DIR")]
    cache_dir: Option<PathBuf>,
    /// Directory holding the index files.
    #[arg(long, env = "CROSSWORD_INDEX_DIR", default_value = "./indexes")]
    index_dir: PathBuf,
    /// Print the result as JSON (the contract's Fill result plus search figures).
    #[arg(long)]
    json: bool,
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
    /// Showcase review: a person finishes every review.
    Showcase {
        #[command(subcommand)]
        command: ShowcaseCli,
    },
    /// Write a consistent copy of the database to FILE (a new file), also while the server runs.
    Backup {
        /// The backup file to create.
        file: PathBuf,
    },
    /// Replace the database with a backup made by `admin backup` (stop the server first).
    Restore {
        /// The backup file.
        file: PathBuf,
    },
}

#[derive(Subcommand)]
enum ShowcaseCli {
    /// Print the puzzles waiting for review (`{"queue": [{"id", "showcaseStatus", ...}]}`).
    List,
    /// Approve a queued puzzle.
    Approve {
        /// Puzzle id.
        id: String,
    },
    /// Reject a queued puzzle.
    Reject {
        /// Puzzle id.
        id: String,
        /// Why (its owner sees it as `showcaseNote`).
        #[arg(long)]
        reason: Option<String>,
    },
}

/// `crossword puzzle`: puzzle files on the command line.
#[derive(Subcommand)]
enum PuzzleCli {
    /// Write a puzzle (the JSON of GET /puzzles/{id}) as .puz, ipuz, HTML, PDF or SVG, to stdout
    /// or `--out`.
    Export {
        /// The puzzle JSON file.
        file: PathBuf,
        /// puz, ipuz, html, pdf or svg.
        #[arg(long)]
        format: String,
        /// Fill in the letters (html, pdf, svg).
        #[arg(long)]
        solution: bool,
        /// Paper of the PDF: letter or a4.
        #[arg(long, default_value = "letter")]
        paper: String,
        /// Directory holding the index files (the PDF's fonts are in its `fonts/`).
        #[arg(long, env = "CROSSWORD_INDEX_DIR", default_value = "./indexes")]
        index_dir: PathBuf,
        /// Output file (default: stdout).
        #[arg(long)]
        out: Option<PathBuf>,
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

/// Parses the command line and runs the command; failures are printed to stderr.
pub fn main() -> ExitCode {
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
            runtime.block_on(crate::server::serve(crate::server::ServeOptions { listen, data_dir, index_dir, config }))
        }
        Command::Admin { data_dir, config, command } => {
            let storage = match config {
                Some(path) => Config::load(&path)?.storage,
                None => Default::default(),
            };
            let command = match command {
                AdminCli::Backup { file } => {
                    // The server may write it: hand it an absolute path.
                    let path = std::path::absolute(&file).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
                    AdminCommand::Backup { path }
                }
                AdminCli::Restore { file } => {
                    println!("{}", crate::admin::restore(&data_dir, &storage, &file)?);
                    return Ok(());
                }
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
                AdminCli::Showcase { command: ShowcaseCli::List } => AdminCommand::ShowcaseList,
                AdminCli::Showcase { command: ShowcaseCli::Approve { id } } => AdminCommand::ShowcaseApprove { id },
                AdminCli::Showcase { command: ShowcaseCli::Reject { id, reason } } => {
                    AdminCommand::ShowcaseReject { id, reason }
                }
            };
            println!("{}", crate::admin::run(&data_dir, &storage, command)?);
            Ok(())
        }
        Command::Fill(command) => command.run(),
        Command::Puzzle { command: PuzzleCli::Export { file, format, solution, paper, index_dir, out } } => {
            let paper = match paper.as_str() {
                "letter" => crossword_puzzle::pdf::Paper::Letter,
                "a4" => crossword_puzzle::pdf::Paper::A4,
                other => anyhow::bail!("unknown paper {other:?} (letter, a4)"),
            };
            let bytes = export_file(&file, &format, solution, paper, &index_dir.join("fonts"))?;
            match out {
                Some(path) => std::fs::write(&path, bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?,
                None => std::io::stdout().lock().write_all(&bytes)?,
            }
            Ok(())
        }
        Command::Words { pattern, lang, min_score, limit, index_dir, json } => {
            let language = language_of(&lang)?;
            let manager = IndexManager::new(index_dir, u64::MAX);
            let words = manager.search(language, &pattern, min_score, limit)?;
            if json {
                println!("{}", serde_json::json!({ "words": words }));
            } else {
                let mut out = std::io::stdout().lock();
                for w in words {
                    if writeln!(out, "{}\t{}", w.word, w.score).is_err() {
                        break; // the reader went away (`| head`)
                    }
                }
            }
            Ok(())
        }
        Command::Clues { word, lang, limit, generate, index_dir, json } => {
            let language = language_of(&lang)?;
            let answer = language.normalize(&word).map_err(|c| anyhow::anyhow!("{word:?}: {c}"))?;
            let manager = IndexManager::new(index_dir, u64::MAX);
            let base = manager.clues(language)?;
            let clues = crossword_clues::collect(language, &answer, base.as_deref(), &[], limit);
            let generated = match generate {
                Some(count) => crossword_clues::generate::generate(
                    &BuiltinGenerator,
                    &GenerateRequest { language, answer: &answer, count, base: base.as_deref() },
                )?,
                None => Vec::new(),
            };
            if json {
                println!("{}", serde_json::json!({ "word": answer, "clues": clues, "generated": generated }));
            } else {
                for c in &clues {
                    println!("{}\t{}", c.source.as_str(), c.text);
                }
                for g in &generated {
                    println!("builtin\t{g}");
                }
            }
            Ok(())
        }
    }
}

/// `crossword puzzle export`: reads the API's puzzle JSON and writes `format`.
fn export_file(
    path: &std::path::Path,
    format: &str,
    solution: bool,
    paper: crossword_puzzle::pdf::Paper,
    fonts: &std::path::Path,
) -> anyhow::Result<Vec<u8>> {
    let text = std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let json: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let field = |name: &str| json.get(name).and_then(serde_json::Value::as_str).unwrap_or("").to_owned();
    let language = language_of(json.get("language").and_then(serde_json::Value::as_str).unwrap_or("en"))?;
    let rows: Vec<String> = serde_json::from_value(json.get("grid").cloned().unwrap_or_default())
        .map_err(|_| anyhow::anyhow!("{}: `grid` must be an array of strings", path.display()))?;
    let grid = Grid::parse(language, &rows).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let clues: crossword_puzzle::Clues = serde_json::from_value(json.get("clues").cloned().unwrap_or_default())
        .map_err(|e| anyhow::anyhow!("{}: `clues`: {e}", path.display()))?;
    let (title, author, writeup) = (field("title"), field("author"), field("writeup"));
    let sheet =
        crossword_puzzle::Sheet { language, title: &title, author: &author, grid, clues: &clues, writeup: &writeup };
    let credit = "Made with the crossword construction service";
    let failed = |e: crossword_puzzle::FormatError| anyhow::anyhow!("{}: {e}", path.display());
    Ok(match format {
        "puz" => {
            let notes = if writeup.is_empty() { credit.to_owned() } else { format!("{writeup}\n\n{credit}") };
            crossword_puzzle::puz::write(&sheet, &notes).map_err(failed)?
        }
        "ipuz" => crossword_puzzle::ipuz::write(&sheet, credit).to_string().into_bytes(),
        "html" => crossword_puzzle::html::write(&sheet, credit, solution).map_err(failed)?.into_bytes(),
        "svg" => crossword_puzzle::svg::write(&sheet, solution).into_bytes(),
        "pdf" => {
            use crossword_puzzle::fonts::FontBook;
            use crossword_puzzle::pdf::PdfError;
            match crossword_puzzle::pdf::write(&sheet, credit, &FontBook::load(fonts), paper, solution) {
                Ok(bytes) => bytes,
                Err(PdfError::Puzzle(e)) => return Err(failed(e)),
                Err(PdfError::NoFont(ch)) => anyhow::bail!(
                    "no font for {ch:?} in {} or the system; fetch them with `indexbuild fonts` (missing: {})",
                    fonts.display(),
                    FontBook::missing(fonts).join(", ")
                ),
            }
        }
        other => anyhow::bail!("unknown format {other:?} (puz, ipuz, html, pdf, svg)"),
    })
}

impl FillCommand {
    /// Loads the grid and the word list, fills, and prints the grid and a summary (or JSON).
    fn run(self) -> anyhow::Result<()> {
        let language = language_of(&self.lang)?;
        let text = std::fs::read_to_string(&self.grid).map_err(|e| anyhow::anyhow!("{}: {e}", self.grid.display()))?;
        let rows: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        let grid = Grid::parse(language, &rows).map_err(|e| anyhow::anyhow!("{}: {e}", self.grid.display()))?;
        let load_started = Instant::now();
        let (index, list_cache) = self.load_index(language)?;
        let load_time = load_started.elapsed();
        let options = FillOptions {
            min_score: self.min_score,
            max_time: Duration::from_secs_f64(self.max_time.clamp(0.1, 3600.0)),
            seed: self.seed,
            try_hard: self.try_hard,
            strict: self.strict,
            polish_at_least: self.polish_ms.map_or(crossword_fill::POLISH_AT_LEAST, Duration::from_millis),
        };
        let result = fill(&index, &grid, &options, &AtomicBool::new(false), &mut |_| {});
        let mean = mean_score(&index, &result);
        if self.json {
            let mut out = crate::report::fill_result(&result);
            out["stats"] = serde_json::json!({
                "seconds": result.stats.elapsed.as_secs_f64(),
                "loadSeconds": load_time.as_secs_f64(),
                "listCache": list_cache.map(|o| o.as_str()),
                "nodes": result.stats.nodes,
                "restarts": result.stats.restarts,
                "minScoreUsed": result.stats.min_score_used,
                "provedImpossible": result.stats.proved_impossible,
                "polishSeconds": result.stats.polish.as_secs_f64(),
                "meanScore": mean,
            });
            println!("{out}");
            return Ok(());
        }
        let mut out = std::io::stdout().lock();
        for row in result.grid.to_rows() {
            if writeln!(out, "{row}").is_err() {
                return Ok(()); // the reader went away (`| head`)
            }
        }
        let _ = writeln!(
            out,
            "\n{} of {} slots filled in {:.3}s ({} nodes, {} restarts, level {}), mean score {:.1}, {} rough{}",
            result.slots_filled,
            result.slots_total,
            result.stats.elapsed.as_secs_f64(),
            result.stats.nodes,
            result.stats.restarts,
            result.stats.min_score_used,
            mean,
            result.quality.rough.len(),
            result.reason.map(|r| format!(", reason {}", r.as_str())).unwrap_or_default()
        );
        Ok(())
    }

    /// The language's index, or the index of `--wordlist` from the list cache (built and kept
    /// there on a miss; see `crossword_index::list_cache`), with how it was obtained.
    fn load_index(&self, language: Language) -> anyhow::Result<(Arc<Index>, Option<Outcome>)> {
        let Some(path) = &self.wordlist else {
            return Ok((IndexManager::new(&self.index_dir, u64::MAX).get(language)?, None));
        };
        let dir = self.cache_dir.clone().or_else(list_cache::default_dir).ok_or_else(|| {
            anyhow::anyhow!("no cache directory: set --cache-dir, CROSSWORD_CACHE_DIR, XDG_CACHE_HOME or HOME")
        })?;
        let options = ListOptions { scale_max: 100.0, default_score: 50 };
        let cached = list_cache::open_or_build(path, language, options, &dir)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        if let Outcome::Rebuilt(why) = &cached.outcome {
            eprintln!("warning: the cached index of {} was damaged ({why}); built again", path.display());
        }
        Ok((Arc::new(cached.index), Some(cached.outcome)))
    }
}

/// The mean score of the fill's complete entries the index knows.
fn mean_score(index: &Index, result: &FillResult) -> f64 {
    let language = index.language();
    let scores: Vec<u32> = result
        .grid
        .slots(language.spec().min_slot_length as usize)
        .iter()
        .filter_map(|s| result.grid.slot_text(s))
        .filter_map(|t| index.score(&t).map(u32::from))
        .collect();
    if scores.is_empty() {
        0.0
    } else {
        scores.iter().sum::<u32>() as f64 / scores.len() as f64
    }
}

fn language_of(code: &str) -> anyhow::Result<Language> {
    Language::from_code(code).ok_or_else(|| anyhow::anyhow!("unknown language code {code:?}"))
}
