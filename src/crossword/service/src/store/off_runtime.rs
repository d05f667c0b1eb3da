//! [`OffRuntime`]: the [`Store`] as async handlers should call it.
//!
//! The store is synchronous, and a write commits with fsync before it returns (a millisecond or
//! more, longer when the disk is busy). Called from a handler, that blocks a tokio worker, and
//! with two workers on a two-core box every request queued behind it (word searches above all)
//! waits too: the soak measured word-search p99 at 5.8 ms with puzzle writes going on. The
//! wrapper runs each write and each scan through [`tokio::task::block_in_place`], which hands the
//! worker's queue to another thread for the duration. Point reads (an account, a key, a puzzle)
//! come from redb's page cache and go straight through; for a store across the network
//! ([`super::PgStore`]) every call leaves the worker. Outside a multi-threaded runtime (the
//! CLI, blocking threads, the solver pool, single-threaded tests) every call goes straight through.

use super::{
    Account, ApiKey, Consumed, Counter, Created, FillClaim, FillSessions, IdempotentHit, Listing, Puzzle, Replaced,
    Status, Store, StoreError, StoreResult,
};
use crate::config::Tier;
use crossword_clues::{Source, StoredClue};

/// Wraps a [`Store`] so that its slow calls leave the async runtime's worker (see the module
/// documentation).
pub struct OffRuntime<S> {
    store: S,
    every_call: bool,
}

impl<S: Store> OffRuntime<S> {
    /// For an embedded store: writes and scans leave the worker, point reads do not.
    pub fn writes_and_scans(store: S) -> OffRuntime<S> {
        OffRuntime { store, every_call: false }
    }

    /// For a store across the network ([`super::PgStore`]): every call leaves the worker.
    pub fn every_call(store: S) -> OffRuntime<S> {
        OffRuntime { store, every_call: true }
    }

    /// A point read: in place for an embedded store, off the worker otherwise.
    fn read<T>(&self, f: impl FnOnce(&S) -> T) -> T {
        if self.every_call {
            off_runtime(|| f(&self.store))
        } else {
            f(&self.store)
        }
    }
}

/// Runs `f` where it cannot hold up other tasks: in place on a multi-threaded runtime's worker,
/// after handing that worker's queue to another thread; directly anywhere else.
fn off_runtime<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(f)
        }
        _ => f(),
    }
}

impl<S: Store> Store for OffRuntime<S> {
    fn create_account(&self, tier: Tier, name: Option<&str>) -> StoreResult<Account> {
        off_runtime(|| self.store.create_account(tier, name))
    }
    fn account(&self, id: &str) -> StoreResult<Option<Account>> {
        self.read(|s| s.account(id))
    }
    fn set_tier(&self, id: &str, tier: Tier) -> StoreResult<Account> {
        off_runtime(|| self.store.set_tier(id, tier))
    }
    fn insert_key(&self, key: &ApiKey) -> StoreResult<()> {
        off_runtime(|| self.store.insert_key(key))
    }
    fn key_by_hash(&self, hash: &str) -> StoreResult<Option<ApiKey>> {
        self.read(|s| s.key_by_hash(hash))
    }
    fn revoke_key(&self, key_id: &str) -> StoreResult<ApiKey> {
        off_runtime(|| self.store.revoke_key(key_id))
    }
    fn keys_of(&self, account_id: &str) -> StoreResult<Vec<ApiKey>> {
        self.read(|s| s.keys_of(account_id))
    }
    fn consume(&self, account_id: &str, counter: Counter, period: &str, limit: i64) -> StoreResult<Consumed> {
        off_runtime(|| self.store.consume(account_id, counter, period, limit))
    }
    fn refund(&self, account_id: &str, counter: Counter, period: &str) -> StoreResult<()> {
        off_runtime(|| self.store.refund(account_id, counter, period))
    }
    fn usage(&self, account_id: &str, counter: Counter, period: &str) -> StoreResult<u64> {
        self.read(|s| s.usage(account_id, counter, period))
    }
    fn clue_additions(&self, language: &str, answers: &[&str]) -> StoreResult<Vec<Vec<StoredClue>>> {
        self.read(|s| s.clue_additions(language, answers))
    }
    fn add_clue(&self, language: &str, answer: &str, text: &str, source: Source) -> StoreResult<()> {
        off_runtime(|| self.store.add_clue(language, answer, text, source))
    }
    fn puzzle_by_idempotency_key(&self, owner: &str, key: &str) -> StoreResult<Option<IdempotentHit>> {
        self.read(|s| s.puzzle_by_idempotency_key(owner, key))
    }
    fn create_puzzle(
        &self,
        puzzle: &Puzzle,
        idempotency_key: Option<&str>,
        period: &str,
        limit: i64,
    ) -> StoreResult<Created> {
        off_runtime(|| self.store.create_puzzle(puzzle, idempotency_key, period, limit))
    }
    fn puzzle(&self, id: &str) -> StoreResult<Option<Puzzle>> {
        self.read(|s| s.puzzle(id))
    }
    fn puzzle_deleted(&self, id: &str) -> StoreResult<bool> {
        self.read(|s| s.puzzle_deleted(id))
    }
    fn list_puzzles(
        &self,
        owner: &str,
        status: Option<Status>,
        limit: usize,
        offset: usize,
    ) -> StoreResult<(Vec<Puzzle>, usize)> {
        off_runtime(|| self.store.list_puzzles(owner, status, limit, offset))
    }
    fn replace_puzzle(
        &self,
        new: &Puzzle,
        expected_revision: u64,
        keep_history: bool,
        showcase_cap: Option<usize>,
    ) -> StoreResult<Replaced> {
        off_runtime(|| self.store.replace_puzzle(new, expected_revision, keep_history, showcase_cap))
    }
    fn delete_puzzle(&self, id: &str) -> StoreResult<bool> {
        off_runtime(|| self.store.delete_puzzle(id))
    }
    fn puzzle_versions(&self, id: &str) -> StoreResult<Vec<Puzzle>> {
        off_runtime(|| self.store.puzzle_versions(id))
    }
    fn showcase_queue(&self) -> StoreResult<Vec<Puzzle>> {
        off_runtime(|| self.store.showcase_queue())
    }
    fn public_puzzles(&self, listing: Listing<'_>, limit: usize, offset: usize) -> StoreResult<(Vec<Puzzle>, usize)> {
        off_runtime(|| self.store.public_puzzles(listing, limit, offset))
    }
    fn backup(&self, dest: &std::path::Path) -> StoreResult<service_kit::db::CopyReport> {
        off_runtime(|| self.store.backup(dest))
    }
    fn fill_sessions(&self) -> Option<&dyn FillSessions> {
        self.store.fill_sessions().map(|_| self as &dyn FillSessions)
    }
}

/// The inner store's shared fill sessions, each call off the worker. Only handed out when the
/// inner store has them ([`Store::fill_sessions`]).
impl<S: Store> FillSessions for OffRuntime<S> {
    fn claim(&self, account: &str, session: &str, node: &str, limit: u32, lease_secs: u64) -> StoreResult<FillClaim> {
        off_runtime(|| self.shared()?.claim(account, session, node, limit, lease_secs))
    }
    fn release(&self, account: &str, session: &str) -> StoreResult<()> {
        off_runtime(|| self.shared()?.release(account, session))
    }
    fn request_cancel(&self, account: &str, session: &str) -> StoreResult<bool> {
        off_runtime(|| self.shared()?.request_cancel(account, session))
    }
    fn cancels_for(&self, node: &str) -> StoreResult<Vec<(String, String)>> {
        off_runtime(|| self.shared()?.cancels_for(node))
    }
}

impl<S: Store> OffRuntime<S> {
    fn shared(&self) -> StoreResult<&dyn FillSessions> {
        self.store.fill_sessions().ok_or_else(|| StoreError::Backend("this store keeps no shared fill sessions".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::RedbStore;

    fn store() -> (tempfile::TempDir, OffRuntime<RedbStore>) {
        let dir = tempfile::tempdir().unwrap();
        let store = RedbStore::open(&dir.path().join("db.redb")).unwrap();
        (dir, OffRuntime::writes_and_scans(store))
    }

    /// On a multi-threaded runtime a write leaves the worker, and other tasks go on meanwhile.
    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn writes_on_a_worker_go_through() {
        let (_dir, store) = store();
        let account = store.create_account(Tier::Free, Some("a")).unwrap();
        assert_eq!(store.account(&account.id).unwrap().unwrap().id, account.id);
        let ticks = tokio::spawn(async { tokio::task::yield_now().await });
        let used = store.consume(&account.id, Counter::Puzzles, "2026-11", 5).unwrap();
        assert!(matches!(used, Consumed::Taken { .. }), "{used:?}");
        ticks.await.unwrap();
        assert_eq!(store.usage(&account.id, Counter::Puzzles, "2026-11").unwrap(), 1);
    }

    /// block_in_place would panic on a current-thread runtime: there the calls run directly.
    #[tokio::test(flavor = "current_thread")]
    async fn writes_on_a_current_thread_runtime_run_directly() {
        let (_dir, store) = store();
        let account = store.create_account(Tier::Free, None).unwrap();
        assert_eq!(store.set_tier(&account.id, Tier::Patron).unwrap().tier, Tier::Patron);
    }

    /// Outside any runtime (the CLI) too.
    #[test]
    fn writes_outside_a_runtime_run_directly() {
        let (_dir, store) = store();
        let account = store.create_account(Tier::Free, None).unwrap();
        assert_eq!(store.keys_of(&account.id).unwrap().len(), 0);
    }
}
