//! The puzzle operations over HTTP, against the real binary: storage, idempotency and quota
//! races, edits with history, publishing and showcase review, safety, difficulty, visibility,
//! deletion, and a restart between writes and reads.

mod common;

use std::time::{Duration, Instant};

use common::{mini, send, Reply, Server};
use serde_json::{json, Value};

const PATRON: &str = "[tiers.patron]\nreads_per_minute = -1\n";

fn create(s: &Server, key: &str, body: &Value) -> Value {
    let r = send(s, "POST", "/api/v1/puzzles", key, Some(body), &[]);
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < Duration::from_secs(10), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(25));
    }
}

#[test]
fn create_read_list_and_visibility() {
    let s = Server::start(&["en", "pt"], Some(PATRON));
    let (_, key) = s.account_with_key("patron", "");
    let (_, other) = s.account_with_key("patron", "");
    let r = send(&s, "POST", "/api/v1/puzzles", &key, Some(&mini("First")), &[]);
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.header("x-puzzle-quota-remaining"), Some("1999"));
    let p = r.json();
    let id = p["id"].as_str().unwrap().to_owned();
    assert!(id.len() == 8 && id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()), "{id}");
    assert!(r.header("location").unwrap().ends_with(&format!("/api/v1/puzzles/{id}")));
    assert_eq!((p["size"].as_u64(), p["status"].as_str(), p["version"].as_u64()), (Some(3), Some("draft"), Some(1)));
    assert_eq!(p["showcaseStatus"], Value::Null);
    assert_eq!(p["difficulty"], Value::Null);
    assert_eq!(p["noIndex"], true, "unlisted unless noIndex is false");
    assert!(p.get("url").is_none(), "a draft has no public page");
    for field in ["createdAt", "updatedAt"] {
        assert!(p[field].as_str().unwrap().ends_with('Z'), "{p}");
    }
    // The owner reads it; another account does not even learn that it exists.
    assert_eq!(send(&s, "GET", &format!("/api/v1/puzzles/{id}"), &key, None, &[]).json(), p);
    send(&s, "GET", &format!("/api/v1/puzzles/{id}"), &other, None, &[]).problem(404, "NOT_FOUND");
    send(&s, "GET", &format!("/api/v1/puzzles/{id}/export"), &other, None, &[]).problem(404, "NOT_FOUND");
    send(&s, "GET", "/api/v1/puzzles/NOTANID!", &key, None, &[]).problem(404, "NOT_FOUND");

    // pt-BR is stored as pt; letters are normalized for the language.
    let pt = create(&s, &key, &json!({ "title": "Casa", "language": "pt-BR", "grid": ["cão", "...", "..."] }));
    assert_eq!(pt["language"], "pt");
    assert_eq!(pt["grid"][0], "CAO");

    // Listing: own puzzles only, newest edit first, filters, pages.
    let third = create(&s, &key, &json!({ "title": "Third", "grid": ["...", "...", "..."], "publish": false }));
    let list = send(&s, "GET", "/api/v1/puzzles?limit=2", &key, None, &[]).json();
    assert_eq!(list["total"], 3);
    let ids: Vec<&str> = list["puzzles"].as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [third["id"].as_str().unwrap(), pt["id"].as_str().unwrap()]);
    let rest = send(&s, "GET", "/api/v1/puzzles?limit=2&offset=2", &key, None, &[]).json();
    assert_eq!(rest["puzzles"][0]["id"], id.as_str());
    assert_eq!(send(&s, "GET", "/api/v1/puzzles?status=published", &key, None, &[]).json()["total"], 0);
    assert_eq!(send(&s, "GET", "/api/v1/puzzles", &other, None, &[]).json()["total"], 0);
    send(&s, "GET", "/api/v1/puzzles?status=gone", &key, None, &[]).problem(400, "VALIDATION_ERROR");
    assert_eq!(
        send(&s, "GET", "/api/v1/puzzles?limit=0", &key, None, &[]).problem(400, "VALIDATION_ERROR")["field"],
        "limit"
    );
}

#[test]
fn bad_input_names_the_field_and_saves_nothing() {
    let s = Server::start(&["en"], Some(PATRON));
    let (_, key) = s.account_with_key("patron", "");
    let (_, free) = s.account_with_key("free", "");
    let cases: Vec<(Value, &str)> = vec![
        (json!({ "grid": ["CAT", "ODE", "WET"] }), "title"),
        (json!({ "title": "", "grid": ["CAT", "ODE", "WET"] }), "title"),
        (json!({ "title": "x".repeat(201), "grid": ["CAT", "ODE", "WET"] }), "title"),
        (json!({ "title": "T", "author": "a".repeat(101), "grid": ["CAT", "ODE", "WET"] }), "author"),
        (json!({ "title": "T" }), "grid"),
        (json!({ "title": "T", "grid": ["CAT", "ODE", "WE"] }), "grid"),
        (json!({ "title": "T", "grid": ["CAT", "ODE", "WET"], "size": 3 }), "size"),
        (json!({ "title": "T", "grid": ["CAT", "ODE", "WET"], "language": "xx" }), "language"),
        (
            json!({ "title": "T", "grid": ["CAT", "ODE", "WET"], "clues": { "across": { "2": "No such entry" } } }),
            "clues.across.2",
        ),
        (
            json!({ "title": "T", "grid": ["CAT", "ODE", "WET"], "clues": { "across": { "one": "x" } } }),
            "clues.across.one",
        ),
        (json!({ "title": "T", "grid": ["CAT", "ODE", "WET"], "clues": { "sideways": {} } }), "clues.sideways"),
        (
            json!({ "title": "T", "grid": ["CAT", "ODE", "WET"], "clues": { "down": { "1": "x".repeat(151) } } }),
            "clues.down.1",
        ),
        (json!({ "title": "T", "grid": ["CAT", "ODE", "WET"], "themeWords": [""] }), "themeWords[0]"),
        (json!({ "title": "T", "grid": ["CAT", "ODE", "WET"], "publish": "yes" }), "publish"),
    ];
    for (body, field) in cases {
        let r = send(&s, "POST", "/api/v1/puzzles", &key, Some(&body), &[]);
        let code = if field == "language" { "LANGUAGE_UNAVAILABLE" } else { "VALIDATION_ERROR" };
        assert_eq!(r.problem(400, code)["field"], field, "{body}");
    }
    let grid =
        send(&s, "POST", "/api/v1/puzzles", &key, Some(&json!({ "title": "T", "grid": ["CAT", "OD1", "WET"] })), &[]);
    let doc = grid.problem(400, "VALIDATION_ERROR");
    assert_eq!((doc["row"].as_u64(), doc["col"].as_u64()), (Some(1), Some(2)));
    // Publishing on create needs every finished answer clued; unfinished ones need none.
    let mut lacking = mini("T");
    lacking["publish"] = true.into();
    lacking["clues"]["down"] = json!({});
    let doc = send(&s, "POST", "/api/v1/puzzles", &key, Some(&lacking), &[]).problem(400, "VALIDATION_ERROR");
    assert_eq!(doc["missingClues"], json!(["1-down", "2-down", "3-down"]));
    let unfinished = json!({ "title": "T", "publish": true, "grid": ["CA.", "OD.", "WE."],
        "clues": { "across": {}, "down": { "1": "Milk source", "2": "Citrus drink" } } });
    assert_eq!(send(&s, "POST", "/api/v1/puzzles", &key, Some(&unfinished), &[]).status, 201);
    // The plan's grid ceiling, and a body over 1 MB.
    let big: Vec<String> = vec![".".repeat(15); 15];
    let r = send(&s, "POST", "/api/v1/puzzles", &free, Some(&json!({ "title": "Big", "grid": big })), &[]);
    assert_eq!(r.problem(403, "GRID_SIZE_LOCKED")["maxGridSize"], 13);
    let huge = json!({ "title": "T", "grid": ["CAT", "ODE", "WET"], "writeup": "x".repeat(1_100_000) });
    send(&s, "POST", "/api/v1/puzzles", &key, Some(&huge), &[]).problem(413, "VALIDATION_ERROR");
    // A long writeup is cut short, not refused.
    let long = create(&s, &key, &json!({ "title": "T", "grid": ["CAT", "ODE", "WET"], "writeup": "é".repeat(2500) }));
    assert_eq!(long["writeup"].as_str().unwrap().chars().count(), 2000);
    // Only the two successes were stored.
    assert_eq!(send(&s, "GET", "/api/v1/puzzles", &key, None, &[]).json()["total"], 2);
    assert_eq!(send(&s, "GET", "/api/v1/puzzles", &free, None, &[]).json()["total"], 0);
}

#[test]
fn one_idempotency_key_creates_one_puzzle_even_in_a_race() {
    let s = Server::start(&["en"], Some(PATRON));
    let (_, key) = s.account_with_key("patron", "");
    let replies: Vec<Reply> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..50)
            .map(|i| {
                let (s, key) = (&s, &key);
                scope.spawn(move || {
                    let body = mini(&format!("Race {i}"));
                    send(s, "POST", "/api/v1/puzzles", key, Some(&body), &[("Idempotency-Key", "race-key")])
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let created: Vec<&Reply> = replies.iter().filter(|r| r.status == 201).collect();
    assert_eq!(created.len(), 1, "exactly one puzzle is created");
    let id = created[0].json()["id"].clone();
    for r in &replies {
        assert!(r.status == 201 || r.status == 200, "{}", r.body);
        assert_eq!(r.json()["id"], id, "every answer is the one puzzle");
        if r.status == 200 {
            assert_eq!(r.header("idempotent-replayed"), Some("true"));
        }
    }
    let list = send(&s, "GET", "/api/v1/puzzles", &key, None, &[]).json();
    assert_eq!(list["total"], 1);
    // A later repeat ignores a new (even invalid) body and consumes nothing.
    let again =
        send(&s, "POST", "/api/v1/puzzles", &key, Some(&json!({ "bad": true })), &[("Idempotency-Key", "race-key")]);
    assert_eq!((again.status, again.json()["id"].clone()), (200, id.clone()));
    assert_eq!(again.header("x-puzzle-quota-remaining"), Some("1999"), "one puzzle consumed in all");
    // The key is per account.
    let (_, other) = s.account_with_key("patron", "");
    let theirs = send(&s, "POST", "/api/v1/puzzles", &other, Some(&mini("Mine")), &[("Idempotency-Key", "race-key")]);
    assert_eq!(theirs.status, 201);
    assert_ne!(theirs.json()["id"], id);
    // Bounds of the key.
    let long = "k".repeat(256);
    let r = send(&s, "POST", "/api/v1/puzzles", &key, Some(&mini("T")), &[("Idempotency-Key", &long)]);
    assert_eq!(r.problem(400, "VALIDATION_ERROR")["field"], "Idempotency-Key");
    let at_bound = "k".repeat(255);
    assert_eq!(
        send(&s, "POST", "/api/v1/puzzles", &key, Some(&mini("T")), &[("Idempotency-Key", &at_bound)]).status,
        201
    );
    // Keys never expire: after a delete the key still points at the deleted puzzle.
    let id = id.as_str().unwrap();
    assert_eq!(send(&s, "DELETE", &format!("/api/v1/puzzles/{id}"), &key, None, &[]).status, 204);
    send(&s, "POST", "/api/v1/puzzles", &key, Some(&mini("T")), &[("Idempotency-Key", "race-key")])
        .problem(404, "NOT_FOUND");
}

#[test]
fn the_monthly_quota_holds_under_parallel_creates() {
    let s = Server::start(&["en"], Some("[tiers.free]\npuzzles_per_month = 5\nreads_per_minute = -1\n"));
    let (_, key) = s.account_with_key("free", "");
    let replies: Vec<Reply> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..12)
            .map(|i| {
                let (s, key) = (&s, &key);
                scope.spawn(move || send(s, "POST", "/api/v1/puzzles", key, Some(&mini(&format!("Q{i}"))), &[]))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(replies.iter().filter(|r| r.status == 201).count(), 5, "exactly the quota is created");
    for r in replies.iter().filter(|r| r.status != 201) {
        let doc = r.problem(429, "PUZZLE_QUOTA_REACHED");
        assert_eq!(
            (doc["limit"].as_i64(), doc["remaining"].as_i64(), doc["tier"].as_str()),
            (Some(5), Some(0), Some("free"))
        );
        assert_eq!(r.header("x-puzzle-quota-remaining"), Some("0"));
        let retry: u64 = r.header("retry-after").unwrap().parse().unwrap();
        assert!((1..=31 * 86_400).contains(&retry));
    }
    let remaining: Vec<i64> = replies
        .iter()
        .filter(|r| r.status == 201)
        .map(|r| r.header("x-puzzle-quota-remaining").unwrap().parse().unwrap())
        .collect();
    let mut sorted = remaining.clone();
    sorted.sort();
    assert_eq!(sorted, [0, 1, 2, 3, 4]);
    assert_eq!(send(&s, "GET", "/api/v1/puzzles", &key, None, &[]).json()["total"], 5);
    // Edits and publishing are never metered.
    let id =
        send(&s, "GET", "/api/v1/puzzles", &key, None, &[]).json()["puzzles"][0]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        send(&s, "PATCH", &format!("/api/v1/puzzles/{id}"), &key, Some(&json!({ "title": "Edited" })), &[]).status,
        200
    );
    assert_eq!(send(&s, "POST", &format!("/api/v1/puzzles/{id}/publish"), &key, Some(&json!({})), &[]).status, 200);
}

#[test]
fn edits_keep_a_history_and_deletes_are_for_good() {
    let s = Server::start(&["en"], Some(PATRON));
    let (_, key) = s.account_with_key("patron", "");
    let (_, other) = s.account_with_key("patron", "");
    let (_, free) = s.account_with_key("free", "");
    let p = create(&s, &key, &mini("Before"));
    let id = p["id"].as_str().unwrap();
    let path = format!("/api/v1/puzzles/{id}");
    // Read-only fields, empty patches and another account's puzzle.
    for field in ["size", "status", "showcaseStatus", "adultThemes", "difficulty", "id", "url", "createdAt"] {
        let body = json!({ field: p[field].clone(), "title": "x" });
        assert_eq!(send(&s, "PATCH", &path, &key, Some(&body), &[]).problem(400, "VALIDATION_ERROR")["field"], field);
    }
    assert_eq!(send(&s, "PATCH", &path, &key, Some(&json!({})), &[]).problem(400, "VALIDATION_ERROR")["field"], "body");
    send(&s, "PATCH", &path, &other, Some(&json!({ "title": "Mine" })), &[]).problem(404, "NOT_FOUND");
    send(&s, "DELETE", &path, &other, None, &[]).problem(404, "NOT_FOUND");
    // Only the fields sent change; the previous version is kept.
    let edited = send(&s, "PATCH", &path, &key, Some(&json!({ "title": "After" })), &[]).json();
    assert_eq!(
        (edited["title"].as_str(), edited["author"].as_str(), edited["version"].as_u64()),
        (Some("After"), Some("Ann"), Some(2))
    );
    assert_eq!(edited["clues"], p["clues"]);
    // `clues` replaces the whole set.
    let edited = send(&s, "PATCH", &path, &key, Some(&json!({ "clues": { "across": { "1": "Feline" } } })), &[]).json();
    assert_eq!(edited["clues"], json!({ "across": { "1": "Feline" }, "down": {} }));
    // A new grid may change the size and keeps the clues of the entries it still has.
    let grid = json!(["CATS", "ODES", "WETS", "####"]);
    let edited = send(&s, "PATCH", &path, &key, Some(&json!({ "grid": grid })), &[]).json();
    assert_eq!((edited["size"].as_u64(), edited["version"].as_u64()), (Some(4), Some(4)));
    assert_eq!(edited["clues"]["across"]["1"], "Feline");
    // A patch that changes nothing writes nothing.
    let same = send(&s, "PATCH", &path, &key, Some(&json!({ "title": "After" })), &[]).json();
    assert_eq!(same["version"], 4);
    let versions = send(&s, "GET", &format!("{path}/versions"), &key, None, &[]).json();
    let summary: Vec<(u64, Value, bool)> = versions["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["version"].as_u64().unwrap(), v["changed"].clone(), v["current"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        summary,
        [
            (1, json!(["created"]), false),
            (2, json!(["title"]), false),
            (3, json!(["clues"]), false),
            (4, json!(["grid"]), true)
        ]
    );
    let first = send(&s, "GET", &format!("{path}/versions/1"), &key, None, &[]).json();
    assert_eq!((first["title"].as_str(), first["size"].as_u64()), (Some("Before"), Some(3)));
    assert_eq!(
        send(&s, "GET", &format!("{path}/versions/0"), &key, None, &[]).problem(400, "VALIDATION_ERROR")["field"],
        "n"
    );
    send(&s, "GET", &format!("{path}/versions/9"), &key, None, &[]).problem(404, "NOT_FOUND");
    send(&s, "GET", &format!("{path}/versions"), &other, None, &[]).problem(404, "NOT_FOUND");
    // The plan's ceiling applies to edits.
    let small = create(&s, &free, &json!({ "title": "Small", "grid": ["...", "...", "..."] }));
    let big: Vec<String> = vec![".".repeat(15); 15];
    let r = send(
        &s,
        "PATCH",
        &format!("/api/v1/puzzles/{}", small["id"].as_str().unwrap()),
        &free,
        Some(&json!({ "grid": big })),
        &[],
    );
    r.problem(403, "GRID_SIZE_LOCKED");
    // Delete: 204, then gone everywhere, history too; the page says 410.
    let r = send(&s, "DELETE", &path, &key, None, &[]);
    assert_eq!((r.status, r.body.as_str()), (204, ""));
    send(&s, "GET", &path, &key, None, &[]).problem(404, "NOT_FOUND");
    send(&s, "GET", &format!("{path}/versions/1"), &key, None, &[]).problem(404, "NOT_FOUND");
    send(&s, "DELETE", &path, &key, None, &[]).problem(404, "NOT_FOUND");
    assert_eq!(s.get(&format!("/p/{id}"), &[]).status, 410);
    assert_eq!(s.get("/p/zzzzzzzz", &[]).status, 404);
}

#[test]
fn publishing_showcase_review_safety_and_difficulty() {
    let s = Server::start(&["en"], Some(PATRON));
    let (_, key) = s.account_with_key("patron", "");
    let (_, other) = s.account_with_key("patron", "");
    // A draft without clues cannot be published; nothing changes.
    let bare = create(&s, &key, &json!({ "title": "Bare", "grid": ["CAT", "ODE", "WET"] }));
    let bare_id = bare["id"].as_str().unwrap();
    let doc = send(&s, "POST", &format!("/api/v1/puzzles/{bare_id}/publish"), &key, None, &[])
        .problem(400, "VALIDATION_ERROR");
    assert_eq!(doc["missingClues"].as_array().unwrap().len(), 6);
    assert_eq!(send(&s, "GET", &format!("/api/v1/puzzles/{bare_id}"), &key, None, &[]).json()["status"], "draft");
    // A draft's page is not public.
    assert_eq!(s.get(&format!("/p/{bare_id}"), &[]).status, 404);

    let p = create(&s, &key, &mini("Pub"));
    let id = p["id"].as_str().unwrap();
    let r = send(
        &s,
        "POST",
        &format!("/api/v1/puzzles/{id}/publish"),
        &key,
        Some(&json!({ "writeup": "Hello", "noIndex": false })),
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let published = r.json();
    assert_eq!((published["status"].as_str(), published["writeup"].as_str()), (Some("published"), Some("Hello")));
    assert_eq!(published["showcaseStatus"], Value::Null, "not submitted unless asked");
    let url = published["url"].as_str().unwrap();
    assert!(
        url.ends_with(&format!("/p/{id}"))
            && published["embedUrl"].as_str().unwrap().ends_with(&format!("/embed/{id}"))
    );
    // Any key may read a published puzzle; its page shows the title and is indexable when asked.
    assert_eq!(send(&s, "GET", &format!("/api/v1/puzzles/{id}"), &other, None, &[]).status, 200);
    let page = s.get(&format!("/p/{id}"), &[]);
    assert!(
        page.status == 200 && page.body.contains("<title>Pub · ") && !page.body.contains("noindex"),
        "{}",
        page.body
    );
    assert!(s.get(&format!("/embed/{id}"), &[]).body.contains("Pub"));
    // The rating comes shortly after publishing.
    wait_for("the difficulty rating", || {
        !send(&s, "GET", &format!("/api/v1/puzzles/{id}"), &key, None, &[]).json()["difficulty"].is_null()
    });
    // Publishing again is fine; unlisted again sets noindex.
    let again =
        send(&s, "POST", &format!("/api/v1/puzzles/{id}/publish"), &key, Some(&json!({ "noIndex": true })), &[]);
    assert_eq!(again.status, 200);
    let page = s.get(&format!("/p/{id}"), &[]);
    assert!(page.body.contains("noindex") && page.header("x-robots-tag") == Some("noindex"));
    // Editing a published puzzle keeps it publishable and re-rates it.
    let r = send(
        &s,
        "PATCH",
        &format!("/api/v1/puzzles/{id}"),
        &key,
        Some(&json!({ "clues": { "across": { "1": "Pet" } } })),
        &[],
    );
    assert_eq!(r.problem(400, "VALIDATION_ERROR")["missingClues"].as_array().unwrap().len(), 5);

    // Safety: adult themes from the lists, kept current on edits.
    let mut racy = mini("Racy");
    racy["clues"]["across"]["1"] = "Erotica shelf pet".into();
    let racy = create(&s, &key, &racy);
    assert_eq!(racy["adultThemes"], true);
    let rid = racy["id"].as_str().unwrap();
    let clean = send(
        &s,
        "PATCH",
        &format!("/api/v1/puzzles/{rid}"),
        &key,
        Some(&json!({ "clues": mini("Racy")["clues"].clone() })),
        &[],
    );
    assert_eq!(clean.json()["adultThemes"], false);

    // Showcase: three may wait; parallel submissions never exceed that, and a refused one is
    // left exactly as it was (still a draft).
    let ids: Vec<String> =
        (0..6).map(|i| create(&s, &key, &mini(&format!("Show {i}")))["id"].as_str().unwrap().to_owned()).collect();
    let replies: Vec<Reply> = std::thread::scope(|scope| {
        let handles: Vec<_> = ids
            .iter()
            .map(|id| {
                let (s, key) = (&s, &key);
                scope.spawn(move || {
                    send(
                        s,
                        "POST",
                        &format!("/api/v1/puzzles/{id}/publish"),
                        key,
                        Some(&json!({ "submitToShowcase": true })),
                        &[],
                    )
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(replies.iter().filter(|r| r.status == 200).count(), 3);
    for (r, id) in replies.iter().zip(&ids) {
        if r.status == 200 {
            assert_eq!(r.json()["showcaseStatus"], "pending");
        } else {
            let doc = r.problem(409, "SHOWCASE_QUEUE_FULL");
            assert_eq!((doc["limit"].as_u64(), doc["queued"].as_u64()), (Some(3), Some(3)));
            let now = send(&s, "GET", &format!("/api/v1/puzzles/{id}"), &key, None, &[]).json();
            assert_eq!((now["status"].as_str(), now["showcaseStatus"].clone()), (Some("draft"), Value::Null));
        }
    }
    // The pre-check moves them on; nothing auto-approves.
    let queued: Vec<&String> = ids.iter().zip(&replies).filter(|(_, r)| r.status == 200).map(|(id, _)| id).collect();
    for id in &queued {
        wait_for("the pre-check", || {
            send(&s, "GET", &format!("/api/v1/puzzles/{id}"), &key, None, &[]).json()["showcaseStatus"]
                == "pre_approved"
        });
    }
    let listed = s.admin(&["showcase", "list"]);
    assert_eq!(listed["queue"].as_array().unwrap().len(), 3);
    assert!(listed["queue"].as_array().unwrap().iter().all(|q| q["showcaseStatus"] == "pre_approved"));
    // A person approves and rejects; each frees a place.
    assert_eq!(s.admin(&["showcase", "approve", queued[0]])["showcaseStatus"], "approved");
    assert_eq!(s.admin(&["showcase", "reject", queued[1], "--reason", "Too easy"])["showcaseStatus"], "rejected");
    let rejected = send(&s, "GET", &format!("/api/v1/puzzles/{}", queued[1]), &key, None, &[]).json();
    assert_eq!(rejected["showcaseNote"], "Too easy");
    let waiting: Vec<&String> = ids.iter().zip(&replies).filter(|(_, r)| r.status != 200).map(|(id, _)| id).collect();
    for id in &waiting[..2] {
        let r = send(
            &s,
            "POST",
            &format!("/api/v1/puzzles/{id}/publish"),
            &key,
            Some(&json!({ "submitToShowcase": true })),
            &[],
        );
        assert_eq!(r.status, 200, "a freed place is usable: {}", r.body);
    }
    // A blocked word flags a submission for a person to check.
    let mut rude = mini("Rude");
    rude["clues"]["down"]["2"] = "Utter bullshit".into();
    let rude = create(&s, &key, &rude);
    s.admin(&["showcase", "approve", waiting[0]]);
    let rid = rude["id"].as_str().unwrap();
    let r = send(
        &s,
        "POST",
        &format!("/api/v1/puzzles/{rid}/publish"),
        &key,
        Some(&json!({ "submitToShowcase": true })),
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    wait_for("the flag", || {
        send(&s, "GET", &format!("/api/v1/puzzles/{rid}"), &key, None, &[]).json()["showcaseStatus"] == "flagged"
    });
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_crossword"))
        .args(["admin", "--data-dir", s.data_dir.to_str().unwrap(), "showcase", "approve", bare_id])
        .output()
        .unwrap();
    assert!(!out.status.success(), "a puzzle that is not queued cannot be reviewed");
}

#[test]
fn generated_clues_join_the_collection_as_ai_when_their_token_verifies() {
    let s = Server::start(&["en"], Some("[tiers.starter]\nreads_per_minute = -1\n"));
    let (_, key) = s.account_with_key("starter", "");
    let generated = send(&s, "POST", "/api/v1/clues/generate", &key, Some(&json!({ "word": "cat", "count": 1 })), &[]);
    assert_eq!(generated.status, 200, "{}", generated.body);
    let clue = generated.json()["clues"][0].clone();
    let mut body = mini("Clued");
    body["clues"]["across"]["1"] = json!({ "text": clue["text"], "token": clue["token"] });
    body["clues"]["across"]["4"] = json!({ "text": "Lyric poem", "token": "forged" });
    body["publish"] = true.into();
    let p = create(&s, &key, &body);
    assert_eq!(p["clues"]["across"]["1"], clue["text"], "the API returns the text");
    let source_of = |word: &str, text: &str| -> Option<String> {
        let clues = send(&s, "GET", &format!("/api/v1/clues/{word}?limit=50"), &key, None, &[]).json();
        clues["clues"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["text"] == text)
            .map(|c| c["source"].as_str().unwrap().to_owned())
    };
    let text = clue["text"].as_str().unwrap().to_owned();
    // The additions run after the publish, entry by entry: wait for the last one (5-across).
    wait_for("the clue additions", || source_of("cat", &text).is_some() && source_of("wet", "Damp").is_some());
    assert_eq!(source_of("cat", &text).as_deref(), Some("ai"));
    assert_eq!(source_of("ode", "Lyric poem").as_deref(), Some("original"), "a token that does not verify");
    assert_eq!(source_of("wet", "Damp").as_deref(), Some("original"));
}

#[test]
fn everything_survives_a_restart() {
    let mut s = Server::start(&["en"], Some(PATRON));
    let (_, key) = s.account_with_key("patron", "");
    let p = send(&s, "POST", "/api/v1/puzzles", &key, Some(&mini("Kept")), &[("Idempotency-Key", "kept")]).json();
    let id = p["id"].as_str().unwrap().to_owned();
    send(&s, "PATCH", &format!("/api/v1/puzzles/{id}"), &key, Some(&json!({ "author": "Bo" })), &[]);
    let published = send(
        &s,
        "POST",
        &format!("/api/v1/puzzles/{id}/publish"),
        &key,
        Some(&json!({ "submitToShowcase": true })),
        &[],
    )
    .json();
    let gone = create(&s, &key, &mini("Gone"));
    send(&s, "DELETE", &format!("/api/v1/puzzles/{}", gone["id"].as_str().unwrap()), &key, None, &[]);
    wait_for("the rating", || {
        !send(&s, "GET", &format!("/api/v1/puzzles/{id}"), &key, None, &[]).json()["difficulty"].is_null()
    });
    let before = send(&s, "GET", &format!("/api/v1/puzzles/{id}"), &key, None, &[]).json();
    s.restart();
    let after = send(&s, "GET", &format!("/api/v1/puzzles/{id}"), &key, None, &[]).json();
    assert_eq!(after, before);
    assert_eq!(after["url"], published["url"]);
    assert_eq!(
        send(&s, "GET", &format!("/api/v1/puzzles/{id}/versions"), &key, None, &[]).json()["versions"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let replay = send(&s, "POST", "/api/v1/puzzles", &key, Some(&mini("Again")), &[("Idempotency-Key", "kept")]);
    assert_eq!((replay.status, replay.json()["id"].as_str()), (200, Some(id.as_str())));
    assert_eq!(s.get(&format!("/p/{}", gone["id"].as_str().unwrap()), &[]).status, 410);
    assert_eq!(send(&s, "GET", "/api/v1/puzzles", &key, None, &[]).json()["total"], 1);
}

#[test]
fn a_backup_taken_under_write_load_restores_exactly_what_was_acknowledged_before_it() {
    let mut s = Server::start(&["en"], Some(PATRON));
    let (_, key) = s.account_with_key("patron", "");
    let stop = std::sync::atomic::AtomicBool::new(false);
    // (id, acknowledged at) of every create, from three writers that never pause.
    let acked: std::sync::Mutex<Vec<(String, Instant)>> = std::sync::Mutex::new(Vec::new());
    let backup = s.data_dir.parent().unwrap().join("backup.redb");
    let (started, finished, report) = std::thread::scope(|scope| {
        for writer in 0..3 {
            let (s, key, stop, acked) = (&s, &key, &stop, &acked);
            scope.spawn(move || {
                let mut n = 0;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    n += 1;
                    let p = create(s, key, &mini(&format!("W{writer} {n}")));
                    acked.lock().unwrap().push((p["id"].as_str().unwrap().to_owned(), Instant::now()));
                }
            });
        }
        wait_for("some writes", || acked.lock().unwrap().len() >= 30);
        let started = Instant::now();
        let report = s.admin(&["backup", backup.to_str().unwrap()]);
        let finished = Instant::now();
        wait_for("writes after the backup", || {
            acked.lock().unwrap().iter().filter(|(_, t)| *t > finished).count() >= 30
        });
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        (started, finished, report)
    });
    let acked = acked.into_inner().unwrap();
    let before: Vec<&String> = acked.iter().filter(|(_, t)| *t < started).map(|(id, _)| id).collect();
    let after: Vec<&String> = acked.iter().filter(|(_, t)| *t > finished).map(|(id, _)| id).collect();
    assert!(before.len() >= 30 && after.len() >= 30, "{} before, {} after", before.len(), after.len());
    let rows = report["tables"]["crossword.puzzles"].as_u64().unwrap() as usize;
    assert!(rows >= before.len() && rows < acked.len(), "{rows} puzzles in the backup of {} written", acked.len());
    assert!(report["bytes"].as_u64().unwrap() > 0);
    let again = std::process::Command::new(env!("CARGO_BIN_EXE_crossword"))
        .args(["admin", "--data-dir", s.data_dir.to_str().unwrap(), "backup", backup.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!again.status.success(), "an existing backup file is never overwritten");

    let first = before[0].clone();
    let kept = send(&s, "GET", &format!("/api/v1/puzzles/{first}"), &key, None, &[]).json();
    let restore = |s: &Server| {
        std::process::Command::new(env!("CARGO_BIN_EXE_crossword"))
            .args(["admin", "--data-dir", s.data_dir.to_str().unwrap(), "restore", backup.to_str().unwrap()])
            .output()
            .unwrap()
    };
    let refused = restore(&s);
    assert!(!refused.status.success(), "no restore under a running server");
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("stop it"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );

    assert!(s.terminate().success());
    let restored = restore(&s);
    assert!(restored.status.success(), "{}", String::from_utf8_lossy(&restored.stderr));
    let _ = std::fs::remove_file(s.data_dir.join("server.json"));
    s.restart_stopped();
    for id in &before {
        assert_eq!(
            send(&s, "GET", &format!("/api/v1/puzzles/{id}"), &key, None, &[]).status,
            200,
            "{id} was acknowledged before the backup"
        );
    }
    for id in &after {
        assert_eq!(
            send(&s, "GET", &format!("/api/v1/puzzles/{id}"), &key, None, &[]).status,
            404,
            "{id} came after the backup"
        );
    }
    assert_eq!(send(&s, "GET", &format!("/api/v1/puzzles/{first}"), &key, None, &[]).json(), kept);
    assert_eq!(send(&s, "GET", "/api/v1/puzzles", &key, None, &[]).json()["total"], rows as u64);
}
