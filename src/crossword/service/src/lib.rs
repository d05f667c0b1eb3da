//! The crossword service: a thin HTTP layer over the crossword engines, with its storage,
//! configuration, administration and command line.
//!
//! * [`api`]: the HTTP API (routes, the kit's middleware, handlers, the OpenAPI document);
//! * [`web`]: the public pages (puzzle player, embeds, author pages, showcase) and their assets;
//! * [`store`]: durable state behind the [`store::Store`] trait, in one redb file;
//! * [`config`]: plans and operational limits; [`keys`]: the `cw_live_` key format;
//! * [`indexes`]: loading languages' word indexes and clue collections on demand, within a
//!   memory budget;
//! * [`clue_model`]: generated clues from an operator's model server;
//! * [`puzzles`]: safety verdicts, showcase pre-check and review, difficulty ratings and clue
//!   additions of stored puzzles;
//! * [`admin`]: account, key and showcase administration (CLI and loopback endpoint);
//! * [`server`]: serving and shutdown; [`cli`]: the `crossword` command; [`report`]: JSON
//!   shapes shared by the API and the command line.
//!
//! The engines it adapts are their own crates, free of HTTP and async: `crossword_lang`,
//! `crossword_index`, `crossword_clues`, `crossword_fill`, `crossword_puzzle` (see `docs/ARCHITECTURE.md`).

pub mod admin;
pub mod api;
pub mod cli;
pub mod clue_model;
pub mod config;
pub mod indexes;
pub mod keys;
pub mod puzzles;
pub mod report;
pub mod server;
pub mod store;
pub mod web;
