//! The solver pool: admission of fills under a global cap (`solver_threads`) and a per-account
//! cap (`fills_per_account`, the contract's two), and the live sessions POST /fill/cancel
//! reaches. A request over either cap gets 429 `SOLVER_BUSY` and is neither queued nor charged.
//! Each admitted fill holds a [`Ticket`]: its session id and cancel flag. Dropping the ticket
//! (the request finished, or the client went away and the connection dropped the response)
//! cancels the search and frees its places.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ahash::AHashMap;
use axum::http::HeaderName;
use parking_lot::Mutex;

use super::error::{ApiError, ApiResult, Code};

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
    pub fn admit(self: &Arc<Self>, account_id: &str, per_account: u32) -> ApiResult<Ticket> {
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
        let session_id = service_kit::keys::random_alphanumeric(20);
        let cancel = Arc::new(AtomicBool::new(false));
        self.sessions.lock().insert(session_id.clone(), (account_id.to_owned(), cancel.clone()));
        Ok(Ticket { pool: self.clone(), account_id: account_id.to_owned(), session_id, cancel, _permit: permit })
    }

    /// Cancels a session of `account_id`; false when unknown, finished or someone else's.
    pub fn cancel(&self, account_id: &str, session_id: &str) -> bool {
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
    /// The session id (`X-Fill-Session-Id`, the cancel handle).
    pub session_id: String,
    /// Set to stop the search.
    pub cancel: Arc<AtomicBool>,
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
