//! Durable state behind a small interface: accounts, API keys (hashes only), usage counters,
//! clue additions, and puzzles with their version history, idempotency keys and showcase queue.
//!
//! Handlers see only the [`Store`] trait, so a multi-node backend can replace the embedded one
//! ([`RedbStore`], one redb file in the data directory) without touching them. Table names are
//! prefixed with the service name (`crossword.`), so a second service can keep its own tables in
//! the same file.

mod off_runtime;
mod postgres_store;
mod redb_store;

use serde::{Deserialize, Serialize};

pub use off_runtime::OffRuntime;
pub use postgres_store::{PgStore, MIGRATIONS};
pub use redb_store::RedbStore;

use crossword_clues::{Source, StoredClue};
pub use crossword_puzzle::{Puzzle, Status};
use service_kit::db::DbError;

use crate::config::Tier;

/// A permission carried by an API key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Scope {
    /// Search words, find clues, read and export puzzles.
    #[serde(rename = "read")]
    Read,
    /// Fill and clean grids, cancel a fill, create AI clues.
    #[serde(rename = "solve")]
    Solve,
    /// Create, update, delete and publish puzzles.
    #[serde(rename = "puzzles:write")]
    PuzzlesWrite,
}

impl Scope {
    /// Every scope; new keys carry all of them.
    pub const ALL: [Scope; 3] = [Scope::Read, Scope::Solve, Scope::PuzzlesWrite];

    /// The contract's name of the scope.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Read => "read",
            Scope::Solve => "solve",
            Scope::PuzzlesWrite => "puzzles:write",
        }
    }

    /// Parses a scope name.
    pub fn parse(s: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|x| x.as_str() == s)
    }
}

/// An account: every limit is keyed to it, never to a key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Account {
    /// `acct_` and 16 random characters.
    pub id: String,
    /// The plan.
    pub tier: Tier,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Creation time, seconds since the Unix epoch.
    #[serde(rename = "createdAt")]
    pub created_at: u64,
}

/// A stored API key: its hash, never the key itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiKey {
    /// `key_` and 16 random characters; used to revoke.
    pub id: String,
    /// The owning account.
    #[serde(rename = "accountId")]
    pub account_id: String,
    /// Permissions.
    pub scopes: Vec<Scope>,
    /// The first characters of the key, for people to recognise it (`cw_live_AbCd…`).
    pub hint: String,
    /// SHA-256 of the key, hex.
    #[serde(skip_serializing)]
    #[serde(default)]
    pub hash: String,
    /// Creation time, seconds since the Unix epoch.
    #[serde(rename = "createdAt")]
    pub created_at: u64,
    /// Revocation time; revocation is permanent.
    #[serde(rename = "revokedAt", default, skip_serializing_if = "Option::is_none")]
    pub revoked_at: Option<u64>,
}

/// A metered monthly quantity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Counter {
    /// Fills and clean-ups.
    Fills,
    /// Newly created puzzles.
    Puzzles,
    /// AI clue requests.
    AiClues,
}

impl Counter {
    fn as_str(self) -> &'static str {
        match self {
            Counter::Fills => "fills",
            Counter::Puzzles => "puzzles",
            Counter::AiClues => "ai_clues",
        }
    }
}

/// The outcome of [`Store::consume`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consumed {
    /// One unit was taken; `remaining` after it (-1: unlimited).
    Taken {
        /// Units left this period after this one (-1 when unlimited).
        remaining: i64,
    },
    /// The limit was already reached; nothing was taken.
    Exhausted,
}

/// The outcome of [`Store::create_puzzle`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Created {
    /// Stored; one monthly puzzle taken, `remaining` after it (-1: unlimited).
    New {
        /// Puzzles left this month.
        remaining: i64,
    },
    /// The idempotency key was used before: the first puzzle, nothing taken.
    Replayed(Box<Puzzle>),
    /// The idempotency key was used before for a puzzle since deleted.
    ReplayedDeleted,
    /// The monthly quota is spent; nothing stored.
    QuotaExhausted,
    /// The new puzzle's id is taken (pick another and retry); nothing stored.
    IdTaken,
}

/// The outcome of [`Store::replace_puzzle`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replaced {
    /// Written.
    Done,
    /// The puzzle changed since it was read (its revision moved): read it again and retry.
    Conflict,
    /// No such puzzle.
    NotFound,
    /// The change queues the puzzle for showcase review while `queued` of its account's
    /// puzzles already are (the cap); nothing written.
    QueueFull {
        /// Puzzles of the account in the queue.
        queued: usize,
    },
}

/// Which published puzzles a public page lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing<'a> {
    /// An author's page: published puzzles with `showProfile` whose author has this slug
    /// ([`crossword_puzzle::author_slug`]).
    Author(&'a str),
    /// The showcase gallery: approved puzzles, optionally of one language.
    Showcase(Option<&'a str>),
}

/// What a lookup by idempotency key finds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdempotentHit {
    /// The puzzle the key created.
    Puzzle(Box<Puzzle>),
    /// The key created a puzzle that was deleted since.
    Deleted,
}

/// Storage failures.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No such account or key.
    #[error("{0} not found")]
    NotFound(String),
    /// The database file is held by another process (a running server).
    #[error("the database is in use by another process (is the server running?)")]
    Locked,
    /// Anything else from the backend.
    #[error("storage: {0}")]
    Backend(String),
}

impl From<DbError> for StoreError {
    fn from(e: DbError) -> StoreError {
        match e {
            DbError::Locked => StoreError::Locked,
            DbError::Backend(e) => StoreError::Backend(e),
        }
    }
}

/// Result of store operations.
pub type StoreResult<T> = Result<T, StoreError>;

/// The storage interface the service uses. Every write is durable once it returns.
pub trait Store: Send + Sync {
    /// Creates an account.
    fn create_account(&self, tier: Tier, name: Option<&str>) -> StoreResult<Account>;
    /// An account by id.
    fn account(&self, id: &str) -> StoreResult<Option<Account>>;
    /// Changes an account's plan.
    fn set_tier(&self, id: &str, tier: Tier) -> StoreResult<Account>;
    /// Stores a new key (its hash) for an existing account.
    fn insert_key(&self, key: &ApiKey) -> StoreResult<()>;
    /// The key whose SHA-256 (hex) is `hash`, revoked or not.
    fn key_by_hash(&self, hash: &str) -> StoreResult<Option<ApiKey>>;
    /// Revokes a key for good; revoking twice is harmless.
    fn revoke_key(&self, key_id: &str) -> StoreResult<ApiKey>;
    /// The keys of an account, oldest first.
    fn keys_of(&self, account_id: &str) -> StoreResult<Vec<ApiKey>>;
    /// Takes one unit of `counter` for `period` (e.g. `2026-11`) if fewer than `limit` were
    /// taken (`limit` -1: unlimited). Atomic: concurrent callers never overshoot.
    fn consume(&self, account_id: &str, counter: Counter, period: &str, limit: i64) -> StoreResult<Consumed>;
    /// Gives back one unit taken by [`Store::consume`] (used when the work it paid for failed
    /// upstream, which the contract says charges nothing).
    fn refund(&self, account_id: &str, counter: Counter, period: &str) -> StoreResult<()>;
    /// Units of `counter` used in `period`.
    fn usage(&self, account_id: &str, counter: Counter, period: &str) -> StoreResult<u64>;
    /// Clues added to the collection on this service (`original`, `ai`), for each of
    /// `answers` (normalized) of `language`, in the same order; empty lists for answers with
    /// none.
    fn clue_additions(&self, language: &str, answers: &[&str]) -> StoreResult<Vec<Vec<StoredClue>>>;
    /// Records one use of a clue: a new clue is stored with count 1; a repeat (same
    /// [`crossword_clues::dedupe_key`] and source) counts up. The puzzles API calls this when a
    /// puzzle is published.
    fn add_clue(&self, language: &str, answer: &str, text: &str, source: Source) -> StoreResult<()>;

    /// What an account's idempotency key already created, if anything.
    fn puzzle_by_idempotency_key(&self, owner: &str, key: &str) -> StoreResult<Option<IdempotentHit>>;
    /// Stores a new puzzle in one transaction with its idempotency key and one unit of the
    /// owner's monthly puzzle quota (`limit` -1: unlimited): all of them or none. A key used
    /// before (even by a concurrent request) replays instead.
    fn create_puzzle(
        &self,
        puzzle: &Puzzle,
        idempotency_key: Option<&str>,
        period: &str,
        limit: i64,
    ) -> StoreResult<Created>;
    /// A puzzle by id (any owner).
    fn puzzle(&self, id: &str) -> StoreResult<Option<Puzzle>>;
    /// True when a puzzle with this id existed and was deleted.
    fn puzzle_deleted(&self, id: &str) -> StoreResult<bool>;
    /// An owner's puzzles, newest edit first, optionally of one status: `limit` of them from
    /// `offset`, and how many there are in all.
    fn list_puzzles(
        &self,
        owner: &str,
        status: Option<Status>,
        limit: usize,
        offset: usize,
    ) -> StoreResult<(Vec<Puzzle>, usize)>;
    /// Writes `new` over the stored puzzle of the same id if that one's `revision` is still
    /// `expected_revision` (optimistic concurrency); the stored revision becomes one more.
    /// `keep_history` keeps the replaced record as a version first. `showcase_cap`: refuse
    /// (`QueueFull`) a change that queues the puzzle for review while that many of its owner's
    /// puzzles are queued.
    fn replace_puzzle(
        &self,
        new: &Puzzle,
        expected_revision: u64,
        keep_history: bool,
        showcase_cap: Option<usize>,
    ) -> StoreResult<Replaced>;
    /// Deletes a puzzle and its versions for good (its idempotency key keeps pointing at the
    /// deleted id); false when there was none.
    fn delete_puzzle(&self, id: &str) -> StoreResult<bool>;
    /// The kept earlier versions of a puzzle, oldest first.
    fn puzzle_versions(&self, id: &str) -> StoreResult<Vec<Puzzle>>;
    /// Every puzzle in showcase review (pending, pre-approved or flagged), oldest update first.
    fn showcase_queue(&self) -> StoreResult<Vec<Puzzle>>;
    /// Published puzzles for a public page, newest publication first: `limit` of them from
    /// `offset`, and how many there are in all.
    fn public_puzzles(&self, listing: Listing<'_>, limit: usize, offset: usize) -> StoreResult<(Vec<Puzzle>, usize)>;
    /// Writes a consistent copy of everything to a new file at `dest` while serving goes on
    /// (`crossword admin backup`).
    fn backup(&self, dest: &std::path::Path) -> StoreResult<service_kit::db::CopyReport>;

    /// The running fills of every node sharing this store, when several can (PostgreSQL);
    /// `None` for a store only one node opens, whose solver pool counts exactly by itself.
    fn fill_sessions(&self) -> Option<&dyn FillSessions> {
        None
    }
}

/// The outcome of [`FillSessions::claim`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FillClaim {
    /// The place is the session's until released (or its lease runs out).
    Claimed,
    /// The account already runs `running` fills across all nodes: nothing claimed.
    Busy {
        /// Fills of the account running now.
        running: u32,
    },
    /// The account already runs a fill with this session id.
    SessionTaken,
}

/// Running fills shared by the nodes of one store: the per-account limit across nodes, and
/// cancel requests that reach the node running the fill (it polls [`FillSessions::cancels_for`]).
pub trait FillSessions: Send + Sync {
    /// Claims one of `account`'s `limit` places for `session` running on `node`, for at most
    /// `lease_secs` (a crashed node's places free themselves then).
    fn claim(&self, account: &str, session: &str, node: &str, limit: u32, lease_secs: u64) -> StoreResult<FillClaim>;
    /// Gives a place back (the fill ended); harmless when already gone.
    fn release(&self, account: &str, session: &str) -> StoreResult<()>;
    /// Asks whichever node runs `account`'s `session` to cancel it; false when none does.
    fn request_cancel(&self, account: &str, session: &str) -> StoreResult<bool>;
    /// `(account, session)` of the fills on `node` whose cancel was asked for.
    fn cancels_for(&self, node: &str) -> StoreResult<Vec<(String, String)>>;
}
