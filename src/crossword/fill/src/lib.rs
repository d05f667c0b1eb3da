//! The fill engine: grids, the solver, quality reports, and the clean-up behind
//! POST /fill/improve. Plain synchronous code with no HTTP and no async; the service runs it on
//! its solver pool.
//!
//! Two words are kept apart: **polish** is the solver's own phase after a complete fill
//! (`solver/polish.rs`, [`Stats::polish`]); **improve** is the clean-up of a caller's grid
//! ([`improve::improve`], POST /fill/improve).

pub mod grid;
pub mod improve;
pub mod quality;
pub mod solver;

pub use grid::{Direction, Grid, GridError, Slot, Square};
pub use quality::{Quality, Rough};
#[cfg(feature = "research")]
pub use solver::research;
pub use solver::{fill, FillOptions, FillResult, Progress, Reason, Stats, POLISH_AT_LEAST};

#[cfg(test)]
mod tests;
