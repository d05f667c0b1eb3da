//! The cover service: the HTTP layer over `covers_engine` and the `covers` command line.
//!
//! `covers serve` (listen address, data directory, configuration, graceful shutdown) with the
//! format catalogue, decals, content lookups through the configured providers, composing (POST
//! and link form), the designer page and its edits, previews (SVG, PNG), the error reference
//! page and the kit's request middleware; `covers render` for every output. Accounts, keys, plans,
//! uploads, saved designs and export jobs (`accounts`, `keyed`, `ops`, `exports`), browser sign-in
//! (`signin`) and the signed-in designer; the MCP connector (issue 18) follows.

pub mod accounts;
pub mod api;
pub mod cli;
pub mod config;
pub mod designer;
pub mod designs;
pub mod exports;
pub mod files;
pub mod keyed;
pub mod mcp;
pub mod oauth;
pub mod oauth_store;
pub mod online;
pub mod openapi;
pub mod ops;
pub mod signin;
pub mod store;
