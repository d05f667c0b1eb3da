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
    std::fs::write(
        &config,
        "[plans.free]\ndesigns = 5\ndaily_exports = -1\n[plans.starter]\ndesigns = 3\ndaily_composes = 4\n",
    )
    .unwrap();
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

#[test]
fn saved_designs_limits_quotas_and_pages() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let config = dir.path().join("covers.toml");
    std::fs::write(&config, "[plans.starter]\ndesigns = 3\ndaily_composes = 4\n").unwrap();
    let c = start(&data, &config);
    let id = admin(&data, &["account", "create", "--plan", "starter"])["id"].as_str().unwrap().to_owned();
    let other = admin(&data, &["account", "create", "--plan", "patron"])["id"].as_str().unwrap().to_owned();
    let key = format!("Bearer {}", admin(&data, &["key", "create", "--account", &id])["key"].as_str().unwrap());
    let reader = format!(
        "Bearer {}",
        admin(&data, &["key", "create", "--account", &id, "--scopes", "read"])["key"].as_str().unwrap()
    );
    let stranger = format!("Bearer {}", admin(&data, &["key", "create", "--account", &other])["key"].as_str().unwrap());
    let save = |auth: &str, body: &str| {
        request(c.addr, "POST", "/api/v1/designs", &[("Authorization", auth)], Some(body.as_bytes()))
    };
    // Compose and save in one call.
    let r = save(
        &key,
        r#"{"format":"dvd-cover","content":{"type":"movie","query":"Metropolis"},"name":"Mine","style":{"glow":1}}"#,
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let first = r.json();
    let first_id = first["designId"].as_str().unwrap().to_owned();
    assert!(first_id.starts_with("des_") && first["url"].as_str().unwrap().ends_with(&first_id));
    assert_eq!(first["unsupported"][0]["field"], "style.glow");
    // The designer opens it.
    let page = request(c.addr, "GET", &format!("/design/{first_id}"), &[], None);
    assert!(page.status == 200 && page.body.contains("Metropolis (1927)"));
    assert_eq!(save(&reader, r#"{"format":"cd"}"#).json()["code"], "FORBIDDEN_SCOPE");
    assert_eq!(save(&key, r#"{"format":"betamax"}"#).json()["field"], "format");
    let r = save(&key, r#"{"format":"cd","decals":[{"id":"stickers/none"}]}"#);
    assert_eq!((r.status, r.json()["code"].as_str()), (422, Some("UNKNOWN_DECAL")));
    assert_eq!(save(&key, r#"{"format":"jcard","name":"Second"}"#).status, 201);
    assert_eq!(save(&key, r#"{"format":"cd-tray","name":"Third"}"#).status, 201);
    // The plan keeps 3: a fourth is refused (and costs no compose).
    let r = save(&key, r#"{"format":"cd","name":"Fourth"}"#);
    assert_eq!(
        (r.status, r.json()["code"].as_str(), r.json()["limit"].as_u64()),
        (402, Some("TIER_REQUIRED"), Some(3))
    );
    // Pages, newest first.
    let list =
        |q: &str| request(c.addr, "GET", &format!("/api/v1/designs{q}"), &[("Authorization", &reader)], None).json();
    let p1 = list("?limit=2");
    let names: Vec<&str> = p1["items"].as_array().unwrap().iter().map(|d| d["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 2);
    let cursor = p1["nextCursor"].as_str().unwrap().to_owned();
    let p2 = list(&format!("?limit=2&cursor={cursor}"));
    assert_eq!((p2["items"].as_array().unwrap().len(), p2["nextCursor"].clone()), (1, Value::Null));
    let all: Vec<String> =
        list("")["items"].as_array().unwrap().iter().map(|d| d["designId"].as_str().unwrap().to_owned()).collect();
    assert_eq!(all.last(), Some(&first_id), "newest first: the first saved comes last");
    assert_eq!(list("?limit=0")["field"], "limit");
    assert_eq!(list("?cursor=des_gone")["field"], "cursor");
    // One design with its intent; not another account's.
    let one =
        request(c.addr, "GET", &format!("/api/v1/designs/{first_id}"), &[("Authorization", &reader)], None).json();
    assert_eq!((one["name"].as_str(), one["intent"]["format"].as_str()), (Some("Mine"), Some("dvd-cover")));
    assert_eq!(
        request(c.addr, "GET", &format!("/api/v1/designs/{first_id}"), &[("Authorization", &stranger)], None).status,
        404
    );
    assert_eq!(
        request(c.addr, "DELETE", &format!("/api/v1/designs/{first_id}"), &[("Authorization", &stranger)], None).status,
        404
    );
    // Deleting frees a slot; the compose quota (4 a day) then stops the fifth compose.
    assert_eq!(
        request(c.addr, "DELETE", &format!("/api/v1/designs/{first_id}"), &[("Authorization", &key)], None).status,
        204
    );
    assert_eq!(
        request(c.addr, "GET", &format!("/api/v1/designs/{first_id}"), &[("Authorization", &key)], None).status,
        404
    );
    assert_eq!(save(&key, r#"{"format":"cd","name":"Again"}"#).status, 201);
    assert_eq!(
        request(c.addr, "DELETE", &format!("/api/v1/designs/{}", all[0]), &[("Authorization", &key)], None).status,
        204
    );
    let r = save(&key, r#"{"format":"cd","name":"Over quota"}"#);
    assert_eq!(
        (r.status, r.json()["code"].as_str(), r.json()["quota"].as_str()),
        (429, Some("QUOTA_REACHED"), Some("composes"))
    );
    let retry: u64 = r.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=86_400).contains(&retry));
    let account = request(c.addr, "GET", "/api/v1/account", &[("Authorization", &reader)], None).json();
    assert_eq!((account["designs"]["count"].as_u64(), account["quotas"]["composesLeft"].as_u64()), (Some(2), Some(0)));
}
