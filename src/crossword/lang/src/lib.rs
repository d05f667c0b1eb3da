//! Puzzle languages: the contract's Language records and the rules that turn user text into
//! grid cells.
//!
//! Everything here is pure (no I/O). The rules come from `corpus/languages.toml`, which
//! `build.rs` validates and compiles into [`LANGUAGES`].
//!
//! Three operations matter to the rest of the service:
//!
//! * [`Language::normalize`] turns text a person typed ("crème brûlée", "straße", "ıspanak")
//!   into the language's cells, folded and upper-cased the way crossword grids write them;
//! * [`Language::split_cells`] splits already-normalized text into cells (one Hindi akshara
//!   may be several code points);
//! * the error of `normalize`, [`InvalidChar`], names the first character outside the
//!   language's alphabet, which the API reports as a validation failure.

mod segment;

use std::fmt;

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// What one grid cell holds in a language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellKind {
    /// One character of the language's alphabet.
    Letter,
    /// One extended grapheme cluster (UAX #29 including GB9c conjuncts), e.g. Hindi क्ष.
    Akshara,
    /// One katakana character; hiragana and small kana are folded to it.
    Kana,
    /// One CJK ideograph.
    Hanzi,
    /// One precomposed Hangul syllable.
    Hangul,
}

/// How a language upper-cases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpperRule {
    /// Unicode default case mapping (ß becomes SS).
    Unicode,
    /// Turkish and Azeri: i becomes İ and ı becomes I.
    Turkish,
}

/// The static description of one language, generated from `corpus/languages.toml`.
#[derive(Debug)]
pub struct LanguageSpec {
    /// Contract language code (`en`, `pt`, ...).
    pub code: &'static str,
    /// English name.
    pub name: &'static str,
    /// The language's own name.
    pub native_name: &'static str,
    /// Written right to left (display only; rows are stored left to right).
    pub rtl: bool,
    /// Dense grids cannot be filled; only criss-cross grids.
    pub criss_cross_only: bool,
    /// Shortest run of white cells that counts as an answer.
    pub min_slot_length: u8,
    /// Can be exported as an Across Lite `.puz` file.
    pub puz_exportable: bool,
    /// What a cell holds.
    pub cell: CellKind,
    /// For [`CellKind::Letter`]: every letter in collation order. Empty otherwise.
    pub alphabet: &'static str,
    /// Inclusive code point ranges allowed in a cell (one range per letter for `Letter`).
    pub ranges: &'static [(u32, u32)],
    /// Upper-casing rule.
    pub upper: UpperRule,
    /// Apply NFKC (compatibility) instead of NFC before anything else.
    pub compat: bool,
    /// Decompose characters outside the alphabet and drop their combining marks.
    pub strip_marks: bool,
    /// Characters removed silently.
    pub drop: &'static str,
    /// Explicit rewrites applied after upper-casing (`Ä` to `AE`).
    pub fold: &'static [(&'static str, &'static str)],
    /// Zipf values that map to scores 40 and 60 (see indexbuild's scoring).
    pub score_zipf: (f32, f32),
}

include!(concat!(env!("OUT_DIR"), "/languages.rs"));

/// A puzzle language: a cheap handle to its static rules.
#[derive(Clone, Copy)]
pub struct Language(&'static LanguageSpec);

/// The code accepted as input for Portuguese besides `pt`.
pub const PORTUGUESE_ALIAS: &str = "pt-BR";

impl Language {
    /// Every language, in the contract's order.
    pub fn all() -> impl Iterator<Item = Language> {
        LANGUAGES.iter().map(Language)
    }

    /// Looks a language up by its contract code; `pt-BR` answers Portuguese. Codes are
    /// case-sensitive except for the alias, as in the contract.
    pub fn from_code(code: &str) -> Option<Language> {
        let code = if code.eq_ignore_ascii_case(PORTUGUESE_ALIAS) { "pt" } else { code };
        LANGUAGES.iter().find(|l| l.code == code).map(Language)
    }

    /// English, the contract's default.
    pub fn english() -> Language {
        Language(&LANGUAGES[0])
    }

    /// The static rules.
    pub fn spec(&self) -> &'static LanguageSpec {
        self.0
    }

    /// The contract code (`pt` for `pt-BR`).
    pub fn code(&self) -> &'static str {
        self.0.code
    }

    /// Normalizes user text into the language's cells, concatenated.
    ///
    /// Upper-cases with the language's rules, applies its folds, drops ignorable characters
    /// and rejects the first character outside the alphabet.
    pub fn normalize(&self, text: &str) -> Result<String, InvalidChar> {
        let mut first_invalid = None;
        let out = self.fold_text(text, |bad| {
            first_invalid = Some(bad);
            false
        });
        match first_invalid {
            Some(bad) => Err(bad),
            None => Ok(out),
        }
    }

    /// Every character of `text` outside the language's alphabet (after upper-casing and
    /// folding), in order; empty when the text is valid. Grid validation turns these into the
    /// contract's row and column.
    pub fn invalid_chars(&self, text: &str) -> Vec<InvalidChar> {
        let mut all = Vec::new();
        self.fold_text(text, |bad| {
            all.push(bad);
            true
        });
        all
    }

    /// The shared normalization walk: calls `on_invalid` for each character outside the
    /// alphabet and stops when it returns false.
    fn fold_text(&self, text: &str, mut on_invalid: impl FnMut(InvalidChar) -> bool) -> String {
        let spec = self.0;
        // ASCII text is already in NFC and NFKC: no copy for the common case.
        let composed: std::borrow::Cow<'_, str> = if text.is_ascii() {
            std::borrow::Cow::Borrowed(text)
        } else if spec.compat {
            text.nfkc().collect::<String>().into()
        } else {
            text.nfc().collect::<String>().into()
        };
        let mut out = String::with_capacity(composed.len());
        for (position, ch) in composed.chars().enumerate() {
            if contains_char(spec.drop, ch) {
                continue;
            }
            let pushed = match spec.cell {
                CellKind::Letter => self.push_letter(ch, &mut out),
                CellKind::Kana => self.push_folded_or_in_range(hiragana_to_katakana(ch), &mut out),
                CellKind::Hanzi | CellKind::Hangul | CellKind::Akshara => self.push_folded_or_in_range(ch, &mut out),
            };
            if pushed.is_none() && !on_invalid(InvalidChar { ch, position, language: spec.code }) {
                break;
            }
        }
        if spec.cell == CellKind::Kana || spec.cell == CellKind::Hangul {
            // Folding may leave sequences that compose (e.g. kana plus a combining voiced mark).
            return out.nfc().collect();
        }
        out
    }

    /// Upper-cases `ch`, folds it, and appends it if it is in the alphabet.
    fn push_letter(&self, ch: char, out: &mut String) -> Option<()> {
        let spec = self.0;
        let mut upper = [None; 3];
        match spec.upper {
            UpperRule::Turkish if ch == 'i' => upper[0] = Some('İ'),
            UpperRule::Turkish if ch == 'ı' => upper[0] = Some('I'),
            _ => {
                for (slot, u) in upper.iter_mut().zip(ch.to_uppercase()) {
                    *slot = Some(u);
                }
            }
        }
        for u in upper.into_iter().flatten() {
            if self.in_alphabet(u) {
                out.push(u);
            } else if let Some(to) = self.fold_of(u) {
                out.push_str(to);
            } else if spec.strip_marks {
                // The marks go; a lone combining mark (niqqud, harakat) leaves nothing.
                for base in std::iter::once(u).nfd().filter(|c| !is_combining_mark(*c)) {
                    if self.in_alphabet(base) {
                        out.push(base);
                    } else {
                        out.push_str(self.fold_of(base)?);
                    }
                }
            } else {
                return None;
            }
        }
        Some(())
    }

    fn push_folded_or_in_range(&self, ch: char, out: &mut String) -> Option<()> {
        if let Some(to) = self.fold_of(ch) {
            out.push_str(to);
        } else if self.in_ranges(ch) {
            out.push(ch);
        } else {
            return None;
        }
        Some(())
    }

    fn fold_of(&self, ch: char) -> Option<&'static str> {
        let mut buf = [0u8; 4];
        let key = ch.encode_utf8(&mut buf);
        self.0.fold.iter().find(|(from, _)| *from == key).map(|(_, to)| *to)
    }

    fn in_alphabet(&self, ch: char) -> bool {
        contains_char(self.0.alphabet, ch)
    }

    fn in_ranges(&self, ch: char) -> bool {
        let c = ch as u32;
        self.0.ranges.iter().any(|&(a, b)| (a..=b).contains(&c))
    }

    /// Splits normalized text into cells: characters, or grapheme clusters for Hindi.
    pub fn split_cells<'t>(&self, normalized: &'t str) -> Vec<&'t str> {
        match self.0.cell {
            CellKind::Akshara => segment::aksharas(normalized),
            _ => normalized.char_indices().map(|(i, c)| &normalized[i..i + c.len_utf8()]).collect(),
        }
    }

    /// Normalizes text and splits it into cells in one step.
    pub fn to_cells(&self, text: &str) -> Result<Vec<String>, InvalidChar> {
        let normalized = self.normalize(text)?;
        Ok(self.split_cells(&normalized).into_iter().map(str::to_owned).collect())
    }

    /// The letters of a [`CellKind::Letter`] language in collation order (empty for others,
    /// whose cells are open-ended sets).
    pub fn letters(&self) -> impl Iterator<Item = char> {
        self.0.alphabet.chars()
    }
}

impl fmt::Debug for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Language({})", self.0.code)
    }
}

impl PartialEq for Language {
    fn eq(&self, other: &Self) -> bool {
        self.0.code == other.0.code
    }
}
impl Eq for Language {}

/// `text.contains(ch)`, with a byte search for ASCII characters (no multi-byte UTF-8 sequence
/// contains an ASCII byte, so the answer is the same).
fn contains_char(text: &str, ch: char) -> bool {
    if ch.is_ascii() {
        text.as_bytes().contains(&(ch as u8))
    } else {
        text.contains(ch)
    }
}

/// Maps hiragana to katakana (the two blocks are parallel); other characters pass through.
fn hiragana_to_katakana(ch: char) -> char {
    match ch {
        '\u{3041}'..='\u{3096}' | '\u{309D}'..='\u{309E}' => char::from_u32(ch as u32 + 0x60).unwrap_or(ch),
        _ => ch,
    }
}

/// A character outside the language's alphabet: the contract's validation failure.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("character {ch:?} at position {position} is not a letter of language {language}")]
pub struct InvalidChar {
    /// The offending character (after Unicode composition).
    pub ch: char,
    /// Its position in the input, counted in characters after composition.
    pub position: usize,
    /// The language code.
    pub language: &'static str,
}

#[cfg(test)]
mod tests;
