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
use crate::store::{Charge, DesignImage, Inserted, SavedDesign};

/// Storage failures are `UNAVAILABLE` (503): the caller may retry.
pub fn storage(e: service_kit::db::DbError) -> ApiError {
    ApiError::new(Code::Unavailable, format!("storage: {e}"))
}

/// Writes a record that costs one use of a daily quota: `insert` gets the [`Charge`] and must
/// count it in the transaction that writes the record. `QUOTA_REACHED` with `Retry-After` (next
/// midnight UTC) when the day's uses are gone; `full` when the plan's cap refused it.
fn insert_charged(
    account: &Account,
    kind: &str,
    limit: Option<u64>,
    insert: impl FnOnce(&Charge<'_>) -> Result<Inserted, service_kit::db::DbError>,
    full: impl FnOnce() -> ApiError,
) -> Result<(), ApiError> {
    let (day, reset_in) = today(service_kit::period::unix_now());
    let charge = Charge { account: &account.id, day: &day, kind, limit };
    match insert(&charge).map_err(storage)? {
        Inserted::Done => Ok(()),
        Inserted::Full => Err(full()),
        Inserted::QuotaReached => Err(quota_reached(kind, limit, reset_in)),
    }
}

/// `QUOTA_REACHED` for the daily quota `kind`, with `Retry-After` (`reset_in` seconds).
fn quota_reached(kind: &str, limit: Option<u64>, reset_in: u64) -> ApiError {
    ApiError::new(Code::QuotaReached, format!("the account's daily {kind} quota ({}) is used up", limit.unwrap_or(0)))
        .with("quota", kind)
        .header(axum::http::header::RETRY_AFTER, reset_in)
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
    let design = SavedDesign {
        id: service_kit::keys::random_id("des_"),
        account_id: account.id.clone(),
        name,
        intent: intent.to_json(),
        title: title.map(|t| t.id),
        created_at: service_kit::period::unix_now_millis(),
        images,
    };
    insert_charged(
        account,
        "composes",
        limits.daily_composes,
        |charge| state.store.insert_design(&design, limits.designs, charge),
        full,
    )?;
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
    insert_charged(
        account,
        "exports",
        limits.daily_exports,
        |charge| state.store.insert_job(&job, charge),
        || ApiError::new(Code::Unavailable, "the job was not queued"),
    )?;
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

/// The account (`GET /api/v1/account`): plan, today's remaining quotas and when they reset,
/// design and upload counts and limits, the outputs the plan exports. `null` is unlimited.
pub fn account_document(state: &AppState, account: &Account) -> Value {
    let limits = state.config.plan(account.plan);
    let now = service_kit::period::unix_now();
    let (day, reset_in) = today(now);
    let left = |kind: &str, limit: Option<u64>| -> Value {
        match limit {
            None => Value::Null,
            Some(l) => l.saturating_sub(state.store.usage(&account.id, &day, kind).unwrap_or(0)).into(),
        }
    };
    json!({
        "id": account.id,
        "plan": account.plan,
        "name": account.name,
        "quotas": {
            "composesLeft": left("composes", limits.daily_composes),
            "uploadsLeft": left("uploads", limits.daily_uploads),
            "exportsLeft": left("exports", limits.daily_exports),
        },
        "resetsAt": service_kit::period::rfc3339_millis((now + reset_in) * 1000),
        "designs": { "count": state.store.designs_of(&account.id).map_or(0, |d| d.len()), "limit": limits.designs },
        "uploads": { "count": state.store.uploads_of(&account.id).map_or(0, |u| u.len()), "limit": limits.uploads_library },
        "outputs": limits.outputs,
    })
}

/// One page of a newest-first list: `limit` (1 to 100, default 20) items after `cursor` (the
/// last id of the previous page); `{items, nextCursor}`, `nextCursor` `null` on the last page.
pub fn page<T>(
    limit: Option<&str>,
    cursor: Option<&str>,
    all: &[T],
    id: impl Fn(&T) -> &str,
    show: impl Fn(&T) -> Value,
) -> Result<Value, ApiError> {
    let limit = match limit.map(str::parse::<usize>) {
        None => 20,
        Some(Ok(n)) if (1..=100).contains(&n) => n,
        _ => return Err(ApiError::validation("limit", "`limit` is 1 to 100")),
    };
    let start = match cursor {
        None => 0,
        Some(c) => match all.iter().position(|x| id(x) == c) {
            Some(i) => i + 1,
            None => {
                return Err(ApiError::validation(
                    "cursor",
                    "unknown cursor (its item may have been deleted); start again without one",
                ))
            }
        },
    };
    let items: Vec<&T> = all.iter().skip(start).take(limit).collect();
    let next = (start + items.len() < all.len()).then(|| items.last().map(|x| id(x).to_owned())).flatten();
    Ok(json!({ "items": items.iter().map(|x| show(x)).collect::<Vec<_>>(), "nextCursor": next }))
}

/// The account's saved designs, newest first, one page (`GET /api/v1/designs`).
pub fn list_designs(
    state: &AppState,
    account: &Account,
    limit: Option<&str>,
    cursor: Option<&str>,
) -> Result<Value, ApiError> {
    let designs = state.store.designs_of(&account.id).map_err(storage)?;
    let base = &state.observer.base_url;
    page(limit, cursor, &designs, |d| d.id.as_str(), |d| design_summary(base, d))
}

/// One of the account's designs with its stored intent (`GET /api/v1/designs/{id}`).
pub fn get_design(state: &AppState, account: &Account, id: &str) -> Result<Value, ApiError> {
    match state.store.design(id).map_err(storage)? {
        Some(d) if d.account_id == account.id => {
            let mut v = design_summary(&state.observer.base_url, &d);
            v["intent"] = d.intent.clone();
            Ok(v)
        }
        _ => Err(ApiError::new(Code::NotFound, format!("no design {id}"))),
    }
}

/// Deletes one of the account's designs (`DELETE /api/v1/designs/{id}`); its image copies go
/// with it when nothing else uses them.
pub fn delete_design(state: &AppState, account: &Account, id: &str) -> Result<(), ApiError> {
    let design = match state.store.design(id).map_err(storage)? {
        Some(d) if d.account_id == account.id => d,
        _ => return Err(ApiError::new(Code::NotFound, format!("no design {id}"))),
    };
    if !state.store.delete_design(&account.id, id).map_err(storage)? {
        return Err(ApiError::new(Code::NotFound, format!("no design {id}")));
    }
    for image in design.images.values() {
        if !state.store.file_in_use(&image.file).unwrap_or(true) {
            state.files.remove(&image.file);
        }
    }
    Ok(())
}

/// An upload as listed.
pub fn upload_json(base: &str, u: &crate::store::Upload) -> Value {
    json!({
        "ref": format!("upload:{}", u.id),
        "id": u.id,
        "name": u.name,
        "mimeType": u.mime_type,
        "width": u.width,
        "height": u.height,
        "bytes": u.bytes,
        "createdAt": service_kit::period::rfc3339_millis(u.created_at),
        "previewUrl": format!("{base}/api/v1/uploads/{}/preview.png", u.id),
    })
}

/// The image and name of a JSON upload `{name, mimeType, data}` (`data` base64 or a `data:`
/// URL; `mimeType` optional, image/png or image/jpeg).
pub fn decode_upload_json(v: &Value) -> Result<(Vec<u8>, Option<String>), ApiError> {
    let data = v
        .get("data")
        .and_then(Value::as_str)
        .ok_or_else(|| ApiError::validation("data", "`data` is the image in base64 or a data: URL"))?;
    let encoded = match data.strip_prefix("data:") {
        Some(rest) => rest
            .split_once(";base64,")
            .map(|(_, b)| b)
            .ok_or_else(|| ApiError::validation("data", "a data: URL must be base64"))?,
        None => data,
    };
    let bytes =
        covers_engine::image::unbase64(encoded).ok_or_else(|| ApiError::validation("data", "`data` is not base64"))?;
    match v.get("mimeType") {
        None | Some(Value::Null) => {}
        Some(Value::String(m)) if ["image/png", "image/jpeg"].contains(&m.as_str()) => {}
        Some(_) => return Err(ApiError::validation("mimeType", "uploads are image/png or image/jpeg")),
    }
    match v.get("name") {
        None | Some(Value::Null) => Ok((bytes, None)),
        Some(Value::String(n)) => Ok((bytes, Some(n.clone()))),
        Some(_) => Err(ApiError::validation("name", "`name` is a string")),
    }
}

/// Puts an image in the account's uploads library (`POST /api/v1/uploads`): checked, decoded
/// under limits and written again without metadata, with a preview. `LIBRARY_IMAGE_LIMIT` when
/// the library is full; counts one of the day's uploads. Answers the upload as listed.
pub fn add_upload(state: &AppState, account: &Account, bytes: &[u8], name: Option<String>) -> Result<Value, ApiError> {
    if bytes.len() > crate::keyed::MAX_UPLOAD {
        return Err(ApiError::validation("file", "uploads are at most 4 MB"));
    }
    let name = name
        .map(|n| n.trim().chars().take(120).collect::<String>())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "upload".to_owned());
    let limits = state.config.plan(account.plan);
    let full = || {
        ApiError::new(
            Code::LibraryImageLimit,
            format!(
                "the uploads library holds {} images; delete one to make room",
                limits.uploads_library.unwrap_or(0)
            ),
        )
        .with("limit", limits.uploads_library)
    };
    if limits.uploads_library.is_some_and(|l| state.store.uploads_of(&account.id).map_or(0, |u| u.len() as u64) >= l) {
        return Err(full());
    }
    // Checked before anything is decoded or stored (a refused upload costs no decoding and
    // writes nothing), and again atomically with the record.
    let (day, reset_in) = today(service_kit::period::unix_now());
    if let Some(limit) = limits.daily_uploads {
        if state.store.usage(&account.id, &day, "uploads").map_err(storage)? >= limit {
            return Err(quota_reached("uploads", Some(limit), reset_in));
        }
    }
    let cleaned = covers_engine::upload::clean(bytes).map_err(|why| ApiError::validation("file", why))?;
    let io = |e: std::io::Error| ApiError::new(Code::Unavailable, format!("storing the file: {e}"));
    let file = state.files.put(&cleaned.image.bytes).map_err(io)?;
    let preview = state.files.put(&cleaned.preview.bytes).map_err(io)?;
    let record = crate::store::Upload {
        id: service_kit::keys::random_id("upl_"),
        account_id: account.id.clone(),
        name,
        mime_type: cleaned.image.mime.to_owned(),
        width: cleaned.image.width,
        height: cleaned.image.height,
        bytes: cleaned.image.bytes.len() as u64,
        file,
        preview,
        created_at: service_kit::period::unix_now_millis(),
    };
    // Refused here only when a parallel upload took the last place. The files stored for this
    // one stay until the sweep at the next start: removing them now could take a file that a
    // parallel upload of the same bytes (content-addressed, so one file) is about to record.
    insert_charged(
        account,
        "uploads",
        limits.daily_uploads,
        |charge| state.store.insert_upload(&record, limits.uploads_library, charge),
        full,
    )?;
    Ok(upload_json(&state.observer.base_url, &record))
}

/// The account's uploads, newest first, one page (`GET /api/v1/uploads`).
pub fn list_uploads(
    state: &AppState,
    account: &Account,
    limit: Option<&str>,
    cursor: Option<&str>,
) -> Result<Value, ApiError> {
    let uploads = state.store.uploads_of(&account.id).map_err(storage)?;
    let base = &state.observer.base_url;
    page(limit, cursor, &uploads, |u| u.id.as_str(), |u| upload_json(base, u))
}

/// Deletes one of the account's uploads (`DELETE /api/v1/uploads/{id}`), freeing a library
/// slot; designs that use it keep their own copies.
pub fn delete_upload(state: &AppState, account: &Account, id: &str) -> Result<(), ApiError> {
    match state.store.delete_upload(&account.id, id).map_err(storage)? {
        Some(u) => {
            for hash in [&u.file, &u.preview] {
                if !state.store.file_in_use(hash).unwrap_or(true) {
                    state.files.remove(hash);
                }
            }
            Ok(())
        }
        None => Err(ApiError::new(Code::NotFound, format!("no upload {id}"))),
    }
}
