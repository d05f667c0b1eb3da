//! Hunspell dictionaries (Debian `hunspell-*`) used as a validity filter, never expanded.

use std::path::Path;

use anyhow::{Context, Result};

/// A loaded Hunspell dictionary, or the plain word forms of its `.dic` when the affix file
/// cannot be parsed (spellbook is young; Turkish's affix file trips it).
pub enum Speller {
    /// A full Hunspell checker.
    Hunspell(Box<spellbook::Dictionary>),
    /// Only the `.dic` stems, lower-cased.
    Stems(ahash::AHashSet<String>),
}

impl Speller {
    /// Loads `dic` and the `.aff` beside it, transcoding from `encoding` to UTF-8.
    pub fn load(dic: &Path, encoding: &str) -> Result<Speller> {
        let aff = dic.with_extension("aff");
        let read = |p: &Path| -> Result<String> {
            let bytes = std::fs::read(p).with_context(|| format!("reading {}", p.display()))?;
            super::decode(&bytes, encoding)
        };
        let (aff_text, dic_text) = (read(&aff)?, read(dic)?);
        match spellbook::Dictionary::new(&aff_text, &dic_text) {
            Ok(dict) => Ok(Speller::Hunspell(Box::new(dict))),
            Err(e) => {
                eprintln!("warning: {}: {e}; using the .dic word forms without affixes", aff.display());
                Ok(Speller::Stems(plain_words(dic, encoding)?.into_iter().map(|w| w.to_lowercase()).collect()))
            }
        }
    }

    /// True for a full Hunspell checker (affixes understood), false for the stems fallback.
    pub fn is_full(&self) -> bool {
        matches!(self, Speller::Hunspell(_))
    }

    /// True when the (lower-case) word is correct as written, title-cased or upper-cased, so
    /// names ("alice") and abbreviations pass as they do in crossword lists.
    pub fn accepts(&self, word: &str) -> bool {
        let edges_are_letters = word.chars().next().is_some_and(char::is_alphabetic)
            && word.chars().last().is_some_and(char::is_alphabetic);
        if !edges_are_letters {
            return false;
        }
        match self {
            // spellbook 0.4 can panic on unusual input; a panic rejects the word rather than
            // ending the build (the panic hook installed in main keeps this quiet).
            Speller::Hunspell(dict) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                dict.checker().check_lower_as_title(true).check_lower_as_upper(true).check(word)
            }))
            .unwrap_or(false),
            Speller::Stems(words) => words.contains(word),
        }
    }
}

/// The words of a plain-list `.dic` (no affix flags): first line is a count, then one word a
/// line, optionally followed by `/FLAGS`.
pub fn plain_words(dic: &Path, encoding: &str) -> Result<Vec<String>> {
    let text = super::decode(&std::fs::read(dic)?, encoding)?;
    Ok(text
        .lines()
        .skip(1)
        .filter_map(|l| l.split(['/', '\t']).next())
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect())
}
