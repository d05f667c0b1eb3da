//! Open endpoints and documentation: GET /status, GET /languages, the OpenAPI document, the
//! error reference page and the landing page.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{ConnectInfo, State};
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use axum::Json;
use crossword_lang::Language;
use serde_json::{json, Map, Value};

use super::auth::with_allowance;
use super::error::Code;
use super::openapi::{add_operation, add_schemas, merge, ok, open_errors, rate_headers, CONTRACT_VERSION};
use super::state::AppState;

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
            let mut entry = json!({ "available": s.available, "loaded": s.loaded });
            let (index, clues) = state.indexes.checksums(s.language);
            for (field, sum) in [("indexChecksum", index), ("cluesChecksum", clues)] {
                if let Some(sum) = sum {
                    entry[field] = json!(format!("xxh3:{sum:016x}"));
                }
            }
            languages.insert(s.language.code().into(), entry);
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

/// GET /languages: the 28 Language records.
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
    let mut response = Json(super::openapi::document(state.base_url())).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, "no-cache".parse().expect("static header"));
    response
}

const STYLE: &str =
    "body{font-family:system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem;line-height:1.5}\
code{background:#f3f3f3;padding:0 .2em}section{border-top:1px solid #ddd;padding:.5rem 0}:target{background:#fffbe6}";

/// GET /errors: one anchor per error code.
pub async fn errors_page() -> Html<String> {
    Html(service_kit::problem::error_page::<Code>(
        STYLE,
        "<p>Every failure is an <code>application/problem+json</code> document with <code>type</code>, \
         <code>title</code>, <code>status</code>, <code>code</code>, <code>detail</code> and <code>instance</code>, \
         plus the code's extra fields. Branch on <code>code</code>; <code>detail</code> is prose and may change. \
         Treat an unknown code as a generic failure of its status class.</p>",
    ))
}

/// GET /: a small landing page linking the documentation.
pub async fn landing() -> Html<String> {
    Html(format!(
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>Crossword construction service</title><style>{STYLE}</style></head><body>\
         <h1>Crossword construction service</h1><p>Word search by pattern in 28 languages, clues, grid fill, and puzzles. \
         API version {CONTRACT_VERSION}, base URL <code>/api/v1</code>.</p><ul>\
         <li><a href=\"/api/v1/openapi.json\">OpenAPI 3.1 description</a></li>\
         <li><a href=\"/api/v1/errors\">Error codes</a></li>\
         <li><a href=\"/api/v1/status\">Status</a> and <a href=\"/api/v1/languages\">languages</a></li></ul>\
         <p>Word lists derive from wordfreq data (CC BY-SA 4.0) and WordNet (Princeton University); see the project's SOURCES.</p></body></html>"
    ))
}

/// GET /status and GET /languages, and their schemas.
pub fn document(doc: &mut Value) {
    let language_codes: Vec<&str> = Language::all().map(|l| l.code()).collect();
    add_operation(
        doc,
        "/status",
        "get",
        json!({
            "operationId": "getStatus", "summary": "Service and language status", "security": [],
            "description": "No key. Limited per IP address. 200 even when the solver is down (then `degraded`).",
            "responses": merge(json!({ "200": ok("Status.", "Status", rate_headers()) }), open_errors())
        }),
    );
    add_operation(
        doc,
        "/languages",
        "get",
        json!({
            "operationId": "listLanguages", "summary": "The puzzle languages", "security": [],
            "description": "No key. Limited per IP address.",
            "responses": merge(json!({ "200": ok("The 28 languages (29 codes with the `pt-BR` alias).", "Languages", rate_headers()) }), open_errors())
        }),
    );
    add_schemas(
        doc,
        json!({
            "LanguageState": {
                "type": "object", "required": ["available", "loaded"],
                "description": "Beyond the contract, `indexChecksum` and `cluesChecksum` identify the language's index and clue files (the XXH3-64 checksum in each file's footer): nodes behind one load balancer must report the same values. Absent while a file is missing or not yet unpacked.",
                "properties": {
                    "available": { "type": "boolean" },
                    "loaded": { "type": "boolean" },
                    "indexChecksum": { "type": "string", "pattern": "^xxh3:[0-9a-f]{16}$" },
                    "cluesChecksum": { "type": "string", "pattern": "^xxh3:[0-9a-f]{16}$" }
                }
            },
            "Status": {
                "type": "object", "required": ["status", "version", "languages"],
                "properties": {
                    "status": { "type": "string", "enum": ["ok", "degraded"] },
                    "version": { "type": "string", "const": CONTRACT_VERSION },
                    "languages": { "type": "object", "propertyNames": { "enum": language_codes }, "additionalProperties": { "$ref": "#/components/schemas/LanguageState" } }
                }
            },
            "Language": {
                "type": "object",
                "required": ["code", "name", "nativeName", "available", "crissCrossOnly", "rtl", "puzExportable", "minSlotLength"],
                "properties": {
                    "code": { "type": "string", "enum": language_codes },
                    "name": { "type": "string" },
                    "nativeName": { "type": "string" },
                    "available": { "type": "boolean" },
                    "crissCrossOnly": { "type": "boolean" },
                    "rtl": { "type": "boolean" },
                    "puzExportable": { "type": "boolean" },
                    "minSlotLength": { "type": "integer", "minimum": 2, "maximum": 3 }
                }
            },
            "Languages": {
                "type": "object", "required": ["languages"],
                "properties": { "languages": { "type": "array", "items": { "$ref": "#/components/schemas/Language" } } }
            }
        }),
    );
}
