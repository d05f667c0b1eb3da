//! The multi-node store: the same [`Store`] on PostgreSQL (or a wire-compatible descendant), so
//! that several `crossword serve` processes can share accounts, keys, quotas and puzzles.
//!
//! Tables live in the `crossword` schema (the redb store's `crossword.` prefix). The schema is
//! created and upgraded at start by the versioned [`MIGRATIONS`], under a session advisory lock,
//! so two nodes starting at once apply each migration exactly once. Puzzle records are the same
//! zstd-compressed JSON as in redb; the columns beside them are what the queries filter on.
//!
//! Exactness across nodes comes from the database, never from a node: quota check-and-increment
//! is one conditional upsert; an idempotency key is a primary key whose insert waits for a
//! concurrent inserter to commit or roll back; the showcase cap counts under a per-owner
//! transaction-scoped advisory lock. Everything runs at PostgreSQL's default READ COMMITTED.
//!
//! The trait is synchronous and the driver async: the store owns a one-thread tokio runtime that
//! runs the driver and its pool, and each call waits for its answer there. On a server runtime
//! the [`super::OffRuntime`] wrapper moves that wait off the worker.

use std::future::Future;
use std::time::Duration;

use deadpool_postgres::GenericClient;
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use service_kit::keys::random_id;
use service_kit::period::unix_now as now;
use tokio_postgres::NoTls;

use super::redb_store::{decode, encode_record};
use super::*;

/// The schema's versions, oldest first: each is applied once, in its own transaction, and
/// recorded in `crossword.schema_migrations`. Append only: never edit a published entry.
pub const MIGRATIONS: &[(i32, &str, &str)] = &[
    (
        1,
        "accounts, keys, usage, clue additions, puzzles",
        "CREATE TABLE crossword.accounts (id text PRIMARY KEY, record jsonb NOT NULL);
     CREATE TABLE crossword.keys (
         id text PRIMARY KEY, account_id text NOT NULL, hash text NOT NULL UNIQUE,
         created_at bigint NOT NULL, record jsonb NOT NULL);
     CREATE INDEX keys_by_account ON crossword.keys (account_id, created_at, id);
     CREATE TABLE crossword.usage (
         account_id text NOT NULL, counter text NOT NULL, period text NOT NULL, used bigint NOT NULL,
         PRIMARY KEY (account_id, counter, period));
     CREATE TABLE crossword.clue_additions (
         language text NOT NULL, answer text NOT NULL, clues jsonb NOT NULL, PRIMARY KEY (language, answer));
     CREATE TABLE crossword.puzzles (
         id text PRIMARY KEY, owner text NOT NULL, updated_at bigint NOT NULL, status smallint NOT NULL,
         queued boolean NOT NULL, record bytea NOT NULL);
     CREATE INDEX puzzles_by_owner ON crossword.puzzles (owner, updated_at DESC, id DESC);
     CREATE INDEX puzzles_queued ON crossword.puzzles (owner) WHERE queued;
     CREATE TABLE crossword.public_puzzles (
         id text PRIMARY KEY, author text NOT NULL, language text NOT NULL, published_at bigint NOT NULL,
         profile boolean NOT NULL, approved boolean NOT NULL);
     CREATE INDEX public_by_author ON crossword.public_puzzles (author, published_at DESC) WHERE profile;
     CREATE INDEX public_showcase ON crossword.public_puzzles (published_at DESC) WHERE approved;
     CREATE TABLE crossword.idempotency (
         owner text NOT NULL, key text NOT NULL, puzzle_id text NOT NULL, PRIMARY KEY (owner, key));
     CREATE TABLE crossword.puzzle_versions (
         id text NOT NULL, version bigint NOT NULL, record bytea NOT NULL, PRIMARY KEY (id, version));
     CREATE TABLE crossword.deleted_puzzles (id text PRIMARY KEY, deleted_at bigint NOT NULL);",
    ),
    (
        2,
        "running fills shared by the nodes",
        "CREATE TABLE crossword.fill_sessions (
             account_id text NOT NULL, session_id text NOT NULL, node text NOT NULL,
             expires_at timestamptz NOT NULL, cancel_requested boolean NOT NULL DEFAULT false,
             PRIMARY KEY (account_id, session_id));
         CREATE INDEX fill_sessions_cancels ON crossword.fill_sessions (node) WHERE cancel_requested;",
    ),
];

/// The advisory lock key that serializes migrations across nodes (`crossword` in ASCII).
const MIGRATION_LOCK: i64 = 0x63_726f_7373_776f;

/// Connections per node: enough for the request workers and the blocking pool's bursts.
const POOL_SIZE: usize = 16;

/// A [`Store`] on PostgreSQL.
pub struct PgStore {
    pool: Pool,
    runtime: Option<tokio::runtime::Runtime>,
}

fn backend(e: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(e.to_string())
}

/// What a puzzle row holds besides the record.
fn queued(puzzle: &Puzzle) -> bool {
    puzzle.showcase_status.is_some_and(|s| s.is_queued())
}

fn status_code(status: Status) -> i16 {
    match status {
        Status::Draft => 0,
        Status::Published => 1,
    }
}

impl PgStore {
    /// Connects to the database at `url` (`postgres://user:password@host:port/database`, or the
    /// key=value form), and brings its schema up to date.
    pub fn connect(url: &str) -> StoreResult<PgStore> {
        let mut config: tokio_postgres::Config = url.parse().map_err(|e| backend(format!("database url: {e}")))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(10));
        }
        if config.get_application_name().is_none() {
            config.application_name("crossword");
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("postgres")
            .enable_all()
            .build()
            .map_err(backend)?;
        let manager = Manager::from_config(config, NoTls, ManagerConfig { recycling_method: RecyclingMethod::Fast });
        let pool = {
            let _entered = runtime.enter();
            Pool::builder(manager)
                .max_size(POOL_SIZE)
                .runtime(deadpool_postgres::Runtime::Tokio1)
                .wait_timeout(Some(Duration::from_secs(30)))
                .create_timeout(Some(Duration::from_secs(10)))
                .build()
                .map_err(backend)?
        };
        let store = PgStore { pool, runtime: Some(runtime) };
        store.call(|pool| async move { migrate(&pool).await })?;
        Ok(store)
    }

    /// The schema version the database is at.
    pub fn schema_version(&self) -> StoreResult<i32> {
        self.call(|pool| async move {
            let client = pool.get().await.map_err(backend)?;
            let row = client
                .query_one("SELECT coalesce(max(version), 0) FROM crossword.schema_migrations", &[])
                .await
                .map_err(backend)?;
            Ok(row.get(0))
        })
    }

    /// Runs `f` with the pool on the store's runtime and waits for its answer. Blocks the
    /// calling thread (see the module documentation).
    fn call<T, F, Fut>(&self, f: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(Pool) -> Fut,
        Fut: Future<Output = StoreResult<T>> + Send + 'static,
    {
        let Some(runtime) = &self.runtime else { return Err(backend("the store is closed")) };
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let work = f(self.pool.clone());
        runtime.spawn(async move {
            let _ = tx.send(work.await);
        });
        rx.recv().map_err(|_| backend("the database task stopped"))?
    }
}

impl Drop for PgStore {
    fn drop(&mut self) {
        self.pool.close();
        // Dropping a runtime blocks, which panics inside another runtime: let it go instead.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// Applies the missing [`MIGRATIONS`] under [`MIGRATION_LOCK`]; refuses a database whose schema
/// is newer than this build knows.
async fn migrate(pool: &Pool) -> StoreResult<()> {
    let mut client = pool.get().await.map_err(backend)?;
    client.execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK]).await.map_err(backend)?;
    let outcome = async {
        client
            .batch_execute(
                "CREATE SCHEMA IF NOT EXISTS crossword;
                 CREATE TABLE IF NOT EXISTS crossword.schema_migrations (
                     version integer PRIMARY KEY, name text NOT NULL,
                     applied_at timestamptz NOT NULL DEFAULT now());",
            )
            .await
            .map_err(backend)?;
        let row = client
            .query_one("SELECT coalesce(max(version), 0) FROM crossword.schema_migrations", &[])
            .await
            .map_err(backend)?;
        let current: i32 = row.get(0);
        let newest = MIGRATIONS.last().map_or(0, |m| m.0);
        if current > newest {
            return Err(backend(format!(
                "the database schema is at version {current}, newer than this build's {newest}: upgrade the binary"
            )));
        }
        for (version, name, sql) in MIGRATIONS.iter().filter(|m| m.0 > current) {
            let txn = client.transaction().await.map_err(backend)?;
            txn.batch_execute(sql).await.map_err(|e| backend(format!("migration {version} ({name}): {e}")))?;
            txn.execute("INSERT INTO crossword.schema_migrations (version, name) VALUES ($1, $2)", &[version, name])
                .await
                .map_err(backend)?;
            txn.commit().await.map_err(backend)?;
            tracing::info!(version, name, "database schema migrated");
        }
        Ok(())
    }
    .await;
    let unlocked = client.execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK]).await.map_err(backend);
    outcome.and(unlocked.map(|_| ()))
}

/// Takes one unit of a counter inside `client`'s transaction (or alone): one conditional upsert,
/// so concurrent callers on any node never overshoot. `None` when the limit was reached.
async fn take_unit(
    client: &impl GenericClient,
    account_id: &str,
    counter: Counter,
    period: &str,
    limit: i64,
) -> StoreResult<Option<i64>> {
    if limit == 0 {
        return Ok(None);
    }
    let row = client
        .query_opt(
            "INSERT INTO crossword.usage AS u (account_id, counter, period, used) VALUES ($1, $2, $3, 1)
             ON CONFLICT (account_id, counter, period) DO UPDATE SET used = u.used + 1
             WHERE $4::bigint < 0 OR u.used < $4::bigint
             RETURNING used",
            &[&account_id, &counter.as_str(), &period, &limit],
        )
        .await
        .map_err(backend)?;
    Ok(row.map(|r| r.get::<_, i64>(0)))
}

fn remaining_after(limit: i64, used: i64) -> i64 {
    if limit < 0 {
        -1
    } else {
        limit - used
    }
}

/// Writes a puzzle row and its public-listing row (insert or overwrite).
async fn put_puzzle(client: &impl GenericClient, puzzle: &Puzzle) -> StoreResult<()> {
    let record = encode_record(puzzle)?;
    client
        .execute(
            "INSERT INTO crossword.puzzles (id, owner, updated_at, status, queued, record)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (id) DO UPDATE SET owner = EXCLUDED.owner, updated_at = EXCLUDED.updated_at,
                 status = EXCLUDED.status, queued = EXCLUDED.queued, record = EXCLUDED.record",
            &[
                &puzzle.id,
                &puzzle.owner,
                &(puzzle.updated_at as i64),
                &status_code(puzzle.status),
                &queued(puzzle),
                &record,
            ],
        )
        .await
        .map_err(backend)?;
    if puzzle.status == Status::Published {
        let approved = puzzle.showcase_status == Some(crossword_puzzle::ShowcaseStatus::Approved);
        client
            .execute(
                "INSERT INTO crossword.public_puzzles (id, author, language, published_at, profile, approved)
                 VALUES ($1, $2, $3, $4, $5, $6)
                 ON CONFLICT (id) DO UPDATE SET author = EXCLUDED.author, language = EXCLUDED.language,
                     published_at = EXCLUDED.published_at, profile = EXCLUDED.profile, approved = EXCLUDED.approved",
                &[
                    &puzzle.id,
                    &crossword_puzzle::author_slug(&puzzle.author),
                    &puzzle.language,
                    &(puzzle.published_at.unwrap_or(puzzle.updated_at) as i64),
                    &puzzle.show_profile,
                    &approved,
                ],
            )
            .await
            .map_err(backend)?;
    } else {
        client.execute("DELETE FROM crossword.public_puzzles WHERE id = $1", &[&puzzle.id]).await.map_err(backend)?;
    }
    Ok(())
}

async fn idempotent_hit(client: &impl GenericClient, owner: &str, key: &str) -> StoreResult<Option<IdempotentHit>> {
    let row = client
        .query_opt(
            "SELECT p.record FROM crossword.idempotency i
             LEFT JOIN crossword.puzzles p ON p.id = i.puzzle_id
             WHERE i.owner = $1 AND i.key = $2",
            &[&owner, &key],
        )
        .await
        .map_err(backend)?;
    Ok(match row {
        None => None,
        Some(row) => match row.get::<_, Option<Vec<u8>>>(0) {
            Some(bytes) => Some(IdempotentHit::Puzzle(Box::new(decode(&bytes)?))),
            None => Some(IdempotentHit::Deleted),
        },
    })
}

/// A key from a `(record, hash)` row: the hash is kept in its own column, not in the record.
fn key_from_row(row: &tokio_postgres::Row) -> StoreResult<ApiKey> {
    let mut key: ApiKey = serde_json::from_value(row.get(0)).map_err(backend)?;
    key.hash = row.get(1);
    Ok(key)
}

/// Decodes the `record` column of each row.
fn records(rows: &[tokio_postgres::Row]) -> StoreResult<Vec<Puzzle>> {
    rows.iter().map(|r| decode(r.get::<_, &[u8]>(0))).collect()
}

impl Store for PgStore {
    fn create_account(&self, tier: Tier, name: Option<&str>) -> StoreResult<Account> {
        let account = Account { id: random_id("acct_"), tier, name: name.map(str::to_owned), created_at: now() };
        let record = serde_json::to_value(&account).map_err(backend)?;
        let id = account.id.clone();
        self.call(|pool| async move {
            let client = pool.get().await.map_err(backend)?;
            client
                .execute("INSERT INTO crossword.accounts (id, record) VALUES ($1, $2)", &[&id, &record])
                .await
                .map_err(backend)?;
            Ok(())
        })?;
        Ok(account)
    }

    fn account(&self, id: &str) -> StoreResult<Option<Account>> {
        let id = id.to_owned();
        self.call(|pool| async move {
            let client = pool.get().await.map_err(backend)?;
            let row = client
                .query_opt("SELECT record FROM crossword.accounts WHERE id = $1", &[&id])
                .await
                .map_err(backend)?;
            row.map(|r| serde_json::from_value(r.get(0)).map_err(backend)).transpose()
        })
    }

    fn set_tier(&self, id: &str, tier: Tier) -> StoreResult<Account> {
        let id = id.to_owned();
        self.call(|pool| async move {
            let mut client = pool.get().await.map_err(backend)?;
            let txn = client.transaction().await.map_err(backend)?;
            let Some(row) = txn
                .query_opt("SELECT record FROM crossword.accounts WHERE id = $1 FOR UPDATE", &[&id])
                .await
                .map_err(backend)?
            else {
                return Err(StoreError::NotFound(format!("account {id}")));
            };
            let mut account: Account = serde_json::from_value(row.get(0)).map_err(backend)?;
            account.tier = tier;
            let record = serde_json::to_value(&account).map_err(backend)?;
            txn.execute("UPDATE crossword.accounts SET record = $2 WHERE id = $1", &[&id, &record])
                .await
                .map_err(backend)?;
            txn.commit().await.map_err(backend)?;
            Ok(account)
        })
    }

    fn insert_key(&self, key: &ApiKey) -> StoreResult<()> {
        // The hash is not serialized with the public record: it has its own column.
        let record = serde_json::to_value(key).map_err(backend)?;
        let key = key.clone();
        self.call(|pool| async move {
            let client = pool.get().await.map_err(backend)?;
            let inserted = client
                .execute(
                    "INSERT INTO crossword.keys (id, account_id, hash, created_at, record)
                     SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM crossword.accounts WHERE id = $2)",
                    &[&key.id, &key.account_id, &key.hash, &(key.created_at as i64), &record],
                )
                .await
                .map_err(backend)?;
            if inserted == 0 {
                return Err(StoreError::NotFound(format!("account {}", key.account_id)));
            }
            Ok(())
        })
    }

    fn key_by_hash(&self, hash: &str) -> StoreResult<Option<ApiKey>> {
        let hash = hash.to_owned();
        self.call(|pool| async move {
            let client = pool.get().await.map_err(backend)?;
            let row = client
                .query_opt("SELECT record, hash FROM crossword.keys WHERE hash = $1", &[&hash])
                .await
                .map_err(backend)?;
            row.map(|r| key_from_row(&r)).transpose()
        })
    }

    fn revoke_key(&self, key_id: &str) -> StoreResult<ApiKey> {
        let key_id = key_id.to_owned();
        self.call(|pool| async move {
            let client = pool.get().await.map_err(backend)?;
            // Only the first revocation sets the time.
            let row = client
                .query_opt(
                    "UPDATE crossword.keys SET record = CASE
                         WHEN record->'revokedAt' IS NULL OR record->'revokedAt' = 'null'::jsonb
                         THEN jsonb_set(record, '{revokedAt}', to_jsonb($2::bigint)) ELSE record END
                     WHERE id = $1 RETURNING record, hash",
                    &[&key_id, &(now() as i64)],
                )
                .await
                .map_err(backend)?;
            let Some(row) = row else { return Err(StoreError::NotFound(format!("key {key_id}"))) };
            key_from_row(&row)
        })
    }

    fn keys_of(&self, account_id: &str) -> StoreResult<Vec<ApiKey>> {
        let account_id = account_id.to_owned();
        self.call(|pool| async move {
            let client = pool.get().await.map_err(backend)?;
            let rows = client
                .query(
                    "SELECT record, hash FROM crossword.keys WHERE account_id = $1 ORDER BY created_at, id",
                    &[&account_id],
                )
                .await
                .map_err(backend)?;
            rows.iter().map(key_from_row).collect()
        })
    }

    fn consume(&self, account_id: &str, counter: Counter, period: &str, limit: i64) -> StoreResult<Consumed> {
        let (account_id, period) = (account_id.to_owned(), period.to_owned());
        self.call(|pool| async move {
            let client = pool.get().await.map_err(backend)?;
            Ok(match take_unit(&client, &account_id, counter, &period, limit).await? {
                Some(used) => Consumed::Taken { remaining: remaining_after(limit, used) },
                None => Consumed::Exhausted,
            })
        })
    }

    fn refund(&self, account_id: &str, counter: Counter, period: &str) -> StoreResult<()> {
        let (account_id, period) = (account_id.to_owned(), period.to_owned());
        self.call(|pool| async move {
            let client = pool.get().await.map_err(backend)?;
            client
                .execute(
                    "UPDATE crossword.usage SET used = greatest(used - 1, 0)
                     WHERE account_id = $1 AND counter = $2 AND period = $3",
                    &[&account_id, &counter.as_str(), &period],
                )
                .await
                .map_err(backend)?;
            Ok(())
        })
    }

    fn usage(&self, account_id: &str, counter: Counter, period: &str) -> StoreResult<u64> {
        let (account_id, period) = (account_id.to_owned(), period.to_owned());
        self.call(|pool| async move {
            let client = pool.get().await.map_err(backend)?;
            let row = client
                .query_opt(
                    "SELECT used FROM crossword.usage WHERE account_id = $1 AND counter = $2 AND period = $3",
                    &[&account_id, &counter.as_str(), &period],
                )
                .await
                .map_err(backend)?;
            Ok(row.map_or(0, |r| r.get::<_, i64>(0).max(0) as u64))
        })
    }

    fn clue_additions(&self, language: &str, answers: &[&str]) -> StoreResult<Vec<Vec<StoredClue>>> {
        let language = language.to_owned();
        let answers: Vec<String> = answers.iter().map(|a| (*a).to_owned()).collect();
        self.call(|pool| async move {
            let client = pool.get().await.map_err(backend)?;
            let rows = client
                .query(
                    "SELECT answer, clues FROM crossword.clue_additions WHERE language = $1 AND answer = ANY($2)",
                    &[&language, &answers],
                )
                .await
                .map_err(backend)?;
            let mut found = ahash::AHashMap::with_capacity(rows.len());
            for row in rows {
                let clues: Vec<StoredClue> = serde_json::from_value(row.get(1)).map_err(backend)?;
                found.insert(row.get::<_, String>(0), clues);
            }
            Ok(answers.iter().map(|a| found.get(a).cloned().unwrap_or_default()).collect())
        })
    }

    fn add_clue(&self, language: &str, answer: &str, text: &str, source: Source) -> StoreResult<()> {
        use crossword_clues::dedupe_key;
        let (language, answer, text) = (language.to_owned(), answer.to_owned(), text.to_owned());
        self.call(|pool| async move {
            let mut client = pool.get().await.map_err(backend)?;
            let txn = client.transaction().await.map_err(backend)?;
            txn.execute(
                "INSERT INTO crossword.clue_additions (language, answer, clues) VALUES ($1, $2, '[]')
                 ON CONFLICT DO NOTHING",
                &[&language, &answer],
            )
            .await
            .map_err(backend)?;
            let row = txn
                .query_one(
                    "SELECT clues FROM crossword.clue_additions WHERE language = $1 AND answer = $2 FOR UPDATE",
                    &[&language, &answer],
                )
                .await
                .map_err(backend)?;
            let mut list: Vec<StoredClue> = serde_json::from_value(row.get(0)).map_err(backend)?;
            let wanted = dedupe_key(&text);
            match list.iter_mut().find(|c| c.source == source && dedupe_key(&c.text) == wanted) {
                Some(c) => c.count = c.count.saturating_add(1),
                None => list.push(StoredClue { text, source, count: 1 }),
            }
            let clues = serde_json::to_value(&list).map_err(backend)?;
            txn.execute(
                "UPDATE crossword.clue_additions SET clues = $3 WHERE language = $1 AND answer = $2",
                &[&language, &answer, &clues],
            )
            .await
            .map_err(backend)?;
            txn.commit().await.map_err(backend)
        })
    }

    fn puzzle_by_idempotency_key(&self, owner: &str, key: &str) -> StoreResult<Option<IdempotentHit>> {
        let (owner, key) = (owner.to_owned(), key.to_owned());
        self.call(|pool| async move {
            let client = pool.get().await.map_err(backend)?;
            idempotent_hit(&client, &owner, &key).await
        })
    }

    fn create_puzzle(&self, puzzle: &Puzzle, key: Option<&str>, period: &str, limit: i64) -> StoreResult<Created> {
        let (puzzle, key, period) = (puzzle.clone(), key.map(str::to_owned), period.to_owned());
        self.call(|pool| async move {
            let mut client = pool.get().await.map_err(backend)?;
            let txn = client.transaction().await.map_err(backend)?;
            if let Some(key) = &key {
                // Waits for a concurrent transaction holding the same key to end, then either
                // claims the key or finds it taken.
                let claimed = txn
                    .execute(
                        "INSERT INTO crossword.idempotency (owner, key, puzzle_id) VALUES ($1, $2, $3)
                         ON CONFLICT DO NOTHING",
                        &[&puzzle.owner, key, &puzzle.id],
                    )
                    .await
                    .map_err(backend)?;
                if claimed == 0 {
                    txn.rollback().await.map_err(backend)?;
                    return match idempotent_hit(&client, &puzzle.owner, key).await? {
                        Some(IdempotentHit::Puzzle(p)) => Ok(Created::Replayed(p)),
                        Some(IdempotentHit::Deleted) | None => Ok(Created::ReplayedDeleted),
                    };
                }
            }
            let taken = txn
                .query_opt(
                    "SELECT 1 FROM crossword.puzzles WHERE id = $1
                     UNION ALL SELECT 1 FROM crossword.deleted_puzzles WHERE id = $1",
                    &[&puzzle.id],
                )
                .await
                .map_err(backend)?;
            if taken.is_some() {
                txn.rollback().await.map_err(backend)?;
                return Ok(Created::IdTaken);
            }
            let Some(used) = take_unit(&txn, &puzzle.owner, Counter::Puzzles, &period, limit).await? else {
                txn.rollback().await.map_err(backend)?;
                return Ok(Created::QuotaExhausted);
            };
            put_puzzle(&txn, &puzzle).await?;
            txn.commit().await.map_err(backend)?;
            Ok(Created::New { remaining: remaining_after(limit, used) })
        })
    }

    fn puzzle(&self, id: &str) -> StoreResult<Option<Puzzle>> {
        let id = id.to_owned();
        self.call(|pool| async move {
            let client = pool.get().await.map_err(backend)?;
            let rows =
                client.query("SELECT record FROM crossword.puzzles WHERE id = $1", &[&id]).await.map_err(backend)?;
            Ok(records(&rows)?.pop())
        })
    }

    fn puzzle_deleted(&self, id: &str) -> StoreResult<bool> {
        let id = id.to_owned();
        self.call(|pool| async move {
            let client = pool.get().await.map_err(backend)?;
            let row = client
                .query_opt("SELECT 1 FROM crossword.deleted_puzzles WHERE id = $1", &[&id])
                .await
                .map_err(backend)?;
            Ok(row.is_some())
        })
    }

    fn list_puzzles(
        &self,
        owner: &str,
        status: Option<Status>,
        limit: usize,
        offset: usize,
    ) -> StoreResult<(Vec<Puzzle>, usize)> {
        let owner = owner.to_owned();
        let status = status.map(status_code);
        let (limit, offset) = (limit.min(i64::MAX as usize) as i64, offset.min(i64::MAX as usize) as i64);
        self.call(|pool| async move {
            let client = pool.get().await.map_err(backend)?;
            let filter = "owner = $1 AND ($2::smallint IS NULL OR status = $2)";
            let total: i64 = client
                .query_one(&format!("SELECT count(*) FROM crossword.puzzles WHERE {filter}"), &[&owner, &status])
                .await
                .map_err(backend)?
                .get(0);
            let rows = client
                .query(
                    &format!(
                        "SELECT record FROM crossword.puzzles WHERE {filter}
                         ORDER BY updated_at DESC, id DESC LIMIT $3 OFFSET $4"
                    ),
                    &[&owner, &status, &limit, &offset],
                )
                .await
                .map_err(backend)?;
            Ok((records(&rows)?, total as usize))
        })
    }

    fn replace_puzzle(
        &self,
        new: &Puzzle,
        expected_revision: u64,
        keep_history: bool,
        showcase_cap: Option<usize>,
    ) -> StoreResult<Replaced> {
        let new = new.clone();
        self.call(|pool| async move {
            let mut client = pool.get().await.map_err(backend)?;
            let txn = client.transaction().await.map_err(backend)?;
            let Some(row) = txn
                .query_opt("SELECT record FROM crossword.puzzles WHERE id = $1 FOR UPDATE", &[&new.id])
                .await
                .map_err(backend)?
            else {
                return Ok(Replaced::NotFound);
            };
            let old: Puzzle = decode(row.get::<_, &[u8]>(0))?;
            if old.revision != expected_revision {
                return Ok(Replaced::Conflict);
            }
            if let (true, Some(cap)) = (queued(&new) && !queued(&old), showcase_cap) {
                // One owner's queue joins are serialized across nodes by this lock.
                txn.execute(
                    "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
                    &[&format!("showcase/{}", old.owner)],
                )
                .await
                .map_err(backend)?;
                let count: i64 = txn
                    .query_one("SELECT count(*) FROM crossword.puzzles WHERE owner = $1 AND queued", &[&old.owner])
                    .await
                    .map_err(backend)?
                    .get(0);
                if count as usize >= cap {
                    return Ok(Replaced::QueueFull { queued: count as usize });
                }
            }
            if keep_history {
                let record = encode_record(&old)?;
                txn.execute(
                    "INSERT INTO crossword.puzzle_versions (id, version, record) VALUES ($1, $2, $3)
                     ON CONFLICT (id, version) DO UPDATE SET record = EXCLUDED.record",
                    &[&old.id, &i64::from(old.version), &record],
                )
                .await
                .map_err(backend)?;
            }
            let mut stored = new;
            stored.revision = old.revision + 1;
            put_puzzle(&txn, &stored).await?;
            txn.commit().await.map_err(backend)?;
            Ok(Replaced::Done)
        })
    }

    fn delete_puzzle(&self, id: &str) -> StoreResult<bool> {
        let id = id.to_owned();
        self.call(|pool| async move {
            let mut client = pool.get().await.map_err(backend)?;
            let txn = client.transaction().await.map_err(backend)?;
            let removed = txn.execute("DELETE FROM crossword.puzzles WHERE id = $1", &[&id]).await.map_err(backend)?;
            if removed == 0 {
                return Ok(false);
            }
            txn.execute("DELETE FROM crossword.public_puzzles WHERE id = $1", &[&id]).await.map_err(backend)?;
            txn.execute("DELETE FROM crossword.puzzle_versions WHERE id = $1", &[&id]).await.map_err(backend)?;
            txn.execute(
                "INSERT INTO crossword.deleted_puzzles (id, deleted_at) VALUES ($1, $2)
                 ON CONFLICT (id) DO UPDATE SET deleted_at = EXCLUDED.deleted_at",
                &[&id, &(now() as i64)],
            )
            .await
            .map_err(backend)?;
            txn.commit().await.map_err(backend)?;
            Ok(true)
        })
    }

    fn puzzle_versions(&self, id: &str) -> StoreResult<Vec<Puzzle>> {
        let id = id.to_owned();
        self.call(|pool| async move {
            let client = pool.get().await.map_err(backend)?;
            let rows = client
                .query("SELECT record FROM crossword.puzzle_versions WHERE id = $1 ORDER BY version", &[&id])
                .await
                .map_err(backend)?;
            records(&rows)
        })
    }

    fn showcase_queue(&self) -> StoreResult<Vec<Puzzle>> {
        self.call(|pool| async move {
            let client = pool.get().await.map_err(backend)?;
            let rows = client
                .query("SELECT record FROM crossword.puzzles WHERE queued ORDER BY updated_at, id", &[])
                .await
                .map_err(backend)?;
            records(&rows)
        })
    }

    fn public_puzzles(&self, listing: Listing<'_>, limit: usize, offset: usize) -> StoreResult<(Vec<Puzzle>, usize)> {
        let (filter, value): (&'static str, Option<String>) = match listing {
            Listing::Author("") => return Ok((Vec::new(), 0)),
            Listing::Author(slug) => ("l.profile AND l.author = $1", Some(slug.to_owned())),
            Listing::Showcase(language) => {
                ("l.approved AND ($1::text IS NULL OR l.language = $1)", language.map(str::to_owned))
            }
        };
        let (limit, offset) = (limit.min(i64::MAX as usize) as i64, offset.min(i64::MAX as usize) as i64);
        self.call(|pool| async move {
            let client = pool.get().await.map_err(backend)?;
            let total: i64 = client
                .query_one(&format!("SELECT count(*) FROM crossword.public_puzzles l WHERE {filter}"), &[&value])
                .await
                .map_err(backend)?
                .get(0);
            let rows = client
                .query(
                    &format!(
                        "SELECT p.record FROM crossword.public_puzzles l JOIN crossword.puzzles p ON p.id = l.id
                         WHERE {filter} ORDER BY l.published_at DESC, l.id DESC LIMIT $2 OFFSET $3"
                    ),
                    &[&value, &limit, &offset],
                )
                .await
                .map_err(backend)?;
            Ok((records(&rows)?, total as usize))
        })
    }

    fn fill_sessions(&self) -> Option<&dyn FillSessions> {
        Some(self)
    }

    fn backup(&self, _dest: &std::path::Path) -> StoreResult<service_kit::db::CopyReport> {
        Err(backend(
            "on PostgreSQL, back up the database with its own tools (pg_dump, or continuous archiving); \
             see docs/DEPLOYMENT.md",
        ))
    }
}

impl FillSessions for PgStore {
    fn claim(&self, account: &str, session: &str, node: &str, limit: u32, lease_secs: u64) -> StoreResult<FillClaim> {
        let (account, session, node) = (account.to_owned(), session.to_owned(), node.to_owned());
        self.call(|pool| async move {
            let mut client = pool.get().await.map_err(backend)?;
            let txn = client.transaction().await.map_err(backend)?;
            // One account's claims are serialized across nodes by this lock.
            txn.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", &[&format!("fills/{account}")])
                .await
                .map_err(backend)?;
            txn.execute(
                "DELETE FROM crossword.fill_sessions WHERE account_id = $1 AND expires_at < now()",
                &[&account],
            )
            .await
            .map_err(backend)?;
            let rows = txn
                .query("SELECT session_id FROM crossword.fill_sessions WHERE account_id = $1", &[&account])
                .await
                .map_err(backend)?;
            if rows.iter().any(|r| r.get::<_, &str>(0) == session) {
                return Ok(FillClaim::SessionTaken);
            }
            if rows.len() >= limit as usize {
                return Ok(FillClaim::Busy { running: rows.len() as u32 });
            }
            txn.execute(
                "INSERT INTO crossword.fill_sessions (account_id, session_id, node, expires_at)
                 VALUES ($1, $2, $3, now() + make_interval(secs => $4))",
                &[&account, &session, &node, &(lease_secs as f64)],
            )
            .await
            .map_err(backend)?;
            txn.commit().await.map_err(backend)?;
            Ok(FillClaim::Claimed)
        })
    }

    fn release(&self, account: &str, session: &str) -> StoreResult<()> {
        let (account, session) = (account.to_owned(), session.to_owned());
        self.call(|pool| async move {
            let client = pool.get().await.map_err(backend)?;
            client
                .execute(
                    "DELETE FROM crossword.fill_sessions WHERE account_id = $1 AND session_id = $2",
                    &[&account, &session],
                )
                .await
                .map_err(backend)?;
            Ok(())
        })
    }

    fn request_cancel(&self, account: &str, session: &str) -> StoreResult<bool> {
        let (account, session) = (account.to_owned(), session.to_owned());
        self.call(|pool| async move {
            let client = pool.get().await.map_err(backend)?;
            let asked = client
                .execute(
                    "UPDATE crossword.fill_sessions SET cancel_requested = true
                     WHERE account_id = $1 AND session_id = $2 AND expires_at >= now()",
                    &[&account, &session],
                )
                .await
                .map_err(backend)?;
            Ok(asked > 0)
        })
    }

    fn cancels_for(&self, node: &str) -> StoreResult<Vec<(String, String)>> {
        let node = node.to_owned();
        self.call(|pool| async move {
            let client = pool.get().await.map_err(backend)?;
            let rows = client
                .query(
                    "SELECT account_id, session_id FROM crossword.fill_sessions WHERE node = $1 AND cancel_requested",
                    &[&node],
                )
                .await
                .map_err(backend)?;
            Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
        })
    }
}
