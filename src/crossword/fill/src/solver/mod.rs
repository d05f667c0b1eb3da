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
//! * **Then polish**: in the polish phase a complete fill is polished (`polish.rs`) and, when
//!   the polish is stuck, fills from other seeds are polished too; the best total wins. (The
//!   word "improve" is kept for POST /fill/improve's clean-up of a caller's grid,
//!   `crate::improve`.)

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

mod bits;
mod polish;
mod problem;

pub(super) use polish::{polish, Budget};
use problem::{count, Outcome, Problem};

use super::grid::{Grid, Slot, Square};
use super::quality::{self, Quality};
use crossword_index::Index;

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
    /// The shortest polish phase after a complete fill (it may take up to 4x the search's own
    /// time beyond this, at most 5 s, within `max_time`). Longer buys a few tenths of a point of
    /// mean entry score on grids found in milliseconds.
    pub polish_at_least: Duration,
}

impl Default for FillOptions {
    fn default() -> FillOptions {
        FillOptions {
            min_score: 40,
            max_time: Duration::from_secs(25),
            seed: None,
            try_hard: false,
            strict: false,
            polish_at_least: POLISH_AT_LEAST,
        }
    }
}

/// Why nothing was filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// The solver stopped before its time was up: the grid was proved impossible, or the search
    /// looked hopeless (contract name `too_difficult`).
    StoppedEarly,
    /// The time budget ran out (contract name `no_solution`).
    OutOfTime,
    /// A cancel request (or a client that went away) stopped it (`cancelled`).
    Cancelled,
}

impl Reason {
    /// The contract's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::StoppedEarly => "too_difficult",
            Reason::OutOfTime => "no_solution",
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
    /// Part of the wall time spent in the polish phase (polish passes and other starts).
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
    /// Present when no cell was filled, and always [`Reason::Cancelled`] when a cancel stopped the
    /// fill short of complete (a cancel during the polish of a complete fill leaves it complete).
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

/// Default shortest polish phase (polish passes and other starts). It was 300 ms until the
/// benchmark showed what that bought: on the shared grids 0.2-0.4 points of mean entry score
/// (already 0.7-1.5 above ingrid_core's without it), for 3-10x the whole run time.
pub const POLISH_AT_LEAST: Duration = Duration::from_millis(25);
/// Longest polish phase.
const POLISH_AT_MOST: Duration = Duration::from_secs(5);
/// The polish phase may take this many times what finding the fill took (within the bounds
/// above): on the benchmark's hardest 23x23, 4x lifted the mean entry score from 53.2 to 53.9.
const POLISH_FACTOR: u32 = 4;

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
    let min_len = index.language().spec().min_slot_length as usize;
    let slots = grid.slots(min_len);
    let run = Run { index, grid, slots: &slots, options, cancel, started, deadline: started + options.max_time };
    let mut stats = Stats { min_score_used: options.min_score, ..Stats::default() };
    let (mut filled, stopped) = run.search(&mut stats, on_progress);
    if slots.iter().all(|s| filled.slot_text(s).is_some()) && !cancel.load(Ordering::Relaxed) {
        filled = run.polish_phase(filled, &mut stats, on_progress);
    }
    let slots_filled = slots.iter().filter(|s| filled.slot_text(s).is_some()).count();
    let solver_wrote = filled.squares().iter().zip(grid.squares()).any(|(a, b)| a != b);
    let complete = slots_filled == slots.len();
    let cancelled = stopped == Some(Reason::Cancelled) || cancel.load(Ordering::Relaxed);
    let reason = if complete {
        None
    } else if cancelled {
        // A client that cancelled must not mistake a partial grid for a finished one.
        Some(Reason::Cancelled)
    } else if solver_wrote {
        None
    } else {
        Some(stopped.unwrap_or(Reason::OutOfTime))
    };
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

/// One fill's inputs and clock.
struct Run<'a> {
    index: &'a Index,
    grid: &'a Grid,
    slots: &'a [Slot],
    options: &'a FillOptions,
    cancel: &'a AtomicBool,
    started: Instant,
    deadline: Instant,
}

impl Run<'_> {
    /// Quality first: a share of the time at the goal, the rest with every entry (unless
    /// `strict`). Returns the grid with the best assignment found written in, and why the
    /// search stopped short of a complete fill, if it did.
    fn search(&self, stats: &mut Stats, on_progress: &mut dyn FnMut(&Progress)) -> (Grid, Option<Reason>) {
        let options = self.options;
        let mut levels = vec![options.min_score];
        if options.min_score > 0 && !options.strict {
            levels.push(0);
        }
        let mut best: Option<Problem> = None;
        let mut stopped: Option<Reason> = None;
        for (i, &level) in levels.iter().enumerate() {
            let last = i + 1 == levels.len();
            let level_deadline = if last { self.deadline } else { self.started + options.max_time.mul_f64(0.6) };
            let mut problem = Problem::new(self.index, self.grid, self.slots, level, options.seed);
            let outcome = problem.solve(level_deadline, options.try_hard, self.cancel, on_progress);
            stats.nodes += problem.nodes;
            stats.restarts += problem.restarts;
            stats.min_score_used = level;
            let further = best.as_ref().is_none_or(|b| count(&problem.best) > count(&b.best));
            stopped = match outcome {
                Outcome::Solved => None,
                Outcome::Impossible => {
                    stats.proved_impossible = last;
                    Some(Reason::StoppedEarly)
                }
                Outcome::GaveUp => Some(Reason::StoppedEarly),
                Outcome::Cancelled => Some(Reason::Cancelled),
                Outcome::TimedOut => Some(Reason::OutOfTime),
            };
            if outcome == Outcome::Solved || further {
                best = Some(problem);
            }
            if matches!(outcome, Outcome::Solved | Outcome::Cancelled) || Instant::now() >= self.deadline {
                break;
            }
        }
        let mut filled = self.grid.clone();
        if let Some(problem) = &best {
            problem.write(&problem.best, &mut filled);
        }
        (filled, stopped)
    }

    /// Time left over buys a better fill: a few times the search's own time, within bounds.
    /// The fill is polished; when the polish is stuck, other fills (other seeds, derived from
    /// the caller's) are found and polished, and the best total is kept.
    fn polish_phase(&self, mut filled: Grid, stats: &mut Stats, on_progress: &mut dyn FnMut(&Progress)) -> Grid {
        let (index, grid, slots, cancel) = (self.index, self.grid, self.slots, self.cancel);
        let polish_started = Instant::now();
        let least = self.options.polish_at_least.min(POLISH_AT_MOST);
        let polish_for = (self.started.elapsed() * POLISH_FACTOR).clamp(least, POLISH_AT_MOST);
        let until = self.deadline.min(polish_started + polish_for);
        let level = stats.min_score_used;
        // The event stream keeps ticking with the best fill so far.
        let mut last_tick = Instant::now();
        let mut tick = |g: &Grid| {
            if last_tick.elapsed() >= PROGRESS_EVERY {
                last_tick = Instant::now();
                on_progress(&grid_progress(g, slots));
            }
        };
        let budget = Budget { until, cancel };
        filled = polish(index, grid, filled, slots, level, budget, &mut tick);
        let mut attempt: u64 = 0;
        while Instant::now() < until
            && !cancel.load(Ordering::Relaxed)
            && !quality::is_best_possible(index, grid, &filled, slots)
        {
            attempt += 1;
            let seed = self.options.seed.unwrap_or(0) ^ attempt.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let mut problem = Problem::new(index, grid, slots, level, Some(seed));
            let outcome = problem.solve(until, false, cancel, &mut |_| tick(&filled));
            stats.nodes += problem.nodes;
            stats.restarts += problem.restarts;
            if outcome != Outcome::Solved {
                break;
            }
            let mut other = grid.clone();
            problem.write(&problem.best, &mut other);
            let other = polish(index, grid, other, slots, level, budget, &mut tick);
            if quality::total_score(index, &other, slots) > quality::total_score(index, &filled, slots) {
                filled = other;
            }
        }
        stats.polish = polish_started.elapsed();
        filled
    }
}

/// Entry points for the research harnesses under `bench/research/` (feature `research`; not
/// part of the service).
#[cfg(feature = "research")]
pub mod research {
    use std::sync::atomic::AtomicBool;
    use std::time::Instant;

    use super::problem::Problem;
    use crate::grid::{Grid, Slot};
    use crossword_index::Index;

    /// What a complete search on a subset of slots did.
    #[derive(Debug, Clone)]
    pub struct SearchReport {
        /// `Solved`, `Impossible`, `TimedOut`, `GaveUp` or `Cancelled`.
        pub outcome: String,
        /// Search nodes.
        pub nodes: u64,
        /// Restarts.
        pub restarts: u32,
    }

    /// Runs the complete search (`try_hard`: restarts keep the failure weights, no give-up) on
    /// `slots` only, a subset of the grid's slots, until `deadline`.
    pub fn search_slots(index: &Index, grid: &Grid, slots: &[Slot], min_score: u32, deadline: Instant) -> SearchReport {
        let mut problem = Problem::new(index, grid, slots, min_score, None);
        let outcome = problem.solve(deadline, true, &AtomicBool::new(false), &mut |_| {});
        SearchReport { outcome: format!("{outcome:?}"), nodes: problem.nodes, restarts: problem.restarts }
    }
}
