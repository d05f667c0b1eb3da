//! Authentication and the per-minute windows: the first steps of every keyed operation.

use std::future::Future;

use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use service_kit::windows::{Allowance, Refused};

use super::error::{ApiError, ApiResult, Code};
use super::state::{AppState, Caller};
use crate::keys;
use crate::store::{Scope, StoreError};

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
        let secret = secret.filter(|s| keys::FORMAT.well_formed(s)).ok_or_else(unauthorized)?;
        let hash = service_kit::keys::hash(secret);
        let cached = self.auth_cache.read().get(&hash).cloned();
        let fresh = |read: std::time::Instant| self.auth_ttl.is_none_or(|ttl| read.elapsed() < ttl);
        let caller = match cached {
            Some((c, read)) if fresh(read) && service_kit::keys::same_secret(&c.key.hash, &hash) => c,
            _ => {
                let key = self.store.key_by_hash(&hash).map_err(internal)?.ok_or_else(unauthorized)?;
                if !service_kit::keys::same_secret(&key.hash, &hash) || key.revoked_at.is_some() {
                    return Err(unauthorized());
                }
                let account = self.store.account(&key.account_id).map_err(internal)?.ok_or_else(unauthorized)?;
                let caller = Caller { account: account.into(), key: key.into() };
                let mut cache = self.auth_cache.write();
                if cache.len() >= 100_000 {
                    cache.clear();
                }
                cache.insert(hash, (caller.clone(), std::time::Instant::now()));
                caller
            }
        };
        if !caller.key.scopes.contains(&scope) {
            return Err(ApiError::new(Code::ForbiddenScope, format!("this key lacks the {} scope", scope.as_str()))
                .with("requiredScope", scope.as_str()));
        }
        Ok(caller)
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
}

/// A 429 for a full window.
fn rate_limited(r: Refused) -> ApiError {
    ApiError::new(Code::RateLimited, format!("at most {} requests per minute; retry in {} s", r.limit, r.retry_after))
        .with("limit", r.limit)
        .with("remaining", 0)
        .header(HeaderName::from_static("retry-after"), r.retry_after)
        .header(HeaderName::from_static("x-ratelimit-limit"), r.limit)
        .header(HeaderName::from_static("x-ratelimit-remaining"), 0)
}

/// A storage failure: the service cannot answer right now (503, nothing written).
pub fn internal(e: StoreError) -> ApiError {
    tracing::error!(error = %e, "storage failure");
    ApiError::new(Code::UpstreamUnavailable, "storage is unavailable; retry with backoff")
        .status(StatusCode::SERVICE_UNAVAILABLE)
}

/// The common shape of a keyed operation: authenticate with `scope`, count the request in the
/// account's one-minute window, run `inner`, and add the window headers to whatever it returns.
pub async fn metered<F, Fut, T>(state: &AppState, headers: &HeaderMap, scope: Scope, inner: F) -> Response
where
    F: FnOnce(Caller) -> Fut,
    Fut: Future<Output = ApiResult<T>>,
    T: IntoResponse,
{
    match state.authorize(headers, scope) {
        Ok(caller) => metered_as(state, caller, inner).await,
        Err(e) => e.into_response(),
    }
}

/// The rest of [`metered`] for a caller already authenticated: the window, `inner`, and the
/// window headers.
pub async fn metered_as<F, Fut, T>(state: &AppState, caller: Caller, inner: F) -> Response
where
    F: FnOnce(Caller) -> Fut,
    Fut: Future<Output = ApiResult<T>>,
    T: IntoResponse,
{
    match state.count_read(&caller) {
        Ok(allowance) => with_allowance(allowance, inner(caller).await),
        Err(e) => e.into_response(),
    }
}

/// Adds the read window headers to a response (success or failure).
pub fn with_allowance(allowance: Allowance, response: impl IntoResponse) -> Response {
    let mut response = response.into_response();
    let h = response.headers_mut();
    h.insert("x-ratelimit-limit", HeaderValue::from(allowance.limit));
    h.insert("x-ratelimit-remaining", HeaderValue::from(allowance.remaining));
    response
}
