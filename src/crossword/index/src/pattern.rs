//! Search patterns such as `C_T`, `л?на` or `_क्ष_`: fixed cells and unknown cells.

use crossword_lang::{InvalidChar, Language};

use super::format::MAX_LEN;

/// Characters that stand for an unknown cell.
pub const WILDCARDS: [char; 2] = ['_', '?'];

/// A normalized pattern: one slot per cell, `None` for an unknown cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    cells: Vec<Option<String>>,
}

/// Why a pattern was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    /// A character outside the language's alphabet.
    #[error(transparent)]
    InvalidChar(#[from] InvalidChar),
    /// Fewer than 1 or more than 23 cells after normalization.
    #[error("pattern has {0} cells; it must have 1 to 23")]
    Length(usize),
}

impl Pattern {
    /// Parses user text: `_` and `?` are unknown cells; the rest is normalized like any answer.
    pub fn parse(language: Language, text: &str) -> Result<Pattern, PatternError> {
        let mut cells = Vec::new();
        let mut offset = 0; // characters consumed, to report positions in the whole pattern
        for (i, run) in text.split(WILDCARDS).enumerate() {
            if i > 0 {
                cells.push(None);
                offset += 1;
            }
            let normalized = language.normalize(run).map_err(|mut e| {
                e.position += offset;
                e
            })?;
            cells.extend(language.split_cells(&normalized).into_iter().map(|c| Some(c.to_owned())));
            offset += run.chars().count();
            if cells.len() > MAX_LEN {
                return Err(PatternError::Length(cells.len()));
            }
        }
        if cells.is_empty() {
            return Err(PatternError::Length(0));
        }
        Ok(Pattern { cells })
    }

    /// A pattern from cells already normalized (`None` = unknown).
    pub fn from_cells(cells: Vec<Option<String>>) -> Pattern {
        Pattern { cells }
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// True for the empty pattern (never produced by [`Pattern::parse`]).
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The cells, `None` for unknown.
    pub fn cells(&self) -> &[Option<String>] {
        &self.cells
    }

    /// The fixed cells with their positions.
    pub fn fixed(&self) -> impl Iterator<Item = (usize, &str)> {
        self.cells.iter().enumerate().filter_map(|(i, c)| c.as_deref().map(|c| (i, c)))
    }

    /// True when `cells` (an entry split into cells) fits the pattern.
    pub fn matches(&self, cells: &[&str]) -> bool {
        cells.len() == self.cells.len()
            && self.cells.iter().zip(cells).all(|(p, c)| p.as_deref().is_none_or(|p| p == *c))
    }
}
