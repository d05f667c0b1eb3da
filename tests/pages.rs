//! The public pages over HTTP (the browser test covers the player itself): addresses and
//! statuses, security and cache headers, escaping, Open Graph tags, oEmbed, author pages, the
//! showcase gallery with its language filter and pages, grid previews and the assets.

mod common;

use common::{bearer, request, Reply, Server};
use serde_json::{json, Value};

const PATRON: &str = "[tiers.patron]\nreads_per_minute = -1\n[limits]\nservice_name = \"Puzzle Place\"\n";

fn publish(s: &Server, key: &str, body: Value) -> String {
    let auth = bearer(key);
    let r = request(s.addr, "POST", "/api/v1/puzzles", &[("Authorization", &auth)], Some(body.to_string().as_bytes()));
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["id"].as_str().unwrap().to_owned()
}

fn mini(title: &str, extra: Value) -> Value {
    let mut body = json!({ "title": title, "publish": true, "grid": ["CAT", "ODE", "WET"],
        "clues": { "across": { "1": "Pet", "4": "Poem", "5": "Damp" }, "down": { "1": "Milk source", "2": "Citrus drink", "3": "Tet" } } });
    if let (Some(b), Value::Object(e)) = (body.as_object_mut(), extra) {
        b.extend(e);
    }
    body
}

fn page(s: &Server, path: &str) -> Reply {
    request(s.addr, "GET", path, &[], None)
}

#[test]
fn puzzle_pages_embeds_and_their_headers() {
    let s = Server::start(&["en"], Some(PATRON));
    let (_, key) = s.account_with_key("patron", "");
    let id = publish(
        &s,
        &key,
        mini(
            "<b>Bold</b> & \"quoted\"",
            json!({ "author": "Ann", "noIndex": false,
        "clues": { "across": { "1": "</script><script>alert(1)</script>", "4": "Poem", "5": "Damp" }, "down": { "1": "Milk source", "2": "Citrus drink", "3": "Tet" } } }),
        ),
    );
    // The page shows the difficulty, which comes shortly after publishing: wait for it, so the
    // page stays the same between the requests below.
    let auth = bearer(&key);
    let started = std::time::Instant::now();
    while request(s.addr, "GET", &format!("/api/v1/puzzles/{id}"), &[("Authorization", &auth)], None).json()
        ["difficulty"]
        .is_null()
    {
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "no rating");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let r = page(&s, &format!("/p/{id}"));
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
    let csp = r.header("content-security-policy").unwrap();
    assert!(
        csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'") && !csp.contains("unsafe"),
        "{csp}"
    );
    assert_eq!(r.header("x-frame-options"), Some("DENY"));
    assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    assert!(r.header("referrer-policy").is_some());
    assert!(r.header("x-robots-tag").is_none() && !r.body.contains("noindex"), "noIndex false: indexable");
    // Escaped everywhere; the inline data cannot close its element.
    assert!(r.body.contains("&lt;b&gt;Bold&lt;/b&gt; &amp; &quot;quoted&quot;") && !r.body.contains("<b>Bold"));
    assert_eq!(r.body.matches("</script>").count(), 2, "only the player's script and the data element close");
    assert!(r.body.contains("\\u003c/script>"));
    assert!(!r.body.contains("<script>"), "no inline script at all");
    // Open Graph, oEmbed discovery, the service's name from the config.
    for needle in [
        "property=\"og:title\"",
        "property=\"og:image\"",
        &format!("/p/{id}/preview.svg"),
        "application/json+oembed",
        "Puzzle Place",
    ] {
        assert!(r.body.contains(needle), "{needle} missing");
    }
    // ETags.
    let etag = r.header("etag").unwrap().to_owned();
    let again = request(s.addr, "GET", &format!("/p/{id}"), &[("If-None-Match", &etag)], None);
    assert_eq!((again.status, again.body.as_str()), (304, ""));
    let zipped = request(s.addr, "GET", &format!("/p/{id}"), &[("Accept-Encoding", "gzip, br")], None);
    assert_eq!((zipped.header("content-encoding"), zipped.header("vary")), (Some("gzip"), Some("Accept-Encoding")));
    // The embed may be framed; the preview is the blank grid.
    let e = page(&s, &format!("/embed/{id}?scheme=dark"));
    assert_eq!(e.status, 200);
    assert!(
        e.header("content-security-policy").unwrap().contains("frame-ancestors *")
            && e.header("x-frame-options").is_none()
    );
    assert!(e.body.contains("class=\"embed scheme-dark\"") && e.body.contains("\"embed\":true"));
    let svg = page(&s, &format!("/p/{id}/preview.svg"));
    assert_eq!(svg.header("content-type"), Some("image/svg+xml"));
    assert!(svg.body.contains("<svg") && !svg.body.contains(">C</text>"));
    // Unlisted puzzles say noindex; drafts, unknown and deleted puzzles have no page.
    let hidden = publish(&s, &key, mini("Hidden", json!({})));
    let r = page(&s, &format!("/p/{hidden}"));
    assert!(
        r.body.contains("<meta name=\"robots\" content=\"noindex\">") && r.header("x-robots-tag") == Some("noindex")
    );
    let mut draft = mini("Draft", json!({}));
    draft["publish"] = false.into();
    let draft = publish(&s, &key, draft);
    assert_eq!(page(&s, &format!("/p/{draft}")).status, 404);
    assert_eq!(page(&s, &format!("/embed/{draft}")).status, 404);
    assert_eq!(page(&s, "/p/zzzzzzzz").status, 404);
    assert_eq!(page(&s, "/p/NOT-AN-ID").status, 404);
    let auth = bearer(&key);
    assert_eq!(
        request(s.addr, "DELETE", &format!("/api/v1/puzzles/{hidden}"), &[("Authorization", &auth)], None).status,
        204
    );
    assert_eq!(page(&s, &format!("/p/{hidden}")).status, 410);
    // Adult themes: the page has an age check; the embed refuses.
    let adult = publish(&s, &key, mini("Late", json!({ "writeup": "Erotica night" })));
    assert!(page(&s, &format!("/p/{adult}")).body.contains("id=\"gate\""));
    let refused = page(&s, &format!("/embed/{adult}"));
    assert_eq!(refused.status, 403);
    assert!(!refused.body.contains("puzzle-data"));
    // oEmbed.
    let base = format!("http://{}", s.addr);
    let o = page(&s, &format!("/oembed?url={}", common_percent(&format!("{base}/p/{id}"))));
    assert_eq!(o.status, 200);
    let o = o.json();
    assert_eq!(
        (o["version"].as_str(), o["type"].as_str(), o["provider_name"].as_str()),
        (Some("1.0"), Some("rich"), Some("Puzzle Place"))
    );
    assert!(
        o["html"].as_str().unwrap().contains(&format!("{base}/embed/{id}"))
            && o["html"].as_str().unwrap().contains("embed.js")
    );
    assert_eq!(o["author_name"], "Ann");
    assert_eq!(page(&s, &format!("/oembed?url={}", common_percent(&format!("{base}/p/{adult}")))).status, 404);
    assert_eq!(page(&s, "/oembed?url=https%3A%2F%2Felsewhere.example%2Fp%2Fabc").status, 404);
    assert_eq!(page(&s, &format!("/oembed?format=xml&url={}", common_percent(&format!("{base}/p/{id}")))).status, 501);
    // Assets: compiled in, immutable when versioned, 304 on a matching ETag.
    let js = page(&s, "/assets/player.js?v=1");
    assert_eq!(js.header("content-type"), Some("text/javascript; charset=utf-8"));
    assert!(js.header("cache-control").unwrap().contains("immutable"));
    let tag = js.header("etag").unwrap().to_owned();
    assert_eq!(request(s.addr, "GET", "/assets/player.js", &[("If-None-Match", &tag)], None).status, 304);
    assert_eq!(page(&s, "/assets/nope.js").status, 404);
}

fn common_percent(text: &str) -> String {
    text.bytes()
        .map(|b| if b.is_ascii_alphanumeric() { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect()
}

#[test]
fn author_pages_and_the_showcase_gallery() {
    let s = Server::start(&["en", "fr"], Some(PATRON));
    let (_, key) = s.account_with_key("patron", "");
    let shown = publish(&s, &key, mini("Listed", json!({ "author": "Ann O'Neil", "showProfile": true })));
    let _hidden = publish(&s, &key, mini("Not listed", json!({ "author": "Ann O'Neil", "showProfile": false })));
    let r = page(&s, "/u/ann-o-neil");
    assert_eq!(r.status, 200);
    assert!(r.body.contains("Listed") && !r.body.contains("Not listed") && r.body.contains(&format!("/p/{shown}")));
    assert!(r.body.contains("property=\"og:title\""));
    assert_eq!(page(&s, "/u/nobody").status, 404);
    // The puzzle page links its author's page.
    assert!(page(&s, &format!("/p/{shown}")).body.contains("/u/ann-o-neil"));
    // The showcase: approved puzzles only, newest first, by language, in pages of 24.
    let auth = bearer(&key);
    let mut approved = Vec::new();
    for i in 0..26 {
        let lang = if i % 2 == 0 { "en" } else { "fr" };
        let id = publish(&s, &key, mini(&format!("Show {i:02}"), json!({ "language": lang })));
        let r = request(
            s.addr,
            "POST",
            &format!("/api/v1/puzzles/{id}/publish"),
            &[("Authorization", &auth)],
            Some(br#"{"submitToShowcase":true}"#),
        );
        assert_eq!(r.status, 200, "{}", r.body);
        common_wait_for_pre_check(&s, &auth, &id);
        s.admin(&["showcase", "approve", &id]);
        approved.push(id);
    }
    let first = page(&s, "/showcase");
    assert_eq!(first.status, 200);
    assert_eq!(first.body.matches("<li><a href=").count(), 24);
    assert!(
        first.body.contains("Show 25") && !first.body.contains("Listed<"),
        "newest first; unapproved puzzles stay out"
    );
    assert!(first.body.contains("rel=\"next\""));
    let second = page(&s, "/showcase?page=2");
    assert_eq!(second.body.matches("<li><a href=").count(), 2);
    assert!(second.body.contains("Show 00"));
    let french = page(&s, "/showcase?lang=fr");
    assert_eq!(french.body.matches("<li><a href=").count(), 13);
    assert!(!french.body.contains("Show 24"));
}

fn common_wait_for_pre_check(s: &Server, auth: &str, id: &str) {
    let started = std::time::Instant::now();
    loop {
        let p = request(s.addr, "GET", &format!("/api/v1/puzzles/{id}"), &[("Authorization", auth)], None).json();
        if p["showcaseStatus"] != "pending" {
            return;
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}
