//! Clue generators behind one small trait.
//!
//! * [`BuiltinGenerator`] works offline everywhere: it composes clues from the language data
//!   in the base collection (broader terms: "Kind of tree"; pairs of synonyms; opposites;
//!   shortened definitions; a synonym glossed with a broader term; the neighbour of a blank:
//!   "Word before cream"), with phrase templates in the puzzle's language that `indexbuild`
//!   stores in the collection file. It offers every combination the data allows, so a request
//!   for ten gets ten whenever the answer has the material.
//!
//! Generators that ask a model server live in the service (the engine makes no network calls);
//! they implement [`ClueGenerator`] too. [`generate`] runs any generator and applies the same rules to what comes back: cleaned text, at
//! most 150 characters, no answer leaks, no repeats, no copy of a clue the collection already
//! has, at most `count`.

use crossword_lang::Language;

use super::{clean_text, dedupe_key, leaks, ClueBase, Kind};

/// What to generate.
pub struct GenerateRequest<'a> {
    /// The puzzle language.
    pub language: Language,
    /// The answer, normalized.
    pub answer: &'a str,
    /// How many clues (1 to 10).
    pub count: usize,
    /// The language's base collection, when it has one.
    pub base: Option<&'a ClueBase>,
}

/// Why a generator produced nothing usable.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// The upstream model server failed, timed out or answered nonsense.
    #[error("clue generator unavailable: {0}")]
    Upstream(String),
}

/// A source of new clues.
pub trait ClueGenerator: Send + Sync {
    /// A short name for logs and `/status`.
    fn name(&self) -> &'static str;
    /// Candidate clue texts, best first; may return more or fewer than asked. [`generate`]
    /// filters them.
    fn candidates(&self, request: &GenerateRequest<'_>) -> Result<Vec<String>, GenerateError>;
}

/// Runs `generator` and keeps at most `count` clean, new, non-leaking clues.
pub fn generate(generator: &dyn ClueGenerator, request: &GenerateRequest<'_>) -> Result<Vec<String>, GenerateError> {
    let candidates = generator.candidates(request)?;
    let mut seen: ahash::AHashSet<String> =
        request.base.map(|b| b.clues(request.answer).map(|c| dedupe_key(c.text)).collect()).unwrap_or_default();
    let mut out = Vec::new();
    for text in candidates {
        if out.len() == request.count {
            break;
        }
        let Some(text) = clean_text(&text) else { continue };
        if leaks(request.language, request.answer, &text) || !seen.insert(dedupe_key(&text)) {
            continue;
        }
        out.push(text);
    }
    Ok(out)
}

/// Phrase templates of one language, read from the collection's META (`templates`); `{}`
/// marks where the material goes.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct Templates {
    /// For a broader term: `Kind of {}`.
    #[serde(default)]
    pub kind_of: Vec<String>,
    /// For an opposite: `Opposite of {}`.
    #[serde(default)]
    pub opposite: Vec<String>,
    /// For the word after a blank (`___ cream`): `Word before {}`.
    #[serde(default)]
    pub before: Vec<String>,
    /// For the word before a blank (`Ice ___`): `{} follower` (that word is stored capitalized,
    /// as it starts its clue).
    #[serde(default)]
    pub after: Vec<String>,
}

impl Templates {
    /// The templates stored in a collection file.
    pub fn of(base: &ClueBase) -> Templates {
        serde_json::from_str::<serde_json::Value>(base.meta())
            .ok()
            .and_then(|m| m.get("templates").cloned())
            .and_then(|t| serde_json::from_value(t).ok())
            .unwrap_or_default()
    }
}

/// The offline generator.
#[derive(Debug, Default)]
pub struct BuiltinGenerator;

impl ClueGenerator for BuiltinGenerator {
    fn name(&self) -> &'static str {
        "builtin"
    }

    fn candidates(&self, request: &GenerateRequest<'_>) -> Result<Vec<String>, GenerateError> {
        let Some(base) = request.base else { return Ok(Vec::new()) };
        let templates = Templates::of(base);
        let records: Vec<_> = base.records(request.answer).collect();
        let of_kind = |kind: Kind| records.iter().filter(|r| r.kind == kind).map(|r| r.text).collect::<Vec<&str>>();
        let material = Material {
            synonyms: of_kind(Kind::Synonym).into_iter().filter(|s| s.chars().count() <= 40).collect(),
            broader: of_kind(Kind::Hypernym),
            opposites: of_kind(Kind::Antonym),
            senses: of_kind(Kind::Sense),
            blanks: of_kind(Kind::Blank),
        };
        Ok(interleave(material.styles(&templates)))
    }
}

/// What one answer's records offer the generator.
struct Material<'a> {
    synonyms: Vec<&'a str>,
    broader: Vec<&'a str>,
    opposites: Vec<&'a str>,
    senses: Vec<&'a str>,
    blanks: Vec<&'a str>,
}

impl Material<'_> {
    /// Every style's candidates, each list best first. The collection's own clues (a lone
    /// synonym, a definition, a blank) are not among them: [`generate`] would drop the copies.
    fn styles(&self, templates: &Templates) -> Vec<Vec<String>> {
        let fill = |template: &str, word: &str| template.replacen("{}", word, 1);
        // Each broader term with each template, the templates rotating so the first few
        // clues use different wordings.
        let kinds = templates.kind_of.len();
        let kind_of = (0..kinds)
            .flat_map(|k| {
                self.broader.iter().enumerate().map(move |(i, h)| fill(&templates.kind_of[(i + k) % kinds], h))
            })
            .collect();
        // Pairs of synonyms, the first-listed (most common senses) first: (0,1), (0,2), (1,2)…
        let n = self.synonyms.len();
        let pairs = (1..n)
            .flat_map(|j| (0..j).map(move |i| (i, j)))
            .map(|(i, j)| format!("{}, {}", self.synonyms[i], self.synonyms[j]))
            .collect();
        let opposites =
            templates.opposite.iter().flat_map(|t| self.opposites.iter().map(move |a| fill(t, a))).collect();
        let short_senses = self.senses.iter().filter_map(|s| shorten(s)).collect();
        let glossed = self
            .synonyms
            .iter()
            .flat_map(|s| self.broader.iter().map(move |h| (s, h)))
            // "Acorn tree (tree)" says nothing twice.
            .filter(|(s, h)| !dedupe_key(s).contains(&dedupe_key(h)))
            .map(|(s, h)| format!("{s} ({h})"))
            .collect();
        // `___ cream` → "Word before cream"; `Ice ___` → "Ice follower".
        let neighbours = self
            .blanks
            .iter()
            .filter_map(|b| match (b.strip_prefix("___ "), b.strip_suffix(" ___")) {
                (Some(rest), None) if !rest.contains("___") => Some((&templates.before, rest)),
                (None, Some(rest)) if !rest.contains("___") => Some((&templates.after, rest)),
                _ => None,
            })
            .flat_map(|(list, word)| list.iter().map(move |t| fill(t, word)))
            .collect();
        vec![kind_of, pairs, opposites, short_senses, glossed, neighbours]
    }
}

/// One candidate from each style in turn, so a short request still shows several styles and
/// a long one uses them all up.
fn interleave(styles: Vec<Vec<String>>) -> Vec<String> {
    let longest = styles.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = Vec::new();
    for i in 0..longest {
        for style in &styles {
            if let Some(c) = style.get(i) {
                out.push(c.clone());
            }
        }
    }
    out
}

/// The first clause of a definition, when it is a shorter clue on its own.
fn shorten(sense: &str) -> Option<String> {
    let cut = [", ", " that ", " which ", " who ", " especially ", " or "]
        .iter()
        .filter_map(|sep| sense.find(sep))
        .filter(|&i| i >= 12)
        .min()?;
    Some(sense[..cut].to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_clause_shortens_definitions() {
        assert_eq!(shorten("A frozen dessert, containing cream").as_deref(), Some("A frozen dessert"));
        assert_eq!(shorten("Short, x"), None);
    }
}
