//! The account operations, written once and shared by every front door: the keyed REST routes
//! (`crate::keyed`), the signed-in designer (`crate::designs`) and the MCP connector. Each takes
//! the acting account (already authenticated, with the right scope) and plain JSON, runs on the
//! blocking pool (providers may ask the network, redb writes are synchronous) and answers JSON or
//! the same [`ApiError`] the REST routes send as problem documents.

use std::collections::BTreeMap;

use covers_engine::intent::Intent;
use serde_json::{json, Value};

use crate::accounts::{today, Account};
use crate::api::{ApiError, AppState, Code};
use crate::store::{DesignImage, SavedDesign};

/// Storage failures are `UNAVAILABLE` (503): the caller may retry.
pub fn storage(e: service_kit::db::DbError) -> ApiError {
    ApiError::new(Code::Unavailable, format!("storage: {e}"))
}

/// Counts one use of a daily quota, or `QUOTA_REACHED` with `Retry-After` (next midnight UTC).
pub fn take_quota(state: &AppState, account: &Account, kind: &str, limit: Option<u64>) -> Result<(), ApiError> {
    let (day, reset_in) = today(service_kit::period::unix_now());
    if state.store.take(&account.id, &day, kind, limit).map_err(storage)? {
        Ok(())
    } else {
        Err(ApiError::new(
            Code::QuotaReached,
            format!("the account's daily {kind} quota ({}) is used up", limit.unwrap_or(0)),
        )
        .with("quota", kind)
        .header(axum::http::header::RETRY_AFTER, reset_in))
    }
}

/// A saved design as listed.
pub fn design_summary(base: &str, d: &SavedDesign) -> Value {
    json!({
        "designId": d.id,
        "name": d.name,
        "format": d.intent["format"],
        "title": d.title,
        "createdAt": service_kit::period::rfc3339_millis(d.created_at),
        "url": format!("{base}/design/{}", d.id),
        "previewUrl": format!("{base}/design/{}/preview.png", d.id),
    })
}

/// Compose and save in one step (`POST /api/v1/designs`): the body is an intent with an optional
/// `name`. Counts one compose; `TIER_REQUIRED` when the plan's saved designs are all used.
/// Answers `designId`, `url`, `applied`, `unsupported`.
pub fn save_design(state: &AppState, account: &Account, body: &Value) -> Result<Value, ApiError> {
    let limits = state.config.plan(account.plan);
    let (intent, report, title) = crate::designs::resolve(state, body, None)?;
    let name = intent
        .name
        .clone()
        .or_else(|| title.as_ref().map(|t| format!("{} ({})", t.title, t.year)))
        .unwrap_or_else(|| "Untitled design".to_owned());
    let full = || {
        ApiError::new(
            Code::TierRequired,
            format!(
                "the {} plan keeps {} saved designs; delete one or change plan",
                account.plan.name(),
                limits.designs.unwrap_or(0)
            ),
        )
        .with("limit", limits.designs)
    };
    // Checked before the quota is counted (a refused save costs no compose), and again
    // atomically with the write.
    if limits.designs.is_some_and(|l| state.store.designs_of(&account.id).map_or(0, |d| d.len() as u64) >= l) {
        return Err(full());
    }
    let images = own_images(state, account, &intent, &BTreeMap::new())?;
    take_quota(state, account, "composes", limits.daily_composes)?;
    let design = SavedDesign {
        id: service_kit::keys::random_id("des_"),
        account_id: account.id.clone(),
        name,
        intent: intent.to_json(),
        title: title.map(|t| t.id),
        created_at: service_kit::period::unix_now_millis(),
        images,
    };
    if !state.store.insert_design(&design, limits.designs).map_err(storage)? {
        return Err(full());
    }
    let base = &state.observer.base_url;
    Ok(json!({
        "designId": design.id,
        "url": format!("{base}/design/{}", design.id),
        "applied": report.applied,
        "unsupported": report.unsupported,
    }))
}

/// Replaces a saved design's intent (the signed-in designer's edit; the format stays). Images
/// the design already holds stay its own copies; new upload references must be the account's.
/// Answers the design, the resolved intent, its title and the report.
pub fn update_design(
    state: &AppState,
    account: &Account,
    id: &str,
    body: &Value,
) -> Result<(SavedDesign, Intent, Option<covers_engine::content::Title>, covers_engine::intent::Report), ApiError> {
    let gone = || ApiError::new(Code::NotFound, format!("no design {id}"));
    let mut design = match state.store.design(id).map_err(storage)? {
        Some(d) if d.account_id == account.id => d,
        _ => return Err(gone()),
    };
    let (before, _) = covers_engine::intent::parse(&design.intent)
        .map_err(|_| ApiError::new(Code::Unavailable, "the stored design cannot be read"))?;
    if body.get("format").and_then(Value::as_str) != Some(before.format.as_str()) {
        return Err(ApiError::validation("format", format!("a design keeps its format ({})", before.format)));
    }
    let (intent, report, title) = crate::designs::resolve(state, body, Some((&before, design.title.clone())))?;
    design.images = own_images(state, account, &intent, &design.images)?;
    design.intent = intent.to_json();
    design.title = title.as_ref().map(|t| t.id.clone());
    if !state.store.replace_design(&design).map_err(storage)? {
        return Err(gone());
    }
    Ok((design, intent, title, report))
}

/// The design's own copies of the uploads its intent refers to: those it already holds
/// (`kept`), then the account's uploads (decals: `UNKNOWN_DECAL`; image slots:
/// `VALIDATION_ERROR` naming the field).
pub fn own_images(
    state: &AppState,
    account: &Account,
    intent: &Intent,
    kept: &BTreeMap<String, DesignImage>,
) -> Result<BTreeMap<String, DesignImage>, ApiError> {
    let mut refs: Vec<(String, &str, bool)> = Vec::new();
    for (i, d) in intent.decals.iter().enumerate() {
        if d.source.starts_with("upload:") {
            refs.push((format!("decals[{i}].ref"), d.source.as_str(), true));
        }
    }
    for (panel, slot) in &intent.panels {
        refs.push((format!("images.panels.{panel}"), slot.reference.as_str(), false));
    }
    if let Some(slot) = &intent.background_image {
        refs.push(("images.background".into(), slot.reference.as_str(), false));
    }
    if let Some(slot) = &intent.studio_logo {
        refs.push(("images.studioLogo".into(), slot.reference.as_str(), false));
    }
    let mut images = BTreeMap::new();
    for (field, reference, decal) in refs {
        if let Some(copy) = kept.get(reference) {
            images.insert(reference.to_owned(), copy.clone());
            continue;
        }
        let id = reference.trim_start_matches("upload:");
        match state.store.upload(id).map_err(storage)? {
            Some(u) if u.account_id == account.id => {
                images.insert(
                    reference.to_owned(),
                    DesignImage { file: u.file, mime_type: u.mime_type, width: u.width, height: u.height },
                );
            }
            _ if decal => {
                return Err(ApiError::new(Code::UnknownDecal, format!("no upload {reference} in this account"))
                    .with("field", field))
            }
            _ => return Err(ApiError::validation(&field, format!("no upload {reference} in this account"))),
        }
    }
    Ok(images)
}

/// Queues an export of one of the account's designs (`POST /api/v1/designs/{id}/export`). The
/// body is `{output: preview|png|pdf, paper, bleed, marks}` (PDF: paper `fit` by default, bleed
/// and marks on). `TIER_REQUIRED` when the plan does not export that output; counts one of the
/// day's exports. Answers the queued job.
pub fn export_design(
    state: &AppState,
    account: &Account,
    design_id: &str,
    v: &Value,
) -> Result<crate::exports::Job, ApiError> {
    if !v.is_object() {
        return Err(ApiError::validation("body", "the body is a JSON object"));
    }
    let output = match v.get("output").and_then(Value::as_str) {
        Some(o @ ("preview" | "png" | "pdf")) => o.to_owned(),
        _ => return Err(ApiError::validation("output", "`output` is preview, png or pdf")),
    };
    let paper = match v.get("paper") {
        None => "fit".to_owned(),
        Some(p) => match p.as_str().and_then(covers_engine::pdf::Paper::named) {
            Some(_) => p.as_str().unwrap_or("fit").to_lowercase(),
            None => return Err(ApiError::validation("paper", "`paper` is fit, a4, letter, tabloid or a3")),
        },
    };
    let flag = |k: &str| v.get(k).map_or(Some(true), Value::as_bool);
    let (Some(bleed), Some(marks)) = (flag("bleed"), flag("marks")) else {
        return Err(ApiError::validation("bleed", "`bleed` and `marks` are true or false"));
    };
    match state.store.design(design_id).map_err(storage)? {
        Some(d) if d.account_id == account.id => {}
        _ => return Err(ApiError::new(Code::NotFound, format!("no design {design_id}"))),
    }
    let limits = state.config.plan(account.plan);
    if !limits.outputs.contains(&output) {
        return Err(ApiError::new(
            Code::TierRequired,
            format!("the {} plan exports {}", account.plan.name(), limits.outputs.join(", ")),
        )
        .with("output", output));
    }
    take_quota(state, account, "exports", limits.daily_exports)?;
    let job = crate::exports::Job {
        id: service_kit::keys::random_id("exp_"),
        account_id: account.id.clone(),
        design_id: design_id.to_owned(),
        output,
        paper,
        bleed,
        marks,
        status: "queued".into(),
        attempts: 0,
        created_at: service_kit::period::unix_now_millis(),
        finished_at: None,
        file: None,
        error: None,
    };
    state.store.put_job(&job).map_err(storage)?;
    state.exports.push(&job.id);
    Ok(job)
}

/// One of the account's export jobs (`GET /api/v1/exports/{jobId}`): its status and, when done,
/// `file` with a signed `url` valid for the configured link lifetime.
pub fn export_status(state: &AppState, account: &Account, job_id: &str) -> Result<Value, ApiError> {
    let job = match state.store.job(job_id).map_err(storage)? {
        Some(j) if j.account_id == account.id => j,
        _ => return Err(ApiError::new(Code::NotFound, format!("no export {job_id}"))),
    };
    let now = service_kit::period::unix_now_millis();
    let expired = crate::exports::expired(state, &job, now);
    let mut v = json!({
        "jobId": job.id,
        "designId": job.design_id,
        "output": job.output,
        "status": if expired { "expired" } else { job.status.as_str() },
        "createdAt": service_kit::period::rfc3339_millis(job.created_at),
    });
    if let Some(f) = job.finished_at {
        v["finishedAt"] = service_kit::period::rfc3339_millis(f).into();
    }
    if let Some(error) = &job.error {
        v["error"] = json!({ "code": "RENDER_FAILED", "message": error });
    }
    if let (Some(file), false) = (&job.file, expired) {
        let lifetime = state.config.exports.link_lifetime_seconds;
        let expires = now / 1000 + lifetime;
        let sig = crate::exports::sign(&state.link_secret, &job.id, expires);
        v["file"] = json!({
            "url": format!("{}/api/v1/exports/{}/file?expires={expires}&sig={sig}", state.observer.base_url, job.id),
            "mimeType": file.mime_type,
            "widthPx": file.width_px,
            "heightPx": file.height_px,
            "bytes": file.bytes,
            "expiresInSeconds": lifetime,
        });
    }
    Ok(v)
}
