//! Opening a service's redb database.
//!
//! Each service keeps its tables under its own prefix (`crossword.accounts`, `covers.designs`),
//! so two services could share one file without meeting. [`open`] creates every table up front
//! (readers never meet a missing one) and refuses a table outside the prefix. redb commits with
//! immediate durability and runs one write transaction at a time, so an acknowledged write
//! survives a crash and a check-and-increment inside one transaction is exact.

use std::path::Path;

use redb::{Database, TableDefinition, WriteTransaction};

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

/// Creates a service's tables while the database opens.
pub struct Tables<'t> {
    txn: &'t WriteTransaction,
    prefix: &'static str,
}

impl Tables<'_> {
    /// Creates `table` if it does not exist; its name must be `{prefix}.something`.
    pub fn create<K: redb::Key + 'static, V: redb::Value + 'static>(
        &self,
        table: TableDefinition<'_, K, V>,
    ) -> Result<(), DbError> {
        let name = redb::TableHandle::name(&table);
        if !name.strip_prefix(self.prefix).is_some_and(|rest| rest.len() > 1 && rest.starts_with('.')) {
            return Err(DbError::Backend(format!("table {name:?} is outside the {:?} prefix", self.prefix)));
        }
        self.txn.open_table(table).map(drop).map_err(|e| DbError::Backend(e.to_string()))
    }
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
    create(&Tables { txn: &txn, prefix })?;
    txn.commit().map_err(|e| DbError::Backend(e.to_string()))?;
    Ok(db)
}

#[cfg(test)]
mod tests {
    use redb::ReadableDatabase;

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
}
