//! GET /clues/{word}, POST /clues/bulk and POST /clues/generate: thin adapters over the clue
//! engine (`crossword_clues`), and their part of the OpenAPI document.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Map, Value};
use unicode_segmentation::UnicodeSegmentation;

use crossword_clues::generate::{generate, GenerateRequest};
use crossword_clues::{collect, Clue, Source, MAX_CLUE_CHARS};
use crossword_index::format::MAX_LEN;
use crossword_index::Index;

use super::auth::{internal, metered};
use super::error::{ApiError, ApiResult, Code};
use super::extract::{
    array, clue_base, index_of, json_object, language, opt_str, query_pairs, query_param, read_body, IntField,
};
use super::openapi::{
    add_headers, add_operation, add_schemas, language_schema, merge, ok, problem, rate_headers, read_errors,
    solve_errors, with_headers,
};
use super::quota;
use super::state::{AppState, Caller};
use crate::store::{Counter, Scope};

/// GET /clues/{word} `limit`.
pub const LOOKUP_LIMIT: IntField = IntField { name: "limit", min: 1, max: 50, default: Some(10) };
/// POST /clues/generate `count`.
pub const GENERATE_COUNT: IntField = IntField { name: "count", min: 1, max: 10, default: Some(5) };
/// Most clues per answer in a bulk answer.
pub const BULK_PER_ANSWER: usize = 5;
/// Most words in a bulk request.
pub const BULK_MAX_WORDS: usize = 500;
/// Longest answer, in user-perceived characters and in cells.
pub const ANSWER_MAX: usize = MAX_LEN;

/// GET /clues/{word}.
pub async fn lookup(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    path: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
) -> Response {
    metered(&state, &headers, Scope::Read, |_| lookup_inner(&state, path, query.unwrap_or_default())).await
}

async fn lookup_inner(
    state: &Arc<AppState>,
    path: Result<Path<String>, PathRejection>,
    query: String,
) -> ApiResult<Response> {
    let Ok(Path(word)) = path else {
        return Err(ApiError::validation("word", "`word` must be valid percent-encoded UTF-8"));
    };
    let params = query_pairs(&query);
    let language = language(query_param(&params, "language").unwrap_or("en"), "language")?;
    let limit = LOOKUP_LIMIT.from_query(&params)? as usize;
    let index = index_of(state, language).await?;
    let answer = answer_key(&index, &word, "word", 1)?;
    let base = clue_base(state, language).await?;
    let additions = state.store.clue_additions(language.code(), &[answer.as_str()]).map_err(internal)?;
    let clues = collect(language, &answer, base.as_deref(), &additions[0], limit);
    Ok(Json(json!({ "clues": clues })).into_response())
}

/// POST /clues/bulk.
pub async fn bulk(State(state): State<Arc<AppState>>, headers: HeaderMap, body: Body) -> Response {
    let body = read_body(body).await;
    metered(&state, &headers, Scope::Read, |_| bulk_inner(&state, body)).await
}

async fn bulk_inner(state: &Arc<AppState>, body: ApiResult<Bytes>) -> ApiResult<Response> {
    let body = json_object(&body?)?;
    let words = array(&body, "words", 1, BULK_MAX_WORDS)?;
    let language = language(opt_str(&body, "language")?.unwrap_or("en"), "language")?;
    let index = index_of(state, language).await?;
    let mut answers: Vec<String> = Vec::with_capacity(words.len());
    for (i, w) in words.iter().enumerate() {
        let field = format!("words[{i}]");
        let Value::String(text) = w else {
            return Err(ApiError::validation(&field, format!("`{field}` must be a string")));
        };
        let answer = answer_key(&index, text, &field, 1)?;
        if !answers.contains(&answer) {
            answers.push(answer);
        }
    }
    let base = clue_base(state, language).await?;
    let store = state.store.clone();
    // Hundreds of lookups and one database read: off the async workers.
    let found = tokio::task::spawn_blocking(move || {
        let keys: Vec<&str> = answers.iter().map(String::as_str).collect();
        let additions = store.clue_additions(language.code(), &keys)?;
        let mut out = Map::new();
        for (answer, extra) in answers.iter().zip(&additions) {
            let clues = collect(language, answer, base.as_deref(), extra, BULK_PER_ANSWER);
            if !clues.is_empty() {
                out.insert(answer.clone(), serde_json::to_value(clues).unwrap_or_default());
            }
        }
        Ok::<_, crate::store::StoreError>(out)
    })
    .await
    .map_err(|_| {
        ApiError::new(Code::UpstreamUnavailable, "clue lookup failed").status(StatusCode::SERVICE_UNAVAILABLE)
    })?
    .map_err(internal)?;
    Ok(Json(json!({ "clues": found })).into_response())
}

/// POST /clues/generate.
pub async fn generate_handler(State(state): State<Arc<AppState>>, headers: HeaderMap, body: Body) -> Response {
    let body = read_body(body).await;
    quota::metered_spending(&state, &headers, Scope::Solve, Counter::AiClues, |caller| {
        generate_inner(&state, caller, body)
    })
    .await
}

async fn generate_inner(state: &Arc<AppState>, caller: Caller, body: ApiResult<Bytes>) -> ApiResult<Response> {
    let body = body?;
    let plan = state.config.plan(caller.account.tier);
    if plan.ai_clues_per_month == 0 {
        return Err(ApiError::new(
            Code::MembersOnly,
            format!("the {} plan includes no AI clues; paid plans do", caller.account.tier.as_str()),
        )
        .with("tier", caller.account.tier.as_str())
        .with("upgradeUrl", state.upgrade_url()));
    }
    let body = json_object(&body)?;
    let word = match body.get("word") {
        Some(Value::String(s)) => s.as_str(),
        Some(_) => return Err(ApiError::validation("word", "`word` must be a string")),
        None => return Err(ApiError::validation("word", "`word` is required")),
    };
    let count = GENERATE_COUNT.from_body_or_default(&body)? as usize;
    let language = language(opt_str(&body, "language")?.unwrap_or("en"), "language")?;
    let index = index_of(state, language).await?;
    let answer = answer_key(&index, word, "word", 2)?;
    let base = clue_base(state, language).await?;
    let remaining = quota::consume(state, &caller, Counter::AiClues)?;
    let generator = state.clue_generator.clone();
    let key = answer.clone();
    let run = tokio::task::spawn_blocking(move || {
        let request = GenerateRequest { language, answer: &key, count, base: base.as_deref() };
        generate(generator.as_ref(), &request)
    })
    .await;
    let texts = match run {
        Ok(Ok(texts)) if !texts.is_empty() => texts,
        Ok(Ok(_)) => {
            // Nothing could be made for this answer: nothing is charged.
            quota::refund(state, &caller, Counter::AiClues);
            let remaining = if remaining < 0 { remaining } else { remaining + 1 };
            return Ok(with_ai_header(Json(json!({ "clues": [], "remaining": remaining })), remaining));
        }
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "clue generator failed");
            quota::refund(state, &caller, Counter::AiClues);
            return Err(ApiError::new(
                Code::UpstreamUnavailable,
                "the clue generator is unavailable; nothing was charged",
            )
            .status(StatusCode::BAD_GATEWAY));
        }
        Err(_) => {
            quota::refund(state, &caller, Counter::AiClues);
            return Err(ApiError::new(Code::UpstreamUnavailable, "the clue generator failed; nothing was charged")
                .status(StatusCode::BAD_GATEWAY));
        }
    };
    let clues: Vec<Clue> = texts
        .into_iter()
        .map(|text| Clue {
            token: Some(state.clue_signer.sign(language.code(), &answer, &text)),
            text,
            source: Source::Ai,
            pub_count: 0,
        })
        .collect();
    Ok(with_ai_header(Json(json!({ "clues": clues, "remaining": remaining })), remaining))
}

fn with_ai_header(body: impl IntoResponse, remaining: i64) -> Response {
    let mut response = body.into_response();
    response.headers_mut().insert("x-ai-clues-remaining", HeaderValue::from(remaining));
    response
}

/// Normalizes an answer for the language (folds, case, dropped spaces and hyphens); errors name
/// `field`. It must have `min_cells` to [`ANSWER_MAX`] cells and at most [`ANSWER_MAX`]
/// characters as typed.
fn answer_key(index: &Index, text: &str, field: &str, min_cells: usize) -> ApiResult<String> {
    let typed = text.graphemes(true).count();
    if !(min_cells..=ANSWER_MAX).contains(&typed) {
        return Err(ApiError::validation(
            field,
            format!("`{field}` must be {min_cells} to {ANSWER_MAX} characters; got {typed}"),
        ));
    }
    let answer = index.normalize(text).map_err(|c| {
        ApiError::validation(
            field,
            format!(
                "character {:?} at position {} of `{field}` is not a letter of language {}",
                c.ch, c.position, c.language
            ),
        )
    })?;
    let cells = index.language().split_cells(&answer).len();
    if !(min_cells..=ANSWER_MAX).contains(&cells) {
        return Err(ApiError::validation(
            field,
            format!(
                "`{field}` must have {min_cells} to {ANSWER_MAX} letters once spaces and punctuation are dropped; got {cells}"
            ),
        ));
    }
    Ok(answer)
}

/// How clue lists are ranked (shared by the lookup operations' descriptions).
const RANKING: &str = "Ranking, best first: `published` by `pubCount`, then `original` by uses on this service, then \
    `dictionary` (most common sense first), then `ai` by uses. Repeats (same text ignoring case, accents, spacing and \
    punctuation) are removed, and clues that contain the answer (as a word, the start of a word, or spread over \
    adjacent words) are dropped.";

/// The three operations and their schemas.
pub fn document(doc: &mut Value) {
    document_lookups(doc);
    document_generate(doc);
    document_schemas(doc);
}

fn document_lookups(doc: &mut Value) {
    add_operation(
        doc,
        "/clues/{word}",
        "get",
        json!({
            "operationId": "getClues", "summary": "Clues for an answer, best first",
            "description": format!("Scope `read`. The word is normalized like any answer (upper-cased, accents folded for the language, spaces and hyphens dropped). An answer with no clues returns an empty list. {RANKING} A language without a clue collection answers empty lists."),
            "parameters": [
                { "name": "word", "in": "path", "required": true, "description": format!("1 to {ANSWER_MAX} characters (user-perceived characters)."), "schema": { "type": "string", "minLength": 1, "maxLength": ANSWER_MAX }, "examples": { "english": { "value": "ice" }, "phrase": { "value": "ice cream" } } },
                { "name": "language", "in": "query", "required": false, "schema": language_schema() },
                { "name": LOOKUP_LIMIT.name, "in": "query", "required": false, "schema": LOOKUP_LIMIT.schema() }
            ],
            "responses": merge(json!({ "200": ok("The clues, best first.", "ClueList", rate_headers()) }), read_errors(false))
        }),
    );
    add_operation(
        doc,
        "/clues/bulk",
        "post",
        json!({
            "operationId": "getCluesBulk", "summary": "Clues for many answers",
            "description": format!("Scope `read`. Keys are the normalized answers (a repeated answer appears once); answers without clues are omitted; at most {BULK_PER_ANSWER} clues each. Every word must be a valid answer of the language (1 to {ANSWER_MAX} characters, letters of its alphabet), else 400 with `field` `words[i]`. {RANKING}"),
            "requestBody": { "required": true, "content": { "application/json": {
                "schema": { "$ref": "#/components/schemas/BulkCluesRequest" },
                "examples": { "english": { "value": { "words": ["ice", "oak", "ice cream"], "language": "en" } } }
            } } },
            "responses": merge(json!({ "200": ok("Clues per normalized answer.", "BulkClues", rate_headers()) }), read_errors(true))
        }),
    );
}

fn document_generate(doc: &mut Value) {
    let mut errors = solve_errors();
    errors.insert(
        "403".into(),
        problem(
            "The key lacks the `solve` scope, or the account is on the free plan (its AI clue allowance is zero).",
            &[Code::ForbiddenScope, Code::MembersOnly],
        ),
    );
    errors.insert("429".into(), with_headers(problem("The account's request window is full, or its monthly AI clue requests are used up (refills on the first of the month, UTC; `Retry-After` gives the seconds until then).", &[Code::RateLimited, Code::AiQuotaReached]), json!({
        "Retry-After": { "$ref": "#/components/headers/RetryAfter" },
        "X-Ai-Clues-Remaining": { "$ref": "#/components/headers/AiCluesLeft" }
    })));
    errors.insert(
        "502".into(),
        problem(
            "The clue generator (a configured model server) failed or timed out; nothing was charged.",
            &[Code::UpstreamUnavailable],
        ),
    );
    add_operation(
        doc,
        "/clues/generate",
        "post",
        json!({
            "operationId": "generateClues", "summary": "New clues for an answer, with proof tokens",
            "description": "Scope `solve`; paid plans only. Each request takes one AI clue request from the monthly quota (whatever `count`); a request that produces no clue (nothing known about the answer) returns an empty list and is not charged. Each clue carries a `token` proving this service generated exactly that text for that answer and language; keep it with the clue when publishing. Nothing is saved. Clues come from the operator's model server when one is configured, else from the built-in generator, which composes them from the language's dictionary data (broader terms, synonym pairs, opposites, shortened definitions). Also counts against the account's one-minute request window.",
            "requestBody": { "required": true, "content": { "application/json": {
                "schema": { "$ref": "#/components/schemas/GenerateCluesRequest" },
                "examples": { "english": { "value": { "word": "oak", "count": 3, "language": "en" } } }
            } } },
            "responses": merge(json!({ "200": ok(
                "Generated clues (source `ai`, each with a `token`) and the balance.",
                "GeneratedClues",
                merge(rate_headers(), json!({ "X-Ai-Clues-Remaining": { "$ref": "#/components/headers/AiCluesRemaining" } })),
            ) }), Value::Object(errors))
        }),
    );
    add_headers(
        doc,
        json!({
            "AiCluesRemaining": { "required": true, "description": "AI clue requests left this month (-1: no limit).", "schema": { "type": "integer" } },
            "AiCluesLeft": { "required": true, "description": "AI clue requests left this month (0 on AI_QUOTA_REACHED; -1: no limit). Every 429 of this operation carries it.", "schema": { "type": "integer" } }
        }),
    );
}

fn document_schemas(doc: &mut Value) {
    let answer = json!({ "type": "string", "minLength": 1, "maxLength": ANSWER_MAX });
    add_schemas(
        doc,
        json!({
            "Clue": {
                "type": "object", "required": ["text", "source", "pubCount"],
                "properties": {
                    "text": { "type": "string", "minLength": 0, "maxLength": MAX_CLUE_CHARS },
                    "source": { "type": "string", "enum": ["published", "dictionary", "original", "ai"] },
                    "pubCount": { "type": "integer", "minimum": 0, "description": "Times a published clue appeared in print; 0 for other sources." },
                    "token": { "type": "string", "description": "Present only on a new, unsaved `ai` clue: `v1.` and an HMAC-SHA256 (base64url) over language, answer and text under the server's secret." }
                }
            },
            "ClueList": {
                "type": "object", "required": ["clues"],
                "properties": { "clues": { "type": "array", "maxItems": LOOKUP_LIMIT.max, "items": { "$ref": "#/components/schemas/Clue" } } }
            },
            "BulkCluesRequest": {
                "type": "object", "required": ["words"],
                "properties": {
                    "words": { "type": "array", "minItems": 1, "maxItems": BULK_MAX_WORDS, "items": answer },
                    "language": language_schema()
                }
            },
            "BulkClues": {
                "type": "object", "required": ["clues"],
                "properties": { "clues": { "type": "object", "additionalProperties": { "type": "array", "minItems": 1, "maxItems": BULK_PER_ANSWER, "items": { "$ref": "#/components/schemas/Clue" } } } }
            },
            "GenerateCluesRequest": {
                "type": "object", "required": ["word"],
                "properties": {
                    "word": { "type": "string", "minLength": 2, "maxLength": ANSWER_MAX },
                    "count": GENERATE_COUNT.schema(),
                    "language": language_schema()
                }
            },
            "GeneratedClues": {
                "type": "object", "required": ["clues", "remaining"],
                "properties": {
                    "clues": { "type": "array", "maxItems": GENERATE_COUNT.max, "items": { "allOf": [{ "$ref": "#/components/schemas/Clue" }, { "required": ["token"] }] } },
                    "remaining": { "type": "integer", "description": "AI clue requests left this month (-1: no limit)." }
                }
            }
        }),
    );
}
