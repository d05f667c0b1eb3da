//! Clean-up of a filled grid: replace weak entries, keep everything the caller owns.
//!
//! Kept as they are: black cells, `locked` cells, and every entry the word list does not know
//! (the caller's own content, such as theme answers). The weak entries (under the quality goal)
//! are cleared and refilled around their crossers; when that finds nothing better, their crossing
//! entries are cleared too, so many words may change at once. The result counts as improved only
//! when it is complete and has fewer weak entries (or the same number with a higher lowest score).

use std::collections::HashSet;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use super::grid::{Grid, Square};
use super::quality::{self, Quality};
use super::solver::{fill, FillOptions};
use crossword_index::Index;

/// The quality goal of a clean-up.
pub const IMPROVE_GOAL: u32 = 40;

/// What a clean-up returns.
#[derive(Debug, Clone)]
pub struct Improvement {
    /// True when a better fill was found.
    pub improved: bool,
    /// Entries changed (when improved).
    pub replaced: usize,
    /// The improved grid (when improved).
    pub grid: Option<Grid>,
    /// Quality of the returned grid (the original one when not improved).
    pub quality: Quality,
}

fn badness(q: &Quality) -> (usize, i32) {
    (q.rough.len(), -(q.rough.first().map_or(101, |r| r.score as i32)))
}

/// Tries to replace the weak entries of `grid`; `locked` are row-major cell indices.
pub fn improve(
    index: &Index,
    grid: &Grid,
    locked: &HashSet<usize>,
    max_time: Duration,
    cancel: &AtomicBool,
) -> Improvement {
    let started = Instant::now();
    let min_len = index.language().spec().min_slot_length as usize;
    let slots = grid.slots(min_len);
    let original = quality::report(index, grid, &slots, IMPROVE_GOAL);
    let no_change = |quality: Quality| Improvement { improved: false, replaced: 0, grid: None, quality };
    // Cells the caller owns: locked ones and the letters of entries the list does not know.
    let mut protected: HashSet<usize> = locked.clone();
    for slot in &slots {
        if let Some(text) = grid.slot_text(slot) {
            if index.score(&text).is_none() {
                protected.extend(slot.cells.iter().copied());
            }
        }
    }
    let weak: Vec<usize> = slots
        .iter()
        .enumerate()
        .filter(|(_, s)| grid.slot_text(s).is_none_or(|t| index.score(&t).is_some_and(|sc| (sc as u32) < IMPROVE_GOAL)))
        .map(|(i, _)| i)
        .collect();
    if weak.is_empty() {
        return no_change(original);
    }
    let crossers: Vec<usize> = slots
        .iter()
        .enumerate()
        .filter(|(i, s)| !weak.contains(i) && s.cells.iter().any(|c| weak.iter().any(|&w| slots[w].cells.contains(c))))
        .map(|(i, _)| i)
        .collect();
    let mut best: Option<(Grid, Quality)> = None;
    for (round, share) in [(0usize, 0.4), (1, 1.0)] {
        let mut cleared = grid.clone();
        let targets = if round == 0 { weak.clone() } else { weak.iter().chain(&crossers).copied().collect() };
        for &t in &targets {
            for &cell in &slots[t].cells {
                if !protected.contains(&cell) {
                    cleared.set(cell, Square::Empty);
                }
            }
        }
        let left = max_time.saturating_sub(started.elapsed());
        let budget = if round == 0 { left.mul_f64(share) } else { left };
        if budget.is_zero() {
            break;
        }
        let options = FillOptions { min_score: IMPROVE_GOAL, max_time: budget, ..FillOptions::default() };
        let result = fill(index, &cleared, &options, cancel, &mut |_| {});
        if result.slots_filled == result.slots_total && badness(&result.quality) < badness(&original) {
            let better = best.as_ref().is_none_or(|(_, q)| badness(&result.quality) < badness(q));
            if better {
                best = Some((result.grid, result.quality));
            }
            if best.as_ref().is_some_and(|(_, q)| q.rough.is_empty()) {
                break;
            }
        }
    }
    match best {
        Some((new_grid, quality)) => {
            let replaced = slots.iter().filter(|s| grid.slot_text(s) != new_grid.slot_text(s)).count();
            Improvement { improved: true, replaced, grid: Some(new_grid), quality }
        }
        None => no_change(original),
    }
}
