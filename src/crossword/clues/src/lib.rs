//! The clue collection: lookups, ranking, answer-leak checks, generated clues and their proof
//! tokens. No HTTP and no async in here.
//!
//! A language's collection has two layers:
//!
//! * the read-only **base** ([`ClueBase`]): one memory-mapped file per language (`CODE.cwc`)
//!   written by `indexbuild` next to the word index, holding the `dictionary` clues built from
//!   the corpus and the `published` clues a self-hoster imported;
//! * **additions** ([`StoredClue`]) kept in the service's database: `original` clues from
//!   puzzles published on the service and `ai` clues those puzzles used.
//!
//! [`collect`] merges both for one answer. Ranking, best first:
//!
//! 1. `published`, most printed first;
//! 2. `original`, most used first;
//! 3. `dictionary`, in the builder's order (most common sense first; see `indexbuild`);
//! 4. `ai`, most used first.
//!
//! Repeats are removed by comparing [`dedupe_key`]s (case, accents, spacing and punctuation
//! ignored); the better-ranked copy stays. Clues that give the answer away ([`leaks`]) are
//! dropped, whichever layer they come from.

mod base;
pub mod format;
pub mod generate;
pub mod token;
mod writer;

use std::cmp::Reverse;

pub use base::{BaseClue, ClueBase};
pub use mapped_file::{OpenError, Verify};
pub use writer::{AddOutcome, ClueStats, ClueWriter};

use crossword_lang::Language;

/// Longest clue text, in characters (the contract's limit).
pub const MAX_CLUE_CHARS: usize = 150;

/// Where a clue comes from (the contract's `source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// Appeared in print; carries a print count.
    Published,
    /// Built from dictionaries and thesauri.
    Dictionary,
    /// Written by a constructor in a puzzle published on this service.
    Original,
    /// Generated, and used in a published puzzle.
    Ai,
}

impl Source {
    /// The number stored in [`format::ClueRecord::source`].
    pub fn to_u8(self) -> u8 {
        match self {
            Source::Published => 0,
            Source::Dictionary => 1,
            Source::Original => 2,
            Source::Ai => 3,
        }
    }

    /// The inverse of [`Source::to_u8`].
    pub fn from_u8(n: u8) -> Option<Source> {
        [Source::Published, Source::Dictionary, Source::Original, Source::Ai].get(n as usize).copied()
    }

    /// The contract's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Published => "published",
            Source::Dictionary => "dictionary",
            Source::Original => "original",
            Source::Ai => "ai",
        }
    }

    /// Position in the ranking (smaller is better).
    fn rank(self) -> u8 {
        match self {
            Source::Published => 0,
            Source::Original => 1,
            Source::Dictionary => 2,
            Source::Ai => 3,
        }
    }
}

/// What a base record holds. Kinds below [`Kind::Hypernym`] are clues; the rest is material
/// for the built-in generator only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A clue given as is (imported, or written by a constructor).
    Plain,
    /// A definition (a WordNet sense turned into a clue).
    Sense,
    /// A synonym.
    Synonym,
    /// Fill in the blank from a phrase containing the answer (`___ cream`).
    Blank,
    /// A synonym inflected like the answer (`Felines` for CATS).
    Inflected,
    /// Material: a broader term (`tree` for OAK), for "Kind of tree".
    Hypernym,
    /// Material: an opposite (`cold` for HOT), for "Opposite of cold".
    Antonym,
}

impl Kind {
    /// The number stored in [`format::ClueRecord::kind`].
    pub fn to_u8(self) -> u8 {
        match self {
            Kind::Plain => 0,
            Kind::Sense => 1,
            Kind::Synonym => 2,
            Kind::Blank => 3,
            Kind::Inflected => 4,
            Kind::Hypernym => 64,
            Kind::Antonym => 65,
        }
    }

    /// The inverse of [`Kind::to_u8`].
    pub fn from_u8(n: u8) -> Option<Kind> {
        Some(match n {
            0 => Kind::Plain,
            1 => Kind::Sense,
            2 => Kind::Synonym,
            3 => Kind::Blank,
            4 => Kind::Inflected,
            64 => Kind::Hypernym,
            65 => Kind::Antonym,
            _ => return None,
        })
    }

    /// True for kinds served as clues (the rest is generator material).
    pub fn is_clue(self) -> bool {
        self.to_u8() < 64
    }
}

/// A clue as the API returns it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Clue {
    /// The clue, at most [`MAX_CLUE_CHARS`] characters.
    pub text: String,
    /// Where it comes from.
    pub source: Source,
    /// Times printed (`published`); 0 for other sources.
    pub pub_count: u32,
    /// Proof that this service generated the clue (new `ai` clues only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

/// A clue kept in the database (an addition to the base collection).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StoredClue {
    /// The clue text.
    pub text: String,
    /// `original`, `ai` or `published`.
    pub source: Source,
    /// Uses (`original`, `ai`) or prints (`published`).
    pub count: u32,
}

/// Cleans clue text: trims, collapses runs of white space, and upper-cases the first letter.
/// `None` when nothing is left or the result is longer than [`MAX_CLUE_CHARS`].
pub fn clean_text(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    let first = out.chars().next()?;
    if first.is_lowercase() {
        let upper: String = first.to_uppercase().collect();
        out.replace_range(..first.len_utf8(), &upper);
    }
    (out.chars().count() <= MAX_CLUE_CHARS).then_some(out)
}

/// The form two clues are compared in to find repeats: lower case, accents and every
/// character that is not a letter or digit removed.
pub fn dedupe_key(text: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    text.nfd().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// True when `text` gives the answer away: it contains the (normalized) answer as a word, as
/// the start of a word (`Iced` for ICE), inside a word once the answer has four cells or more,
/// or spread over adjacent words (`ice cream` for ICECREAM); or a word of four cells or more
/// in it is part of the answer (`cream` for ICECREAMCONE), or a shorter word is the answer
/// minus an ending of at most three cells (`cat` for CATS). Words are normalized like answers.
pub fn leaks(language: Language, answer: &str, text: &str) -> bool {
    let answer_cells = language.split_cells(answer).len();
    if answer_cells == 0 {
        return false;
    }
    let words = normalized_words(language, text);
    for (i, word) in words.iter().enumerate() {
        let cells = language.split_cells(word).len();
        if word == answer
            || (answer_cells >= 2 && word.starts_with(answer))
            || (answer_cells >= 4 && word.contains(answer))
            || (cells >= 4 && answer.contains(word.as_str()))
            || (cells >= 2
                && answer.starts_with(word.as_str())
                && answer_cells - cells <= 3
                && cells * 2 >= answer_cells)
        {
            return true;
        }
        let mut joined = word.clone();
        for next in words.iter().skip(i + 1).take(3) {
            joined.push_str(next);
            if joined == answer {
                return true;
            }
            if joined.len() >= answer.len() {
                break;
            }
        }
    }
    false
}

/// The words of `text`, each normalized like an answer; characters outside the language's
/// alphabet split words (so Latin text inside a Japanese clue is simply ignored).
fn normalized_words(language: Language, text: &str) -> Vec<String> {
    let mut words = Vec::new();
    for raw in
        text.split(|c: char| c.is_whitespace() || c.is_ascii_punctuation() || "–—…«»„“”‘’·、。，「」（）".contains(c))
    {
        if raw.is_empty() {
            continue;
        }
        match language.normalize(raw) {
            Ok(w) if !w.is_empty() => words.push(w),
            Ok(_) => {}
            Err(_) => {
                // Mixed scripts: keep the runs that are valid.
                let mut run = String::new();
                for ch in raw.chars() {
                    let mut buf = [0u8; 4];
                    match language.normalize(ch.encode_utf8(&mut buf)) {
                        Ok(n) => run.push_str(&n),
                        Err(_) if !run.is_empty() => words.push(std::mem::take(&mut run)),
                        Err(_) => {}
                    }
                }
                if !run.is_empty() {
                    words.push(run);
                }
            }
        }
    }
    words
}

/// The clues of `answer` (normalized), best first, repeats and leaks removed, at most `limit`.
/// `base` is the language's base collection, if it has one; `additions` the database's clues
/// for the answer.
pub fn collect(
    language: Language,
    answer: &str,
    base: Option<&ClueBase>,
    additions: &[StoredClue],
    limit: usize,
) -> Vec<Clue> {
    if additions.is_empty() {
        // The base alone is already ranked, deduplicated and leak-checked by its writer.
        let Some(base) = base else { return Vec::new() };
        return base
            .clues(answer)
            .filter(|c| !c.text.is_empty() && c.text.chars().count() <= MAX_CLUE_CHARS)
            .take(limit)
            .map(|c| Clue {
                text: c.text.to_owned(),
                source: c.source,
                pub_count: if c.source == Source::Published { c.count } else { 0 },
                token: None,
            })
            .collect();
    }
    // (source rank, -count, order of appearance) sorts the candidates.
    type Candidate<'a> = ((u8, Reverse<u32>, usize), &'a str, Source, u32);
    let mut candidates: Vec<Candidate<'_>> = Vec::new();
    if let Some(base) = base {
        for (i, c) in base.clues(answer).enumerate() {
            candidates.push((
                (c.source.rank(), Reverse(ranked_count(c.source, c.count)), i),
                c.text,
                c.source,
                c.count,
            ));
        }
    }
    for (i, c) in additions.iter().enumerate() {
        let key = (c.source.rank(), Reverse(ranked_count(c.source, c.count)), usize::MAX / 2 + i);
        candidates.push((key, c.text.as_str(), c.source, c.count));
    }
    candidates.sort_by_key(|c| c.0);
    let mut seen = ahash::AHashSet::new();
    let mut out = Vec::new();
    for (_, text, source, count) in candidates {
        if out.len() == limit {
            break;
        }
        if text.is_empty() || text.chars().count() > MAX_CLUE_CHARS || !seen.insert(dedupe_key(text)) {
            continue;
        }
        if leaks(language, answer, text) {
            continue;
        }
        let pub_count = if source == Source::Published { count } else { 0 };
        out.push(Clue { text: text.to_owned(), source, pub_count, token: None });
    }
    out
}

/// Dictionary clues keep the builder's order; the other sources rank by their count.
fn ranked_count(source: Source, count: u32) -> u32 {
    if source == Source::Dictionary {
        0
    } else {
        count
    }
}

#[cfg(test)]
mod tests;
