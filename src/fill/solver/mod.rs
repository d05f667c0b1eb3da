//! The grid solver: a constraint search over the word index.
//!
//! * **Variables** are the slots still to fill; a slot's **domain** is a bitset over the ranks of
//!   its length group (best score first), cut at the quality goal and narrowed by the fixed cells
//!   through the index's posting sets.
//! * **Propagation** keeps every crossing arc-consistent: the cells one slot can still put in a
//!   shared square bound the other slot's domain (AC-3). Each slot keeps, per position, a mask of
//!   the cells it may still hold, so a crossing costs work only when a cell really disappears.
//!   Large domains are filtered with word-parallel posting operations, small ones by scanning
//!   their entries' cells (one pass for every position).
//! * **Search** picks the slot with the fewest candidates per unit of failure weight (dom/wdeg;
//!   ties: the longest) and tries its candidates by score band, then least constraining first:
//!   the words whose letters leave the open crossing slots the most candidates. No entry is used
//!   twice. It restarts with a slowly growing node budget and a little noise on near-equal
//!   candidates, keeping the failure weights, which escapes early bad choices; an exhausted
//!   search without a budget cut is a proof that the grid cannot be filled.
//! * **Quality first, then fill**: the search runs at the quality goal (`min_score`) first and,
//!   when that fails or is proved impossible, goes lower; the quality report shows what it took.
//! * **Then improve**: a complete fill is polished (`polish.rs`) and, when the polish is
//!   stuck, fills from other seeds are polished too; the best total wins.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

mod bits;
mod polish;
mod problem;
#[cfg(test)]
mod relaxation_probe;

pub(super) use polish::{polish, Budget};
use problem::{count, Outcome, Problem};

use super::grid::{Grid, Slot, Square};
use super::quality::{self, Quality};
use crate::index::Index;

/// How to fill.
#[derive(Debug, Clone)]
pub struct FillOptions {
    /// The quality goal: prefer entries scoring at least this.
    pub min_score: u32,
    /// Time budget.
    pub max_time: Duration,
    /// Variety on demand: the same seed gives the same fill; `None` is deterministic too.
    pub seed: Option<u64>,
    /// Keep searching until `max_time` even when the search looks hopeless.
    pub try_hard: bool,
    /// Never go below `min_score` (benchmarks and "only clean fills" callers).
    pub strict: bool,
}

impl Default for FillOptions {
    fn default() -> FillOptions {
        FillOptions { min_score: 40, max_time: Duration::from_secs(25), seed: None, try_hard: false, strict: false }
    }
}

/// Why nothing was filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// The solver stopped early: the grid was proved impossible or looked hopeless.
    TooDifficult,
    /// Time ran out.
    NoSolution,
    /// A cancel request stopped it.
    Cancelled,
}

impl Reason {
    /// The contract's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::TooDifficult => "too_difficult",
            Reason::NoSolution => "no_solution",
            Reason::Cancelled => "cancelled",
        }
    }
}

/// A snapshot of the search for live progress.
#[derive(Debug, Clone)]
pub struct Progress {
    /// Slots filled now (including pre-filled ones).
    pub filled: usize,
    /// Slots in the grid.
    pub total: usize,
    /// The cells the solver has written now: (row-major index, letter).
    pub cells: Vec<(usize, String)>,
}

/// Search figures.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Search nodes (assignments tried).
    pub nodes: u64,
    /// Restarts.
    pub restarts: u32,
    /// The quality level of the returned fill.
    pub min_score_used: u32,
    /// The search proved that no complete fill exists at any level.
    pub proved_impossible: bool,
    /// Wall time.
    pub elapsed: Duration,
    /// Part of the wall time spent improving a complete fill (polish and other starts).
    pub polish: Duration,
}

/// What a fill returns.
#[derive(Debug, Clone)]
pub struct FillResult {
    /// The grid as filled (the best partial fill when no complete one was found).
    pub grid: Grid,
    /// Slots whose every cell holds a letter.
    pub slots_filled: usize,
    /// Slots in the grid.
    pub slots_total: usize,
    /// Scores and weak entries.
    pub quality: Quality,
    /// Present when no cell was filled.
    pub reason: Option<Reason>,
    /// Search figures.
    pub stats: Stats,
}

/// A progress snapshot of a whole grid: its complete slots and every letter.
fn grid_progress(g: &Grid, slots: &[Slot]) -> Progress {
    let cells = g
        .squares()
        .iter()
        .enumerate()
        .filter_map(|(i, sq)| match sq {
            Square::Letter(l) => Some((i, l.clone())),
            _ => None,
        })
        .collect();
    Progress { filled: slots.iter().filter(|s| g.slot_text(s).is_some()).count(), total: slots.len(), cells }
}

/// Shortest time given to improving a complete fill (polish and other starts).
const IMPROVE_AT_LEAST: Duration = Duration::from_millis(300);
/// Longest time given to improving a complete fill.
const IMPROVE_AT_MOST: Duration = Duration::from_secs(5);
/// Improving may take this many times what finding the fill took (within the bounds above):
/// on the benchmark's hardest 23x23, 4x lifted the mean entry score from 53.2 to 53.9.
const IMPROVE_FACTOR: u32 = 4;

/// How often progress is reported.
pub(super) const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// Fills `grid` with entries of `index`. Checks `cancel` often (a cancel stops within a few
/// milliseconds) and calls `on_progress` about ten times a second.
pub fn fill(
    index: &Index,
    grid: &Grid,
    options: &FillOptions,
    cancel: &AtomicBool,
    on_progress: &mut dyn FnMut(&Progress),
) -> FillResult {
    let started = Instant::now();
    let deadline = started + options.max_time;
    let min_len = index.language().spec().min_slot_length as usize;
    let slots = grid.slots(min_len);
    let mut stats = Stats { min_score_used: options.min_score, ..Stats::default() };

    // Quality first: a share of the time at the goal, the rest with every entry.
    let mut levels = vec![options.min_score];
    if options.min_score > 0 && !options.strict {
        levels.push(0);
    }
    let mut best: Option<Vec<Option<u32>>> = None;
    let mut best_problem: Option<Problem> = None;
    let mut stopped: Option<Reason> = None;
    for (i, &level) in levels.iter().enumerate() {
        let last = i + 1 == levels.len();
        let level_deadline = if last { deadline } else { started + options.max_time.mul_f64(0.6) };
        let mut problem = Problem::new(index, grid, &slots, level, options.seed);
        let outcome = problem.solve(level_deadline, options.try_hard, cancel, on_progress);
        stats.nodes += problem.nodes;
        stats.restarts += problem.restarts;
        stats.min_score_used = level;
        let improved = best.as_ref().is_none_or(|b| count(&problem.best) > count(b));
        match outcome {
            Outcome::Solved => {
                best = Some(problem.best.clone());
                best_problem = Some(problem);
                stopped = None;
                break;
            }
            Outcome::Impossible => {
                stats.proved_impossible = last;
                stopped = Some(Reason::TooDifficult);
            }
            Outcome::Cancelled => stopped = Some(Reason::Cancelled),
            Outcome::TimedOut => stopped = Some(Reason::NoSolution),
            Outcome::GaveUp => stopped = Some(Reason::TooDifficult),
        }
        if improved {
            best = Some(problem.best.clone());
            best_problem = Some(problem);
        }
        if matches!(outcome, Outcome::Cancelled) || Instant::now() >= deadline {
            break;
        }
    }

    let mut filled = grid.clone();
    if let (Some(assignment), Some(problem)) = (&best, &best_problem) {
        problem.write(assignment, &mut filled);
    }
    if slots.iter().all(|s| filled.slot_text(s).is_some()) && !cancel.load(Ordering::Relaxed) {
        // Time left over buys a better fill: a few times the search's own time, within bounds.
        // The fill is polished; when the polish is stuck, other fills (other
        // seeds, derived from the caller's) are found and polished, and the best total is kept.
        let polish_started = Instant::now();
        let improve_for = (started.elapsed() * IMPROVE_FACTOR).clamp(IMPROVE_AT_LEAST, IMPROVE_AT_MOST);
        let until = deadline.min(polish_started + improve_for);
        let level = stats.min_score_used;
        // The event stream keeps ticking with the best fill so far.
        let mut last_tick = Instant::now();
        let mut tick = |g: &Grid| {
            if last_tick.elapsed() >= PROGRESS_EVERY {
                last_tick = Instant::now();
                on_progress(&grid_progress(g, &slots));
            }
        };
        let budget = Budget { until, cancel };
        filled = polish(index, grid, filled, &slots, level, budget, &mut tick);
        let mut attempt: u64 = 0;
        while Instant::now() < until
            && !cancel.load(Ordering::Relaxed)
            && !quality::is_best_possible(index, grid, &filled, &slots)
        {
            attempt += 1;
            let seed = options.seed.unwrap_or(0) ^ attempt.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let mut problem = Problem::new(index, grid, &slots, level, Some(seed));
            let outcome = problem.solve(until, false, cancel, &mut |_| tick(&filled));
            stats.nodes += problem.nodes;
            stats.restarts += problem.restarts;
            if outcome != Outcome::Solved {
                break;
            }
            let mut other = grid.clone();
            problem.write(&problem.best, &mut other);
            let other = polish(index, grid, other, &slots, level, budget, &mut tick);
            if quality::total_score(index, &other, &slots) > quality::total_score(index, &filled, &slots) {
                filled = other;
            }
        }
        stats.polish = polish_started.elapsed();
    }
    let slots_filled = slots.iter().filter(|s| filled.slot_text(s).is_some()).count();
    let solver_wrote = filled.squares().iter().zip(grid.squares()).any(|(a, b)| a != b);
    let complete = slots_filled == slots.len();
    let reason = if complete || solver_wrote { None } else { Some(stopped.unwrap_or(Reason::NoSolution)) };
    stats.elapsed = started.elapsed();
    FillResult {
        quality: quality::report(index, &filled, &slots, options.min_score),
        grid: filled,
        slots_filled,
        slots_total: slots.len(),
        reason,
        stats,
    }
}
