//! GET /words and POST /words/scores, and their part of the OpenAPI document.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::Json;
use crossword_index::format::MAX_LEN;
use crossword_index::PatternError;
use serde_json::{json, Map, Value};
use unicode_segmentation::UnicodeSegmentation;

use super::auth::metered;
use super::error::{ApiError, ApiResult};
use super::extract::{array, index_of, json_object, language, opt_str, query_pairs, query_param, read_body, IntField};
use super::openapi::{add_operation, add_schemas, language_schema, merge, ok, rate_headers, read_errors};
use super::state::AppState;
use crate::store::Scope;

/// GET /words `min_score`.
pub const MIN_SCORE: IntField = IntField { name: "min_score", min: 0, max: 1000, default: Some(0) };
/// GET /words `limit`.
pub const LIMIT: IntField = IntField { name: "limit", min: 1, max: 100, default: Some(50) };
/// Longest `pattern`, in user-perceived characters and in cells.
pub const PATTERN_MAX: usize = MAX_LEN;
/// Most words in one POST /words/scores request.
pub const SCORES_MAX_WORDS: usize = 200;

/// GET /words: the best entries matching a pattern.
/// (It reads the headers and the query from the request in place: the `HeaderMap` and
/// `RawQuery` extractors would copy them on this, the hottest route.)
pub async fn search(State(state): State<Arc<AppState>>, request: axum::extract::Request) -> Response {
    let query = request.uri().query().unwrap_or("");
    metered(&state, request.headers(), Scope::Read, |_| search_inner(&state, query)).await
}

async fn search_inner(state: &Arc<AppState>, query: &str) -> ApiResult<Response> {
    let params = query_pairs(query);
    let pattern =
        query_param(&params, "pattern").ok_or_else(|| ApiError::validation("pattern", "`pattern` is required"))?;
    let chars = pattern.graphemes(true).count();
    if !(1..=PATTERN_MAX).contains(&chars) {
        return Err(ApiError::validation(
            "pattern",
            format!("`pattern` must be 1 to {PATTERN_MAX} characters; got {chars}"),
        ));
    }
    let language = language(query_param(&params, "lang").unwrap_or("en"), "lang")?;
    let min_score = MIN_SCORE.from_query(&params)?;
    let limit = LIMIT.from_query(&params)?;
    let index = index_of(state, language).await?;
    let pattern = index.pattern(pattern).map_err(|e| match e {
        PatternError::InvalidChar(c) => ApiError::validation(
            "pattern",
            format!("character {:?} at position {} is not a letter of language {}", c.ch, c.position, c.language),
        ),
        PatternError::Length(n) => {
            ApiError::validation("pattern", format!("`pattern` must have 1 to {PATTERN_MAX} cells; got {n}"))
        }
    })?;
    let hits = index.search(&pattern, min_score as u32, limit as usize);
    Ok(word_list_json(hits.iter().map(|h| (h.word, h.score))))
}

/// The GET /words body, `{"words":[{"word":…,"score":…},…]}`, written straight from the mapped
/// index's strings into one buffer sized up front (the profile showed the generic serializer's
/// per-character escaping and buffer growth on this, the hottest route).
fn word_list_json<'a>(hits: impl ExactSizeIterator<Item = (&'a str, u8)> + Clone) -> Response {
    let size = 12 + hits.clone().map(|(w, _)| w.len() + 24).sum::<usize>();
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(b"{\"words\":[");
    for (i, (word, score)) in hits.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"word\":");
        if word.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
            out.push(b'"');
            out.extend_from_slice(word.as_bytes());
            out.push(b'"');
        } else {
            // Never the case for index entries, but kept correct for any text.
            let _ = serde_json::to_writer(&mut out, word);
        }
        out.extend_from_slice(b",\"score\":");
        let mut digits = [0u8; 3];
        let text = format_u8(score, &mut digits);
        out.extend_from_slice(text);
        out.push(b'}');
    }
    out.extend_from_slice(b"]}");
    ([(axum::http::header::CONTENT_TYPE, "application/json")], out).into_response()
}

/// The decimal digits of `n`.
fn format_u8(n: u8, buf: &mut [u8; 3]) -> &[u8] {
    if n >= 100 {
        *buf = [b'0' + n / 100, b'0' + n / 10 % 10, b'0' + n % 10];
        &buf[..]
    } else if n >= 10 {
        buf[..2].copy_from_slice(&[b'0' + n / 10, b'0' + n % 10]);
        &buf[..2]
    } else {
        buf[0] = b'0' + n;
        &buf[..1]
    }
}

/// POST /words/scores: scores of known words.
pub async fn scores(State(state): State<Arc<AppState>>, headers: HeaderMap, body: Body) -> Response {
    let body = read_body(body).await;
    metered(&state, &headers, Scope::Read, |_| scores_inner(&state, body)).await
}

async fn scores_inner(state: &Arc<AppState>, body: ApiResult<Bytes>) -> ApiResult<Json<Value>> {
    let body = json_object(&body?)?;
    let words = array(&body, "words", 1, SCORES_MAX_WORDS)?;
    let mut texts = Vec::with_capacity(words.len());
    for (i, w) in words.iter().enumerate() {
        match w {
            Value::String(s) => texts.push(s.as_str()),
            _ => return Err(ApiError::validation(&format!("words[{i}]"), format!("`words[{i}]` must be a string"))),
        }
    }
    let language = language(opt_str(&body, "language")?.unwrap_or("en"), "language")?;
    let index = index_of(state, language).await?;
    let scores: Map<String, Value> =
        index.scores(texts).into_iter().map(|(w, s)| (w.to_owned(), Value::from(s))).collect();
    Ok(Json(json!({ "scores": scores })))
}

/// The two operations and their schemas.
pub fn document(doc: &mut Value) {
    add_operation(
        doc,
        "/words",
        "get",
        json!({
            "operationId": "searchWords", "summary": "Words matching a pattern, best first",
            "description": format!("Scope `read`. At most {} results; the full list cannot be downloaded.", LIMIT.max),
            "parameters": [
                { "name": "pattern", "in": "query", "required": true, "description": format!("1 to {PATTERN_MAX} characters; `_` or `?` is an unknown cell; other characters are normalized for the language (upper-cased, accents folded)."), "schema": { "type": "string", "minLength": 1, "maxLength": PATTERN_MAX }, "examples": { "english": { "value": "C_T" }, "wildcards": { "value": "S?A?E" }, "russian": { "value": "Л_НА" } } },
                { "name": "lang", "in": "query", "required": false, "description": "Language code (`pt-BR` is answered as `pt`).", "schema": language_schema() },
                { "name": MIN_SCORE.name, "in": "query", "required": false, "description": "Drops entries scoring below.", "schema": MIN_SCORE.schema() },
                { "name": LIMIT.name, "in": "query", "required": false, "schema": LIMIT.schema() }
            ],
            "responses": merge(json!({ "200": ok("Matching entries, highest score first.", "WordList", rate_headers()) }), read_errors(false))
        }),
    );
    add_operation(
        doc,
        "/words/scores",
        "post",
        json!({
            "operationId": "scoreWords", "summary": "Scores of known words",
            "description": "Scope `read`. Each key is a word exactly as sent (`café` stays `café`, even though it is scored as `CAFE`), so a client looks up each word by what it sent; a word sent twice appears once; unknown words are omitted (not scored 0).",
            "requestBody": { "required": true, "content": { "application/json": {
                "schema": { "$ref": "#/components/schemas/ScoresRequest" },
                "examples": { "english": { "value": { "words": ["cat", "ice cream", "zzyzx"], "language": "en" } } }
            } } },
            "responses": merge(json!({ "200": ok("Scores of the known words.", "Scores", rate_headers()) }), read_errors(true))
        }),
    );
    add_schemas(
        doc,
        json!({
            "WordEntry": {
                "type": "object", "required": ["word", "score"],
                "properties": {
                    "word": { "type": "string", "description": "Entry normalized for its language." },
                    "score": { "type": "integer", "minimum": 0, "maximum": 100, "description": "40 or more is usually good for a clean fill." }
                }
            },
            "WordList": {
                "type": "object", "required": ["words"],
                "properties": { "words": { "type": "array", "maxItems": LIMIT.max, "items": { "$ref": "#/components/schemas/WordEntry" } } }
            },
            "ScoresRequest": {
                "type": "object", "required": ["words"],
                "properties": {
                    "words": { "type": "array", "minItems": 1, "maxItems": SCORES_MAX_WORDS, "items": { "type": "string" } },
                    "language": language_schema()
                }
            },
            "Scores": {
                "type": "object", "required": ["scores"],
                "properties": { "scores": { "type": "object", "description": "Known words as sent, each with its score.", "additionalProperties": { "type": "integer", "minimum": 0, "maximum": 100 } } }
            }
        }),
    );
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_word_list_is_the_json_serde_would_write() {
        let hits = [("CAT", 100u8), ("DOG", 7), ("ÉTÉ", 42), ("A\"B\\C", 0)];
        let response = super::word_list_json(hits.iter().copied());
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let body = rt.block_on(async { axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap() });
        let expected = serde_json::json!({ "words": [
            { "word": "CAT", "score": 100 }, { "word": "DOG", "score": 7 },
            { "word": "ÉTÉ", "score": 42 }, { "word": "A\"B\\C", "score": 0 } ] });
        assert_eq!(serde_json::from_slice::<serde_json::Value>(&body).unwrap(), expected);
    }
}
