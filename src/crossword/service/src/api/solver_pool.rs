//! The solver pool: admission of fills under a global cap (`solver_threads`) and a per-account
//! cap (`fills_per_account`, the contract's two), and the live sessions POST /fill/cancel
//! reaches. A request over either cap gets 429 `SOLVER_BUSY` and is neither queued nor charged.
//! Each admitted fill holds a [`Ticket`]: its session id and cancel flag. Dropping the ticket
//! (the request finished, or the client went away and the connection dropped the response)
//! cancels the search and frees its places.
//!
//! With a store several nodes share ([`crate::store::FillSessions`]), the per-account cap is
//! also claimed in the database, so it holds across nodes, and a cancel for a fill this node
//! does not run is left there for the node that does, which looks every [`CANCEL_POLL`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ahash::AHashMap;
use axum::http::HeaderName;
use parking_lot::Mutex;

use super::error::{ApiError, ApiResult, Code};
use crate::store::{FillClaim, Store};

/// How often a node sharing its store looks for cancels other nodes left for its fills.
pub const CANCEL_POLL: std::time::Duration = std::time::Duration::from_millis(200);

/// How long a claimed place outlives a node that died without releasing it (a fill runs 30 s
/// at most).
const LEASE_SECS: u64 = 90;

/// The store's shared fill sessions and this node's name in them.
struct Shared {
    store: Arc<dyn Store>,
    node: String,
}

/// Concurrency caps, live sessions, and the threads the solves run on.
pub struct SolverPool {
    permits: Arc<tokio::sync::Semaphore>,
    /// One thread per permit, at background priority (`SCHED_IDLE` on Linux): a full pool does
    /// not show in the latency of word searches (`bench/soak/run.sh`); while requests keep every
    /// core busy, fills get the time they leave.
    threads: service_kit::background::BackgroundThreads,
    per_account: Mutex<AHashMap<String, u32>>,
    /// Running fills by (account id, session id): ids are per account, so a client-chosen id
    /// never collides with another account's.
    sessions: Mutex<AHashMap<(String, String), Arc<AtomicBool>>>,
    shared: Option<Shared>,
}

impl SolverPool {
    /// A pool running at most `threads` solves at once.
    pub fn new(threads: u32) -> SolverPool {
        SolverPool {
            permits: Arc::new(tokio::sync::Semaphore::new(threads.max(1) as usize)),
            threads: service_kit::background::BackgroundThreads::start("solver", threads.max(1) as usize),
            per_account: Mutex::new(AHashMap::new()),
            sessions: Mutex::new(AHashMap::new()),
            shared: None,
        }
    }

    /// A pool that also claims its fills in `store` when the store is shared by several nodes
    /// (see the module documentation); the same as [`SolverPool::new`] otherwise.
    pub fn with_store(threads: u32, store: Arc<dyn Store>) -> SolverPool {
        let mut pool = SolverPool::new(threads);
        if store.fill_sessions().is_some() {
            pool.shared = Some(Shared { store, node: service_kit::keys::random_id("node_") });
        }
        pool
    }

    /// On a shared store, looks every [`CANCEL_POLL`] for cancels that other nodes left for this
    /// node's fills, until the pool is dropped. Call once, inside the runtime.
    pub fn poll_cancels(self: &Arc<Self>) {
        if self.shared.is_none() {
            return;
        }
        let pool = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(CANCEL_POLL);
            loop {
                tick.tick().await;
                let Some(pool) = pool.upgrade() else { return };
                let Some(shared) = &pool.shared else { return };
                let Some(sessions) = shared.store.fill_sessions() else { return };
                if pool.sessions.lock().is_empty() {
                    continue;
                }
                match sessions.cancels_for(&shared.node) {
                    Ok(asked) => {
                        for (account, session) in asked {
                            pool.cancel_here(&account, &session);
                        }
                    }
                    Err(e) => tracing::warn!(error = %e, "reading cancel requests failed"),
                }
            }
        });
    }

    /// Runs an admitted solve on the pool's threads (queued at once; dropping the future does
    /// not stop it: cancel through the ticket). The ticket's places (its permit and one of its
    /// account's fills) go with the solve and are freed when its thread is done with it, not
    /// when the request ends: a cancelled solve that is still stopping keeps its thread, so a
    /// new fill is never admitted only to wait for one.
    pub fn run<T: Send + 'static>(
        &self,
        ticket: &mut Ticket,
        solve: impl FnOnce() -> T + Send + 'static,
    ) -> impl std::future::Future<Output = Result<T, service_kit::background::Panicked>> + Send + 'static {
        let slot = ticket.slot.take();
        self.threads.run(move || {
            let _slot = slot;
            solve()
        })
    }

    /// A 429 `SOLVER_BUSY`; `Retry-After` is 2 to 5 seconds, spread so that refused clients do
    /// not all come back at once (the contract's "a few seconds with jitter").
    fn busy(detail: &str) -> ApiError {
        let jitter = service_kit::keys::random_alphanumeric(1).bytes().next().unwrap_or(0) % 4;
        ApiError::new(Code::SolverBusy, detail.to_owned())
            .header(HeaderName::from_static("retry-after"), 2 + u64::from(jitter))
    }

    /// Admits a solve for `account_id` or refuses it (nothing charged). `requested_id` is a
    /// client-chosen session id; without one the pool makes one up.
    pub fn admit(
        self: &Arc<Self>,
        account_id: &str,
        per_account: u32,
        requested_id: Option<&str>,
    ) -> ApiResult<Ticket> {
        let mut counts = self.per_account.lock();
        if let Some(id) = requested_id {
            if self.sessions.lock().contains_key(&(account_id.to_owned(), id.to_owned())) {
                return Err(ApiError::validation(
                    "session_id",
                    format!("`session_id` {id:?} already names a running fill of this account"),
                ));
            }
        }
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
        let session_id = requested_id.map_or_else(|| service_kit::keys::random_alphanumeric(20), str::to_owned);
        if let Some(shared) = &self.shared {
            let sessions = shared.store.fill_sessions().ok_or_else(|| Self::busy("fill sessions are unavailable"))?;
            match sessions
                .claim(account_id, &session_id, &shared.node, per_account, LEASE_SECS)
                .map_err(super::auth::internal)?
            {
                FillClaim::Claimed => {}
                FillClaim::Busy { running } => {
                    return Err(Self::busy(&format!(
                        "this account already runs {running} fills; at most {per_account} at once"
                    )))
                }
                FillClaim::SessionTaken => {
                    return Err(ApiError::validation(
                        "session_id",
                        format!("`session_id` {session_id:?} already names a running fill of this account"),
                    ))
                }
            }
        }
        *counts.entry(account_id.to_owned()).or_default() += 1;
        let cancel = Arc::new(AtomicBool::new(false));
        self.sessions.lock().insert((account_id.to_owned(), session_id.clone()), cancel.clone());
        let slot = Slot {
            pool: self.clone(),
            account_id: account_id.to_owned(),
            session_id: session_id.clone(),
            _permit: permit,
        };
        Ok(Ticket { pool: self.clone(), account_id: account_id.to_owned(), session_id, cancel, slot: Some(slot) })
    }

    /// Cancels a session of `account_id`: here, or on a shared store by asking the node that
    /// runs it. False when unknown, finished or someone else's.
    pub fn cancel(&self, account_id: &str, session_id: &str) -> ApiResult<bool> {
        if self.cancel_here(account_id, session_id) {
            return Ok(true);
        }
        match self.shared.as_ref().and_then(|s| s.store.fill_sessions()) {
            Some(sessions) => sessions.request_cancel(account_id, session_id).map_err(super::auth::internal),
            None => Ok(false),
        }
    }

    /// Cancels a session this node runs; false when it runs no such session.
    fn cancel_here(&self, account_id: &str, session_id: &str) -> bool {
        match self.sessions.lock().get(&(account_id.to_owned(), session_id.to_owned())) {
            Some(flag) => {
                flag.store(true, Ordering::Relaxed);
                true
            }
            None => false,
        }
    }
}

/// An admitted solve. Dropping it cancels the search; its places are freed when the solve's
/// thread is done (see [`SolverPool::run`]), or at once if it never ran.
pub struct Ticket {
    pool: Arc<SolverPool>,
    account_id: String,
    /// The session id (`X-Fill-Session-Id`, the cancel handle).
    pub session_id: String,
    /// Set to stop the search.
    pub cancel: Arc<AtomicBool>,
    slot: Option<Slot>,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
        let key = (self.account_id.clone(), std::mem::take(&mut self.session_id));
        self.pool.sessions.lock().remove(&key);
    }
}

/// The places an admitted solve holds: a permit of the global cap and one of its account's
/// (here, and on a shared store in the database too).
struct Slot {
    pool: Arc<SolverPool>,
    account_id: String,
    session_id: String,
    _permit: tokio::sync::OwnedSemaphorePermit,
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Some(sessions) = self.pool.shared.as_ref().and_then(|s| s.store.fill_sessions()) {
            if let Err(e) = sessions.release(&self.account_id, &self.session_id) {
                // The lease frees the place later.
                tracing::warn!(error = %e, "releasing a fill place failed");
            }
        }
        let mut counts = self.pool.per_account.lock();
        if let Some(n) = counts.get_mut(&self.account_id) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                counts.remove(&self.account_id);
            }
        }
    }
}
