//! The crossword construction service as a library.
//!
//! The engines are plain synchronous Rust with no HTTP in them:
//!
//! * [`lang`]: the 24 puzzle languages and how text becomes grid cells;
//! * [`clues`]: the clue collection (memory-mapped base plus database additions), answer-leak
//!   checks, clue generators and their proof tokens;
//! * [`index`]: the memory-mapped word index (pattern search, scores) and the manager that
//!   loads and evicts languages on demand;
//! * [`mapped`]: the one module allowed to use `unsafe` (memory maps and zero-copy views).
//!
//! Around them, the service: [`config`] (plans and limits), [`store`] (durable state in redb),
//! [`keys`] (API keys), [`api`] (the HTTP adapter), [`server`] (serving and shutdown) and
//! [`admin`] (account and key administration), [`http1`] (chunked bodies for the service's own HTTP clients), and [`wordlist`] (constructors' `WORD;SCORE`
//! lists, read by `indexbuild` and `crossword fill --wordlist`).
//!
//! The `crossword` binary (`src/main.rs`) is a thin command-line adapter over these.

#![deny(unsafe_code)]
// The OpenAPI document is one large `json!` literal.
#![recursion_limit = "512"]
#![warn(missing_docs)]

pub mod admin;
pub mod api;
pub mod clues;
pub mod config;
pub mod fill;
pub mod http1;
pub mod index;
pub mod keys;
pub mod lang;
pub mod mapped;
pub mod server;
pub mod store;
pub mod wordlist;
