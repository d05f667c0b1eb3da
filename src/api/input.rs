//! Reading request bodies: size-bounded JSON objects and typed fields, each error naming its
//! field (the contract's `VALIDATION_ERROR` with `field`).

use axum::body::{Body, Bytes};
use axum::http::StatusCode;
use serde_json::{Map, Value};

use super::error::{ApiError, ApiResult};
use super::MAX_BODY;

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

/// A bool field.
pub fn opt_bool(body: &Map<String, Value>, field: &str) -> ApiResult<Option<bool>> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(ApiError::validation(field, format!("`{field}` must be true or false"))),
    }
}

/// An integer field within bounds.
pub fn opt_int(body: &Map<String, Value>, field: &str, min: i64, max: i64) -> ApiResult<Option<i64>> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_i64() {
            Some(n) if (min..=max).contains(&n) => Ok(Some(n)),
            _ => Err(ApiError::validation(field, format!("`{field}` must be an integer from {min} to {max}"))),
        },
    }
}

/// A number field within bounds.
pub fn opt_number(body: &Map<String, Value>, field: &str, min: f64, max: f64) -> ApiResult<Option<f64>> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_f64() {
            Some(n) if n.is_finite() && (min..=max).contains(&n) => Ok(Some(n)),
            _ => Err(ApiError::validation(field, format!("`{field}` must be a number from {min} to {max}"))),
        },
    }
}
