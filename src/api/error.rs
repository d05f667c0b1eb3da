//! Problem documents (`application/problem+json`): every failure the API returns.
//!
//! An [`ApiError`] carries a contract [`Code`], a human `detail`, the code's extra fields and
//! any headers (`Retry-After`, quota headers). Its `type` is the error reference page's address
//! with the code as anchor; its `instance` is the request path, both taken from the request
//! context that the middleware installs.

use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};

use super::context;

/// The contract's error codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// Missing, malformed, unknown or revoked key.
    Unauthorized,
    /// The key lacks the scope the operation needs.
    ForbiddenScope,
    /// The grid is larger than the plan allows.
    GridSizeLocked,
    /// Only paid plans may do this.
    MembersOnly,
    /// Monthly AI clue quota used up.
    AiQuotaReached,
    /// Monthly fill quota used up.
    FillQuotaReached,
    /// Monthly puzzle quota used up.
    PuzzleQuotaReached,
    /// Three puzzles already await showcase review.
    ShowcaseQueueFull,
    /// Too many requests in the current window.
    RateLimited,
    /// The solver runs as many jobs as allowed.
    SolverBusy,
    /// Unknown language code (400) or index not loadable (503).
    LanguageUnavailable,
    /// A field is missing, of the wrong type or out of range.
    ValidationError,
    /// No such resource.
    NotFound,
    /// A dependency failed.
    UpstreamUnavailable,
}

/// Reference facts about a code, for problem documents and the error page.
pub struct CodeInfo {
    /// The code as sent (`RATE_LIMITED`).
    pub name: &'static str,
    /// HTTP status (the usual one, for codes with two).
    pub status: u16,
    /// The contract's title.
    pub title: &'static str,
    /// What it means.
    pub meaning: &'static str,
    /// When to retry.
    pub retry: &'static str,
    /// Extra fields in the problem document.
    pub extras: &'static [&'static str],
}

impl Code {
    /// Every code, in the contract's order.
    pub const ALL: [Code; 14] = [
        Code::Unauthorized,
        Code::ForbiddenScope,
        Code::GridSizeLocked,
        Code::MembersOnly,
        Code::AiQuotaReached,
        Code::FillQuotaReached,
        Code::PuzzleQuotaReached,
        Code::ShowcaseQueueFull,
        Code::RateLimited,
        Code::SolverBusy,
        Code::LanguageUnavailable,
        Code::ValidationError,
        Code::NotFound,
        Code::UpstreamUnavailable,
    ];

    /// Reference facts.
    pub fn info(self) -> CodeInfo {
        const QUOTA: &[&str] = &["limit", "remaining", "tier", "upgradeUrl", "contact"];
        let (name, status, title, meaning, retry, extras): (_, _, _, _, _, &'static [&'static str]) = match self {
            Code::Unauthorized => ("UNAUTHORIZED", 401, "Unauthorized", "The API key is missing, malformed, unknown or revoked (the causes are not told apart).", "No.", &[]),
            Code::ForbiddenScope => ("FORBIDDEN_SCOPE", 403, "Forbidden", "The key is valid but lacks the scope this operation needs.", "No.", &["requiredScope"]),
            Code::GridSizeLocked => ("GRID_SIZE_LOCKED", 403, "Grid size locked", "The grid is larger than the account's plan allows (13x13 free, 23x23 paid).", "No.", &["maxGridSize", "tier", "upgradeUrl"]),
            Code::MembersOnly => ("MEMBERS_ONLY", 403, "Members only", "Only paid plans may generate AI clues; the free plan's allowance is zero.", "No.", &["tier", "upgradeUrl"]),
            Code::AiQuotaReached => ("AI_QUOTA_REACHED", 429, "AI clue quota reached", "The account's monthly AI clue requests are used up.", "Next calendar month.", QUOTA),
            Code::FillQuotaReached => ("FILL_QUOTA_REACHED", 429, "Fill quota reached", "The account's monthly fills are used up; a clean-up counts as a fill.", "Next calendar month.", QUOTA),
            Code::PuzzleQuotaReached => ("PUZZLE_QUOTA_REACHED", 429, "Puzzle quota reached", "The account's monthly new puzzles are used up; use Idempotency-Key to avoid duplicates.", "Next calendar month.", QUOTA),
            Code::ShowcaseQueueFull => ("SHOWCASE_QUEUE_FULL", 409, "Showcase queue full", "Three of the account's puzzles already await showcase review; nothing was applied.", "Once a queued puzzle is reviewed.", &["limit", "queued"]),
            Code::RateLimited => ("RATE_LIMITED", 429, "Rate limited", "Too many requests in the current one-minute window; nothing was consumed.", "After Retry-After seconds.", &["limit", "remaining"]),
            Code::SolverBusy => ("SOLVER_BUSY", 429, "Solver busy", "The solver runs as many jobs as allowed (two fills per account); the request was not queued and nothing was charged.", "After a few seconds, with jitter.", &[]),
            Code::LanguageUnavailable => ("LANGUAGE_UNAVAILABLE", 400, "Language unavailable", "400: the language code is unknown. 503: the code is real but its index could not be loaded.", "400: no. 503: retry once after a few seconds.", &[]),
            Code::ValidationError => ("VALIDATION_ERROR", 400, "Validation error", "A field is missing, of the wrong type or out of range; `field` names it, and for a grid `detail` names the row and column. An oversized body is refused with status 413.", "No.", &["field"]),
            Code::NotFound => ("NOT_FOUND", 404, "Not found", "No such resource or route, or another account's draft.", "No.", &[]),
            Code::UpstreamUnavailable => ("UPSTREAM_UNAVAILABLE", 502, "Upstream unavailable", "A dependency failed (502) or is unavailable (503); nothing was charged or written.", "Exponential backoff.", &[]),
        };
        CodeInfo { name, status, title, meaning, retry, extras }
    }
}

/// A failure answered as a problem document.
#[derive(Debug)]
pub struct ApiError {
    /// The contract code.
    pub code: Code,
    /// HTTP status.
    pub status: StatusCode,
    /// Human-readable explanation (may change; clients branch on `code`).
    pub detail: String,
    /// The code's extra fields.
    pub extra: Map<String, Value>,
    /// Extra response headers.
    pub headers: Vec<(HeaderName, String)>,
}

impl ApiError {
    /// An error with the code's usual status.
    pub fn new(code: Code, detail: impl Into<String>) -> ApiError {
        let status = StatusCode::from_u16(code.info().status).unwrap_or(StatusCode::BAD_REQUEST);
        ApiError { code, status, detail: detail.into(), extra: Map::new(), headers: Vec::new() }
    }

    /// A validation error naming `field`.
    pub fn validation(field: &str, detail: impl Into<String>) -> ApiError {
        ApiError::new(Code::ValidationError, detail).with("field", field)
    }

    /// Overrides the status (for codes with two statuses, and 413 validation errors).
    pub fn status(mut self, status: StatusCode) -> ApiError {
        self.status = status;
        self
    }

    /// Adds an extra field.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> ApiError {
        self.extra.insert(key.to_owned(), value.into());
        self
    }

    /// Adds a response header.
    pub fn header(mut self, name: HeaderName, value: impl ToString) -> ApiError {
        self.headers.push((name, value.to_string()));
        self
    }

    /// The problem document.
    pub fn body(&self) -> Value {
        let info = self.code.info();
        let ctx = context::current();
        let mut doc = Map::new();
        doc.insert("type".into(), format!("{}/api/v1/errors#{}", ctx.base_url, info.name).into());
        doc.insert("title".into(), info.title.into());
        doc.insert("status".into(), self.status.as_u16().into());
        doc.insert("code".into(), info.name.into());
        doc.insert("detail".into(), self.detail.clone().into());
        doc.insert("instance".into(), ctx.path.into());
        for (k, v) in &self.extra {
            doc.insert(k.clone(), v.clone());
        }
        Value::Object(doc)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::to_vec(&self.body()).unwrap_or_default();
        let mut response = (self.status, body).into_response();
        let headers = response.headers_mut();
        headers.insert(axum::http::header::CONTENT_TYPE, HeaderValue::from_static("application/problem+json"));
        for (name, value) in self.headers {
            if let Ok(v) = HeaderValue::from_str(&value) {
                headers.insert(name, v);
            }
        }
        response
    }
}

/// Result of a handler.
pub type ApiResult<T> = Result<T, ApiError>;
