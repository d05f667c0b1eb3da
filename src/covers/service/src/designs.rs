//! Composing designs and the designer page: `POST /api/compose` (an intent in, the designer's
//! address out with `applied` and `unsupported`), `GET /api/compose?format=...` (the link form:
//! builds the same intent from query parameters and redirects with 303), `GET /design/{id}`
//! (the designer, so far the preview with its guides) and `GET /design/{id}/preview.svg`.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::Json;
use covers_engine::content::Title;
use covers_engine::intent::{self, Intent, IntentError, Report};
use covers_engine::scene::{self, Guides};
use serde_json::{json, Map, Value};
use service_kit::period::unix_now;

use crate::api::{ApiError, AppState, Code};

/// Largest request body accepted (the contract's 4.5 MB).
pub const MAX_BODY: usize = 4_500_000;

fn intent_error(e: IntentError) -> ApiError {
    match e {
        IntentError::Invalid { field, reason } => ApiError::validation(&field, reason),
        IntentError::UnknownDecal { field, id } => {
            ApiError::new(Code::UnknownDecal, format!("no decal {id:?} in the catalogue (GET /api/v1/decals)"))
                .with("field", field)
        }
    }
}

/// The best match of the intent's content query, from the providers in order.
fn find_title(state: &AppState, intent: &Intent) -> Option<Title> {
    let query = intent.content.as_ref()?;
    state.providers.iter().find_map(|p| match p.search(query.kind, &query.query) {
        Ok(found) => found.into_iter().next(),
        Err(e) => {
            tracing::warn!(provider = p.namespace(), error = %e.0, "content search failed");
            None
        }
    })
}

/// A title by its namespaced id (`tmdb:movie/19`), with its artwork, from its provider.
pub fn title_by_id(state: &AppState, id: &str) -> Option<Title> {
    let (ns, rest) = id.split_once(':')?;
    state.providers.iter().find(|p| p.namespace() == ns)?.get(rest).ok()?
}

/// Validates an intent and resolves its content: the intent, the report and the title. The
/// title is `previous` when the content query has not changed (the designer's edits), otherwise
/// the first match of the providers. Blocking (providers may ask the network).
pub fn resolve(
    state: &AppState,
    body: &Value,
    previous: Option<(&Intent, Option<String>)>,
) -> Result<(Intent, Report, Option<Title>), ApiError> {
    let (intent, mut report) = intent::parse(body).map_err(intent_error)?;
    let mut title = match previous {
        Some((before, title_id)) if before.content == intent.content => title_id.and_then(|id| title_by_id(state, &id)),
        _ => find_title(state, &intent),
    };
    // Decals that place another provider's artwork must name the matched title's artwork, which
    // the full record lists.
    let provider_art: Vec<(usize, &str)> = intent
        .decals
        .iter()
        .enumerate()
        .filter(|(_, d)| covers_engine::content::is_provider_artwork_id(&d.source))
        .map(|(i, d)| (i, d.source.as_str()))
        .collect();
    if !provider_art.is_empty() {
        if let Some(full) = title.as_ref().and_then(|t| title_by_id(state, &t.id)) {
            title = Some(full);
        }
        for (i, id) in provider_art {
            if !title.as_ref().is_some_and(|t| t.artwork.iter().any(|a| a.id == id)) {
                return Err(intent_error(IntentError::UnknownDecal {
                    field: format!("decals[{i}].id"),
                    id: id.to_owned(),
                }));
            }
        }
    }
    if intent.content.is_some() && title.is_none() {
        report.unsupported.push(intent::Unsupported {
            field: "content.query".into(),
            reason: "no title matched; the designer opens with the fields empty".into(),
        });
    }
    Ok((intent, report, title))
}

/// Validates, resolves the content and keeps the design; the designer's address and the report.
/// Blocking (providers may ask the network): call it on the blocking pool.
fn compose(state: &AppState, body: &Value) -> Result<(String, Report, Option<Title>), ApiError> {
    let (mut intent, mut report, title) = resolve(state, body, None)?;
    drop_uploads(&mut intent, &mut report);
    let stored = intent.to_json();
    let id = state
        .store
        .put_composed(&stored, title.as_ref().map(|t| t.id.as_str()), unix_now())
        .map_err(crate::ops::storage)?;
    Ok((format!("{}/design/{id}", state.observer.base_url), report, title))
}

/// Removes references to uploads from an intent composed without a key, reporting each: an
/// upload is placed only by the key of the account that owns it.
pub fn drop_uploads(intent: &mut Intent, report: &mut Report) {
    let why = "an upload is placed only with the key of the account that owns it (POST /api/v1/designs)";
    let mut dropped = Vec::new();
    for (i, d) in intent.decals.iter().enumerate() {
        if d.source.starts_with("upload:") {
            dropped.push(format!("decals[{i}].ref"));
        }
    }
    intent.decals.retain(|d| !d.source.starts_with("upload:"));
    dropped.extend(intent.panels.keys().map(|p| format!("images.panels.{p}")));
    intent.panels.clear();
    if intent.background_image.take().is_some() {
        dropped.push("images.background".into());
    }
    if intent.studio_logo.take().is_some() {
        dropped.push("images.studioLogo".into());
    }
    for field in dropped {
        report
            .applied
            .retain(|a| *a != field && !a.starts_with(&format!("{field}.")) && !field.starts_with(&format!("{a}.")));
        report.unsupported.push(intent::Unsupported { field, reason: why.into() });
    }
}

/// Reads a JSON body of at most `limit` bytes (413 `PAYLOAD_TOO_LARGE` beyond, 400 naming
/// `body` when it is not JSON).
pub async fn read_json(body: Body, limit: usize) -> Result<Value, ApiError> {
    let Ok(bytes) = axum::body::to_bytes(body, limit).await else {
        return Err(ApiError::new(Code::PayloadTooLarge, format!("the body is larger than {limit} bytes")));
    };
    if bytes.is_empty() {
        return Ok(json!({}));
    }
    serde_json::from_slice(&bytes).map_err(|e| ApiError::validation("body", format!("the body is not valid JSON: {e}")))
}

/// Runs `work` on the blocking pool; a panic there is `UNAVAILABLE`, never a dropped connection.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|_| Err(ApiError::new(Code::Unavailable, "the request failed; try again")))
}

/// PUT /design/{id}: the designer's edit. The body is the whole intent (same format); the
/// design is replaced and the answer carries the new preview SVG (with guides) and the report.
/// A composed design is open to whoever has its address; a saved design only to its owner's
/// browser session (with `X-CSRF-Token`), and its edits keep its own image copies.
pub async fn edit(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let value = match read_json(body, MAX_BODY).await {
        Ok(v) => v,
        Err(e) => return e.into_response(),
    };
    let done = blocking(move || -> Result<Value, ApiError> {
        let gone = || ApiError::new(Code::NotFound, "no such design (composed designs expire)");
        let now = unix_now();
        let Some(stored) = state.store.composed(&id, now, state.design_lifetime_seconds).ok().flatten() else {
            if state.store.design(&id).ok().flatten().is_none() {
                return Err(gone());
            }
            return edit_saved(&state, &headers, &id, &value);
        };
        let (before, _) = intent::parse(&stored.intent).map_err(intent_error)?;
        if value.get("format").and_then(Value::as_str) != Some(before.format.as_str()) {
            return Err(ApiError::validation("format", format!("a design keeps its format ({})", before.format)));
        }
        let (mut intent, mut report, title) = resolve(&state, &value, Some((&before, stored.title)))?;
        drop_uploads(&mut intent, &mut report);
        let format = intent.format().ok_or_else(|| ApiError::validation("format", "unknown format"))?;
        let kept = state
            .store
            .replace_composed(&id, &intent.to_json(), title.as_ref().map(|t| t.id.as_str()), now, state.design_lifetime_seconds)
            .map_err(crate::ops::storage)?;
        if !kept {
            return Err(gone());
        }
        let svg = scene::render(&format, &intent, title.as_ref(), &scene::Images::new(), 72, Guides { show: true });
        Ok(json!({ "applied": report.applied, "unsupported": report.unsupported, "intent": intent.to_json(), "svg": svg }))
    })
    .await;
    match done {
        Ok(v) => Json(v).into_response(),
        Err(e) => e.into_response(),
    }
}

/// The signed-in owner's edit of a saved design.
fn edit_saved(state: &AppState, headers: &HeaderMap, id: &str, value: &Value) -> Result<Value, ApiError> {
    let (account, _) = crate::signin::designer_session(state, headers, true)?;
    let (design, intent, title, report) = crate::ops::update_design(state, &account, id, value)?;
    let format = intent.format().ok_or_else(|| ApiError::validation("format", "unknown format"))?;
    let images = images_of(state, &design.images);
    let svg = scene::render(&format, &intent, title.as_ref(), &images, 72, Guides { show: true });
    Ok(json!({ "applied": report.applied, "unsupported": report.unsupported, "intent": intent.to_json(), "svg": svg }))
}

/// POST /design/{id}/save (signed in, `X-CSRF-Token`): keeps a composed design in the account
/// under `name` (`{name}` body, optional), with the same rules as `POST /api/v1/designs` (one
/// compose, `TIER_REQUIRED` when the plan's designs are all used); 201 with `designId` and `url`.
pub async fn save_composed(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let value = match read_json(body, 16 * 1024).await {
        Ok(v) => v,
        Err(e) => return e.into_response(),
    };
    let done = blocking(move || {
        let (account, _) = crate::signin::designer_session(&state, &headers, true)?;
        let stored = state
            .store
            .composed(&id, unix_now(), state.design_lifetime_seconds)
            .map_err(crate::ops::storage)?
            .ok_or_else(|| ApiError::new(Code::NotFound, "no such composed design (they expire)"))?;
        let mut intent = stored.intent;
        match value.get("name") {
            None | Some(Value::Null) => {}
            Some(Value::String(n)) if !n.trim().is_empty() => intent["name"] = n.trim().into(),
            Some(Value::String(_)) => {}
            Some(_) => return Err(ApiError::validation("name", "`name` is a string")),
        }
        crate::ops::save_design(&state, &account, &intent)
    })
    .await;
    match done {
        Ok(v) => (StatusCode::CREATED, Json(v)).into_response(),
        Err(e) => e.into_response(),
    }
}

/// POST /design/{id}/export (signed in, `X-CSRF-Token`): queues an export of one of the
/// account's saved designs, as `POST /api/v1/designs/{id}/export` does; 202 with `jobId`,
/// `status` and `statusUrl` (`/design/exports/{jobId}`, for the page to poll).
pub async fn export_saved(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let value = match read_json(body, 16 * 1024).await {
        Ok(v) => v,
        Err(e) => return e.into_response(),
    };
    let done = blocking(move || {
        let (account, _) = crate::signin::designer_session(&state, &headers, true)?;
        crate::ops::export_design(&state, &account, &id, &value)
    })
    .await;
    match done {
        Ok(job) => (
            StatusCode::ACCEPTED,
            Json(json!({ "jobId": job.id, "status": job.status, "statusUrl": format!("/design/exports/{}", job.id) })),
        )
            .into_response(),
        Err(e) => e.into_response(),
    }
}

/// GET /design/exports/{jobId} (signed in): the job as `GET /api/v1/exports/{jobId}` shows it.
pub async fn export_status(State(state): State<Arc<AppState>>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    let done = blocking(move || {
        let (account, _) = crate::signin::designer_session(&state, &headers, false)?;
        crate::ops::export_status(&state, &account, &id)
    })
    .await;
    match done {
        Ok(v) => {
            let mut response = Json(v).into_response();
            response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            response
        }
        Err(e) => e.into_response(),
    }
}

/// POST /api/compose.
pub async fn compose_post(State(state): State<Arc<AppState>>, body: Body) -> Response {
    let value = match read_json(body, MAX_BODY).await {
        Ok(v) => v,
        Err(e) => return e.into_response(),
    };
    match blocking(move || compose_document(&state, &value)).await {
        Ok(v) => Json(v).into_response(),
        Err(e) => e.into_response(),
    }
}

/// Composes a design without an account (`POST /api/compose`, the `compose_design` tool): the
/// designer's `url`, `applied`, `unsupported` and the matched `content`. Blocking.
pub fn compose_document(state: &AppState, body: &Value) -> Result<Value, ApiError> {
    let (url, report, title) = compose(state, body)?;
    Ok(json!({
        "url": url,
        "applied": report.applied,
        "unsupported": report.unsupported,
        "content": title.map(|t| json!({ "id": t.id, "title": t.title, "year": t.year })),
    }))
}

/// GET /api/compose: the schema without parameters; otherwise the link form.
pub async fn compose_link(State(state): State<Arc<AppState>>, RawQuery(query): RawQuery) -> Response {
    let query = query.unwrap_or_default();
    if query.is_empty() {
        return Json(intent::schema()).into_response();
    }
    let params: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
    let get = |k: &str| params.iter().rev().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let mut body = Map::new();
    body.insert("v".into(), 1.into());
    if let Some(f) = get("format") {
        body.insert("format".into(), f.into());
    }
    if let Some(q) = get("q") {
        let mut content = json!({ "query": q });
        if let Some(t) = get("type") {
            content["type"] = t.into();
        }
        body.insert("content".into(), content);
    }
    let mut style = Map::new();
    if let Some(c) = get("color") {
        style.insert("labelColor".into(), c.into());
    }
    if let Some(c) = get("bg") {
        style.insert("background".into(), json!({ "color": c }));
    }
    if let Some(f) = get("font") {
        style.insert("font".into(), f.into());
    }
    if let Some(f) = get("finish") {
        style.insert("finish".into(), f.into());
    }
    if let Some(l) = get("logo") {
        // `1` and `0` as the contract gives them; anything else reaches the intent as text and
        // is dropped and reported there.
        style.insert(
            "logo".into(),
            match l.as_str() {
                "1" => true.into(),
                "0" => false.into(),
                _ => l.into(),
            },
        );
    }
    if let Some(n) = get("seed") {
        style.insert("seed".into(), n.parse::<u64>().map_or_else(|_| Value::from(n), Value::from));
    }
    if !style.is_empty() {
        body.insert("style".into(), Value::Object(style));
    }
    let mut layout = Map::new();
    if let Some(h) = get("hide") {
        layout.insert("hide".into(), json!(h.split(',').map(str::trim).filter(|s| !s.is_empty()).collect::<Vec<_>>()));
    }
    if let Some(n) = get("panels") {
        layout.insert("panels".into(), n.parse::<u64>().map_or_else(|_| Value::from(n), Value::from));
    }
    if let Some(f) = get("flap") {
        layout.insert("flap".into(), f.into());
    }
    if !layout.is_empty() {
        body.insert("layout".into(), Value::Object(layout));
    }
    if let Some(q) = get("qr") {
        body.insert("qr".into(), q.into());
    }
    for key in intent::OVERRIDES {
        if let Some(v) = get(key) {
            body.insert(key.into(), v.into());
        }
    }
    let body = Value::Object(body);
    let done = tokio::task::spawn_blocking(move || compose(&state, &body)).await;
    match done.unwrap_or_else(|_| Err(ApiError::new(Code::Unavailable, "composing failed"))) {
        Ok((url, _, _)) => {
            let mut response = StatusCode::SEE_OTHER.into_response();
            if let Ok(v) = HeaderValue::from_str(&url) {
                response.headers_mut().insert(header::LOCATION, v);
            }
            response
        }
        Err(e) => e.into_response(),
    }
}

/// A stored design: its format, intent, title and uploaded images, and for a saved design its
/// owner's account id and its name.
type Loaded = (covers_engine::Format, Intent, Option<Title>, scene::Images, Option<(String, String)>);

/// A saved design's own copies of its uploads, read from the files.
pub fn images_of(
    state: &AppState,
    images: &std::collections::BTreeMap<String, crate::store::DesignImage>,
) -> scene::Images {
    images
        .iter()
        .filter_map(|(reference, image)| {
            let bytes = state.files.get(&image.file)?;
            Some((reference.clone(), Arc::new(covers_engine::image::read(bytes).ok()?)))
        })
        .collect()
}

/// The stored design, its format, intent and title (looked up on the blocking pool: providers
/// may ask the network or their disk cache).
async fn load(state: &Arc<AppState>, id: &str) -> Option<Loaded> {
    let (state, id) = (state.clone(), id.to_owned());
    tokio::task::spawn_blocking(move || {
        // A composed design, or a design saved to an account (both under unguessable ids).
        let (stored_intent, stored_title, images, owner) =
            match state.store.composed(&id, unix_now(), state.design_lifetime_seconds).ok()? {
                Some(c) => (c.intent, c.title, scene::Images::new(), None),
                None => {
                    let saved = state.store.design(&id).ok()??;
                    let images = images_of(&state, &saved.images);
                    (saved.intent, saved.title, images, Some((saved.account_id, saved.name)))
                }
            };
        let (intent, _) = intent::parse(&stored_intent).ok()?;
        let format = intent.format()?;
        let title = stored_title.as_deref().and_then(|t| title_by_id(&state, t));
        Some((format, intent, title, images, owner))
    })
    .await
    .ok()
    .flatten()
}

/// GET /design/{id}: the designer page (`crate::designer`). What it offers depends on who
/// looks: a composed design is open to all (saving needs sign-in); a saved design is editable
/// and exportable by its owner and read-only to everyone else.
pub async fn designer(State(state): State<Arc<AppState>>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    let session = crate::signin::session(&state, &headers);
    match load(&state, &id).await {
        Some((format, intent, title, images, owner)) => {
            let viewer = match (owner, session) {
                (None, session) => crate::designer::Viewer::Composed { csrf: session.map(|(_, t, _)| t.csrf) },
                (Some((owner, name)), Some((account, ticket, _))) if owner == account.id => {
                    crate::designer::Viewer::Owner {
                        csrf: ticket.csrf,
                        name,
                        outputs: state.config.plan(account.plan).outputs,
                    }
                }
                (Some((_, name)), _) => crate::designer::Viewer::ReadOnly { name },
            };
            crate::designer::page(&id, &format, &intent, title.as_ref(), &images, &viewer)
        }
        None => (
            StatusCode::NOT_FOUND,
            Html("<!DOCTYPE html><html lang=\"en\"><title>No such design</title><p>No such design: composed designs are kept for a limited time after their last change.</p></html>".to_owned()),
        )
            .into_response(),
    }
}

/// GET /design/{id}/preview.png: the design without guides, 1200 px wide (rendered on the
/// blocking pool).
pub async fn preview_png(State(state): State<Arc<AppState>>, Path(id): Path<String>) -> Response {
    let Some((format, intent, title, images, _)) = load(&state, &id).await else {
        return ApiError::new(Code::NotFound, "no such design").into_response();
    };
    let made = tokio::task::spawn_blocking(move || {
        covers_engine::export::render(&format, &intent, title.as_ref(), &images, covers_engine::export::Output::Preview)
    })
    .await;
    match made {
        Ok(Ok(bytes)) => {
            let mut response = bytes.into_response();
            let h = response.headers_mut();
            h.insert(header::CONTENT_TYPE, HeaderValue::from_static("image/png"));
            h.insert(header::CONTENT_DISPOSITION, HeaderValue::from_static("attachment; filename=\"preview.png\""));
            response
        }
        _ => ApiError::new(Code::Unavailable, "the preview could not be rendered").into_response(),
    }
}

/// GET /design/{id}/preview.svg: the design without guides, at preview scale (72 px per inch).
pub async fn preview(State(state): State<Arc<AppState>>, Path(id): Path<String>) -> Response {
    let Some((format, intent, title, images, _)) = load(&state, &id).await else {
        return ApiError::new(Code::NotFound, "no such design").into_response();
    };
    let mut response =
        scene::render(&format, &intent, title.as_ref(), &images, 72, Guides { show: false }).into_response();
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("image/svg+xml"));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    response
}
