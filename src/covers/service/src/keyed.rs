//! The keyed routes (`Authorization: Bearer cvr_live_…`): authentication and scopes, open CORS
//! (on these routes only: a bearer key, never a cookie, so any site may call them), and the
//! loopback admin endpoint the `covers admin` command uses while the server runs.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{ConnectInfo, Path, RawQuery, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{json, Value};
use service_kit::keys::{hash, same_secret};

use crate::accounts::{Account, AdminCommand, AdminError, ApiKey, Scope, KEY_FORMAT};
use crate::api::{ApiError, AppState, Code};
use crate::ops::{self, storage};

/// The keyed routes, with open CORS.
pub fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/api/v1/account", get(account))
        .route("/api/v1/designs", get(list_designs).post(save_design))
        .route("/api/v1/designs/{id}", get(get_design).delete(delete_design))
        .route(
            "/api/v1/uploads",
            get(list_uploads).post(upload).layer(axum::extract::DefaultBodyLimit::max(crate::designs::MAX_BODY)),
        )
        .route("/api/v1/uploads/{id}", axum::routing::delete(delete_upload))
        .route("/api/v1/uploads/{id}/preview.png", get(upload_preview))
        .route("/api/v1/designs/{id}/export", axum::routing::post(export))
        .route("/api/v1/exports/{id}", get(export_job))
        .route("/api/v1/exports/{id}/file", get(export_file))
        .layer(axum::middleware::from_fn(cors))
}

/// Open CORS: any origin, the bearer header; preflights answered here.
async fn cors(request: Request, next: Next) -> Response {
    let preflight = request.method() == Method::OPTIONS;
    let mut response = if preflight { StatusCode::NO_CONTENT.into_response() } else { next.run(request).await };
    let h = response.headers_mut();
    h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    h.insert(
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static("Retry-After, Location, WWW-Authenticate"),
    );
    if preflight {
        h.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("GET, POST, DELETE, OPTIONS"));
        h.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static("Authorization, Content-Type"));
        h.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
    }
    response
}

/// The account and key of an API key's secret: `None` when it is malformed, unknown or
/// revoked (OAuth access tokens are not keys: the REST routes are not their audience).
pub fn key_owner(state: &AppState, secret: &str) -> Result<Option<(Account, ApiKey)>, ApiError> {
    if !KEY_FORMAT.well_formed(secret) {
        return Ok(None);
    }
    let digest = hash(secret);
    let Some(key) = state.store.key_by_hash(&digest).map_err(storage)? else { return Ok(None) };
    if !same_secret(&key.hash, &digest) || key.revoked_at.is_some() {
        return Ok(None);
    }
    Ok(state.store.account(&key.account_id).map_err(storage)?.map(|a| (a, key)))
}

/// The caller's account and key, if the request carries a valid key with `scope`.
pub fn authenticate(state: &AppState, headers: &HeaderMap, scope: Scope) -> Result<(Account, ApiKey), ApiError> {
    let required = || {
        ApiError::new(Code::ApiKeyRequired, "send `Authorization: Bearer <key>`")
            .header(header::WWW_AUTHENTICATE, "Bearer realm=\"covers\"")
    };
    let invalid = || {
        ApiError::new(Code::ApiKeyInvalid, "the key is not valid (unknown, revoked or malformed)")
            .header(header::WWW_AUTHENTICATE, "Bearer realm=\"covers\", error=\"invalid_token\"")
    };
    let value = headers.get(header::AUTHORIZATION).ok_or_else(required)?;
    let secret = value
        .to_str()
        .ok()
        .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
        .map(str::trim)
        .ok_or_else(required)?;
    let (account, key) = key_owner(state, secret)?.ok_or_else(invalid)?;
    if !key.scopes.contains(&scope) {
        return Err(ApiError::new(Code::ForbiddenScope, format!("this key lacks the `{}` scope", scope.name()))
            .with("requiredScope", scope.name()));
    }
    Ok((account, key))
}

/// POST /api/v1/designs (scope `design:write`): compose and save in one call. The body is an
/// intent with a `name`; 201 with `designId`, `url`, `applied`, `unsupported`. Counts one
/// compose; refused with `TIER_REQUIRED` when the plan's saved designs are all used.
async fn save_design(State(state): State<Arc<AppState>>, headers: HeaderMap, body: Body) -> Response {
    let (account, _) = match authenticate(&state, &headers, Scope::DesignWrite) {
        Ok(a) => a,
        Err(e) => return e.into_response(),
    };
    let Ok(bytes) = axum::body::to_bytes(body, crate::designs::MAX_BODY).await else {
        return ApiError::new(Code::PayloadTooLarge, "the body is larger than 4.5 MB").into_response();
    };
    let value: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => return ApiError::validation("body", format!("the body is not valid JSON: {e}")).into_response(),
    };
    let done = tokio::task::spawn_blocking(move || crate::ops::save_design(&state, &account, &value)).await;
    match done.unwrap_or_else(|_| Err(ApiError::new(Code::Unavailable, "saving failed"))) {
        Ok(v) => (StatusCode::CREATED, Json(v)).into_response(),
        Err(e) => e.into_response(),
    }
}

/// GET /api/v1/designs?limit=N&cursor=C (scope `read`): the account's designs, newest first,
/// `{items, nextCursor}`; `nextCursor` is `null` on the last page.
async fn list_designs(State(state): State<Arc<AppState>>, headers: HeaderMap, RawQuery(query): RawQuery) -> Response {
    let (account, _) = match authenticate(&state, &headers, Scope::Read) {
        Ok(a) => a,
        Err(e) => return e.into_response(),
    };
    let q = Query::parse(query);
    answer(ops::list_designs(&state, &account, q.get("limit"), q.get("cursor")))
}

/// GET /api/v1/designs/{id} (scope `read`): one of the account's designs with its intent.
async fn get_design(State(state): State<Arc<AppState>>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    match authenticate(&state, &headers, Scope::Read) {
        Ok((account, _)) => answer(ops::get_design(&state, &account, &id)),
        Err(e) => e.into_response(),
    }
}

/// DELETE /api/v1/designs/{id} (scope `design:write`): 204.
async fn delete_design(State(state): State<Arc<AppState>>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    match authenticate(&state, &headers, Scope::DesignWrite).and_then(|(a, _)| ops::delete_design(&state, &a, &id)) {
        Ok(_) => StatusCode::NO_CONTENT.into_response(),
        Err(e) => e.into_response(),
    }
}

/// A JSON answer or the problem document.
fn answer(result: Result<Value, ApiError>) -> Response {
    match result {
        Ok(v) => Json(v).into_response(),
        Err(e) => e.into_response(),
    }
}

/// A query string's parameters (the last of a repeated name wins).
struct Query(Vec<(String, String)>);

impl Query {
    fn parse(query: Option<String>) -> Query {
        Query(form_urlencoded::parse(query.unwrap_or_default().as_bytes()).into_owned().collect())
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// Largest uploaded file, bytes.
pub const MAX_UPLOAD: usize = 4 * 1024 * 1024;

/// The uploaded file and its name, from a multipart form (`file`, `name`) or a JSON body
/// (`{name, mimeType, data}`, `data` base64 or a `data:` URL).
async fn read_upload(request: Request) -> Result<(Vec<u8>, Option<String>), ApiError> {
    use axum::extract::FromRequest;
    let too_large = || ApiError::new(Code::PayloadTooLarge, "the body is larger than 4.5 MB");
    let content_type =
        request.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    // A declared length over the limit is refused before the body is read at all.
    let declared = request.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
    if declared.is_some_and(|n| n > crate::designs::MAX_BODY) {
        return Err(too_large());
    }
    let (bytes, name) = if content_type.starts_with("multipart/form-data") {
        // The route's body limit (4.5 MB) travels with the request into the form reader.
        let mut form = axum::extract::Multipart::from_request(request, &())
            .await
            .map_err(|e| ApiError::validation("body", format!("the multipart body cannot be read: {e}")))?;
        let (mut file, mut name) = (None, None);
        loop {
            let field = match form.next_field().await {
                Ok(Some(f)) => f,
                Ok(None) => break,
                Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => return Err(too_large()),
                Err(e) => return Err(ApiError::validation("body", format!("the multipart body cannot be read: {e}"))),
            };
            match field.name().unwrap_or("") {
                "file" => {
                    let file_name = field.file_name().map(str::to_owned);
                    let data = field.bytes().await.map_err(|e| {
                        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                            too_large()
                        } else {
                            ApiError::validation("file", e.body_text())
                        }
                    })?;
                    file = Some(data.to_vec());
                    name = name.or(file_name);
                }
                "name" => name = Some(field.text().await.map_err(|e| ApiError::validation("name", e.to_string()))?),
                _ => {}
            }
        }
        (file.ok_or_else(|| ApiError::validation("file", "the form has no `file` part"))?, name)
    } else {
        let bytes =
            axum::body::to_bytes(request.into_body(), crate::designs::MAX_BODY).await.map_err(|_| too_large())?;
        let v: Value = serde_json::from_slice(&bytes).map_err(|e| {
            ApiError::validation("body", format!("send multipart/form-data or JSON {{name, mimeType, data}}: {e}"))
        })?;
        ops::decode_upload_json(&v)?
    };
    if bytes.len() > MAX_UPLOAD {
        return Err(ApiError::validation("file", "uploads are at most 4 MB"));
    }
    Ok((bytes, name))
}

/// POST /api/v1/uploads (scope `design:write`): 201 with `ref` (`upload:<id>`), `width`,
/// `height`, `mimeType`, `bytes`, `previewUrl`.
async fn upload(State(state): State<Arc<AppState>>, request: Request) -> Response {
    let (account, _) = match authenticate(&state, request.headers(), Scope::DesignWrite) {
        Ok(a) => a,
        Err(e) => return e.into_response(),
    };
    let (bytes, name) = match read_upload(request).await {
        Ok(b) => b,
        Err(e) => return e.into_response(),
    };
    let done = tokio::task::spawn_blocking(move || ops::add_upload(&state, &account, &bytes, name)).await;
    match done.unwrap_or_else(|_| Err(ApiError::new(Code::Unavailable, "the upload failed"))) {
        Ok(v) => (StatusCode::CREATED, Json(v)).into_response(),
        Err(e) => e.into_response(),
    }
}

/// GET /api/v1/uploads?limit=N&cursor=C (scope `read`): newest first, `{items, nextCursor}`.
async fn list_uploads(State(state): State<Arc<AppState>>, headers: HeaderMap, RawQuery(query): RawQuery) -> Response {
    let (account, _) = match authenticate(&state, &headers, Scope::Read) {
        Ok(a) => a,
        Err(e) => return e.into_response(),
    };
    let q = Query::parse(query);
    answer(ops::list_uploads(&state, &account, q.get("limit"), q.get("cursor")))
}

/// GET /api/v1/uploads/{id}/preview.png (scope `read`): the upload's preview.
async fn upload_preview(State(state): State<Arc<AppState>>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    let (account, _) = match authenticate(&state, &headers, Scope::Read) {
        Ok(a) => a,
        Err(e) => return e.into_response(),
    };
    match state.store.upload(&id) {
        Ok(Some(u)) if u.account_id == account.id => match state.files.get(&u.preview) {
            Some(bytes) => ([(header::CONTENT_TYPE, "image/png")], bytes).into_response(),
            None => ApiError::new(Code::NotFound, "the preview is gone").into_response(),
        },
        Ok(_) => ApiError::new(Code::NotFound, format!("no upload {id}")).into_response(),
        Err(e) => storage(e).into_response(),
    }
}

/// DELETE /api/v1/uploads/{id} (scope `design:write`): 204; frees a library slot. Designs that
/// use it keep their own copy.
async fn delete_upload(State(state): State<Arc<AppState>>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    match authenticate(&state, &headers, Scope::DesignWrite).and_then(|(a, _)| ops::delete_upload(&state, &a, &id)) {
        Ok(()) => StatusCode::NO_CONTENT.into_response(),
        Err(e) => e.into_response(),
    }
}

/// POST /api/v1/designs/{id}/export (scope `export`): body `{output: preview|png|pdf, paper,
/// bleed, marks}` (PDF: paper `fit` by default, bleed and marks on); 202 `{jobId, status}` with
/// `Location`. `TIER_REQUIRED` when the plan does not export that output; one of the day's
/// exports.
async fn export(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Body,
) -> Response {
    let (account, _) = match authenticate(&state, &headers, Scope::Export) {
        Ok(a) => a,
        Err(e) => return e.into_response(),
    };
    let Ok(bytes) = axum::body::to_bytes(body, 64 * 1024).await else {
        return ApiError::new(Code::PayloadTooLarge, "the body is larger than allowed").into_response();
    };
    let v: Value = if bytes.is_empty() {
        json!({})
    } else {
        match serde_json::from_slice(&bytes) {
            Ok(v) => v,
            Err(_) => return ApiError::validation("body", "the body is a JSON object").into_response(),
        }
    };
    let done =
        tokio::task::spawn_blocking(move || crate::ops::export_design(&state, &account, &id, &v).map(|j| (state, j)))
            .await;
    let (state, job) = match done.unwrap_or_else(|_| Err(ApiError::new(Code::Unavailable, "exporting failed"))) {
        Ok(x) => x,
        Err(e) => return e.into_response(),
    };
    let location = format!("{}/api/v1/exports/{}", state.observer.base_url, job.id);
    let mut response = (StatusCode::ACCEPTED, Json(json!({ "jobId": job.id, "status": "queued" }))).into_response();
    if let Ok(v) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, v);
    }
    response
}

/// GET /api/v1/exports/{jobId} (scope `export`, as the contract's routes table has it): the job; when done, `file` with a signed `url`
/// valid for an hour.
async fn export_job(State(state): State<Arc<AppState>>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    let (account, _) = match authenticate(&state, &headers, Scope::Export) {
        Ok(a) => a,
        Err(e) => return e.into_response(),
    };
    match crate::ops::export_status(&state, &account, &id) {
        Ok(v) => Json(v).into_response(),
        Err(e) => e.into_response(),
    }
}

/// GET /api/v1/exports/{jobId}/file?expires=…&sig=…: the file, for whoever has the signed link.
async fn export_file(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Response {
    let params: Vec<(String, String)> =
        form_urlencoded::parse(query.unwrap_or_default().as_bytes()).into_owned().collect();
    let get = |k: &str| params.iter().rev().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    let (Some(expires), Some(sig)) = (get("expires").and_then(|e| e.parse::<u64>().ok()), get("sig")) else {
        return ApiError::new(Code::LinkInvalid, "the link has no expiry or signature").into_response();
    };
    if !crate::exports::verify(&state.link_secret, &id, expires, sig) {
        return ApiError::new(Code::LinkInvalid, "the link's signature does not match").into_response();
    }
    let now = service_kit::period::unix_now_millis();
    if now / 1000 > expires {
        return ApiError::new(Code::LinkExpired, "the link has expired; GET the export again for a fresh one")
            .into_response();
    }
    let job = match state.store.job(&id) {
        Ok(Some(j)) => j,
        Ok(None) => return ApiError::new(Code::NotFound, format!("no export {id}")).into_response(),
        Err(e) => return storage(e).into_response(),
    };
    if crate::exports::expired(&state, &job, now) {
        return ApiError::new(Code::LinkExpired, "the file is older than its lifetime; export again").into_response();
    }
    let Some(file) = job.file else { return ApiError::new(Code::NotFound, "the export has no file").into_response() };
    match state.files.get(&file.hash) {
        Some(bytes) => {
            let ext = match file.mime_type.as_str() {
                "application/pdf" => "pdf",
                _ => "png",
            };
            let mut response = bytes.into_response();
            let h = response.headers_mut();
            if let Ok(v) = HeaderValue::from_str(&file.mime_type) {
                h.insert(header::CONTENT_TYPE, v);
            }
            if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{}.{ext}\"", job.design_id)) {
                h.insert(header::CONTENT_DISPOSITION, v);
            }
            response
        }
        None => ApiError::new(Code::LinkExpired, "the file is gone; export again").into_response(),
    }
}

/// GET /api/v1/account (scope `read`): the plan, today's remaining quotas and when they reset,
/// design and upload counts and limits.
async fn account(State(state): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    let (account, _) = match authenticate(&state, &headers, Scope::Read) {
        Ok(a) => a,
        Err(e) => return e.into_response(),
    };
    answer(Ok(ops::account_document(&state, &account)))
}

/// POST /admin/v1/command: the loopback admin endpoint, invisible (404) to anyone else.
pub async fn admin(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let hidden = || ApiError::new(Code::NotFound, "no such route").into_response();
    // Read the body before answering: closing a connection with unread input resets it.
    let Ok(bytes) = axum::body::to_bytes(body, 64 * 1024).await else { return hidden() };
    if !state.admin.admits(peer, &headers) {
        return hidden();
    }
    let command: AdminCommand = match serde_json::from_slice(&bytes) {
        Ok(c) => c,
        Err(e) => return ApiError::validation("body", e.to_string()).into_response(),
    };
    let result =
        tokio::task::spawn_blocking(move || crate::accounts::execute(&state.store, command, &state.observer.base_url))
            .await;
    match result {
        Ok(Ok(value)) => Json(value).into_response(),
        Ok(Err(AdminError::NotFound(what))) => {
            ApiError::new(Code::NotFound, format!("{what} not found")).into_response()
        }
        Ok(Err(e)) => ApiError::new(Code::Unavailable, e.to_string()).into_response(),
        Err(_) => ApiError::new(Code::Unavailable, "admin task failed").into_response(),
    }
}
