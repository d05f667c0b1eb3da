//! Open endpoints and documentation: GET /status, GET /languages, the OpenAPI document, the
//! error reference page and the landing page.

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{ConnectInfo, State};
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use axum::Json;
use serde_json::{json, Map, Value};

use super::error::Code;
use super::{with_allowance, AppState, CONTRACT_VERSION};
use crate::lang::Language;

/// GET /status: per-language availability. `degraded` (with no languages) when no word index
/// can be served at all.
pub async fn status(State(state): State<Arc<AppState>>, ConnectInfo(peer): ConnectInfo<SocketAddr>) -> Response {
    let allowance = match state.count_open(peer.ip()) {
        Ok(a) => a,
        Err(e) => return e.into_response(),
    };
    let statuses = state.indexes.status();
    let any = statuses.iter().any(|s| s.available);
    let mut languages = Map::new();
    if any {
        for s in statuses {
            languages.insert(s.language.code().into(), json!({ "available": s.available, "loaded": s.loaded }));
        }
    }
    let body =
        json!({ "status": if any { "ok" } else { "degraded" }, "version": CONTRACT_VERSION, "languages": languages });
    with_allowance(allowance, Json(body))
}

/// The contract's Language record.
pub fn language_record(language: Language, available: bool) -> Value {
    let s = language.spec();
    json!({
        "code": s.code,
        "name": s.name,
        "nativeName": s.native_name,
        "available": available,
        "crissCrossOnly": s.criss_cross_only,
        "rtl": s.rtl,
        "puzExportable": s.puz_exportable,
        "minSlotLength": s.min_slot_length,
    })
}

/// GET /languages: the 24 Language records.
pub async fn languages(State(state): State<Arc<AppState>>, ConnectInfo(peer): ConnectInfo<SocketAddr>) -> Response {
    let allowance = match state.count_open(peer.ip()) {
        Ok(a) => a,
        Err(e) => return e.into_response(),
    };
    let records: Vec<Value> = Language::all().map(|l| language_record(l, state.indexes.is_available(l))).collect();
    with_allowance(allowance, Json(json!({ "languages": records })))
}

/// GET /openapi.json.
pub async fn openapi(State(state): State<Arc<AppState>>) -> Response {
    let mut response = Json(super::openapi::document(&state.base_url)).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, "no-cache".parse().expect("static header"));
    response
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('`', "")
}

const STYLE: &str =
    "body{font-family:system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem;line-height:1.5}\
code{background:#f3f3f3;padding:0 .2em}section{border-top:1px solid #ddd;padding:.5rem 0}:target{background:#fffbe6}";

/// GET /errors: one anchor per error code.
pub async fn errors_page() -> Html<String> {
    let mut html = format!(
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>Error codes</title><style>{STYLE}</style></head><body>\
         <h1>Error codes</h1><p>Every failure is an <code>application/problem+json</code> document with \
         <code>type</code>, <code>title</code>, <code>status</code>, <code>code</code>, <code>detail</code> and \
         <code>instance</code>, plus the code's extra fields. Branch on <code>code</code>; <code>detail</code> is prose and \
         may change. Treat an unknown code as a generic failure of its status class.</p>"
    );
    for code in Code::ALL {
        let i = code.info();
        let status = match code {
            Code::LanguageUnavailable => "400 or 503".to_owned(),
            Code::UpstreamUnavailable => "502 or 503".to_owned(),
            Code::ValidationError => "400 (413 for a body over 1 MB)".to_owned(),
            _ => i.status.to_string(),
        };
        let extras = if i.extras.is_empty() {
            "none".to_owned()
        } else {
            i.extras.iter().map(|e| format!("<code>{e}</code>")).collect::<Vec<_>>().join(", ")
        };
        let _ = write!(
            html,
            "<section id=\"{name}\"><h2><a href=\"#{name}\">{name}</a></h2><p>{meaning}</p><dl><dt>Status</dt><dd>{status}</dd>\
             <dt>Title</dt><dd>{title}</dd><dt>Retry</dt><dd>{retry}</dd><dt>Extra fields</dt><dd>{extras}</dd></dl></section>",
            name = i.name,
            meaning = escape(i.meaning),
            title = escape(i.title),
            retry = escape(i.retry),
        );
    }
    html.push_str("</body></html>");
    Html(html)
}

/// GET /: a small landing page linking the documentation.
pub async fn landing() -> Html<String> {
    Html(format!(
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>Crossword construction service</title><style>{STYLE}</style></head><body>\
         <h1>Crossword construction service</h1><p>Word search by pattern in 24 languages, clues, grid fill, and puzzles. \
         API version {CONTRACT_VERSION}, base URL <code>/api/v1</code>.</p><ul>\
         <li><a href=\"/api/v1/openapi.json\">OpenAPI 3.1 description</a></li>\
         <li><a href=\"/api/v1/errors\">Error codes</a></li>\
         <li><a href=\"/api/v1/status\">Status</a> and <a href=\"/api/v1/languages\">languages</a></li></ul>\
         <p>Word lists derive from wordfreq data (CC BY-SA 4.0) and WordNet (Princeton University); see the project's SOURCES.</p></body></html>"
    ))
}
