//! Account, key and showcase administration, shared by the `crossword admin` command and the server's
//! loopback admin endpoint.
//!
//! redb lets one process open the database file, so while the server runs the command sends
//! its [`AdminCommand`] to the server through the kit's loopback admin channel
//! ([`service_kit::admin`]); when no server is running it opens the database itself. Either way
//! the same [`execute`] runs.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use service_kit::admin::Local;

use crate::config::{Backend, Storage, Tier};
use crate::store::{PgStore, RedbStore, Scope, Store, StoreError};

/// File name of the database in the data directory.
pub const DATABASE_FILE: &str = "crossword.redb";

/// One administrative operation.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "op", deny_unknown_fields)]
pub enum AdminCommand {
    /// Create an account.
    #[serde(rename = "account.create")]
    AccountCreate {
        /// Its plan.
        tier: Tier,
        /// A display name.
        #[serde(default)]
        name: Option<String>,
    },
    /// Change an account's plan.
    #[serde(rename = "account.set-tier")]
    AccountSetTier {
        /// The account.
        id: String,
        /// The new plan.
        tier: Tier,
    },
    /// Create a key (the secret is returned once).
    #[serde(rename = "key.create")]
    KeyCreate {
        /// The owning account.
        account: String,
        /// Its scopes.
        scopes: Vec<Scope>,
    },
    /// Revoke a key for good.
    #[serde(rename = "key.revoke")]
    KeyRevoke {
        /// The key id.
        id: String,
    },
    /// List an account's keys (never their secrets).
    #[serde(rename = "key.list")]
    KeyList {
        /// The account.
        account: String,
    },
    /// List the puzzles waiting for showcase review.
    #[serde(rename = "showcase.list")]
    ShowcaseList,
    /// Approve a queued puzzle for the showcase.
    #[serde(rename = "showcase.approve")]
    ShowcaseApprove {
        /// The puzzle id.
        id: String,
    },
    /// Reject a queued puzzle.
    #[serde(rename = "showcase.reject")]
    ShowcaseReject {
        /// The puzzle id.
        id: String,
        /// Why (shown to its owner as `showcaseNote`).
        #[serde(default)]
        reason: Option<String>,
    },
    /// Write a consistent copy of the database to a new file (absolute path) while the server
    /// runs.
    #[serde(rename = "backup")]
    Backup {
        /// The file to create (refused when it exists).
        path: std::path::PathBuf,
    },
}

fn review_summary(p: &crossword_puzzle::Puzzle) -> Value {
    json!({
        "id": p.id,
        "accountId": p.owner,
        "title": p.title,
        "language": p.language,
        "showcaseStatus": p.showcase_status.map(crossword_puzzle::ShowcaseStatus::as_str),
        "adultThemes": p.adult_themes,
        "blockedWords": crate::puzzles::safety_verdict(p).blocked,
        "updatedAt": service_kit::period::rfc3339_millis(p.updated_at),
    })
}

/// Runs a command against a store; the JSON printed by the CLI.
pub fn execute(store: &dyn Store, command: AdminCommand) -> Result<Value, StoreError> {
    fn to_json<T: Serialize>(record: &T) -> Value {
        serde_json::to_value(record).unwrap_or(Value::Null)
    }
    Ok(match command {
        AdminCommand::AccountCreate { tier, name } => to_json(&store.create_account(tier, name.as_deref())?),
        AdminCommand::AccountSetTier { id, tier } => to_json(&store.set_tier(&id, tier)?),
        AdminCommand::KeyCreate { account, scopes } => {
            let scopes = if scopes.is_empty() { Scope::ALL.to_vec() } else { scopes };
            let (secret, key) = crate::keys::new_key(&account, &scopes);
            store.insert_key(&key)?;
            json!({ "id": key.id, "key": secret, "scopes": key.scopes, "accountId": key.account_id })
        }
        AdminCommand::KeyRevoke { id } => to_json(&store.revoke_key(&id)?),
        AdminCommand::KeyList { account } => {
            if store.account(&account)?.is_none() {
                return Err(StoreError::NotFound(format!("account {account}")));
            }
            json!({ "keys": store.keys_of(&account)? })
        }
        AdminCommand::ShowcaseList => {
            let queue: Vec<Value> = store.showcase_queue()?.iter().map(review_summary).collect();
            json!({ "queue": queue })
        }
        AdminCommand::ShowcaseApprove { id } => {
            review_summary(&crate::puzzles::review(store, &id, crate::puzzles::Decision::Approve, None)?)
        }
        AdminCommand::ShowcaseReject { id, reason } => {
            review_summary(&crate::puzzles::review(store, &id, crate::puzzles::Decision::Reject, reason.as_deref())?)
        }
        AdminCommand::Backup { path } => copy_report(&store.backup(&path)?),
    })
}

fn copy_report(report: &service_kit::db::CopyReport) -> Value {
    let tables: serde_json::Map<String, Value> =
        report.tables.iter().map(|(name, rows)| (name.clone(), json!(rows))).collect();
    json!({ "path": report.path, "bytes": report.bytes, "tables": tables })
}

/// Replaces the data directory's database with a backup; refused while a server runs, and on
/// PostgreSQL (whose own tools restore it).
pub fn restore(data_dir: &Path, storage: &Storage, backup: &Path) -> anyhow::Result<Value> {
    if storage.backend == Backend::Postgres {
        anyhow::bail!(
            "the records are in PostgreSQL: restore them with its own tools (pg_restore); see docs/DEPLOYMENT.md"
        );
    }
    match RedbStore::restore(backup, &data_dir.join(DATABASE_FILE)) {
        Ok(report) => Ok(copy_report(&report)),
        Err(StoreError::Locked) => {
            anyhow::bail!("the server is running on {}: stop it before restoring", data_dir.display())
        }
        Err(e) => Err(e.into()),
    }
}

/// Runs a command: through the running server if there is one (the kit's loopback admin
/// channel), else on the configured store directly: the data directory's redb file, or
/// PostgreSQL.
pub fn run(data_dir: &Path, storage: &Storage, command: AdminCommand) -> anyhow::Result<Value> {
    let database = data_dir.join(DATABASE_FILE);
    service_kit::admin::run(data_dir, &command, || match storage.backend {
        Backend::Redb => match RedbStore::open(&database) {
            Ok(store) => Ok(Local::Done(execute(&store, command.clone())?)),
            Err(StoreError::Locked) => Ok(Local::Locked),
            Err(e) => Err(e.into()),
        },
        Backend::Postgres => {
            let store = PgStore::connect(&storage.url())?;
            Ok(Local::Done(execute(&store, command.clone())?))
        }
    })
}
