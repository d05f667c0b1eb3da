//! Fixed one-minute request windows, keyed by account (reads) or IP address (open endpoints).
//!
//! A window starts at the first request after the previous one ended and lasts 60 seconds. A
//! refused request consumes nothing. Windows live in memory: they protect the service, and a
//! restart simply starts them afresh.

use std::time::{Duration, Instant};

use ahash::AHashMap;
use parking_lot::Mutex;

/// The window length.
pub const WINDOW: Duration = Duration::from_secs(60);

/// What the caller may still do in the current window (-1: unlimited).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Allowance {
    /// The window's limit (`X-RateLimit-Limit`).
    pub limit: i64,
    /// Requests left after this one (`X-RateLimit-Remaining`).
    pub remaining: i64,
}

/// A refused request: retry after this many whole seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused {
    /// The window's limit.
    pub limit: i64,
    /// Seconds until the window ends (at least 1).
    pub retry_after: u64,
}

/// Request windows for one kind of key.
#[derive(Default)]
pub struct Windows {
    windows: Mutex<AHashMap<String, (Instant, i64)>>,
}

impl Windows {
    /// Counts one request of `key` against `limit` per minute (-1: unlimited).
    pub fn hit(&self, key: &str, limit: i64) -> Result<Allowance, Refused> {
        self.hit_at(key, limit, Instant::now())
    }

    fn hit_at(&self, key: &str, limit: i64, now: Instant) -> Result<Allowance, Refused> {
        if limit < 0 {
            return Ok(Allowance { limit: -1, remaining: -1 });
        }
        let mut windows = self.windows.lock();
        if windows.len() > 10_000 {
            windows.retain(|_, (start, _)| now.duration_since(*start) < WINDOW);
        }
        let entry = windows.entry(key.to_owned()).or_insert((now, 0));
        if now.duration_since(entry.0) >= WINDOW {
            *entry = (now, 0);
        }
        if entry.1 >= limit {
            let left = WINDOW.saturating_sub(now.duration_since(entry.0));
            return Err(Refused { limit, retry_after: left.as_secs_f64().ceil().max(1.0) as u64 });
        }
        entry.1 += 1;
        Ok(Allowance { limit, remaining: limit - entry.1 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_count_and_reset() {
        let w = Windows::default();
        let t0 = Instant::now();
        assert_eq!(w.hit_at("a", 2, t0), Ok(Allowance { limit: 2, remaining: 1 }));
        assert_eq!(w.hit_at("a", 2, t0), Ok(Allowance { limit: 2, remaining: 0 }));
        let refused = w.hit_at("a", 2, t0 + Duration::from_secs(15)).unwrap_err();
        assert_eq!(refused, Refused { limit: 2, retry_after: 45 });
        assert!(w.hit_at("b", 2, t0).is_ok(), "keys are independent");
        assert_eq!(w.hit_at("a", 2, t0 + WINDOW), Ok(Allowance { limit: 2, remaining: 1 }), "a new window");
        assert_eq!(w.hit_at("a", -1, t0), Ok(Allowance { limit: -1, remaining: -1 }));
        assert!(w.hit_at("z", 0, t0).is_err());
    }
}
