//! The cover service: the HTTP layer over `covers_engine` and the `covers` command line.
//!
//! So far: `covers serve` (listen address, data directory, graceful shutdown) with the format
//! catalogue, decals, content lookups, composing (POST and link form), the designer's preview
//! page, the error reference page and the kit's request middleware. Rendering to PNG and PDF and
//! the designer's editing follow (issue 16), then accounts and exports (17) and the MCP
//! connector (18).

pub mod api;
pub mod cli;
pub mod config;
pub mod designs;
pub mod online;
pub mod store;
