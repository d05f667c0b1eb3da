//! What every handler shares.

use std::sync::Arc;

use service_kit::admin::AdminGate;
use service_kit::observe::Observer;
use service_kit::windows::Windows;

use super::solver_pool::SolverPool;
use crate::config::Config;
use crate::indexes::IndexManager;
use crate::store::{Account, ApiKey, Store};
use crossword_clues::generate::ClueGenerator;
use crossword_clues::token::ClueSigner;

/// The cached-caller lifetime with a shared store ([`AppState::auth_ttl`]): half a second, so
/// that with the store's answer time a revocation reaches every node within one second.
pub const MULTI_NODE_AUTH_TTL: std::time::Duration = std::time::Duration::from_millis(500);

/// Everything handlers share.
pub struct AppState {
    /// Plans and limits.
    pub config: Config,
    /// Durable state.
    pub store: Arc<dyn Store>,
    /// The word indexes and clue collections.
    pub indexes: Arc<IndexManager>,
    /// Per-account read windows.
    pub reads: Windows,
    /// Per-IP windows of the open endpoints.
    pub open: Windows,
    /// Public base URL (no trailing slash) and request metrics, for the middleware.
    pub observer: Arc<Observer>,
    /// Who may use the loopback admin endpoint.
    pub admin: AdminGate,
    /// Authenticated callers by key hash, with when each was read from the store. Every write to
    /// keys and accounts made through this process (the admin endpoint) clears the cache, so on
    /// one node a revocation or a plan change takes effect on the next request.
    pub auth_cache: parking_lot::RwLock<ahash::AHashMap<String, (Caller, std::time::Instant)>>,
    /// How long a cached caller is trusted before the store is asked again: `None` on one node
    /// (the cache is cleared by every change); [`MULTI_NODE_AUTH_TTL`] when several nodes share
    /// the store, so a key revoked through one node is refused by every node within a second.
    pub auth_ttl: Option<std::time::Duration>,
    /// Solver concurrency caps and live fill sessions.
    pub solver: Arc<SolverPool>,
    /// Signs generated clues (secret in the data directory).
    pub clue_signer: ClueSigner,
    /// Makes new clues for POST /clues/generate.
    pub clue_generator: Arc<dyn ClueGenerator>,
    /// Fonts of printed puzzles (PDF export), loaded on first use.
    pub fonts: Fonts,
}

/// The fonts of printed puzzles: `INDEX_DIR/fonts` (where `indexbuild fonts` puts them) and the
/// Debian font folders, read on first use.
pub struct Fonts {
    dir: std::path::PathBuf,
    book: std::sync::OnceLock<crossword_puzzle::fonts::FontBook>,
}

impl Fonts {
    /// Fonts to be read from `dir` (and the system) when first needed.
    pub fn new(dir: impl Into<std::path::PathBuf>) -> Fonts {
        Fonts { dir: dir.into(), book: std::sync::OnceLock::new() }
    }

    /// The loaded fonts (blocking file reads the first time).
    pub fn book(&self) -> &crossword_puzzle::fonts::FontBook {
        self.book.get_or_init(|| crossword_puzzle::fonts::FontBook::load(&self.dir))
    }

    /// The font files neither the folder nor the system has.
    pub fn missing(&self) -> Vec<&'static str> {
        crossword_puzzle::fonts::FontBook::missing(&self.dir)
    }
}

/// An authenticated caller.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The account every limit is keyed to (shared: the auth cache hands out clones on every
    /// request).
    pub account: std::sync::Arc<Account>,
    /// The key used.
    pub key: std::sync::Arc<ApiKey>,
}

impl AppState {
    /// Public base URL (no trailing slash).
    pub fn base_url(&self) -> &str {
        &self.observer.base_url
    }

    /// The link people follow to change plans.
    pub fn upgrade_url(&self) -> String {
        format!("{}/pricing", self.base_url())
    }
}
