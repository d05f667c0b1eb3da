//! The cover service's binary over HTTP: `covers serve`, the format catalogue and its
//! geometry, problem documents, and a clean stop on SIGTERM.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::covers::start;
use common::{read_png, request};

#[test]
fn formats_and_their_geometry() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("covers.toml");
    std::fs::write(&config, "").unwrap();
    let mut c = start(&dir.path().join("data"), &config);
    let list = request(c.addr, "GET", "/api/v1/formats", &[], None).json();
    let slugs: Vec<&str> = list["items"].as_array().unwrap().iter().map(|f| f["slug"].as_str().unwrap()).collect();
    for slug in [
        "slipcover",
        "dvd-cover",
        "bluray-cover",
        "vinyl",
        "cd-insert",
        "cd-tray",
        "cd",
        "jcard",
        "cassette",
        "cassingle",
        "minidisc-jcard",
    ] {
        assert!(slugs.contains(&slug), "{slug} missing from {slugs:?}");
    }
    assert_eq!(list["dpi"], 600);
    let dvd = list["items"].as_array().unwrap().iter().find(|f| f["slug"] == "dvd-cover").unwrap();
    assert_eq!(
        (dvd["widthIn"].as_f64(), dvd["heightIn"].as_f64(), dvd["kind"].as_str()),
        (Some(10.75), Some(7.188), Some("video"))
    );
    let g = request(c.addr, "GET", "/api/v1/formats/jcard", &[], None).json();
    assert_eq!((g["trim"]["widthPx"].as_u64(), g["trim"]["heightPx"].as_u64()), (Some(2475), Some(2400)));
    let names: Vec<&str> = g["panels"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["flap", "spine", "front"]);
    assert!(g["units"]["coordinates"].as_str().unwrap().contains("percent"));
    let three = request(c.addr, "GET", "/api/v1/formats/cd-insert?panels=3", &[], None).json();
    assert_eq!(three["panels"].as_array().unwrap().len(), 3);
    assert_eq!(three["sheet"]["widthPx"], 8476 + 150, "358.817 mm plus 1/8 in of bleed on each side");
    let r = request(c.addr, "GET", "/api/v1/formats/cd-insert?panels=9", &[], None);
    assert_eq!((r.status, r.json()["field"].as_str()), (400, Some("panels")));
    // J-cards of 3 to 8 panels (2475 to 9600 px wide) and their flaps.
    let eight = request(c.addr, "GET", "/api/v1/formats/jcard?panels=8&flap=tapered", &[], None).json();
    assert_eq!((eight["trim"]["widthPx"].as_u64(), eight["shape"]["type"].as_str()), (Some(9600), Some("taperedFlap")));
    let jcard = list["items"].as_array().unwrap().iter().find(|f| f["slug"] == "jcard").unwrap();
    assert_eq!(jcard["panelChoices"], serde_json::json!([3, 8]));
    assert_eq!(jcard["flapChoices"], serde_json::json!(["standard", "short", "extended", "tapered"]));
    let r = request(c.addr, "GET", "/api/v1/formats/jcard?flap=round", &[], None);
    assert_eq!((r.status, r.json()["field"].as_str()), (400, Some("flap")));
    let r = request(c.addr, "GET", "/api/v1/formats/betamax", &[], None);
    assert_eq!((r.status, r.header("content-type")), (404, Some("application/problem+json")));
    assert_eq!(r.json()["code"], "NOT_FOUND");
    assert!(r.json()["type"].as_str().unwrap().ends_with("/api/v1/errors#NOT_FOUND"));
    assert!(request(c.addr, "GET", "/api/v1/errors", &[], None).body.contains("VALIDATION_ERROR"));
    // The decal catalogue: our own artwork, every preview well-formed SVG of its stated size.
    let decals = request(c.addr, "GET", "/api/v1/decals", &[], None).json();
    let items = decals["items"].as_array().unwrap();
    assert!(items.len() >= 30, "{} decals", items.len());
    assert_eq!(decals["categories"].as_array().unwrap().len(), 8);
    let dir = tempfile::tempdir().unwrap();
    for d in items {
        let url = d["previewUrl"].as_str().unwrap();
        let path = &url[url.find("/api/v1/").unwrap()..];
        let r = request(c.addr, "GET", path, &[], None);
        assert_eq!((r.status, r.header("content-type")), (200, Some("image/svg+xml")), "{path}");
        let file = dir.path().join(format!("{}.svg", d["id"].as_str().unwrap().replace('/', "_")));
        std::fs::write(&file, &r.body).unwrap();
        let size = common::run_python(
            "import sys, xml.etree.ElementTree as ET\nr = ET.parse(sys.argv[1]).getroot()\nprint(r.get('width'), r.get('height'))",
            &[file.to_str().unwrap()],
        );
        assert_eq!(size.trim(), format!("{} {}", d["widthPx"], d["heightPx"]), "{path}");
    }
    assert_eq!(request(c.addr, "GET", "/api/v1/decals/stickers/nope.svg", &[], None).status, 404);
    // The compose intent's schema: a valid JSON Schema (checked by PyPI jsonschema) that
    // accepts a full intent and refuses one without a format.
    let schema = request(c.addr, "GET", "/api/compose", &[], None);
    assert_eq!(schema.status, 200);
    let schema_file = dir.path().join("schema.json");
    std::fs::write(&schema_file, &schema.body).unwrap();
    let example = serde_json::json!({ "v": 1, "format": "dvd-cover", "content": { "type": "movie", "query": "Metropolis 1927" },
        "style": { "finish": "worn", "background": { "color": "#101010" } }, "layout": { "hide": ["tagline"] },
        "decals": [{ "id": "stickers/new", "x": 80, "y": 12, "layer": "over" }], "texts": [{ "text": "Restored", "x": 50, "y": 90 }], "title": "Metropolis" });
    let verdict = common::run_python(
        "import sys, json, jsonschema\ns = json.load(open(sys.argv[1]))\njsonschema.Draft202012Validator.check_schema(s)\nv = jsonschema.Draft202012Validator(s)\nprint(v.is_valid(json.loads(sys.argv[2])), v.is_valid({}))",
        &[schema_file.to_str().unwrap(), &example.to_string()],
    );
    assert_eq!(verdict.trim(), "True False");
    // Compose by POST: the designer's address, what was applied and what was dropped.
    let body = serde_json::json!({ "v": 1, "format": "dvd-cover", "content": { "type": "movie", "query": "Metropolis 1927" },
        "style": { "finish": "shiny", "labelColor": "#ffea80" }, "decals": [{ "id": "stickers/new", "x": 85, "y": 12 }, { "id": "builtin:logo/metropolis-1927", "y": 20 }],
        "texts": [{ "text": "Restored", "x": 75, "y": 92 }], "bogus": true });
    let r = request(
        c.addr,
        "POST",
        "/api/compose",
        &[("Content-Type", "application/json")],
        Some(body.to_string().as_bytes()),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let composed = r.json();
    let unsupported: Vec<&str> =
        composed["unsupported"].as_array().unwrap().iter().map(|u| u["field"].as_str().unwrap()).collect();
    assert!(unsupported.contains(&"bogus") && unsupported.contains(&"style.finish"), "{unsupported:?}");
    assert!(composed["applied"].as_array().unwrap().iter().any(|a| a == "decals[1]"));
    assert_eq!(composed["content"]["id"], "builtin:movie/metropolis-1927");
    let url = composed["url"].as_str().unwrap();
    let path = &url[url.find("/design/").unwrap()..];
    assert!(path.len() > "/design/".len() + 20, "an unguessable id: {path}");
    let page = request(c.addr, "GET", path, &[], None);
    assert_eq!(page.status, 200);
    assert!(page.body.contains("Metropolis (1927)") && page.body.contains("<svg") && page.body.contains("METROPOLIS"));
    let preview = request(c.addr, "GET", &format!("{path}/preview.svg"), &[], None);
    assert_eq!(preview.header("content-type"), Some("image/svg+xml"));
    let preview_file = dir.path().join("preview.svg");
    std::fs::write(&preview_file, &preview.body).unwrap();
    let root = common::run_python(
        "import sys, xml.etree.ElementTree as ET\nprint(ET.parse(sys.argv[1]).getroot().get('width'))",
        &[preview_file.to_str().unwrap()],
    );
    assert_eq!(root.trim(), (774 + 18).to_string(), "10.75 in at 72 px/in plus 1/8 in of bleed each side");
    // The preview PNG: 1200 px wide, its resolution and colour space recorded, read by Python.
    let png = service_kit::http_client::Request::new("GET", &format!("{path}/preview.png")).send(c.addr).unwrap();
    assert_eq!(png.header("content-type"), Some("image/png"));
    let png_file = dir.path().join("preview.png");
    std::fs::write(&png_file, &png.body).unwrap();
    assert_eq!(read_png(&png_file), "1200 812 True True", "the 792 x 536 px preview sheet scaled to 1200 px wide");
    // The command line renders the same design at 600 DPI.
    let intent_file = dir.path().join("intent.json");
    std::fs::write(&intent_file, body.to_string()).unwrap();
    let full = dir.path().join("full.png");
    let ok = Command::new(env!("CARGO_BIN_EXE_covers"))
        .args(["render", intent_file.to_str().unwrap(), "--output", "png", "-o", full.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(ok.success());
    assert_eq!(read_png(&full), "6600 4463 True True", "10.75 x 7.188 in plus 1/8 in bleed at 600 DPI");
    // Errors: no or an unknown format is a 400; an unknown catalogue decal a 422, never a blank.
    let r = request(c.addr, "POST", "/api/compose", &[], Some(br#"{"format":"betamax"}"#));
    assert_eq!((r.status, r.json()["field"].as_str()), (400, Some("format")));
    let r =
        request(c.addr, "POST", "/api/compose", &[], Some(br#"{"format":"jcard","decals":[{"id":"stickers/none"}]}"#));
    assert_eq!(
        (r.status, r.json()["code"].as_str(), r.json()["field"].as_str()),
        (422, Some("UNKNOWN_DECAL"), Some("decals[0].id"))
    );
    // The link form redirects to the designer; an unmatched search still lands there.
    let r = request(c.addr, "GET", "/api/compose?format=jcard&q=Nothing%20Like%20This&color=ffea80&hide=qr", &[], None);
    assert_eq!(r.status, 303);
    let location = r.header("location").unwrap().to_owned();
    let landed = request(c.addr, "GET", &location[location.find("/design/").unwrap()..], &[], None);
    assert!(landed.status == 200 && landed.body.contains("New design") && landed.body.contains("Cassette J-card"));
    assert_eq!(request(c.addr, "GET", "/design/doesnotexist", &[], None).status, 404);
    // The link's layout and style choices: a 5-panel J-card with a short flap; a logo for the title.
    let svg_of = |link: &str| {
        let r = request(c.addr, "GET", link, &[], None);
        assert_eq!(r.status, 303, "{link}");
        let location = r.header("location").unwrap().to_owned();
        request(c.addr, "GET", &format!("{}/preview.svg", &location[location.find("/design/").unwrap()..]), &[], None)
            .body
    };
    let five = svg_of("/api/compose?format=jcard&q=midnight%20static&panels=5&flap=short&font=Courier%20Prime");
    assert!(
        five.contains("width=\"639\""),
        "(16.00 + 12.70 + 65.07 + 63.50 + 61.89) mm = 621 px, + 2 × 9 px of bleed at 72 px/in"
    );
    assert!(five.contains("Courier Prime"));
    let logo = svg_of("/api/compose?format=dvd-cover&q=Metropolis&logo=1");
    let text = svg_of("/api/compose?format=dvd-cover&q=Metropolis&logo=0");
    let names = |svg: &str| svg.matches(">Metropolis<").count();
    assert_eq!(
        (names(&logo), names(&text)),
        (1, 2),
        "logo=1 draws the logo artwork instead of the name (the spine keeps it)"
    );
    assert!(logo.contains("font-style=\"italic\""), "the wordmark logo");
    // Content: search, lookups by namespaced id, generated artwork usable as decals.
    let found = request(
        c.addr,
        "GET",
        "/api/v1/content/search?type=movie&q=Night%20of%20the%20Living%20Dead%201968",
        &[],
        None,
    )
    .json();
    let first = &found["items"][0];
    assert_eq!(first["id"], "builtin:movie/night-of-the-living-dead-1968");
    let poster = first["artwork"].as_array().unwrap().iter().find(|a| a["kind"] == "poster").unwrap();
    let art_url = poster["previewUrl"].as_str().unwrap();
    let art = request(c.addr, "GET", &art_url[art_url.find("/api/v1/").unwrap()..], &[], None);
    assert_eq!((art.status, art.header("content-type")), (200, Some("image/svg+xml")));
    let got = request(c.addr, "GET", "/api/v1/content/movie/builtin:metropolis-1927", &[], None).json();
    assert_eq!((got["title"].as_str(), got["year"].as_u64()), (Some("Metropolis"), Some(1927)));
    let album = request(c.addr, "GET", "/api/v1/content/search?type=album&q=midnight%20static", &[], None).json();
    assert_eq!(album["items"][0]["tracks"].as_array().unwrap().len(), 8);
    assert_eq!(
        request(c.addr, "GET", "/api/v1/content/search?type=movie&q=zzzz%20unknown", &[], None).json()["items"],
        serde_json::json!([])
    );
    assert_eq!(request(c.addr, "GET", "/api/v1/content/search?type=book&q=x", &[], None).json()["field"], "type");
    assert_eq!(request(c.addr, "GET", "/api/v1/content/movie/builtin:nothing", &[], None).status, 404);
    // SIGTERM stops it cleanly.
    let _ = Command::new("kill").arg("-TERM").arg(c.child.id().to_string()).status();
    let started = Instant::now();
    let status = loop {
        if let Some(s) = c.child.try_wait().unwrap() {
            break s;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "covers did not stop");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status}");
}
