//! Cover-service accounts, plans and keys through the real binary: `covers admin` with and
//! without a running server, `GET /api/v1/account` with every authentication outcome, scopes,
//! plan numbers from the configuration, open CORS on keyed routes only, and the admin endpoint
//! hidden from everyone else.

mod common;

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::request;
use serde_json::Value;

struct Covers {
    addr: SocketAddr,
    child: std::process::Child,
}

impl Drop for Covers {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(data: &Path, config: &Path) -> Covers {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
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

fn admin(data: &Path, args: &[&str]) -> Value {
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

#[test]
fn accounts_keys_scopes_and_plans() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    // Without a server the command opens the database itself.
    let offline = admin(&data, &["account", "create", "--plan", "starter", "--name", "Offline shop"]);
    assert!(offline["id"].as_str().unwrap().starts_with("acct_"));
    assert_eq!(offline["plan"], "starter");
    let config = dir.path().join("covers.toml");
    std::fs::write(&config, "[plans.free]\ndesigns = 5\ndaily_exports = -1\n").unwrap();
    let c = start(&data, &config);
    // With the server running, through its loopback admin endpoint.
    let account = admin(&data, &["account", "create", "--plan", "free", "--email", "ann@example.org"]);
    let id = account["id"].as_str().unwrap().to_owned();
    let full = admin(&data, &["key", "create", "--account", &id]);
    let secret = full["key"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("cvr_live_") && secret.len() == 41, "{secret}");
    assert_eq!(full["scopes"], serde_json::json!(["read", "design:write", "export"]));
    let export_only = admin(&data, &["key", "create", "--account", &id, "--scopes", "export"]);
    let listed = admin(&data, &["key", "list", "--account", &id]);
    let listed_text = listed.to_string();
    assert_eq!(listed["keys"].as_array().unwrap().len(), 2);
    assert!(!listed_text.contains(&secret[9..]) && !listed_text.contains("hash"), "never the secret or its hash");

    let auth = |key: &str| format!("Bearer {key}");
    let get = |headers: &[(&str, &str)]| request(c.addr, "GET", "/api/v1/account", headers, None);
    // No key, a malformed key, an unknown key, a key without the scope.
    let r = get(&[]);
    assert_eq!((r.status, r.json()["code"].as_str()), (401, Some("API_KEY_REQUIRED")));
    assert!(r.header("www-authenticate").unwrap().starts_with("Bearer"));
    assert_eq!(r.header("content-type"), Some("application/problem+json"));
    assert_eq!(get(&[("Authorization", "Bearer nope")]).json()["code"], "API_KEY_INVALID");
    let unknown = format!("cvr_live_{}", "A".repeat(32));
    let r = get(&[("Authorization", &auth(&unknown))]);
    assert_eq!((r.status, r.json()["code"].as_str()), (401, Some("API_KEY_INVALID")));
    let r = get(&[("Authorization", &auth(export_only["key"].as_str().unwrap()))]);
    assert_eq!(
        (r.status, r.json()["code"].as_str(), r.json()["requiredScope"].as_str()),
        (403, Some("FORBIDDEN_SCOPE"), Some("read"))
    );
    // The account: plan numbers from the configuration over the defaults.
    let r = get(&[("Authorization", &auth(&secret)), ("Origin", "https://shop.example")]);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"), "open CORS on keyed routes");
    let a = r.json();
    assert_eq!((a["id"].as_str(), a["plan"].as_str()), (Some(id.as_str()), Some("free")));
    assert_eq!(a["designs"]["limit"], 5, "from [plans.free]");
    assert_eq!(a["quotas"]["exportsLeft"], Value::Null, "-1: unlimited");
    assert_eq!(a["quotas"]["composesLeft"], 50, "the default");
    assert_eq!(a["outputs"], serde_json::json!(["preview"]));
    assert!(a["resetsAt"].as_str().unwrap().ends_with("T00:00:00.000Z"), "quotas reset at midnight UTC");
    // A preflight is answered on keyed routes; other routes have no CORS.
    let r = request(
        c.addr,
        "OPTIONS",
        "/api/v1/account",
        &[("Origin", "https://shop.example"), ("Access-Control-Request-Method", "GET")],
        None,
    );
    assert_eq!(r.status, 204);
    assert!(r.header("access-control-allow-headers").unwrap().contains("Authorization"));
    assert_eq!(
        request(c.addr, "GET", "/api/v1/formats", &[("Origin", "https://x.example")], None)
            .header("access-control-allow-origin"),
        None
    );
    // A new plan applies at once; a revoked key is refused for good.
    assert_eq!(admin(&data, &["account", "set-plan", &id, "patron"])["plan"], "patron");
    assert_eq!(get(&[("Authorization", &auth(&secret))]).json()["designs"]["limit"], Value::Null);
    let revoked = admin(&data, &["key", "revoke", full["id"].as_str().unwrap()]);
    assert!(revoked["revokedAt"].is_u64());
    assert_eq!(get(&[("Authorization", &auth(&secret))]).json()["code"], "API_KEY_INVALID");
    // Unknown accounts and keys are errors of the command.
    let out = Command::new(env!("CARGO_BIN_EXE_covers"))
        .args(["admin", "key", "revoke", "key_nothing", "--data-dir"])
        .arg(&data)
        .output()
        .unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("not found"));
    // The admin endpoint is invisible without the data directory's secret.
    let r = request(c.addr, "POST", "/admin/v1/command", &[], Some(br#"{"op":"key.list","account":"x"}"#));
    assert_eq!(r.status, 404);
    assert!(request(c.addr, "GET", "/api/v1/errors", &[], None).body.contains("TIER_REQUIRED"));
}
