//! Puzzles as constructors keep them, free of HTTP and storage.
//!
//! * [`model`]: the stored [`Puzzle`] record, its clue sets, and what a grid asks of its clues
//!   ([`entries`], [`missing_clues`]).
//! * [`safety`]: adult themes and blocked words, from the per-language lists in `corpus/`.
//! * [`difficulty`]: the rating made after publishing (`docs/difficulty.md` has the formula).
//! * File formats, each a writer and (for the exchange formats) a reader: [`puz`] (Across
//!   Lite 1.3), [`ipuz`] (ipuz 2), [`svg`] (the numbered grid), [`html`] (a printable page) and
//!   [`pdf`] (a printable page with subset fonts for every script, from [`fonts`]).
//! * [`labels`]: the words a printed puzzle needs in each language ("Across", "Down").

pub mod difficulty;
pub mod fonts;
pub mod html;
pub mod ipuz;
pub mod labels;
pub mod model;
pub mod pdf;
pub mod puz;
pub mod safety;
pub mod svg;

pub use model::{
    author_slug, entries, missing_clues, ClueSet, Clues, Difficulty, Entry, Puzzle, Sheet, ShowcaseStatus, Status,
};

/// Why a puzzle cannot be written in a format (or a file cannot be read): the request field to
/// blame and a sentence saying why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct FormatError {
    /// The field at fault (`grid`, `title`, `clues.across.7`, `language`, `body`, ...).
    pub field: String,
    /// What is wrong, for people.
    pub message: String,
    /// Clues a complete puzzle still lacks (`7-across`), when that is the reason.
    pub missing_clues: Vec<String>,
}

impl FormatError {
    /// An error blaming `field`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> FormatError {
        FormatError { field: field.into(), message: message.into(), missing_clues: Vec::new() }
    }
}
