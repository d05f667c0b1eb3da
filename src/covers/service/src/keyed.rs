//! The keyed routes (`Authorization: Bearer cvr_live_…`): authentication and scopes, open CORS
//! (on these routes only: a bearer key, never a cookie, so any site may call them), and the
//! loopback admin endpoint the `covers admin` command uses while the server runs.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::json;
use service_kit::keys::{hash, same_secret};

use crate::accounts::{today, Account, AdminCommand, AdminError, ApiKey, Scope, KEY_FORMAT};
use crate::api::{ApiError, AppState, Code};

/// The keyed routes, with open CORS.
pub fn routes() -> Router<Arc<AppState>> {
    Router::new().route("/api/v1/account", get(account)).layer(axum::middleware::from_fn(cors))
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
        "designs": { "count": 0, "limit": limits.designs },
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
