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

/// Puzzles: key the id, value the JSON [`Puzzle`].
const PUZZLES: TableDefinition<&str, &[u8]> = TableDefinition::new("crossword.puzzles");
/// An owner's puzzles: key `OWNER/ID`, value (last edit in Unix ms, status, showcase state) so
/// lists, filters and the queue count need no puzzle reads.
const OWNER_PUZZLES: TableDefinition<&str, (u64, u8, u8)> = TableDefinition::new("crossword.owner_puzzles");
/// Idempotency keys: key `OWNER` newline `KEY`, value the puzzle id (never expires).
const IDEMPOTENCY: TableDefinition<&str, &str> = TableDefinition::new("crossword.idempotency");
/// Earlier versions: key `ID/VERSION` (version zero-padded to 10 digits), value the JSON record.
const VERSIONS: TableDefinition<&str, &[u8]> = TableDefinition::new("crossword.puzzle_versions");
/// Deleted puzzle ids and when (their pages answer 410).
const DELETED: TableDefinition<&str, u64> = TableDefinition::new("crossword.deleted_puzzles");
/// Published puzzles for the public listings: key the id, value a [`PublicRow`] (JSON).
const PUBLIC: TableDefinition<&str, &[u8]> = TableDefinition::new("crossword.public_puzzles");
/// The showcase review queue: key the puzzle id, value its owner.
const SHOWCASE: TableDefinition<&str, &str> = TableDefinition::new("crossword.showcase_queue");

/// The prefix of the crossword service's tables.
const PREFIX: &str = "crossword";

/// Every table of the store: created at open, copied by backups and restores.
fn tables(t: &service_kit::db::Tables<'_>) -> Result<(), service_kit::db::DbError> {
    t.create(ACCOUNTS)?;
    t.create(KEYS)?;
    t.create(KEY_HASHES)?;
    t.create(USAGE)?;
    t.create(CLUES)?;
    t.create(PUZZLES)?;
    t.create(OWNER_PUZZLES)?;
    t.create(IDEMPOTENCY)?;
    t.create(VERSIONS)?;
    t.create(DELETED)?;
    t.create(SHOWCASE)?;
    t.create(PUBLIC)
}

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
        let db = service_kit::db::open(path, PREFIX, tables)?;
        Ok(RedbStore { db })
    }

    /// Replaces the database at `database` with the backup at `backup` (never while a server
    /// holds it).
    pub fn restore(backup: &Path, database: &Path) -> StoreResult<service_kit::db::CopyReport> {
        Ok(service_kit::db::restore(backup, PREFIX, tables, database)?)
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

fn owner_key(owner: &str, id: &str) -> String {
    format!("{owner}/{id}")
}

fn idempotency_key(owner: &str, key: &str) -> String {
    format!("{owner}\n{key}")
}

fn version_key(id: &str, version: u32) -> String {
    format!("{id}/{version:010}")
}

fn status_code(status: Status) -> u8 {
    match status {
        Status::Draft => 0,
        Status::Published => 1,
    }
}

fn showcase_code(puzzle: &Puzzle) -> u8 {
    use crossword_puzzle::ShowcaseStatus::*;
    match puzzle.showcase_status {
        None => 0,
        Some(Pending) => 1,
        Some(PreApproved) => 2,
        Some(Flagged) => 3,
        Some(Approved) => 4,
        Some(Rejected) => 5,
    }
}

fn is_queued_code(code: u8) -> bool {
    (1..=3).contains(&code)
}

/// The range of keys `PREFIX/...` (`0` sorts right after `/`).
fn prefix_range(prefix: &str) -> (String, String) {
    (format!("{prefix}/"), format!("{prefix}0"))
}

/// The first bytes of a zstd frame.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// A puzzle record as stored: its JSON, zstd-compressed (level 3; about a third of the size,
/// so several records share a 4 KiB page).
pub(super) fn encode_record(puzzle: &Puzzle) -> StoreResult<Vec<u8>> {
    let json = serde_json::to_vec(puzzle).map_err(backend)?;
    zstd::bulk::compress(&json, 3).map_err(backend)
}

/// Reads a stored record: compressed JSON, or plain JSON as the first builds wrote it.
pub(super) fn decode<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> StoreResult<T> {
    if bytes.starts_with(&ZSTD_MAGIC) {
        let json = zstd::stream::decode_all(bytes).map_err(backend)?;
        serde_json::from_slice(&json).map_err(backend)
    } else {
        serde_json::from_slice(bytes).map_err(backend)
    }
}

/// What the public listings need of a published puzzle, kept beside it.
#[derive(Serialize, Deserialize)]
struct PublicRow {
    author: String,
    language: String,
    published_at: u64,
    profile: bool,
    approved: bool,
}

/// Writes a puzzle and its owner-index row inside a write transaction.
fn put_puzzle(txn: &redb::WriteTransaction, puzzle: &Puzzle) -> StoreResult<()> {
    let bytes = encode_record(puzzle)?;
    txn.open_table(PUZZLES).map_err(backend)?.insert(puzzle.id.as_str(), bytes.as_slice()).map_err(backend)?;
    txn.open_table(OWNER_PUZZLES)
        .map_err(backend)?
        .insert(
            owner_key(&puzzle.owner, &puzzle.id).as_str(),
            (puzzle.updated_at, status_code(puzzle.status), showcase_code(puzzle)),
        )
        .map_err(backend)?;
    let mut queue = txn.open_table(SHOWCASE).map_err(backend)?;
    if puzzle.showcase_status.is_some_and(|s| s.is_queued()) {
        queue.insert(puzzle.id.as_str(), puzzle.owner.as_str()).map_err(backend)?;
    } else {
        queue.remove(puzzle.id.as_str()).map_err(backend)?;
    }
    let mut public = txn.open_table(PUBLIC).map_err(backend)?;
    if puzzle.status == Status::Published {
        let row = PublicRow {
            author: crossword_puzzle::author_slug(&puzzle.author),
            language: puzzle.language.clone(),
            published_at: puzzle.published_at.unwrap_or(puzzle.updated_at),
            profile: puzzle.show_profile,
            approved: puzzle.showcase_status == Some(crossword_puzzle::ShowcaseStatus::Approved),
        };
        let bytes = serde_json::to_vec(&row).map_err(backend)?;
        public.insert(puzzle.id.as_str(), bytes.as_slice()).map_err(backend)?;
    } else {
        public.remove(puzzle.id.as_str()).map_err(backend)?;
    }
    Ok(())
}

fn idempotent_hit_in(
    idem: &impl ReadableTable<&'static str, &'static str>,
    puzzles: &impl ReadableTable<&'static str, &'static [u8]>,
    owner: &str,
    key: &str,
) -> StoreResult<Option<IdempotentHit>> {
    let Some(id) = idem.get(idempotency_key(owner, key).as_str()).map_err(backend)? else { return Ok(None) };
    let id = id.value().to_owned();
    Ok(Some(match puzzles.get(id.as_str()).map_err(backend)? {
        Some(v) => IdempotentHit::Puzzle(Box::new(decode(v.value())?)),
        None => IdempotentHit::Deleted,
    }))
}

/// The create transaction's checks and writes; `Created::New` means commit.
fn create_in(
    txn: &redb::WriteTransaction,
    puzzle: &Puzzle,
    key: Option<&str>,
    period: &str,
    limit: i64,
) -> StoreResult<Created> {
    if let Some(key) = key {
        let idem = txn.open_table(IDEMPOTENCY).map_err(backend)?;
        let puzzles = txn.open_table(PUZZLES).map_err(backend)?;
        match idempotent_hit_in(&idem, &puzzles, &puzzle.owner, key)? {
            Some(IdempotentHit::Puzzle(p)) => return Ok(Created::Replayed(p)),
            Some(IdempotentHit::Deleted) => return Ok(Created::ReplayedDeleted),
            None => {}
        }
    }
    if txn.open_table(PUZZLES).map_err(backend)?.get(puzzle.id.as_str()).map_err(backend)?.is_some()
        || txn.open_table(DELETED).map_err(backend)?.get(puzzle.id.as_str()).map_err(backend)?.is_some()
    {
        return Ok(Created::IdTaken);
    }
    let usage = usage_key(&puzzle.owner, Counter::Puzzles, period);
    let used = {
        let mut counts = txn.open_table(USAGE).map_err(backend)?;
        let used = counts.get(usage.as_str()).map_err(backend)?.map_or(0, |v| v.value());
        if limit >= 0 && used >= limit as u64 {
            return Ok(Created::QuotaExhausted);
        }
        counts.insert(usage.as_str(), used + 1).map_err(backend)?;
        used
    };
    put_puzzle(txn, puzzle)?;
    if let Some(key) = key {
        txn.open_table(IDEMPOTENCY)
            .map_err(backend)?
            .insert(idempotency_key(&puzzle.owner, key).as_str(), puzzle.id.as_str())
            .map_err(backend)?;
    }
    Ok(Created::New { remaining: if limit < 0 { -1 } else { limit - used as i64 - 1 } })
}

/// The replace transaction's checks and writes; `Replaced::Done` means commit.
fn replace_in(
    txn: &redb::WriteTransaction,
    new: &Puzzle,
    expected_revision: u64,
    keep_history: bool,
    showcase_cap: Option<usize>,
) -> StoreResult<Replaced> {
    let old: Puzzle = {
        let t = txn.open_table(PUZZLES).map_err(backend)?;
        let value = t.get(new.id.as_str()).map_err(backend)?;
        match value {
            Some(v) => decode(v.value())?,
            None => return Ok(Replaced::NotFound),
        }
    };
    if old.revision != expected_revision {
        return Ok(Replaced::Conflict);
    }
    let joins_queue =
        new.showcase_status.is_some_and(|s| s.is_queued()) && !old.showcase_status.is_some_and(|s| s.is_queued());
    if let (true, Some(cap)) = (joins_queue, showcase_cap) {
        let queued = count_queued(txn, &old.owner)?;
        if queued >= cap {
            return Ok(Replaced::QueueFull { queued });
        }
    }
    if keep_history {
        let bytes = encode_record(&old)?;
        txn.open_table(VERSIONS)
            .map_err(backend)?
            .insert(version_key(&old.id, old.version).as_str(), bytes.as_slice())
            .map_err(backend)?;
    }
    let mut stored = new.clone();
    stored.revision = old.revision + 1;
    put_puzzle(txn, &stored)?;
    Ok(Replaced::Done)
}

fn count_queued(txn: &redb::WriteTransaction, owner: &str) -> StoreResult<usize> {
    let t = txn.open_table(OWNER_PUZZLES).map_err(backend)?;
    let (from, to) = prefix_range(owner);
    let mut queued = 0;
    for row in t.range(from.as_str()..to.as_str()).map_err(backend)? {
        let (_, v) = row.map_err(backend)?;
        if is_queued_code(v.value().2) {
            queued += 1;
        }
    }
    Ok(queued)
}

/// Sorts `(time, id)` rows newest first and reads the records of one page of them; with the
/// number of rows in all.
fn page_of(
    txn: &redb::ReadTransaction,
    mut rows: Vec<(u64, String)>,
    limit: usize,
    offset: usize,
) -> StoreResult<(Vec<Puzzle>, usize)> {
    rows.sort_by(|a, b| b.cmp(a));
    let total = rows.len();
    let puzzles = txn.open_table(PUZZLES).map_err(backend)?;
    let mut out = Vec::new();
    for (_, id) in rows.into_iter().skip(offset).take(limit) {
        if let Some(v) = puzzles.get(id.as_str()).map_err(backend)? {
            out.push(decode(v.value())?);
        }
    }
    Ok((out, total))
}

/// Commits when `done`, else aborts; passes the outcome on.
fn finish<T>(txn: redb::WriteTransaction, outcome: T, done: bool) -> StoreResult<T> {
    if done {
        txn.commit().map_err(backend)?;
    } else {
        txn.abort().map_err(backend)?;
    }
    Ok(outcome)
}

impl Store for RedbStore {
    fn backup(&self, dest: &Path) -> StoreResult<service_kit::db::CopyReport> {
        Ok(service_kit::db::backup(&self.db, PREFIX, tables, dest)?)
    }

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

    fn puzzle_by_idempotency_key(&self, owner: &str, key: &str) -> StoreResult<Option<IdempotentHit>> {
        let txn = self.db.begin_read().map_err(backend)?;
        let idem = txn.open_table(IDEMPOTENCY).map_err(backend)?;
        let puzzles = txn.open_table(PUZZLES).map_err(backend)?;
        idempotent_hit_in(&idem, &puzzles, owner, key)
    }

    fn create_puzzle(&self, puzzle: &Puzzle, key: Option<&str>, period: &str, limit: i64) -> StoreResult<Created> {
        let txn = self.db.begin_write().map_err(backend)?;
        let outcome = create_in(&txn, puzzle, key, period, limit)?;
        let done = matches!(outcome, Created::New { .. });
        finish(txn, outcome, done)
    }

    fn puzzle(&self, id: &str) -> StoreResult<Option<Puzzle>> {
        let txn = self.db.begin_read().map_err(backend)?;
        let t = txn.open_table(PUZZLES).map_err(backend)?;
        let value = t.get(id).map_err(backend)?;
        value.map(|v| decode(v.value())).transpose()
    }

    fn puzzle_deleted(&self, id: &str) -> StoreResult<bool> {
        let txn = self.db.begin_read().map_err(backend)?;
        let t = txn.open_table(DELETED).map_err(backend)?;
        Ok(t.get(id).map_err(backend)?.is_some())
    }

    fn list_puzzles(
        &self,
        owner: &str,
        status: Option<Status>,
        limit: usize,
        offset: usize,
    ) -> StoreResult<(Vec<Puzzle>, usize)> {
        let txn = self.db.begin_read().map_err(backend)?;
        let index = txn.open_table(OWNER_PUZZLES).map_err(backend)?;
        let (from, to) = prefix_range(owner);
        let mut rows: Vec<(u64, String)> = Vec::new();
        for row in index.range(from.as_str()..to.as_str()).map_err(backend)? {
            let (k, v) = row.map_err(backend)?;
            let (updated, s, _) = v.value();
            if status.is_none_or(|st| status_code(st) == s) {
                rows.push((updated, k.value()[from.len()..].to_owned()));
            }
        }
        page_of(&txn, rows, limit, offset)
    }

    fn replace_puzzle(
        &self,
        new: &Puzzle,
        expected_revision: u64,
        keep_history: bool,
        showcase_cap: Option<usize>,
    ) -> StoreResult<Replaced> {
        let txn = self.db.begin_write().map_err(backend)?;
        let outcome = replace_in(&txn, new, expected_revision, keep_history, showcase_cap)?;
        finish(txn, outcome, outcome == Replaced::Done)
    }

    fn delete_puzzle(&self, id: &str) -> StoreResult<bool> {
        let txn = self.db.begin_write().map_err(backend)?;
        let found = (|| -> StoreResult<bool> {
            let old = {
                let mut puzzles = txn.open_table(PUZZLES).map_err(backend)?;
                let removed = puzzles.remove(id).map_err(backend)?;
                removed.map(|v| decode::<Puzzle>(v.value())).transpose()?
            };
            let Some(old) = old else { return Ok(false) };
            txn.open_table(OWNER_PUZZLES)
                .map_err(backend)?
                .remove(owner_key(&old.owner, id).as_str())
                .map_err(backend)?;
            txn.open_table(SHOWCASE).map_err(backend)?.remove(id).map_err(backend)?;
            txn.open_table(PUBLIC).map_err(backend)?.remove(id).map_err(backend)?;
            let mut versions = txn.open_table(VERSIONS).map_err(backend)?;
            let (from, to) = prefix_range(id);
            versions.retain_in(from.as_str()..to.as_str(), |_, _| false).map_err(backend)?;
            txn.open_table(DELETED).map_err(backend)?.insert(id, now()).map_err(backend)?;
            Ok(true)
        })()?;
        finish(txn, found, found)
    }

    fn puzzle_versions(&self, id: &str) -> StoreResult<Vec<Puzzle>> {
        let txn = self.db.begin_read().map_err(backend)?;
        let t = txn.open_table(VERSIONS).map_err(backend)?;
        let (from, to) = prefix_range(id);
        let mut out = Vec::new();
        for row in t.range(from.as_str()..to.as_str()).map_err(backend)? {
            out.push(decode(row.map_err(backend)?.1.value())?);
        }
        Ok(out)
    }

    fn public_puzzles(&self, listing: Listing<'_>, limit: usize, offset: usize) -> StoreResult<(Vec<Puzzle>, usize)> {
        let txn = self.db.begin_read().map_err(backend)?;
        let public = txn.open_table(PUBLIC).map_err(backend)?;
        let mut rows: Vec<(u64, String)> = Vec::new();
        for row in public.iter().map_err(backend)? {
            let (id, v) = row.map_err(backend)?;
            let r: PublicRow = serde_json::from_slice(v.value()).map_err(backend)?;
            let listed = match listing {
                Listing::Author(slug) => r.profile && !slug.is_empty() && r.author == slug,
                Listing::Showcase(language) => r.approved && language.is_none_or(|l| l == r.language),
            };
            if listed {
                rows.push((r.published_at, id.value().to_owned()));
            }
        }
        page_of(&txn, rows, limit, offset)
    }

    fn showcase_queue(&self) -> StoreResult<Vec<Puzzle>> {
        let txn = self.db.begin_read().map_err(backend)?;
        let queue = txn.open_table(SHOWCASE).map_err(backend)?;
        let puzzles = txn.open_table(PUZZLES).map_err(backend)?;
        let mut out: Vec<Puzzle> = Vec::new();
        for row in queue.iter().map_err(backend)? {
            let (id, _) = row.map_err(backend)?;
            if let Some(v) = puzzles.get(id.value()).map_err(backend)? {
                out.push(decode(v.value())?);
            }
        }
        out.sort_by(|a, b| a.updated_at.cmp(&b.updated_at).then_with(|| a.id.cmp(&b.id)));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // What every backend must do is tested once for all of them in tests/store_backends.rs;
    // here only what is redb's own: the file survives a reopen, and one process holds it.

    fn store() -> (tempfile::TempDir, RedbStore) {
        let dir = tempfile::tempdir().unwrap();
        let s = RedbStore::open(&dir.path().join("crossword.redb")).unwrap();
        (dir, s)
    }

    #[test]
    fn records_survive_a_reopen() {
        let (dir, s) = store();
        let a = s.create_account(Tier::Free, Some("Ann")).unwrap();
        s.set_tier(&a.id, Tier::Patron).unwrap();
        let (secret, key) = crate::keys::new_key(&a.id, &Scope::ALL);
        s.insert_key(&key).unwrap();
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
}
