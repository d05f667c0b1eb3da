//! The cover service: the HTTP layer over `covers_engine` and the `covers` command line.
//!
//! So far: `covers serve` (listen address, data directory, graceful shutdown) with the format
//! catalogue (`GET /api/v1/formats`, `GET /api/v1/formats/{slug}`), the error reference page
//! and the kit's request middleware. Compose, content, decals, rendering and the designer follow
//! (issue 16), then accounts and exports (17) and the MCP connector (18).

pub mod api;
pub mod cli;
