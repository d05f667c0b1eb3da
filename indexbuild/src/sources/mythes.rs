//! MyThes thesauri (Debian `mythes-*`, the LibreOffice thesaurus format).
//!
//! The `.dat` file starts with its encoding on the first line, then for each headword a line
//! `word|meanings` followed by that many lines `(pos)|term|term|...`. Terms may carry notes in
//! parentheses: `(generic term)`, `(antonym)`, `(ugs.)`.

use std::path::Path;

use anyhow::{Context, Result};

/// One term of a meaning, notes split off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    /// The term without its notes.
    pub text: String,
    /// The notes, lower case, without parentheses.
    pub notes: Vec<String>,
}

/// A headword and its meanings (each a list of terms), in file order.
pub type Entry = (String, Vec<Vec<Term>>);

/// Reads a thesaurus `.dat` file.
pub fn read(path: &Path) -> Result<Vec<Entry>> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let first_line = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    let encoding = String::from_utf8_lossy(first_line).trim().trim_start_matches('\u{FEFF}').to_owned();
    let text = super::decode(&bytes, &encoding)?;
    Ok(parse(&text))
}

fn parse(text: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut lines = text.lines().skip(1);
    while let Some(line) = lines.next() {
        let Some((word, count)) = line.rsplit_once('|') else { continue };
        let Ok(count) = count.trim().parse::<usize>() else { continue };
        let mut meanings = Vec::with_capacity(count);
        for line in lines.by_ref().take(count) {
            // The first field is the meaning's part of speech or a note for the whole line
            // (`(антоним)`); it applies to every term of the line.
            let mut fields = line.split('|');
            let line_notes = term(fields.next().unwrap_or_default()).notes;
            let terms: Vec<Term> = fields
                .map(term)
                .filter(|t| !t.text.is_empty())
                .map(|mut t| {
                    t.notes.extend(line_notes.iter().cloned());
                    t
                })
                .collect();
            meanings.push(terms);
        }
        out.push((word.trim().to_owned(), meanings));
    }
    out
}

fn term(raw: &str) -> Term {
    let mut text = String::new();
    let mut notes = Vec::new();
    let mut rest = raw;
    while let Some(open) = rest.find('(') {
        text.push_str(&rest[..open]);
        match rest[open..].find(')') {
            Some(close) => {
                notes.push(rest[open + 1..open + close].trim().to_lowercase());
                rest = &rest[open + close + 1..];
            }
            None => {
                rest = "";
            }
        }
    }
    text.push_str(rest);
    Term { text: text.split_whitespace().collect::<Vec<_>>().join(" "), notes }
}

#[cfg(test)]
mod tests {
    #[test]
    fn parses_entries_and_notes() {
        let text = "UTF-8\ncat|2\n(noun)|true cat|feline (generic term)\n(verb)|vomit|puke (antonym) (ugs.)\ndog|1\n(noun)|domestic dog\n";
        let entries = super::parse(text);
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].0, "cat");
        assert_eq!(entries[0].1[0][1].text, "feline");
        assert_eq!(entries[0].1[0][1].notes, ["generic term", "noun"]);
        assert_eq!(entries[0].1[1][1].notes, ["antonym", "ugs.", "verb"]);
        assert_eq!(entries[1].1[0][0].text, "domestic dog");
        assert_eq!(entries[1].1[0][0].notes, ["noun"], "the line's note applies to its terms");
        let ru = super::parse("UTF-8\nгорячий|1\n(антоним)|холодный\n");
        assert_eq!(ru[0].1[0][0].notes, ["антоним"]);
    }
}
