//! The quality report of a fill: how many entries were scored and which are weak.

use serde::Serialize;

use super::grid::{Grid, Slot};
use crossword_index::Index;

/// A weak entry (under the quality goal).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rough {
    /// The entry.
    pub word: String,
    /// Its score.
    pub score: u8,
    /// Row of its first cell (zero-based).
    pub row: usize,
    /// Column of its first cell (zero-based).
    pub col: usize,
    /// Its clue number.
    pub number: u32,
    /// `across` or `down`.
    pub direction: &'static str,
}

/// The contract's quality report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Quality {
    /// Entries checked: complete entries known to the word list. Entries the list does not know
    /// (the caller's own theme entries) are the caller's content and are not scored.
    pub scored: usize,
    /// Entries scoring under the goal, worst first (then by clue number, across first).
    pub rough: Vec<Rough>,
}

/// Scores every complete entry of `grid` against `goal`.
pub fn report(index: &Index, grid: &Grid, slots: &[Slot], goal: u32) -> Quality {
    let mut quality = Quality::default();
    for slot in slots {
        let Some(text) = grid.slot_text(slot) else { continue };
        let Some(score) = index.score(&text) else { continue };
        quality.scored += 1;
        if (score as u32) < goal {
            quality.rough.push(Rough {
                word: text,
                score,
                row: slot.row,
                col: slot.col,
                number: slot.number,
                direction: slot.direction.as_str(),
            });
        }
    }
    quality
        .rough
        .sort_by(|a, b| a.score.cmp(&b.score).then(a.number.cmp(&b.number)).then(a.direction.cmp(b.direction)));
    quality
}

/// The sum of the list scores of the grid's complete entries the list knows.
pub(crate) fn total_score(index: &Index, grid: &Grid, slots: &[Slot]) -> u32 {
    slots.iter().filter_map(|s| grid.slot_text(s).and_then(|t| index.score(&t))).map(u32::from).sum()
}

/// True when every entry the solver placed (not given whole by the caller) already has the
/// best score any entry of its length has: no fill can do better.
pub(crate) fn is_best_possible(index: &Index, given: &Grid, grid: &Grid, slots: &[Slot]) -> bool {
    slots.iter().filter(|s| given.slot_text(s).is_none()).all(|s| {
        grid.slot_text(s)
            .and_then(|t| index.score(&t))
            .is_some_and(|score| u32::from(score) >= best_score(index, s.len))
    })
}

/// The best score any entry of length `len` has (0 when there is none).
pub(crate) fn best_score(index: &Index, len: usize) -> u32 {
    index.scores_of_length(len).first().map_or(0, |&b| u32::from(b))
}
