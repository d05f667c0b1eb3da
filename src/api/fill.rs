//! POST /fill (JSON or live events), POST /fill/cancel and POST /fill/improve.
//!
//! Solving runs on tokio's blocking pool under a global cap (`solver_threads`) and a per-account
//! cap (`fills_per_account`, the contract's two); a request over either cap gets 429
//! `SOLVER_BUSY` and is neither queued nor charged. Each admitted fill holds a [`Ticket`]: its
//! session id (for cancel) and cancel flag. Dropping the ticket (the request finished, or the
//! client went away and the connection dropped the response) cancels the search.

use std::collections::HashSet;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use ahash::AHashMap;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderName, HeaderValue};
use axum::response::{IntoResponse, Response};
use parking_lot::Mutex;
use serde_json::{json, Map, Value};

use super::error::{ApiError, ApiResult, Code};
use super::input::{json_object, opt_bool, opt_int, opt_number, opt_str, read_body};
use super::words::{index_of, language};
use super::{metered, quota, AppState, Caller};
use crate::fill::{self, FillOptions, Grid, GridError, Progress};
use crate::store::{Counter, Scope};

/// Concurrency caps and live sessions.
pub struct SolverPool {
    permits: Arc<tokio::sync::Semaphore>,
    per_account: Mutex<AHashMap<String, u32>>,
    sessions: Mutex<AHashMap<String, (String, Arc<AtomicBool>)>>,
}

impl SolverPool {
    /// A pool running at most `threads` solves at once.
    pub fn new(threads: u32) -> SolverPool {
        SolverPool {
            permits: Arc::new(tokio::sync::Semaphore::new(threads.max(1) as usize)),
            per_account: Mutex::new(AHashMap::new()),
            sessions: Mutex::new(AHashMap::new()),
        }
    }

    fn busy(detail: &str) -> ApiError {
        ApiError::new(Code::SolverBusy, detail.to_owned()).header(HeaderName::from_static("retry-after"), 3)
    }

    /// Admits a solve for `account_id` or refuses it (nothing charged).
    fn admit(self: &Arc<Self>, account_id: &str, per_account: u32) -> ApiResult<Ticket> {
        let mut counts = self.per_account.lock();
        let running = counts.get(account_id).copied().unwrap_or(0);
        if running >= per_account {
            return Err(Self::busy(&format!(
                "this account already runs {running} fills; at most {per_account} at once"
            )));
        }
        let permit = self
            .permits
            .clone()
            .try_acquire_owned()
            .map_err(|_| Self::busy("the solver runs as many jobs as it allows; retry in a few seconds"))?;
        *counts.entry(account_id.to_owned()).or_default() += 1;
        let session_id = crate::keys::random_alphanumeric(20);
        let cancel = Arc::new(AtomicBool::new(false));
        self.sessions.lock().insert(session_id.clone(), (account_id.to_owned(), cancel.clone()));
        Ok(Ticket { pool: self.clone(), account_id: account_id.to_owned(), session_id, cancel, _permit: permit })
    }

    /// Cancels a session of `account_id`; false when unknown, finished or someone else's.
    fn cancel(&self, account_id: &str, session_id: &str) -> bool {
        match self.sessions.lock().get(session_id) {
            Some((owner, flag)) if owner == account_id => {
                flag.store(true, Ordering::Relaxed);
                true
            }
            _ => false,
        }
    }
}

/// An admitted solve. Dropping it cancels the search and frees its places.
pub struct Ticket {
    pool: Arc<SolverPool>,
    account_id: String,
    session_id: String,
    cancel: Arc<AtomicBool>,
    _permit: tokio::sync::OwnedSemaphorePermit,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
        self.pool.sessions.lock().remove(&self.session_id);
        let mut counts = self.pool.per_account.lock();
        if let Some(n) = counts.get_mut(&self.account_id) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                counts.remove(&self.account_id);
            }
        }
    }
}

/// The `grid` field: 3 to 23 strings.
fn grid_rows(body: &Map<String, Value>) -> ApiResult<Vec<String>> {
    let rows = match body.get("grid") {
        Some(Value::Array(rows)) => rows,
        Some(_) => return Err(ApiError::validation("grid", "`grid` must be an array of strings, one per row")),
        None => return Err(ApiError::validation("grid", "`grid` is required")),
    };
    if !(3..=23).contains(&rows.len()) {
        return Err(ApiError::validation("grid", format!("`grid` must have 3 to 23 rows; it has {}", rows.len())));
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

fn grid_error(e: GridError) -> ApiError {
    let mut err = ApiError::validation("grid", e.message);
    if let (Some(r), Some(c)) = (e.row, e.col) {
        err = err.with("row", r).with("col", c);
    }
    err
}

/// Everything checked before a solve is admitted.
struct Prepared {
    caller: Caller,
    index: Arc<crate::index::Index>,
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

fn fill_json(result: &fill::FillResult, session_id: &str) -> Value {
    let mut out = json!({
        "grid": result.grid.to_rows(),
        "slotsFilled": result.slots_filled,
        "slotsTotal": result.slots_total,
        "quality": result.quality,
        "sessionId": session_id,
    });
    if let Some(reason) = result.reason {
        out["reason"] = reason.as_str().into();
    }
    out
}

fn quota_header(response: &mut Response, remaining: i64) {
    response.headers_mut().insert("x-fill-quota-remaining", HeaderValue::from(remaining));
}

/// POST /fill.
pub async fn fill_handler(State(state): State<Arc<AppState>>, headers: HeaderMap, body: Body) -> Response {
    let body = read_body(body).await;
    let stream =
        headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).is_some_and(|v| v.contains("text/event-stream"));
    metered(&state, &headers, Scope::Solve, |caller| fill_inner(&state, caller, body, stream)).await
}

async fn fill_inner(
    state: &Arc<AppState>,
    caller: Caller,
    body: ApiResult<Bytes>,
    stream: bool,
) -> ApiResult<Response> {
    let body = json_object(&body?)?;
    let min_score = opt_int(&body, "min_score", 0, 1000)?.unwrap_or(40) as u32;
    let max_time = opt_number(&body, "max_time", 1.0, 30.0)?.unwrap_or(25.0);
    let try_hard = opt_bool(&body, "try_hard_grid")?.unwrap_or(false);
    let seed = opt_int(&body, "seed", 0, i64::MAX)?.map(|s| s as u64);
    let prepared = prepare(state, caller, &body).await?;
    let ticket = state.solver.admit(&prepared.caller.account.id, state.config.limits.fills_per_account)?;
    let remaining = quota::consume(state, &prepared.caller, Counter::Fills)?;
    let options = FillOptions { min_score, max_time: Duration::from_secs_f64(max_time), seed, try_hard, strict: false };
    if stream {
        return Ok(stream_fill(state.clone(), prepared, options, ticket, remaining));
    }
    let cancel = ticket.cancel.clone();
    let Prepared { caller, index, grid } = prepared;
    let solved = tokio::task::spawn_blocking(move || fill::fill(&index, &grid, &options, &cancel, &mut |_| {})).await;
    let result = match solved {
        Ok(r) => r,
        Err(_) => {
            quota::refund(state, &caller, Counter::Fills);
            return Err(ApiError::new(Code::UpstreamUnavailable, "the solver failed; nothing was charged"));
        }
    };
    let mut response = axum::Json(fill_json(&result, &ticket.session_id)).into_response();
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
    ticket: Ticket,
    remaining: i64,
) -> Response {
    let (tx, rx) = tokio::sync::mpsc::channel::<Bytes>(32);
    let session_id = ticket.session_id.clone();
    let cancel = ticket.cancel.clone();
    let _ = tx.try_send(event(&json!({ "type": "session", "sessionId": session_id })));
    let Prepared { caller, index, grid } = prepared;
    tokio::task::spawn_blocking(move || {
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
            Ok(result) => match result.reason {
                Some(reason) => json!({ "type": "error", "reason": reason.as_str() }),
                None => {
                    let mut complete = fill_json(&result, "");
                    complete["type"] = "complete".into();
                    if let Some(obj) = complete.as_object_mut() {
                        obj.remove("sessionId");
                    }
                    complete
                }
            },
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
    metered(&state, &headers, Scope::Solve, |caller| async move {
        let body = json_object(&body?)?;
        let field = if body.contains_key("session_id") { "session_id" } else { "sessionId" };
        let id = match body.get(field) {
            Some(Value::String(s)) if (1..=128).contains(&s.chars().count()) => s.clone(),
            Some(_) => {
                return Err(ApiError::validation(field, format!("`{field}` must be a string of 1 to 128 characters")))
            }
            None => return Err(ApiError::validation("session_id", "`session_id` is required")),
        };
        let cancelled = pool.cancel(&caller.account.id, &id);
        Ok(axum::Json(json!({ "cancelled": cancelled, "sessionId": id })))
    })
    .await
}

/// POST /fill/improve.
pub async fn improve_handler(State(state): State<Arc<AppState>>, headers: HeaderMap, body: Body) -> Response {
    let body = read_body(body).await;
    metered(&state, &headers, Scope::Solve, |caller| improve_inner(&state, caller, body)).await
}

async fn improve_inner(state: &Arc<AppState>, caller: Caller, body: ApiResult<Bytes>) -> ApiResult<Response> {
    let body = json_object(&body?)?;
    let max_time = opt_number(&body, "max_time", 1.0, 30.0)?.unwrap_or(25.0);
    let prepared = prepare(state, caller, &body).await?;
    let size = prepared.grid.size();
    let locked: HashSet<usize> = match body.get("locked") {
        None | Some(Value::Null) => HashSet::new(),
        Some(Value::Array(items)) if items.len() <= 529 => {
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
                "`locked` must be an array of at most 529 cell references \"row,col\"",
            ))
        }
    };
    let ticket = state.solver.admit(&prepared.caller.account.id, state.config.limits.fills_per_account)?;
    let remaining = quota::consume(state, &prepared.caller, Counter::Fills)?;
    let cancel = ticket.cancel.clone();
    let Prepared { caller, index, grid } = prepared;
    let run = tokio::task::spawn_blocking(move || {
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
