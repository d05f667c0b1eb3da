//! The service kit: what every service of the workspace needs, and nothing about any one of
//! them. Each service (the crossword service; the cover service to come) keeps its own routes,
//! error codes, keys, tables and OpenAPI document, and builds them with these parts:
//!
//! * [`problem`]: problem documents (RFC 9457) over a service's own code table, and the error
//!   reference page rendered from it;
//! * [`context`] and [`observe`]: the one request middleware (request id, context, logging,
//!   metrics) and the per-request facts it installs; [`metrics`]: Prometheus request metrics;
//! * [`keys`]: random ids and API keys (a service prefix, SHA-256 hashes, constant-time
//!   comparison);
//! * [`windows`]: one-minute request windows; [`period`]: monthly quota periods (UTC months);
//! * [`admin`]: the loopback admin channel (secret, announcement file, gate, client);
//! * [`http_client`]: the product's one HTTP client;
//! * [`shutdown`]: serving until SIGTERM or Ctrl-C with graceful shutdown;
//! * [`db`]: opening a redb database with the service's table prefix.

pub mod admin;
pub mod background;
pub mod context;
pub mod db;
pub mod http_client;
pub mod keys;
pub mod metrics;
pub mod observe;
pub mod period;
pub mod problem;
pub mod shutdown;
pub mod windows;
