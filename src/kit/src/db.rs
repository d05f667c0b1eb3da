//! Opening a service's redb database.
//!
//! Each service keeps its tables under its own prefix (`crossword.accounts`, `covers.designs`),
//! so two services could share one file without meeting. [`open`] creates every table up front
//! (readers never meet a missing one) and refuses a table outside the prefix. redb commits with
//! immediate durability and runs one write transaction at a time, so an acknowledged write
//! survives a crash and a check-and-increment inside one transaction is exact.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use redb::{Database, ReadTransaction, ReadableDatabase, ReadableTable, TableDefinition, WriteTransaction};

/// Why a database could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// The file is held by another process (a running server).
    #[error("the database is in use by another process (is the server running?)")]
    Locked,
    /// Anything else.
    #[error("storage: {0}")]
    Backend(String),
}

/// A service's list of tables, walked for one purpose: created while the database opens, or
/// copied into another file (backup and restore). A service writes its list once, as a
/// function of `&Tables`, and every purpose uses it.
pub struct Tables<'t> {
    mode: Mode<'t>,
    prefix: &'static str,
}

enum Mode<'t> {
    Create(&'t WriteTransaction),
    Copy { from: &'t ReadTransaction, to: &'t WriteTransaction, copied: &'t RefCell<Vec<(String, u64)>> },
}

impl Tables<'_> {
    /// Names `table` (its name must be `{prefix}.something`): creates it if it does not exist,
    /// or copies every row of it.
    pub fn create<K: redb::Key + 'static, V: redb::Value + 'static>(
        &self,
        table: TableDefinition<'_, K, V>,
    ) -> Result<(), DbError> {
        let name = redb::TableHandle::name(&table);
        if !name.strip_prefix(self.prefix).is_some_and(|rest| rest.len() > 1 && rest.starts_with('.')) {
            return Err(DbError::Backend(format!("table {name:?} is outside the {:?} prefix", self.prefix)));
        }
        match &self.mode {
            Mode::Create(txn) => txn.open_table(table).map(drop).map_err(backend),
            Mode::Copy { from, to, copied } => {
                let mut target = to.open_table(table).map_err(backend)?;
                let mut rows = 0u64;
                match from.open_table(table) {
                    Ok(source) => {
                        for row in source.iter().map_err(backend)? {
                            let (k, v) = row.map_err(backend)?;
                            target.insert(k.value(), v.value()).map_err(backend)?;
                            rows += 1;
                        }
                    }
                    // A table added by a later version: empty in the copy.
                    Err(redb::TableError::TableDoesNotExist(_)) => {}
                    Err(e) => return Err(backend(e)),
                }
                copied.borrow_mut().push((name.to_owned(), rows));
                Ok(())
            }
        }
    }
}

fn backend(e: impl std::fmt::Display) -> DbError {
    DbError::Backend(e.to_string())
}

/// redb's page cache: enough for the hot records of a small site, and a bounded share of a
/// small VM's memory (redb's own default is 1 GiB).
pub const CACHE_BYTES: usize = 64 << 20;

/// Opens (or creates) the database at `path` with a [`CACHE_BYTES`] page cache; `create` makes
/// the service's tables, each named `{prefix}.something`, in the first write transaction.
pub fn open(
    path: &Path,
    prefix: &'static str,
    create: impl FnOnce(&Tables<'_>) -> Result<(), DbError>,
) -> Result<Database, DbError> {
    let db = match Database::builder().set_cache_size(CACHE_BYTES).create(path) {
        Ok(db) => db,
        Err(redb::DatabaseError::DatabaseAlreadyOpen) => return Err(DbError::Locked),
        Err(e) => return Err(DbError::Backend(e.to_string())),
    };
    let txn = db.begin_write().map_err(|e| DbError::Backend(e.to_string()))?;
    create(&Tables { mode: Mode::Create(&txn), prefix })?;
    txn.commit().map_err(|e| DbError::Backend(e.to_string()))?;
    Ok(db)
}

/// What a backup or restore copied: each table with its row count.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CopyReport {
    /// The file written.
    pub path: PathBuf,
    /// `(table, rows)` in the service's order.
    pub tables: Vec<(String, u64)>,
    /// Size of the file written, in bytes.
    pub bytes: u64,
}

/// Copies every table of `tables` from `db` into a new database file at `dest`, from one read
/// transaction: a consistent snapshot, taken while writers go on (they are not blocked). The
/// copy is written beside `dest` and renamed into place only when complete and durable, so
/// `dest` is never half-written; an existing `dest` is refused.
pub fn backup(
    db: &Database,
    prefix: &'static str,
    tables: impl Fn(&Tables<'_>) -> Result<(), DbError>,
    dest: &Path,
) -> Result<CopyReport, DbError> {
    let from = db.begin_read().map_err(backend)?;
    copy_into(&from, prefix, tables, dest)
}

/// Restores a backup made by [`backup`] as the database at `database`: the backup is opened
/// and checked (every table of the service, with its key and value types), copied beside
/// `database`, and renamed over it. Refused with [`DbError::Locked`] while a server holds the
/// database, which stays locked by this call until the rename, so no server opens the old file
/// in between.
pub fn restore(
    backup: &Path,
    prefix: &'static str,
    tables: impl Fn(&Tables<'_>) -> Result<(), DbError>,
    database: &Path,
) -> Result<CopyReport, DbError> {
    if !backup.is_file() {
        return Err(DbError::Backend(format!("{}: no such file", backup.display())));
    }
    // Hold the live file (if any) so that no server starts on it mid-restore.
    let _held = if database.exists() {
        match Database::builder().set_cache_size(1 << 20).open(database) {
            Ok(db) => Some(db),
            Err(redb::DatabaseError::DatabaseAlreadyOpen) => return Err(DbError::Locked),
            // A damaged live file is what a restore is for: replace it.
            Err(_) => None,
        }
    } else {
        None
    };
    let source = Database::builder()
        .open_read_only(backup)
        .map_err(|e| DbError::Backend(format!("{}: not a readable database backup ({e})", backup.display())))?;
    let from = source.begin_read().map_err(backend)?;
    let partial = partial_path(database);
    let _ = std::fs::remove_file(&partial);
    let report = copy_into(&from, prefix, &tables, &partial)?;
    drop(from);
    drop(source);
    std::fs::rename(&partial, database).map_err(backend)?;
    sync_parent(database);
    Ok(CopyReport { path: database.to_owned(), ..report })
}

/// The temporary name a copy is written under before its rename to `path`.
fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".partial");
    path.with_file_name(name)
}

fn sync_parent(path: &Path) {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
    }
}

fn copy_into(
    from: &ReadTransaction,
    prefix: &'static str,
    tables: impl Fn(&Tables<'_>) -> Result<(), DbError>,
    dest: &Path,
) -> Result<CopyReport, DbError> {
    if dest.exists() {
        return Err(DbError::Backend(format!("{} exists; choose a new file", dest.display())));
    }
    let partial = partial_path(dest);
    let _ = std::fs::remove_file(&partial);
    let result = (|| {
        let db = Database::builder().set_cache_size(CACHE_BYTES).create(&partial).map_err(backend)?;
        let to = db.begin_write().map_err(backend)?;
        let copied = RefCell::new(Vec::new());
        tables(&Tables { mode: Mode::Copy { from, to: &to, copied: &copied }, prefix })?;
        to.commit().map_err(backend)?;
        drop(db);
        std::fs::File::open(&partial).and_then(|f| f.sync_all()).map_err(backend)?;
        Ok::<_, DbError>(copied.into_inner())
    })();
    let tables = match result {
        Ok(t) => t,
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            return Err(e);
        }
    };
    std::fs::rename(&partial, dest).map_err(backend)?;
    sync_parent(dest);
    let bytes = std::fs::metadata(dest).map(|m| m.len()).unwrap_or(0);
    Ok(CopyReport { path: dest.to_owned(), tables, bytes })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: TableDefinition<&str, u64> = TableDefinition::new("demo.counts");
    const STRAY: TableDefinition<&str, u64> = TableDefinition::new("other.counts");

    #[test]
    fn tables_must_carry_the_prefix_and_the_file_is_exclusive() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("demo.redb");
        assert!(matches!(open(&path, "demo", |t| t.create(STRAY)), Err(DbError::Backend(_))));
        let db = open(&path, "demo", |t| t.create(GOOD)).unwrap();
        let read = db.begin_read().unwrap();
        assert!(read.open_table(GOOD).is_ok(), "created up front");
        assert!(matches!(open(&path, "demo", |t| t.create(GOOD)), Err(DbError::Locked)));
    }

    const NAMES: TableDefinition<&str, &[u8]> = TableDefinition::new("demo.names");

    fn demo_tables(t: &Tables<'_>) -> Result<(), DbError> {
        t.create(GOOD)?;
        t.create(NAMES)
    }

    fn put(db: &Database, key: &str, n: u64) {
        let txn = db.begin_write().unwrap();
        txn.open_table(GOOD).unwrap().insert(key, n).unwrap();
        txn.open_table(NAMES).unwrap().insert(key, key.as_bytes()).unwrap();
        txn.commit().unwrap();
    }

    #[test]
    fn backup_is_a_snapshot_and_restore_brings_it_back() {
        let dir = tempfile::tempdir().unwrap();
        let live = dir.path().join("demo.redb");
        let copy = dir.path().join("backup.redb");
        let db = open(&live, "demo", demo_tables).unwrap();
        put(&db, "a", 1);
        put(&db, "b", 2);
        let report = backup(&db, "demo", demo_tables, &copy).unwrap();
        assert_eq!(report.tables, [("demo.counts".to_owned(), 2), ("demo.names".to_owned(), 2)]);
        assert!(report.bytes > 0 && !partial_path(&copy).exists());
        assert!(backup(&db, "demo", demo_tables, &copy).is_err(), "an existing file is never overwritten");

        put(&db, "c", 3);
        assert!(matches!(restore(&copy, "demo", demo_tables, &live), Err(DbError::Locked)), "not under a server");
        drop(db);
        let restored = restore(&copy, "demo", demo_tables, &live).unwrap();
        assert_eq!(restored.tables, report.tables);
        let db = open(&live, "demo", demo_tables).unwrap();
        let read = db.begin_read().unwrap();
        let counts = read.open_table(GOOD).unwrap();
        assert_eq!(counts.get("b").unwrap().unwrap().value(), 2);
        assert!(counts.get("c").unwrap().is_none(), "written after the backup");
    }

    #[test]
    fn restore_refuses_a_file_that_is_not_a_backup_and_leaves_the_database_alone() {
        let dir = tempfile::tempdir().unwrap();
        let live = dir.path().join("demo.redb");
        let db = open(&live, "demo", demo_tables).unwrap();
        put(&db, "a", 1);
        drop(db);
        let junk = dir.path().join("junk.redb");
        std::fs::write(&junk, b"not a database at all").unwrap();
        assert!(restore(&junk, "demo", demo_tables, &live).is_err());
        // A backup whose table has other types is refused too.
        const WRONG: TableDefinition<&str, &str> = TableDefinition::new("demo.counts");
        let other = dir.path().join("other.redb");
        open(&other, "demo", |t| t.create(WRONG)).unwrap();
        assert!(restore(&other, "demo", demo_tables, &live).is_err());
        let db = open(&live, "demo", demo_tables).unwrap();
        let read = db.begin_read().unwrap();
        assert_eq!(read.open_table(GOOD).unwrap().get("a").unwrap().unwrap().value(), 1);
        assert!(!partial_path(&live).exists());
    }
}
