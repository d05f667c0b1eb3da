//! Account and key administration, shared by the `crossword admin` command and the server's
//! loopback admin endpoint.
//!
//! redb lets one process open the database file, so while the server runs the command sends
//! its [`AdminCommand`] to the server (`POST /admin/v1/command` on the loopback address from
//! `server.json`, authenticated by the secret in `admin.secret`, both in the data directory);
//! when no server is running it opens the database itself. Either way the same [`execute`] runs.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::config::Tier;
use crate::store::{RedbStore, Scope, Store, StoreError};

/// File name of the database in the data directory.
pub const DATABASE_FILE: &str = "crossword.redb";
/// File name of the admin secret in the data directory.
pub const SECRET_FILE: &str = "admin.secret";
/// File name of the running server's address in the data directory.
pub const SERVER_FILE: &str = "server.json";

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
    })
}

/// Reads the admin secret of a data directory, creating it (mode 0600) if needed.
pub fn ensure_secret(data_dir: &Path) -> std::io::Result<String> {
    let path = data_dir.join(SECRET_FILE);
    if let Ok(s) = std::fs::read_to_string(&path) {
        if s.trim().len() >= 32 {
            return Ok(s.trim().to_owned());
        }
    }
    let secret = crate::keys::random_alphanumeric(48);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(&path)?.write_all(secret.as_bytes())?;
    Ok(secret)
}

/// Where a running server listens, from `server.json`, as a loopback address.
fn running_server(data_dir: &Path) -> Option<SocketAddr> {
    let text = std::fs::read_to_string(data_dir.join(SERVER_FILE)).ok()?;
    let info: Value = serde_json::from_str(&text).ok()?;
    let mut addr: SocketAddr = info.get("listen")?.as_str()?.parse().ok()?;
    if addr.ip().is_unspecified() {
        addr.set_ip(if addr.is_ipv4() { [127, 0, 0, 1].into() } else { std::net::Ipv6Addr::LOCALHOST.into() });
    }
    Some(addr)
}

/// Runs a command: through the running server if there is one, else on the database directly.
pub fn run(data_dir: &Path, command: AdminCommand) -> anyhow::Result<Value> {
    std::fs::create_dir_all(data_dir)?;
    // A server that is starting holds the database before it announces itself in server.json:
    // while the database is locked, look for the server again for a few seconds.
    let started = std::time::Instant::now();
    loop {
        if let Some(addr) = running_server(data_dir) {
            if let Ok(stream) = TcpStream::connect_timeout(&addr, Duration::from_secs(2)) {
                return send(stream, addr, &std::fs::read_to_string(data_dir.join(SECRET_FILE))?, &command);
            }
        }
        match RedbStore::open(&data_dir.join(DATABASE_FILE)) {
            Ok(store) => return Ok(execute(&store, command)?),
            Err(StoreError::Locked) if started.elapsed() < Duration::from_secs(5) => {
                std::thread::sleep(Duration::from_millis(50))
            }
            Err(StoreError::Locked) => anyhow::bail!(
                "the database is held by a running server whose admin endpoint could not be reached (see {})",
                PathBuf::from(data_dir).join(SERVER_FILE).display()
            ),
            Err(e) => return Err(e.into()),
        }
    }
}

/// One HTTP/1.1 request to the loopback admin endpoint.
fn send(mut stream: TcpStream, addr: SocketAddr, secret: &str, command: &AdminCommand) -> anyhow::Result<Value> {
    let body = serde_json::to_vec(command)?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    write!(
        stream,
        "POST /admin/v1/command HTTP/1.1\r\nHost: {addr}\r\nX-Admin-Secret: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        secret.trim(),
        body.len()
    )?;
    stream.write_all(&body)?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response)?;
    let text = String::from_utf8_lossy(&response);
    let (head, body) =
        text.split_once("\r\n\r\n").ok_or_else(|| anyhow::anyhow!("malformed response from the server"))?;
    let status: u16 = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body =
        if head.to_ascii_lowercase().contains("transfer-encoding: chunked") { dechunk(body) } else { body.to_owned() };
    let value: Value = serde_json::from_str(&body).unwrap_or(Value::String(body));
    if status != 200 {
        let detail =
            value.get("detail").and_then(Value::as_str).map(str::to_owned).unwrap_or_else(|| value.to_string());
        anyhow::bail!("{detail}");
    }
    Ok(value)
}

/// Decodes an HTTP/1.1 chunked body (the loopback client and the tests read raw responses);
/// empty when malformed.
pub fn dechunk(body: &str) -> String {
    String::from_utf8_lossy(&crate::http1::dechunk(body.as_bytes()).unwrap_or_default()).into_owned()
}
