//! The clue endpoints over a real server: lookups, bulk, generation with tokens, plans and
//! quotas, an OpenAI-compatible fake upstream.

mod common;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::Duration;

use common::{bearer, Server};
use crossword_clues::token::ClueSigner;
use serde_json::{json, Value};

fn texts(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|c| c["text"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn lookup_normalizes_ranks_and_validates() {
    let s = Server::start(&["en", "pt"], None);
    let (_, key) = s.account_with_key("free", "read");
    let auth = bearer(&key);
    let h = [("Authorization", auth.as_str())];

    let r = s.get("/api/v1/clues/cat", &h);
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.header("x-ratelimit-remaining").is_some());
    let clues = r.json()["clues"].clone();
    // "Catnap taker" gives the answer away (a word starting with CAT): never stored.
    assert_eq!(texts(&clues), ["Jazz fan, old-style", "Feline pet", "Tabby", "Mouser"].map(String::from));
    assert_eq!(clues[0]["source"], "published");
    assert_eq!(clues[0]["pubCount"], 12);
    assert_eq!(clues[1]["source"], "dictionary");
    assert_eq!(clues[1]["pubCount"], 0);
    assert!(clues[0].get("token").is_none());
    // Case, accents, spaces and hyphens are normalized like any answer.
    assert_eq!(s.get("/api/v1/clues/CaT?limit=2", &h).json()["clues"].as_array().unwrap().len(), 2);
    assert_eq!(texts(&s.get("/api/v1/clues/Ice%20Cream", &h).json()["clues"]), ["Sundae base", "Frozen dessert"]);
    assert_eq!(texts(&s.get("/api/v1/clues/ice-cream", &h).json()["clues"]).len(), 2);
    assert_eq!(texts(&s.get("/api/v1/clues/CREME", &h).json()["clues"]), ["Brûlée base"]);
    assert_eq!(texts(&s.get("/api/v1/clues/cr%C3%A8me", &h).json()["clues"]), ["Brûlée base"]);
    assert_eq!(texts(&s.get("/api/v1/clues/cora%C3%A7%C3%A3o?language=pt-BR", &h).json()["clues"]), ["Órgão que bate"]);
    assert_eq!(texts(&s.get("/api/v1/clues/CORACAO?language=pt", &h).json()["clues"]), ["Órgão que bate"]);
    // No clues: an empty list.
    assert_eq!(s.get("/api/v1/clues/zebra", &h).json(), json!({ "clues": [] }));
    // Bounds and bad input name their field.
    for (path, field) in [
        ("/api/v1/clues/cat?limit=0", "limit"),
        ("/api/v1/clues/cat?limit=51", "limit"),
        ("/api/v1/clues/cat?limit=x", "limit"),
        ("/api/v1/clues/c%40t", "word"),
        ("/api/v1/clues/abcdefghijklmnopqrstuvwx", "word"),
        ("/api/v1/clues/%20-%20", "word"),
    ] {
        assert_eq!(s.get(path, &h).problem(400, "VALIDATION_ERROR")["field"], field, "{path}");
    }
    assert_eq!(s.get("/api/v1/clues/cat?limit=50", &h).status, 200);
    s.get("/api/v1/clues/cat?language=xx", &h).problem(400, "LANGUAGE_UNAVAILABLE");
    s.get("/api/v1/clues/cat?language=fr", &h).problem(503, "LANGUAGE_UNAVAILABLE");
    s.get("/api/v1/clues/cat", &[]).problem(401, "UNAUTHORIZED");
    let (_, solve_only) = s.account_with_key("free", "solve");
    s.get("/api/v1/clues/cat", &[("Authorization", &bearer(&solve_only))]).problem(403, "FORBIDDEN_SCOPE");
}

#[test]
fn bulk_normalizes_keys_omits_empty_and_caps_at_five() {
    let s = Server::start(&["en"], None);
    let (_, key) = s.account_with_key("free", "read");
    let auth = bearer(&key);
    let h = [("Authorization", auth.as_str())];
    let r = s.post("/api/v1/clues/bulk", &h, r#"{"words":["cat","Dog","ice cream","ICE-CREAM","zebra"]}"#);
    assert_eq!(r.status, 200, "{}", r.body);
    let clues = r.json()["clues"].clone();
    let keys: Vec<&String> = clues.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["CAT", "DOG", "ICECREAM"]);
    assert_eq!(clues["DOG"].as_array().unwrap().len(), 5, "at most five per answer");
    assert_eq!(clues["CAT"][0]["pubCount"], 12);

    let many: Vec<String> = (0..500).map(|i| format!("cat{}", "s".repeat(i % 3))).collect();
    assert_eq!(s.post("/api/v1/clues/bulk", &h, &json!({ "words": many }).to_string()).status, 200);
    let too_many: Vec<&str> = vec!["cat"; 501];
    for (body, field) in [
        (json!({ "words": too_many }).to_string(), "words"),
        (r#"{"words":[]}"#.to_owned(), "words"),
        (r#"{"words":"cat"}"#.to_owned(), "words"),
        (r#"{}"#.to_owned(), "words"),
        (r#"{"words":["cat", 3]}"#.to_owned(), "words[1]"),
        (r#"{"words":["cat", "d0g"]}"#.to_owned(), "words[1]"),
        (r#"{"words":["cat"], "language": 7}"#.to_owned(), "language"),
        ("[1]".to_owned(), "body"),
    ] {
        assert_eq!(s.post("/api/v1/clues/bulk", &h, &body).problem(400, "VALIDATION_ERROR")["field"], field, "{body}");
    }
    s.post("/api/v1/clues/bulk", &h, r#"{"words":["cat"],"language":"xx"}"#).problem(400, "LANGUAGE_UNAVAILABLE");
}

#[test]
fn generate_signs_clues_meters_and_checks_plans() {
    let s = Server::start(&["en"], Some("[tiers.starter]\nai_clues_per_month = 2\n"));
    let (_, free) = s.account_with_key("free", "");
    let free = bearer(&free);
    let doc =
        s.post("/api/v1/clues/generate", &[("Authorization", &free)], r#"{"word":"cat"}"#).problem(403, "MEMBERS_ONLY");
    assert_eq!(doc["tier"], "free");
    assert!(doc["upgradeUrl"].is_string());

    let (_, key) = s.account_with_key("starter", "");
    let auth = bearer(&key);
    let h = [("Authorization", auth.as_str())];
    for (body, field) in [
        (r#"{"word":"c"}"#, "word"),
        (r#"{}"#, "word"),
        (r#"{"word":5}"#, "word"),
        (r#"{"word":"cat","count":0}"#, "count"),
        (r#"{"word":"cat","count":11}"#, "count"),
        (r#"{"word":"cat","count":"2"}"#, "count"),
        (r#"{"word":"c4t"}"#, "word"),
    ] {
        assert_eq!(
            s.post("/api/v1/clues/generate", &h, body).problem(400, "VALIDATION_ERROR")["field"],
            field,
            "{body}"
        );
    }
    // Nothing is known about ZEBRA: an empty list, nothing charged.
    let r = s.post("/api/v1/clues/generate", &h, r#"{"word":"zebra"}"#);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json(), json!({ "clues": [], "remaining": 2 }));

    let r = s.post("/api/v1/clues/generate", &h, r#"{"word":"Cat","count":3}"#);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("x-ai-clues-remaining"), Some("1"));
    let body = r.json();
    assert_eq!(body["remaining"], 1);
    let clues = body["clues"].as_array().unwrap();
    assert_eq!(clues.len(), 3, "three asked, and the data has more: {body}");
    assert_eq!(clues[0]["text"], "Kind of feline");
    // Tokens verify with the server's secret, for this answer and text only.
    let secret: [u8; 32] = std::fs::read(s.data_dir.join("clue-token.secret")).unwrap().try_into().unwrap();
    let signer = ClueSigner::new(secret);
    for c in clues {
        assert_eq!(c["source"], "ai");
        let (text, token) = (c["text"].as_str().unwrap(), c["token"].as_str().unwrap());
        assert!(signer.verify("en", "CAT", text, token), "{c}");
        assert!(!signer.verify("en", "CAT", &format!("{text}."), token));
        assert!(!signer.verify("en", "DOG", text, token));
        assert!(!ClueSigner::new([0; 32]).verify("en", "CAT", text, token));
        assert!(!text.to_uppercase().contains("CAT"));
    }
    // Nothing was saved: lookups are unchanged.
    assert!(!texts(&s.get("/api/v1/clues/cat", &h).json()["clues"]).contains(&"Kind of feline".to_owned()));

    // Five asked of an answer with the material for more: five distinct clues.
    let five = s.post("/api/v1/clues/generate", &h, r#"{"word":"dog","count":5}"#).json();
    let texts: std::collections::HashSet<&str> =
        five["clues"].as_array().unwrap().iter().map(|c| c["text"].as_str().unwrap()).collect();
    assert_eq!(texts.len(), 5, "{five}");
    assert_eq!(five["remaining"], 0);
    let r = s.post("/api/v1/clues/generate", &h, r#"{"word":"dog"}"#);
    let doc = r.problem(429, "AI_QUOTA_REACHED");
    assert_eq!((doc["limit"].as_i64(), doc["remaining"].as_i64()), (Some(2), Some(0)));
    assert_eq!(r.header("x-ai-clues-remaining"), Some("0"));
    let retry = r.header("retry-after").unwrap().parse::<u64>().unwrap();
    assert!((1..=31 * 86_400).contains(&retry), "until the first of next month: {retry}");
    let (_, read_only) = s.account_with_key("starter", "read");
    s.post("/api/v1/clues/generate", &[("Authorization", &bearer(&read_only))], r#"{"word":"cat"}"#)
        .problem(403, "FORBIDDEN_SCOPE");
}

/// A full request window on POST /clues/generate carries `Retry-After` and the AI clues left.
#[test]
fn a_rate_limited_generate_names_the_ai_clues_left() {
    let s = Server::start(&["en"], Some("[tiers.starter]\nreads_per_minute = 2\nai_clues_per_month = 7\n"));
    let (_, key) = s.account_with_key("starter", "");
    let h = [("X-Api-Key", key.as_str())];
    assert_eq!(s.post("/api/v1/clues/generate", &h, r#"{"word":"cat"}"#).status, 200);
    assert_eq!(s.get("/api/v1/clues/cat", &h).status, 200);
    let r = s.post("/api/v1/clues/generate", &h, r#"{"word":"cat"}"#);
    r.problem(429, "RATE_LIMITED");
    assert!(r.header("retry-after").unwrap().parse::<u64>().unwrap() >= 1);
    assert_eq!(r.header("x-ai-clues-remaining"), Some("6"));
}

/// A one-thread fake of an OpenAI-compatible server: each connection gets the next reply.
fn fake_upstream(replies: Vec<(u16, String, Duration)>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for (status, body, delay) in replies {
            let Ok((mut conn, _)) = listener.accept() else { return };
            conn.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            let mut request = Vec::new();
            let mut buf = [0u8; 4096];
            // Read the head and the announced body.
            while let Ok(n) = conn.read(&mut buf) {
                if n == 0 {
                    break;
                }
                request.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&request);
                if let Some((head, rest)) = text.split_once("\r\n\r\n") {
                    let len = head
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().parse::<usize>().unwrap())
                        })
                        .unwrap_or(0);
                    if rest.len() >= len {
                        assert!(head.starts_with("POST /v1/chat/completions HTTP/1.1"), "{head}");
                        assert!(head.contains("Authorization: Bearer sk-test"), "{head}");
                        let sent: Value = serde_json::from_str(rest).unwrap();
                        assert_eq!(sent["model"], "tiny");
                        break;
                    }
                }
            }
            std::thread::sleep(delay);
            let reply = format!(
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = conn.write_all(reply.as_bytes());
        }
    });
    format!("http://{addr}/v1")
}

#[test]
fn upstream_generator_failures_charge_nothing() {
    let content = "1. Whiskered pet\n2. \"Purring companion\"\n3. Catnip fan\n- Tabby or tom\n";
    let good = json!({ "choices": [{ "message": { "role": "assistant", "content": content } }] }).to_string();
    let url = fake_upstream(vec![
        (200, good.clone(), Duration::ZERO),
        (500, "{}".into(), Duration::ZERO),
        (200, "not json".into(), Duration::ZERO),
        (200, r#"{"choices":[]}"#.into(), Duration::ZERO),
        (200, "{}".into(), Duration::from_secs(4)),
        (200, good.clone(), Duration::ZERO),
    ]);
    let config = format!(
        "[tiers.starter]\nai_clues_per_month = 10\n[clue_generator]\nurl = \"{url}\"\nmodel = \"tiny\"\napi_key = \"sk-test\"\ntimeout_secs = 2\n"
    );
    let s = Server::start(&["en"], Some(&config));
    let (_, key) = s.account_with_key("starter", "");
    let auth = bearer(&key);
    let h = [("Authorization", auth.as_str())];
    let r = s.post("/api/v1/clues/generate", &h, r#"{"word":"cat","count":5}"#);
    assert_eq!(r.status, 200, "{}", r.body);
    // List marks and quotes are stripped; the clue containing the answer is dropped.
    assert_eq!(texts(&r.json()["clues"]), ["Whiskered pet", "Purring companion", "Tabby or tom"]);
    assert_eq!(r.json()["remaining"], 9);
    // HTTP 500, malformed JSON, no choices, and a timeout: 502, and the quota is untouched.
    for _ in 0..4 {
        let r = s.post("/api/v1/clues/generate", &h, r#"{"word":"cat"}"#);
        r.problem(502, "UPSTREAM_UNAVAILABLE");
    }
    // Every failure was given back: the next success takes the second unit.
    let r = s.post("/api/v1/clues/generate", &h, r#"{"word":"cat"}"#);
    assert_eq!(r.json()["remaining"], 8, "{}", r.body);
    // With the fake gone, connecting fails: still 502, still free.
    s.post("/api/v1/clues/generate", &h, r#"{"word":"cat"}"#).problem(502, "UPSTREAM_UNAVAILABLE");
}

#[test]
fn a_replaced_clue_file_reaches_a_running_server() {
    use crossword_clues::{ClueWriter, Kind, Source};
    use crossword_lang::Language;
    let s = Server::start(&["en"], None);
    let (_, key) = s.account_with_key("free", "read");
    let auth = bearer(&key);
    let h = [("Authorization", auth.as_str())];
    assert_eq!(s.get("/api/v1/clues/zebra", &h).json()["clues"], json!([]));
    let base = crossword_clues::ClueBase::open(
        &s.index_dir.join("en.cwc"),
        Language::english(),
        crossword_index::Verify::Checksum,
    )
    .unwrap();
    let mut w = ClueWriter::from_base(&base);
    w.add("zebra", "Striped grazer", Source::Published, Kind::Plain, 7);
    w.write_to(&s.index_dir.join("en.cwc")).unwrap();
    std::thread::sleep(Duration::from_millis(1100));
    let clues = s.get("/api/v1/clues/zebra", &h).json()["clues"].clone();
    assert_eq!(clues, json!([{ "text": "Striped grazer", "source": "published", "pubCount": 7 }]));
    assert_eq!(texts(&s.get("/api/v1/clues/cat", &h).json()["clues"])[0], "Jazz fan, old-style");
}
