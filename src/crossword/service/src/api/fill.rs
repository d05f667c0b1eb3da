//! POST /fill (JSON or live events), POST /fill/cancel and POST /fill/improve, and their part
//! of the OpenAPI document.
//!
//! Solving runs on the [`SolverPool`]'s own threads (at background priority) once the pool
//! admits it; the ticket it gives stays with the request, so a client that goes away cancels its
//! fill, and the places it holds go with the solve until its thread is done.

use std::collections::HashSet;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use crossword_fill::grid::{MAX_SIZE, MIN_SIZE};
use crossword_fill::{self as fill, FillOptions, Grid, GridError, Progress};
use serde_json::{json, Map, Value};

use super::error::{ApiError, ApiResult, Code};
use super::extract::{index_of, json_object, language, opt_bool, opt_str, read_body, IntField, NumberField};
use super::openapi::{
    add_headers, add_operation, add_schemas, language_schema, merge, ok, problem, rate_headers, solve_errors,
    with_headers,
};
use super::quota;
use super::solver_pool::Ticket;
use super::state::{AppState, Caller};
use crate::store::{Counter, Scope};

/// POST /fill `min_score`: the quality goal.
pub const MIN_SCORE: IntField = IntField { name: "min_score", min: 0, max: 1000, default: Some(40) };
/// POST /fill and /fill/improve `max_time`, in seconds.
pub const MAX_TIME: NumberField = NumberField { name: "max_time", min: 1.0, max: 30.0, default: 25.0 };
/// POST /fill `seed` (an extension).
pub const SEED: IntField = IntField { name: "seed", min: 0, max: i64::MAX, default: None };
/// Longest cancel handle accepted.
pub const SESSION_ID_MAX: usize = 128;
/// Most `locked` cells of POST /fill/improve: every cell of the largest grid.
pub const LOCKED_MAX: usize = MAX_SIZE * MAX_SIZE;

/// The `grid` field: [`MIN_SIZE`] to [`MAX_SIZE`] strings.
pub(super) fn grid_rows(body: &Map<String, Value>) -> ApiResult<Vec<String>> {
    let rows = match body.get("grid") {
        Some(Value::Array(rows)) => rows,
        Some(_) => return Err(ApiError::validation("grid", "`grid` must be an array of strings, one per row")),
        None => return Err(ApiError::validation("grid", "`grid` is required")),
    };
    if !(MIN_SIZE..=MAX_SIZE).contains(&rows.len()) {
        return Err(ApiError::validation(
            "grid",
            format!("`grid` must have {MIN_SIZE} to {MAX_SIZE} rows; it has {}", rows.len()),
        ));
    }
    rows.iter()
        .enumerate()
        .map(|(i, r)| {
            r.as_str()
                .map(str::to_owned)
                .ok_or_else(|| ApiError::validation(&format!("grid[{i}]"), format!("`grid[{i}]` must be a string")))
        })
        .collect()
}

/// A grid refused by the fill engine, as the contract's problem (`row` and `col` of the first
/// bad cell).
pub(super) fn grid_error(e: GridError) -> ApiError {
    let mut err = ApiError::validation("grid", e.message);
    if let (Some(r), Some(c)) = (e.row, e.col) {
        err = err.with("row", r).with("col", c);
    }
    err
}

/// Everything checked before a solve is admitted.
struct Prepared {
    caller: Caller,
    index: Arc<crossword_index::Index>,
    grid: Grid,
}

async fn prepare(state: &Arc<AppState>, caller: Caller, body: &Map<String, Value>) -> ApiResult<Prepared> {
    let rows = grid_rows(body)?;
    let language = language(opt_str(body, "language")?.unwrap_or("en"), "language")?;
    let index = index_of(state, language).await?;
    let grid = Grid::parse(language, &rows).map_err(grid_error)?;
    quota::check_grid_size(state, &caller, grid.size() as u32)?;
    Ok(Prepared { caller, index, grid })
}

/// The optional `session_id` of POST /fill (an extension): a cancel handle chosen by the client,
/// so that a JSON fill, whose headers arrive only with its result, can be cancelled too.
fn requested_session_id(body: &Map<String, Value>) -> ApiResult<Option<String>> {
    match body.get("session_id") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s))
            if (1..=SESSION_ID_MAX).contains(&s.len())
                && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b)) =>
        {
            Ok(Some(s.clone()))
        }
        Some(_) => Err(ApiError::validation(
            "session_id",
            format!("`session_id` must be 1 to {SESSION_ID_MAX} characters among A-Z, a-z, 0-9, `-`, `.`, `_` and `~`"),
        )),
    }
}

fn quota_header(response: &mut Response, remaining: i64) {
    response.headers_mut().insert("x-fill-quota-remaining", HeaderValue::from(remaining));
}

/// POST /fill.
pub async fn fill_handler(State(state): State<Arc<AppState>>, headers: HeaderMap, body: Body) -> Response {
    let body = read_body(body).await;
    let stream =
        headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).is_some_and(|v| v.contains("text/event-stream"));
    quota::metered_spending(&state, &headers, Scope::Solve, Counter::Fills, |caller| {
        fill_inner(&state, caller, body, stream)
    })
    .await
}

async fn fill_inner(
    state: &Arc<AppState>,
    caller: Caller,
    body: ApiResult<Bytes>,
    stream: bool,
) -> ApiResult<Response> {
    let body = json_object(&body?)?;
    let min_score = MIN_SCORE.from_body_or_default(&body)? as u32;
    let max_time = MAX_TIME.from_body_or_default(&body)?;
    let try_hard = opt_bool(&body, "try_hard_grid")?.unwrap_or(false);
    let seed = SEED.from_body(&body)?.map(|s| s as u64);
    let requested_id = requested_session_id(&body)?;
    let prepared = prepare(state, caller, &body).await?;
    let mut ticket = state.solver.admit(
        &prepared.caller.account.id,
        state.config.limits.fills_per_account,
        requested_id.as_deref(),
    )?;
    let remaining = quota::consume(state, &prepared.caller, Counter::Fills)?;
    let options = FillOptions {
        min_score,
        max_time: Duration::from_secs_f64(max_time),
        seed,
        try_hard,
        ..FillOptions::default()
    };
    if stream {
        return Ok(stream_fill(state.clone(), prepared, options, ticket, remaining));
    }
    let cancel = ticket.cancel.clone();
    let Prepared { caller, index, grid } = prepared;
    let solved = state.solver.run(&mut ticket, move || fill::fill(&index, &grid, &options, &cancel, &mut |_| {})).await;
    let result = match solved {
        Ok(r) => r,
        Err(_) => {
            quota::refund(state, &caller, Counter::Fills);
            return Err(ApiError::new(Code::UpstreamUnavailable, "the solver failed; nothing was charged"));
        }
    };
    let mut out = crate::report::fill_result(&result);
    out["sessionId"] = ticket.session_id.clone().into();
    let mut response = axum::Json(out).into_response();
    quota_header(&mut response, remaining);
    if let Ok(v) = HeaderValue::from_str(&ticket.session_id) {
        response.headers_mut().insert("x-fill-session-id", v);
    }
    drop(ticket);
    Ok(response)
}

/// A `text/event-stream` body fed by the solver thread; owns the ticket, so a client that goes
/// away (the connection drops the body) cancels its fill.
struct EventBody {
    rx: tokio::sync::mpsc::Receiver<Bytes>,
    _ticket: Ticket,
}

impl http_body::Body for EventBody {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        self.rx.poll_recv(cx).map(|frame| frame.map(|b| Ok(http_body::Frame::data(b))))
    }
}

fn event(value: &Value) -> Bytes {
    Bytes::from(format!("data: {value}\n\n"))
}

fn progress_event(p: &Progress, size: usize) -> Value {
    let fill: Map<String, Value> =
        p.cells.iter().map(|(i, l)| (format!("{},{}", i / size, i % size), Value::from(l.as_str()))).collect();
    json!({ "type": "progress", "filled": p.filled, "total": p.total, "fill": fill })
}

fn stream_fill(
    state: Arc<AppState>,
    prepared: Prepared,
    options: FillOptions,
    mut ticket: Ticket,
    remaining: i64,
) -> Response {
    let (tx, rx) = tokio::sync::mpsc::channel::<Bytes>(32);
    let session_id = ticket.session_id.clone();
    let cancel = ticket.cancel.clone();
    let _ = tx.try_send(event(&json!({ "type": "session", "sessionId": session_id })));
    let Prepared { caller, index, grid } = prepared;
    let solver = state.solver.clone();
    let _running = solver.run(&mut ticket, move || {
        let size = grid.size();
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            fill::fill(&index, &grid, &options, &cancel, &mut |p| {
                // Drop a frame rather than stall the solver on a slow reader; the newest event
                // wins anyway. A closed stream means the client left: stop.
                if let Err(tokio::sync::mpsc::error::TrySendError::Closed(_)) =
                    tx.try_send(event(&progress_event(p, size)))
                {
                    cancel.store(true, Ordering::Relaxed);
                }
            })
        }));
        let last = match run {
            Ok(result) => {
                // The final event: `complete`, or `error` with the reason and, as extra fields,
                // what the solver had (a cancelled fill's partial grid and counts).
                let mut last = crate::report::fill_result(&result);
                last["type"] = if result.reason.is_some() { "error" } else { "complete" }.into();
                last
            }
            Err(_) => {
                quota::refund(&state, &caller, Counter::Fills);
                json!({ "type": "error", "reason": "upstream_unavailable" })
            }
        };
        let _ = tx.blocking_send(event(&last));
    });
    let mut response = Response::new(Body::new(EventBody { rx, _ticket: ticket }));
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(v) = HeaderValue::from_str(&session_id) {
        h.insert("x-fill-session-id", v);
    }
    quota_header(&mut response, remaining);
    response
}

/// POST /fill/cancel.
pub async fn cancel_handler(State(state): State<Arc<AppState>>, headers: HeaderMap, body: Body) -> Response {
    let body = read_body(body).await;
    let pool = state.solver.clone();
    quota::metered_spending(&state, &headers, Scope::Solve, Counter::Fills, |caller| async move {
        let body = json_object(&body?)?;
        let field = if body.contains_key("session_id") { "session_id" } else { "sessionId" };
        let id = match body.get(field) {
            Some(Value::String(s)) if (1..=SESSION_ID_MAX).contains(&s.chars().count()) => s.clone(),
            Some(_) => {
                return Err(ApiError::validation(
                    field,
                    format!("`{field}` must be a string of 1 to {SESSION_ID_MAX} characters"),
                ))
            }
            None => return Err(ApiError::validation("session_id", "`session_id` is required")),
        };
        let cancelled = pool.cancel(&caller.account.id, &id)?;
        Ok(axum::Json(json!({ "cancelled": cancelled, "sessionId": id })))
    })
    .await
}

/// POST /fill/improve.
pub async fn improve_handler(State(state): State<Arc<AppState>>, headers: HeaderMap, body: Body) -> Response {
    let body = read_body(body).await;
    quota::metered_spending(&state, &headers, Scope::Solve, Counter::Fills, |caller| {
        improve_inner(&state, caller, body)
    })
    .await
}

async fn improve_inner(state: &Arc<AppState>, caller: Caller, body: ApiResult<Bytes>) -> ApiResult<Response> {
    let body = json_object(&body?)?;
    let max_time = MAX_TIME.from_body_or_default(&body)?;
    let prepared = prepare(state, caller, &body).await?;
    let locked = locked_cells(&body, prepared.grid.size())?;
    let mut ticket = state.solver.admit(&prepared.caller.account.id, state.config.limits.fills_per_account, None)?;
    let remaining = quota::consume(state, &prepared.caller, Counter::Fills)?;
    let cancel = ticket.cancel.clone();
    let Prepared { caller, index, grid } = prepared;
    let run = state
        .solver
        .run(&mut ticket, move || {
            fill::improve::improve(&index, &grid, &locked, Duration::from_secs_f64(max_time), &cancel)
        })
        .await;
    drop(ticket);
    let outcome = match run {
        Ok(o) => o,
        Err(_) => {
            quota::refund(state, &caller, Counter::Fills);
            return Err(ApiError::new(Code::UpstreamUnavailable, "the solver failed; nothing was charged"));
        }
    };
    let mut out = json!({ "improved": outcome.improved, "quality": outcome.quality });
    if outcome.improved {
        out["replaced"] = outcome.replaced.into();
        if let Some(grid) = &outcome.grid {
            out["grid"] = grid.to_rows().into();
        }
    }
    let mut response = axum::Json(out).into_response();
    quota_header(&mut response, remaining);
    Ok(response)
}

/// The `locked` field of POST /fill/improve: cells `"row,col"` inside the `size`-wide grid.
fn locked_cells(body: &Map<String, Value>, size: usize) -> ApiResult<HashSet<usize>> {
    Ok(match body.get("locked") {
        None | Some(Value::Null) => HashSet::new(),
        Some(Value::Array(items)) if items.len() <= LOCKED_MAX => {
            let mut set = HashSet::new();
            for (i, item) in items.iter().enumerate() {
                let field = format!("locked[{i}]");
                let cell = item.as_str().and_then(|s| {
                    let (r, c) = s.split_once(',')?;
                    Some((r.trim().parse::<usize>().ok()?, c.trim().parse::<usize>().ok()?))
                });
                match cell {
                    Some((r, c)) if r < size && c < size => set.insert(r * size + c),
                    _ => {
                        return Err(ApiError::validation(
                            &field,
                            format!("`{field}` must be a cell reference \"row,col\" inside the {size}x{size} grid"),
                        ))
                    }
                };
            }
            set
        }
        Some(_) => {
            return Err(ApiError::validation(
                "locked",
                format!("`locked` must be an array of at most {LOCKED_MAX} cell references \"row,col\""),
            ))
        }
    })
}

/// The three operations and their schemas.
pub fn document(doc: &mut Value) {
    document_operations(doc);
    document_schemas(doc);
}

/// The failures of POST /fill and /fill/improve: the shared ones, the plan's grid ceiling, the
/// quota and the solver pool's 429, and a failed solver's 502.
fn metered_solve_errors() -> Value {
    let mut r = solve_errors();
    r.insert(
        "403".into(),
        problem(
            "The key lacks the `solve` scope, or the grid is larger than the plan allows.",
            &[Code::ForbiddenScope, Code::GridSizeLocked],
        ),
    );
    r.insert("429".into(), with_headers(problem("The account's request window is full, its monthly fills are used up, or the solver is busy (two fills per account; nothing queued or charged). `Retry-After`: the window's remaining seconds, the seconds until the first of next month (UTC) for FILL_QUOTA_REACHED, or 2 to 5 seconds (jittered) for SOLVER_BUSY.", &[Code::RateLimited, Code::FillQuotaReached, Code::SolverBusy]), json!({
        "Retry-After": { "$ref": "#/components/headers/RetryAfter" },
        "X-Fill-Quota-Remaining": { "$ref": "#/components/headers/FillQuotaLeft" }
    })));
    r.insert("502".into(), problem("The solver failed; nothing was charged.", &[Code::UpstreamUnavailable]));
    Value::Object(r)
}

fn document_operations(doc: &mut Value) {
    let event_stream = json!({ "schema": {
        "type": "object", "required": ["data"],
        "description": "One server-sent event: a `data:` line holding a FillEvent as JSON (no `event:` name, so clients see `message`).",
        "properties": {
            "data": { "type": "string", "contentMediaType": "application/json", "contentSchema": { "$ref": "#/components/schemas/FillEvent" } },
            "event": { "type": "string" },
            "id": { "type": "string" },
            "retry": { "type": "integer" }
        }
    }});
    let quota_header = json!({ "X-Fill-Quota-Remaining": { "$ref": "#/components/headers/FillQuotaRemaining" } });
    add_operation(
        doc,
        "/fill",
        "post",
        json!({
            "operationId": "fillGrid", "summary": "Fill a grid",
            "description": "Scope `solve`. Returns 200 whether or not the grid is solved: complete when `slotsFilled` equals `slotsTotal`; a best partial fill when no complete one was found in time. `reason` is present when no cell was filled, and is always `cancelled` when POST /fill/cancel (or a client that went away) stopped the fill before it was complete: the result then holds the partial grid and its counts, and must not be taken for a finished fill. A cancel that arrives while a complete fill is being polished leaves it complete, without `reason`. Consumes one monthly fill even when nothing is found. With `Accept: text/event-stream` the response is a stream of `data:` frames: `session`, zero or more `progress`, then `complete` (the Fill result) or `error` (its `reason`, plus the Fill result's `grid`, `slotsFilled`, `slotsTotal` and `quality` as extra fields; a cancelled fill always ends with `error` and `reason: \"cancelled\"`). A client that disconnects cancels its fill. Every 429 carries `Retry-After` (seconds; for FILL_QUOTA_REACHED, until the first of next month, UTC) and `X-Fill-Quota-Remaining`. Also counts against the account's one-minute request window.",
            "parameters": [{ "name": "Accept", "in": "header", "required": false, "schema": { "type": "string", "enum": ["application/json", "text/event-stream"], "default": "application/json" } }],
            "requestBody": { "required": true, "content": { "application/json": {
                "schema": { "$ref": "#/components/schemas/FillRequest" },
                "examples": { "mini": { "value": { "grid": ["c....", ".....", ".....", ".....", "....."], "min_score": 40, "max_time": 5 } } }
            } } },
            "responses": merge(json!({ "200": {
                "description": "The fill result (JSON) or the event stream.",
                "headers": merge(merge(rate_headers(), json!({ "X-Fill-Session-Id": { "$ref": "#/components/headers/FillSessionId" } })), quota_header.clone()),
                "content": {
                    "application/json": { "schema": { "$ref": "#/components/schemas/FillResult" } },
                    "text/event-stream": event_stream
                }
            }}), metered_solve_errors())
        }),
    );
    add_operation(
        doc,
        "/fill/cancel",
        "post",
        json!({
            "operationId": "cancelFill", "summary": "Stop a fill",
            "description": "Scope `solve`. Accepts `session_id` or `sessionId`. A finished, unknown or other account's id returns 200 with `cancelled: false` and changes nothing.",
            "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/CancelRequest" } } } },
            "responses": merge(json!({ "200": ok("Whether a running fill was stopped.", "CancelResult", rate_headers()) }), Value::Object(solve_errors()))
        }),
    );
    add_operation(
        doc,
        "/fill/improve",
        "post",
        json!({
            "operationId": "improveFill", "summary": "Replace weak entries",
            "description": "Scope `solve`. Black cells, `locked` cells and entries unknown to the word list (the caller's own content) never change; many words may change at once. `improved: false` means the fill was already clean or its weak entries cannot be changed (then `grid` is absent). Counts as one monthly fill.",
            "requestBody": { "required": true, "content": { "application/json": {
                "schema": { "$ref": "#/components/schemas/ImproveRequest" },
                "examples": { "weak": { "value": { "grid": ["CAB", "ODE", "WET"], "locked": ["0,0"], "max_time": 2 } } }
            } } },
            "responses": merge(json!({ "200": ok("The clean-up result.", "ImproveResult", merge(rate_headers(), quota_header)) }), metered_solve_errors())
        }),
    );
    add_headers(
        doc,
        json!({
            "FillSessionId": { "required": true, "description": "The fill's cancel handle.", "schema": { "type": "string" } },
            "FillQuotaRemaining": { "required": true, "description": "Fills left this month after this one (-1: no limit).", "schema": { "type": "integer" } },
            "FillQuotaLeft": { "required": true, "description": "Fills left this month (0 on FILL_QUOTA_REACHED; -1: no limit). Every 429 of the fill operations carries it.", "schema": { "type": "integer" } }
        }),
    );
}

fn document_schemas(doc: &mut Value) {
    let rows = json!({ "type": "array", "items": { "type": "string" } });
    add_schemas(
        doc,
        json!({
            "Grid": {
                "type": "array", "minItems": MIN_SIZE, "maxItems": MAX_SIZE,
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
                    "min_score": merge(MIN_SCORE.schema(), json!({ "description": "Quality goal; the solver may go lower on hard grids (see quality.rough)." })),
                    "max_time": MAX_TIME.schema(),
                    "language": language_schema(),
                    "try_hard_grid": { "type": "boolean", "default": false },
                    "seed": merge(SEED.schema(), json!({ "description": "Extension: variety on demand; the same seed gives the same fill. Without it fills are deterministic." })),
                    "session_id": { "type": "string", "minLength": 1, "maxLength": SESSION_ID_MAX, "pattern": "^[A-Za-z0-9._~-]+$", "description": "Extension: the cancel handle, chosen by the client (then also `sessionId` and `X-Fill-Session-Id`), so a JSON fill can be cancelled from elsewhere while it runs. Unique among the account's running fills (a duplicate is 400). Without it the server makes one up." }
                }
            },
            "FillResult": {
                "type": "object", "required": ["grid", "slotsFilled", "slotsTotal", "quality"],
                "properties": {
                    "grid": rows,
                    "slotsFilled": { "type": "integer" }, "slotsTotal": { "type": "integer" },
                    "quality": { "$ref": "#/components/schemas/Quality" },
                    "reason": { "type": "string", "enum": ["too_difficult", "no_solution", "cancelled"], "description": "Present when no cell was filled; always `cancelled` when a cancel stopped the fill before it was complete (the grid is then partial)." },
                    "sessionId": { "type": "string" }
                }
            },
            "FillEvent": {
                "type": "object", "required": ["type"],
                "description": "One `data:` frame of the stream. `progress.fill` maps `row,col` to a letter; a later progress event may show fewer cells (the solver backed up). `error.reason` is too_difficult, no_solution, cancelled or upstream_unavailable; except for upstream_unavailable, an `error` event also carries `grid`, `slotsFilled`, `slotsTotal` and `quality` (a cancelled fill's partial grid).",
                "properties": {
                    "type": { "type": "string", "enum": ["session", "progress", "complete", "error"] },
                    "sessionId": { "type": "string" }, "filled": { "type": "integer" }, "total": { "type": "integer" },
                    "fill": { "type": "object", "additionalProperties": { "type": "string" } },
                    "grid": rows, "slotsFilled": { "type": "integer" }, "slotsTotal": { "type": "integer" },
                    "quality": { "$ref": "#/components/schemas/Quality" }, "reason": { "type": "string" }
                }
            },
            "CancelRequest": {
                "type": "object",
                "properties": {
                    "session_id": { "type": "string", "minLength": 1, "maxLength": SESSION_ID_MAX },
                    "sessionId": { "type": "string", "minLength": 1, "maxLength": SESSION_ID_MAX, "description": "Accepted spelling of `session_id`." }
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
                    "locked": { "type": "array", "maxItems": LOCKED_MAX, "items": { "type": "string", "pattern": "^[0-9]+,[0-9]+$" }, "description": "Cells `row,col` (zero-based) that must not change." },
                    "language": language_schema(),
                    "max_time": MAX_TIME.schema()
                }
            },
            "ImproveResult": {
                "type": "object", "required": ["improved", "quality"],
                "properties": {
                    "improved": { "type": "boolean" }, "replaced": { "type": "integer" },
                    "grid": rows,
                    "quality": { "$ref": "#/components/schemas/Quality" }
                }
            }
        }),
    );
}
