//! Hostile input over HTTP against the real cover server: oversized heads, malformed requests,
//! deeply nested and invalid JSON, huge numbers, path tricks in ids and file names, script and
//! markup in designs (their SVG and HTML stay inert), and images that lie about their size. Each
//! gets a clean 4xx, and the server keeps serving. (The crossword server's counterpart is
//! `tests/hostile_input.rs`.)

mod common;

use common::covers::{account_with_key, start};
use common::{raw_status, request};
use serde_json::{json, Value};

/// A PNG of `w` × `h` whose header then claims `claimed_w` × `claimed_h`.
fn lying_png(w: u32, h: u32, claimed: (u32, u32)) -> Vec<u8> {
    let mut bytes = Vec::new();
    {
        let mut e = png::Encoder::new(&mut bytes, w, h);
        e.set_color(png::ColorType::Rgb);
        e.set_depth(png::BitDepth::Eight);
        e.write_header().unwrap().write_image_data(&vec![90u8; (w * h * 3) as usize]).unwrap();
    }
    bytes[16..20].copy_from_slice(&claimed.0.to_be_bytes());
    bytes[20..24].copy_from_slice(&claimed.1.to_be_bytes());
    bytes
}

#[test]
fn hostile_requests_designs_and_images_get_a_clean_4xx() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let config = dir.path().join("covers.toml");
    std::fs::write(&config, "[exports]\nworkers = 1\n").unwrap();
    let c = start(&data, &config);
    let (_, auth) = account_with_key(&data, "patron");
    let serving = || assert_eq!(request(c.addr, "GET", "/api/v1/formats", &[], None).status, 200, "stopped serving");
    let post = |path: &str, body: &[u8]| {
        request(c.addr, "POST", path, &[("Authorization", &auth), ("Content-Type", "application/json")], Some(body))
    };

    // Heads: too large, malformed, not HTTP.
    let huge = format!("GET /api/v1/formats HTTP/1.1\r\nHost: x\r\nX-Junk: {}\r\n\r\n", "a".repeat(200_000));
    assert_eq!(raw_status(c.addr, huge.as_bytes()), Some(431));
    assert_eq!(raw_status(c.addr, b"GET /api/v1/formats HTTP/1.1\r\nHost x\r\n\r\n"), Some(400));
    assert_eq!(raw_status(c.addr, b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"), Some(400));
    serving();

    // Bodies: each a problem document, nothing saved.
    let nested = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    for (path, body) in [
        ("/api/v1/designs", nested.as_bytes().to_vec()),
        ("/api/compose", nested.as_bytes().to_vec()),
        ("/api/v1/designs", b"{\"format\":\"cd\",\"name\":\"\xff\xfe\"}".to_vec()),
        ("/api/v1/designs", br#"{"format":"cd","texts":[{"text":"x","x":1e999999,"y":5}]}"#.to_vec()),
        ("/api/v1/designs", br#"{"format":"cd","name":"\ud800"}"#.to_vec()),
        ("/api/v1/uploads", br#"{"name":"x","data":"not base64 at all!"}"#.to_vec()),
        ("/api/v1/uploads", vec![b'{'; 5_000_000]),
    ] {
        let r = post(path, &body);
        assert!((400..500).contains(&r.status), "{path}: {} {}", r.status, &r.body[..r.body.len().min(300)]);
        assert_eq!(r.header("content-type"), Some("application/problem+json"), "{path}");
    }
    let account = request(c.addr, "GET", "/api/v1/account", &[("Authorization", &auth)], None).json();
    assert_eq!(account["designs"]["count"], 0);
    serving();

    // Images that lie about their size: a 4 x 4 PNG claiming 60000 x 60000, and one claiming
    // 8000 x 8000 (64 MP, over the 40 MP limit): refused from the header, before decoding.
    for claimed in [(60_000, 60_000), (8_000, 8_000), (0, 4)] {
        let body = json!({ "name": "liar", "data": covers_engine::image::base64(&lying_png(4, 4, claimed)) });
        let r = post("/api/v1/uploads", body.to_string().as_bytes());
        assert_eq!(r.status, 400, "{claimed:?}: {}", r.body);
        assert_eq!(r.json()["field"], "file", "{claimed:?}");
    }
    serving();

    // Path tricks in ids and file names find nothing and leak nothing.
    for id in ["..%2F..%2Fcovers.redb", "%2e%2e", "a%00b", "%ff", "....//....//", "%C0%AE%C0%AE"] {
        for path in [
            format!("/api/v1/designs/{id}"),
            format!("/api/v1/exports/{id}"),
            format!("/api/v1/uploads/{id}/preview.png"),
            format!("/design/{id}"),
            format!("/design/{id}/preview.svg"),
            format!("/design/assets/{id}"),
            format!("/api/v1/decals/stickers/{id}"),
            format!("/api/v1/content/art/poster/{id}"),
            format!("/api/v1/formats/{id}"),
        ] {
            let r = request(c.addr, "GET", &path, &[("Authorization", &auth)], None);
            assert!(matches!(r.status, 400 | 404), "{path}: {} {}", r.status, &r.body[..r.body.len().min(200)]);
            assert!(!r.body.as_bytes().windows(5).any(|w| w == b"redb\x1a"), "{path} served the database");
        }
    }
    serving();

    // Script and markup in a design's texts stay text: escaped in the SVG, which also carries a
    // policy under which nothing could run.
    let hostile = "</text><script>alert(1)</script><foreignObject><img src=x onerror=alert(2)>";
    let body = json!({
        "format": "jcard",
        "name": "\"><script>alert(3)</script>",
        "title": hostile,
        "texts": [{ "text": hostile, "x": 50, "y": 50, "size": 3 }]
    });
    let r = post("/api/v1/designs", body.to_string().as_bytes());
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.json()["designId"].as_str().unwrap().to_owned();
    let svg = request(c.addr, "GET", &format!("/design/{id}/preview.svg"), &[], None);
    assert_eq!(svg.status, 200);
    for live in ["<script", "<foreignObject", "<img"] {
        assert!(!svg.body.contains(live), "{live} in the SVG");
    }
    assert!(svg.body.contains("&lt;script&gt;") || svg.body.contains("&lt;/text&gt;"), "the text is kept, escaped");
    let csp = svg.header("content-security-policy").unwrap_or_default();
    assert!(csp.contains("default-src 'none'") && !csp.contains("script-src"), "{csp}");
    assert_eq!(svg.header("x-content-type-options"), Some("nosniff"));
    let page = request(c.addr, "GET", &format!("/design/{id}"), &[], None);
    assert_eq!(page.status, 200);
    assert!(!page.body.contains("<script>alert") && !page.body.contains("<img src=x"), "markup escaped on the page");
    assert!(page.body.contains("\\u003cscript>alert(1)"), "the intent's data element holds no `<` at all");
    let listed: Value = request(c.addr, "GET", "/api/v1/designs", &[("Authorization", &auth)], None).json();
    assert_eq!(listed["items"][0]["name"], "\"><script>alert(3)</script>", "kept as text in JSON");
    serving();
}
