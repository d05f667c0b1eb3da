//! The cover designer in a real browser: headless Chromium from Debian's packages, driven by npm
//! `playwright-core`, against `covers serve`. The checks are in `tests/browser/designer.mjs`:
//! a compose link opens the designer populated; dragging a decal, resizing it and editing a text
//! change the server's preview; undo and redo; colours, finish and hidden fields; the downloaded
//! preview PNG is byte for byte the server's render. `COVERS_SCREENSHOT=FILE` also writes a
//! screenshot (the one in the README).

mod common;

use std::process::Command;

use common::covers::{set_password, start};
use common::request;
use serde_json::json;

#[test]
fn the_designer_works_in_a_real_browser() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("covers.toml");
    std::fs::write(&config, "").unwrap();
    let covers = start(&dir.path().join("data"), &config);
    let addr = covers.addr;
    let body = json!({ "format": "dvd-cover", "content": { "type": "movie", "query": "Metropolis 1927" },
        "decals": [{ "id": "stickers/new", "x": 60, "y": 30, "width": 10 }],
        "texts": [{ "text": "Restored", "x": 75, "y": 88, "size": 4 }] });
    let r = request(addr, "POST", "/api/compose", &[], Some(body.to_string().as_bytes()));
    assert_eq!(r.status, 200, "{}", r.body);
    let url = r.json()["url"].as_str().unwrap().to_owned();
    let tools = common::browser_tools();
    let config = json!({
        "base": format!("http://{addr}"),
        "tools": tools,
        "link": "/api/compose?format=slipcover&q=Nosferatu%201922",
        "design": &url[url.find("/design/").unwrap()..],
        "screenshot": std::env::var("COVERS_SCREENSHOT").ok(),
    });
    let config_path = dir.path().join("config.json");
    std::fs::write(&config_path, config.to_string()).unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/designer.mjs");
    let out = Command::new("node").arg(script).arg(&config_path).output().expect("node is needed");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(out.status.success(), "browser checks failed:\n{stdout}\n{stderr}");
    assert!(stdout.lines().filter(|l| l.starts_with("ok - ")).count() >= 18, "too few checks ran:\n{stdout}");
}

/// Sign-in, CSRF, saving from the designer, owner edits, exports started from the page,
/// read-only designs of other accounts, sign-out and session expiry, in headless Chromium
/// (`tests/browser/account.mjs`). A second server with 3-second sessions shows expiry.
#[test]
fn signed_in_designer_saves_and_exports_in_a_real_browser() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("covers.toml");
    std::fs::write(&config, "").unwrap();
    let data = dir.path().join("data");
    let covers = start(&data, &config);
    let owner = common::covers::admin(
        &data,
        &["account", "create", "--plan", "starter", "--email", "owner@example.org", "--name", "Owner"],
    )["id"]
        .as_str()
        .unwrap()
        .to_owned();
    set_password(&data, &owner, "correct horse battery");
    // A design of another account, for the read-only view.
    let (_, other_key) = common::covers::account_with_key(&data, "starter");
    let body = json!({ "format": "cd-insert", "name": "Not yours", "content": { "type": "album", "query": "Kind of Blue" },
        "texts": [{ "text": "Theirs", "x": 50, "y": 50, "size": 6 }] });
    let r = request(
        covers.addr,
        "POST",
        "/api/v1/designs",
        &[("authorization", &other_key)],
        Some(body.to_string().as_bytes()),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let other_design = r.json()["designId"].as_str().unwrap().to_owned();

    let short_dir = dir.path().join("short");
    std::fs::create_dir_all(&short_dir).unwrap();
    let short_config = short_dir.join("covers.toml");
    std::fs::write(&short_config, "[service]\nsession_lifetime_seconds = 3\n").unwrap();
    let short_data = short_dir.join("data");
    let short = start(&short_data, &short_config);
    let short_account =
        common::covers::admin(&short_data, &["account", "create", "--plan", "free"])["id"].as_str().unwrap().to_owned();
    let link = common::covers::admin(&short_data, &["account", "login-link", &short_account])["url"]
        .as_str()
        .unwrap()
        .to_owned();

    let config = json!({
        "base": format!("http://{}", covers.addr),
        "tools": common::browser_tools(),
        "email": "owner@example.org",
        "password": "correct horse battery",
        "otherDesign": other_design,
        "shortBase": format!("http://{}", short.addr),
        "loginLink": &link[link.find("/signin/").unwrap()..],
    });
    let config_path = dir.path().join("config.json");
    std::fs::write(&config_path, config.to_string()).unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/account.mjs");
    let out = Command::new("node").arg(script).arg(&config_path).output().expect("node is needed");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(out.status.success(), "browser checks failed:\n{stdout}\n{stderr}");
    assert!(stdout.lines().filter(|l| l.starts_with("ok - ")).count() >= 20, "too few checks ran:\n{stdout}");
    // What the browser saved and edited is in the account, as the API sees it.
    let key = common::covers::admin(&data, &["key", "create", "--account", &owner])["key"].as_str().unwrap().to_owned();
    let auth = format!("Bearer {key}");
    let r = request(covers.addr, "GET", "/api/v1/designs", &[("authorization", &auth)], None);
    let items = r.json()["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 1, "{}", r.body);
    assert_eq!(items[0]["name"], "My Metropolis");
    let id = items[0]["designId"].as_str().unwrap();
    let r = request(covers.addr, "GET", &format!("/api/v1/designs/{id}"), &[("authorization", &auth)], None);
    assert_eq!(r.json()["intent"]["style"]["labelColor"], "#ffcc00", "the owner's edit was kept: {}", r.body);
    assert_eq!(r.json()["intent"]["style"]["background"]["color"], "#204060", "the edit before saving was kept");
}
