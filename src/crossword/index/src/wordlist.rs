//! External scored lists in the `WORD;SCORE` format constructors use (Spread the Wordlist,
//! Peter Broda's list, XWord Info, personal lists).

use std::path::Path;

use crossword_lang::Language;

/// One accepted line of a user list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScoredWord {
    /// The entry normalized for the language.
    pub word: String,
    /// Score mapped to 0..=100.
    pub score: u8,
}

/// What reading a list produced.
#[derive(Debug, Default)]
pub struct Parsed {
    /// Accepted entries.
    pub words: Vec<ScoredWord>,
    /// Lines that could not be used (with line numbers), for the report.
    pub rejected: Vec<(usize, String)>,
}

/// Reads a `WORD;SCORE` list. Scores are mapped from `0..=scale_max` to `0..=100`; a line with
/// no score gets `default_score` (already on the 0-100 scale). Blank lines and `#` comments are
/// skipped; the file may be UTF-8 or Latin-1.
pub fn read(path: &Path, language: Language, scale_max: f32, default_score: u8) -> std::io::Result<Parsed> {
    let bytes = std::fs::read(path)?;
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => e.into_bytes().iter().map(|&b| b as char).collect(),
    };
    Ok(parse(&text, language, scale_max, default_score))
}

/// Parses the text of a `WORD;SCORE` list (see [`read`]).
pub fn parse(text: &str, language: Language, scale_max: f32, default_score: u8) -> Parsed {
    let mut out = Parsed::default();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim().trim_start_matches('\u{FEFF}');
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (word, score) = match line.rsplit_once(';') {
            Some((w, s)) => match s.trim().parse::<f32>() {
                Ok(s) if s.is_finite() && s >= 0.0 => (w, (s * 100.0 / scale_max).round().clamp(0.0, 100.0) as u8),
                _ => {
                    out.rejected.push((n + 1, format!("bad score {s:?}")));
                    continue;
                }
            },
            None => (line, default_score),
        };
        match language.normalize(word) {
            Ok(w) if !w.is_empty() => out.words.push(ScoredWord { word: w, score }),
            Ok(_) => out.rejected.push((n + 1, "empty entry".into())),
            Err(e) => out.rejected.push((n + 1, e.to_string())),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_maps_scores() {
        let en = Language::from_code("en").unwrap();
        let p = parse("# comment\nice cream;60\nabc;30\nx-ray;0\nbad;abc\nnoscore\nnaïve;45\n42;50\n", en, 60.0, 50);
        let got: Vec<(&str, u8)> = p.words.iter().map(|w| (w.word.as_str(), w.score)).collect();
        assert_eq!(got, [("ICECREAM", 100), ("ABC", 50), ("XRAY", 0), ("NOSCORE", 50), ("NAIVE", 75)]);
        assert_eq!(p.rejected.len(), 2);
    }
}
