//! The OpenAPI 3.1 description served at `/api/v1/openapi.json`, built from the same constants
//! the handlers use (codes, limits, language list). [`OPERATIONS`] lists every documented
//! operation; a test checks it against the document and the integration tests check that each
//! one is routed, so the document and the router cannot drift apart silently.

use serde_json::{json, Value};

use super::error::Code;
use crate::lang::{Language, PORTUGUESE_ALIAS};

/// Every documented operation: (method, path under `/api/v1`).
pub const OPERATIONS: &[(&str, &str)] = &[
    ("get", "/status"),
    ("get", "/languages"),
    ("get", "/words"),
    ("post", "/words/scores"),
    ("post", "/fill"),
    ("post", "/fill/cancel"),
    ("post", "/fill/improve"),
    ("get", "/clues/{word}"),
    ("post", "/clues/bulk"),
    ("post", "/clues/generate"),
];

fn problem(description: &str, codes: &[Code]) -> Value {
    let names: Vec<&str> = codes.iter().map(|c| c.info().name).collect();
    json!({
        "description": format!("{description} Codes: {}.", names.join(", ")),
        "content": { "application/problem+json": { "schema": { "$ref": "#/components/schemas/Problem" } } }
    })
}

fn rate_headers(required: bool) -> Value {
    json!({
        "X-RateLimit-Limit": { "$ref": if required { "#/components/headers/RateLimitLimit" } else { "#/components/headers/RateLimitLimitOptional" } },
        "X-RateLimit-Remaining": { "$ref": if required { "#/components/headers/RateLimitRemaining" } else { "#/components/headers/RateLimitRemainingOptional" } },
        "X-Request-Id": { "$ref": "#/components/headers/RequestId" }
    })
}

fn with_headers(mut response: Value, headers: Value) -> Value {
    response["headers"] = headers;
    response
}

fn read_errors(body: bool) -> Value {
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

fn solve_errors(quota: bool) -> Value {
    let mut r = json!({
        "400": problem("Invalid input (`field` names it; for a grid `detail`, `row` and `col` name the first bad cell), or an unknown language.", &[Code::ValidationError, Code::LanguageUnavailable]),
        "401": problem("Missing, malformed, unknown or revoked key.", &[Code::Unauthorized]),
        "403": problem("The key lacks the `solve` scope, or the grid is larger than the plan allows.", &[Code::ForbiddenScope, Code::GridSizeLocked]),
        "413": problem("The body is larger than 1 MB.", &[Code::ValidationError]),
        "429": with_headers(problem("The account's request window is full, its monthly fills are used up, or the solver is busy (two fills per account; nothing queued or charged).", &[Code::RateLimited, Code::FillQuotaReached, Code::SolverBusy]), json!({
            "Retry-After": { "$ref": "#/components/headers/RetryAfterOptional" },
            "X-Fill-Quota-Remaining": { "$ref": "#/components/headers/FillQuotaRemainingOptional" }
        })),
        "502": problem("The solver failed; nothing was charged.", &[Code::UpstreamUnavailable]),
        "503": problem("The language's index cannot be loaded now, or storage is unavailable.", &[Code::LanguageUnavailable, Code::UpstreamUnavailable])
    });
    if !quota {
        if let Some(o) = r.as_object_mut() {
            o.remove("403");
            o.remove("502");
            o.insert("403".into(), problem("The key lacks the `solve` scope.", &[Code::ForbiddenScope]));
            o.insert(
                "429".into(),
                with_headers(
                    problem("The account's request window is full.", &[Code::RateLimited]),
                    json!({ "Retry-After": { "$ref": "#/components/headers/RetryAfterOptional" } }),
                ),
            );
        }
    }
    r
}

fn open_errors() -> Value {
    json!({
        "429": with_headers(problem("Too many requests from this IP address in the current minute.", &[Code::RateLimited]), json!({
            "Retry-After": { "$ref": "#/components/headers/RetryAfter" }
        }))
    })
}

fn merge(mut a: Value, b: Value) -> Value {
    if let (Some(a), Value::Object(b)) = (a.as_object_mut(), b) {
        a.extend(b);
    }
    a
}

/// The document, with `base_url` (no trailing slash) as the server.
pub fn document(base_url: &str) -> Value {
    let mut codes: Vec<String> = Language::all().map(|l| l.code().to_owned()).collect();
    codes.push(PORTUGUESE_ALIAS.to_owned());
    let language_codes: Vec<&str> = Language::all().map(|l| l.code()).collect();
    let security = json!([{ "bearerAuth": [] }, { "apiKeyAuth": [] }]);
    let mut doc = json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Crossword construction service",
            "version": super::CONTRACT_VERSION,
            "description": "Word search by pattern, clues, grid fill, and puzzle storage in 24 languages.\n\n\
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
                in user-perceived characters (grapheme clusters).",
            "license": { "name": "Apache-2.0 (code); word data CC BY-SA 4.0" }
        },
        "servers": [{ "url": format!("{base_url}/api/v1") }],
        "security": security,
        "paths": {
            "/status": { "get": {
                "operationId": "getStatus", "summary": "Service and language status", "security": [],
                "description": "No key. Limited per IP address. 200 even when the solver is down (then `degraded`).",
                "responses": merge(json!({ "200": {
                    "description": "Status.",
                    "headers": rate_headers(true),
                    "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Status" } } }
                }}), open_errors())
            }},
            "/languages": { "get": {
                "operationId": "listLanguages", "summary": "The puzzle languages", "security": [],
                "description": "No key. Limited per IP address.",
                "responses": merge(json!({ "200": {
                    "description": "The 24 languages.",
                    "headers": rate_headers(true),
                    "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Languages" } } }
                }}), open_errors())
            }},
            "/words": { "get": {
                "operationId": "searchWords", "summary": "Words matching a pattern, best first",
                "description": "Scope `read`. At most 100 results; the full list cannot be downloaded.",
                "parameters": [
                    { "name": "pattern", "in": "query", "required": true, "description": "1 to 23 characters; `_` or `?` is an unknown cell; other characters are normalized for the language (upper-cased, accents folded).", "schema": { "type": "string", "minLength": 1, "maxLength": 23 }, "examples": { "english": { "value": "C_T" }, "wildcards": { "value": "S?A?E" }, "russian": { "value": "Л_НА" } } },
                    { "name": "lang", "in": "query", "required": false, "description": "Language code (`pt-BR` is answered as `pt`).", "schema": { "type": "string", "enum": codes, "default": "en" } },
                    { "name": "min_score", "in": "query", "required": false, "description": "Drops entries scoring below.", "schema": { "type": "integer", "minimum": 0, "maximum": 1000, "default": 0 } },
                    { "name": "limit", "in": "query", "required": false, "schema": { "type": "integer", "minimum": 1, "maximum": 100, "default": 50 } }
                ],
                "responses": merge(json!({ "200": {
                    "description": "Matching entries, highest score first.",
                    "headers": rate_headers(true),
                    "content": { "application/json": { "schema": { "$ref": "#/components/schemas/WordList" } } }
                }}), read_errors(false))
            }},
            "/fill": { "post": {
                "operationId": "fillGrid", "summary": "Fill a grid",
                "description": "Scope `solve`. Returns 200 whether or not the grid is solved: complete when `slotsFilled` equals `slotsTotal`; a best partial fill when no complete one was found in time; `reason` only when no cell was filled. Consumes one monthly fill even when nothing is found. With `Accept: text/event-stream` the response is a stream of `data:` frames: `session`, zero or more `progress`, then `complete` or `error`. A client that disconnects cancels its fill. Also counts against the account's one-minute request window.",
                "parameters": [{ "name": "Accept", "in": "header", "required": false, "schema": { "type": "string", "enum": ["application/json", "text/event-stream"], "default": "application/json" } }],
                "requestBody": { "required": true, "content": { "application/json": {
                    "schema": { "$ref": "#/components/schemas/FillRequest" },
                    "examples": { "mini": { "value": { "grid": ["c....", ".....", ".....", ".....", "....."], "min_score": 40, "max_time": 5 } } }
                } } },
                "responses": merge(json!({ "200": {
                    "description": "The fill result (JSON) or the event stream.",
                    "headers": merge(rate_headers(true), json!({
                        "X-Fill-Session-Id": { "$ref": "#/components/headers/FillSessionId" },
                        "X-Fill-Quota-Remaining": { "$ref": "#/components/headers/FillQuotaRemaining" }
                    })),
                    "content": {
                        "application/json": { "schema": { "$ref": "#/components/schemas/FillResult" } },
                        "text/event-stream": { "schema": {
                            "type": "object", "required": ["data"],
                            "description": "One server-sent event: a `data:` line holding a FillEvent as JSON (no `event:` name, so clients see `message`).",
                            "properties": {
                                "data": { "type": "string", "contentMediaType": "application/json", "contentSchema": { "$ref": "#/components/schemas/FillEvent" } },
                                "event": { "type": "string" },
                                "id": { "type": "string" },
                                "retry": { "type": "integer" }
                            }
                        } }
                    }
                }}), solve_errors(true))
            }},
            "/fill/cancel": { "post": {
                "operationId": "cancelFill", "summary": "Stop a fill",
                "description": "Scope `solve`. Accepts `session_id` or `sessionId`. A finished, unknown or other account's id returns 200 with `cancelled: false` and changes nothing.",
                "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/CancelRequest" } } } },
                "responses": merge(json!({ "200": {
                    "description": "Whether a running fill was stopped.",
                    "headers": rate_headers(true),
                    "content": { "application/json": { "schema": { "$ref": "#/components/schemas/CancelResult" } } }
                }}), solve_errors(false))
            }},
            "/fill/improve": { "post": {
                "operationId": "improveFill", "summary": "Replace weak entries",
                "description": "Scope `solve`. Black cells, `locked` cells and entries unknown to the word list (the caller's own content) never change; many words may change at once. `improved: false` means the fill was already clean or its weak entries cannot be changed (then `grid` is absent). Counts as one monthly fill.",
                "requestBody": { "required": true, "content": { "application/json": {
                    "schema": { "$ref": "#/components/schemas/ImproveRequest" },
                    "examples": { "weak": { "value": { "grid": ["CAB", "ODE", "WET"], "locked": ["0,0"], "max_time": 2 } } }
                } } },
                "responses": merge(json!({ "200": {
                    "description": "The clean-up result.",
                    "headers": merge(rate_headers(true), json!({ "X-Fill-Quota-Remaining": { "$ref": "#/components/headers/FillQuotaRemaining" } })),
                    "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ImproveResult" } } }
                }}), solve_errors(true))
            }},
            "/words/scores": { "post": {
                "operationId": "scoreWords", "summary": "Scores of known words",
                "description": "Scope `read`. Unknown words are omitted (not scored 0); keys are the normalized words.",
                "requestBody": { "required": true, "content": { "application/json": {
                    "schema": { "$ref": "#/components/schemas/ScoresRequest" },
                    "examples": { "english": { "value": { "words": ["cat", "ice cream", "zzyzx"], "language": "en" } } }
                } } },
                "responses": merge(json!({ "200": {
                    "description": "Scores of the known words.",
                    "headers": rate_headers(true),
                    "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Scores" } } }
                }}), read_errors(true))
            }}
        },
        "components": {
            "securitySchemes": {
                "bearerAuth": { "type": "http", "scheme": "bearer", "description": "`Authorization: Bearer cw_live_...`" },
                "apiKeyAuth": { "type": "apiKey", "in": "header", "name": "X-Api-Key", "description": "Where `Authorization` is reserved." }
            },
            "headers": {
                "RateLimitLimit": { "required": true, "description": "Requests allowed in the one-minute window (-1: no limit).", "schema": { "type": "integer" } },
                "RateLimitRemaining": { "required": true, "description": "Requests left in the window (-1: no limit).", "schema": { "type": "integer" } },
                "RateLimitLimitOptional": { "description": "Requests allowed in the one-minute window (-1: no limit).", "schema": { "type": "integer" } },
                "RateLimitRemainingOptional": { "description": "Requests left in the window (-1: no limit).", "schema": { "type": "integer" } },
                "RetryAfter": { "required": true, "description": "Seconds until a retry can succeed.", "schema": { "type": "integer", "minimum": 1 } },
                "RequestId": { "description": "Identifies the request in the service's logs.", "schema": { "type": "string" } },
                "RetryAfterOptional": { "description": "Seconds until a retry can succeed (present on RATE_LIMITED and SOLVER_BUSY).", "schema": { "type": "integer", "minimum": 1 } },
                "FillSessionId": { "required": true, "description": "The fill's cancel handle.", "schema": { "type": "string" } },
                "FillQuotaRemaining": { "required": true, "description": "Fills left this month after this one (-1: no limit).", "schema": { "type": "integer" } },
                "FillQuotaRemainingOptional": { "description": "Fills left this month (-1: no limit).", "schema": { "type": "integer" } }
            },
            "schemas": {
                "Problem": {
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
                        "row": { "type": "integer", "description": "VALIDATION_ERROR on a grid: row of the first bad cell." },
                        "col": { "type": "integer", "description": "VALIDATION_ERROR on a grid: column of the first bad cell." }
                    }
                },
                "WordEntry": {
                    "type": "object", "required": ["word", "score"],
                    "properties": {
                        "word": { "type": "string", "description": "Entry normalized for its language." },
                        "score": { "type": "integer", "minimum": 0, "maximum": 100, "description": "40 or more is usually good for a clean fill." }
                    }
                },
                "WordList": {
                    "type": "object", "required": ["words"],
                    "properties": { "words": { "type": "array", "maxItems": 100, "items": { "$ref": "#/components/schemas/WordEntry" } } }
                },
                "ScoresRequest": {
                    "type": "object", "required": ["words"],
                    "properties": {
                        "words": { "type": "array", "minItems": 1, "maxItems": 200, "items": { "type": "string" } },
                        "language": { "type": "string", "enum": codes, "default": "en" }
                    }
                },
                "Scores": {
                    "type": "object", "required": ["scores"],
                    "properties": { "scores": { "type": "object", "additionalProperties": { "type": "integer", "minimum": 0, "maximum": 100 } } }
                },
                "Grid": {
                    "type": "array", "minItems": 3, "maxItems": 23,
                    "description": "Rows, top first: `.` empty, `#` block, any other character a fixed letter (counted as user-perceived characters; normalized for the language). Square: as many cells per row as rows.",
                    "items": { "type": "string" }
                },
                "Rough": {
                    "type": "object", "required": ["word", "score", "row", "col", "number", "direction"],
                    "properties": {
                        "word": { "type": "string" }, "score": { "type": "integer" }, "row": { "type": "integer" }, "col": { "type": "integer" },
                        "number": { "type": "integer" }, "direction": { "type": "string", "enum": ["across", "down"] }
                    }
                },
                "Quality": {
                    "type": "object", "required": ["scored", "rough"],
                    "description": "`scored` counts complete entries known to the word list; entries it does not know are the caller's content and are not scored.",
                    "properties": { "scored": { "type": "integer" }, "rough": { "type": "array", "items": { "$ref": "#/components/schemas/Rough" } } }
                },
                "FillRequest": {
                    "type": "object", "required": ["grid"],
                    "properties": {
                        "grid": { "$ref": "#/components/schemas/Grid" },
                        "min_score": { "type": "integer", "minimum": 0, "maximum": 1000, "default": 40, "description": "Quality goal; the solver may go lower on hard grids (see quality.rough)." },
                        "max_time": { "type": "number", "minimum": 1, "maximum": 30, "default": 25 },
                        "language": { "type": "string", "enum": codes, "default": "en" },
                        "try_hard_grid": { "type": "boolean", "default": false },
                        "seed": { "type": "integer", "minimum": 0, "description": "Extension: variety on demand; the same seed gives the same fill. Without it fills are deterministic." }
                    }
                },
                "FillResult": {
                    "type": "object", "required": ["grid", "slotsFilled", "slotsTotal", "quality"],
                    "properties": {
                        "grid": { "type": "array", "items": { "type": "string" } },
                        "slotsFilled": { "type": "integer" }, "slotsTotal": { "type": "integer" },
                        "quality": { "$ref": "#/components/schemas/Quality" },
                        "reason": { "type": "string", "enum": ["too_difficult", "no_solution", "cancelled"] },
                        "sessionId": { "type": "string" }
                    }
                },
                "FillEvent": {
                    "type": "object", "required": ["type"],
                    "description": "One `data:` frame of the stream. `progress.fill` maps `row,col` to a letter; a later progress event may show fewer cells (the solver backed up). `error.reason` is too_difficult, no_solution, cancelled or upstream_unavailable.",
                    "properties": {
                        "type": { "type": "string", "enum": ["session", "progress", "complete", "error"] },
                        "sessionId": { "type": "string" }, "filled": { "type": "integer" }, "total": { "type": "integer" },
                        "fill": { "type": "object", "additionalProperties": { "type": "string" } },
                        "grid": { "type": "array", "items": { "type": "string" } }, "slotsFilled": { "type": "integer" }, "slotsTotal": { "type": "integer" },
                        "quality": { "$ref": "#/components/schemas/Quality" }, "reason": { "type": "string" }
                    }
                },
                "CancelRequest": {
                    "type": "object",
                    "properties": {
                        "session_id": { "type": "string", "minLength": 1, "maxLength": 128 },
                        "sessionId": { "type": "string", "minLength": 1, "maxLength": 128, "description": "Accepted spelling of `session_id`." }
                    }
                },
                "CancelResult": {
                    "type": "object", "required": ["cancelled", "sessionId"],
                    "properties": { "cancelled": { "type": "boolean" }, "sessionId": { "type": "string" } }
                },
                "ImproveRequest": {
                    "type": "object", "required": ["grid"],
                    "properties": {
                        "grid": { "$ref": "#/components/schemas/Grid" },
                        "locked": { "type": "array", "maxItems": 529, "items": { "type": "string", "pattern": "^[0-9]+,[0-9]+$" }, "description": "Cells `row,col` (zero-based) that must not change." },
                        "language": { "type": "string", "enum": codes, "default": "en" },
                        "max_time": { "type": "number", "minimum": 1, "maximum": 30, "default": 25 }
                    }
                },
                "ImproveResult": {
                    "type": "object", "required": ["improved", "quality"],
                    "properties": {
                        "improved": { "type": "boolean" }, "replaced": { "type": "integer" },
                        "grid": { "type": "array", "items": { "type": "string" } },
                        "quality": { "$ref": "#/components/schemas/Quality" }
                    }
                },
                "LanguageState": {
                    "type": "object", "required": ["available", "loaded"],
                    "properties": { "available": { "type": "boolean" }, "loaded": { "type": "boolean" } }
                },
                "Status": {
                    "type": "object", "required": ["status", "version", "languages"],
                    "properties": {
                        "status": { "type": "string", "enum": ["ok", "degraded"] },
                        "version": { "type": "string", "const": super::CONTRACT_VERSION },
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
            }
        }
    });
    add_clue_operations(&mut doc, &codes);
    doc
}

/// GET /clues/{word}, POST /clues/bulk, POST /clues/generate and their schemas.
fn add_clue_operations(doc: &mut Value, codes: &[String]) {
    let ranking = "Ranking, best first: `published` by `pubCount`, then `original` by uses on this service, then \
        `dictionary` (most common sense first), then `ai` by uses. Repeats (same text ignoring case, accents, spacing and \
        punctuation) are removed, and clues that contain the answer (as a word, the start of a word, or spread over \
        adjacent words) are dropped.";
    doc["paths"]["/clues/{word}"] = json!({ "get": {
        "operationId": "getClues", "summary": "Clues for an answer, best first",
        "description": format!("Scope `read`. The word is normalized like any answer (upper-cased, accents folded for the language, spaces and hyphens dropped). An answer with no clues returns an empty list. {ranking} A language without a clue collection answers empty lists."),
        "parameters": [
            { "name": "word", "in": "path", "required": true, "description": "1 to 23 characters (user-perceived characters).", "schema": { "type": "string", "minLength": 1, "maxLength": 23 }, "examples": { "english": { "value": "ice" }, "phrase": { "value": "ice cream" } } },
            { "name": "language", "in": "query", "required": false, "schema": { "type": "string", "enum": codes, "default": "en" } },
            { "name": "limit", "in": "query", "required": false, "schema": { "type": "integer", "minimum": 1, "maximum": 50, "default": 10 } }
        ],
        "responses": merge(json!({ "200": {
            "description": "The clues, best first.",
            "headers": rate_headers(true),
            "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ClueList" } } }
        }}), read_errors(false))
    }});
    doc["paths"]["/clues/bulk"] = json!({ "post": {
        "operationId": "getCluesBulk", "summary": "Clues for many answers",
        "description": format!("Scope `read`. Keys are the normalized answers (a repeated answer appears once); answers without clues are omitted; at most five clues each. Every word must be a valid answer of the language (1 to 23 characters, letters of its alphabet), else 400 with `field` `words[i]`. {ranking}"),
        "requestBody": { "required": true, "content": { "application/json": {
            "schema": { "$ref": "#/components/schemas/BulkCluesRequest" },
            "examples": { "english": { "value": { "words": ["ice", "oak", "ice cream"], "language": "en" } } }
        } } },
        "responses": merge(json!({ "200": {
            "description": "Clues per normalized answer.",
            "headers": rate_headers(true),
            "content": { "application/json": { "schema": { "$ref": "#/components/schemas/BulkClues" } } }
        }}), read_errors(true))
    }});
    let mut generate_errors = solve_errors(false);
    generate_errors["403"] = problem(
        "The key lacks the `solve` scope, or the account is on the free plan (its AI clue allowance is zero).",
        &[Code::ForbiddenScope, Code::MembersOnly],
    );
    generate_errors["429"] = with_headers(problem("The account's request window is full, or its monthly AI clue requests are used up (refills on the first of the month, UTC; `Retry-After` gives the seconds until then).", &[Code::RateLimited, Code::AiQuotaReached]), json!({
        "Retry-After": { "$ref": "#/components/headers/RetryAfter" },
        "X-Ai-Clues-Remaining": { "$ref": "#/components/headers/AiCluesRemainingOptional" }
    }));
    generate_errors["502"] = problem(
        "The clue generator (a configured model server) failed or timed out; nothing was charged.",
        &[Code::UpstreamUnavailable],
    );
    generate_errors["413"] = problem("The body is larger than 1 MB.", &[Code::ValidationError]);
    doc["paths"]["/clues/generate"] = json!({ "post": {
        "operationId": "generateClues", "summary": "New clues for an answer, with proof tokens",
        "description": "Scope `solve`; paid plans only. Each request takes one AI clue request from the monthly quota (whatever `count`); a request that produces no clue (nothing known about the answer) returns an empty list and is not charged. Each clue carries a `token` proving this service generated exactly that text for that answer and language; keep it with the clue when publishing. Nothing is saved. Clues come from the operator's model server when one is configured, else from the built-in generator, which composes them from the language's dictionary data (broader terms, synonym pairs, opposites, shortened definitions). Also counts against the account's one-minute request window.",
        "requestBody": { "required": true, "content": { "application/json": {
            "schema": { "$ref": "#/components/schemas/GenerateCluesRequest" },
            "examples": { "english": { "value": { "word": "oak", "count": 3, "language": "en" } } }
        } } },
        "responses": merge(json!({ "200": {
            "description": "Generated clues (source `ai`, each with a `token`) and the balance.",
            "headers": merge(rate_headers(true), json!({ "X-Ai-Clues-Remaining": { "$ref": "#/components/headers/AiCluesRemaining" } })),
            "content": { "application/json": { "schema": { "$ref": "#/components/schemas/GeneratedClues" } } }
        }}), generate_errors)
    }});
    let headers = &mut doc["components"]["headers"];
    headers["AiCluesRemaining"] = json!({ "required": true, "description": "AI clue requests left this month (-1: no limit).", "schema": { "type": "integer" } });
    headers["AiCluesRemainingOptional"] = json!({ "description": "AI clue requests left this month (0 on AI_QUOTA_REACHED).", "schema": { "type": "integer" } });
    let schemas = &mut doc["components"]["schemas"];
    schemas["Clue"] = json!({
        "type": "object", "required": ["text", "source", "pubCount"],
        "properties": {
            "text": { "type": "string", "minLength": 0, "maxLength": 150 },
            "source": { "type": "string", "enum": ["published", "dictionary", "original", "ai"] },
            "pubCount": { "type": "integer", "minimum": 0, "description": "Times a published clue appeared in print; 0 for other sources." },
            "token": { "type": "string", "description": "Present only on a new, unsaved `ai` clue: `v1.` and an HMAC-SHA256 (base64url) over language, answer and text under the server's secret." }
        }
    });
    schemas["ClueList"] = json!({
        "type": "object", "required": ["clues"],
        "properties": { "clues": { "type": "array", "maxItems": 50, "items": { "$ref": "#/components/schemas/Clue" } } }
    });
    schemas["BulkCluesRequest"] = json!({
        "type": "object", "required": ["words"],
        "properties": {
            "words": { "type": "array", "minItems": 1, "maxItems": 500, "items": { "type": "string", "minLength": 1, "maxLength": 23 } },
            "language": { "type": "string", "enum": codes, "default": "en" }
        }
    });
    schemas["BulkClues"] = json!({
        "type": "object", "required": ["clues"],
        "properties": { "clues": { "type": "object", "additionalProperties": { "type": "array", "minItems": 1, "maxItems": 5, "items": { "$ref": "#/components/schemas/Clue" } } } }
    });
    schemas["GenerateCluesRequest"] = json!({
        "type": "object", "required": ["word"],
        "properties": {
            "word": { "type": "string", "minLength": 2, "maxLength": 23 },
            "count": { "type": "integer", "minimum": 1, "maximum": 10, "default": 5 },
            "language": { "type": "string", "enum": codes, "default": "en" }
        }
    });
    schemas["GeneratedClues"] = json!({
        "type": "object", "required": ["clues", "remaining"],
        "properties": {
            "clues": { "type": "array", "maxItems": 10, "items": { "allOf": [{ "$ref": "#/components/schemas/Clue" }, { "required": ["token"] }] } },
            "remaining": { "type": "integer", "description": "AI clue requests left this month (-1: no limit)." }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn document_lists_exactly_the_operations() {
        let doc = document("http://x");
        let mut documented: Vec<(String, String)> = Vec::new();
        for (path, item) in doc["paths"].as_object().unwrap() {
            for method in item.as_object().unwrap().keys() {
                documented.push((method.clone(), path.clone()));
            }
        }
        documented.sort();
        let mut expected: Vec<(String, String)> =
            OPERATIONS.iter().map(|(m, p)| (m.to_string(), p.to_string())).collect();
        expected.sort();
        assert_eq!(documented, expected);
        assert_eq!(doc["openapi"], "3.1.0");
        // Every $ref resolves.
        let text = doc.to_string();
        for part in text.split("\"$ref\":\"#/").skip(1) {
            let pointer = format!("/{}", &part[..part.find('"').unwrap()]);
            assert!(doc.pointer(&pointer).is_some(), "dangling {pointer}");
        }
    }
}
