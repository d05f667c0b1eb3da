//! `indexbuild`: the offline index builder.
//!
//! Reads the raw corpus (fetched by package name with pip, npm and apt-get into a cache),
//! normalizes and scores entries per language, optionally merges a user's `WORD;SCORE` list,
//! and writes one index file per language, plain (`CODE.cwi`, what the server maps) and
//! zstd-compressed (`CODE.cwi.zst`, what is distributed).

mod assemble;
mod clue_report;
mod clues;
mod english;
mod fetch;
mod fonts;
mod recipes;
mod score;
mod sources;
#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use crossword_index::{IndexStats, IndexWriter};
use crossword_lang::Language;
use indicatif::{ProgressBar, ProgressStyle};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Builds the crossword word indexes.
#[derive(Parser)]
#[command(name = "indexbuild", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Fetch (or reuse) the corpus and build indexes.
    Build(BuildArgs),
    /// Only fetch the corpus packages into the cache.
    Fetch(CommonArgs),
    /// Work on built clue collections.
    #[command(subcommand)]
    Clues(CluesCommand),
    /// Fetch the fonts of printed puzzles (Debian packages, by name) into `OUT/fonts/`.
    Fonts(FontsArgs),
}

#[derive(clap::Args)]
struct FontsArgs {
    /// The corpus folder (its `.cache` holds the downloads).
    #[arg(long, default_value = "corpus")]
    corpus: PathBuf,
    /// The download cache (default: CORPUS/.cache).
    #[arg(long)]
    cache: Option<PathBuf>,
    /// The index folder; fonts go to its `fonts/` folder.
    #[arg(long, default_value = "indexes")]
    out: PathBuf,
}

#[derive(Subcommand)]
enum CluesCommand {
    /// Add published clues from a TSV file (`answer<TAB>clue<TAB>count`, UTF-8, `#` comments)
    /// to a language's clue collection. The file is also kept in `OUT/published/` so later
    /// builds apply it again.
    Import {
        /// The language of the clues.
        #[arg(long = "lang")]
        lang: String,
        /// The TSV file.
        file: PathBuf,
        /// The index folder holding `CODE.cwc`.
        #[arg(long, default_value = "indexes")]
        out: PathBuf,
        /// zstd level of the distributed file.
        #[arg(long, default_value_t = 12)]
        zstd_level: i32,
    },
}

#[derive(clap::Args)]
struct CommonArgs {
    /// Languages to process (repeatable or comma-separated); all 28 when omitted.
    #[arg(long = "lang", value_delimiter = ',')]
    langs: Vec<String>,
    /// The corpus folder (recipes, blocklists).
    #[arg(long, default_value = "corpus")]
    corpus: PathBuf,
    /// The download cache (default: CORPUS/.cache).
    #[arg(long)]
    cache: Option<PathBuf>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum WordlistMode {
    /// The user's list is merged over the corpus list; its scores win.
    Merge,
    /// Only the user's list is used.
    Replace,
}

#[derive(clap::Args)]
struct BuildArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Where to write the index files.
    #[arg(long, default_value = "indexes")]
    out: PathBuf,
    /// A `WORD;SCORE` list to use for the (single) language being built.
    #[arg(long)]
    wordlist: Option<PathBuf>,
    /// How the wordlist combines with the corpus list.
    #[arg(long, value_enum, default_value = "merge")]
    wordlist_mode: WordlistMode,
    /// The top of the wordlist's score scale (60 maps 0-60 onto 0-100).
    #[arg(long, default_value_t = 100.0)]
    wordlist_scale: f32,
    /// Score for wordlist lines without one (on the 0-100 scale).
    #[arg(long, default_value_t = 50)]
    wordlist_default_score: u8,
    /// Do not apply corpus/blocklists.
    #[arg(long)]
    no_blocklist: bool,
    /// zstd level of the distributed files.
    #[arg(long, default_value_t = 12)]
    zstd_level: i32,
    /// Do not build the clue collections.
    #[arg(long)]
    no_clues: bool,
    /// Do not fetch the fonts of printed puzzles into `OUT/fonts/`.
    #[arg(long)]
    no_fonts: bool,
    /// A constructor's `WORD;SCORE` list whose crossword-grade entries the clue report also
    /// checks, as `CODE=PATH` (repeatable; e.g. `en=spreadthewordlist.dict`). Only read.
    #[arg(long = "grade-list", value_parser = parse_grade_list)]
    grade_lists: Vec<(String, PathBuf)>,
    /// Lowest score of a crossword-grade entry, on the grade list's scale.
    #[arg(long, default_value_t = 50)]
    grade_min: u32,
    /// Most cells of a crossword-grade entry (the least is 3).
    #[arg(long, default_value_t = 8)]
    grade_max_len: usize,
}

fn parse_grade_list(arg: &str) -> Result<(String, PathBuf), String> {
    let (code, path) = arg.split_once('=').ok_or_else(|| format!("expected CODE=PATH, got {arg:?}"))?;
    Ok((code.to_owned(), PathBuf::from(path)))
}

fn main() {
    // The Hunspell checker may panic on odd words; those are caught and counted as rejections,
    // so only report panics from anywhere else.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !info.location().is_some_and(|l| l.file().contains("spellbook")) {
            default_hook(info);
        }
    }));
    if let Err(e) = run(Cli::parse()) {
        eprintln!("indexbuild: {e:#}");
        std::process::exit(1);
    }
}

fn languages(codes: &[String]) -> Result<Vec<Language>> {
    if codes.is_empty() {
        return Ok(Language::all().collect());
    }
    codes.iter().map(|c| Language::from_code(c).with_context(|| format!("unknown language code {c:?}"))).collect()
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Fetch(args) => {
            let recipes = recipes::Recipes::load(&args.corpus.join("recipes.toml"))?;
            let cache = fetch::Cache::new(args.cache.clone().unwrap_or_else(|| args.corpus.join(".cache")));
            for language in languages(&args.langs)? {
                for package in recipes.packages_for(language.code())? {
                    let reused = cache.has(&package);
                    let started = Instant::now();
                    let dir = cache.get(&package)?;
                    let how = if reused {
                        "cached".to_owned()
                    } else {
                        format!("fetched in {:.1}s", started.elapsed().as_secs_f32())
                    };
                    println!("{:>3} {:<24} {how:<18} {}", language.code(), package.name, dir.display());
                }
            }
            Ok(())
        }
        Command::Build(args) => build(args),
        Command::Fonts(args) => {
            let cache = fetch::Cache::new(args.cache.clone().unwrap_or_else(|| args.corpus.join(".cache")));
            for path in fonts::install(&cache, &args.out.join("fonts"))? {
                println!("{}", path.display());
            }
            Ok(())
        }
        Command::Clues(CluesCommand::Import { lang, file, out, zstd_level }) => {
            import_clues(&lang, &file, &out, zstd_level)
        }
    }
}

/// One row of the summary table and of `build-report.json`.
#[derive(serde::Serialize)]
struct Report {
    language: &'static str,
    stats: IndexStats,
    funnel: assemble::Funnel,
    compressed_bytes: u64,
    user_list_entries: usize,
    seconds: f32,
}

fn build(args: BuildArgs) -> Result<()> {
    let langs = languages(&args.common.langs)?;
    if args.wordlist.is_some() && langs.len() != 1 {
        bail!("--wordlist needs exactly one --lang");
    }
    let recipes = recipes::Recipes::load(&args.common.corpus.join("recipes.toml"))?;
    let cache = fetch::Cache::new(args.common.cache.clone().unwrap_or_else(|| args.common.corpus.join(".cache")));
    std::fs::create_dir_all(&args.out)?;
    let templates = clues::load_templates(&args.common.corpus)?;
    let mut reports = Vec::new();
    let mut coverage = Vec::new();
    for language in langs {
        let started = Instant::now();
        let bar = ProgressBar::new(0).with_style(
            ProgressStyle::with_template("{spinner} {msg:32} [{bar:30}] {pos}/{len} {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar.enable_steady_tick(std::time::Duration::from_millis(200));
        let mut writer = IndexWriter::new(language);
        let mut funnel = assemble::Funnel::default();
        if args.wordlist_mode == WordlistMode::Merge || args.wordlist.is_none() {
            funnel = assemble::corpus_list(language, &recipes, &cache, &mut writer, &bar)?;
        }
        let mut user_list_entries = 0;
        if let Some(path) = &args.wordlist {
            bar.set_message(format!("{}: reading {}", language.code(), path.display()));
            let parsed =
                crossword_index::wordlist::read(path, language, args.wordlist_scale, args.wordlist_default_score)
                    .with_context(|| format!("reading {}", path.display()))?;
            for w in &parsed.words {
                if writer.set(&w.word, w.score).is_ok() {
                    user_list_entries += 1;
                }
            }
            if !parsed.rejected.is_empty() {
                bar.println(format!(
                    "{}: {} lines of {} not used (first: line {}: {})",
                    language.code(),
                    parsed.rejected.len(),
                    path.display(),
                    parsed.rejected[0].0,
                    parsed.rejected[0].1
                ));
            }
            writer.meta("user_list", serde_json::json!({ "file": path.file_name().map(|f| f.to_string_lossy().into_owned()), "mode": if args.wordlist_mode == WordlistMode::Merge { "merge" } else { "replace" }, "scale": args.wordlist_scale }));
        }
        if !args.no_blocklist {
            funnel.blocked = assemble::apply_blocklist(language, &args.common.corpus, &mut writer)?;
        }
        bar.set_message(format!("{}: writing", language.code()));
        let plain = args.out.join(format!("{}.cwi", language.code()));
        let stats = writer.write_to(&plain)?;
        let packed = args.out.join(format!("{}.cwi.zst", language.code()));
        let tmp = packed.with_extension("zst.tmp");
        {
            let input = std::fs::File::open(&plain)?;
            let output = std::fs::File::create(&tmp)?;
            zstd::stream::copy_encode(input, output, args.zstd_level)?;
        }
        std::fs::rename(&tmp, &packed)?;
        let compressed_bytes = std::fs::metadata(&packed)?.len();
        if !args.no_clues {
            bar.set_message(format!("{}: clues", language.code()));
            let recipe =
                recipes.language.get(language.code()).with_context(|| format!("no recipe for {}", language.code()))?;
            let grade = match args.grade_lists.iter().find(|(code, _)| code == language.code()) {
                Some((_, path)) => Some(clue_report::grade_entries(
                    path,
                    language,
                    clue_report::GradeRule { min_score: args.grade_min, max_len: args.grade_max_len },
                )?),
                None => None,
            };
            let c = clues::build(
                language,
                recipe,
                &recipes,
                &cache,
                &templates,
                &writer,
                &args.out,
                args.zstd_level,
                grade.as_deref(),
                &args.common.corpus,
            )?;
            if let Some(g) = &c.grade {
                let path = args.out.join(format!("clue-uncovered-{}.txt", language.code()));
                std::fs::write(&path, g.uncovered.join("\n") + "\n")?;
            }
            coverage.push(c);
        }
        bar.finish_and_clear();
        let report = Report {
            language: language.code(),
            stats,
            funnel,
            compressed_bytes,
            user_list_entries,
            seconds: started.elapsed().as_secs_f32(),
        };
        print_report(&report);
        reports.push(report);
    }
    print_summary(&reports);
    let json = serde_json::to_string_pretty(&reports)?;
    std::fs::write(args.out.join("build-report.json"), json)?;
    if !coverage.is_empty() {
        print_coverage(&coverage);
        std::fs::write(args.out.join("clue-coverage.json"), serde_json::to_string_pretty(&coverage)?)?;
    }
    if !args.no_fonts {
        let installed = fonts::install(&cache, &args.out.join("fonts"))?;
        println!("fonts for printed puzzles: {} files in {}", installed.len(), args.out.join("fonts").display());
    }
    Ok(())
}

fn print_coverage(rows: &[clues::Coverage]) {
    println!("\n| lang | top entries | with a clue | share | clues per entry | answers with clues | clues | material | zstd MB |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for c in rows {
        println!(
            "| {} | {} | {} | {:.1}% | {:.2} | {} | {} | {} | {:.1} |",
            c.language,
            c.top_entries,
            c.covered,
            c.share(),
            c.clues_per_entry,
            c.collection.answers_with_clues,
            c.collection.clues,
            c.collection.material,
            c.compressed_bytes as f64 / 1e6
        );
    }
    println!("\n| lang | sample | entries | with a clue | share | median first clue | jargon | lower-case proper nouns | leaks | 5 generated | any generated |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for c in rows {
        let samples = std::iter::once(("top", &c.top)).chain(c.grade.as_ref().map(|g| ("grade", g)));
        for (name, r) in samples {
            println!(
                "| {} | {name} | {} | {} | {:.1}% | {} | {} | {} | {} | {:.1}% | {:.1}% |",
                c.language,
                r.entries,
                r.covered,
                r.share,
                r.median_first_clue_chars,
                r.jargon,
                r.lowercase_proper_blanks,
                r.leaks,
                c.generated_five,
                c.generated_any
            );
        }
    }
}

/// `indexbuild clues import`: merges a published-clue TSV into the language's clue file.
fn import_clues(code: &str, file: &std::path::Path, out: &std::path::Path, zstd_level: i32) -> Result<()> {
    let language = Language::from_code(code).with_context(|| format!("unknown language code {code:?}"))?;
    let plain = out.join(format!("{}.cwc", language.code()));
    let mut writer = if plain.is_file() {
        let base = crossword_clues::ClueBase::open(&plain, language, crossword_index::Verify::Checksum)
            .with_context(|| format!("reading {}", plain.display()))?;
        crossword_clues::ClueWriter::from_base(&base)
    } else {
        crossword_clues::ClueWriter::new(language)
    };
    // Check the whole file before anything is written.
    let stats = clues::import_tsv(&mut writer, file)?;
    let kept = clues::published_path(out, language);
    std::fs::create_dir_all(kept.parent().unwrap_or(out))?;
    let mut all = std::fs::read_to_string(&kept).unwrap_or_default();
    if !all.is_empty() && !all.ends_with('\n') {
        all.push('\n');
    }
    all.push_str(&std::fs::read_to_string(file)?);
    let tmp = kept.with_extension("tsv.tmp");
    std::fs::write(&tmp, all)?;
    let written = clues::write(&writer, out, zstd_level)?;
    std::fs::rename(&tmp, &kept)?;
    println!(
        "{}: {} clues added, {} repeats (counts added up), {} refused (bad answer, empty or over 150 characters, or giving the answer away); collection now {} clues for {} answers",
        language.code(),
        stats.added,
        stats.repeats,
        stats.refused,
        written.clues,
        written.answers_with_clues
    );
    Ok(())
}

fn print_report(r: &Report) {
    let s = &r.stats;
    let lengths: Vec<String> =
        s.by_length.iter().enumerate().filter(|(_, n)| **n > 0).map(|(l, n)| format!("{l}:{n}")).collect();
    println!(
        "{}: {} entries, {} cells, {:.1} MB mapped, {:.1} MB compressed, {:.1}s\n    by length  {}\n    by score   <20:{} 20-39:{} 40-59:{} 60-79:{} 80+:{}\n    funnel     {} frequency words, {} outside alphabet, {} not in dictionary, {} kept unverified, {} from dictionaries, {} blocked, {} from user list",
        r.language,
        s.entries,
        s.cells,
        s.bytes as f64 / 1e6,
        r.compressed_bytes as f64 / 1e6,
        r.seconds,
        lengths.join(" "),
        s.by_band[0],
        s.by_band[1],
        s.by_band[2],
        s.by_band[3],
        s.by_band[4],
        r.funnel.frequency_words,
        r.funnel.outside_alphabet,
        r.funnel.not_in_dictionary,
        r.funnel.unverified,
        r.funnel.from_dictionaries,
        r.funnel.blocked,
        r.user_list_entries,
    );
}

fn print_summary(reports: &[Report]) {
    println!("\n| lang | entries | 40+ | 60+ | cells | mapped MB | zstd MB | build s |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for r in reports {
        let b = &r.stats.by_band;
        println!(
            "| {} | {} | {} | {} | {} | {:.1} | {:.1} | {:.1} |",
            r.language,
            r.stats.entries,
            b[2] + b[3] + b[4],
            b[3] + b[4],
            r.stats.cells,
            r.stats.bytes as f64 / 1e6,
            r.compressed_bytes as f64 / 1e6,
            r.seconds
        );
    }
}
