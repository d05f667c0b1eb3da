//! Races on the crossword service's limits, against the real binary: many requests started at
//! the same moment (behind a barrier) must never pass a plan's limit, and what is refused is
//! neither charged nor half-applied. (Idempotency keys and the monthly puzzle quota under
//! parallel creates are raced in `tests/puzzles_api.rs`.)

mod common;

use std::time::{Duration, Instant};

use common::{at_once, bearer, request, tally, EventStream, Server};
use serde_json::{json, Value};

const SQUARE: &str = r#"["...","...","..."]"#;

#[test]
fn the_two_fill_limit_holds_under_parallel_starts() {
    let s = Server::start(&["it"], Some("[limits]\nsolver_threads = 6\n"));
    let (_, key) = s.account_with_key("starter", "");
    let h = [("X-Api-Key", key.as_str())];
    let body = format!(r#"{{"grid":{},"language":"it","max_time":30}}"#, common::open9());
    let streams = at_once(10, |_| EventStream::open(s.addr, "/api/v1/fill", &h, &body));
    let running = streams.iter().filter(|e| e.status() == 200).count();
    assert_eq!(running, 2, "two fills per account, however many start at once");
    assert!(streams.iter().all(|e| e.status() == 200 || e.status() == 429));
    // Only the two admitted fills are charged (the starter plan has 200).
    let r = s.post("/api/v1/fill", &h, &format!(r#"{{"grid":{SQUARE},"language":"it","max_time":1}}"#));
    r.problem(429, "SOLVER_BUSY");
    assert_eq!(r.header("x-fill-quota-remaining"), Some("198"));
    // The cap is the account's: another account still fills while these two run.
    let (_, other) = s.account_with_key("starter", "");
    let r = s.post(
        "/api/v1/fill",
        &[("X-Api-Key", &other)],
        &format!(r#"{{"grid":{SQUARE},"language":"it","max_time":1}}"#),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    drop(streams);
}

#[test]
fn parallel_fills_never_pass_the_monthly_quota() {
    let s = Server::start(
        &["en"],
        Some("[tiers.free]\nfills_per_month = 3\n[limits]\nfills_per_account = 16\nsolver_threads = 16\n"),
    );
    let (_, key) = s.account_with_key("free", "");
    let h = [("X-Api-Key", key.as_str())];
    let body = format!(r#"{{"grid":{SQUARE},"max_time":2}}"#);
    let replies = at_once(12, |_| s.post("/api/v1/fill", &h, &body));
    let (ok, codes) = tally(&replies);
    assert_eq!((ok, codes), (3, vec!["429 FILL_QUOTA_REACHED".to_owned()]));
    let r = s.post("/api/v1/fill/improve", &h, r#"{"grid":["CAB","ODE","WET"]}"#);
    assert_eq!(r.problem(429, "FILL_QUOTA_REACHED")["remaining"], 0);
}

#[test]
fn parallel_ai_clue_requests_never_pass_the_monthly_quota() {
    let s = Server::start(&["en"], Some("[tiers.starter]\nai_clues_per_month = 3\nreads_per_minute = -1\n"));
    let (_, key) = s.account_with_key("starter", "");
    let auth = bearer(&key);
    let h = [("Authorization", auth.as_str())];
    let replies = at_once(12, |_| s.post("/api/v1/clues/generate", &h, r#"{"word":"cat"}"#));
    let (ok, codes) = tally(&replies);
    assert_eq!((ok, codes), (3, vec!["429 AI_QUOTA_REACHED".to_owned()]));
    let remaining: Vec<u64> =
        replies.iter().filter(|r| r.status == 200).map(|r| r.json()["remaining"].as_u64().unwrap()).collect();
    let mut sorted = remaining.clone();
    sorted.sort();
    assert_eq!(sorted, [0, 1, 2], "each success saw its own count: {remaining:?}");
}

#[test]
fn the_showcase_queue_cap_holds_under_parallel_publishes() {
    let s = Server::start(&["en"], Some("[tiers.patron]\nreads_per_minute = -1\n"));
    let (_, key) = s.account_with_key("patron", "");
    let auth = bearer(&key);
    let h = [("Authorization", auth.as_str())];
    let ids: Vec<String> = (0..8)
        .map(|i| {
            let body = json!({
                "title": format!("Queue {i}"),
                "grid": ["CAT", "ODE", "WET"],
                "clues": {
                    "across": { "1": "Pet", "4": "Poem", "5": "Damp" },
                    "down": { "1": "Milk source", "2": "Citrus drink", "3": "Vietnamese new year" }
                }
            });
            let r = s.post("/api/v1/puzzles", &h, &body.to_string());
            assert_eq!(r.status, 201, "{}", r.body);
            r.json()["id"].as_str().unwrap().to_owned()
        })
        .collect();
    let replies = at_once(ids.len(), |i| {
        s.post(&format!("/api/v1/puzzles/{}/publish", ids[i]), &h, r#"{"submitToShowcase":true}"#)
    });
    let (ok, codes) = tally(&replies);
    assert_eq!((ok, codes), (3, vec!["409 SHOWCASE_QUEUE_FULL".to_owned()]));
    // A refused publish applied nothing: those puzzles are still drafts, never queued.
    let mut queued = 0;
    for (id, r) in ids.iter().zip(&replies) {
        let p = request(s.addr, "GET", &format!("/api/v1/puzzles/{id}"), &h, None).json();
        if r.status == 200 {
            queued += 1;
            // Queued: pending, or pre-approved once the automatic pre-check has run.
            assert_eq!(p["status"], "published");
            assert!(["pending", "pre_approved"].contains(&p["showcaseStatus"].as_str().unwrap()), "{p}");
        } else {
            assert_eq!((p["status"].as_str(), &p["showcaseStatus"]), (Some("draft"), &Value::Null), "{p}");
        }
    }
    assert_eq!(queued, 3);
    assert_eq!(s.admin(&["showcase", "list"])["queue"].as_array().map(Vec::len), Some(3));
}

#[test]
fn the_read_window_holds_under_parallel_reads() {
    let s = Server::start(&["en"], Some("[tiers.free]\nreads_per_minute = 10\n"));
    let (_, key) = s.account_with_key("free", "");
    // Not across a minute's turn, in case a window is a calendar minute.
    let started = Instant::now();
    while std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() % 60 > 50 {
        assert!(started.elapsed() < Duration::from_secs(15));
        std::thread::sleep(Duration::from_millis(200));
    }
    let replies = at_once(40, |_| s.get("/api/v1/words?pattern=C_T", &[("X-Api-Key", &key)]));
    let (ok, codes) = tally(&replies);
    assert_eq!((ok, codes), (10, vec!["429 RATE_LIMITED".to_owned()]));
    let mut remaining: Vec<u64> = replies
        .iter()
        .filter(|r| r.status == 200)
        .map(|r| r.header("x-ratelimit-remaining").unwrap().parse().unwrap())
        .collect();
    remaining.sort();
    assert_eq!(remaining, (0..10).collect::<Vec<u64>>(), "each read saw its own place in the window");
}
