//! The MCP connector and its OAuth server with independent clients: the official MCP Python SDK
//! (PyPI `mcp`, pinned) in both protocol modes, its OAuth client with the approval page in
//! headless Chromium, and a hand-written client following the RFCs. The checks are in
//! `tests/mcp/connector.py`; each test here prepares a server and accounts and runs one part.

mod common;

use std::path::Path;
use std::process::Command;

use common::covers::{admin, set_password, start, Covers};
use serde_json::{json, Value};

/// A server with `config`, a partner account with a password and the keys the checks use.
fn setup(dir: &Path, config: &str) -> (Covers, Value) {
    let config_path = dir.join("covers.toml");
    std::fs::write(&config_path, config).unwrap();
    let data = dir.join("data");
    let covers = start(&data, &config_path);
    let email = "person@example.org";
    let account =
        admin(&data, &["account", "create", "--plan", "partner", "--email", email])["id"].as_str().unwrap().to_owned();
    set_password(&data, &account, "correct horse battery");
    let key = |account: &str, scopes: &[&str]| {
        let mut args = vec!["key", "create", "--account", account];
        let joined = scopes.join(",");
        if !scopes.is_empty() {
            args.extend(["--scopes", joined.as_str()]);
        }
        admin(&data, &args)["key"].as_str().unwrap().to_owned()
    };
    let free = admin(&data, &["account", "create", "--plan", "free"])["id"].as_str().unwrap().to_owned();
    let settings = json!({
        "base": format!("http://{}", covers.addr),
        "key": key(&account, &[]),
        "readKey": key(&account, &["read"]),
        "freeKey": key(&free, &[]),
        "accountId": account,
        "email": email,
        "password": "correct horse battery",
        "workDir": dir,
    });
    (covers, settings)
}

/// Runs one part of `tests/mcp/connector.py`; its output.
fn run_part(part: &str, dir: &Path, settings: &Value, at_least: usize) -> String {
    let config_path = dir.join(format!("{part}.json"));
    std::fs::write(&config_path, settings.to_string()).unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp/connector.py");
    let out = Command::new(common::mcp_python()).arg(script).arg(part).arg(&config_path).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(out.status.success(), "MCP checks ({part}) failed:\n{stdout}\n{stderr}");
    let passed = stdout.lines().filter(|l| l.starts_with("ok - ")).count();
    assert!(passed >= at_least, "only {passed} checks ran:\n{stdout}");
    stdout
}

/// The 16 tools in both protocol modes, signed out and with keys, every result checked against
/// its output schema; the conversation (search, compose, save, upload, place, export, poll,
/// download); the plan and scope errors as tool errors with the REST codes.
#[test]
fn the_sdk_calls_every_tool_in_both_protocol_modes() {
    let dir = tempfile::tempdir().unwrap();
    let (_covers, settings) = setup(dir.path(), "");
    run_part("tools", dir.path(), &settings, 120);
}

/// The OAuth server by the RFCs, by hand: PKCE, exact redirect URIs, no open redirect,
/// single-use and short-lived codes, refresh rotation and reuse, audience, revocation, client
/// metadata documents, CSRF on the approval, and the Host and Origin checks on `/mcp`.
#[test]
fn the_oauth_server_keeps_its_promises() {
    let dir = tempfile::tempdir().unwrap();
    let (_covers, mut settings) =
        setup(dir.path(), "[oauth]\ncode_seconds = 2\naccess_token_seconds = 600\nallow_http_client_metadata = true\n");
    settings["codeSeconds"] = 2.into();
    run_part("security", dir.path(), &settings, 30);
}

/// The whole sign-in as an AI app does it, driven by the SDK's OAuth client: discovery,
/// registration, PKCE, the approval page in Chromium, tokens, refresh (4-second access tokens),
/// approved once, and an app disconnected on the account page refused at once.
#[test]
fn an_app_signs_in_with_the_sdks_oauth_client() {
    let dir = tempfile::tempdir().unwrap();
    let (_covers, mut settings) = setup(dir.path(), "[oauth]\naccess_token_seconds = 4\n");
    settings["accessSeconds"] = 4.into();
    settings["tools"] = json!(common::browser_tools());
    settings["consentScript"] = json!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/consent.mjs"));
    run_part("oauth", dir.path(), &settings, 12);
}
