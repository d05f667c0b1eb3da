//! The cover designer in a real browser: headless Chromium from Debian's packages, driven by npm
//! `playwright-core`, against `covers serve`. The checks are in `tests/browser/designer.mjs`:
//! a compose link opens the designer populated; dragging a decal, resizing it and editing a text
//! change the server's preview; undo and redo; colours, finish and hidden fields; the downloaded
//! preview PNG is byte for byte the server's render. `COVERS_SCREENSHOT=FILE` also writes a
//! screenshot (the one in the README).

mod common;

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::request;
use serde_json::json;

struct Covers {
    child: std::process::Child,
}

impl Drop for Covers {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_designer_works_in_a_real_browser() {
    let dir = tempfile::tempdir().unwrap();
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let _covers = Covers {
        child: Command::new(env!("CARGO_BIN_EXE_covers"))
            .args(["serve", "--listen", &addr.to_string(), "--data-dir", dir.path().to_str().unwrap()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    };
    let started = Instant::now();
    while TcpStream::connect(addr).is_err() {
        assert!(started.elapsed() < Duration::from_secs(20), "covers did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
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
