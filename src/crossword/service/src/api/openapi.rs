//! The OpenAPI 3.1 description served at `/api/v1/openapi.json`.
//!
//! It is never a hand-kept copy: each endpoint module documents its own operations and schemas
//! (`words::document`, `fill::document`, `clues::document`, `meta::document`), from the same
//! constants its handlers read ([`IntField`](super::extract::IntField) and friends); this
//! module holds the skeleton (info, security, shared headers, the Problem schema) and the
//! helpers they share. Tests check that every `$ref` resolves, that every documented operation
//! is routed (over the real server) and that every documented bound is the one the handler
//! enforces (one below, one above, and at the bound).

use serde_json::{json, Map, Value};
use service_kit::problem::ProblemCode;

use super::error::Code;
use crossword_lang::{Language, PORTUGUESE_ALIAS};

/// The contract version, returned by GET /status.
pub const CONTRACT_VERSION: &str = "1.0.0";

/// The document, with `base_url` (no trailing slash) as the server.
pub fn document(base_url: &str) -> Value {
    let mut doc = json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Crossword construction service",
            "version": CONTRACT_VERSION,
            "description": DESCRIPTION,
            "license": { "name": "Apache-2.0 (code); word data CC BY-SA 4.0" }
        },
        "servers": [{ "url": format!("{base_url}/api/v1") }],
        "security": [{ "bearerAuth": [] }, { "apiKeyAuth": [] }],
        "paths": {},
        "components": {
            "securitySchemes": {
                "bearerAuth": { "type": "http", "scheme": "bearer", "description": "`Authorization: Bearer cw_live_...`" },
                "apiKeyAuth": { "type": "apiKey", "in": "header", "name": "X-Api-Key", "description": "Where `Authorization` is reserved." }
            },
            "headers": shared_headers(),
            "schemas": { "Problem": problem_schema() }
        }
    });
    super::meta::document(&mut doc);
    super::words::document(&mut doc);
    super::fill::document(&mut doc);
    super::clues::document(&mut doc);
    super::puzzles_doc::document(&mut doc);
    doc
}

const DESCRIPTION: &str = "Word search by pattern, clues, grid fill, and puzzle storage in 28 languages.\n\n\
    Authentication: send the key as `Authorization: Bearer <key>` or `X-Api-Key: <key>`, not both (both is a 401). \
    Keys are `cw_live_` followed by 32 letters and digits.\n\n\
    Limits are per account. Read responses carry `X-RateLimit-Limit` and `X-RateLimit-Remaining` for the account's \
    one-minute window (-1 means no limit); a 429 carries `Retry-After` and consumes nothing. GET /status and \
    GET /languages need no key and are limited per IP address (120 requests per minute by default; the operator \
    may change it).\n\n\
    Choices where the contract is silent: a problem document's `instance` is the request path; every response \
    carries `X-Request-Id` (an incoming one of up to 64 letters, digits, `-` and `_` is kept); request bodies \
    must be JSON objects of at most 1 MB (larger: 413 with `VALIDATION_ERROR`, `field` `body`); unknown body \
    fields and query parameters are ignored; a repeated query parameter takes its last value; GET /status is \
    `degraded` with an empty `languages` object when no word index can be served. `pattern` length is counted \
    in user-perceived characters (grapheme clusters).";

fn shared_headers() -> Value {
    json!({
        "RateLimitLimit": { "required": true, "description": "Requests allowed in the one-minute window (-1: no limit).", "schema": { "type": "integer" } },
        "RateLimitRemaining": { "required": true, "description": "Requests left in the window (-1: no limit).", "schema": { "type": "integer" } },
        "RetryAfter": { "required": true, "description": "Seconds until a retry can succeed.", "schema": { "type": "integer", "minimum": 1 } },
        "RequestId": { "description": "Identifies the request in the service's logs.", "schema": { "type": "string" } }
    })
}

fn problem_schema() -> Value {
    json!({
        "type": "object",
        "required": ["type", "title", "status", "code", "detail", "instance"],
        "properties": {
            "type": { "type": "string", "description": "The error reference page's address, ending in `#CODE`." },
            "title": { "type": "string" },
            "status": { "type": "integer" },
            "code": { "type": "string", "description": "Branch on this; unknown codes are generic failures of their status class.", "examples": Code::ALL.iter().map(|c| c.info().name).collect::<Vec<_>>() },
            "detail": { "type": "string" },
            "instance": { "type": "string", "description": "The request path." },
            "field": { "type": "string", "description": "VALIDATION_ERROR: the offending field." },
            "requiredScope": { "type": "string", "enum": ["read", "solve", "puzzles:write"] },
            "limit": { "type": "integer" },
            "remaining": { "type": "integer" },
            "maxGridSize": { "type": "integer" },
            "tier": { "type": "string", "enum": ["free", "starter", "partner", "patron"] },
            "upgradeUrl": { "type": "string" },
            "contact": { "type": "string" },
            "queued": { "type": "integer" },
            "missingClues": { "type": "array", "items": { "type": "string" }, "description": "VALIDATION_ERROR: finished answers without a clue (`7-across`)." },
            "row": { "type": "integer", "description": "VALIDATION_ERROR on a grid: row of the first bad cell." },
            "col": { "type": "integer", "description": "VALIDATION_ERROR on a grid: column of the first bad cell." }
        }
    })
}

/// Adds an operation under `paths[path][method]`.
pub fn add_operation(doc: &mut Value, path: &str, method: &str, operation: Value) {
    doc["paths"][path][method] = operation;
}

/// Adds schemas (an object of name to schema) under `components.schemas`.
pub fn add_schemas(doc: &mut Value, schemas: Value) {
    add_components(doc, "schemas", schemas);
}

/// Adds headers (an object of name to header) under `components.headers`.
pub fn add_headers(doc: &mut Value, headers: Value) {
    add_components(doc, "headers", headers);
}

fn add_components(doc: &mut Value, kind: &str, items: Value) {
    if let (Some(target), Value::Object(items)) = (doc["components"][kind].as_object_mut(), items) {
        target.extend(items);
    }
}

/// Every accepted language code (`pt-BR` too), for request enums.
pub fn language_codes() -> Vec<String> {
    let mut codes: Vec<String> = Language::all().map(|l| l.code().to_owned()).collect();
    codes.push(PORTUGUESE_ALIAS.to_owned());
    codes
}

/// The schema of a `language` request field or parameter (default `en`).
pub fn language_schema() -> Value {
    json!({ "type": "string", "enum": language_codes(), "default": "en" })
}

/// A problem response listing `codes`.
pub fn problem(description: &str, codes: &[Code]) -> Value {
    let names: Vec<&str> = codes.iter().map(|c| c.info().name).collect();
    json!({
        "description": format!("{description} Codes: {}.", names.join(", ")),
        "content": { "application/problem+json": { "schema": { "$ref": "#/components/schemas/Problem" } } }
    })
}

/// The window headers of a keyed response (and `X-Request-Id`).
pub fn rate_headers() -> Value {
    json!({
        "X-RateLimit-Limit": { "$ref": "#/components/headers/RateLimitLimit" },
        "X-RateLimit-Remaining": { "$ref": "#/components/headers/RateLimitRemaining" },
        "X-Request-Id": { "$ref": "#/components/headers/RequestId" }
    })
}

/// `response` with `headers`.
pub fn with_headers(mut response: Value, headers: Value) -> Value {
    response["headers"] = headers;
    response
}

/// A 200 response with `schema` (a component name) and `headers`.
pub fn ok(description: &str, schema: &str, headers: Value) -> Value {
    json!({
        "description": description,
        "headers": headers,
        "content": { "application/json": { "schema": { "$ref": format!("#/components/schemas/{schema}") } } }
    })
}

/// The object `a` with `b`'s members added (replacing equal names).
pub fn merge(mut a: Value, b: Value) -> Value {
    if let (Some(a), Value::Object(b)) = (a.as_object_mut(), b) {
        a.extend(b);
    }
    a
}

/// The failures of a `read` operation (`body`: it takes a request body, so 413 too).
pub fn read_errors(body: bool) -> Value {
    let mut r = json!({
        "400": problem("Invalid input: `field` names the parameter; or an unknown language code.", &[Code::ValidationError, Code::LanguageUnavailable]),
        "401": with_headers(problem("Missing, malformed, unknown or revoked key (not told apart).", &[Code::Unauthorized]), json!({"X-Request-Id": { "$ref": "#/components/headers/RequestId" }})),
        "403": problem("The key lacks the `read` scope.", &[Code::ForbiddenScope]),
        "429": with_headers(problem("The account's one-minute read window is full; nothing was consumed.", &[Code::RateLimited]), json!({
            "Retry-After": { "$ref": "#/components/headers/RetryAfter" },
            "X-RateLimit-Limit": { "$ref": "#/components/headers/RateLimitLimit" },
            "X-RateLimit-Remaining": { "$ref": "#/components/headers/RateLimitRemaining" }
        })),
        "503": problem("The language is real but its index cannot be loaded now (retry once after a few seconds), or storage is unavailable.", &[Code::LanguageUnavailable, Code::UpstreamUnavailable])
    });
    if body {
        r["413"] = problem("The body is larger than 1 MB (`field` is `body`).", &[Code::ValidationError]);
    }
    r
}

/// The failures every `solve` operation shares; operations add their own 403, 429 and 502.
pub fn solve_errors() -> Map<String, Value> {
    let r = json!({
        "400": problem("Invalid input (`field` names it; for a grid `detail`, `row` and `col` name the first bad cell), or an unknown language.", &[Code::ValidationError, Code::LanguageUnavailable]),
        "401": problem("Missing, malformed, unknown or revoked key.", &[Code::Unauthorized]),
        "403": problem("The key lacks the `solve` scope.", &[Code::ForbiddenScope]),
        "413": problem("The body is larger than 1 MB.", &[Code::ValidationError]),
        "429": with_headers(
            problem("The account's request window is full.", &[Code::RateLimited]),
            json!({ "Retry-After": { "$ref": "#/components/headers/RetryAfter" } }),
        ),
        "503": problem("The language's index cannot be loaded now, or storage is unavailable.", &[Code::LanguageUnavailable, Code::UpstreamUnavailable])
    });
    match r {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// The failure of an open (keyless) operation.
pub fn open_errors() -> Value {
    json!({
        "429": with_headers(problem("Too many requests from this IP address in the current minute.", &[Code::RateLimited]), json!({
            "Retry-After": { "$ref": "#/components/headers/RetryAfter" }
        }))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_ref_resolves_and_every_operation_is_unique() {
        let doc = document("http://x");
        assert_eq!(doc["openapi"], "3.1.0");
        let text = doc.to_string();
        for part in text.split("\"$ref\":\"#/").skip(1) {
            let pointer = format!("/{}", &part[..part.find('"').unwrap()]);
            assert!(doc.pointer(&pointer).is_some(), "dangling {pointer}");
        }
        let mut ids: Vec<&str> = Vec::new();
        for item in doc["paths"].as_object().unwrap().values() {
            for op in item.as_object().unwrap().values() {
                ids.push(op["operationId"].as_str().expect("every operation has an id"));
            }
        }
        let count = ids.len();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), count, "operation ids are unique");
        assert_eq!(count, 20, "the contract's 17 operations and three extensions (import, versions)");
    }
}
