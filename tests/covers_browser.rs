//! The cover designer in a real browser: headless Chromium from Debian's packages, driven by npm
//! `playwright-core`, against `covers serve`. The checks are in `tests/browser/designer.mjs`:
//! a compose link opens the designer populated; dragging a decal, resizing it and editing a text
//! change the server's preview; undo and redo; colours, finish and hidden fields; the downloaded
//! preview PNG is byte for byte the server's render. `COVERS_SCREENSHOT=FILE` also writes a
//! screenshot (the one in the README).

mod common;

use std::process::Command;

use common::covers::start;
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
