//! No cross-account reads or writes, over every keyed route of both services: account A owns
//! one of everything (draft and published puzzles, a fill session, saved designs, an upload, an
//! export job) and account B's key, with every scope, tries each route on A's records. Only what
//! the contract makes public answers (a published puzzle reads with any key); everything else
//! is 404 and changes nothing, and B's lists never show A's records.

mod common;

use common::covers::{account_with_key, start};
use common::{bearer, mini, request, EventStream, Server};
use serde_json::{json, Value};

#[test]
fn crossword_routes_keep_accounts_apart() {
    let s = Server::start(&["it", "en"], Some("[tiers.patron]\nreads_per_minute = -1\n"));
    let (_, a) = s.account_with_key("patron", "");
    let (_, b) = s.account_with_key("patron", "");
    let (a, b) = (bearer(&a), bearer(&b));
    let send = |auth: &str, method: &str, path: &str, body: Option<&Value>| {
        let body = body.map(Value::to_string);
        request(s.addr, method, path, &[("Authorization", auth)], body.as_deref().map(str::as_bytes))
    };
    let draft = send(&a, "POST", "/api/v1/puzzles", Some(&mini("A's draft"))).json();
    let draft = draft["id"].as_str().unwrap().to_owned();
    let mut published = mini("A's published");
    published["publish"] = json!(true);
    let published = send(&a, "POST", "/api/v1/puzzles", Some(&published)).json()["id"].as_str().unwrap().to_owned();
    let before = send(&a, "GET", &format!("/api/v1/puzzles/{draft}"), None).json();

    // Every route on A's draft: 404 for B, whatever the method.
    let on_draft: Vec<(&str, String, Option<Value>)> = vec![
        ("GET", format!("/api/v1/puzzles/{draft}"), None),
        ("PATCH", format!("/api/v1/puzzles/{draft}"), Some(json!({ "title": "B was here" }))),
        ("DELETE", format!("/api/v1/puzzles/{draft}"), None),
        ("POST", format!("/api/v1/puzzles/{draft}/publish"), Some(json!({}))),
        ("GET", format!("/api/v1/puzzles/{draft}/export?format=puz"), None),
        ("GET", format!("/api/v1/puzzles/{draft}/export?format=ipuz"), None),
        ("GET", format!("/api/v1/puzzles/{draft}/versions"), None),
        ("GET", format!("/api/v1/puzzles/{draft}/versions/1"), None),
    ];
    for (method, path, body) in &on_draft {
        let r = send(&b, method, path, body.as_ref());
        assert_eq!(r.status, 404, "{method} {path} by another account: {}", r.body);
        r.problem(404, "NOT_FOUND");
    }
    // A published puzzle reads with any key (the contract), but only its owner changes it.
    assert_eq!(send(&b, "GET", &format!("/api/v1/puzzles/{published}"), None).status, 200);
    for (method, path, body) in [
        ("PATCH", format!("/api/v1/puzzles/{published}"), Some(json!({ "title": "B was here" }))),
        ("DELETE", format!("/api/v1/puzzles/{published}"), None),
        ("POST", format!("/api/v1/puzzles/{published}/publish"), Some(json!({ "submitToShowcase": true }))),
        // Earlier versions may hold what was there before publication: the owner's alone.
        ("GET", format!("/api/v1/puzzles/{published}/versions"), None),
        ("GET", format!("/api/v1/puzzles/{published}/versions/1"), None),
    ] {
        let r = send(&b, method, &path, body.as_ref());
        assert_eq!(r.status, 404, "{method} {path} by another account: {}", r.body);
    }
    // Nothing changed, and B's list holds none of A's puzzles.
    assert_eq!(send(&a, "GET", &format!("/api/v1/puzzles/{draft}"), None).json(), before);
    let p = send(&a, "GET", &format!("/api/v1/puzzles/{published}"), None).json();
    assert_eq!((p["title"].as_str(), &p["showcaseStatus"]), (Some("A's published"), &Value::Null));
    assert_eq!(send(&b, "GET", "/api/v1/puzzles", None).json()["total"], 0);
    // The draft's public page is not there for anyone.
    assert_eq!(s.get(&format!("/p/{draft}"), &[]).status, 404);

    // A's running fill: B cannot cancel it.
    let body = format!(r#"{{"grid":{},"language":"it","max_time":20}}"#, common::open9());
    let mut stream = EventStream::open(s.addr, "/api/v1/fill", &[("Authorization", &a)], &body);
    let session = stream.next_event().unwrap()["sessionId"].as_str().unwrap().to_owned();
    let r = send(&b, "POST", "/api/v1/fill/cancel", Some(&json!({ "sessionId": session }))).json();
    assert_eq!(r["cancelled"], false);
    assert_eq!(stream.next_event().unwrap()["type"], "progress", "A's fill goes on");
    let r = send(&a, "POST", "/api/v1/fill/cancel", Some(&json!({ "sessionId": session }))).json();
    assert_eq!(r["cancelled"], true);
}

#[test]
fn cover_routes_keep_accounts_apart() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let config = dir.path().join("covers.toml");
    std::fs::write(&config, "[exports]\nworkers = 1\n").unwrap();
    let c = start(&data, &config);
    let (_, a) = account_with_key(&data, "patron");
    let (_, b) = account_with_key(&data, "patron");
    let send = |auth: &str, method: &str, path: &str, body: Option<&Value>| {
        let body = body.map(Value::to_string);
        request(c.addr, method, path, &[("Authorization", auth)], body.as_deref().map(str::as_bytes))
    };
    let design = send(&a, "POST", "/api/v1/designs", Some(&json!({ "format": "cd", "name": "A's" }))).json();
    let design = design["designId"].as_str().unwrap().to_owned();
    let rgb: Vec<u8> = (0..32u32 * 24).flat_map(|i| [(i % 251) as u8, 20, 30]).collect();
    let mut jpeg = Vec::new();
    jpeg_encoder::Encoder::new(&mut jpeg, 90).encode(&rgb, 32, 24, jpeg_encoder::ColorType::Rgb).unwrap();
    let upload = json!({ "name": "A's photo", "data": covers_engine::image::base64(&jpeg) });
    let upload = send(&a, "POST", "/api/v1/uploads", Some(&upload)).json()["id"].as_str().unwrap().to_owned();
    let job = send(&a, "POST", &format!("/api/v1/designs/{design}/export"), Some(&json!({ "output": "preview" })));
    let job = job.json()["jobId"].as_str().unwrap().to_owned();

    for (method, path, body) in [
        ("GET", format!("/api/v1/designs/{design}"), None),
        ("DELETE", format!("/api/v1/designs/{design}"), None),
        ("POST", format!("/api/v1/designs/{design}/export"), Some(json!({ "output": "preview" }))),
        ("GET", format!("/api/v1/exports/{job}"), None),
        ("GET", format!("/api/v1/uploads/{upload}/preview.png"), None),
        ("DELETE", format!("/api/v1/uploads/{upload}"), None),
    ] {
        let r = send(&b, method, &path, body.as_ref());
        assert_eq!(r.status, 404, "{method} {path} by another account: {}", r.body);
        assert_eq!(r.json()["code"], "NOT_FOUND", "{method} {path}");
    }
    // The file of a job answers signed links only (its owner gets them from the job), never a key.
    let r = send(&b, "GET", &format!("/api/v1/exports/{job}/file"), None);
    assert_eq!((r.status, r.json()["code"].as_str()), (403, Some("LINK_INVALID")), "{}", r.body);
    // A design that refers to A's upload is refused to B, naming the field.
    let theft = json!({ "format": "cd", "images": { "panels": { "label": { "ref": format!("upload:{upload}") } } } });
    let r = send(&b, "POST", "/api/v1/designs", Some(&theft));
    assert!(r.status == 400 || r.status == 422, "{}", r.body);
    // Nothing changed, and B's lists and counts hold none of A's records.
    assert_eq!(send(&a, "GET", &format!("/api/v1/designs/{design}"), None).status, 200);
    assert_eq!(send(&a, "GET", &format!("/api/v1/uploads/{upload}/preview.png"), None).status, 200);
    assert_eq!(send(&a, "GET", &format!("/api/v1/exports/{job}"), None).status, 200);
    assert_eq!(send(&b, "GET", "/api/v1/designs", None).json()["items"], json!([]));
    assert_eq!(send(&b, "GET", "/api/v1/uploads", None).json()["items"], json!([]));
    let account = send(&b, "GET", "/api/v1/account", None).json();
    assert_eq!((account["designs"]["count"].as_u64(), account["uploads"]["count"].as_u64()), (Some(0), Some(0)));
}
