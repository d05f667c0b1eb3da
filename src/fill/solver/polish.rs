//! Post-fill polish: trade weak entries for better ones while time is left.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::problem::{Outcome, Problem};
use crate::fill::grid::{Grid, Slot, Square};
use crate::index::Index;

/// Shortest time given to the polish after a fill.
pub(super) const POLISH_AT_LEAST: Duration = Duration::from_millis(200);
/// Longest search for one neighbourhood during the polish.
const POLISH_STEP: Duration = Duration::from_millis(100);

/// Local improvement of a complete fill. From the weakest entry up, the entry and its crossers
/// are cleared (letters the caller gave stay) and re-solved best-first, first asking every new
/// word to beat the weakest old one (by 5, then by 1), then for any fill at the old level; the
/// new words are kept when their total score is higher. Entries the list does not know (the
/// caller's own) are never touched. Passes repeat while one improves something, until `until`.
pub(crate) fn polish(
    index: &Index,
    original: &Grid,
    mut current: Grid,
    slots: &[Slot],
    level: u32,
    until: Instant,
    cancel: &AtomicBool,
) -> Grid {
    let score_of = |g: &Grid, s: &Slot| g.slot_text(s).and_then(|t| index.score(&t)).map(u32::from);
    let crossers: Vec<Vec<usize>> = slots
        .iter()
        .enumerate()
        .map(|(i, s)| {
            (0..slots.len()).filter(|&j| j != i && slots[j].cells.iter().any(|c| s.cells.contains(c))).collect()
        })
        .collect();
    let mut improved = true;
    while improved && Instant::now() < until && !cancel.load(Ordering::Relaxed) {
        improved = false;
        let mut order: Vec<usize> = (0..slots.len())
            .filter(|&i| original.slot_text(&slots[i]).is_none() && score_of(&current, &slots[i]).is_some())
            .collect();
        order.sort_by_key(|&i| (score_of(&current, &slots[i]), i));
        for i in order {
            if Instant::now() >= until || cancel.load(Ordering::Relaxed) {
                break;
            }
            let hood: Vec<usize> = std::iter::once(i).chain(crossers[i].iter().copied()).collect();
            let before: Vec<Option<u32>> = hood.iter().map(|&j| score_of(&current, &slots[j])).collect();
            if before.iter().any(Option::is_none) {
                continue;
            }
            let mut cleared = current.clone();
            for &j in &hood {
                for &cell in &slots[j].cells {
                    if original.squares()[cell] == Square::Empty {
                        cleared.set(cell, Square::Empty);
                    }
                }
            }
            let weakest = before.iter().flatten().copied().min().unwrap_or(0);
            // Ask first for a neighbourhood whose weakest word is better, then for any better total.
            for floor in [weakest + 5, weakest + 1, weakest.min(level)] {
                if Instant::now() >= until {
                    break;
                }
                let mut problem = Problem::new(index, &cleared, slots, floor, 0);
                let step_until = until.min(Instant::now() + POLISH_STEP);
                if problem.solve(step_until, false, cancel, &mut |_| {}) != Outcome::Solved {
                    continue;
                }
                let mut candidate = cleared.clone();
                problem.write(&problem.best, &mut candidate);
                let after: Vec<Option<u32>> = hood.iter().map(|&j| score_of(&candidate, &slots[j])).collect();
                let total = |v: &[Option<u32>]| v.iter().flatten().sum::<u32>();
                if after.iter().all(Option::is_some) && total(&after) > total(&before) {
                    current = candidate;
                    improved = true;
                    break;
                }
            }
        }
    }
    current
}
