//! The one request middleware: assigns a request id (keeping a well-formed incoming
//! `X-Request-Id`), installs the [`RequestContext`](crate::context::RequestContext), logs one
//! line per request, records metrics, and echoes the id in the response.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::extract::{ConnectInfo, MatchedPath, Request, State};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;

use crate::context::{self, RequestContext};
use crate::metrics::RequestMetrics;

/// What the middleware needs: the public base URL and where to count requests.
pub struct Observer {
    /// Public base URL of the service (no trailing slash).
    pub base_url: String,
    /// Request counters and latency histograms.
    pub metrics: RequestMetrics,
}

impl Observer {
    /// An observer for a service reachable at `base_url`.
    pub fn new(base_url: impl Into<String>) -> Observer {
        Observer { base_url: base_url.into(), metrics: RequestMetrics::default() }
    }
}

/// An incoming request id is kept when it is 1 to 64 letters, digits, `-` and `_`.
fn acceptable_id(v: &str) -> bool {
    !v.is_empty() && v.len() <= 64 && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The middleware; install with `axum::middleware::from_fn_with_state(observer, observe)`.
pub async fn observe(State(observer): State<Arc<Observer>>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let request_id = request
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| acceptable_id(v))
        .map(str::to_owned)
        .unwrap_or_else(crate::keys::request_id);
    let matched = request.extensions().get::<MatchedPath>().cloned();
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let peer = request.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0);
    let ctx =
        RequestContext { base_url: observer.base_url.clone(), path: path.clone(), request_id: request_id.clone() };
    let mut response = context::scope(ctx, next.run(request)).await;
    if let Ok(v) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert("x-request-id", v);
    }
    harden_documents(response.headers_mut());
    let elapsed = started.elapsed();
    let status = response.status().as_u16();
    let route = matched.as_ref().map_or("unmatched", |m| m.as_str());
    observer.metrics.observe(route, status, elapsed);
    tracing::info!(request_id, %method, path, route, status, micros = elapsed.as_micros() as u64, peer = ?peer, "request");
    response
}

/// The policy of SVG and HTML responses whose handler set none: nothing runs, nothing loads
/// but inline styles and `data:` images, and no page may frame it. An SVG opened on its own is a
/// document that could run script, so even generated SVG gets it.
pub const DOCUMENT_POLICY: &str =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; frame-ancestors 'none'";

/// Gives every SVG and HTML response a content security policy and `nosniff` when its handler
/// set none (pages with scripts set their own, stricter where it matters).
fn harden_documents(headers: &mut axum::http::HeaderMap) {
    use axum::http::header::{CONTENT_SECURITY_POLICY, CONTENT_TYPE, X_CONTENT_TYPE_OPTIONS};
    let document = headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("image/svg+xml") || t.starts_with("text/html"));
    if !document {
        return;
    }
    if !headers.contains_key(CONTENT_SECURITY_POLICY) {
        headers.insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(DOCUMENT_POLICY));
    }
    if !headers.contains_key(X_CONTENT_TYPE_OPTIONS) {
        headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    }
}

#[cfg(test)]
mod tests {
    use super::{acceptable_id, harden_documents, DOCUMENT_POLICY};

    #[test]
    fn documents_without_a_policy_get_one_and_others_keep_theirs() {
        use axum::http::{header, HeaderMap, HeaderValue};
        let mut svg = HeaderMap::new();
        svg.insert(header::CONTENT_TYPE, HeaderValue::from_static("image/svg+xml"));
        harden_documents(&mut svg);
        assert_eq!(svg.get(header::CONTENT_SECURITY_POLICY).unwrap(), DOCUMENT_POLICY);
        assert_eq!(svg.get(header::X_CONTENT_TYPE_OPTIONS).unwrap(), "nosniff");
        let mut page = HeaderMap::new();
        page.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
        page.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static("script-src 'self'"));
        harden_documents(&mut page);
        assert_eq!(page.get(header::CONTENT_SECURITY_POLICY).unwrap(), "script-src 'self'");
        let mut json = HeaderMap::new();
        json.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        harden_documents(&mut json);
        assert_eq!(json.len(), 1);
        assert!(json.get(header::CONTENT_SECURITY_POLICY).is_none());
    }

    #[test]
    fn only_tame_request_ids_are_kept() {
        assert!(acceptable_id("abc-DEF_123"));
        for bad in ["", "a b", "x\r\ny", &"a".repeat(65)] {
            assert!(!acceptable_id(bad), "{bad:?}");
        }
    }
}
