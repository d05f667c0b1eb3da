//! Cover-service accounts, plans and keys through the real binary: `covers admin` with and
//! without a running server, `GET /api/v1/account` with every authentication outcome, scopes,
//! plan numbers from the configuration, open CORS on keyed routes only, and the admin endpoint
//! hidden from everyone else.

mod common;

use std::path::Path;
use std::process::Command;

use common::request;
use serde_json::Value;

use common::covers::{admin, start};

#[test]
fn accounts_keys_scopes_and_plans() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    // Without a server the command opens the database itself.
    let offline = admin(&data, &["account", "create", "--plan", "starter", "--name", "Offline shop"]);
    assert!(offline["id"].as_str().unwrap().starts_with("acct_"));
    assert_eq!(offline["plan"], "starter");
    let config = dir.path().join("covers.toml");
    std::fs::write(
        &config,
        "[plans.free]\ndesigns = 5\ndaily_exports = -1\n[plans.starter]\ndesigns = 3\ndaily_composes = 4\n",
    )
    .unwrap();
    let c = start(&data, &config);
    // With the server running, through its loopback admin endpoint.
    let account = admin(&data, &["account", "create", "--plan", "free", "--email", "ann@example.org"]);
    let id = account["id"].as_str().unwrap().to_owned();
    let full = admin(&data, &["key", "create", "--account", &id]);
    let secret = full["key"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("cvr_live_") && secret.len() == 41, "{secret}");
    assert_eq!(full["scopes"], serde_json::json!(["read", "design:write", "export"]));
    let export_only = admin(&data, &["key", "create", "--account", &id, "--scopes", "export"]);
    let listed = admin(&data, &["key", "list", "--account", &id]);
    let listed_text = listed.to_string();
    assert_eq!(listed["keys"].as_array().unwrap().len(), 2);
    assert!(!listed_text.contains(&secret[9..]) && !listed_text.contains("hash"), "never the secret or its hash");

    let auth = |key: &str| format!("Bearer {key}");
    let get = |headers: &[(&str, &str)]| request(c.addr, "GET", "/api/v1/account", headers, None);
    // No key, a malformed key, an unknown key, a key without the scope.
    let r = get(&[]);
    assert_eq!((r.status, r.json()["code"].as_str()), (401, Some("API_KEY_REQUIRED")));
    assert!(r.header("www-authenticate").unwrap().starts_with("Bearer"));
    assert_eq!(r.header("content-type"), Some("application/problem+json"));
    assert_eq!(get(&[("Authorization", "Bearer nope")]).json()["code"], "API_KEY_INVALID");
    let unknown = format!("cvr_live_{}", "A".repeat(32));
    let r = get(&[("Authorization", &auth(&unknown))]);
    assert_eq!((r.status, r.json()["code"].as_str()), (401, Some("API_KEY_INVALID")));
    let r = get(&[("Authorization", &auth(export_only["key"].as_str().unwrap()))]);
    assert_eq!(
        (r.status, r.json()["code"].as_str(), r.json()["requiredScope"].as_str()),
        (403, Some("FORBIDDEN_SCOPE"), Some("read"))
    );
    // The account: plan numbers from the configuration over the defaults.
    let r = get(&[("Authorization", &auth(&secret)), ("Origin", "https://shop.example")]);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"), "open CORS on keyed routes");
    let a = r.json();
    assert_eq!((a["id"].as_str(), a["plan"].as_str()), (Some(id.as_str()), Some("free")));
    assert_eq!(a["designs"]["limit"], 5, "from [plans.free]");
    assert_eq!(a["quotas"]["exportsLeft"], Value::Null, "-1: unlimited");
    assert_eq!(a["quotas"]["composesLeft"], 50, "the default");
    assert_eq!(a["outputs"], serde_json::json!(["preview"]));
    assert!(a["resetsAt"].as_str().unwrap().ends_with("T00:00:00.000Z"), "quotas reset at midnight UTC");
    // A preflight is answered on keyed routes; other routes have no CORS.
    let r = request(
        c.addr,
        "OPTIONS",
        "/api/v1/account",
        &[("Origin", "https://shop.example"), ("Access-Control-Request-Method", "GET")],
        None,
    );
    assert_eq!(r.status, 204);
    assert!(r.header("access-control-allow-headers").unwrap().contains("Authorization"));
    assert_eq!(
        request(c.addr, "GET", "/api/v1/formats", &[("Origin", "https://x.example")], None)
            .header("access-control-allow-origin"),
        None
    );
    // A new plan applies at once; a revoked key is refused for good.
    assert_eq!(admin(&data, &["account", "set-plan", &id, "patron"])["plan"], "patron");
    assert_eq!(get(&[("Authorization", &auth(&secret))]).json()["designs"]["limit"], Value::Null);
    let revoked = admin(&data, &["key", "revoke", full["id"].as_str().unwrap()]);
    assert!(revoked["revokedAt"].is_u64());
    assert_eq!(get(&[("Authorization", &auth(&secret))]).json()["code"], "API_KEY_INVALID");
    // Unknown accounts and keys are errors of the command.
    let out = Command::new(env!("CARGO_BIN_EXE_covers"))
        .args(["admin", "key", "revoke", "key_nothing", "--data-dir"])
        .arg(&data)
        .output()
        .unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("not found"));
    // The admin endpoint is invisible without the data directory's secret.
    let r = request(c.addr, "POST", "/admin/v1/command", &[], Some(br#"{"op":"key.list","account":"x"}"#));
    assert_eq!(r.status, 404);
    assert!(request(c.addr, "GET", "/api/v1/errors", &[], None).body.contains("TIER_REQUIRED"));
}

#[test]
fn saved_designs_limits_quotas_and_pages() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let config = dir.path().join("covers.toml");
    std::fs::write(&config, "[plans.starter]\ndesigns = 3\ndaily_composes = 4\n").unwrap();
    let c = start(&data, &config);
    let id = admin(&data, &["account", "create", "--plan", "starter"])["id"].as_str().unwrap().to_owned();
    let other = admin(&data, &["account", "create", "--plan", "patron"])["id"].as_str().unwrap().to_owned();
    let key = format!("Bearer {}", admin(&data, &["key", "create", "--account", &id])["key"].as_str().unwrap());
    let reader = format!(
        "Bearer {}",
        admin(&data, &["key", "create", "--account", &id, "--scopes", "read"])["key"].as_str().unwrap()
    );
    let stranger = format!("Bearer {}", admin(&data, &["key", "create", "--account", &other])["key"].as_str().unwrap());
    let save = |auth: &str, body: &str| {
        request(c.addr, "POST", "/api/v1/designs", &[("Authorization", auth)], Some(body.as_bytes()))
    };
    // Compose and save in one call.
    let r = save(
        &key,
        r#"{"format":"dvd-cover","content":{"type":"movie","query":"Metropolis"},"name":"Mine","style":{"glow":1}}"#,
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let first = r.json();
    let first_id = first["designId"].as_str().unwrap().to_owned();
    assert!(first_id.starts_with("des_") && first["url"].as_str().unwrap().ends_with(&first_id));
    assert_eq!(first["unsupported"][0]["field"], "style.glow");
    // The designer opens it.
    let page = request(c.addr, "GET", &format!("/design/{first_id}"), &[], None);
    assert!(page.status == 200 && page.body.contains("Metropolis (1927)"));
    assert_eq!(save(&reader, r#"{"format":"cd"}"#).json()["code"], "FORBIDDEN_SCOPE");
    assert_eq!(save(&key, r#"{"format":"betamax"}"#).json()["field"], "format");
    let r = save(&key, r#"{"format":"cd","decals":[{"id":"stickers/none"}]}"#);
    assert_eq!((r.status, r.json()["code"].as_str()), (422, Some("UNKNOWN_DECAL")));
    assert_eq!(save(&key, r#"{"format":"jcard","name":"Second"}"#).status, 201);
    assert_eq!(save(&key, r#"{"format":"cd-tray","name":"Third"}"#).status, 201);
    // The plan keeps 3: a fourth is refused (and costs no compose).
    let r = save(&key, r#"{"format":"cd","name":"Fourth"}"#);
    assert_eq!(
        (r.status, r.json()["code"].as_str(), r.json()["limit"].as_u64()),
        (402, Some("TIER_REQUIRED"), Some(3))
    );
    // Pages, newest first.
    let list =
        |q: &str| request(c.addr, "GET", &format!("/api/v1/designs{q}"), &[("Authorization", &reader)], None).json();
    let p1 = list("?limit=2");
    let names: Vec<&str> = p1["items"].as_array().unwrap().iter().map(|d| d["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 2);
    let cursor = p1["nextCursor"].as_str().unwrap().to_owned();
    let p2 = list(&format!("?limit=2&cursor={cursor}"));
    assert_eq!((p2["items"].as_array().unwrap().len(), p2["nextCursor"].clone()), (1, Value::Null));
    let all: Vec<String> =
        list("")["items"].as_array().unwrap().iter().map(|d| d["designId"].as_str().unwrap().to_owned()).collect();
    assert_eq!(all.last(), Some(&first_id), "newest first: the first saved comes last");
    assert_eq!(list("?limit=0")["field"], "limit");
    assert_eq!(list("?cursor=des_gone")["field"], "cursor");
    // One design with its intent; not another account's.
    let one =
        request(c.addr, "GET", &format!("/api/v1/designs/{first_id}"), &[("Authorization", &reader)], None).json();
    assert_eq!((one["name"].as_str(), one["intent"]["format"].as_str()), (Some("Mine"), Some("dvd-cover")));
    assert_eq!(
        request(c.addr, "GET", &format!("/api/v1/designs/{first_id}"), &[("Authorization", &stranger)], None).status,
        404
    );
    assert_eq!(
        request(c.addr, "DELETE", &format!("/api/v1/designs/{first_id}"), &[("Authorization", &stranger)], None).status,
        404
    );
    // Deleting frees a slot; the compose quota (4 a day) then stops the fifth compose.
    assert_eq!(
        request(c.addr, "DELETE", &format!("/api/v1/designs/{first_id}"), &[("Authorization", &key)], None).status,
        204
    );
    assert_eq!(
        request(c.addr, "GET", &format!("/api/v1/designs/{first_id}"), &[("Authorization", &key)], None).status,
        404
    );
    assert_eq!(save(&key, r#"{"format":"cd","name":"Again"}"#).status, 201);
    assert_eq!(
        request(c.addr, "DELETE", &format!("/api/v1/designs/{}", all[0]), &[("Authorization", &key)], None).status,
        204
    );
    let r = save(&key, r#"{"format":"cd","name":"Over quota"}"#);
    assert_eq!(
        (r.status, r.json()["code"].as_str(), r.json()["quota"].as_str()),
        (429, Some("QUOTA_REACHED"), Some("composes"))
    );
    let retry: u64 = r.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=86_400).contains(&retry));
    let account = request(c.addr, "GET", "/api/v1/account", &[("Authorization", &reader)], None).json();
    assert_eq!((account["designs"]["count"].as_u64(), account["quotas"]["composesLeft"].as_u64()), (Some(2), Some(0)));
}

/// A JPEG of `w` × `h` with an EXIF-like APP1 segment that must not survive.
fn jpeg(w: u16, h: u16) -> Vec<u8> {
    let rgb: Vec<u8> = (0..u32::from(w) * u32::from(h)).flat_map(|i| [(i % 251) as u8, 90, 160]).collect();
    let mut out = Vec::new();
    jpeg_encoder::Encoder::new(&mut out, 85).encode(&rgb, w, h, jpeg_encoder::ColorType::Rgb).unwrap();
    let app1 = [&[0xFF, 0xE1, 0x00, 0x14][..], b"Exif\0\0GPS-SECRET!!"].concat();
    out.splice(2..2, app1);
    out
}

fn multipart(name: &str, file: &[u8]) -> (String, Vec<u8>) {
    let boundary = "XyZ-boundary-123";
    let mut body = Vec::new();
    body.extend_from_slice(
        format!("--{boundary}\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\n{name}\r\n").as_bytes(),
    );
    body.extend_from_slice(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n").as_bytes());
    body.extend_from_slice(file);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

fn b64(bytes: &[u8]) -> String {
    covers_engine::image::base64(bytes)
}

#[test]
fn uploads_limits_and_designs_keeping_their_images() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let config = dir.path().join("covers.toml");
    std::fs::write(&config, "[plans.starter]\nuploads_library = 2\ndaily_uploads = 5\n").unwrap();
    let c = start(&data, &config);
    let id = admin(&data, &["account", "create", "--plan", "starter"])["id"].as_str().unwrap().to_owned();
    let key = format!("Bearer {}", admin(&data, &["key", "create", "--account", &id])["key"].as_str().unwrap());
    let other = admin(&data, &["account", "create", "--plan", "starter"])["id"].as_str().unwrap().to_owned();
    let stranger = format!("Bearer {}", admin(&data, &["key", "create", "--account", &other])["key"].as_str().unwrap());
    let post = |auth: &str, content_type: &str, body: &[u8]| {
        request(
            c.addr,
            "POST",
            "/api/v1/uploads",
            &[("Authorization", auth), ("Content-Type", content_type)],
            Some(body),
        )
    };
    // Multipart: the image is cleaned (the EXIF segment is gone) and gets a preview.
    let photo = jpeg(640, 400);
    let (ct, body) = multipart("Poster photo", &photo);
    let r = post(&key, &ct, &body);
    assert_eq!(r.status, 201, "{}", r.body);
    let first = r.json();
    assert!(first["ref"].as_str().unwrap().starts_with("upload:upl_"));
    assert_eq!(
        (first["width"].as_u64(), first["height"].as_u64(), first["mimeType"].as_str(), first["name"].as_str()),
        (Some(640), Some(400), Some("image/jpeg"), Some("Poster photo"))
    );
    let stored: Vec<std::path::PathBuf> = walk(&data.join("files"));
    assert!(
        stored.iter().all(|p| !std::fs::read(p).unwrap().windows(10).any(|w| w == b"GPS-SECRET")),
        "metadata dropped"
    );
    let url = first["previewUrl"].as_str().unwrap();
    let preview = request(c.addr, "GET", &url[url.find("/api/v1/").unwrap()..], &[("Authorization", &key)], None);
    assert_eq!((preview.status, preview.header("content-type")), (200, Some("image/png")));
    assert_eq!(
        request(c.addr, "GET", &url[url.find("/api/v1/").unwrap()..], &[("Authorization", &stranger)], None).status,
        404
    );
    // JSON with base64, and with a data: URL.
    let small = jpeg(32, 32);
    let r = post(
        &key,
        "application/json",
        serde_json::json!({ "name": "b64", "mimeType": "image/jpeg", "data": b64(&small) }).to_string().as_bytes(),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let second = r.json();
    // The library holds 2: a third is refused until one is deleted.
    let data_url = format!("data:image/jpeg;base64,{}", b64(&small));
    let third = serde_json::json!({ "name": "url", "data": data_url }).to_string();
    let r = post(&key, "application/json", third.as_bytes());
    assert_eq!(
        (r.status, r.json()["code"].as_str(), r.json()["limit"].as_u64()),
        (409, Some("LIBRARY_IMAGE_LIMIT"), Some(2))
    );
    // A design uses the first upload as a decal; a stranger cannot place it.
    let design = serde_json::json!({ "format": "dvd-cover", "name": "With photo", "decals": [{ "ref": first["ref"], "x": 70, "y": 50, "width": 20 }],
        "images": { "panels": { "back": { "ref": second["ref"], "fit": "fill" } } } });
    let r = request(c.addr, "POST", "/api/v1/designs", &[("Authorization", &key)], Some(design.to_string().as_bytes()));
    assert_eq!(r.status, 201, "{}", r.body);
    let design_id = r.json()["designId"].as_str().unwrap().to_owned();
    let r = request(
        c.addr,
        "POST",
        "/api/v1/designs",
        &[("Authorization", &stranger)],
        Some(design.to_string().as_bytes()),
    );
    assert_eq!(
        (r.status, r.json()["code"].as_str(), r.json()["field"].as_str()),
        (422, Some("UNKNOWN_DECAL"), Some("decals[0].ref"))
    );
    // Deleting the uploads frees the library; the design keeps its copies of the images, the
    // previews nobody uses are removed from disk.
    let files_before = walk(&data.join("files")).len();
    for u in [&first, &second] {
        let path = format!("/api/v1/uploads/{}", u["id"].as_str().unwrap());
        assert_eq!(request(c.addr, "DELETE", &path, &[("Authorization", &stranger)], None).status, 404);
        assert_eq!(request(c.addr, "DELETE", &path, &[("Authorization", &key)], None).status, 204);
    }
    let files_after = walk(&data.join("files"));
    assert_eq!(files_after.len(), files_before - 2, "both previews go; the design's two images stay");
    let kept = request(c.addr, "GET", &format!("/design/{design_id}/preview.png"), &[], None);
    assert_eq!(kept.status, 200);
    let svg = request(c.addr, "GET", &format!("/design/{design_id}/preview.svg"), &[], None).body;
    assert_eq!(
        svg.matches("data:image/jpeg;base64,").count(),
        2,
        "the decal and the back panel's image, still drawn after the uploads were deleted"
    );
    assert!(svg.contains("preserveAspectRatio=\"xMidYMid slice\""), "fill covers the panel");
    // Without a key, an upload reference is dropped and reported, never drawn.
    let r = request(c.addr, "POST", "/api/compose", &[], Some(design.to_string().as_bytes()));
    let dropped: Vec<String> =
        r.json()["unsupported"].as_array().unwrap().iter().map(|u| u["field"].as_str().unwrap().to_owned()).collect();
    assert!(
        dropped.contains(&"decals[0].ref".to_owned()) && dropped.contains(&"images.panels.back".to_owned()),
        "{dropped:?}"
    );
    assert_eq!(post(&key, "application/json", third.as_bytes()).status, 201, "a slot is free again");
    let list = request(c.addr, "GET", "/api/v1/uploads", &[("Authorization", &key)], None).json();
    assert_eq!((list["items"].as_array().unwrap().len(), list["nextCursor"].clone()), (1, Value::Null));
    assert_eq!(list["items"][0]["name"], "url");
    // Refused: not an image, a cut-short JPEG, a small PNG that claims 20000 × 20000 px, a file
    // over 4 MB, a body over 4.5 MB (413).
    let refuse = |body: Vec<u8>| {
        let r = post(&key, "application/json", serde_json::json!({ "data": b64(&body) }).to_string().as_bytes());
        (r.status, r.json()["field"].as_str().map(str::to_owned), r.json()["detail"].as_str().unwrap_or("").to_owned())
    };
    let (status, field, detail) = refuse(b"%PDF-1.7 not an image".to_vec());
    assert_eq!((status, field.as_deref()), (400, Some("file")), "{detail}");
    let (status, _, detail) = refuse(small[..small.len() / 2].to_vec());
    assert!(status == 400 && detail.contains("cut short"), "{detail}");
    let mut bomb = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    bomb.extend_from_slice(&[0, 0, 0x4E, 0x20, 0, 0, 0x4E, 0x20, 8, 6, 0, 0, 0]);
    bomb.resize(4000, 0);
    let (status, _, detail) = refuse(bomb);
    assert!(status == 400 && (detail.contains("pixels") || detail.contains("too large")), "{detail}");
    let (status, _, detail) = refuse(vec![0xFF; 4 * 1024 * 1024 + 10]);
    assert_eq!(status, 413, "{detail}: base64 of 4 MB is over 4.5 MB of body");
    let (ct, body) = multipart("big", &vec![0xFFu8; 4 * 1024 * 1024 + 10]);
    let r = post(&key, &ct, &body);
    assert_eq!(r.status, 400, "{}", r.body);
    let (ct, body) = multipart("huge", &vec![0u8; 5_000_000]);
    let r = post(&key, &ct, &body);
    assert_eq!(r.status, 413, "{}", r.body);
    let account = request(c.addr, "GET", "/api/v1/account", &[("Authorization", &key)], None).json();
    assert_eq!((account["uploads"]["count"].as_u64(), account["uploads"]["limit"].as_u64()), (Some(1), Some(2)));
    assert_eq!(account["quotas"]["uploadsLeft"], 2, "5 a day, 3 taken");
    // An upload nobody else uses leaves nothing on disk once deleted.
    let before = walk(&data.join("files")).len();
    let r = post(&key, "application/json", serde_json::json!({ "data": b64(&jpeg(48, 40)) }).to_string().as_bytes());
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(walk(&data.join("files")).len(), before + 2, "its file and preview");
    let path = format!("/api/v1/uploads/{}", r.json()["id"].as_str().unwrap());
    assert_eq!(request(c.addr, "DELETE", &path, &[("Authorization", &key)], None).status, 204);
    assert_eq!(walk(&data.join("files")).len(), before);
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = entry.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
