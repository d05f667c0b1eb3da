//! Hostile input over HTTP against the real crossword server: oversized heads and bodies, slow
//! clients, invalid UTF-8, deeply nested JSON, huge numbers, unknown fields and path tricks.
//! Each gets a clean 4xx (or the connection is closed for a client that never finishes its
//! head), and the server keeps serving everyone else.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::{bearer, raw_status, request, Server};

const PATRON: &str = "[tiers.patron]\nreads_per_minute = -1\n";

fn still_serving(s: &Server) {
    assert_eq!(s.get("/api/v1/status", &[]).status, 200, "the server stopped serving");
}

#[test]
fn oversized_heads_and_malformed_requests_get_a_4xx_and_the_server_keeps_serving() {
    let s = Server::start(&["en"], None);
    let huge_header = format!("GET /api/v1/status HTTP/1.1\r\nHost: x\r\nX-Junk: {}\r\n\r\n", "a".repeat(200_000));
    assert_eq!(raw_status(s.addr, huge_header.as_bytes()), Some(431), "a 200 KB header");
    let many_headers: String = (0..500).map(|i| format!("X-H{i}: v\r\n")).collect();
    let many = format!("GET /api/v1/status HTTP/1.1\r\nHost: x\r\n{many_headers}\r\n");
    assert_eq!(raw_status(s.addr, many.as_bytes()), Some(431), "500 headers");
    let long_uri = format!("GET /api/v1/words?pattern={} HTTP/1.1\r\nHost: x\r\n\r\n", "A".repeat(100_000));
    let status = raw_status(s.addr, long_uri.as_bytes());
    assert!(matches!(status, Some(414 | 431)), "a 100 KB request line: {status:?}");
    assert_eq!(raw_status(s.addr, b"BLAH\r\n\r\n"), Some(400), "not HTTP");
    assert_eq!(raw_status(s.addr, b"GET /api/v1/status HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n"), Some(400));
    assert_eq!(
        raw_status(
            s.addr,
            b"POST /api/v1/words/scores HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n"
        ),
        Some(400),
        "a Content-Length over u64"
    );
    // Invalid UTF-8 in the path and the query.
    let status = raw_status(s.addr, b"GET /api/v1/words?pattern=C\xff\xfeT HTTP/1.1\r\nHost: x\r\n\r\n");
    assert!(matches!(status, Some(400..=499)), "raw invalid UTF-8 in the query: {status:?}");
    let status = raw_status(s.addr, b"GET /p/\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n");
    assert!(matches!(status, Some(400..=499)), "raw invalid UTF-8 in the path: {status:?}");
    still_serving(&s);
}

#[test]
fn slow_clients_are_cut_off_without_starving_others() {
    let s = Server::start(&["en"], None);
    // Ten slowloris connections: a head started and never finished.
    let mut slow: Vec<TcpStream> = (0..10)
        .map(|_| {
            let mut c = TcpStream::connect(s.addr).unwrap();
            c.write_all(b"GET /api/v1/status HTTP/1.1\r\nHost: x\r\nX-Slow: ").unwrap();
            c
        })
        .collect();
    // Everyone else is served meanwhile.
    for _ in 0..20 {
        still_serving(&s);
    }
    // Trickling a byte every second does not keep a connection alive past the head timeout.
    let started = Instant::now();
    let closed = loop {
        let c = &mut slow[0];
        if c.write_all(b"a").is_err() {
            break true;
        }
        c.set_read_timeout(Some(Duration::from_millis(900))).unwrap();
        let mut buf = [0u8; 256];
        match c.read(&mut buf) {
            // Closed, or a 408 on its way out: cut off.
            Ok(_) => break true,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock || e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(_) => break true,
        }
        if started.elapsed() > Duration::from_secs(30) {
            break false;
        }
    };
    assert!(closed, "a slow head was allowed to go on for 30 s");
    assert!(started.elapsed() < Duration::from_secs(15), "cut off after {:?}", started.elapsed());
    still_serving(&s);
}

#[test]
fn hostile_json_bodies_get_a_problem_naming_the_field() {
    let s = Server::start(&["en"], Some(PATRON));
    let (_, key) = s.account_with_key("patron", "");
    let auth = bearer(&key);
    let h = [("Authorization", auth.as_str()), ("Content-Type", "application/json")];
    let post = |path: &str, body: &[u8]| request(s.addr, "POST", path, &h, Some(body));
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let nested_object = format!(r#"{{"words":{}"cat"{}}}"#, "[".repeat(10_000), "]".repeat(10_000));
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("/api/v1/words/scores", deep.clone().into_bytes()),
        ("/api/v1/words/scores", nested_object.into_bytes()),
        ("/api/v1/words/scores", b"{\"words\":[\"caf\xff\"]}".to_vec()),
        ("/api/v1/words/scores", br#"{"words":["cat"],"language":"en","extra":1e999999}"#.to_vec()),
        ("/api/v1/fill", br#"{"grid":["...","...","..."],"max_time":1e308}"#.to_vec()),
        ("/api/v1/fill", br#"{"grid":["...","...","..."],"min_score":-99999999999999999999999}"#.to_vec()),
        ("/api/v1/fill", deep.into_bytes()),
        ("/api/v1/puzzles", br#"{"title":"\ud800","grid":["CAT"]}"#.to_vec()),
        ("/api/v1/clues/bulk", br#"{"words":[{"a":{"b":{"c":[[[[[[[[[]]]]]]]]]}}}]}"#.to_vec()),
    ];
    for (path, body) in &cases {
        let r = post(path, body);
        assert!(
            (400..500).contains(&r.status),
            "{path} {}: {} {}",
            String::from_utf8_lossy(&body[..body.len().min(80)]),
            r.status,
            r.body
        );
        assert_eq!(r.header("content-type"), Some("application/problem+json"), "{path}: {}", r.body);
        let doc = r.json();
        assert!(doc["code"].is_string() && doc["detail"].is_string(), "{doc}");
    }
    still_serving(&s);
}

#[test]
fn path_tricks_in_ids_find_nothing() {
    let s = Server::start(&["en"], Some(PATRON));
    let (_, key) = s.account_with_key("patron", "");
    let auth = bearer(&key);
    let h = [("Authorization", auth.as_str())];
    for id in ["..%2F..%2Fetc%2Fpasswd", "%2e%2e", "a%00b", "%ff", "....//....//", "x%20y", "%C0%AE%C0%AE"] {
        for path in
            [format!("/api/v1/puzzles/{id}"), format!("/p/{id}"), format!("/api/v1/puzzles/{id}/export?format=puz")]
        {
            let r = request(s.addr, "GET", &path, &h, None);
            assert!(matches!(r.status, 400 | 404 | 410), "{path}: {} {}", r.status, r.body);
            assert!(!r.body.contains("root:"), "{path} leaked a file");
        }
    }
    still_serving(&s);
}
