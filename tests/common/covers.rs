//! The cover service's binary for tests: `covers serve` on a free loopback port with a data
//! directory and a configuration, and the `covers admin` command.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// A running `covers serve`, killed when dropped.
pub struct Covers {
    /// Its address.
    pub addr: SocketAddr,
    /// The process.
    pub child: std::process::Child,
}

impl Drop for Covers {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `covers serve` on `data` with `config`, and waits until it answers and has announced
/// itself for the admin command.
pub fn start(data: &Path, config: &Path) -> Covers {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    start_at(format!("127.0.0.1:{port}").parse().unwrap(), data, config)
}

impl Covers {
    /// Kills the server with SIGKILL and starts it again on the same address, data and
    /// configuration; panics unless it opens its database and answers.
    pub fn kill_and_restart(&mut self, data: &Path, config: &Path) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        let _ = std::fs::remove_file(data.join("server.json"));
        let mut fresh = start_at(self.addr, data, config);
        // `fresh` leaves with the dead process, which its drop only reaps again.
        std::mem::swap(&mut self.child, &mut fresh.child);
    }
}

/// Starts `covers serve` on `addr`.
fn start_at(addr: SocketAddr, data: &Path, config: &Path) -> Covers {
    let child = Command::new(env!("CARGO_BIN_EXE_covers"))
        .args([
            "serve",
            "--listen",
            &addr.to_string(),
            "--data-dir",
            data.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while TcpStream::connect(addr).is_err() || !data.join("server.json").exists() {
        assert!(started.elapsed() < Duration::from_secs(20), "covers did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    Covers { addr, child }
}

/// Runs `covers admin ARGS --data-dir DATA`; its JSON.
pub fn admin(data: &Path, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_covers"))
        .arg("admin")
        .args(args)
        .arg("--data-dir")
        .arg(data)
        .output()
        .unwrap();
    assert!(out.status.success(), "covers admin {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A new account on `plan` and a key with every scope: (account id, `Bearer …` header value).
pub fn account_with_key(data: &Path, plan: &str) -> (String, String) {
    let id = admin(data, &["account", "create", "--plan", plan])["id"].as_str().unwrap().to_owned();
    let key = admin(data, &["key", "create", "--account", &id])["key"].as_str().unwrap().to_owned();
    (id, format!("Bearer {key}"))
}

/// Sets a password for `account` with `covers admin account password` (read on stdin).
pub fn set_password(data: &Path, account: &str, password: &str) {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_covers"))
        .args(["admin", "account", "password", account, "--data-dir"])
        .arg(data)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(format!("{password}\n").as_bytes()).unwrap();
    assert!(child.wait().unwrap().success(), "setting the password failed");
}
