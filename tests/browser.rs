//! The public pages in a real browser: headless Chromium from Debian's packages, driven by npm
//! `playwright-core` (with npm `axe-core` for the accessibility scan), against the real server.
//! The checks themselves are in `tests/browser/player.mjs`; this test makes the puzzles, runs
//! the script and fails with its output. Set `CROSSWORD_SCREENSHOTS=DIR` to also write the
//! README's screenshots there.

mod common;

use std::process::Command;

use common::{bearer, request, Server};
use serde_json::{json, Value};

const PATRON: &str = "[tiers.patron]\nreads_per_minute = -1\n";

fn publish(s: &Server, key: &str, body: Value) -> String {
    let auth = bearer(key);
    let r = request(s.addr, "POST", "/api/v1/puzzles", &[("Authorization", &auth)], Some(body.to_string().as_bytes()));
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["id"].as_str().unwrap().to_owned()
}

fn full_clues(across: [&str; 3], down: [&str; 3]) -> Value {
    json!({ "across": { "1": across[0], "4": across[1], "5": across[2] }, "down": { "1": down[0], "2": down[1], "3": down[2] } })
}

#[test]
fn the_player_works_in_a_real_browser() {
    let s = Server::start(&["en", "he", "ja", "hi", "ru"], Some(PATRON));
    let (_, key) = s.account_with_key("patron", "");
    let en = publish(
        &s,
        &key,
        json!({ "title": "Mini", "author": "Ann Author", "showProfile": true, "publish": true,
        "grid": ["CAT", "ODE", "WET"], "clues": full_clues(["Pet", "Poem", "Damp"], ["Milk source", "Citrus drink", "Vietnamese new year"]) }),
    );
    let he = publish(
        &s,
        &key,
        json!({ "title": "תשבץ", "language": "he", "publish": true,
        "grid": ["אבג", "דהו", "זחט"], "clues": full_clues(["שורה ראשונה", "שורה שנייה", "שורה שלישית"], ["טור ראשון", "טור שני", "טור שלישי"]) }),
    );
    let ja = publish(
        &s,
        &key,
        json!({ "title": "クロスワード", "language": "ja", "publish": true,
        "grid": ["アイ#", "#ウエ", "##オ"], "clues": { "across": { "1": "愛", "3": "上" }, "down": { "2": "胃", "4": "尾" } } }),
    );
    let hi = publish(
        &s,
        &key,
        json!({ "title": "पहेली", "language": "hi", "publish": true,
        "grid": ["किताब", "##म", "##ल"], "clues": { "across": { "1": "पढ़ने की चीज़" }, "down": { "2": "एक फूल" } } }),
    );
    let ru = publish(
        &s,
        &key,
        json!({ "title": "Кроссворд", "language": "ru", "publish": true,
        "grid": ["КОТ", "ОДА", "ТАК"], "clues": full_clues(["Зверь", "Стих", "Так", ], ["Зверь", "Да", "Так"]) }),
    );
    let adult = publish(
        &s,
        &key,
        json!({ "title": "Late night", "publish": true,
        "grid": ["CAT", "ODE", "WET"], "clues": full_clues(["Erotica shelf pet", "Poem", "Damp"], ["Milk source", "Citrus drink", "Tet"]) }),
    );
    let hostile = publish(
        &s,
        &key,
        json!({ "title": "<script>alert(1)</script>", "author": "<img src=x onerror=alert(2)>", "publish": true,
        "grid": ["CAT", "ODE", "WET"], "clues": full_clues(["<b>Pet</b>", "Poem", "Damp"], ["Milk source", "Citrus drink", "Tet"]) }),
    );
    // A larger puzzle for the screenshots, in the showcase.
    let shot = publish(
        &s,
        &key,
        json!({ "title": "Five by five", "author": "Ann Author", "showProfile": true, "publish": true,
        "grid": ["HEART", "EMBER", "ABUSE", "RESIN", "TREND"],
        "clues": { "across": { "1": "Organ that pumps", "6": "Glowing coal", "7": "Misuse", "8": "Pine secretion", "9": "Fashion direction" },
                   "down": { "1": "Listen", "2": "Nebraska city, informally?", "3": "Indian tree", "4": "Bird of Arabia", "5": "Chess piece" } } }),
    );
    let auth = bearer(&key);
    for id in [&en, &shot] {
        let path = format!("/api/v1/puzzles/{id}/publish");
        let r = request(s.addr, "POST", &path, &[("Authorization", &auth)], Some(br#"{"submitToShowcase":true}"#));
        assert_eq!(r.status, 200, "{}", r.body);
        std::thread::sleep(std::time::Duration::from_millis(200));
        s.admin(&["showcase", "approve", id]);
    }
    let tools = common::browser_tools();
    let dir = tempfile::tempdir().unwrap();
    let config = json!({
        "base": format!("http://{}", s.addr),
        "tools": tools,
        "screenshots": std::env::var("CROSSWORD_SCREENSHOTS").ok(),
        "puzzles": {
            "en": { "id": en },
            "he": { "id": he, "across1": "שורה ראשונה", "rows": ["אבג", "דהו", "זחט"] },
            "ja": { "id": ja, "start": 0, "cells": [0, 1], "typed": "あい", "expected": "アイ" },
            "hi": { "id": hi, "typed": "किताब", "cells": [0, 1, 2], "expected": ["कि", "ता", "ब"] },
            "ru": { "id": ru },
            "adult": { "id": adult },
            "hostile": { "id": hostile },
            "shot": { "id": shot, "start": 0, "typed": "HEART" }
        }
    });
    let config_path = dir.path().join("config.json");
    std::fs::write(&config_path, config.to_string()).unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/player.mjs");
    let out = Command::new("node").arg(script).arg(&config_path).output().expect("node is needed");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(out.status.success(), "browser checks failed:\n{stdout}\n{stderr}");
    assert!(stdout.lines().filter(|l| l.starts_with("ok - ")).count() >= 25, "too few checks ran:\n{stdout}");
}
