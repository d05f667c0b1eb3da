//! The HTTP API: a thin adapter over the engines (`crossword_index`, `crossword_fill`,
//! `crossword_clues`) and the store.
//!
//! A request walks down once: [`router`] (routes and the kit's one middleware, which assigns
//! the request id and installs the request context) → an endpoint module (`words`, `fill`,
//! `clues`, `meta`, `metrics`, `admin`) → the shared steps below it: [`auth`] (authenticate,
//! count the read window), [`extract`] (bodies, fields and their bounds, language data),
//! [`quota`] (monthly quotas, grid ceilings), [`solver_pool`] (fill admission) → the engines.
//! [`state`] and [`error`] are the shared vocabulary; nothing below the router imports it.
//! Each endpoint module also documents its own operations ([`openapi`] assembles them).

pub mod admin;
pub mod auth;
pub mod clues;
pub mod error;
pub mod export;
pub mod extract;
pub mod fill;
pub mod meta;
pub mod metrics;
pub mod openapi;
pub mod puzzles;
pub mod puzzles_doc;
pub mod quota;
pub mod router;
pub mod solver_pool;
pub mod state;
pub mod words;

pub use router::router;
pub use state::{AppState, Caller};
