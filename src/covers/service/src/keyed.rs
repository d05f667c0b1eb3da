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

use crate::accounts::{today, Account, AdminCommand, AdminError, ApiKey, Scope, KEY_FORMAT};
use crate::api::{ApiError, AppState, Code};

/// The keyed routes, with open CORS.
pub fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/api/v1/account", get(account))
        .route("/api/v1/designs", get(list_designs).post(save_design))
        .route("/api/v1/designs/{id}", get(get_design).delete(delete_design))
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
    if !KEY_FORMAT.well_formed(secret) {
        return Err(invalid());
    }
    let digest = hash(secret);
    let storage = |e: service_kit::db::DbError| ApiError::new(Code::Unavailable, format!("storage: {e}"));
    let key = state.store.key_by_hash(&digest).map_err(storage)?.ok_or_else(invalid)?;
    if !same_secret(&key.hash, &digest) || key.revoked_at.is_some() {
        return Err(invalid());
    }
    let account = state.store.account(&key.account_id).map_err(storage)?.ok_or_else(invalid)?;
    if !key.scopes.contains(&scope) {
        return Err(ApiError::new(Code::ForbiddenScope, format!("this key lacks the `{}` scope", scope.name()))
            .with("requiredScope", scope.name()));
    }
    Ok((account, key))
}

fn storage(e: service_kit::db::DbError) -> ApiError {
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
        .header(header::RETRY_AFTER, reset_in))
    }
}

/// A saved design as listed.
fn design_summary(base: &str, d: &crate::store::SavedDesign) -> Value {
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
    let done = tokio::task::spawn_blocking(move || -> Result<Value, ApiError> {
        let limits = state.config.plan(account.plan);
        let (intent, report, title) = crate::designs::resolve(&state, &value, None)?;
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
        take_quota(&state, &account, "composes", limits.daily_composes)?;
        let design = crate::store::SavedDesign {
            id: service_kit::keys::random_id("des_"),
            account_id: account.id.clone(),
            name,
            intent: intent.to_json(),
            title: title.map(|t| t.id),
            created_at: service_kit::period::unix_now_millis(),
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
    })
    .await;
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
    let params: Vec<(String, String)> =
        form_urlencoded::parse(query.unwrap_or_default().as_bytes()).into_owned().collect();
    let get = |k: &str| params.iter().rev().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    let limit = match get("limit").map(str::parse::<usize>) {
        None => 20,
        Some(Ok(n)) if (1..=100).contains(&n) => n,
        _ => return ApiError::validation("limit", "`limit` is 1 to 100").into_response(),
    };
    let designs = match state.store.designs_of(&account.id) {
        Ok(d) => d,
        Err(e) => return storage(e).into_response(),
    };
    let start = match get("cursor") {
        None => 0,
        Some(c) => match designs.iter().position(|d| d.id == c) {
            Some(i) => i + 1,
            None => {
                return ApiError::validation(
                    "cursor",
                    "unknown cursor (its design may have been deleted); start again without one",
                )
                .into_response()
            }
        },
    };
    let page: Vec<_> = designs.iter().skip(start).take(limit).collect();
    let next = (start + page.len() < designs.len()).then(|| page.last().map(|d| d.id.clone())).flatten();
    let base = &state.observer.base_url;
    Json(json!({ "items": page.iter().map(|d| design_summary(base, d)).collect::<Vec<_>>(), "nextCursor": next }))
        .into_response()
}

/// GET /api/v1/designs/{id} (scope `read`): one of the account's designs with its intent.
async fn get_design(State(state): State<Arc<AppState>>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    let (account, _) = match authenticate(&state, &headers, Scope::Read) {
        Ok(a) => a,
        Err(e) => return e.into_response(),
    };
    match state.store.design(&id) {
        Ok(Some(d)) if d.account_id == account.id => {
            let mut v = design_summary(&state.observer.base_url, &d);
            v["intent"] = d.intent.clone();
            Json(v).into_response()
        }
        Ok(_) => ApiError::new(Code::NotFound, format!("no design {id}")).into_response(),
        Err(e) => storage(e).into_response(),
    }
}

/// DELETE /api/v1/designs/{id} (scope `design:write`): 204.
async fn delete_design(State(state): State<Arc<AppState>>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    let (account, _) = match authenticate(&state, &headers, Scope::DesignWrite) {
        Ok(a) => a,
        Err(e) => return e.into_response(),
    };
    match state.store.delete_design(&account.id, &id) {
        Ok(true) => StatusCode::NO_CONTENT.into_response(),
        Ok(false) => ApiError::new(Code::NotFound, format!("no design {id}")).into_response(),
        Err(e) => storage(e).into_response(),
    }
}

/// GET /api/v1/account (scope `read`): the plan, today's remaining quotas and when they reset,
/// design and upload counts and limits.
async fn account(State(state): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    let (account, _) = match authenticate(&state, &headers, Scope::Read) {
        Ok(a) => a,
        Err(e) => return e.into_response(),
    };
    let limits = state.config.plan(account.plan);
    let now = service_kit::period::unix_now();
    let (day, reset_in) = today(now);
    let left = |kind: &str, limit: Option<u64>| -> serde_json::Value {
        match limit {
            None => serde_json::Value::Null,
            Some(l) => l.saturating_sub(state.store.usage(&account.id, &day, kind).unwrap_or(0)).into(),
        }
    };
    Json(json!({
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
        "uploads": { "count": 0, "limit": limits.uploads_library },
        "outputs": limits.outputs,
    }))
    .into_response()
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
    let result = tokio::task::spawn_blocking(move || crate::accounts::execute(&state.store, command)).await;
    match result {
        Ok(Ok(value)) => Json(value).into_response(),
        Ok(Err(AdminError::NotFound(what))) => {
            ApiError::new(Code::NotFound, format!("{what} not found")).into_response()
        }
        Ok(Err(e)) => ApiError::new(Code::Unavailable, e.to_string()).into_response(),
        Err(_) => ApiError::new(Code::Unavailable, "admin task failed").into_response(),
    }
}
