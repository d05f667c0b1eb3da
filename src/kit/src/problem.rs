//! Problem documents (`application/problem+json`, RFC 9457): how every service answers a
//! failure.
//!
//! Each service has its own table of stable error codes, an enum implementing [`ProblemCode`];
//! a [`Problem`] carries one of them, a human `detail`, the code's extra fields and any
//! headers (`Retry-After`, quota headers). Its `type` is the service's error reference page
//! with the code as anchor; its `instance` is the request path, both from the request
//! [`context`](crate::context) that the middleware installs. [`error_page`] renders that
//! reference page from the same table.

use std::fmt::Write as _;

use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};

use crate::context;

/// Reference facts about one error code, for problem documents and the error page.
#[derive(Debug, Clone, Copy)]
pub struct CodeInfo {
    /// The code as sent (`RATE_LIMITED`).
    pub name: &'static str,
    /// HTTP status (the usual one, for codes with two).
    pub status: u16,
    /// Every status the code can come with, as the error page shows it (`"400 or 503"`);
    /// empty when `status` is the only one.
    pub statuses: &'static str,
    /// The contract's title.
    pub title: &'static str,
    /// What it means.
    pub meaning: &'static str,
    /// When to retry.
    pub retry: &'static str,
    /// Extra fields in the problem document.
    pub extras: &'static [&'static str],
}

/// A service's table of error codes.
pub trait ProblemCode: Copy + std::fmt::Debug + Send + Sync + 'static {
    /// Path of the error reference page under the base URL (`/api/v1/errors`); problem
    /// documents' `type` is that page's address with the code as anchor.
    const ERRORS_PATH: &'static str;
    /// The code of a request that fails validation (its problem names the `field`).
    const VALIDATION: Self;
    /// Every code, in the contract's order.
    fn all() -> &'static [Self];
    /// Reference facts.
    fn info(self) -> CodeInfo;
}

/// A failure answered as a problem document.
#[derive(Debug)]
pub struct Problem<C: ProblemCode> {
    /// The service's code.
    pub code: C,
    /// HTTP status.
    pub status: StatusCode,
    /// Human-readable explanation (may change; clients branch on `code`).
    pub detail: String,
    /// The code's extra fields.
    pub extra: Map<String, Value>,
    /// Extra response headers.
    pub headers: Vec<(HeaderName, String)>,
}

impl<C: ProblemCode> Problem<C> {
    /// A problem with the code's usual status.
    pub fn new(code: C, detail: impl Into<String>) -> Self {
        let status = StatusCode::from_u16(code.info().status).unwrap_or(StatusCode::BAD_REQUEST);
        Problem { code, status, detail: detail.into(), extra: Map::new(), headers: Vec::new() }
    }

    /// A validation failure naming `field`.
    pub fn validation(field: &str, detail: impl Into<String>) -> Self {
        Problem::new(C::VALIDATION, detail).with("field", field)
    }

    /// Overrides the status (for codes with two statuses, and 413 validation failures).
    pub fn status(mut self, status: StatusCode) -> Self {
        self.status = status;
        self
    }

    /// Adds an extra field.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.extra.insert(key.to_owned(), value.into());
        self
    }

    /// Adds a response header.
    pub fn header(mut self, name: HeaderName, value: impl ToString) -> Self {
        self.headers.push((name, value.to_string()));
        self
    }

    /// The problem document.
    pub fn body(&self) -> Value {
        let info = self.code.info();
        let ctx = context::current();
        let mut doc = Map::new();
        doc.insert("type".into(), format!("{}{}#{}", ctx.base_url, C::ERRORS_PATH, info.name).into());
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

impl<C: ProblemCode> IntoResponse for Problem<C> {
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

/// Escapes text for HTML (and drops backticks, which the tables use for code spans).
pub fn escape_html(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('`', "")
}

/// The error reference page: `intro` (HTML) and one anchored section per code of `C`, styled
/// with `style` (CSS).
pub fn error_page<C: ProblemCode>(style: &str, intro: &str) -> String {
    let mut html = format!(
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>Error codes</title><style>{style}</style></head><body>\
         <h1>Error codes</h1>{intro}"
    );
    for code in C::all() {
        let i = code.info();
        let extras = if i.extras.is_empty() {
            "none".to_owned()
        } else {
            i.extras.iter().map(|e| format!("<code>{e}</code>")).collect::<Vec<_>>().join(", ")
        };
        let status = if i.statuses.is_empty() { i.status.to_string() } else { escape_html(i.statuses) };
        let _ = write!(
            html,
            "<section id=\"{name}\"><h2><a href=\"#{name}\">{name}</a></h2><p>{meaning}</p><dl><dt>Status</dt><dd>{status}</dd>\
             <dt>Title</dt><dd>{title}</dd><dt>Retry</dt><dd>{retry}</dd><dt>Extra fields</dt><dd>{extras}</dd></dl></section>",
            name = i.name,
            meaning = escape_html(i.meaning),
            title = escape_html(i.title),
            retry = escape_html(i.retry),
        );
    }
    html.push_str("</body></html>");
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Demo {
        Invalid,
        Gone,
    }

    impl ProblemCode for Demo {
        const ERRORS_PATH: &'static str = "/v9/errors";
        const VALIDATION: Demo = Demo::Invalid;
        fn all() -> &'static [Demo] {
            &[Demo::Invalid, Demo::Gone]
        }
        fn info(self) -> CodeInfo {
            let (name, status) = match self {
                Demo::Invalid => ("INVALID", 400),
                Demo::Gone => ("GONE", 410),
            };
            CodeInfo { name, status, statuses: "x", title: "T", meaning: "a <b>", retry: "No.", extras: &[] }
        }
    }

    #[tokio::test]
    async fn documents_carry_type_instance_and_extras() {
        let ctx =
            context::RequestContext { base_url: "http://svc".into(), path: "/v9/x".into(), request_id: "r".into() };
        let doc = context::scope(ctx, async {
            Problem::<Demo>::validation("name", "bad")
                .with("limit", 3)
                .header(HeaderName::from_static("retry-after"), 5)
                .body()
        })
        .await;
        assert_eq!(doc["type"], "http://svc/v9/errors#INVALID");
        assert_eq!(doc["instance"], "/v9/x");
        assert_eq!(
            (doc["status"].as_u64(), doc["field"].as_str(), doc["limit"].as_u64()),
            (Some(400), Some("name"), Some(3))
        );
        let response =
            Problem::new(Demo::Gone, "gone").header(HeaderName::from_static("retry-after"), 5).into_response();
        assert_eq!(response.status(), 410);
        assert_eq!(response.headers()["content-type"], "application/problem+json");
        assert_eq!(response.headers()["retry-after"], "5");
    }

    #[test]
    fn the_error_page_anchors_every_code_and_escapes_text() {
        let page = error_page::<Demo>("", "<p>intro</p>");
        assert!(page.contains("id=\"INVALID\"") && page.contains("id=\"GONE\""));
        assert!(page.contains("a &lt;b&gt;") && !page.contains("a <b>"));
    }
}
