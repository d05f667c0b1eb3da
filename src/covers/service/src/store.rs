//! The cover service's storage: one redb file in the data directory (tables prefixed
//! `covers.`). So far it keeps composed designs: the intent as composed and the matched title,
//! under an unguessable id, for a configurable time without an account.

use std::path::Path;

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use serde_json::{json, Value};
use service_kit::db::DbError;

/// Composed designs: key the id, value JSON `{ intent, title, createdAt }`.
const COMPOSED: TableDefinition<&str, &[u8]> = TableDefinition::new("covers.composed");

/// File name of the database in the data directory.
pub const DATABASE_FILE: &str = "covers.redb";

/// The store.
pub struct Store {
    db: Database,
}

/// A composed design as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Composed {
    /// The validated intent (the engine's model, as JSON).
    pub intent: Value,
    /// The matched title's id, if the search found one.
    pub title: Option<String>,
    /// Creation time, Unix seconds.
    pub created_at: u64,
}

fn backend(e: impl std::fmt::Display) -> DbError {
    DbError::Backend(e.to_string())
}

impl Store {
    /// Opens (or creates) the database file.
    pub fn open(path: &Path) -> Result<Store, DbError> {
        let db = service_kit::db::open(path, "covers", |t| t.create(COMPOSED))?;
        Ok(Store { db })
    }

    /// Keeps a composed design under a new unguessable id; returns the id.
    pub fn put_composed(&self, intent: &Value, title: Option<&str>, now: u64) -> Result<String, DbError> {
        let id = service_kit::keys::random_alphanumeric(22);
        let bytes =
            serde_json::to_vec(&json!({ "intent": intent, "title": title, "createdAt": now })).map_err(backend)?;
        let txn = self.db.begin_write().map_err(backend)?;
        txn.open_table(COMPOSED).map_err(backend)?.insert(id.as_str(), bytes.as_slice()).map_err(backend)?;
        txn.commit().map_err(backend)?;
        Ok(id)
    }

    /// Replaces a composed design that is still there (younger than `ttl` at `now`) with an edited
    /// intent and title; its lifetime starts again. `false` when it is gone.
    pub fn replace_composed(
        &self,
        id: &str,
        intent: &Value,
        title: Option<&str>,
        now: u64,
        ttl: u64,
    ) -> Result<bool, DbError> {
        let bytes =
            serde_json::to_vec(&json!({ "intent": intent, "title": title, "createdAt": now })).map_err(backend)?;
        let txn = self.db.begin_write().map_err(backend)?;
        {
            let mut table = txn.open_table(COMPOSED).map_err(backend)?;
            let alive = match table.get(id).map_err(backend)? {
                Some(v) => {
                    let doc: Value = serde_json::from_slice(v.value()).map_err(backend)?;
                    now.saturating_sub(doc["createdAt"].as_u64().unwrap_or(0)) <= ttl
                }
                None => false,
            };
            if !alive {
                return Ok(false);
            }
            table.insert(id, bytes.as_slice()).map_err(backend)?;
        }
        txn.commit().map_err(backend)?;
        Ok(true)
    }

    /// A composed design younger than `ttl` seconds at `now`.
    pub fn composed(&self, id: &str, now: u64, ttl: u64) -> Result<Option<Composed>, DbError> {
        let txn = self.db.begin_read().map_err(backend)?;
        let table = txn.open_table(COMPOSED).map_err(backend)?;
        let Some(v) = table.get(id).map_err(backend)? else { return Ok(None) };
        let doc: Value = serde_json::from_slice(v.value()).map_err(backend)?;
        let created_at = doc["createdAt"].as_u64().unwrap_or(0);
        if now.saturating_sub(created_at) > ttl {
            return Ok(None);
        }
        Ok(Some(Composed {
            intent: doc["intent"].clone(),
            title: doc["title"].as_str().map(str::to_owned),
            created_at,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn composed_designs_expire() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(&dir.path().join(DATABASE_FILE)).unwrap();
        let id = s.put_composed(&json!({ "format": "jcard" }), Some("builtin:album/x"), 1000).unwrap();
        assert_eq!(id.len(), 22);
        let got = s.composed(&id, 1000 + 10, 100).unwrap().unwrap();
        assert_eq!((got.intent["format"].as_str(), got.title.as_deref()), (Some("jcard"), Some("builtin:album/x")));
        assert!(s.composed(&id, 1000 + 101, 100).unwrap().is_none(), "expired");
        assert!(s.composed("nope", 1000, 100).unwrap().is_none());
        // Edits replace the design and start its lifetime again; a gone design stays gone.
        assert!(s.replace_composed(&id, &json!({ "format": "cd" }), None, 1050, 100).unwrap());
        let got = s.composed(&id, 1140, 100).unwrap().unwrap();
        assert_eq!((got.intent["format"].as_str(), got.title), (Some("cd"), None));
        assert!(!s.replace_composed(&id, &json!({}), None, 1300, 100).unwrap());
        assert!(!s.replace_composed("nope", &json!({}), None, 1000, 100).unwrap());
    }
}
