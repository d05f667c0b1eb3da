//! The embedded store: one redb file, opened by the kit with the `crossword.` table prefix.
//! redb serializes write transactions (one writer at a time) and commits with immediate
//! durability, so an acknowledged write survives a crash, and a check-and-increment inside one
//! write transaction is exact under concurrency.

use std::path::Path;

use redb::{Database, ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition};
use service_kit::keys::random_id;
use service_kit::period::unix_now as now;

use super::*;

const ACCOUNTS: TableDefinition<&str, &[u8]> = TableDefinition::new("crossword.accounts");
const KEYS: TableDefinition<&str, &[u8]> = TableDefinition::new("crossword.keys");
const KEY_HASHES: TableDefinition<&str, &str> = TableDefinition::new("crossword.key_hashes");
const USAGE: TableDefinition<&str, u64> = TableDefinition::new("crossword.usage");
/// Clue additions: key `LANG/ANSWER`, value the JSON list of [`StoredClue`].
const CLUES: TableDefinition<&str, &[u8]> = TableDefinition::new("crossword.clues");

/// A [`Store`] in one redb file.
pub struct RedbStore {
    db: Database,
}

fn backend(e: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(e.to_string())
}

impl RedbStore {
    /// Opens (or creates) the database file.
    pub fn open(path: &Path) -> StoreResult<RedbStore> {
        let db = service_kit::db::open(path, "crossword", |tables| {
            tables.create(ACCOUNTS)?;
            tables.create(KEYS)?;
            tables.create(KEY_HASHES)?;
            tables.create(USAGE)?;
            tables.create(CLUES)
        })?;
        Ok(RedbStore { db })
    }

    fn get_json<T: serde::de::DeserializeOwned>(
        &self,
        table: TableDefinition<&str, &[u8]>,
        id: &str,
    ) -> StoreResult<Option<T>> {
        let txn = self.db.begin_read().map_err(backend)?;
        let t = txn.open_table(table).map_err(backend)?;
        match t.get(id).map_err(backend)? {
            Some(v) => Ok(Some(serde_json::from_slice(v.value()).map_err(backend)?)),
            None => Ok(None),
        }
    }

    fn update_json<T, F>(&self, table: TableDefinition<&str, &[u8]>, id: &str, what: &str, f: F) -> StoreResult<T>
    where
        T: serde::de::DeserializeOwned + Serialize,
        F: FnOnce(&mut T),
    {
        let txn = self.db.begin_write().map_err(backend)?;
        let value = {
            let mut t = txn.open_table(table).map_err(backend)?;
            let mut value: T = match t.get(id).map_err(backend)? {
                Some(v) => serde_json::from_slice(v.value()).map_err(backend)?,
                None => return Err(StoreError::NotFound(format!("{what} {id}"))),
            };
            f(&mut value);
            let bytes = serde_json::to_vec(&value).map_err(backend)?;
            t.insert(id, bytes.as_slice()).map_err(backend)?;
            value
        };
        txn.commit().map_err(backend)?;
        Ok(value)
    }
}

fn clue_key(language: &str, answer: &str) -> String {
    format!("{language}/{answer}")
}

fn usage_key(account_id: &str, counter: Counter, period: &str) -> String {
    format!("{account_id}/{}/{period}", counter.as_str())
}

impl Store for RedbStore {
    fn create_account(&self, tier: Tier, name: Option<&str>) -> StoreResult<Account> {
        let account = Account { id: random_id("acct_"), tier, name: name.map(str::to_owned), created_at: now() };
        let txn = self.db.begin_write().map_err(backend)?;
        {
            let mut t = txn.open_table(ACCOUNTS).map_err(backend)?;
            let bytes = serde_json::to_vec(&account).map_err(backend)?;
            t.insert(account.id.as_str(), bytes.as_slice()).map_err(backend)?;
        }
        txn.commit().map_err(backend)?;
        Ok(account)
    }

    fn account(&self, id: &str) -> StoreResult<Option<Account>> {
        self.get_json(ACCOUNTS, id)
    }

    fn set_tier(&self, id: &str, tier: Tier) -> StoreResult<Account> {
        self.update_json(ACCOUNTS, id, "account", |a: &mut Account| a.tier = tier)
    }

    fn insert_key(&self, key: &ApiKey) -> StoreResult<()> {
        let txn = self.db.begin_write().map_err(backend)?;
        {
            if txn.open_table(ACCOUNTS).map_err(backend)?.get(key.account_id.as_str()).map_err(backend)?.is_none() {
                return Err(StoreError::NotFound(format!("account {}", key.account_id)));
            }
            let mut keys = txn.open_table(KEYS).map_err(backend)?;
            // The hash is not serialized with the public record: store it beside it.
            let mut stored = serde_json::to_value(key).map_err(backend)?;
            stored["hash"] = key.hash.clone().into();
            let bytes = serde_json::to_vec(&stored).map_err(backend)?;
            keys.insert(key.id.as_str(), bytes.as_slice()).map_err(backend)?;
            txn.open_table(KEY_HASHES).map_err(backend)?.insert(key.hash.as_str(), key.id.as_str()).map_err(backend)?;
        }
        txn.commit().map_err(backend)
    }

    fn key_by_hash(&self, hash: &str) -> StoreResult<Option<ApiKey>> {
        let txn = self.db.begin_read().map_err(backend)?;
        let id = match txn.open_table(KEY_HASHES).map_err(backend)?.get(hash).map_err(backend)? {
            Some(id) => id.value().to_owned(),
            None => return Ok(None),
        };
        let keys = txn.open_table(KEYS).map_err(backend)?;
        let Some(v) = keys.get(id.as_str()).map_err(backend)? else { return Ok(None) };
        Ok(Some(serde_json::from_slice(v.value()).map_err(backend)?))
    }

    fn revoke_key(&self, key_id: &str) -> StoreResult<ApiKey> {
        let txn = self.db.begin_write().map_err(backend)?;
        let key = {
            let mut keys = txn.open_table(KEYS).map_err(backend)?;
            let mut stored: serde_json::Value = match keys.get(key_id).map_err(backend)? {
                Some(v) => serde_json::from_slice(v.value()).map_err(backend)?,
                None => return Err(StoreError::NotFound(format!("key {key_id}"))),
            };
            if stored.get("revokedAt").is_none_or(|v| v.is_null()) {
                stored["revokedAt"] = now().into();
            }
            let bytes = serde_json::to_vec(&stored).map_err(backend)?;
            keys.insert(key_id, bytes.as_slice()).map_err(backend)?;
            serde_json::from_value::<ApiKey>(stored).map_err(backend)?
        };
        txn.commit().map_err(backend)?;
        Ok(key)
    }

    fn keys_of(&self, account_id: &str) -> StoreResult<Vec<ApiKey>> {
        let txn = self.db.begin_read().map_err(backend)?;
        let keys = txn.open_table(KEYS).map_err(backend)?;
        let mut out = Vec::new();
        for row in keys.iter().map_err(backend)? {
            let (_, v) = row.map_err(backend)?;
            let key: ApiKey = serde_json::from_slice(v.value()).map_err(backend)?;
            if key.account_id == account_id {
                out.push(key);
            }
        }
        out.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
        Ok(out)
    }

    fn consume(&self, account_id: &str, counter: Counter, period: &str, limit: i64) -> StoreResult<Consumed> {
        let key = usage_key(account_id, counter, period);
        let txn = self.db.begin_write().map_err(backend)?;
        let outcome = {
            let mut t = txn.open_table(USAGE).map_err(backend)?;
            let used = t.get(key.as_str()).map_err(backend)?.map_or(0, |v| v.value());
            if limit >= 0 && used >= limit as u64 {
                Consumed::Exhausted
            } else {
                t.insert(key.as_str(), used + 1).map_err(backend)?;
                Consumed::Taken { remaining: if limit < 0 { -1 } else { limit - used as i64 - 1 } }
            }
        };
        if outcome == Consumed::Exhausted {
            txn.abort().map_err(backend)?;
        } else {
            txn.commit().map_err(backend)?;
        }
        Ok(outcome)
    }

    fn refund(&self, account_id: &str, counter: Counter, period: &str) -> StoreResult<()> {
        let key = usage_key(account_id, counter, period);
        let txn = self.db.begin_write().map_err(backend)?;
        {
            let mut t = txn.open_table(USAGE).map_err(backend)?;
            let used = t.get(key.as_str()).map_err(backend)?.map_or(0, |v| v.value());
            t.insert(key.as_str(), used.saturating_sub(1)).map_err(backend)?;
        }
        txn.commit().map_err(backend)
    }

    fn usage(&self, account_id: &str, counter: Counter, period: &str) -> StoreResult<u64> {
        let txn = self.db.begin_read().map_err(backend)?;
        let t = txn.open_table(USAGE).map_err(backend)?;
        Ok(t.get(usage_key(account_id, counter, period).as_str()).map_err(backend)?.map_or(0, |v| v.value()))
    }

    fn clue_additions(&self, language: &str, answers: &[&str]) -> StoreResult<Vec<Vec<StoredClue>>> {
        let txn = self.db.begin_read().map_err(backend)?;
        let t = txn.open_table(CLUES).map_err(backend)?;
        if t.is_empty().map_err(backend)? {
            return Ok(vec![Vec::new(); answers.len()]);
        }
        answers
            .iter()
            .map(|a| match t.get(clue_key(language, a).as_str()).map_err(backend)? {
                Some(v) => serde_json::from_slice(v.value()).map_err(backend),
                None => Ok(Vec::new()),
            })
            .collect()
    }

    fn add_clue(&self, language: &str, answer: &str, text: &str, source: Source) -> StoreResult<()> {
        use crossword_clues::dedupe_key;
        let key = clue_key(language, answer);
        let txn = self.db.begin_write().map_err(backend)?;
        {
            let mut t = txn.open_table(CLUES).map_err(backend)?;
            let mut list: Vec<StoredClue> = match t.get(key.as_str()).map_err(backend)? {
                Some(v) => serde_json::from_slice(v.value()).map_err(backend)?,
                None => Vec::new(),
            };
            let wanted = dedupe_key(text);
            match list.iter_mut().find(|c| c.source == source && dedupe_key(&c.text) == wanted) {
                Some(c) => c.count = c.count.saturating_add(1),
                None => list.push(StoredClue { text: text.to_owned(), source, count: 1 }),
            }
            let bytes = serde_json::to_vec(&list).map_err(backend)?;
            t.insert(key.as_str(), bytes.as_slice()).map_err(backend)?;
        }
        txn.commit().map_err(backend)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, RedbStore) {
        let dir = tempfile::tempdir().unwrap();
        let s = RedbStore::open(&dir.path().join("crossword.redb")).unwrap();
        (dir, s)
    }

    #[test]
    fn clue_additions_count_uses() {
        let (_dir, s) = store();
        assert_eq!(s.clue_additions("en", &["ICE"]).unwrap(), vec![vec![]]);
        s.add_clue("en", "ICE", "Rink surface", Source::Original).unwrap();
        s.add_clue("en", "ICE", "rink  surface!", Source::Original).unwrap();
        s.add_clue("en", "ICE", "Rink surface", Source::Ai).unwrap();
        s.add_clue("fr", "ICE", "Autre", Source::Original).unwrap();
        let got = s.clue_additions("en", &["OAK", "ICE"]).unwrap();
        assert!(got[0].is_empty());
        let counts: Vec<(Source, u32)> = got[1].iter().map(|c| (c.source, c.count)).collect();
        assert_eq!(counts, [(Source::Original, 2), (Source::Ai, 1)]);
    }

    #[test]
    fn accounts_and_keys_round_trip() {
        let (dir, s) = store();
        let a = s.create_account(Tier::Free, Some("Ann")).unwrap();
        assert_eq!(s.account(&a.id).unwrap().unwrap(), a);
        assert_eq!(s.set_tier(&a.id, Tier::Patron).unwrap().tier, Tier::Patron);
        assert!(matches!(s.set_tier("acct_nope", Tier::Free), Err(StoreError::NotFound(_))));
        let (secret, key) = crate::keys::new_key(&a.id, &Scope::ALL);
        s.insert_key(&key).unwrap();
        let found = s.key_by_hash(&service_kit::keys::hash(&secret)).unwrap().unwrap();
        assert_eq!(found.id, key.id);
        assert_eq!(s.keys_of(&a.id).unwrap().len(), 1);
        let revoked = s.revoke_key(&key.id).unwrap();
        let first = revoked.revoked_at;
        assert!(first.is_some());
        assert_eq!(s.revoke_key(&key.id).unwrap().revoked_at, first, "revoking twice keeps the first time");
        assert!(s.key_by_hash(&service_kit::keys::hash(&secret)).unwrap().unwrap().revoked_at.is_some());
        let (_, orphan) = crate::keys::new_key("acct_missing", &Scope::ALL);
        assert!(matches!(s.insert_key(&orphan), Err(StoreError::NotFound(_))));
        // Durable: reopen and find everything again.
        drop(s);
        let s = RedbStore::open(&dir.path().join("crossword.redb")).unwrap();
        assert_eq!(s.account(&a.id).unwrap().unwrap().tier, Tier::Patron);
        assert!(s.key_by_hash(&service_kit::keys::hash(&secret)).unwrap().is_some());
    }

    #[test]
    fn a_second_process_sees_the_lock() {
        let (dir, _s) = store();
        assert!(matches!(RedbStore::open(&dir.path().join("crossword.redb")), Err(StoreError::Locked)));
    }

    #[test]
    fn consume_is_exact_under_concurrency() {
        let (_dir, s) = store();
        let s = std::sync::Arc::new(s);
        let a = s.create_account(Tier::Free, None).unwrap();
        let taken = std::sync::atomic::AtomicU64::new(0);
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| {
                    for _ in 0..10 {
                        if let Consumed::Taken { .. } = s.consume(&a.id, Counter::Fills, "2026-11", 30).unwrap() {
                            taken.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        assert_eq!(taken.into_inner(), 30);
        assert_eq!(s.usage(&a.id, Counter::Fills, "2026-11").unwrap(), 30);
        assert_eq!(s.usage(&a.id, Counter::Fills, "2026-12").unwrap(), 0, "a new month starts at zero");
        assert_eq!(s.consume(&a.id, Counter::Fills, "2026-11", 30).unwrap(), Consumed::Exhausted);
        s.refund(&a.id, Counter::Fills, "2026-11").unwrap();
        assert_eq!(s.consume(&a.id, Counter::Fills, "2026-11", 30).unwrap(), Consumed::Taken { remaining: 0 });
        assert_eq!(s.consume(&a.id, Counter::Puzzles, "2026-11", -1).unwrap(), Consumed::Taken { remaining: -1 });
    }
}
