//! POST /fill (JSON and events), /fill/cancel and /fill/improve over the real binary.

mod common;

use std::time::{Duration, Instant};

use common::{open9, EventStream, Server};

const SQUARE: &str = r#"["...","...","..."]"#;

#[test]
fn fills_as_json_with_headers_and_quota() {
    let s = Server::start(&["en"], Some("[tiers.free]\nfills_per_month = 2\n"));
    let (_, key) = s.account_with_key("free", "");
    let h = [("X-Api-Key", key.as_str())];
    let r = s.post("/api/v1/fill", &h, &format!(r#"{{"grid":{SQUARE},"max_time":5}}"#));
    assert_eq!(r.status, 200, "{}", r.body);
    let body = r.json();
    assert_eq!((body["slotsFilled"].as_u64(), body["slotsTotal"].as_u64()), (Some(6), Some(6)));
    assert!(body.get("reason").is_none());
    assert_eq!(body["grid"].as_array().unwrap().len(), 3);
    assert_eq!(body["quality"]["scored"], 6);
    let session = r.header("x-fill-session-id").unwrap().to_owned();
    assert_eq!(body["sessionId"], session.as_str());
    assert_eq!(r.header("x-fill-quota-remaining"), Some("1"));
    assert!(r.header("x-ratelimit-limit").is_some());
    // The best fill avoids the weak WET/BET when the goal allows it.
    assert_eq!(body["grid"][2], "WEN", "{body}");
    // A fill that finds nothing still counts; then the quota is spent.
    let r = s.post("/api/v1/fill", &h, r#"{"grid":["QQQ","...","..."],"max_time":1}"#);
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["reason"], "too_difficult", "no entry starts with Q: proved at once");
    assert_eq!(r.header("x-fill-quota-remaining"), Some("0"));
    let r = s.post("/api/v1/fill", &h, &format!(r#"{{"grid":{SQUARE}}}"#));
    let doc = r.problem(429, "FILL_QUOTA_REACHED");
    assert_eq!(
        (doc["limit"].as_i64(), doc["remaining"].as_i64(), doc["tier"].as_str()),
        (Some(2), Some(0), Some("free"))
    );
    assert!(doc["upgradeUrl"].is_string() && doc["contact"].is_string());
    assert_eq!(r.header("x-fill-quota-remaining"), Some("0"));
    let expected = seconds_to_next_month();
    assert!(
        retry_after(&r).abs_diff(expected) <= 2,
        "Retry-After counts down to the first of next month, UTC: {expected}"
    );
    // An improve counts as a fill too.
    s.post("/api/v1/fill/improve", &h, r#"{"grid":["CAB","ODE","WET"]}"#).problem(429, "FILL_QUOTA_REACHED");
}

#[test]
fn fill_validation_names_fields_rows_and_columns() {
    let s = Server::start(&["en"], None);
    let (_, key) = s.account_with_key("starter", "");
    let h = [("X-Api-Key", key.as_str())];
    let cases = [
        (r#"{}"#, "grid"),
        (r#"{"grid":"..."}"#, "grid"),
        (r#"{"grid":["...","..."]}"#, "grid"),
        (r#"{"grid":["...","...",3]}"#, "grid[2]"),
        (r#"{"grid":["...","....","..."]}"#, "grid"),
        (r#"{"grid":["...",".3.","..."]}"#, "grid"),
        (r#"{"grid":["...","...","..."],"min_score":1001}"#, "min_score"),
        (r#"{"grid":["...","...","..."],"min_score":"40"}"#, "min_score"),
        (r#"{"grid":["...","...","..."],"max_time":0.5}"#, "max_time"),
        (r#"{"grid":["...","...","..."],"max_time":31}"#, "max_time"),
        (r#"{"grid":["...","...","..."],"try_hard_grid":"yes"}"#, "try_hard_grid"),
        (r#"{"grid":["...","...","..."],"language":5}"#, "language"),
    ];
    for (body, field) in cases {
        let doc = s.post("/api/v1/fill", &h, body).problem(400, "VALIDATION_ERROR");
        assert_eq!(doc["field"], field, "{body}");
    }
    let doc = s.post("/api/v1/fill", &h, r#"{"grid":["...",".3.","..."]}"#).problem(400, "VALIDATION_ERROR");
    assert_eq!((doc["row"].as_u64(), doc["col"].as_u64()), (Some(1), Some(1)));
    assert!(doc["detail"].as_str().unwrap().contains("row 1, column 1"));
    s.post("/api/v1/fill", &h, r#"{"grid":["...","...","..."],"language":"xx"}"#).problem(400, "LANGUAGE_UNAVAILABLE");
    s.post("/api/v1/fill", &h, r#"{"grid":["...","...","..."],"language":"ja"}"#).problem(503, "LANGUAGE_UNAVAILABLE");
    let (_, read_only) = s.account_with_key("starter", "read");
    let doc = s
        .post("/api/v1/fill", &[("X-Api-Key", &read_only)], r#"{"grid":["...","...","..."]}"#)
        .problem(403, "FORBIDDEN_SCOPE");
    assert_eq!(doc["requiredScope"], "solve");
    // Nothing was charged by any of these.
    let r = s.post("/api/v1/fill", &h, r#"{"grid":["...","...","..."],"max_time":2}"#);
    assert_eq!(r.header("x-fill-quota-remaining"), Some("199"));
}

#[test]
fn grids_over_the_plan_are_locked() {
    let s = Server::start(&["en"], None);
    let (_, key) = s.account_with_key("free", "");
    let grid = serde_json::to_string(&vec!["#".repeat(15); 15]).unwrap();
    let r = s.post("/api/v1/fill", &[("X-Api-Key", &key)], &format!(r#"{{"grid":{grid}}}"#));
    let doc = r.problem(403, "GRID_SIZE_LOCKED");
    assert_eq!((doc["maxGridSize"].as_u64(), doc["tier"].as_str()), (Some(13), Some("free")));
    assert!(doc["upgradeUrl"].is_string());
}

/// The `Retry-After` of a reply, in seconds.
fn retry_after(r: &common::Reply) -> u64 {
    r.header("retry-after").and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("no Retry-After: {}", r.body))
}

/// Seconds from now to 00:00 UTC on the first of next month, asked of GNU `date` (an oracle
/// apart from the server's calendar code).
fn seconds_to_next_month() -> u64 {
    let date = |args: &[&str]| {
        let out = std::process::Command::new("date").arg("-u").args(args).output().unwrap();
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    };
    let first = date(&["+%Y-%m-01"]);
    let next: u64 = date(&["-d", &format!("{first} +1 month"), "+%s"]).parse().unwrap();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    next - now
}

/// A JSON fill can be cancelled too, through a session id the client chose: it answers with
/// the partial grid and `reason: "cancelled"`. A full window on a fill operation carries the
/// fills left as well as `Retry-After`.
#[test]
fn a_cancelled_json_fill_says_so_and_every_429_has_its_headers() {
    let s = Server::start(&["it"], Some("[tiers.starter]\nreads_per_minute = 20\n"));
    let (_, key) = s.account_with_key("starter", "");
    let h = [("X-Api-Key", key.as_str())];
    let body = format!(r#"{{"grid":{},"language":"it","max_time":30,"session_id":"my-fill.1"}}"#, open9());
    let reply = std::thread::scope(|scope| {
        let fill = scope.spawn(|| s.post("/api/v1/fill", &h, &body));
        // Cancel once the fill runs (until then the id is unknown and nothing changes).
        let started = Instant::now();
        loop {
            let r = s.post("/api/v1/fill/cancel", &h, r#"{"session_id":"my-fill.1"}"#).json();
            if r["cancelled"] == true {
                break;
            }
            assert!(started.elapsed() < Duration::from_secs(20), "the fill never started: {r}");
            std::thread::sleep(Duration::from_millis(300));
        }
        fill.join().unwrap()
    });
    assert_eq!(reply.status, 200, "{}", reply.body);
    let result = reply.json();
    assert_eq!(result["reason"], "cancelled", "{result}");
    assert_eq!(result["sessionId"], "my-fill.1");
    assert_eq!(reply.header("x-fill-session-id"), Some("my-fill.1"));
    assert_eq!(result["grid"].as_array().map(Vec::len), Some(9));
    assert!(result["slotsFilled"].as_u64().unwrap() < result["slotsTotal"].as_u64().unwrap(), "{result}");
    // A session id outside the allowed characters is refused before anything runs.
    let doc = s
        .post("/api/v1/fill", &h, &format!(r#"{{"grid":{SQUARE},"language":"it","session_id":"a b"}}"#))
        .problem(400, "VALIDATION_ERROR");
    assert_eq!(doc["field"], "session_id");
    // Spend the rest of the 20-request window; each fill operation's 429 names the fills left.
    loop {
        let r = s.post("/api/v1/fill/cancel", &h, r#"{"session_id":"x"}"#);
        if r.status == 429 {
            break;
        }
    }
    for path in ["/api/v1/fill", "/api/v1/fill/improve", "/api/v1/fill/cancel"] {
        let r = s.post(path, &h, &format!(r#"{{"grid":{SQUARE},"language":"it","session_id":"x"}}"#));
        r.problem(429, "RATE_LIMITED");
        assert!((1..=60).contains(&retry_after(&r)), "{path}");
        assert_eq!(r.header("x-fill-quota-remaining"), Some("199"), "{path}: one fill was spent");
    }
}

#[test]
fn events_arrive_in_order() {
    let s = Server::start(&["en"], None);
    let (_, key) = s.account_with_key("starter", "");
    let mut events = EventStream::open(
        s.addr,
        "/api/v1/fill",
        &[("X-Api-Key", &key)],
        &format!(r#"{{"grid":{SQUARE},"max_time":5}}"#),
    );
    assert_eq!(events.status(), 200);
    assert_eq!(events.header("content-type"), Some("text/event-stream"));
    assert!(events.header("x-fill-session-id").is_some_and(|id| !id.is_empty()));
    let first = events.next_event().unwrap();
    assert_eq!(first["type"], "session");
    assert!(first["sessionId"].as_str().is_some_and(|id| !id.is_empty()));
    let mut last = None;
    while let Some(e) = events.next_event() {
        let kind = e["type"].as_str().unwrap().to_owned();
        assert!(
            last.as_deref() != Some("complete") && last.as_deref() != Some("error"),
            "nothing after the final event"
        );
        assert!(["progress", "complete", "error"].contains(&kind.as_str()), "{e}");
        last = Some(kind);
        if last.as_deref() == Some("complete") {
            assert_eq!(e["slotsFilled"], 6);
            assert_eq!(e["grid"].as_array().unwrap().len(), 3);
        }
    }
    assert_eq!(last.as_deref(), Some("complete"));
}

#[test]
fn busy_solver_cancel_and_disconnect() {
    let s = Server::start(&["it"], None);
    let (_, key) = s.account_with_key("starter", "");
    let h = [("X-Api-Key", key.as_str())];
    let body = format!(r#"{{"grid":{},"language":"it","max_time":30}}"#, open9());
    let mut first = EventStream::open(s.addr, "/api/v1/fill", &h, &body);
    let id1 = first.next_event().unwrap()["sessionId"].as_str().unwrap().to_owned();
    let mut second = EventStream::open(s.addr, "/api/v1/fill", &h, &body);
    let id2 = second.next_event().unwrap()["sessionId"].as_str().unwrap().to_owned();
    // A third fill of the same account is refused, not queued, not charged; the 429 carries
    // the contract's headers: a jittered few seconds, and the fills left (200 - 2).
    let r = s.post("/api/v1/fill", &h, &format!(r#"{{"grid":{SQUARE},"language":"it","max_time":1}}"#));
    r.problem(429, "SOLVER_BUSY");
    assert!((2..=5).contains(&retry_after(&r)), "{:?}", r.header("retry-after"));
    assert_eq!(r.header("x-fill-quota-remaining"), Some("198"));
    let r = s.post("/api/v1/fill/improve", &h, r#"{"grid":["CAB","ODE","WET"],"language":"it"}"#);
    r.problem(429, "SOLVER_BUSY");
    assert_eq!(r.header("x-fill-quota-remaining"), Some("198"));
    // Word searches are answered while both solves run (30 s each): not queued behind them.
    // (How fast they stay is measured by bench/scripts/load.sh, not here.)
    let started = Instant::now();
    for _ in 0..20 {
        assert_eq!(s.get("/api/v1/words?pattern=AB_&lang=it", &h).status, 200);
    }
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "20 searches took {:?} while the solver was busy: they waited for a solve",
        started.elapsed()
    );
    // Progress arrives while searching.
    let progress = first.next_event().unwrap();
    assert_eq!(progress["type"], "progress", "{progress}");
    assert!(progress["fill"].is_object());
    // Cancel the first by `session_id`; its stream ends promptly.
    let asked = Instant::now();
    let r = s.post("/api/v1/fill/cancel", &h, &format!(r#"{{"session_id":"{id1}"}}"#)).json();
    assert_eq!(r, serde_json::json!({"cancelled": true, "sessionId": id1}));
    let mut final_event = None;
    while let Some(e) = first.next_event() {
        final_event = Some(e);
    }
    // The fill had 30 s left; a stream that ends well before that was stopped by the cancel.
    assert!(asked.elapsed() < Duration::from_secs(15), "stream ended {:?} after the cancel", asked.elapsed());
    // It ends with an `error` event whose reason is `cancelled`, never with `complete`, and
    // carries what the solver had placed: the partial grid and its counts.
    let final_event = final_event.unwrap();
    assert_eq!((&final_event["type"], &final_event["reason"]), (&"error".into(), &"cancelled".into()), "{final_event}");
    assert_eq!(final_event["grid"].as_array().map(Vec::len), Some(9), "{final_event}");
    assert_eq!(final_event["slotsTotal"], 18, "{final_event}");
    assert!(final_event["slotsFilled"].as_u64().unwrap() < 18, "{final_event}");
    assert!(final_event["quality"].is_object(), "{final_event}");
    // Another account cannot cancel the second; `sessionId` spelling works for the owner.
    let (_, other) = s.account_with_key("starter", "");
    let r = s.post("/api/v1/fill/cancel", &[("X-Api-Key", &other)], &format!(r#"{{"sessionId":"{id2}"}}"#)).json();
    assert_eq!(r["cancelled"], false);
    // Disconnecting cancels: the account's places free up without a cancel call.
    drop(second);
    let started = Instant::now();
    loop {
        let r = s.post("/api/v1/fill", &h, &format!(r#"{{"grid":{SQUARE},"language":"it","max_time":1}}"#));
        if r.status == 200 {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(15), "the disconnected fill kept its place: {}", r.body);
        std::thread::sleep(Duration::from_millis(50));
    }
    // Unknown and finished ids change nothing.
    let r = s.post("/api/v1/fill/cancel", &h, &format!(r#"{{"session_id":"{id1}"}}"#)).json();
    assert_eq!(r["cancelled"], false);
    for (body, field) in
        [(r#"{}"#, "session_id"), (r#"{"session_id":""}"#, "session_id"), (r#"{"sessionId":7}"#, "sessionId")]
    {
        let doc = s.post("/api/v1/fill/cancel", &h, body).problem(400, "VALIDATION_ERROR");
        assert_eq!(doc["field"], field);
    }
    let long = format!(r#"{{"session_id":"{}"}}"#, "x".repeat(129));
    s.post("/api/v1/fill/cancel", &h, &long).problem(400, "VALIDATION_ERROR");
}

#[test]
fn improve_replaces_weak_entries_and_keeps_locked_cells() {
    let s = Server::start(&["en"], None);
    let (_, key) = s.account_with_key("starter", "");
    let h = [("X-Api-Key", key.as_str())];
    let weak = r#"["CAB","ODE","WET"]"#;
    let r = s.post("/api/v1/fill/improve", &h, &format!(r#"{{"grid":{weak},"max_time":5}}"#));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("x-fill-quota-remaining"), Some("199"));
    let body = r.json();
    assert_eq!(body["improved"], true, "{body}");
    assert_eq!(body["replaced"], 2);
    assert_eq!(body["grid"], serde_json::json!(["CAB", "ODE", "WEN"]));
    assert_eq!(body["quality"]["rough"], serde_json::json!([]));
    // Locking the T keeps WET and BET: nothing can improve.
    let body =
        s.post("/api/v1/fill/improve", &h, &format!(r#"{{"grid":{weak},"locked":["2,2"],"max_time":3}}"#)).json();
    assert_eq!(body["improved"], false, "{body}");
    assert!(body.get("grid").is_none());
    assert_eq!(body["quality"]["rough"].as_array().unwrap().len(), 2);
    // A clean fill is left alone.
    let body = s.post("/api/v1/fill/improve", &h, r#"{"grid":["CAB","ODE","WEN"]}"#).json();
    assert_eq!(body["improved"], false);
    for (locked, field) in [(r#"["9,9"]"#, "locked[0]"), (r#"["a,b"]"#, "locked[0]"), (r#""2,2""#, "locked")] {
        let doc = s
            .post("/api/v1/fill/improve", &h, &format!(r#"{{"grid":{weak},"locked":{locked}}}"#))
            .problem(400, "VALIDATION_ERROR");
        assert_eq!(doc["field"], field);
    }
}
