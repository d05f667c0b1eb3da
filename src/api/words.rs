//! GET /words and POST /words/scores.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Map, Value};

use unicode_segmentation::UnicodeSegmentation;

use super::error::{ApiError, ApiResult, Code};
use super::input::{json_object, opt_str, read_body};
use super::{metered, AppState};
use crate::index::{Index, LoadError, PatternError};
use crate::lang::Language;
use crate::store::Scope;

/// Looks up a language code (`pt-BR` accepted); unknown codes are a 400.
pub fn language(code: &str, field: &str) -> ApiResult<Language> {
    Language::from_code(code).ok_or_else(|| {
        ApiError::new(Code::LanguageUnavailable, format!("unknown language code {code:?} in `{field}`"))
            .with("field", field)
    })
}

/// The index of a language; a real language whose index cannot be loaded is a 503.
pub async fn index_of(state: &Arc<AppState>, language: Language) -> ApiResult<Arc<Index>> {
    if let Some(index) = state.indexes.get_loaded(language) {
        return Ok(index);
    }
    let indexes = state.indexes.clone();
    // Loading maps a file (and may decompress one): keep it off the async workers.
    let loaded = tokio::task::spawn_blocking(move || indexes.get(language)).await;
    match loaded {
        Ok(Ok(index)) => Ok(index),
        Ok(Err(e)) => {
            if let LoadError::Failed(..) = e {
                tracing::error!(error = %e, "index load failed");
            }
            Err(ApiError::new(
                Code::LanguageUnavailable,
                format!("the word list of language {} is not available right now", language.code()),
            )
            .status(StatusCode::SERVICE_UNAVAILABLE)
            .header(axum::http::HeaderName::from_static("retry-after"), 5))
        }
        Err(_) => {
            Err(ApiError::new(Code::UpstreamUnavailable, "index loading failed")
                .status(StatusCode::SERVICE_UNAVAILABLE))
        }
    }
}

/// Parses an integer query parameter within bounds.
pub(crate) fn int_param(params: &[(String, String)], name: &str, default: i64, min: i64, max: i64) -> ApiResult<i64> {
    let Some((_, raw)) = params.iter().rev().find(|(k, _)| k == name) else { return Ok(default) };
    let value: i64 = raw
        .trim()
        .parse()
        .map_err(|_| ApiError::validation(name, format!("`{name}` must be an integer from {min} to {max}")))?;
    if !(min..=max).contains(&value) {
        return Err(ApiError::validation(name, format!("`{name}` must be from {min} to {max}; got {value}")));
    }
    Ok(value)
}

pub(crate) fn str_param<'p>(params: &'p [(String, String)], name: &str) -> Option<&'p str> {
    params.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// GET /words: the best entries matching a pattern.
pub async fn search(State(state): State<Arc<AppState>>, headers: HeaderMap, RawQuery(query): RawQuery) -> Response {
    metered(&state, &headers, Scope::Read, |_| search_inner(&state, query.as_deref().unwrap_or(""))).await
}

async fn search_inner(state: &Arc<AppState>, query: &str) -> ApiResult<Response> {
    let params: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
    let pattern =
        str_param(&params, "pattern").ok_or_else(|| ApiError::validation("pattern", "`pattern` is required"))?;
    let chars = pattern.graphemes(true).count();
    if !(1..=23).contains(&chars) {
        return Err(ApiError::validation("pattern", format!("`pattern` must be 1 to 23 characters; got {chars}")));
    }
    let language = language(str_param(&params, "lang").unwrap_or("en"), "lang")?;
    let min_score = int_param(&params, "min_score", 0, 0, 1000)?;
    let limit = int_param(&params, "limit", 50, 1, 100)?;
    let index = index_of(state, language).await?;
    let pattern = index.pattern(pattern).map_err(|e| match e {
        PatternError::InvalidChar(c) => ApiError::validation(
            "pattern",
            format!("character {:?} at position {} is not a letter of language {}", c.ch, c.position, c.language),
        ),
        PatternError::Length(n) => {
            ApiError::validation("pattern", format!("`pattern` must have 1 to 23 cells; got {n}"))
        }
    })?;
    let hits = index.search(&pattern, min_score as u32, limit as usize);
    Ok(Json(WordList { words: hits.iter().map(|h| WordEntry { word: h.word, score: h.score }).collect() })
        .into_response())
}

/// GET /words response, serialized straight from the mapped index's strings.
#[derive(serde::Serialize)]
struct WordList<'a> {
    words: Vec<WordEntry<'a>>,
}

#[derive(serde::Serialize)]
struct WordEntry<'a> {
    word: &'a str,
    score: u8,
}

/// POST /words/scores: scores of known words.
pub async fn scores(State(state): State<Arc<AppState>>, headers: HeaderMap, body: Body) -> Response {
    let body = read_body(body).await;
    metered(&state, &headers, Scope::Read, |_| scores_inner(&state, body)).await
}

async fn scores_inner(state: &Arc<AppState>, body: ApiResult<axum::body::Bytes>) -> ApiResult<Json<Value>> {
    let body = json_object(&body?)?;
    let words = match body.get("words") {
        Some(Value::Array(items)) => items,
        Some(_) => return Err(ApiError::validation("words", "`words` must be an array of strings")),
        None => return Err(ApiError::validation("words", "`words` is required")),
    };
    if !(1..=200).contains(&words.len()) {
        return Err(ApiError::validation("words", format!("`words` must have 1 to 200 items; got {}", words.len())));
    }
    let mut texts = Vec::with_capacity(words.len());
    for (i, w) in words.iter().enumerate() {
        match w {
            Value::String(s) => texts.push(s.as_str()),
            _ => return Err(ApiError::validation(&format!("words[{i}]"), format!("`words[{i}]` must be a string"))),
        }
    }
    let language = language(opt_str(&body, "language")?.unwrap_or("en"), "language")?;
    let index = index_of(state, language).await?;
    let scores: Map<String, Value> = index.scores(texts).into_iter().map(|(w, s)| (w, Value::from(s))).collect();
    Ok(Json(json!({ "scores": scores })))
}
