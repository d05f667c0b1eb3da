//! Reading requests: size-bounded JSON bodies, typed fields and query parameters with their
//! bounds, language codes, and the language data a request needs. Every failure is the
//! contract's `VALIDATION_ERROR` naming its field (or `LANGUAGE_UNAVAILABLE`).
//!
//! A bounded input is declared once, as an [`IntField`] or [`NumberField`] constant beside its
//! handler; the handler reads it and the OpenAPI document describes it from that same constant.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::{HeaderName, StatusCode};
use crossword_clues::ClueBase;
use crossword_index::Index;
use crossword_lang::Language;
use serde_json::{json, Map, Value};

use super::error::{ApiError, ApiResult, Code};
use super::state::AppState;
use crate::indexes::LoadError;

/// Largest request body accepted (bigger ones get 413).
pub const MAX_BODY: usize = 1024 * 1024;

/// Reads a request body of at most [`MAX_BODY`] bytes. Handlers read the body before anything
/// else: answering with input still unread makes the connection close with a reset, which can
/// destroy the response on its way.
pub async fn read_body(body: Body) -> ApiResult<Bytes> {
    axum::body::to_bytes(body, MAX_BODY).await.map_err(|_| {
        ApiError::validation("body", format!("the request body is larger than {MAX_BODY} bytes"))
            .status(StatusCode::PAYLOAD_TOO_LARGE)
    })
}

/// Parses a body as a JSON object.
pub fn json_object(bytes: &[u8]) -> ApiResult<Map<String, Value>> {
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| ApiError::validation("body", format!("the body is not valid JSON: {e}")))?;
    match value {
        Value::Object(map) => Ok(map),
        _ => Err(ApiError::validation("body", "the body must be a JSON object")),
    }
}

/// An optional string field.
pub fn opt_str<'a>(body: &'a Map<String, Value>, field: &str) -> ApiResult<Option<&'a str>> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(ApiError::validation(field, format!("`{field}` must be a string"))),
    }
}

/// An optional boolean field.
pub fn opt_bool(body: &Map<String, Value>, field: &str) -> ApiResult<Option<bool>> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(ApiError::validation(field, format!("`{field}` must be true or false"))),
    }
}

/// A required array field of `min..=max` items.
pub fn array<'a>(body: &'a Map<String, Value>, field: &str, min: usize, max: usize) -> ApiResult<&'a [Value]> {
    let items = match body.get(field) {
        Some(Value::Array(items)) => items,
        Some(_) => return Err(ApiError::validation(field, format!("`{field}` must be an array of strings"))),
        None => return Err(ApiError::validation(field, format!("`{field}` is required"))),
    };
    if !(min..=max).contains(&items.len()) {
        return Err(ApiError::validation(
            field,
            format!("`{field}` must have {min} to {max} items; got {}", items.len()),
        ));
    }
    Ok(items)
}

/// The query string as (name, value) pairs, percent-decoded.
pub fn query_pairs(query: &str) -> Vec<(String, String)> {
    form_urlencoded::parse(query.as_bytes()).into_owned().collect()
}

/// A query parameter (a repeated one takes its last value).
pub fn query_param<'p>(params: &'p [(String, String)], name: &str) -> Option<&'p str> {
    params.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// An integer input with its bounds and default.
#[derive(Debug, Clone, Copy)]
pub struct IntField {
    /// The parameter or field name.
    pub name: &'static str,
    /// Smallest value accepted.
    pub min: i64,
    /// Largest value accepted (`i64::MAX`: no upper bound is documented).
    pub max: i64,
    /// The value when absent.
    pub default: Option<i64>,
}

impl IntField {
    /// Reads the query parameter (its default when absent).
    pub fn from_query(&self, params: &[(String, String)]) -> ApiResult<i64> {
        let Some(raw) = query_param(params, self.name) else { return Ok(self.default.unwrap_or(self.min)) };
        let (name, min, max) = (self.name, self.min, self.max);
        let value: i64 = raw
            .trim()
            .parse()
            .map_err(|_| ApiError::validation(name, format!("`{name}` must be an integer from {min} to {max}")))?;
        if !(min..=max).contains(&value) {
            return Err(ApiError::validation(name, format!("`{name}` must be from {min} to {max}; got {value}")));
        }
        Ok(value)
    }

    /// Reads the body field (`None` when absent or null).
    pub fn from_body(&self, body: &Map<String, Value>) -> ApiResult<Option<i64>> {
        let (name, min, max) = (self.name, self.min, self.max);
        match body.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => match v.as_i64() {
                Some(n) if (min..=max).contains(&n) => Ok(Some(n)),
                _ => Err(ApiError::validation(name, format!("`{name}` must be an integer from {min} to {max}"))),
            },
        }
    }

    /// Reads the body field, or its default when absent.
    pub fn from_body_or_default(&self, body: &Map<String, Value>) -> ApiResult<i64> {
        Ok(self.from_body(body)?.or(self.default).unwrap_or(self.min))
    }

    /// Its JSON schema.
    pub fn schema(&self) -> Value {
        let mut schema = json!({ "type": "integer", "minimum": self.min });
        if self.max != i64::MAX {
            schema["maximum"] = self.max.into();
        }
        if let Some(d) = self.default {
            schema["default"] = d.into();
        }
        schema
    }
}

/// A number input with its bounds and default.
#[derive(Debug, Clone, Copy)]
pub struct NumberField {
    /// The field name.
    pub name: &'static str,
    /// Smallest value accepted.
    pub min: f64,
    /// Largest value accepted.
    pub max: f64,
    /// The value when absent.
    pub default: f64,
}

impl NumberField {
    /// Reads the body field, or its default when absent or null.
    pub fn from_body_or_default(&self, body: &Map<String, Value>) -> ApiResult<f64> {
        let (name, min, max) = (self.name, self.min, self.max);
        match body.get(name) {
            None | Some(Value::Null) => Ok(self.default),
            Some(v) => match v.as_f64() {
                Some(n) if n.is_finite() && (min..=max).contains(&n) => Ok(n),
                _ => Err(ApiError::validation(name, format!("`{name}` must be a number from {min} to {max}"))),
            },
        }
    }

    /// Its JSON schema.
    pub fn schema(&self) -> Value {
        json!({ "type": "number", "minimum": self.min, "maximum": self.max, "default": self.default })
    }
}

/// Looks up a language code (`pt-BR` accepted); unknown codes are a 400 naming `field`.
pub fn language(code: &str, field: &str) -> ApiResult<Language> {
    Language::from_code(code).ok_or_else(|| {
        ApiError::new(Code::LanguageUnavailable, format!("unknown language code {code:?} in `{field}`"))
            .with("field", field)
    })
}

/// A 503 for a real language whose data cannot be loaded now (retry once after a few seconds).
fn unavailable(what: &str, language: Language) -> ApiError {
    ApiError::new(
        Code::LanguageUnavailable,
        format!("the {what} of language {} is not available right now", language.code()),
    )
    .status(StatusCode::SERVICE_UNAVAILABLE)
    .header(HeaderName::from_static("retry-after"), 5)
}

/// A 503 for a loading task that failed outright.
fn loading_failed(what: &str) -> ApiError {
    ApiError::new(Code::UpstreamUnavailable, format!("{what} loading failed")).status(StatusCode::SERVICE_UNAVAILABLE)
}

/// The word index of a language; a real language whose index cannot be loaded is a 503. A
/// loaded index answers inline; loading (mapping, maybe decompressing) runs on the blocking pool.
pub async fn index_of(state: &Arc<AppState>, language: Language) -> ApiResult<Arc<Index>> {
    if let Some(index) = state.indexes.get_loaded(language) {
        return Ok(index);
    }
    let indexes = state.indexes.clone();
    match tokio::task::spawn_blocking(move || indexes.get(language)).await {
        Ok(Ok(index)) => Ok(index),
        Ok(Err(e)) => {
            if let LoadError::Failed(..) = e {
                tracing::error!(error = %e, "index load failed");
            }
            Err(unavailable("word list", language))
        }
        Err(_) => Err(loading_failed("index")),
    }
}

/// The language's base clue collection (`None` when it has none); loading it is blocking work.
pub async fn clue_base(state: &Arc<AppState>, language: Language) -> ApiResult<Option<Arc<ClueBase>>> {
    let indexes = state.indexes.clone();
    match tokio::task::spawn_blocking(move || indexes.clues(language)).await {
        Ok(Ok(base)) => Ok(base),
        Ok(Err(e)) => {
            tracing::error!(error = %e, "clue collection load failed");
            Err(unavailable("clue collection", language))
        }
        Err(_) => Err(loading_failed("clue collection")),
    }
}
