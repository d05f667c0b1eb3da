//! The loopback admin channel: how a service's `admin` command reaches a running server.
//!
//! redb lets one process open a database file, so while the server runs, the command sends its
//! operation (any serializable command) to the server: `POST` [`ADMIN_PATH`] on the loopback
//! address the server announced in [`SERVER_FILE`], with the data directory's secret
//! ([`SECRET_FILE`]) in `X-Admin-Secret`. When no server runs, the command opens the database
//! itself. The server side admits a request only from a loopback peer with the right secret,
//! compared in constant time ([`AdminGate`]); anything else should get the service's ordinary
//! 404, so the endpoint is invisible from outside.

use std::io::Write;
use std::net::{Ipv6Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use axum::http::HeaderMap;
use serde::Serialize;
use serde_json::Value;

use crate::http_client::Request;

/// The admin endpoint's path.
pub const ADMIN_PATH: &str = "/admin/v1/command";
/// File name of the admin secret in the data directory.
pub const SECRET_FILE: &str = "admin.secret";
/// File name of the running server's address in the data directory.
pub const SERVER_FILE: &str = "server.json";

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

/// The running server's announcement (`server.json`: address and process id); removed when
/// dropped, i.e. when the server stops.
pub struct ServerFile {
    path: PathBuf,
}

impl ServerFile {
    /// Announces a server listening on `bound`.
    pub fn write(data_dir: &Path, bound: SocketAddr) -> std::io::Result<ServerFile> {
        let path = data_dir.join(SERVER_FILE);
        let info = serde_json::json!({ "listen": bound.to_string(), "pid": std::process::id() });
        std::fs::write(&path, info.to_string())?;
        Ok(ServerFile { path })
    }
}

impl Drop for ServerFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Where a running server listens, from `server.json`, as a loopback address.
pub fn running_server(data_dir: &Path) -> Option<SocketAddr> {
    let text = std::fs::read_to_string(data_dir.join(SERVER_FILE)).ok()?;
    let info: Value = serde_json::from_str(&text).ok()?;
    let mut addr: SocketAddr = info.get("listen")?.as_str()?.parse().ok()?;
    if addr.ip().is_unspecified() {
        addr.set_ip(if addr.is_ipv4() { [127, 0, 0, 1].into() } else { Ipv6Addr::LOCALHOST.into() });
    }
    Some(addr)
}

/// The server side: who may use the admin endpoint.
pub struct AdminGate {
    secret: String,
}

impl AdminGate {
    /// A gate for the data directory's secret.
    pub fn new(secret: String) -> AdminGate {
        AdminGate { secret }
    }

    /// True for a loopback peer that sent the secret.
    pub fn admits(&self, peer: SocketAddr, headers: &HeaderMap) -> bool {
        let sent = headers.get("x-admin-secret").and_then(|v| v.to_str().ok()).unwrap_or("");
        peer.ip().is_loopback() && !self.secret.is_empty() && crate::keys::same_secret(sent, &self.secret)
    }
}

/// What opening the database directly gave.
pub enum Local {
    /// The command ran; its JSON result.
    Done(Value),
    /// The database is held by another process (a server starting up, not announced yet).
    Locked,
}

/// Runs an admin command: through the running server if there is one, else with `local`
/// (which opens the database itself). A server that is starting holds the database before it
/// announces itself, so while the database is locked the server is looked for again for five
/// seconds.
pub fn run<C: Serialize>(
    data_dir: &Path,
    command: &C,
    mut local: impl FnMut() -> anyhow::Result<Local>,
) -> anyhow::Result<Value> {
    std::fs::create_dir_all(data_dir)?;
    let started = Instant::now();
    loop {
        if let Some(addr) = running_server(data_dir) {
            if std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(2)).is_ok() {
                let secret = std::fs::read_to_string(data_dir.join(SECRET_FILE))?;
                return send(addr, secret.trim(), command);
            }
        }
        match local()? {
            Local::Done(value) => return Ok(value),
            Local::Locked if started.elapsed() < Duration::from_secs(5) => {
                std::thread::sleep(Duration::from_millis(50))
            }
            Local::Locked => anyhow::bail!(
                "the database is held by a running server whose admin endpoint could not be reached (see {})",
                data_dir.join(SERVER_FILE).display()
            ),
        }
    }
}

/// One request to the loopback admin endpoint; the problem document's `detail` on failure.
fn send<C: Serialize>(addr: SocketAddr, secret: &str, command: &C) -> anyhow::Result<Value> {
    let response = Request::new("POST", ADMIN_PATH)
        .header("X-Admin-Secret", secret)
        .header("Content-Type", "application/json")
        .body(serde_json::to_vec(command)?)
        .send(addr)?;
    let text = response.text();
    let value: Value = serde_json::from_str(&text).unwrap_or(Value::String(text));
    if response.status != 200 {
        let detail =
            value.get("detail").and_then(Value::as_str).map(str::to_owned).unwrap_or_else(|| value.to_string());
        anyhow::bail!("{detail}");
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_wants_loopback_and_the_secret() {
        let gate = AdminGate::new("s".repeat(48));
        let mut headers = HeaderMap::new();
        let local: SocketAddr = "127.0.0.1:9".parse().unwrap();
        assert!(!gate.admits(local, &headers));
        headers.insert("x-admin-secret", "s".repeat(48).parse().unwrap());
        assert!(gate.admits(local, &headers));
        assert!(!gate.admits("10.0.0.2:9".parse().unwrap(), &headers), "not from another host");
        headers.insert("x-admin-secret", "s".repeat(47).parse().unwrap());
        assert!(!gate.admits(local, &headers));
        assert!(!AdminGate::new(String::new()).admits(local, &HeaderMap::new()), "an empty secret admits no one");
    }

    #[test]
    fn secrets_persist_and_announcements_vanish_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let secret = ensure_secret(dir.path()).unwrap();
        assert_eq!(secret.len(), 48);
        assert_eq!(ensure_secret(dir.path()).unwrap(), secret, "read back, not replaced");
        let announced = ServerFile::write(dir.path(), "0.0.0.0:8080".parse().unwrap()).unwrap();
        assert_eq!(running_server(dir.path()), Some("127.0.0.1:8080".parse().unwrap()));
        drop(announced);
        assert_eq!(running_server(dir.path()), None);
    }

    #[test]
    fn without_a_server_the_command_runs_locally_after_a_lock_clears() {
        let dir = tempfile::tempdir().unwrap();
        let mut tries = 0;
        let value = run(dir.path(), &"op", || {
            tries += 1;
            Ok(if tries < 3 { Local::Locked } else { Local::Done(Value::from(tries)) })
        })
        .unwrap();
        assert_eq!(value, 3);
    }
}
