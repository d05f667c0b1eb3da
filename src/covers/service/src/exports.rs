//! Export jobs: `POST /api/v1/designs/{id}/export` queues a render of a saved design; a bounded
//! pool of worker threads (off the async runtime; `[exports] workers`, one by default, since a
//! 600 DPI render takes about 150 MB) renders it into the content-addressed files; `GET
//! /api/v1/exports/{jobId}` reads the job.
//!
//! States: `queued` → `running` → `done` (or `failed` with `error`), and `done` → `expired` once
//! the file is older than its lifetime (a day by default), when the file is deleted. Jobs are
//! records in redb, so they survive a restart: queued jobs run after it; a job that was running
//! is run again once, and marked failed if it was already retried, never left stuck. Download
//! links are signed (HMAC-SHA256 over job id and expiry with the data directory's secret) and
//! expire after an hour.

use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;

use covers_engine::export::Output;
use covers_engine::pdf::{Paper, PdfOptions};
use hmac::{Hmac, Mac};
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::api::AppState;

/// A job as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Job {
    /// `exp_…`.
    pub id: String,
    /// The owning account.
    pub account_id: String,
    /// The saved design.
    pub design_id: String,
    /// `preview`, `png` or `pdf`.
    pub output: String,
    /// PDF paper (`fit`, `a4`, …).
    #[serde(default)]
    pub paper: String,
    /// PDF bleed.
    #[serde(default)]
    pub bleed: bool,
    /// PDF crop and fold marks.
    #[serde(default)]
    pub marks: bool,
    /// `queued`, `running`, `done` or `failed` (`expired` is computed when read).
    pub status: String,
    /// Runs started.
    pub attempts: u32,
    /// When it was queued, Unix milliseconds.
    pub created_at: u64,
    /// When it finished, Unix milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<u64>,
    /// The file, once done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<JobFile>,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The file of a done job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobFile {
    /// SHA-256 of the file (its name in the files folder).
    pub hash: String,
    /// Its media type.
    pub mime_type: String,
    /// Width, px (for PDFs: the sheet with bleed at 600 DPI).
    pub width_px: u32,
    /// Height, px.
    pub height_px: u32,
    /// Size, bytes.
    pub bytes: u64,
}

/// The queue: job ids for the workers.
pub struct Queue {
    sender: Mutex<Sender<String>>,
    receiver: Arc<Mutex<Receiver<String>>>,
}

impl Default for Queue {
    fn default() -> Self {
        let (sender, receiver) = channel();
        Queue { sender: Mutex::new(sender), receiver: Arc::new(Mutex::new(receiver)) }
    }
}

impl Queue {
    /// Hands a job to the workers.
    pub fn push(&self, id: &str) {
        let _ = self.sender.lock().send(id.to_owned());
    }
}

/// Starts the workers, after putting back what a stopped server left: queued jobs are queued
/// again, running ones retried once or failed.
pub fn start(state: &Arc<AppState>) {
    let now = service_kit::period::unix_now_millis();
    if let Ok(jobs) = state.store.jobs() {
        for mut job in jobs {
            match job.status.as_str() {
                "queued" => state.exports.push(&job.id),
                "running" if job.attempts < 2 => {
                    job.status = "queued".into();
                    if state.store.put_job(&job).is_ok() {
                        state.exports.push(&job.id);
                    }
                }
                "running" => {
                    job.status = "failed".into();
                    job.error = Some("the render was interrupted twice".into());
                    job.finished_at = Some(now);
                    let _ = state.store.put_job(&job);
                }
                _ => {}
            }
        }
    }
    for n in 0..state.config.exports.workers.max(1) {
        let (state, receiver) = (state.clone(), state.exports.receiver.clone());
        let _ = std::thread::Builder::new().name(format!("export-{n}")).spawn(move || {
            // Renders yield the CPU to requests (`SCHED_IDLE` on Linux; measured in bench/README.md).
            service_kit::background::lower_priority();
            loop {
                let next = receiver.lock().recv();
                let Ok(id) = next else { return };
                run(&state, &id);
            }
        });
    }
    // The cleaner: files of expired jobs are deleted.
    let cleaner = state.clone();
    let _ = std::thread::Builder::new().name("export-cleaner".into()).spawn(move || loop {
        clean(&cleaner);
        std::thread::sleep(std::time::Duration::from_secs(cleaner.config.exports.clean_every_seconds.max(1)));
    });
}

/// Deletes the files of jobs past their lifetime (unless another job or design uses them).
pub fn clean(state: &AppState) {
    let now = service_kit::period::unix_now_millis();
    let Ok(jobs) = state.store.jobs() else { return };
    for job in jobs.iter().filter(|j| expired(state, j, now)) {
        if let Some(file) = &job.file {
            let in_use = jobs.iter().any(|o| {
                o.id != job.id && !expired(state, o, now) && o.file.as_ref().is_some_and(|f| f.hash == file.hash)
            });
            if !in_use && !state.store.file_in_use(&file.hash).unwrap_or(true) {
                state.files.remove(&file.hash);
            }
        }
    }
}

/// True when a done job's file is past its lifetime.
pub fn expired(state: &AppState, job: &Job, now: u64) -> bool {
    job.status == "done"
        && job.finished_at.is_some_and(|f| now.saturating_sub(f) > state.config.exports.file_lifetime_seconds * 1000)
}

fn run(state: &AppState, id: &str) {
    let Ok(Some(mut job)) = state.store.job(id) else { return };
    if job.status != "queued" {
        return;
    }
    job.status = "running".into();
    job.attempts += 1;
    if state.store.put_job(&job).is_err() {
        return;
    }
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| render(state, &job)));
    job.finished_at = Some(service_kit::period::unix_now_millis());
    match result {
        Ok(Ok(file)) => {
            job.status = "done".into();
            job.file = Some(file);
        }
        Ok(Err(why)) => {
            job.status = "failed".into();
            job.error = Some(why);
        }
        Err(_) => {
            job.status = "failed".into();
            job.error = Some("the renderer stopped unexpectedly".into());
        }
    }
    if let Err(e) = state.store.put_job(&job) {
        tracing::error!(job = %job.id, error = %e, "export job not recorded");
    }
}

fn render(state: &AppState, job: &Job) -> Result<JobFile, String> {
    let design = state.store.design(&job.design_id).map_err(|e| e.to_string())?.ok_or("the design was deleted")?;
    let (intent, _) = covers_engine::intent::parse(&design.intent).map_err(|e| format!("{e:?}"))?;
    let format = intent.format().ok_or("unknown format")?;
    let title = design.title.as_deref().and_then(|t| crate::designs::title_by_id(state, t));
    let images = crate::designs::images_of(state, &design.images);
    let output = match job.output.as_str() {
        "preview" => Output::Preview,
        "png" => Output::Png,
        _ => Output::Pdf(PdfOptions {
            paper: Paper::named(&job.paper).unwrap_or(Paper::Fit),
            bleed: job.bleed,
            crop_marks: job.marks,
            fold_marks: job.marks,
        }),
    };
    let bytes = covers_engine::export::render(&format, &intent, title.as_ref(), &images, output).map_err(|e| e.0)?;
    let g = format.geometry(covers_engine::EXPORT_DPI);
    let sheet = |k: &str| g["sheet"][k].as_u64().unwrap_or(0) as u32;
    let (width_px, height_px) = match output {
        Output::Preview => {
            let w = covers_engine::export::PREVIEW_WIDTH as u32;
            (w, (f64::from(sheet("heightPx")) * f64::from(w) / f64::from(sheet("widthPx").max(1))).round() as u32)
        }
        _ => (sheet("widthPx"), sheet("heightPx")),
    };
    let hash = state.files.put(&bytes).map_err(|e| format!("storing the file: {e}"))?;
    Ok(JobFile { hash, mime_type: output.mime_type().to_owned(), width_px, height_px, bytes: bytes.len() as u64 })
}

/// The secret that signs download links, kept in the data directory (created on first use).
pub fn link_secret(data_dir: &std::path::Path) -> String {
    let path = data_dir.join("links.secret");
    if let Ok(s) = std::fs::read_to_string(&path) {
        if s.trim().len() >= 32 {
            return s.trim().to_owned();
        }
    }
    let secret = service_kit::keys::random_alphanumeric(48);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    if let Ok(mut f) = options.open(&path) {
        let _ = std::io::Write::write_all(&mut f, secret.as_bytes());
    }
    secret
}

/// The signature of a download link for `job` valid until `expires` (Unix seconds).
pub fn sign(secret: &str, job: &str, expires: u64) -> String {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(secret.as_bytes()).expect("HMAC takes any key length");
    mac.update(format!("{job}.{expires}").as_bytes());
    mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect()
}

/// True when `signature` is the link's, compared in constant time.
pub fn verify(secret: &str, job: &str, expires: u64, signature: &str) -> bool {
    service_kit::keys::same_secret(&sign(secret, job, expires), signature)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_signed() {
        let s = sign("secret", "exp_1", 100);
        assert!(verify("secret", "exp_1", 100, &s));
        assert!(!verify("secret", "exp_1", 101, &s), "another expiry");
        assert!(!verify("secret", "exp_2", 100, &s), "another job");
        assert!(!verify("other", "exp_1", 100, &s), "another secret");
    }
}
