//! The cover service's storage: one redb file in the data directory (tables prefixed
//! `covers.`): composed designs (the intent and the matched title, under an unguessable id, for a
//! configurable time without an account), accounts, API keys (hashes only) and daily usage.
//! Every change is one redb transaction, so nothing is half-written after a crash.

use std::path::Path;

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use serde_json::{json, Value};
use service_kit::db::DbError;

use crate::accounts::{Account, ApiKey, Plan};

/// Composed designs: key the id, value JSON `{ intent, title, createdAt }`.
const COMPOSED: TableDefinition<&str, &[u8]> = TableDefinition::new("covers.composed");

/// Accounts: key the id, value the JSON of [`Account`].
const ACCOUNTS: TableDefinition<&str, &[u8]> = TableDefinition::new("covers.accounts");
/// API keys: key the id, value the JSON of [`ApiKey`].
const KEYS: TableDefinition<&str, &[u8]> = TableDefinition::new("covers.keys");
/// Key hashes to key ids, for authentication.
const KEY_HASHES: TableDefinition<&str, &str> = TableDefinition::new("covers.key_hashes");
/// Saved designs: key the id, value the JSON of [`SavedDesign`].
const DESIGNS: TableDefinition<&str, &[u8]> = TableDefinition::new("covers.designs");
/// Uploads: key the id, value the JSON of [`Upload`].
const UPLOADS: TableDefinition<&str, &[u8]> = TableDefinition::new("covers.uploads");
/// Export jobs: key the id, value the JSON of [`crate::exports::Job`].
const JOBS: TableDefinition<&str, &[u8]> = TableDefinition::new("covers.exports");
/// Password hashes (argon2id, PHC strings) by account id.
const PASSWORDS: TableDefinition<&str, &str> = TableDefinition::new("covers.passwords");
/// Browser sessions and one-time sign-in links: key the SHA-256 of the token, value the JSON of
/// [`Ticket`].
const TICKETS: TableDefinition<&str, &[u8]> = TableDefinition::new("covers.tickets");
/// Daily usage: key `account|YYYY-MM-DD|kind`, value the count.
const USAGE: TableDefinition<&str, u64> = TableDefinition::new("covers.usage");

/// File name of the database in the data directory.
pub const DATABASE_FILE: &str = "covers.redb";

/// One use of an account's daily quota, counted in the transaction that writes what it pays for.
pub struct Charge<'a> {
    /// The account.
    pub account: &'a str,
    /// The UTC day, `YYYY-MM-DD`.
    pub day: &'a str,
    /// The quota: `composes`, `uploads` or `exports`.
    pub kind: &'a str,
    /// Uses allowed that day (`None`: unlimited).
    pub limit: Option<u64>,
}

/// What an insert with a cap and a quota did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inserted {
    /// Written, and the quota counted.
    Done,
    /// Refused: the account already has as many as its plan keeps. Nothing counted.
    Full,
    /// Refused: the day's quota is used up. Nothing written.
    QuotaReached,
}

/// The store.
pub struct Store {
    db: Database,
}

/// A design saved to an account.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedDesign {
    /// `des_…`.
    pub id: String,
    /// The owning account.
    pub account_id: String,
    /// Its name.
    pub name: String,
    /// The canonical intent.
    pub intent: Value,
    /// The matched title's id.
    pub title: Option<String>,
    /// Creation time, Unix milliseconds (lists are newest first).
    pub created_at: u64,
    /// The design's own copies of its uploads, by `upload:<id>` reference: deleting the upload
    /// never breaks the design.
    #[serde(default)]
    pub images: std::collections::BTreeMap<String, DesignImage>,
}

/// A design's copy of an uploaded image.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DesignImage {
    /// SHA-256 of the file.
    pub file: String,
    /// Its media type.
    pub mime_type: String,
    /// Width, px.
    pub width: u32,
    /// Height, px.
    pub height: u32,
}

/// An uploaded image of an account (its bytes are in the content-addressed files).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Upload {
    /// `upl_…`; intents refer to it as `upload:<id>`.
    pub id: String,
    /// The owning account.
    pub account_id: String,
    /// Its name.
    pub name: String,
    /// `image/png` or `image/jpeg`.
    pub mime_type: String,
    /// Width, px.
    pub width: u32,
    /// Height, px.
    pub height: u32,
    /// Size of the cleaned file, bytes.
    pub bytes: u64,
    /// SHA-256 of the cleaned file.
    pub file: String,
    /// SHA-256 of the PNG preview.
    pub preview: String,
    /// Creation time, Unix milliseconds.
    pub created_at: u64,
}

/// A browser session or a one-time sign-in link.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Ticket {
    /// `session` or `link`.
    pub kind: String,
    /// The account it signs in.
    pub account_id: String,
    /// The session's CSRF token (empty for links).
    #[serde(default)]
    pub csrf: String,
    /// When it stops working, Unix seconds.
    pub expires_at: u64,
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
    /// The database, for the store's other modules (`crate::oauth_store`).
    pub(crate) fn db(&self) -> &Database {
        &self.db
    }

    /// Opens (or creates) the database file.
    pub fn open(path: &Path) -> Result<Store, DbError> {
        let db = service_kit::db::open(path, "covers", |t| {
            t.create(COMPOSED)?;
            t.create(ACCOUNTS)?;
            t.create(KEYS)?;
            t.create(KEY_HASHES)?;
            t.create(DESIGNS)?;
            t.create(UPLOADS)?;
            t.create(JOBS)?;
            t.create(PASSWORDS)?;
            t.create(TICKETS)?;
            t.create(crate::oauth_store::CLIENTS)?;
            t.create(crate::oauth_store::CODES)?;
            t.create(crate::oauth_store::TOKENS)?;
            t.create(crate::oauth_store::GRANTS)?;
            t.create(USAGE)
        })?;
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

    /// Stores a new account.
    pub fn insert_account(&self, account: &Account) -> Result<(), DbError> {
        self.put_json(ACCOUNTS, &account.id, account)
    }

    /// An account by id.
    pub fn account(&self, id: &str) -> Result<Option<Account>, DbError> {
        self.get_json(ACCOUNTS, id)
    }

    /// Changes an account's plan; the account as changed.
    pub fn set_plan(&self, id: &str, plan: Plan) -> Result<Option<Account>, DbError> {
        let Some(mut account) = self.account(id)? else { return Ok(None) };
        account.plan = plan;
        self.insert_account(&account)?;
        Ok(Some(account))
    }

    /// Stores a new key and its hash.
    pub fn insert_key(&self, key: &ApiKey) -> Result<(), DbError> {
        let bytes = serde_json::to_vec(key).map_err(backend)?;
        let txn = self.db.begin_write().map_err(backend)?;
        txn.open_table(KEYS).map_err(backend)?.insert(key.id.as_str(), bytes.as_slice()).map_err(backend)?;
        txn.open_table(KEY_HASHES).map_err(backend)?.insert(key.hash.as_str(), key.id.as_str()).map_err(backend)?;
        txn.commit().map_err(backend)
    }

    /// The key whose secret hashes to `hash`.
    pub fn key_by_hash(&self, hash: &str) -> Result<Option<ApiKey>, DbError> {
        let txn = self.db.begin_read().map_err(backend)?;
        let Some(id) =
            txn.open_table(KEY_HASHES).map_err(backend)?.get(hash).map_err(backend)?.map(|v| v.value().to_owned())
        else {
            return Ok(None);
        };
        drop(txn);
        self.get_json(KEYS, &id)
    }

    /// Revokes a key for good; the key as revoked.
    pub fn revoke_key(&self, id: &str, now: u64) -> Result<Option<ApiKey>, DbError> {
        let Some(mut key) = self.get_json::<ApiKey>(KEYS, id)? else { return Ok(None) };
        if key.revoked_at.is_none() {
            key.revoked_at = Some(now);
            self.put_json(KEYS, id, &key)?;
        }
        Ok(Some(key))
    }

    /// An account's keys, oldest first.
    pub fn keys_of(&self, account: &str) -> Result<Vec<ApiKey>, DbError> {
        let mut keys = self.all_of(KEYS, |k: &ApiKey| k.account_id == account)?;
        keys.sort_by_key(|k| k.created_at);
        Ok(keys)
    }

    /// Saves a design if the account has fewer than `limit` (`None`: no limit) and `charge`
    /// fits its quota: checked, counted and written in one transaction, so a crash or a parallel
    /// request never leaves a use counted without its design.
    pub fn insert_design(
        &self,
        design: &SavedDesign,
        limit: Option<u64>,
        charge: &Charge<'_>,
    ) -> Result<Inserted, DbError> {
        self.insert_capped(
            DESIGNS,
            &design.id,
            design,
            |d: &SavedDesign| d.account_id == design.account_id,
            limit,
            Some(charge),
        )
    }

    /// A saved design by id.
    pub fn design(&self, id: &str) -> Result<Option<SavedDesign>, DbError> {
        self.get_json(DESIGNS, id)
    }

    /// An account's designs, newest first.
    pub fn designs_of(&self, account: &str) -> Result<Vec<SavedDesign>, DbError> {
        let mut out = self.all_of(DESIGNS, |d: &SavedDesign| d.account_id == account)?;
        out.sort_by(|a, b| b.created_at.cmp(&a.created_at).then_with(|| b.id.cmp(&a.id)));
        Ok(out)
    }

    /// Deletes a design of an account; `false` when it has no such design.
    pub fn delete_design(&self, account: &str, id: &str) -> Result<bool, DbError> {
        let txn = self.db.begin_write().map_err(backend)?;
        {
            let mut table = txn.open_table(DESIGNS).map_err(backend)?;
            let owned = match table.get(id).map_err(backend)? {
                Some(v) => serde_json::from_slice::<SavedDesign>(v.value()).map_err(backend)?.account_id == account,
                None => false,
            };
            if !owned {
                return Ok(false);
            }
            table.remove(id).map_err(backend)?;
        }
        txn.commit().map_err(backend)?;
        Ok(true)
    }

    /// Replaces a saved design of the same account (an edit: intent, title and image copies);
    /// `false` when the account has no such design.
    pub fn replace_design(&self, design: &SavedDesign) -> Result<bool, DbError> {
        let bytes = serde_json::to_vec(design).map_err(backend)?;
        let txn = self.db.begin_write().map_err(backend)?;
        {
            let mut table = txn.open_table(DESIGNS).map_err(backend)?;
            let owned = match table.get(design.id.as_str()).map_err(backend)? {
                Some(v) => {
                    serde_json::from_slice::<SavedDesign>(v.value()).map_err(backend)?.account_id == design.account_id
                }
                None => false,
            };
            if !owned {
                return Ok(false);
            }
            table.insert(design.id.as_str(), bytes.as_slice()).map_err(backend)?;
        }
        txn.commit().map_err(backend)?;
        Ok(true)
    }

    /// Keeps an upload if the account's library has fewer than `limit` images and `charge` fits
    /// its quota: checked, counted and written in one transaction.
    pub fn insert_upload(&self, upload: &Upload, limit: Option<u64>, charge: &Charge<'_>) -> Result<Inserted, DbError> {
        self.insert_capped(
            UPLOADS,
            &upload.id,
            upload,
            |u: &Upload| u.account_id == upload.account_id,
            limit,
            Some(charge),
        )
    }

    /// An upload by id.
    pub fn upload(&self, id: &str) -> Result<Option<Upload>, DbError> {
        self.get_json(UPLOADS, id)
    }

    /// An account's uploads, newest first.
    pub fn uploads_of(&self, account: &str) -> Result<Vec<Upload>, DbError> {
        let mut out = self.all_of(UPLOADS, |u: &Upload| u.account_id == account)?;
        out.sort_by(|a, b| b.created_at.cmp(&a.created_at).then_with(|| b.id.cmp(&a.id)));
        Ok(out)
    }

    /// Deletes an upload of an account; the record when it was there.
    pub fn delete_upload(&self, account: &str, id: &str) -> Result<Option<Upload>, DbError> {
        let txn = self.db.begin_write().map_err(backend)?;
        let upload = {
            let mut table = txn.open_table(UPLOADS).map_err(backend)?;
            let found = match table.get(id).map_err(backend)? {
                Some(v) => Some(serde_json::from_slice::<Upload>(v.value()).map_err(backend)?),
                None => None,
            };
            match found {
                Some(u) if u.account_id == account => {
                    table.remove(id).map_err(backend)?;
                    u
                }
                _ => return Ok(None),
            }
        };
        txn.commit().map_err(backend)?;
        Ok(Some(upload))
    }

    /// True when a saved design or an upload still refers to the file `hash`.
    pub fn file_in_use(&self, hash: &str) -> Result<bool, DbError> {
        let txn = self.db.begin_read().map_err(backend)?;
        for entry in txn.open_table(UPLOADS).map_err(backend)?.iter().map_err(backend)? {
            let (_, v) = entry.map_err(backend)?;
            let u: Upload = serde_json::from_slice(v.value()).map_err(backend)?;
            if u.file == hash || u.preview == hash {
                return Ok(true);
            }
        }
        for entry in txn.open_table(DESIGNS).map_err(backend)?.iter().map_err(backend)? {
            let (_, v) = entry.map_err(backend)?;
            let d: SavedDesign = serde_json::from_slice(v.value()).map_err(backend)?;
            if d.images.values().any(|i| i.file == hash) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Queues a new export job if `charge` fits its quota: counted and written in one
    /// transaction.
    pub fn insert_job(&self, job: &crate::exports::Job, charge: &Charge<'_>) -> Result<Inserted, DbError> {
        self.insert_capped(JOBS, &job.id, job, |_: &crate::exports::Job| false, None, Some(charge))
    }

    /// Every file the records refer to (uploads and their previews, designs' images, export
    /// files), for the sweep at start.
    pub fn files_in_use(&self) -> Result<std::collections::HashSet<String>, DbError> {
        let mut out = std::collections::HashSet::new();
        for u in self.all_of(UPLOADS, |_: &Upload| true)? {
            out.insert(u.file);
            out.insert(u.preview);
        }
        for d in self.all_of(DESIGNS, |_: &SavedDesign| true)? {
            out.extend(d.images.into_values().map(|i| i.file));
        }
        for j in self.jobs()? {
            out.extend(j.file.map(|f| f.hash));
        }
        Ok(out)
    }

    /// Writes an export job.
    pub fn put_job(&self, job: &crate::exports::Job) -> Result<(), DbError> {
        self.put_json(JOBS, &job.id, job)
    }

    /// An export job by id.
    pub fn job(&self, id: &str) -> Result<Option<crate::exports::Job>, DbError> {
        self.get_json(JOBS, id)
    }

    /// Every export job, oldest first.
    pub fn jobs(&self) -> Result<Vec<crate::exports::Job>, DbError> {
        let mut out = self.all_of(JOBS, |_: &crate::exports::Job| true)?;
        out.sort_by_key(|j| j.created_at);
        Ok(out)
    }

    /// Sets an account's password hash.
    pub fn set_password(&self, account: &str, hash: &str) -> Result<(), DbError> {
        let txn = self.db.begin_write().map_err(backend)?;
        txn.open_table(PASSWORDS).map_err(backend)?.insert(account, hash).map_err(backend)?;
        txn.commit().map_err(backend)
    }

    /// An account's password hash.
    pub fn password(&self, account: &str) -> Result<Option<String>, DbError> {
        let txn = self.db.begin_read().map_err(backend)?;
        let table = txn.open_table(PASSWORDS).map_err(backend)?;
        Ok(table.get(account).map_err(backend)?.map(|v| v.value().to_owned()))
    }

    /// The account with this sign-in e-mail (compared without regard to case).
    pub fn account_by_email(&self, email: &str) -> Result<Option<Account>, DbError> {
        let txn = self.db.begin_read().map_err(backend)?;
        let table = txn.open_table(ACCOUNTS).map_err(backend)?;
        for entry in table.iter().map_err(backend)? {
            let (_, v) = entry.map_err(backend)?;
            let a: Account = serde_json::from_slice(v.value()).map_err(backend)?;
            if a.email.as_deref().is_some_and(|e| e.eq_ignore_ascii_case(email.trim())) {
                return Ok(Some(a));
            }
        }
        Ok(None)
    }

    /// Stores a ticket under the hash of its token.
    pub fn put_ticket(&self, token_hash: &str, ticket: &Ticket) -> Result<(), DbError> {
        self.put_json(TICKETS, token_hash, ticket)
    }

    /// A ticket that has not expired at `now`; a one-time link is removed as it is read.
    pub fn ticket(&self, token_hash: &str, now: u64) -> Result<Option<Ticket>, DbError> {
        let txn = self.db.begin_write().map_err(backend)?;
        let found = {
            let mut table = txn.open_table(TICKETS).map_err(backend)?;
            let ticket = match table.get(token_hash).map_err(backend)? {
                Some(v) => Some(serde_json::from_slice::<Ticket>(v.value()).map_err(backend)?),
                None => None,
            };
            match ticket {
                Some(t) if t.expires_at <= now || t.kind == "link" => {
                    table.remove(token_hash).map_err(backend)?;
                    (t.expires_at > now).then_some(t)
                }
                other => other,
            }
        };
        txn.commit().map_err(backend)?;
        Ok(found)
    }

    /// Removes a ticket (signing out).
    pub fn remove_ticket(&self, token_hash: &str) -> Result<(), DbError> {
        let txn = self.db.begin_write().map_err(backend)?;
        txn.open_table(TICKETS).map_err(backend)?.remove(token_hash).map_err(backend)?;
        txn.commit().map_err(backend)
    }

    /// Today's use of `kind` by an account.
    pub fn usage(&self, account: &str, day: &str, kind: &str) -> Result<u64, DbError> {
        let txn = self.db.begin_read().map_err(backend)?;
        let table = txn.open_table(USAGE).map_err(backend)?;
        Ok(table.get(format!("{account}|{day}|{kind}").as_str()).map_err(backend)?.map_or(0, |v| v.value()))
    }

    /// Every record of a JSON table that `keep` accepts.
    pub(crate) fn all_of<T: serde::de::DeserializeOwned>(
        &self,
        table: TableDefinition<&str, &[u8]>,
        keep: impl Fn(&T) -> bool,
    ) -> Result<Vec<T>, DbError> {
        let txn = self.db.begin_read().map_err(backend)?;
        let table = txn.open_table(table).map_err(backend)?;
        let mut out = Vec::new();
        for entry in table.iter().map_err(backend)? {
            let (_, v) = entry.map_err(backend)?;
            let record: T = serde_json::from_slice(v.value()).map_err(backend)?;
            if keep(&record) {
                out.push(record);
            }
        }
        Ok(out)
    }

    /// Inserts a record unless the records `same_owner` accepts already number `limit` or
    /// `charge` would pass its quota; checked, counted and written in one transaction.
    fn insert_capped<T: serde::Serialize + serde::de::DeserializeOwned>(
        &self,
        table: TableDefinition<&str, &[u8]>,
        id: &str,
        value: &T,
        same_owner: impl Fn(&T) -> bool,
        limit: Option<u64>,
        charge: Option<&Charge<'_>>,
    ) -> Result<Inserted, DbError> {
        let bytes = serde_json::to_vec(value).map_err(backend)?;
        let txn = self.db.begin_write().map_err(backend)?;
        {
            if let Some(charge) = charge {
                let key = format!("{}|{}|{}", charge.account, charge.day, charge.kind);
                let mut usage = txn.open_table(USAGE).map_err(backend)?;
                let used = usage.get(key.as_str()).map_err(backend)?.map_or(0, |v| v.value());
                if charge.limit.is_some_and(|l| used >= l) {
                    return Ok(Inserted::QuotaReached);
                }
                usage.insert(key.as_str(), used + 1).map_err(backend)?;
            }
            let mut table = txn.open_table(table).map_err(backend)?;
            if let Some(limit) = limit {
                let mut count = 0;
                for entry in table.iter().map_err(backend)? {
                    let (_, v) = entry.map_err(backend)?;
                    let record: T = serde_json::from_slice(v.value()).map_err(backend)?;
                    count += u64::from(same_owner(&record));
                }
                if count >= limit {
                    return Ok(Inserted::Full);
                }
            }
            table.insert(id, bytes.as_slice()).map_err(backend)?;
        }
        txn.commit().map_err(backend)?;
        Ok(Inserted::Done)
    }

    pub(crate) fn put_json<T: serde::Serialize>(
        &self,
        table: TableDefinition<&str, &[u8]>,
        id: &str,
        value: &T,
    ) -> Result<(), DbError> {
        let bytes = serde_json::to_vec(value).map_err(backend)?;
        let txn = self.db.begin_write().map_err(backend)?;
        txn.open_table(table).map_err(backend)?.insert(id, bytes.as_slice()).map_err(backend)?;
        txn.commit().map_err(backend)
    }

    pub(crate) fn get_json<T: serde::de::DeserializeOwned>(
        &self,
        table: TableDefinition<&str, &[u8]>,
        id: &str,
    ) -> Result<Option<T>, DbError> {
        let txn = self.db.begin_read().map_err(backend)?;
        let table = txn.open_table(table).map_err(backend)?;
        let Some(v) = table.get(id).map_err(backend)? else { return Ok(None) };
        serde_json::from_slice(v.value()).map(Some).map_err(backend)
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

    #[test]
    fn a_write_and_its_quota_use_are_one_transaction() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(&dir.path().join(DATABASE_FILE)).unwrap();
        let design = |id: &str, account: &str| SavedDesign {
            id: id.to_owned(),
            account_id: account.to_owned(),
            name: id.to_owned(),
            intent: json!({ "format": "cd" }),
            title: None,
            created_at: 1,
            images: Default::default(),
        };
        let charge = |account, day| Charge { account, day, kind: "composes", limit: Some(3) };
        let day = "2026-11-24";
        assert_eq!(s.insert_design(&design("d1", "a"), Some(2), &charge("a", day)).unwrap(), Inserted::Done);
        assert_eq!(s.insert_design(&design("d2", "a"), Some(2), &charge("a", day)).unwrap(), Inserted::Done);
        // The cap refuses a third design and counts nothing.
        assert_eq!(s.insert_design(&design("d3", "a"), Some(2), &charge("a", day)).unwrap(), Inserted::Full);
        assert_eq!(s.usage("a", day, "composes").unwrap(), 2);
        assert!(s.delete_design("a", "d1").unwrap());
        assert_eq!(s.insert_design(&design("d3", "a"), Some(2), &charge("a", day)).unwrap(), Inserted::Done);
        // The quota refuses a fourth compose and writes nothing.
        assert!(s.delete_design("a", "d2").unwrap());
        assert_eq!(s.insert_design(&design("d4", "a"), Some(2), &charge("a", day)).unwrap(), Inserted::QuotaReached);
        assert!(s.design("d4").unwrap().is_none());
        assert_eq!(s.usage("a", day, "composes").unwrap(), 3);
        assert_eq!(s.insert_design(&design("d4", "a"), Some(2), &charge("a", "2026-11-25")).unwrap(), Inserted::Done);
        let unlimited = Charge { account: "b", day, kind: "composes", limit: None };
        assert_eq!(s.insert_design(&design("d5", "b"), None, &unlimited).unwrap(), Inserted::Done);
        assert_eq!(s.files_in_use().unwrap().len(), 0);
    }
}
