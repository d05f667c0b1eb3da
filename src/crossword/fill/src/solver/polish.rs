//! Post-fill polish: trade weak entries for better ones while time is left.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::problem::{Outcome, Problem};
use crate::grid::{Grid, Slot, Square};
use crate::quality;
use crossword_index::Index;

/// Longest search for one neighbourhood during the polish.
const POLISH_STEP: Duration = Duration::from_millis(25);
/// How far a neighbourhood reaches: 1 is an entry and its crossers, 2 adds their crossers.
const POLISH_RADIUS: usize = 2;

/// When work must stop: a time, or a cancel request.
#[derive(Clone, Copy)]
pub(crate) struct Budget<'a> {
    /// Stop at this time.
    pub until: Instant,
    /// Stop when this is set.
    pub cancel: &'a AtomicBool,
}

/// Local improvement of a complete fill, one weak entry at a time, weakest first: the entry's
/// neighbourhood (its crossers, then also theirs) is cleared, except letters the caller gave,
/// and re-solved asking the entry for a better word and every other entry for at least its
/// current score, so each accepted change raises the total. Entries already at the list's best
/// score for their length are not tried; entries the list does not know (the caller's own) are
/// never touched. Passes repeat while one improves something, until `until`; `on_step` sees the
/// current fill after each entry tried.
pub(crate) fn polish(
    index: &Index,
    original: &Grid,
    mut current: Grid,
    slots: &[Slot],
    level: u32,
    budget: Budget<'_>,
    on_step: &mut dyn FnMut(&Grid),
) -> Grid {
    let Budget { until, cancel } = budget;
    let score_of = |g: &Grid, s: &Slot| g.slot_text(s).and_then(|t| index.score(&t)).map(u32::from);
    let best_possible: Vec<u32> = slots.iter().map(|s| quality::best_score(index, s.len)).collect();
    let crossers: Vec<Vec<usize>> = slots
        .iter()
        .enumerate()
        .map(|(i, s)| {
            (0..slots.len()).filter(|&j| j != i && slots[j].cells.iter().any(|c| s.cells.contains(c))).collect()
        })
        .collect();
    let stop = || Instant::now() >= until || cancel.load(Ordering::Relaxed);
    let mut improved = true;
    while improved && !stop() {
        improved = false;
        let scores: Vec<Option<u32>> = slots.iter().map(|s| score_of(&current, s)).collect();
        let mut order: Vec<usize> = (0..slots.len())
            .filter(|&i| original.slot_text(&slots[i]).is_none() && scores[i].is_some_and(|s| s < best_possible[i]))
            .collect();
        order.sort_by_key(|&i| (scores[i], i));
        for i in order {
            // An earlier change in this pass may have moved this entry already.
            let Some(score) = score_of(&current, &slots[i]) else { continue };
            if score >= best_possible[i] {
                continue;
            }
            let mut hood = vec![i];
            for _ in 0..POLISH_RADIUS {
                if stop() {
                    break;
                }
                let ring: Vec<usize> = hood.iter().flat_map(|&j| crossers[j].iter().copied()).collect();
                hood.extend(ring);
                hood.sort_unstable();
                hood.dedup();
                let mut cleared = current.clone();
                for &j in &hood {
                    for &cell in &slots[j].cells {
                        if original.squares()[cell] == Square::Empty {
                            cleared.set(cell, Square::Empty);
                        }
                    }
                }
                let floors: Vec<u32> = slots
                    .iter()
                    .enumerate()
                    .map(|(j, s)| if j == i { score + 1 } else { score_of(&current, s).unwrap_or(level) })
                    .collect();
                let mut problem = Problem::with_floors(index, &cleared, slots, &floors, None);
                let step_until = until.min(Instant::now() + POLISH_STEP);
                if problem.solve(step_until, false, cancel, &mut |_| {}) != Outcome::Solved {
                    continue;
                }
                let mut candidate = cleared;
                problem.write(&problem.best, &mut candidate);
                let total = |g: &Grid| quality::total_score(index, g, slots);
                let complete = slots.iter().all(|s| candidate.slot_text(s).is_some());
                if complete && total(&candidate) > total(&current) {
                    current = candidate;
                    improved = true;
                    break;
                }
            }
            on_step(&current);
            if stop() {
                break;
            }
        }
    }
    current
}
