//! Races on the cover service's limits, against the real binary: parallel uploads, saves and
//! exports released together never pass the uploads library, the saved designs or a daily
//! quota; what is refused is neither counted nor left behind as a file.

mod common;

use std::path::Path;

use common::covers::{account_with_key, start};
use common::{at_once, request, tally, Reply};
use serde_json::{json, Value};

/// A JSON upload of a small JPEG that differs with `n`.
fn upload_body(n: usize) -> String {
    let rgb: Vec<u8> = (0..32u32 * 24).flat_map(|i| [(i % 251) as u8, (n * 37 % 256) as u8, 7]).collect();
    let mut jpeg = Vec::new();
    jpeg_encoder::Encoder::new(&mut jpeg, 90).encode(&rgb, 32, 24, jpeg_encoder::ColorType::Rgb).unwrap();
    json!({ "name": format!("Race {n}"), "mimeType": "image/jpeg", "data": covers_engine::image::base64(&jpeg) })
        .to_string()
}

fn files_under(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| if e.path().is_dir() { files_under(&e.path()) } else { 1 })
        .sum()
}

struct Setup {
    _dir: tempfile::TempDir,
    data: std::path::PathBuf,
    config: std::path::PathBuf,
    server: common::covers::Covers,
    auth: String,
}

fn setup(plan: &str) -> Setup {
    // The daily counters restart at midnight UTC: never race across it.
    let to_midnight = 86_400 - service_kit::period::unix_now() % 86_400;
    if to_midnight < 30 {
        std::thread::sleep(std::time::Duration::from_secs(to_midnight + 1));
    }
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let config = dir.path().join("covers.toml");
    std::fs::write(&config, format!("[exports]\nworkers = 1\n[plans.starter]\n{plan}")).unwrap();
    let server = start(&data, &config);
    let (_, auth) = account_with_key(&data, "starter");
    Setup { _dir: dir, data, config, server, auth }
}

impl Setup {
    fn post(&self, path: &str, body: &str) -> Reply {
        request(self.server.addr, "POST", path, &[("Authorization", &self.auth)], Some(body.as_bytes()))
    }
    /// The files folder's file count after a restart (whose sweep removes the files of uploads
    /// refused in a race: they are left alone while serving, since a parallel upload of the
    /// same bytes shares them).
    fn files_after_restart(&mut self) -> usize {
        self.server.kill_and_restart(&self.data, &self.config);
        files_under(&self.data.join("files"))
    }
    fn account(&self) -> Value {
        request(self.server.addr, "GET", "/api/v1/account", &[("Authorization", &self.auth)], None).json()
    }
}

#[test]
fn the_uploads_library_cap_holds_under_parallel_uploads() {
    let mut s = setup("uploads_library = 3\ndaily_uploads = 100\n");
    let replies = at_once(12, |n| s.post("/api/v1/uploads", &upload_body(n)));
    let (ok, codes) = tally(&replies);
    assert_eq!((ok, codes), (3, vec!["409 LIBRARY_IMAGE_LIMIT".to_owned()]));
    let account = s.account();
    assert_eq!(account["uploads"]["count"], 3);
    assert_eq!(account["quotas"]["uploadsLeft"], 97, "a refused upload is not counted: {account}");
    assert_eq!(s.files_after_restart(), 6, "an image and a preview per kept upload, no strays");
}

#[test]
fn the_daily_upload_quota_holds_under_parallel_uploads() {
    let mut s = setup("uploads_library = 100\ndaily_uploads = 4\n");
    let replies = at_once(12, |n| s.post("/api/v1/uploads", &upload_body(n)));
    let (ok, codes) = tally(&replies);
    assert_eq!((ok, codes), (4, vec!["429 QUOTA_REACHED".to_owned()]));
    assert_eq!(s.account()["uploads"]["count"], 4);
    assert_eq!(s.files_after_restart(), 8);
}

#[test]
fn saved_designs_and_composes_hold_under_parallel_saves() {
    let s = setup("designs = 3\ndaily_composes = 50\n");
    let replies =
        at_once(10, |n| s.post("/api/v1/designs", &json!({ "format": "cd", "name": format!("D{n}") }).to_string()));
    let (ok, codes) = tally(&replies);
    assert_eq!((ok, codes), (3, vec!["402 TIER_REQUIRED".to_owned()]));
    let account = s.account();
    assert_eq!(
        (account["designs"]["count"].as_u64(), account["quotas"]["composesLeft"].as_u64()),
        (Some(3), Some(47)),
        "{account}"
    );

    let s = setup("designs = 50\ndaily_composes = 4\n");
    let replies =
        at_once(10, |n| s.post("/api/v1/designs", &json!({ "format": "cd", "name": format!("D{n}") }).to_string()));
    let (ok, codes) = tally(&replies);
    assert_eq!((ok, codes), (4, vec!["429 QUOTA_REACHED".to_owned()]));
    assert_eq!(s.account()["designs"]["count"], 4);
}

#[test]
fn the_daily_export_quota_holds_under_parallel_exports() {
    let s = setup("daily_exports = 3\n");
    let design =
        s.post("/api/v1/designs", r#"{"format":"cd","name":"E"}"#).json()["designId"].as_str().unwrap().to_owned();
    let replies = at_once(10, |_| s.post(&format!("/api/v1/designs/{design}/export"), r#"{"output":"preview"}"#));
    let (ok, codes) = tally(&replies);
    assert_eq!((ok, codes), (3, vec!["429 QUOTA_REACHED".to_owned()]));
    assert_eq!(s.account()["quotas"]["exportsLeft"], 0);
}
