//! The puzzle operations: list, create (idempotent, metered), import, read, edit (with
//! history), delete, publish (with showcase submission) and versions; the public
//! pages are in [`crate::web`]. Exports are in [`super::export`]; the OpenAPI fragment in
//! [`super::puzzles_doc`].
//!
//! Visibility: an account sees its own puzzles and every published one; another account's
//! draft is 404 on every operation, and so is any write to another account's puzzle.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use crossword_fill::{Direction, Grid};
use crossword_lang::Language;
use crossword_puzzle::puz::Imported;
use crossword_puzzle::{entries, missing_clues, Clues, Entry, Puzzle, ShowcaseStatus, Status};
use serde_json::{json, Map, Value};
use service_kit::period::{current_period, rfc3339_millis, unix_now_millis};

use super::auth::{internal, metered};
use super::error::{ApiError, ApiResult, Code};
use super::extract::{json_object, language, opt_bool, query_pairs, query_param, read_body, IntField};
use super::fill::grid_error;
use super::quota;
use super::state::{AppState, Caller};
use crate::puzzles::{self as jobs, SHOWCASE_QUEUE_CAP};
use crate::store::{Counter, Created, IdempotentHit, Replaced, Scope};

/// Title length on create and publish (0 is allowed on an edit of a draft).
pub const TITLE_MAX: usize = 200;
/// Author length.
pub const AUTHOR_MAX: usize = 100;
/// Writeup length; longer text is cut short.
pub const WRITEUP_MAX: usize = 2000;
/// Clue text length.
pub const CLUE_MAX: usize = 150;
/// Most theme words.
pub const THEME_WORDS_MAX: usize = 100;
/// Longest theme word.
pub const THEME_WORD_MAX: usize = 100;
/// Idempotency key length.
pub const IDEMPOTENCY_KEY_MAX: usize = 255;
/// GET /puzzles `limit`.
pub const LIST_LIMIT: IntField = IntField { name: "limit", min: 1, max: 100, default: Some(50) };
/// GET /puzzles `offset`.
pub const LIST_OFFSET: IntField = IntField { name: "offset", min: 0, max: i64::MAX, default: Some(0) };
/// Fields a PATCH may change.
pub const EDITABLE: [&str; 9] =
    ["title", "author", "language", "grid", "clues", "themeWords", "writeup", "showProfile", "noIndex"];
/// Fields the service derives or moves itself; sending one in a PATCH (or `size` on create) is
/// a 400 naming it.
pub const READ_ONLY: [&str; 12] = [
    "id",
    "size",
    "status",
    "showcaseStatus",
    "adultThemes",
    "difficulty",
    "createdAt",
    "updatedAt",
    "url",
    "embedUrl",
    "version",
    "publish",
];

// ---------------------------------------------------------------------------------------------
// The API shape of a puzzle.

/// The public page of a puzzle.
pub fn page_url(state: &AppState, id: &str) -> String {
    format!("{}/p/{id}", state.base_url())
}

/// The embeddable frame of a puzzle.
pub fn embed_url(state: &AppState, id: &str) -> String {
    format!("{}/embed/{id}", state.base_url())
}

/// A puzzle as the API returns it.
pub fn puzzle_json(state: &AppState, p: &Puzzle) -> Value {
    let mut out = json!({
        "id": p.id,
        "title": p.title,
        "author": p.author,
        "language": p.language,
        "size": p.size(),
        "grid": p.grid,
        "clues": p.clues,
        "themeWords": p.theme_words,
        "status": p.status.as_str(),
        "showcaseStatus": p.showcase_status.map(ShowcaseStatus::as_str),
        "adultThemes": p.adult_themes,
        "difficulty": p.difficulty.map(|d| d.as_str()),
        "writeup": p.writeup,
        "showProfile": p.show_profile,
        "noIndex": p.no_index,
        "createdAt": rfc3339_millis(p.created_at),
        "updatedAt": rfc3339_millis(p.updated_at),
        "version": p.version,
    });
    if p.status == Status::Published {
        out["url"] = page_url(state, &p.id).into();
        out["embedUrl"] = embed_url(state, &p.id).into();
    }
    if let (Some(ShowcaseStatus::Rejected), Some(note)) = (p.showcase_status, &p.showcase_note) {
        out["showcaseNote"] = note.clone().into();
    }
    out
}

/// The credit line that the rules for use ask exported and printed puzzles to carry.
pub fn credit_line(state: &AppState) -> String {
    format!("Made with {}: {}", state.config.limits.service_name, state.base_url())
}

// ---------------------------------------------------------------------------------------------
// Reading the fields of a puzzle body.

/// A clue as sent: text, and the proof token of a generated clue.
#[derive(Debug, Clone)]
struct SentClue {
    text: String,
    token: Option<String>,
}

/// The fields of a create, edit or publish body, each checked on its own (cross-field checks
/// need the stored puzzle and come later).
#[derive(Debug, Default)]
struct Fields {
    title: Option<String>,
    author: Option<String>,
    language: Option<Language>,
    grid: Option<Vec<String>>,
    clues: Option<Vec<(Direction, u32, SentClue)>>,
    theme_words: Option<Vec<String>>,
    writeup: Option<String>,
    show_profile: Option<bool>,
    no_index: Option<bool>,
}

/// A string field of at most `max` characters (NUL refused); `None` when absent or null.
fn text_field(body: &Map<String, Value>, field: &str, min: usize, max: usize) -> ApiResult<Option<String>> {
    let Some(value) = body.get(field).filter(|v| !v.is_null()) else { return Ok(None) };
    let Some(text) = value.as_str() else {
        return Err(ApiError::validation(field, format!("`{field}` must be a string")));
    };
    check_text(field, text, min, max)?;
    Ok(Some(text.to_owned()))
}

fn check_text(field: &str, text: &str, min: usize, max: usize) -> ApiResult<()> {
    let n = text.chars().count();
    if n < min || n > max {
        return Err(ApiError::validation(field, format!("`{field}` must be {min} to {max} characters; it has {n}")));
    }
    if text.contains('\0') {
        return Err(ApiError::validation(field, format!("`{field}` must not contain NUL characters")));
    }
    Ok(())
}

/// Cuts text to `max` characters.
fn cut(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

fn grid_field(body: &Map<String, Value>) -> ApiResult<Option<Vec<String>>> {
    match body.get("grid") {
        None | Some(Value::Null) => Ok(None),
        Some(_) => super::fill::grid_rows(body).map(Some),
    }
}

fn clues_field(body: &Map<String, Value>) -> ApiResult<Option<Vec<(Direction, u32, SentClue)>>> {
    let Some(value) = body.get("clues").filter(|v| !v.is_null()) else { return Ok(None) };
    let Some(sets) = value.as_object() else {
        return Err(ApiError::validation("clues", "`clues` must be an object with `across` and `down`"));
    };
    let mut out = Vec::new();
    for (name, set) in sets {
        let direction = match name.as_str() {
            "across" => Direction::Across,
            "down" => Direction::Down,
            _ => {
                let field = format!("clues.{name}");
                return Err(ApiError::validation(
                    &field,
                    format!("`clues` holds only `across` and `down`, not `{name}`"),
                ));
            }
        };
        if set.is_null() {
            continue;
        }
        let Some(set) = set.as_object() else {
            let field = format!("clues.{name}");
            return Err(ApiError::validation(&field, format!("`{field}` must map clue numbers to clue texts")));
        };
        for (number, clue) in set {
            let field = format!("clues.{name}.{number}");
            let n: u32 =
                number.parse().ok().filter(|&n| n >= 1 && number.bytes().all(|b| b.is_ascii_digit())).ok_or_else(
                    || ApiError::validation(&field, format!("`{number}` is not a clue number (1, 2, ...)")),
                )?;
            let sent = match clue {
                Value::String(text) => SentClue { text: text.clone(), token: None },
                Value::Object(o) => {
                    let text = o.get("text").and_then(Value::as_str).ok_or_else(|| {
                        ApiError::validation(
                            &field,
                            format!("`{field}` as an object needs `text` (and may carry `token`)"),
                        )
                    })?;
                    let token = match o.get("token") {
                        None | Some(Value::Null) => None,
                        Some(Value::String(t)) if t.len() <= 200 => Some(t.clone()),
                        Some(_) => {
                            return Err(ApiError::validation(
                                &field,
                                format!("`{field}.token` must be a clue token string"),
                            ))
                        }
                    };
                    SentClue { text: text.to_owned(), token }
                }
                _ => {
                    return Err(ApiError::validation(
                        &field,
                        format!("`{field}` must be a string or {{\"text\", \"token\"}}"),
                    ))
                }
            };
            check_text(&field, &sent.text, 0, CLUE_MAX)?;
            out.push((direction, n, sent));
        }
    }
    Ok(Some(out))
}

fn theme_words_field(body: &Map<String, Value>) -> ApiResult<Option<Vec<String>>> {
    let Some(value) = body.get("themeWords").filter(|v| !v.is_null()) else { return Ok(None) };
    let items = value
        .as_array()
        .ok_or_else(|| ApiError::validation("themeWords", "`themeWords` must be an array of strings"))?;
    if items.len() > THEME_WORDS_MAX {
        return Err(ApiError::validation(
            "themeWords",
            format!("`themeWords` must have at most {THEME_WORDS_MAX} items; it has {}", items.len()),
        ));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let field = format!("themeWords[{i}]");
            let w = w.as_str().ok_or_else(|| ApiError::validation(&field, format!("`{field}` must be a string")))?;
            check_text(&field, w, 1, THEME_WORD_MAX)?;
            Ok(w.to_owned())
        })
        .collect::<ApiResult<Vec<String>>>()
        .map(Some)
}

fn read_fields(body: &Map<String, Value>, title_min: usize) -> ApiResult<Fields> {
    Ok(Fields {
        title: text_field(body, "title", title_min, TITLE_MAX)?,
        author: text_field(body, "author", 0, AUTHOR_MAX)?,
        language: match body.get("language").filter(|v| !v.is_null()) {
            None => None,
            Some(Value::String(code)) => Some(language(code, "language")?),
            Some(_) => return Err(ApiError::validation("language", "`language` must be a language code")),
        },
        grid: grid_field(body)?,
        clues: clues_field(body)?,
        theme_words: theme_words_field(body)?,
        writeup: match body.get("writeup").filter(|v| !v.is_null()) {
            None => None,
            Some(Value::String(w)) => {
                if w.contains('\0') {
                    return Err(ApiError::validation("writeup", "`writeup` must not contain NUL characters"));
                }
                Some(cut(w, WRITEUP_MAX))
            }
            Some(_) => return Err(ApiError::validation("writeup", "`writeup` must be a string")),
        },
        show_profile: opt_bool(body, "showProfile")?,
        no_index: opt_bool(body, "noIndex")?,
    })
}

/// Applies the sent clues to a clue set for `entries`: every number must start an entry of its
/// direction.
fn apply_clues(
    sent: Vec<(Direction, u32, SentClue)>,
    entries: &[Entry],
) -> ApiResult<(Clues, std::collections::BTreeMap<String, String>)> {
    let mut clues = Clues::default();
    let mut tokens = std::collections::BTreeMap::new();
    for (direction, number, clue) in sent {
        let Some(entry) = entries.iter().find(|e| e.direction == direction && e.number == number) else {
            let field = format!("clues.{}.{number}", direction.as_str());
            return Err(ApiError::validation(
                &field,
                format!("no {} answer of the grid has the number {number}", direction.as_str()),
            ));
        };
        if let Some(token) = clue.token {
            tokens.insert(entry.label(), token);
        }
        clues.of_mut(direction).insert(number, clue.text);
    }
    Ok((clues, tokens))
}

fn missing_clues_error(missing: Vec<String>) -> ApiError {
    ApiError::validation(
        "clues",
        format!("a published puzzle needs a clue for every finished answer; missing: {}", missing.join(", ")),
    )
    .with("missingClues", missing)
}

/// The checks a published puzzle must pass: a title and a clue for every finished answer.
fn check_publishable(p: &Puzzle) -> ApiResult<()> {
    if p.title.trim().is_empty() {
        return Err(ApiError::validation("title", "a published puzzle needs a title (1 to 200 characters)"));
    }
    let (language, grid) = p.parsed_grid().map_err(grid_error)?;
    let missing = missing_clues(&entries(language, &grid), &p.clues);
    if !missing.is_empty() {
        return Err(missing_clues_error(missing));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Shared steps.

fn not_found(id: &str) -> ApiError {
    ApiError::new(Code::NotFound, format!("no puzzle {id}"))
}

/// The puzzle if the caller may see it (own, or published); else 404.
fn visible(state: &AppState, caller: &Caller, id: &str) -> ApiResult<Puzzle> {
    match state.store.puzzle(id).map_err(internal)? {
        Some(p) if p.owner == caller.account.id || p.status == Status::Published => Ok(p),
        _ => Err(not_found(id)),
    }
}

/// The puzzle if the caller owns it; else 404.
fn owned(state: &AppState, caller: &Caller, id: &str) -> ApiResult<Puzzle> {
    match state.store.puzzle(id).map_err(internal)? {
        Some(p) if p.owner == caller.account.id => Ok(p),
        _ => Err(not_found(id)),
    }
}

fn new_puzzle_id() -> String {
    service_kit::keys::random_alphanumeric(8).to_ascii_lowercase()
}

/// The `Idempotency-Key` header: 1 to 255 characters.
fn idempotency_key(headers: &HeaderMap) -> ApiResult<Option<String>> {
    let Some(value) = headers.get("idempotency-key") else { return Ok(None) };
    let refused = || {
        ApiError::validation(
            "Idempotency-Key",
            format!("`Idempotency-Key` must be 1 to {IDEMPOTENCY_KEY_MAX} visible characters"),
        )
    };
    let key = value.to_str().map_err(|_| refused())?;
    if key.is_empty() || key.chars().count() > IDEMPOTENCY_KEY_MAX {
        return Err(refused());
    }
    Ok(Some(key.to_owned()))
}

fn json_response(status: StatusCode, value: Value) -> Response {
    (status, Json(value)).into_response()
}

fn with_header(mut response: Response, name: &'static str, value: impl Into<HeaderValue>) -> Response {
    response.headers_mut().insert(HeaderName::from_static(name), value.into());
    response
}

/// Background work after a write: the showcase pre-check, the difficulty rating and the clue
/// additions. Failures are logged; each job is safe to run again.
#[derive(Default)]
struct After {
    pre_check: bool,
    rate: bool,
    add_clues: Option<Option<Clues>>,
}

fn run_after(state: &Arc<AppState>, puzzle: &Puzzle, after: After) {
    if !(after.pre_check || after.rate || after.add_clues.is_some()) {
        return;
    }
    let state = state.clone();
    let puzzle = puzzle.clone();
    tokio::task::spawn_blocking(move || {
        let store = state.store.as_ref();
        if let Some(old) = after.add_clues {
            if let Err(e) = jobs::add_to_collection(store, &state.clue_signer, &puzzle, old.as_ref()) {
                tracing::error!(error = %e, id = %puzzle.id, "clue additions failed");
            }
        }
        if after.pre_check {
            if let Err(e) = jobs::pre_check(store, &puzzle.id) {
                tracing::error!(error = %e, id = %puzzle.id, "showcase pre-check failed");
            }
        }
        if after.rate {
            if let Err(e) = jobs::rate_difficulty(store, &state.indexes, &puzzle.id) {
                tracing::error!(error = %e, id = %puzzle.id, "difficulty rating failed");
            }
        }
    });
}

// ---------------------------------------------------------------------------------------------
// Creating.

/// A new puzzle, checked, before it is stored.
struct Draft {
    puzzle: Puzzle,
    publish: bool,
}

fn build_draft(caller: &Caller, state: &AppState, fields: Fields, publish: bool) -> ApiResult<Draft> {
    let language = fields.language.unwrap_or_else(Language::english);
    let rows = fields.grid.ok_or_else(|| ApiError::validation("grid", "`grid` is required"))?;
    let grid = Grid::parse(language, &rows).map_err(grid_error)?;
    quota::check_grid_size(state, caller, grid.size() as u32)?;
    let all = entries(language, &grid);
    let (clues, clue_tokens) = apply_clues(fields.clues.unwrap_or_default(), &all)?;
    let now = unix_now_millis();
    let mut puzzle = Puzzle {
        id: new_puzzle_id(),
        owner: caller.account.id.clone(),
        title: fields
            .title
            .ok_or_else(|| ApiError::validation("title", "`title` is required (1 to 200 characters)"))?,
        author: fields.author.unwrap_or_default(),
        language: language.code().to_owned(),
        grid: grid.to_rows(),
        clues,
        clue_tokens,
        theme_words: fields.theme_words.unwrap_or_default(),
        status: if publish { Status::Published } else { Status::Draft },
        showcase_status: None,
        showcase_note: None,
        adult_themes: false,
        difficulty: None,
        writeup: fields.writeup.unwrap_or_default(),
        show_profile: fields.show_profile.unwrap_or(false),
        no_index: fields.no_index.unwrap_or(true),
        created_at: now,
        updated_at: now,
        published_at: publish.then_some(now),
        version: 1,
        changed: vec!["created".into()],
        revision: 0,
    };
    if publish {
        check_publishable(&puzzle)?;
    }
    puzzle.adult_themes = jobs::safety_verdict(&puzzle).adult_themes;
    Ok(Draft { puzzle, publish })
}

/// The replay of an idempotency key used before (200, `Idempotent-Replayed: true`).
fn replay(state: &AppState, caller: &Caller, hit: IdempotentHit) -> ApiResult<Response> {
    match hit {
        IdempotentHit::Puzzle(p) => {
            let mut response = with_header(
                json_response(StatusCode::OK, puzzle_json(state, &p)),
                "idempotent-replayed",
                HeaderValue::from_static("true"),
            );
            if let Some(left) = quota::remaining(state, caller, Counter::Puzzles) {
                response = with_header(response, "x-puzzle-quota-remaining", left);
            }
            Ok(response)
        }
        IdempotentHit::Deleted => Err(ApiError::new(
            Code::NotFound,
            "the puzzle first created with this Idempotency-Key was deleted; keys never expire, so use a new one",
        )),
    }
}

/// Stores a checked draft with its idempotency key and quota unit in one transaction.
fn store_draft(state: &Arc<AppState>, caller: &Caller, mut draft: Draft, key: Option<&str>) -> ApiResult<Response> {
    let limit = quota::monthly_limit(state, caller, Counter::Puzzles);
    for _ in 0..8 {
        match state.store.create_puzzle(&draft.puzzle, key, &current_period(), limit).map_err(internal)? {
            Created::New { remaining } => {
                let p = &draft.puzzle;
                let mut response = json_response(StatusCode::CREATED, puzzle_json(state, p));
                response = with_header(response, "x-puzzle-quota-remaining", remaining);
                if let Ok(location) = HeaderValue::from_str(&format!("{}/api/v1/puzzles/{}", state.base_url(), p.id)) {
                    response.headers_mut().insert(header::LOCATION, location);
                }
                if draft.publish {
                    run_after(state, p, After { rate: true, add_clues: Some(None), ..After::default() });
                }
                return Ok(response);
            }
            Created::Replayed(p) => return replay(state, caller, IdempotentHit::Puzzle(p)),
            Created::ReplayedDeleted => return replay(state, caller, IdempotentHit::Deleted),
            Created::QuotaExhausted => return Err(quota::quota_reached(state, caller, Counter::Puzzles)),
            Created::IdTaken => draft.puzzle.id = new_puzzle_id(),
        }
    }
    Err(internal(crate::store::StoreError::Backend("no free puzzle id".into())))
}

/// POST /puzzles.
pub async fn create(State(state): State<Arc<AppState>>, headers: HeaderMap, body: Body) -> Response {
    let body = read_body(body).await;
    let (state, headers) = (&state, &headers);
    metered(state, headers, Scope::PuzzlesWrite, |caller| async move {
        let key = idempotency_key(headers)?;
        if let Some(key) = &key {
            if let Some(hit) = state.store.puzzle_by_idempotency_key(&caller.account.id, key).map_err(internal)? {
                return replay(state, &caller, hit);
            }
        }
        let body = json_object(&body?)?;
        if body.contains_key("size") {
            return Err(ApiError::validation("size", "`size` is derived from the grid; do not send it"));
        }
        let fields = read_fields(&body, 1)?;
        if fields.title.is_none() {
            return Err(ApiError::validation("title", "`title` is required (1 to 200 characters)"));
        }
        let publish = opt_bool(&body, "publish")?.unwrap_or(false);
        let draft = build_draft(&caller, state, fields, publish)?;
        store_draft(state, &caller, draft, key.as_deref())
    })
    .await
}

/// POST /puzzles/import: a `.puz` or `.ipuz` file as the body.
pub async fn import(
    State(state): State<Arc<AppState>>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let body = read_body(body).await;
    let (state, headers) = (&state, &headers);
    metered(state, headers, Scope::PuzzlesWrite, |caller| async move {
        let key = idempotency_key(headers)?;
        if let Some(key) = &key {
            if let Some(hit) = state.store.puzzle_by_idempotency_key(&caller.account.id, key).map_err(internal)? {
                return replay(state, &caller, hit);
            }
        }
        let params = query_pairs(query.as_deref().unwrap_or(""));
        let bytes = body?;
        let content_type = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
        let is_puz = content_type.starts_with("application/x-crossword")
            || (!content_type.contains("json") && crossword_puzzle::puz::sniff(&bytes));
        let chosen = match query_param(&params, "language") {
            Some(code) => Some(language(code, "language")?),
            None => None,
        };
        let file_error = |e: crossword_puzzle::FormatError| ApiError::validation("body", e.message);
        let (imported, lang): (Imported, Language) = if is_puz {
            let lang = chosen.unwrap_or_else(Language::english);
            (crossword_puzzle::puz::read(&bytes, lang).map_err(file_error)?, lang)
        } else {
            let doc: Value = serde_json::from_slice(&bytes)
                .map_err(|_| ApiError::validation("body", "the body is neither a .puz file nor ipuz JSON"))?;
            let lang = chosen.or_else(|| crossword_puzzle::ipuz::language_of(&doc)).unwrap_or_else(Language::english);
            (crossword_puzzle::ipuz::read(&bytes, lang).map_err(file_error)?, lang)
        };
        let title = cut(imported.title.trim(), TITLE_MAX);
        let mut sent = Vec::new();
        for (direction, set) in [(Direction::Across, &imported.clues.across), (Direction::Down, &imported.clues.down)] {
            for (n, text) in set {
                sent.push((direction, *n, SentClue { text: cut(text, CLUE_MAX).replace('\0', ""), token: None }));
            }
        }
        let fields = Fields {
            title: Some(if title.is_empty() { "Imported puzzle".to_owned() } else { title.replace('\0', "") }),
            author: Some(cut(imported.author.trim(), AUTHOR_MAX).replace('\0', "")),
            language: Some(lang),
            grid: Some(imported.grid),
            clues: Some(sent),
            writeup: Some(cut(&imported.notes, WRITEUP_MAX).replace('\0', "")),
            ..Fields::default()
        };
        let draft = build_draft(&caller, state, fields, false)?;
        store_draft(state, &caller, draft, key.as_deref())
    })
    .await
}

// ---------------------------------------------------------------------------------------------
// Reading and listing.

/// GET /puzzles.
pub async fn list(State(state): State<Arc<AppState>>, RawQuery(query): RawQuery, headers: HeaderMap) -> Response {
    let (state, headers) = (&state, &headers);
    metered(state, headers, Scope::Read, |caller| async move {
        let params = query_pairs(query.as_deref().unwrap_or(""));
        let limit = LIST_LIMIT.from_query(&params)? as usize;
        let offset = LIST_OFFSET.from_query(&params)?;
        let status = match query_param(&params, "status") {
            None => None,
            Some("draft") => Some(Status::Draft),
            Some("published") => Some(Status::Published),
            Some(_) => return Err(ApiError::validation("status", "`status` must be `draft` or `published`")),
        };
        let offset = usize::try_from(offset).unwrap_or(usize::MAX);
        let (puzzles, total) = state.store.list_puzzles(&caller.account.id, status, limit, offset).map_err(internal)?;
        let puzzles: Vec<Value> = puzzles.iter().map(|p| puzzle_json(state, p)).collect();
        Ok(Json(json!({ "puzzles": puzzles, "total": total })))
    })
    .await
}

/// The `id` path parameter: `^[a-z0-9]{8}$` (anything else cannot exist: 404).
fn check_id(id: &str) -> ApiResult<()> {
    if id.len() == 8 && id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()) {
        Ok(())
    } else {
        Err(not_found(id))
    }
}

/// GET /puzzles/{id}.
pub async fn read(State(state): State<Arc<AppState>>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    let (state, headers) = (&state, &headers);
    metered(state, headers, Scope::Read, |caller| async move {
        check_id(&id)?;
        let p = visible(state, &caller, &id)?;
        Ok(Json(puzzle_json(state, &p)))
    })
    .await
}

/// GET /puzzles/{id}/versions.
pub async fn versions(State(state): State<Arc<AppState>>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    let (state, headers) = (&state, &headers);
    metered(state, headers, Scope::Read, |caller| async move {
        check_id(&id)?;
        // Earlier versions are the owner's alone (they may hold drafts from before publication).
        let current = owned(state, &caller, &id)?;
        let mut list: Vec<Value> =
            state.store.puzzle_versions(&id).map_err(internal)?.iter().map(|p| version_summary(p, false)).collect();
        list.push(version_summary(&current, true));
        Ok(Json(json!({ "versions": list })))
    })
    .await
}

fn version_summary(p: &Puzzle, current: bool) -> Value {
    json!({ "version": p.version, "savedAt": rfc3339_millis(p.updated_at), "changed": p.changed, "current": current })
}

/// GET /puzzles/{id}/versions/{n}: path parameter `n`.
pub const VERSION_NUMBER: IntField = IntField { name: "n", min: 1, max: u32::MAX as i64, default: None };

/// GET /puzzles/{id}/versions/{n}.
pub async fn version(
    State(state): State<Arc<AppState>>,
    Path((id, n)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    let (state, headers) = (&state, &headers);
    metered(state, headers, Scope::Read, |caller| async move {
        let n = VERSION_NUMBER.from_query(&[("n".to_owned(), n)])? as u32;
        check_id(&id)?;
        let current = owned(state, &caller, &id)?;
        if current.version == n {
            return Ok(Json(puzzle_json(state, &current)));
        }
        let old = state.store.puzzle_versions(&id).map_err(internal)?.into_iter().find(|p| p.version == n);
        let old = old.ok_or_else(|| ApiError::new(Code::NotFound, format!("puzzle {id} has no version {n}")))?;
        Ok(Json(puzzle_json(state, &old)))
    })
    .await
}

// ---------------------------------------------------------------------------------------------
// Editing, publishing, deleting.

/// Runs `change` on the caller's puzzle and writes it (retrying when a concurrent write moved
/// the revision). `change` returns the background work to start, or `None` to write nothing.
async fn write_owned(
    state: &Arc<AppState>,
    caller: &Caller,
    id: &str,
    keep_history: bool,
    mut change: impl FnMut(&mut Puzzle) -> ApiResult<Option<After>>,
) -> ApiResult<Puzzle> {
    for _ in 0..16 {
        let mut p = owned(state, caller, id)?;
        let revision = p.revision;
        let Some(after) = change(&mut p)? else { return Ok(p) };
        match state.store.replace_puzzle(&p, revision, keep_history, Some(SHOWCASE_QUEUE_CAP)).map_err(internal)? {
            Replaced::Done => {
                p.revision = revision + 1;
                run_after(state, &p, after);
                return Ok(p);
            }
            Replaced::NotFound => return Err(not_found(id)),
            Replaced::Conflict => continue,
            Replaced::QueueFull { queued } => {
                return Err(ApiError::new(
                    Code::ShowcaseQueueFull,
                    format!("{queued} of this account's puzzles already await showcase review (at most {SHOWCASE_QUEUE_CAP}); nothing was applied"),
                )
                .with("limit", SHOWCASE_QUEUE_CAP)
                .with("queued", queued))
            }
        }
    }
    Err(internal(crate::store::StoreError::Backend(format!("puzzle {id} kept changing"))))
}

/// PATCH /puzzles/{id}.
pub async fn edit(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let body = read_body(body).await;
    let (state, headers) = (&state, &headers);
    metered(state, headers, Scope::PuzzlesWrite, |caller| async move {
        let body = json_object(&body?)?;
        if let Some(field) = READ_ONLY.iter().find(|f| body.contains_key(**f)) {
            return Err(ApiError::validation(
                field,
                format!("`{field}` is read-only; it cannot be changed with PATCH"),
            ));
        }
        if !EDITABLE.iter().any(|f| body.get(*f).is_some_and(|v| !v.is_null())) {
            return Err(ApiError::validation(
                "body",
                format!("a patch needs at least one of: {}", EDITABLE.join(", ")),
            ));
        }
        let fields = read_fields(&body, 0)?;
        check_id(&id)?;
        let p = write_owned(state, &caller, &id, true, |p| apply_edit(state, &caller, p, &fields)).await?;
        Ok(Json(puzzle_json(state, &p)))
    })
    .await
}

/// Applies an edit's fields to a puzzle; `None` when nothing changes.
fn apply_edit(state: &AppState, caller: &Caller, p: &mut Puzzle, f: &Fields) -> ApiResult<Option<After>> {
    let before = p.clone();
    if let Some(t) = &f.title {
        p.title = t.clone();
    }
    if let Some(a) = &f.author {
        p.author = a.clone();
    }
    if let Some(l) = f.language {
        p.language = l.code().to_owned();
    }
    if let Some(rows) = &f.grid {
        p.grid = rows.clone();
    }
    let (language, grid) = p.parsed_grid().map_err(grid_error)?;
    quota::check_grid_size(state, caller, grid.size() as u32)?;
    p.grid = grid.to_rows();
    let all = entries(language, &grid);
    match &f.clues {
        Some(sent) => {
            let (clues, tokens) = apply_clues(sent.clone(), &all)?;
            p.clues = clues;
            p.clue_tokens = tokens;
        }
        None => {
            // A new grid keeps the clues of the entries it still has.
            p.clues.retain_entries(&all);
            let labels: Vec<String> = all.iter().map(Entry::label).collect();
            p.clue_tokens.retain(|label, _| labels.contains(label));
        }
    }
    if let Some(w) = &f.theme_words {
        p.theme_words = w.clone();
    }
    if let Some(w) = &f.writeup {
        p.writeup = w.clone();
    }
    if let Some(b) = f.show_profile {
        p.show_profile = b;
    }
    if let Some(b) = f.no_index {
        p.no_index = b;
    }
    let mut changed = Vec::new();
    for (name, differs) in [
        ("title", p.title != before.title),
        ("author", p.author != before.author),
        ("language", p.language != before.language),
        ("grid", p.grid != before.grid),
        ("clues", p.clues != before.clues || p.clue_tokens != before.clue_tokens),
        ("themeWords", p.theme_words != before.theme_words),
        ("writeup", p.writeup != before.writeup),
        ("showProfile", p.show_profile != before.show_profile),
        ("noIndex", p.no_index != before.no_index),
    ] {
        if differs {
            changed.push(name.to_owned());
        }
    }
    if changed.is_empty() {
        return Ok(None);
    }
    let published = p.status == Status::Published;
    if published {
        check_publishable(p)?;
    }
    p.adult_themes = jobs::safety_verdict(p).adult_themes;
    let content_changed = p.clues != before.clues || p.grid != before.grid;
    let mut after = After::default();
    if published && content_changed {
        p.difficulty = None;
        after.rate = true;
        after.add_clues = Some(Some(before.clues.clone()));
    }
    p.version = before.version + 1;
    p.changed = changed;
    p.updated_at = unix_now_millis().max(before.updated_at + 1);
    Ok(Some(after))
}

/// POST /puzzles/{id}/publish.
pub async fn publish(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let body = read_body(body).await;
    let (state, headers) = (&state, &headers);
    metered(state, headers, Scope::PuzzlesWrite, |caller| async move {
        let bytes = body?;
        let body = if bytes.iter().all(u8::is_ascii_whitespace) { Map::new() } else { json_object(&bytes)? };
        let submit = opt_bool(&body, "submitToShowcase")?.unwrap_or(false);
        let writeup = match body.get("writeup").filter(|v| !v.is_null()) {
            None => None,
            Some(Value::String(w)) if !w.contains('\0') => Some(cut(w, WRITEUP_MAX)),
            Some(_) => return Err(ApiError::validation("writeup", "`writeup` must be a string (without NUL)")),
        };
        let show_profile = opt_bool(&body, "showProfile")?;
        let no_index = opt_bool(&body, "noIndex")?;
        check_id(&id)?;
        let p = write_owned(state, &caller, &id, false, |p| {
            let first = p.status == Status::Draft;
            let mut after = After::default();
            if let Some(w) = &writeup {
                p.writeup = w.clone();
            }
            if let Some(b) = show_profile {
                p.show_profile = b;
            }
            if let Some(b) = no_index {
                p.no_index = b;
            }
            check_publishable(p)?;
            p.adult_themes = jobs::safety_verdict(p).adult_themes;
            if first {
                let now = unix_now_millis();
                p.status = Status::Published;
                p.published_at = Some(now);
                p.updated_at = now.max(p.updated_at + 1);
                p.difficulty = None;
                after.rate = true;
                after.add_clues = Some(None);
            }
            if submit && matches!(p.showcase_status, None | Some(ShowcaseStatus::Rejected)) {
                p.showcase_status = Some(ShowcaseStatus::Pending);
                p.showcase_note = None;
                after.pre_check = true;
            }
            Ok(Some(after))
        })
        .await?;
        Ok(Json(puzzle_json(state, &p)))
    })
    .await
}

/// DELETE /puzzles/{id}.
pub async fn delete(State(state): State<Arc<AppState>>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    let (state, headers) = (&state, &headers);
    metered(state, headers, Scope::PuzzlesWrite, |caller| async move {
        check_id(&id)?;
        owned(state, &caller, &id)?;
        if !state.store.delete_puzzle(&id).map_err(internal)? {
            return Err(not_found(&id));
        }
        Ok(StatusCode::NO_CONTENT)
    })
    .await
}
