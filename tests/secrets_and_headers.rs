//! Two checks of the security review, on both real servers: no secret reaches the logs, even at
//! `RUST_LOG=debug` (API keys in either header, the admin secret, passwords, session cookies,
//! CSRF tokens), and every HTML and SVG response carries a content security policy and
//! `nosniff`.

mod common;

use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{fixture_indexes, request, Reply};
use serde_json::Value;

fn free_addr() -> SocketAddr {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    format!("127.0.0.1:{port}").parse().unwrap()
}

/// Starts `binary serve` with `args`, logging at debug level into `log`.
fn serve_logged(binary: &str, addr: SocketAddr, data: &Path, args: &[&str], log: &Path) -> Child {
    let file = std::fs::File::create(log).unwrap();
    let child = Command::new(binary)
        .args(["serve", "--listen", &addr.to_string(), "--data-dir", data.to_str().unwrap()])
        .args(args)
        .env("RUST_LOG", "debug")
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .spawn()
        .unwrap();
    let started = Instant::now();
    while TcpStream::connect(addr).is_err() || !data.join("server.json").is_file() {
        assert!(started.elapsed() < Duration::from_secs(20), "{binary} did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

fn stop(mut child: Child) {
    let _ = Command::new("kill").arg("-TERM").arg(child.id().to_string()).status();
    let _ = child.wait();
}

fn admin(binary: &str, data: &Path, args: &[&str]) -> Value {
    let out = Command::new(binary).arg("admin").args(args).arg("--data-dir").arg(data).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Asserts `reply` (an HTML or SVG document) has a policy and `nosniff`.
fn hardened(what: &str, reply: &Reply) {
    let kind = reply.header("content-type").unwrap_or_default();
    assert!(kind.starts_with("text/html") || kind.starts_with("image/svg+xml"), "{what}: {kind}");
    let csp = reply.header("content-security-policy").unwrap_or_else(|| panic!("{what}: no CSP"));
    assert!(csp.contains("default-src 'none'"), "{what}: {csp}");
    assert_eq!(reply.header("x-content-type-options"), Some("nosniff"), "{what}");
}

fn assert_absent(log: &str, secrets: &[(&str, &str)]) {
    assert!(log.len() > 1000, "the debug log was written: {} bytes", log.len());
    for (name, secret) in secrets {
        assert!(secret.len() >= 8, "{name} is a real secret");
        assert!(!log.contains(secret), "the {name} is in the log");
    }
}

#[test]
fn crossword_logs_no_secret_and_hardens_every_document() {
    let dir = tempfile::tempdir().unwrap();
    let (data, indexes, log) = (dir.path().join("data"), dir.path().join("indexes"), dir.path().join("log"));
    fixture_indexes(&indexes, &["en"]);
    let bin = env!("CARGO_BIN_EXE_crossword");
    let account = admin(bin, &data, &["account", "create", "--tier", "patron", "--name", "Ann"]);
    let key = admin(bin, &data, &["key", "create", "--account", account["id"].as_str().unwrap()])["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let addr = free_addr();
    let child = serve_logged(bin, addr, &data, &["--index-dir", indexes.to_str().unwrap()], &log);
    let bearer = format!("Bearer {key}");
    assert_eq!(request(addr, "GET", "/api/v1/words?pattern=C_T", &[("Authorization", &bearer)], None).status, 200);
    assert_eq!(request(addr, "GET", "/api/v1/words?pattern=C_T", &[("X-Api-Key", &key)], None).status, 200);
    let puzzle = serde_json::json!({
        "title": "Logged", "author": "Ann", "publish": true, "showProfile": true, "grid": ["CAT", "ODE", "WET"],
        "clues": { "across": { "1": "Pet", "4": "Poem", "5": "Damp" },
                   "down": { "1": "Milk source", "2": "Citrus drink", "3": "Vietnamese new year" } }
    });
    let r =
        request(addr, "POST", "/api/v1/puzzles", &[("Authorization", &bearer)], Some(puzzle.to_string().as_bytes()));
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.json()["id"].as_str().unwrap().to_owned();
    // A wrong key, and the admin channel (its secret travels in a header).
    assert_eq!(
        request(
            addr,
            "GET",
            "/api/v1/words?pattern=C_T",
            &[("X-Api-Key", "cw_live_0000000000000000000000000000000000000000")],
            None
        )
        .status,
        401
    );
    admin(bin, &data, &["showcase", "list"]);

    for path in [
        "/".to_owned(),
        "/api/v1/errors".to_owned(),
        format!("/p/{id}"),
        format!("/embed/{id}"),
        format!("/p/{id}/preview.svg"),
        "/u/ann".to_owned(),
        "/showcase".to_owned(),
        "/assets/logo.svg".to_owned(),
    ] {
        let r = request(addr, "GET", &path, &[], None);
        assert_eq!(r.status, 200, "{path}");
        hardened(&path, &r);
    }
    for format in ["html", "svg"] {
        let path = format!("/api/v1/puzzles/{id}/export?format={format}");
        let r = request(addr, "GET", &path, &[("Authorization", &bearer)], None);
        assert_eq!(r.status, 200, "{path}: {}", r.body);
        hardened(&path, &r);
    }
    stop(child);
    let admin_secret = std::fs::read_to_string(data.join("admin.secret")).unwrap();
    let log = std::fs::read_to_string(&log).unwrap();
    assert_absent(&log, &[("API key", &key), ("admin secret", admin_secret.trim())]);
}

#[test]
fn covers_logs_no_secret_and_hardens_every_document() {
    let dir = tempfile::tempdir().unwrap();
    let (data, log, config) = (dir.path().join("data"), dir.path().join("log"), dir.path().join("covers.toml"));
    std::fs::write(&config, "[exports]\nworkers = 1\n").unwrap();
    let bin = env!("CARGO_BIN_EXE_covers");
    let account = admin(bin, &data, &["account", "create", "--plan", "starter", "--email", "ann@example.org"]);
    let id = account["id"].as_str().unwrap().to_owned();
    let key = admin(bin, &data, &["key", "create", "--account", &id])["key"].as_str().unwrap().to_owned();
    let password = "correct horse battery staple";
    let mut child = Command::new(bin)
        .args(["admin", "account", "password", &id, "--data-dir", data.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), format!("{password}\n").as_bytes()).unwrap();
    assert!(child.wait().unwrap().success());
    let addr = free_addr();
    let server = serve_logged(bin, addr, &data, &["--config", config.to_str().unwrap()], &log);
    let bearer = format!("Bearer {key}");
    let r = request(
        addr,
        "POST",
        "/api/v1/designs",
        &[("Authorization", &bearer)],
        Some(br#"{"format":"cd","name":"Logged"}"#),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let design = r.json()["designId"].as_str().unwrap().to_owned();
    assert_eq!(request(addr, "GET", "/api/v1/account", &[("Authorization", &bearer)], None).status, 200);
    // Sign in with the password: the form's CSRF token, then the session cookie.
    let form = request(addr, "GET", "/signin", &[], None);
    hardened("/signin", &form);
    let cookie = form.header("set-cookie").unwrap().split(';').next().unwrap().to_owned();
    let csrf = cookie.split_once('=').unwrap().1.to_owned();
    let body = format!("csrf={csrf}&email=ann%40example.org&password={}", password.replace(' ', "+"));
    let ok = request(
        addr,
        "POST",
        "/signin",
        &[("Cookie", &cookie), ("Content-Type", "application/x-www-form-urlencoded")],
        Some(body.as_bytes()),
    );
    assert_eq!(ok.status, 303, "{}", ok.body);
    let session = ok.header("set-cookie").unwrap().split(';').next().unwrap().to_owned();
    let session_value = session.split_once('=').unwrap().1.to_owned();
    let page = request(addr, "GET", "/account", &[("Cookie", &session)], None);
    assert_eq!(page.status, 200);
    hardened("/account", &page);
    for path in [
        format!("/design/{design}"),
        format!("/design/{design}/preview.svg"),
        "/design/des_missing".to_owned(),
        "/api/v1/errors".to_owned(),
        "/api/v1/decals/stickers/new.svg".to_owned(),
    ] {
        let r = request(addr, "GET", &path, &[], None);
        assert!(r.status == 200 || r.status == 404, "{path}: {}", r.status);
        hardened(&path, &r);
    }
    stop(server);
    let log = std::fs::read_to_string(&log).unwrap();
    let link_secret = std::fs::read_to_string(data.join("links.secret")).unwrap();
    assert_absent(
        &log,
        &[
            ("API key", &key),
            ("password", password),
            ("password as the form sent it", &password.replace(' ', "+")),
            ("session cookie", &session_value),
            ("CSRF token", &csrf),
            ("link secret", link_secret.trim()),
        ],
    );
}
