//! The clue report: how many of the entries constructors care about have a clue, and whether
//! the clue a lookup shows first reads like a crossword clue.
//!
//! Two samples: the index's own best-scored entries ([`crate::clues::COVERAGE_TOP`]), and,
//! when a constructor's `WORD;SCORE` list is given (`--grade-list`, e.g. Spread the Wordlist),
//! its **crossword-grade** entries: those scored at least `--grade-min` with 3 to
//! `--grade-max-len` cells. The grade list is only read, never copied into anything.
//!
//! The style check looks at the first clue of every covered entry of the sample (the clue a
//! lookup ranks first): its length, taxonomic jargon ("Sometimes placed in subfamily
//! Trilliaceae"), fill-in-the-blanks whose other words are proper nouns written in lower case
//! (`___ anna` for SANTA), and answer leaks.

use std::path::Path;

use anyhow::{Context, Result};
use crossword_clues::{leaks, ClueBase};
use crossword_lang::Language;
use serde::Serialize;

/// Which entries of a grade list count as crossword-grade.
#[derive(Debug, Clone, Copy)]
pub struct GradeRule {
    /// Lowest score kept, on the list's own scale (Spread the Wordlist: 0-60).
    pub min_score: u32,
    /// Most cells.
    pub max_len: usize,
}

/// The crossword-grade entries of a `WORD;SCORE` list, normalized for `language`.
pub fn grade_entries(path: &Path, language: Language, rule: GradeRule) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut out = Vec::new();
    for line in text.lines() {
        let Some((word, score)) = line.split_once(';') else { continue };
        let Ok(score) = score.trim().parse::<u32>() else { continue };
        let Ok(entry) = language.normalize(word) else { continue };
        let cells = language.split_cells(&entry).len();
        if score >= rule.min_score && (3..=rule.max_len).contains(&cells) {
            out.push(entry);
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// Coverage and style of one sample.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SampleReport {
    /// Entries in the sample.
    pub entries: usize,
    /// Entries with at least one clue.
    pub covered: usize,
    /// `covered / entries` in percent.
    pub share: f64,
    /// Median length in characters of the first clues.
    pub median_first_clue_chars: usize,
    /// First clues with taxonomic jargon.
    pub jargon: usize,
    /// First clues that are fill-in-the-blanks with a proper noun in lower case.
    pub lowercase_proper_blanks: usize,
    /// First clues that give the answer away (must be 0: the writer refuses them).
    pub leaks: usize,
    /// A few uncovered entries, for whoever works on the data next.
    pub uncovered_examples: Vec<String>,
    /// Uncovered entries that the language's own index has (the others exist only in the
    /// grade list).
    pub uncovered_in_index: usize,
    /// Every uncovered entry (written to `OUT/clue-uncovered-CODE.txt` for the grade sample).
    #[serde(skip)]
    pub uncovered: Vec<String>,
    /// A few first clues flagged by the style check.
    pub flagged_examples: Vec<String>,
}

/// Checks `entries` against the clue collection `base`. `proper_case` tells, for a lower-case
/// word, how the language's data spells it when it is only ever a proper noun.
pub fn sample(
    base: &ClueBase,
    language: Language,
    entries: &[String],
    proper_case: &dyn Fn(&str) -> Option<String>,
) -> SampleReport {
    let mut r = SampleReport { entries: entries.len(), ..SampleReport::default() };
    let mut lengths = Vec::new();
    let mut uncovered = Vec::new();
    for entry in entries {
        let Some(first) = base.clues(entry).next() else {
            uncovered.push(entry);
            continue;
        };
        r.covered += 1;
        let text = first.text;
        lengths.push(text.chars().count());
        let mut flag = |what: &str, counter: &mut usize| {
            *counter += 1;
            if r.flagged_examples.len() < 30 {
                r.flagged_examples.push(format!("{what}: {entry}: {text}"));
            }
        };
        if has_jargon(text) {
            flag("jargon", &mut r.jargon);
        }
        if text.contains("___") && lowercase_proper_noun(text, proper_case) {
            flag("proper noun", &mut r.lowercase_proper_blanks);
        }
        if leaks(language, entry, text) {
            flag("leak", &mut r.leaks);
        }
    }
    // Examples spread over the whole sample rather than its first few.
    let step = (uncovered.len() / 40).max(1);
    r.uncovered_examples = uncovered.iter().step_by(step).take(40).map(|e| (*e).clone()).collect();
    r.uncovered = uncovered.into_iter().cloned().collect();
    lengths.sort_unstable();
    r.median_first_clue_chars = lengths.get(lengths.len() / 2).copied().unwrap_or(0);
    r.share = if r.entries == 0 { 0.0 } else { 100.0 * r.covered as f64 / r.entries as f64 };
    r
}

/// Words that mark a clue as a taxonomy note rather than a crossword clue.
pub fn has_jargon(text: &str) -> bool {
    const WORDS: &[&str] =
        &["genus", "subgenus", "family", "subfamily", "order", "suborder", "phylum", "subphylum", "taxon", "taxonomic"];
    const LATIN_ENDINGS: &[&str] = &["aceae", "idae", "inae", "oideae", "phyta", "mycetes", "opsida", "iformes"];
    let words: Vec<&str> = text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    words.iter().enumerate().any(|(i, w)| {
        let lower = w.to_lowercase();
        let latin = w.chars().next().is_some_and(char::is_uppercase)
            && w.len() >= 7
            && LATIN_ENDINGS.iter().any(|e| lower.ends_with(e));
        // "genus Quercus", "family Rosaceae": the rank word followed by a capitalized name.
        let rank = WORDS.contains(&lower.as_str())
            && words.get(i + 1).is_some_and(|n| n.chars().next().is_some_and(char::is_uppercase));
        latin || rank || lower == "taxonomic"
    })
}

/// A phrase fill-in-the-blank (four words at most, not an example sentence) whose other words
/// include one of three letters or more, written in lower case, that the data only knows as a
/// proper noun (`___ anna`).
fn lowercase_proper_noun(text: &str, proper_case: &dyn Fn(&str) -> Option<String>) -> bool {
    text.split_whitespace().count() <= 4
        && text
            .split_whitespace()
            .skip(1) // the first word is capitalized as the clue's start anyway
            .filter(|w| *w != "___")
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
            .any(|w| w.len() >= 3 && w.chars().next().is_some_and(char::is_lowercase) && proper_case(w).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jargon_is_the_taxonomists_not_the_solvers() {
        assert!(has_jargon("Sometimes placed in subfamily Trilliaceae"));
        assert!(has_jargon("Oak of the genus Quercus"));
        assert!(has_jargon("Rosaceae member"));
        assert!(!has_jargon("Family member"), "an ordinary family");
        assert!(!has_jargon("In order"));
        assert!(!has_jargon("Whales and sales"), "lower-case words ending like a taxon");
    }

    #[test]
    fn proper_nouns_in_blanks_are_capitalized() {
        let proper = |w: &str| (w == "anna").then(|| "Anna".to_owned());
        assert!(lowercase_proper_noun("___ anna", &proper));
        assert!(!lowercase_proper_noun("___ Anna", &proper));
        assert!(!lowercase_proper_noun("Ice ___", &proper));
    }
}
