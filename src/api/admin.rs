//! The loopback-only admin endpoint used by `crossword admin` while the server runs.
//!
//! Requests must come from a loopback address and carry the data directory's admin secret in
//! `X-Admin-Secret` (compared in constant time). Anything else gets the same 404 as an unknown
//! route, so the endpoint is invisible from outside.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use subtle::ConstantTimeEq;

use super::error::{ApiError, Code};
use super::AppState;
use crate::admin::{execute, AdminCommand};
use crate::store::StoreError;

/// The admin routes.
pub fn routes() -> Router<Arc<AppState>> {
    Router::new().route("/admin/v1/command", post(command))
}

async fn command(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let hidden = || ApiError::new(Code::NotFound, "no such route for POST").into_response();
    // Read the body before answering anything: closing a connection with unread input resets it.
    let Ok(bytes) = axum::body::to_bytes(body, super::MAX_BODY).await else { return hidden() };
    let loopback = peer.ip().is_loopback();
    let secret = headers.get("x-admin-secret").and_then(|v| v.to_str().ok()).unwrap_or("");
    let good = !state.admin_secret.is_empty() && bool::from(secret.as_bytes().ct_eq(state.admin_secret.as_bytes()));
    if !loopback || !good {
        return hidden();
    }
    let command: AdminCommand = match serde_json::from_slice(&bytes) {
        Ok(c) => c,
        Err(e) => return ApiError::validation("body", e.to_string()).into_response(),
    };
    let store = state.store.clone();
    let result = tokio::task::spawn_blocking(move || execute(store.as_ref(), command)).await;
    // Keys or plans may have changed: the next request re-reads them.
    state.auth_cache.write().clear();
    match result {
        Ok(Ok(value)) => Json(value).into_response(),
        Ok(Err(StoreError::NotFound(what))) => {
            ApiError::new(Code::NotFound, format!("{what} not found")).into_response()
        }
        Ok(Err(e)) => ApiError::new(Code::UpstreamUnavailable, e.to_string())
            .status(StatusCode::SERVICE_UNAVAILABLE)
            .into_response(),
        Err(_) => ApiError::new(Code::UpstreamUnavailable, "admin task failed")
            .status(StatusCode::SERVICE_UNAVAILABLE)
            .into_response(),
    }
}
