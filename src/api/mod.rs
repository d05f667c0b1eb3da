//! The HTTP API: a thin adapter over the engines (`index`, `store`).
//!
//! Every request passes one middleware ([`observe`]) that assigns a request id, installs the
//! [`context::RequestContext`], logs, and records metrics. Handlers authenticate with
//! [`AppState::authorize`], count the read with [`AppState::count_read`], validate input into
//! problem documents, and call the engines. Blocking engine work runs on the blocking pool.

pub mod admin;
mod clues;
pub mod context;
pub mod error;
pub mod fill;
mod input;
mod meta;
pub mod metrics;
pub mod openapi;
pub mod quota;
pub mod ratelimit;
mod words;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::extract::{ConnectInfo, MatchedPath, Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;

use crate::config::Config;
use crate::index::IndexManager;
use crate::store::{Account, ApiKey, Scope, Store};
use error::{ApiError, ApiResult, Code};
use ratelimit::{Allowance, Windows};

/// The contract version, returned by GET /status.
pub const CONTRACT_VERSION: &str = "1.0.0";
/// Largest request body accepted (bigger ones get 413).
pub const MAX_BODY: usize = 1024 * 1024;

/// Everything handlers share.
pub struct AppState {
    /// Plans and limits.
    pub config: Config,
    /// Durable state.
    pub store: Arc<dyn Store>,
    /// The word indexes.
    pub indexes: Arc<IndexManager>,
    /// Per-account read windows.
    pub reads: Windows,
    /// Per-IP windows of the open endpoints.
    pub open: Windows,
    /// Prometheus metrics.
    pub metrics: metrics::Metrics,
    /// Public base URL (no trailing slash).
    pub base_url: String,
    /// Secret of the loopback admin endpoint.
    pub admin_secret: String,
    /// Authenticated callers by key hash. Every write to keys and accounts goes through this
    /// process while it runs (the admin endpoint), which clears the cache, so a revocation or a
    /// plan change takes effect on the next request.
    pub auth_cache: parking_lot::RwLock<ahash::AHashMap<String, Caller>>,
    /// Solver concurrency caps and live fill sessions.
    pub solver: Arc<fill::SolverPool>,
    /// Signs generated clues (secret in the data directory).
    pub clue_signer: crate::clues::token::ClueSigner,
    /// Makes new clues for POST /clues/generate.
    pub clue_generator: Arc<dyn crate::clues::generate::ClueGenerator>,
}

/// An authenticated caller.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The account every limit is keyed to.
    pub account: Account,
    /// The key used.
    pub key: ApiKey,
}

impl AppState {
    /// Authenticates a request and checks that its key has `scope`.
    ///
    /// The key comes from `Authorization: Bearer` or `X-Api-Key`; sending both, a malformed or
    /// unknown key, or a revoked one all give the same 401.
    pub fn authorize(&self, headers: &HeaderMap, scope: Scope) -> ApiResult<Caller> {
        let unauthorized = || {
            ApiError::new(Code::Unauthorized, "a valid API key is required (Authorization: Bearer or X-Api-Key)")
                .header(axum::http::header::WWW_AUTHENTICATE, "Bearer")
        };
        let bearer = headers.get(axum::http::header::AUTHORIZATION);
        let api_key = headers.get("x-api-key");
        let secret = match (bearer, api_key) {
            (Some(b), None) => b.to_str().ok().and_then(|v| v.strip_prefix("Bearer ")).map(str::trim),
            (None, Some(k)) => k.to_str().ok().map(str::trim),
            _ => None,
        };
        let secret = secret.filter(|s| crate::keys::well_formed(s)).ok_or_else(unauthorized)?;
        let hash = crate::keys::hash(secret);
        let cached = self.auth_cache.read().get(&hash).cloned();
        let caller = match cached {
            Some(c) if crate::keys::same_hash(&c.key.hash, &hash) => c,
            _ => {
                let key = self.store.key_by_hash(&hash).map_err(internal)?.ok_or_else(unauthorized)?;
                if !crate::keys::same_hash(&key.hash, &hash) || key.revoked_at.is_some() {
                    return Err(unauthorized());
                }
                let account = self.store.account(&key.account_id).map_err(internal)?.ok_or_else(unauthorized)?;
                let caller = Caller { account, key };
                let mut cache = self.auth_cache.write();
                if cache.len() >= 100_000 {
                    cache.clear();
                }
                cache.insert(hash, caller.clone());
                caller
            }
        };
        let Caller { account, key } = caller;
        if !key.scopes.contains(&scope) {
            return Err(ApiError::new(Code::ForbiddenScope, format!("this key lacks the {} scope", scope.as_str()))
                .with("requiredScope", scope.as_str()));
        }
        Ok(Caller { account, key })
    }

    /// Counts a read request against the caller's account window.
    pub fn count_read(&self, caller: &Caller) -> ApiResult<Allowance> {
        let limit = self.config.plan(caller.account.tier).reads_per_minute;
        self.reads.hit(&caller.account.id, limit).map_err(rate_limited)
    }

    /// Counts a request to an open endpoint against the client's IP window.
    pub fn count_open(&self, ip: std::net::IpAddr) -> ApiResult<Allowance> {
        self.open.hit(&ip.to_string(), self.config.limits.open_per_minute).map_err(rate_limited)
    }

    /// The link people follow to change plans.
    pub fn upgrade_url(&self) -> String {
        format!("{}/pricing", self.base_url)
    }
}

/// A 429 for a full window.
fn rate_limited(r: ratelimit::Refused) -> ApiError {
    ApiError::new(Code::RateLimited, format!("at most {} requests per minute; retry in {} s", r.limit, r.retry_after))
        .with("limit", r.limit)
        .with("remaining", 0)
        .header(HeaderName::from_static("retry-after"), r.retry_after)
        .header(HeaderName::from_static("x-ratelimit-limit"), r.limit)
        .header(HeaderName::from_static("x-ratelimit-remaining"), 0)
}

/// A storage failure: the service cannot answer right now (503, nothing written).
pub fn internal(e: crate::store::StoreError) -> ApiError {
    tracing::error!(error = %e, "storage failure");
    ApiError::new(Code::UpstreamUnavailable, "storage is unavailable; retry with backoff")
        .status(axum::http::StatusCode::SERVICE_UNAVAILABLE)
}

/// The common shape of a keyed operation: authenticate with `scope`, count the request in the
/// account's one-minute window, run `inner`, and add the window headers to whatever it returns.
pub async fn metered<F, Fut, T>(state: &AppState, headers: &HeaderMap, scope: Scope, inner: F) -> Response
where
    F: FnOnce(Caller) -> Fut,
    Fut: std::future::Future<Output = ApiResult<T>>,
    T: IntoResponse,
{
    let caller = match state.authorize(headers, scope) {
        Ok(c) => c,
        Err(e) => return e.into_response(),
    };
    let allowance = match state.count_read(&caller) {
        Ok(a) => a,
        Err(e) => return e.into_response(),
    };
    with_allowance(allowance, inner(caller).await)
}

/// Adds the read window headers to a response (success or failure).
pub fn with_allowance(allowance: Allowance, response: impl IntoResponse) -> Response {
    let mut response = response.into_response();
    let h = response.headers_mut();
    h.insert("x-ratelimit-limit", HeaderValue::from(allowance.limit));
    h.insert("x-ratelimit-remaining", HeaderValue::from(allowance.remaining));
    response
}

/// The service's router. `state.base_url` must be set.
pub fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/", get(meta::landing))
        .route("/api/v1", get(meta::landing))
        .route("/api/v1/openapi.json", get(meta::openapi))
        .route("/api/v1/errors", get(meta::errors_page))
        .route("/api/v1/status", get(meta::status))
        .route("/api/v1/languages", get(meta::languages))
        .route("/api/v1/words", get(words::search))
        .route("/api/v1/words/scores", post(words::scores))
        .route("/api/v1/fill", post(fill::fill_handler))
        .route("/api/v1/fill/cancel", post(fill::cancel_handler))
        .route("/api/v1/fill/improve", post(fill::improve_handler))
        .route("/api/v1/clues/bulk", post(clues::bulk))
        .route("/api/v1/clues/generate", post(clues::generate_handler))
        .route("/api/v1/clues/{word}", get(clues::lookup))
        .route("/metrics", get(metrics::render))
        .merge(admin::routes())
        .fallback(not_found)
        .method_not_allowed_fallback(not_found)
        .layer(axum::middleware::from_fn_with_state(state.clone(), observe))
        .with_state(state)
}

async fn not_found(method: axum::http::Method) -> ApiError {
    ApiError::new(Code::NotFound, format!("no such route for {method}"))
}

/// The one middleware: request id, context, logging, metrics.
async fn observe(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let request_id = request
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| {
            !v.is_empty() && v.len() <= 64 && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
        .map(str::to_owned)
        .unwrap_or_else(|| crate::keys::random_alphanumeric(16));
    let route = request.extensions().get::<MatchedPath>().map_or("unmatched", |m| m.as_str()).to_owned();
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let peer = request.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0);
    let ctx = context::RequestContext {
        base_url: state.base_url.clone(),
        path: path.clone(),
        request_id: request_id.clone(),
    };
    let mut response = context::scope(ctx, next.run(request)).await;
    if let Ok(v) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert("x-request-id", v);
    }
    let elapsed = started.elapsed();
    let status = response.status().as_u16();
    state.metrics.observe(&route, status, elapsed);
    tracing::info!(request_id, %method, path, route, status, micros = elapsed.as_micros() as u64, peer = ?peer, "request");
    response
}
