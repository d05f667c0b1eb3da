//! GET /clues/{word}, POST /clues/bulk and POST /clues/generate: thin adapters over
//! [`crate::clues`].

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Map, Value};
use unicode_segmentation::UnicodeSegmentation;

use super::error::{ApiError, ApiResult, Code};
use super::input::{json_object, opt_int, opt_str, read_body};
use super::words::{index_of, int_param, language, str_param};
use super::{internal, metered, quota, AppState, Caller};
use crate::clues::generate::{generate, GenerateRequest};
use crate::clues::{collect, Clue, ClueBase, Source};
use crate::index::Index;
use crate::lang::Language;
use crate::store::{Counter, Scope};

/// Most clues per answer in a bulk answer.
const BULK_PER_ANSWER: usize = 5;
/// Most words in a bulk request.
const BULK_MAX_WORDS: usize = 500;

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
    let params: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
    let language = language(str_param(&params, "language").unwrap_or("en"), "language")?;
    let limit = int_param(&params, "limit", 10, 1, 50)? as usize;
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
    let words = match body.get("words") {
        Some(Value::Array(items)) => items,
        Some(_) => return Err(ApiError::validation("words", "`words` must be an array of strings")),
        None => return Err(ApiError::validation("words", "`words` is required")),
    };
    if !(1..=BULK_MAX_WORDS).contains(&words.len()) {
        return Err(ApiError::validation(
            "words",
            format!("`words` must have 1 to {BULK_MAX_WORDS} items; got {}", words.len()),
        ));
    }
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
    metered(&state, &headers, Scope::Solve, |caller| generate_inner(&state, caller, body)).await
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
    let count = opt_int(&body, "count", 1, 10)?.unwrap_or(5) as usize;
    let language = language(opt_str(&body, "language")?.unwrap_or("en"), "language")?;
    let index = index_of(state, language).await?;
    let answer = answer_key(&index, word, "word", 2)?;
    let base = clue_base(state, language).await?;
    let remaining = quota::consume(state, &caller, Counter::AiClues).map_err(|e| {
        if e.code == Code::AiQuotaReached {
            e.header(HeaderName::from_static("retry-after"), quota::seconds_until_next_period())
        } else {
            e
        }
    })?;
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
/// `field`. It must have `min_cells` to 23 cells and at most 23 characters as typed.
fn answer_key(index: &Index, text: &str, field: &str, min_cells: usize) -> ApiResult<String> {
    let typed = text.graphemes(true).count();
    if !(min_cells..=23).contains(&typed) {
        return Err(ApiError::validation(
            field,
            format!("`{field}` must be {min_cells} to 23 characters; got {typed}"),
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
    if !(min_cells..=23).contains(&cells) {
        return Err(ApiError::validation(
            field,
            format!(
                "`{field}` must have {min_cells} to 23 letters once spaces and punctuation are dropped; got {cells}"
            ),
        ));
    }
    Ok(answer)
}

/// The language's base clue collection (`None` when it has none); loading it is blocking work.
async fn clue_base(state: &Arc<AppState>, language: Language) -> ApiResult<Option<Arc<ClueBase>>> {
    let indexes = state.indexes.clone();
    match tokio::task::spawn_blocking(move || indexes.clues(language)).await {
        Ok(Ok(base)) => Ok(base),
        Ok(Err(e)) => {
            tracing::error!(error = %e, "clue collection load failed");
            Err(ApiError::new(
                Code::LanguageUnavailable,
                format!("the clue collection of language {} is not available right now", language.code()),
            )
            .status(StatusCode::SERVICE_UNAVAILABLE)
            .header(HeaderName::from_static("retry-after"), 5))
        }
        Err(_) => Err(ApiError::new(Code::UpstreamUnavailable, "clue collection loading failed")
            .status(StatusCode::SERVICE_UNAVAILABLE)),
    }
}
