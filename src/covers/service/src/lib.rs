//! The cover service: the HTTP layer over `covers_engine` and the `covers` command line.
//!
//! `covers serve` (listen address, data directory, configuration, graceful shutdown) with the
//! format catalogue, decals, content lookups through the configured providers, composing (POST
//! and link form), the designer page and its edits, previews (SVG, PNG), the error reference
//! page and the kit's request middleware; `covers render` for every output. Accounts and exports
//! (issue 17) and the MCP connector (18) follow.

pub mod accounts;
pub mod api;
pub mod cli;
pub mod config;
pub mod designer;
pub mod designs;
pub mod exports;
pub mod files;
pub mod keyed;
pub mod online;
pub mod openapi;
pub mod signin;
pub mod store;
