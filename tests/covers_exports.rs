//! Export jobs through the real binary: queued → running → done with a signed link, plan rules
//! (free accounts export previews only), scopes, links refused when altered or late, files
//! expiring with shortened lifetimes from the configuration, and a server killed mid-queue whose
//! jobs finish after the restart.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::covers::{account_with_key, admin, start};
use common::request;
use serde_json::{json, Value};

fn save(addr: std::net::SocketAddr, auth: &str, body: Value) -> String {
    let r = request(addr, "POST", "/api/v1/designs", &[("Authorization", auth)], Some(body.to_string().as_bytes()));
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["designId"].as_str().unwrap().to_owned()
}

fn export(addr: std::net::SocketAddr, auth: &str, design: &str, body: Value) -> common::Reply {
    request(
        addr,
        "POST",
        &format!("/api/v1/designs/{design}/export"),
        &[("Authorization", auth)],
        Some(body.to_string().as_bytes()),
    )
}

/// Polls a job until it leaves `queued` and `running`.
fn settle(addr: std::net::SocketAddr, auth: &str, job: &str) -> Value {
    let started = Instant::now();
    loop {
        let v = request(addr, "GET", &format!("/api/v1/exports/{job}"), &[("Authorization", auth)], None).json();
        if !["queued", "running"].contains(&v["status"].as_str().unwrap_or("")) {
            return v;
        }
        assert!(started.elapsed() < Duration::from_secs(120), "job {job} stuck: {v}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn path_of(url: &str) -> &str {
    &url[url.find("/api/v1/").unwrap()..]
}

#[test]
fn export_jobs_links_plans_and_expiry() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let config = dir.path().join("covers.toml");
    std::fs::write(
        &config,
        "[exports]\nworkers = 1\nlink_lifetime_seconds = 2\nfile_lifetime_seconds = 6\nclean_every_seconds = 1\n",
    )
    .unwrap();
    let c = start(&data, &config);
    let (_, member) = account_with_key(&data, "starter");
    let (_, free) = account_with_key(&data, "free");
    let design =
        save(c.addr, &member, json!({ "format": "jcard", "content": { "query": "Midnight Static" }, "name": "Tape" }));
    // A preview: 202, Location, then done with a signed link to a 1200 px PNG.
    let r = export(c.addr, &member, &design, json!({ "output": "preview" }));
    assert_eq!(r.status, 202, "{}", r.body);
    let job = r.json()["jobId"].as_str().unwrap().to_owned();
    assert_eq!(r.json()["status"], "queued");
    assert!(r.header("location").unwrap().ends_with(&format!("/api/v1/exports/{job}")));
    let done = settle(c.addr, &member, &job);
    assert_eq!(done["status"], "done", "{done}");
    let file = &done["file"];
    assert_eq!(
        (file["mimeType"].as_str(), file["widthPx"].as_u64(), file["expiresInSeconds"].as_u64()),
        (Some("image/png"), Some(1200), Some(2))
    );
    let url = file["url"].as_str().unwrap().to_owned();
    let got = request(c.addr, "GET", path_of(&url), &[], None);
    assert_eq!((got.status, got.header("content-type")), (200, Some("image/png")));
    assert_eq!(got.header("content-length").and_then(|l| l.parse::<u64>().ok()), file["bytes"].as_u64());
    // An altered link is refused; so is one past its lifetime.
    let altered = url.replace("sig=", "sig=0");
    assert_eq!(request(c.addr, "GET", path_of(&altered), &[], None).json()["code"], "LINK_INVALID");
    let later = url.replace("expires=", "expires=9");
    assert_eq!(request(c.addr, "GET", path_of(&later), &[], None).status, 403, "a changed expiry breaks the signature");
    // A print PDF on A4 without marks.
    let pdf_job = export(c.addr, &member, &design, json!({ "output": "pdf", "paper": "a4", "marks": false })).json()
        ["jobId"]
        .as_str()
        .unwrap()
        .to_owned();
    let pdf = settle(c.addr, &member, &pdf_job);
    assert_eq!(pdf["file"]["mimeType"], "application/pdf", "{pdf}");
    let pdf_bytes = request(c.addr, "GET", path_of(pdf["file"]["url"].as_str().unwrap()), &[], None);
    assert!(pdf_bytes.body.starts_with("%PDF-"));
    // Plans, scopes, validation, ownership.
    let free_design = save(c.addr, &free, json!({ "format": "cd" }));
    let r = export(c.addr, &free, &free_design, json!({ "output": "png" }));
    assert_eq!(
        (r.status, r.json()["code"].as_str(), r.json()["output"].as_str()),
        (402, Some("TIER_REQUIRED"), Some("png"))
    );
    assert_eq!(
        export(c.addr, &free, &free_design, json!({ "output": "preview" })).status,
        202,
        "previews are open to every plan"
    );
    assert_eq!(export(c.addr, &free, &design, json!({ "output": "preview" })).status, 404, "another account's design");
    assert_eq!(export(c.addr, &member, &design, json!({ "output": "tiff" })).json()["field"], "output");
    assert_eq!(export(c.addr, &member, &design, json!({ "output": "pdf", "paper": "b5" })).json()["field"], "paper");
    let id = admin(&data, &["account", "create", "--plan", "starter"])["id"].as_str().unwrap().to_owned();
    let reader = format!(
        "Bearer {}",
        admin(&data, &["key", "create", "--account", &id, "--scopes", "read"])["key"].as_str().unwrap()
    );
    assert_eq!(export(c.addr, &reader, &design, json!({ "output": "png" })).json()["code"], "FORBIDDEN_SCOPE");
    assert_eq!(
        request(c.addr, "GET", &format!("/api/v1/exports/{job}"), &[("Authorization", &free)], None).status,
        404
    );
    // The link's hour (2 s here) passes: a fresh GET gives a fresh link.
    std::thread::sleep(Duration::from_millis(3100));
    let r = request(c.addr, "GET", path_of(&url), &[], None);
    assert_eq!((r.status, r.json()["code"].as_str()), (410, Some("LINK_EXPIRED")));
    let fresh = settle(c.addr, &member, &job);
    assert_eq!(request(c.addr, "GET", path_of(fresh["file"]["url"].as_str().unwrap()), &[], None).status, 200);
    // The file's day (6 s here) passes: the job reads expired, the file is deleted.
    std::thread::sleep(Duration::from_millis(5500));
    let expired = settle(c.addr, &member, &job);
    assert_eq!(expired["status"], "expired", "{expired}");
    assert!(expired.get("file").is_none());
    let r = request(c.addr, "GET", path_of(fresh["file"]["url"].as_str().unwrap()), &[], None);
    assert_eq!(r.status, 410);
    // Every job has expired by now and nothing else uses files: the cleaner empties the folder.
    let started = Instant::now();
    while !count_files(&data.join("files")).is_empty() {
        assert!(started.elapsed() < Duration::from_secs(5), "files left: {:?}", count_files(&data.join("files")));
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn count_files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = entry.path();
        if p.is_dir() {
            out.extend(count_files(&p));
        } else if let Some(name) = p.file_name().and_then(|n| n.to_str()) {
            out.push(name.to_owned());
        }
    }
    out
}

#[test]
fn queued_jobs_finish_after_a_kill() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let config = dir.path().join("covers.toml");
    std::fs::write(&config, "[exports]\nworkers = 1\n").unwrap();
    let mut c = start(&data, &config);
    let (_, member) = account_with_key(&data, "patron");
    let design = save(c.addr, &member, json!({ "format": "slipcover", "content": { "query": "Nosferatu" } }));
    let jobs: Vec<String> = (0..3)
        .map(|_| {
            export(c.addr, &member, &design, json!({ "output": "png" })).json()["jobId"].as_str().unwrap().to_owned()
        })
        .collect();
    // SIGKILL while the first renders and the others wait.
    let _ = c.child.kill();
    let _ = c.child.wait();
    let _ = std::fs::remove_file(data.join("server.json"));
    let c = start(&data, &config);
    for job in &jobs {
        let v = settle(c.addr, &member, job);
        assert_eq!(v["status"], "done", "{v}");
        assert_eq!((v["file"]["widthPx"].as_u64(), v["file"]["heightPx"].as_u64()), (Some(6670), Some(4638)));
    }
}
