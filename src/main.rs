//! The `crossword` command: word search from the command line (the server comes later).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use crossword::index::IndexManager;
use crossword::lang::Language;

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
