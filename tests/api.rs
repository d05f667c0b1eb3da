//! The HTTP service over the real binary: authentication, scopes, limits, errors, endpoints,
//! documentation, administration and shutdown.

mod common;

use common::{bearer, Server};
use serde_json::Value;

#[test]
fn auth_matrix() {
    let s = Server::start(&["en"], None);
    let (_, key) = s.account_with_key("free", "");
    let w = "/api/v1/words?pattern=C_T";
    // Both header forms work.
    assert_eq!(s.get(w, &[("Authorization", &bearer(&key))]).status, 200);
    assert_eq!(s.get(w, &[("X-Api-Key", &key)]).status, 200);
    // Missing, malformed, unknown, wrong scheme, both headers: the same 401.
    let unknown = format!("cw_live_{}", "A".repeat(32));
    let both = [("Authorization", bearer(&key)), ("X-Api-Key", key.clone())];
    let cases: Vec<Vec<(&str, String)>> = vec![
        vec![],
        vec![("Authorization", "Bearer nope".into())],
        vec![("Authorization", bearer(&unknown))],
        vec![("Authorization", format!("Basic {key}"))],
        vec![("X-Api-Key", format!("{key}x"))],
        vec![("X-Api-Key", key[..39].to_owned())],
        both.to_vec(),
    ];
    for headers in cases {
        let h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let r = s.get(w, &h);
        r.problem(401, "UNAUTHORIZED");
        assert!(r.header("x-ratelimit-limit").is_none(), "a 401 consumes nothing");
    }
    // Revocation is permanent and looks the same.
    let keys = s.admin(&[
        "key",
        "list",
        "--account",
        s.admin(&["account", "create", "--tier", "free"])["id"].as_str().unwrap(),
    ]);
    assert_eq!(keys["keys"], Value::Array(vec![]));
    let (account, key2) = s.account_with_key("starter", "");
    let listed = s.admin(&["key", "list", "--account", &account]);
    let key_id = listed["keys"][0]["id"].as_str().unwrap().to_owned();
    assert!(listed.to_string().find(&key2).is_none(), "listing never shows the secret");
    assert_eq!(s.get(w, &[("X-Api-Key", &key2)]).status, 200);
    s.admin(&["key", "revoke", &key_id]);
    s.get(w, &[("X-Api-Key", &key2)]).problem(401, "UNAUTHORIZED");
}

#[test]
fn scopes_are_enforced() {
    let s = Server::start(&["en"], None);
    let (_, solve_only) = s.account_with_key("partner", "solve,puzzles:write");
    let doc = s.get("/api/v1/words?pattern=C_T", &[("X-Api-Key", &solve_only)]).problem(403, "FORBIDDEN_SCOPE");
    assert_eq!(doc["requiredScope"], "read");
    let doc = s
        .post("/api/v1/words/scores", &[("X-Api-Key", &solve_only)], r#"{"words":["cat"]}"#)
        .problem(403, "FORBIDDEN_SCOPE");
    assert_eq!(doc["requiredScope"], "read");
    let (_, read_only) = s.account_with_key("partner", "read");
    assert_eq!(s.get("/api/v1/words?pattern=C_T", &[("X-Api-Key", &read_only)]).status, 200);
}

#[test]
fn read_windows_are_per_account_with_headers() {
    let s = Server::start(&["en"], Some("[tiers.free]\nreads_per_minute = 3\n[tiers.patron]\nreads_per_minute = -1\n"));
    let (account, key) = s.account_with_key("free", "");
    let second_key = s.admin(&["key", "create", "--account", &account])["key"].as_str().unwrap().to_owned();
    let w = "/api/v1/words?pattern=C_T";
    for remaining in ["2", "1"] {
        let r = s.get(w, &[("X-Api-Key", &key)]);
        assert_eq!(
            (r.status, r.header("x-ratelimit-limit"), r.header("x-ratelimit-remaining")),
            (200, Some("3"), Some(remaining))
        );
    }
    // A validation error still counts as a read; the window is the account's, not the key's.
    let r = s.get("/api/v1/words?pattern=", &[("X-Api-Key", &second_key)]);
    assert_eq!((r.status, r.header("x-ratelimit-remaining")), (400, Some("0")));
    let r = s.get(w, &[("X-Api-Key", &second_key)]);
    let doc = r.problem(429, "RATE_LIMITED");
    assert_eq!((doc["limit"].as_i64(), doc["remaining"].as_i64()), (Some(3), Some(0)));
    let retry: u64 = r.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry));
    s.post("/api/v1/words/scores", &[("X-Api-Key", &key)], r#"{"words":["cat"]}"#).problem(429, "RATE_LIMITED");
    // Other accounts are unaffected; an unlimited plan says -1.
    let (_, other) = s.account_with_key("free", "");
    assert_eq!(s.get(w, &[("X-Api-Key", &other)]).status, 200);
    let (_, patron) = s.account_with_key("patron", "");
    let r = s.get(w, &[("X-Api-Key", &patron)]);
    assert_eq!((r.header("x-ratelimit-limit"), r.header("x-ratelimit-remaining")), (Some("-1"), Some("-1")));
    // Plan changes apply at once (through the running server's admin endpoint).
    s.admin(&["account", "set-tier", &account, "patron"]);
    assert_eq!(s.get(w, &[("X-Api-Key", &key)]).status, 200);
}

#[test]
fn open_endpoints_are_limited_per_ip() {
    let s = Server::start(&["en"], Some("[limits]\nopen_per_minute = 2\n"));
    assert_eq!(s.get("/api/v1/status", &[]).status, 200);
    let r = s.get("/api/v1/languages", &[]);
    assert_eq!((r.status, r.header("x-ratelimit-remaining")), (200, Some("0")));
    let r = s.get("/api/v1/status", &[]);
    r.problem(429, "RATE_LIMITED");
    assert!(r.header("retry-after").is_some());
}

#[test]
fn words_endpoint_validates_every_field() {
    let s = Server::start(&["en", "ru"], None);
    let (_, key) = s.account_with_key("patron", "");
    let h = [("X-Api-Key", key.as_str())];
    let ok = s.get("/api/v1/words?pattern=c_t&limit=2", &h).json();
    assert_eq!(ok, serde_json::json!({"words": [{"word": "CUT", "score": 93}, {"word": "CAT", "score": 84}]}));
    let ok = s.get("/api/v1/words?pattern=C%3FT&min_score=60", &h).json();
    assert_eq!(ok["words"].as_array().unwrap().len(), 2);
    assert_eq!(s.get("/api/v1/words?pattern=%D0%9B_%D0%9D%D0%90&lang=ru", &h).json()["words"][0]["word"], "ЛУНА");
    assert_eq!(s.get("/api/v1/words?pattern=________", &h).json()["words"][0]["word"], "ICECREAM");
    let cases = [
        ("", "pattern"),
        ("pattern=", "pattern"),
        ("pattern=ABCDEFGHIJKLMNOPQRSTUVWX", "pattern"),
        ("pattern=C3T", "pattern"),
        ("pattern=C_T&min_score=-1", "min_score"),
        ("pattern=C_T&min_score=1001", "min_score"),
        ("pattern=C_T&min_score=abc", "min_score"),
        ("pattern=C_T&limit=0", "limit"),
        ("pattern=C_T&limit=101", "limit"),
        ("pattern=C_T&limit=1.5", "limit"),
    ];
    for (query, field) in cases {
        let doc = s.get(&format!("/api/v1/words?{query}"), &h).problem(400, "VALIDATION_ERROR");
        assert_eq!(doc["field"], field, "{query}");
        assert_eq!(doc["instance"], "/api/v1/words");
    }
    s.get("/api/v1/words?pattern=C_T&lang=xx", &h).problem(400, "LANGUAGE_UNAVAILABLE");
    let r = s.get("/api/v1/words?pattern=C_T&lang=de", &h);
    r.problem(503, "LANGUAGE_UNAVAILABLE");
    assert!(r.header("retry-after").is_some());
}

/// Clients look each score up by the word they sent: keys are the words as sent, a word sent
/// twice appears once, and unknown words stay out.
#[test]
fn score_keys_are_the_words_as_sent() {
    let s = Server::start(&["fr"], None);
    let (_, key) = s.account_with_key("patron", "");
    let h = [("X-Api-Key", key.as_str()), ("Content-Type", "application/json")];
    let r = s.post("/api/v1/words/scores", &h, r#"{"words":["café","ÉTÉ","café","inconnu"],"language":"fr"}"#);
    assert_eq!(r.status, 200);
    assert_eq!(r.json(), serde_json::json!({"scores": {"café": 83, "ÉTÉ": 100}}));
    // Two spellings of one entry are two keys with the same score.
    let r = s.post("/api/v1/words/scores", &h, r#"{"words":["cafe","CAFÉ"],"language":"fr"}"#);
    assert_eq!(r.json(), serde_json::json!({"scores": {"cafe": 83, "CAFÉ": 83}}));
}

#[test]
fn scores_endpoint_validates_every_field() {
    let s = Server::start(&["en", "pt"], None);
    let (_, key) = s.account_with_key("patron", "");
    let h = [("X-Api-Key", key.as_str()), ("Content-Type", "application/json")];
    let r = s.post("/api/v1/words/scores", &h, r#"{"words":["cat","Crème","ice-cream","unknownword","C4T"]}"#);
    assert_eq!(r.json(), serde_json::json!({"scores": {"cat": 84, "Crème": 70, "ice-cream": 60}}));
    let r = s.post("/api/v1/words/scores", &h, r#"{"words":["Coração"],"language":"pt-BR"}"#);
    assert_eq!(r.json(), serde_json::json!({"scores": {"Coração": 80}}));
    let many = format!(r#"{{"words":[{}]}}"#, vec!["\"a\""; 201].join(","));
    let cases: Vec<(String, &str)> = vec![
        ("not json".into(), "body"),
        ("[1,2]".into(), "body"),
        ("{}".into(), "words"),
        (r#"{"words":"cat"}"#.into(), "words"),
        (r#"{"words":[]}"#.into(), "words"),
        (many, "words"),
        (r#"{"words":["a","b",3]}"#.into(), "words[2]"),
        (r#"{"words":["a"],"language":7}"#.into(), "language"),
    ];
    for (body, field) in &cases {
        let doc = s.post("/api/v1/words/scores", &h, body).problem(400, "VALIDATION_ERROR");
        assert_eq!(doc["field"], *field, "{body}");
    }
    s.post("/api/v1/words/scores", &h, r#"{"words":["a"],"language":"klingon"}"#).problem(400, "LANGUAGE_UNAVAILABLE");
    s.post("/api/v1/words/scores", &h, r#"{"words":["a"],"language":"ja"}"#).problem(503, "LANGUAGE_UNAVAILABLE");
    let huge = format!(r#"{{"words":["{}"]}}"#, "a".repeat(1024 * 1024 + 10));
    let doc = s.post("/api/v1/words/scores", &h, &huge).problem(413, "VALIDATION_ERROR");
    assert_eq!(doc["field"], "body");
}

#[test]
fn status_languages_and_documents() {
    let s = Server::start(&["en", "pt"], None);
    let status = s.get("/api/v1/status", &[]).json();
    assert_eq!((status["status"].as_str(), status["version"].as_str()), (Some("ok"), Some("1.0.0")));
    assert_eq!(status["languages"].as_object().unwrap().len(), 28);
    let en = &status["languages"]["en"];
    assert_eq!((en["available"].as_bool(), en["loaded"].as_bool()), (Some(true), Some(false)));
    // The files' checksums (beyond the contract), so nodes can be compared: the XXH3-64 of each
    // file's body, recomputed here independently.
    for (field, file) in [("indexChecksum", "en.cwi"), ("cluesChecksum", "en.cwc")] {
        let bytes = std::fs::read(s.index_dir.join(file)).unwrap();
        let body = &bytes[..bytes.len() - 32];
        assert_eq!(en[field], format!("xxh3:{:016x}", xxhash_rust::xxh3::xxh3_64(body)), "{field}");
    }
    assert!(status["languages"]["de"].get("indexChecksum").is_none(), "no file, no checksum");
    assert_eq!(status["languages"]["de"]["available"], false);
    assert!(status["languages"].get("pt-BR").is_none());

    let langs = s.get("/api/v1/languages", &[]).json();
    let records = langs["languages"].as_array().unwrap();
    assert_eq!(records.len(), 28);
    let he = records.iter().find(|r| r["code"] == "he").unwrap();
    assert_eq!(
        he,
        &serde_json::json!({"code": "he", "name": "Hebrew", "nativeName": "עברית", "available": false, "crissCrossOnly": false, "rtl": true, "puzExportable": false, "minSlotLength": 3})
    );
    assert_eq!(records.iter().find(|r| r["code"] == "ja").unwrap()["minSlotLength"], 2);
    let record = |code: &str| records.iter().find(|r| r["code"] == code).unwrap().clone();
    assert_eq!(
        record("fi"),
        serde_json::json!({"code": "fi", "name": "Finnish", "nativeName": "Suomi", "available": false, "crissCrossOnly": false, "rtl": false, "puzExportable": true, "minSlotLength": 3})
    );
    assert_eq!(
        (record("ca")["puzExportable"].as_bool(), record("el")["puzExportable"].as_bool()),
        (Some(true), Some(false))
    );
    assert_eq!(
        (record("bg")["nativeName"].as_str(), record("el")["nativeName"].as_str()),
        (Some("Български"), Some("Ελληνικά"))
    );
    assert_eq!(records.iter().find(|r| r["code"] == "pt").unwrap()["available"], true);

    let doc = s.get("/nowhere", &[]).problem(404, "NOT_FOUND");
    assert_eq!(doc["instance"], "/nowhere");
    s.post("/api/v1/status", &[], "").problem(404, "NOT_FOUND");

    let errors = s.get("/api/v1/errors", &[]);
    assert!(errors.header("content-type").unwrap().starts_with("text/html"));
    for code in [
        "UNAUTHORIZED",
        "FORBIDDEN_SCOPE",
        "GRID_SIZE_LOCKED",
        "MEMBERS_ONLY",
        "AI_QUOTA_REACHED",
        "FILL_QUOTA_REACHED",
        "PUZZLE_QUOTA_REACHED",
        "SHOWCASE_QUEUE_FULL",
        "RATE_LIMITED",
        "SOLVER_BUSY",
        "LANGUAGE_UNAVAILABLE",
        "VALIDATION_ERROR",
        "NOT_FOUND",
        "UPSTREAM_UNAVAILABLE",
    ] {
        assert!(errors.body.contains(&format!("id=\"{code}\"")), "{code}");
    }
    let landing = s.get("/", &[]).body;
    assert!(landing.contains("/api/v1/openapi.json") && landing.contains("/api/v1/errors"));

    let r = s.get("/api/v1/status", &[("X-Request-Id", "trace-123")]);
    assert_eq!(r.header("x-request-id"), Some("trace-123"));
    assert_eq!(s.get("/api/v1/status", &[]).header("x-request-id").map(str::len), Some(16));
}

#[test]
fn every_documented_operation_is_routed() {
    let s = Server::start(&["en"], None);
    let doc = s.get("/api/v1/openapi.json", &[]).json();
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["version"], "1.0.0");
    assert_eq!(doc["servers"][0]["url"], format!("http://{}/api/v1", s.addr));
    let mut operations = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            operations += 1;
            let r = common::request(s.addr, &method.to_uppercase(), &format!("/api/v1{path}"), &[], Some(b"{}"));
            let routed = !(r.status == 404 && r.body.contains("no such route"));
            assert!(routed, "{method} {path} is documented but not routed");
        }
    }
    assert_eq!(operations, 20, "the contract's 17 operations and three extensions (import, versions)");
}

#[test]
fn degraded_without_indexes() {
    let s = Server::start(&[], None);
    let status = s.get("/api/v1/status", &[]).json();
    assert_eq!(status, serde_json::json!({"status": "degraded", "version": "1.0.0", "languages": {}}));
}

#[test]
fn metrics_count_requests() {
    let s = Server::start(&["en"], None);
    s.get("/api/v1/status", &[]);
    s.get("/api/v1/words?pattern=C_T", &[]);
    let text = s.get("/metrics", &[]).body;
    assert!(text.contains(r#"crossword_requests_total{route="/api/v1/status",status="200"} 1"#), "{text}");
    assert!(text.contains(r#"crossword_requests_total{route="/api/v1/words",status="401"} 1"#), "{text}");
    assert!(text.contains("crossword_request_seconds_bucket{route=\"/api/v1/status\""));
    assert!(text.contains("crossword_index_mapped_bytes"));
}

#[test]
fn admin_endpoint_is_hidden_and_shutdown_is_clean() {
    let mut s = Server::start(&["en"], None);
    // Without the secret the admin endpoint looks like any unknown route.
    s.post("/admin/v1/command", &[("X-Admin-Secret", "guess")], r#"{"op":"account.create","tier":"patron"}"#)
        .problem(404, "NOT_FOUND");
    s.post("/admin/v1/command", &[], r#"{"op":"account.create","tier":"patron"}"#).problem(404, "NOT_FOUND");
    let (account, key) = s.account_with_key("free", "read");
    assert!(s.data_dir.join("server.json").is_file());
    let status = s.terminate();
    assert!(status.success(), "{status:?}");
    assert!(!s.data_dir.join("server.json").exists());
    // With the server stopped, the CLI opens the database directly and sees everything.
    let keys = s.admin(&["key", "list", "--account", &account]);
    assert_eq!(keys["keys"][0]["scopes"], serde_json::json!(["read"]));
    assert!(!keys.to_string().contains(&key));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_crossword"))
        .args(["admin", "--data-dir", s.data_dir.to_str().unwrap(), "account", "set-tier", "acct_missing", "free"])
        .output()
        .unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("not found"));
}
