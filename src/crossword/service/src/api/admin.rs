//! The loopback-only admin endpoint used by `crossword admin` while the server runs. The kit's
//! [`AdminGate`](service_kit::admin::AdminGate) admits only loopback peers with the data
//! directory's secret; anything else gets the same 404 as an unknown route, so the endpoint is
//! invisible from outside.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::error::{ApiError, Code};
use super::extract::MAX_BODY;
use super::state::AppState;
use crate::admin::{execute, AdminCommand};
use crate::store::StoreError;

/// POST /admin/v1/command.
pub async fn command(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let hidden = || ApiError::new(Code::NotFound, "no such route for POST").into_response();
    // Read the body before answering anything: closing a connection with unread input resets it.
    let Ok(bytes) = axum::body::to_bytes(body, MAX_BODY).await else { return hidden() };
    if !state.admin.admits(peer, &headers) {
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
