//! Accounts, plans, API keys and daily quotas of the cover service, and the administration
//! commands (`covers admin …`, also sent to a running server over the kit's loopback channel).
//!
//! Keys are `cvr_live_` and 32 random characters, stored only as SHA-256 hashes, revocable for
//! good. Every limit belongs to the account, never to a key. Daily quotas reset at midnight UTC.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use service_kit::db::DbError;
use service_kit::keys::{hash, random_id, KeyFormat};

use crate::store::Store;

/// The shape of every cover-service key.
pub const KEY_FORMAT: KeyFormat = KeyFormat { prefix: "cvr_live_" };

/// A plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Plan {
    /// 3 saved designs, preview exports only.
    Free,
    /// Members: 10 saved designs.
    Starter,
    /// Members: 25 saved designs.
    Partner,
    /// Members: unlimited designs.
    Patron,
}

impl Plan {
    /// Every plan.
    pub const ALL: [Plan; 4] = [Plan::Free, Plan::Starter, Plan::Partner, Plan::Patron];

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Plan::Free => "free",
            Plan::Starter => "starter",
            Plan::Partner => "partner",
            Plan::Patron => "patron",
        }
    }

    /// The plan with this name.
    pub fn named(name: &str) -> Option<Plan> {
        Plan::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// What a key may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// Read the account, designs, uploads and exports.
    #[serde(rename = "read")]
    Read,
    /// Upload images and save or delete designs.
    #[serde(rename = "design:write")]
    DesignWrite,
    /// Start exports.
    #[serde(rename = "export")]
    Export,
}

impl Scope {
    /// Every scope.
    pub const ALL: [Scope; 3] = [Scope::Read, Scope::DesignWrite, Scope::Export];

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Scope::Read => "read",
            Scope::DesignWrite => "design:write",
            Scope::Export => "export",
        }
    }

    /// The scope with this name.
    pub fn named(name: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// An account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Account {
    /// `acct_…`.
    pub id: String,
    /// Its plan.
    pub plan: Plan,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Sign-in e-mail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// Creation time, Unix seconds.
    pub created_at: u64,
}

/// An API key as stored: never its secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiKey {
    /// `key_…`.
    pub id: String,
    /// The owning account.
    pub account_id: String,
    /// What it may do.
    pub scopes: Vec<Scope>,
    /// The first characters, for people to recognise it.
    pub hint: String,
    /// SHA-256 of the secret.
    #[serde(skip_serializing_if = "String::is_empty", default)]
    pub hash: String,
    /// Creation time, Unix seconds.
    pub created_at: u64,
    /// When it was revoked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revoked_at: Option<u64>,
}

/// A new key for an account: the secret (shown once) and the record to store.
pub fn new_key(account_id: &str, scopes: &[Scope]) -> (String, ApiKey) {
    let secret = KEY_FORMAT.generate();
    let mut scopes = if scopes.is_empty() { Scope::ALL.to_vec() } else { scopes.to_vec() };
    scopes.sort();
    scopes.dedup();
    let key = ApiKey {
        id: random_id("key_"),
        account_id: account_id.to_owned(),
        scopes,
        hint: KEY_FORMAT.hint(&secret),
        hash: hash(&secret),
        created_at: service_kit::period::unix_now(),
        revoked_at: None,
    };
    (secret, key)
}

/// The numbers of one plan (`[plans.<name>]` in the configuration overrides any of them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanLimits {
    /// Saved designs (`None`: unlimited).
    pub designs: Option<u64>,
    /// Images in the uploads library.
    pub uploads_library: Option<u64>,
    /// Composes per day (links, POSTs and saves, in the browser or by key).
    pub daily_composes: Option<u64>,
    /// Uploads per day.
    pub daily_uploads: Option<u64>,
    /// Exports per day.
    pub daily_exports: Option<u64>,
    /// Outputs the plan may export: `preview`, `png`, `pdf`.
    pub outputs: Vec<String>,
}

impl PlanLimits {
    /// The defaults: free 3 designs and previews only, then 10, 25 and unlimited designs as the
    /// anchor service has; the other numbers are ours (`docs/covers/accounts.md`).
    pub fn default_for(plan: Plan) -> PlanLimits {
        let all = || ["preview", "png", "pdf"].map(str::to_owned).to_vec();
        match plan {
            Plan::Free => PlanLimits {
                designs: Some(3),
                uploads_library: Some(10),
                daily_composes: Some(50),
                daily_uploads: Some(20),
                daily_exports: Some(10),
                outputs: vec!["preview".to_owned()],
            },
            Plan::Starter => PlanLimits {
                designs: Some(10),
                uploads_library: Some(50),
                daily_composes: Some(200),
                daily_uploads: Some(100),
                daily_exports: Some(50),
                outputs: all(),
            },
            Plan::Partner => PlanLimits {
                designs: Some(25),
                uploads_library: Some(200),
                daily_composes: Some(1000),
                daily_uploads: Some(300),
                daily_exports: Some(200),
                outputs: all(),
            },
            Plan::Patron => PlanLimits {
                designs: None,
                uploads_library: Some(1000),
                daily_composes: None,
                daily_uploads: Some(1000),
                daily_exports: Some(1000),
                outputs: all(),
            },
        }
    }
}

/// Today's date (UTC) as `YYYY-MM-DD`, and the seconds until the next midnight UTC.
pub fn today(now: u64) -> (String, u64) {
    let (y, m, d) = service_kit::period::civil_date(now);
    (format!("{y:04}-{m:02}-{d:02}"), 86_400 - now % 86_400)
}

/// One administrative operation.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "op", deny_unknown_fields)]
pub enum AdminCommand {
    /// Create an account.
    #[serde(rename = "account.create")]
    AccountCreate {
        /// Its plan.
        plan: Plan,
        /// A display name.
        #[serde(default)]
        name: Option<String>,
        /// Sign-in e-mail.
        #[serde(default)]
        email: Option<String>,
    },
    /// Change an account's plan.
    #[serde(rename = "account.set-plan")]
    AccountSetPlan {
        /// The account.
        id: String,
        /// The new plan.
        plan: Plan,
    },
    /// Create a key (the secret is returned once).
    #[serde(rename = "key.create")]
    KeyCreate {
        /// The owning account.
        account: String,
        /// Its scopes (empty: all).
        #[serde(default)]
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
    /// Set an account's password (browser sign-in).
    #[serde(rename = "account.password")]
    AccountPassword {
        /// The account.
        id: String,
        /// The new password (10 to 200 characters).
        password: String,
    },
    /// A one-time sign-in link, valid for 15 minutes.
    #[serde(rename = "account.login-link")]
    AccountLoginLink {
        /// The account.
        id: String,
    },
}

/// Why an admin command failed.
#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    /// The account or key does not exist.
    #[error("{0} not found")]
    NotFound(String),
    /// A value is not acceptable.
    #[error("{0}")]
    Invalid(String),
    /// Storage failed.
    #[error("{0}")]
    Store(#[from] DbError),
}

fn public_key(key: &ApiKey) -> Value {
    let mut v = serde_json::to_value(key).unwrap_or(Value::Null);
    if let Some(o) = v.as_object_mut() {
        o.remove("hash");
    }
    v
}

/// Runs a command against the store; the JSON the command prints. `base` is the public base URL
/// of sign-in links.
pub fn execute(store: &Store, command: AdminCommand, base: &str) -> Result<Value, AdminError> {
    let now = service_kit::period::unix_now();
    Ok(match command {
        AdminCommand::AccountCreate { plan, name, email } => {
            let account = Account { id: random_id("acct_"), plan, name, email, created_at: now };
            store.insert_account(&account)?;
            serde_json::to_value(&account).unwrap_or(Value::Null)
        }
        AdminCommand::AccountSetPlan { id, plan } => {
            let account = store.set_plan(&id, plan)?.ok_or_else(|| AdminError::NotFound(format!("account {id}")))?;
            serde_json::to_value(&account).unwrap_or(Value::Null)
        }
        AdminCommand::KeyCreate { account, scopes } => {
            if store.account(&account)?.is_none() {
                return Err(AdminError::NotFound(format!("account {account}")));
            }
            let (secret, key) = new_key(&account, &scopes);
            store.insert_key(&key)?;
            json!({ "id": key.id, "key": secret, "scopes": key.scopes, "accountId": key.account_id })
        }
        AdminCommand::KeyRevoke { id } => {
            public_key(&store.revoke_key(&id, now)?.ok_or_else(|| AdminError::NotFound(format!("key {id}")))?)
        }
        AdminCommand::AccountPassword { id, password } => {
            if store.account(&id)?.is_none() {
                return Err(AdminError::NotFound(format!("account {id}")));
            }
            let hash = crate::signin::hash_password(&password).map_err(AdminError::Invalid)?;
            store.set_password(&id, &hash)?;
            json!({ "id": id, "password": "set" })
        }
        AdminCommand::AccountLoginLink { id } => {
            if store.account(&id)?.is_none() {
                return Err(AdminError::NotFound(format!("account {id}")));
            }
            let token = crate::signin::new_token();
            let ticket = crate::store::Ticket {
                kind: "link".into(),
                account_id: id.clone(),
                csrf: String::new(),
                expires_at: now + crate::signin::LINK_SECONDS,
            };
            store.put_ticket(&hash(&token), &ticket)?;
            json!({ "id": id, "url": format!("{base}/signin/link?token={token}"), "expiresInSeconds": crate::signin::LINK_SECONDS })
        }
        AdminCommand::KeyList { account } => {
            if store.account(&account)?.is_none() {
                return Err(AdminError::NotFound(format!("account {account}")));
            }
            json!({ "keys": store.keys_of(&account)?.iter().map(public_key).collect::<Vec<_>>() })
        }
    })
}

/// Runs a command: through the running server if there is one, else on the database directly.
pub fn run(data_dir: &std::path::Path, command: AdminCommand) -> anyhow::Result<Value> {
    use service_kit::admin::Local;
    let database = data_dir.join(crate::store::DATABASE_FILE);
    // Without a running server, links point at the default address.
    service_kit::admin::run(data_dir, &command, || match Store::open(&database) {
        Ok(store) => Ok(Local::Done(execute(&store, command.clone(), "http://127.0.0.1:8090")?)),
        Err(DbError::Locked) => Ok(Local::Locked),
        Err(e) => Err(e.into()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_plans_and_days() {
        let (secret, key) = new_key("acct_x", &[Scope::Export, Scope::Read, Scope::Read]);
        assert!(KEY_FORMAT.well_formed(&secret) && secret.starts_with("cvr_live_"));
        assert_eq!(key.scopes, [Scope::Read, Scope::Export]);
        assert_eq!(key.hash, hash(&secret));
        assert_eq!(new_key("a", &[]).1.scopes.len(), 3, "no scopes asked: all of them");
        assert_eq!(PlanLimits::default_for(Plan::Free).designs, Some(3));
        assert_eq!(PlanLimits::default_for(Plan::Patron).designs, None);
        assert_eq!(Plan::named("partner"), Some(Plan::Partner));
        assert_eq!(Scope::named("design:write"), Some(Scope::DesignWrite));
        assert_eq!(today(1_764_028_800 + 3600), ("2025-11-25".to_owned(), 82_800));
    }
}
