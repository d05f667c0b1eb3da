//! Clue generators behind one small trait.
//!
//! * [`BuiltinGenerator`] works offline everywhere: it composes clues from the language data
//!   in the base collection (broader terms: "Kind of tree"; pairs of synonyms; opposites;
//!   phrases with a blank: "___ cream"), with phrase templates in the puzzle's language that
//!   `indexbuild` stores in the collection file.
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
        let of_kind = |kind: Kind| records.iter().filter(move |r| r.kind == kind).map(|r| r.text);
        let synonyms: Vec<&str> = of_kind(Kind::Synonym).filter(|s| s.chars().count() <= 40).collect();
        let senses: Vec<&str> = of_kind(Kind::Sense).collect();
        // Each style is a queue; the output takes one from each in turn, so a short request
        // still shows several styles.
        let mut styles: Vec<Vec<String>> = Vec::new();
        styles.push(
            of_kind(Kind::Hypernym)
                .enumerate()
                .filter_map(|(i, h)| {
                    let template = templates.kind_of.get(i % templates.kind_of.len().max(1))?;
                    Some(template.replacen("{}", h, 1))
                })
                .collect(),
        );
        styles.push(synonyms.windows(2).map(|w| format!("{}, {}", w[0], w[1])).collect());
        styles.push(
            of_kind(Kind::Antonym).filter_map(|a| Some(templates.opposite.first()?.replacen("{}", a, 1))).collect(),
        );
        styles.push(senses.iter().filter_map(|s| shorten(s)).collect());
        styles.push(synonyms.iter().zip(of_kind(Kind::Hypernym)).map(|(s, h)| format!("{s} ({})", h)).collect());
        let mut out = Vec::new();
        let longest = styles.iter().map(Vec::len).max().unwrap_or(0);
        for i in 0..longest {
            for style in &styles {
                if let Some(c) = style.get(i) {
                    out.push(c.clone());
                }
            }
        }
        Ok(out)
    }
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
