//! The fill engine: grids, the solver, and quality reports. Plain synchronous code; the HTTP
//! layer runs it on a solver pool.

pub mod grid;
pub mod improve;
pub mod quality;
pub mod solver;

pub use grid::{Direction, Grid, GridError, Slot, Square};
pub use quality::{Quality, Rough};
pub use solver::{fill, FillOptions, FillResult, Progress, Reason, Stats};

#[cfg(test)]
mod tests;
