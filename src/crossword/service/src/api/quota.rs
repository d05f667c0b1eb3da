//! Monthly quotas and plan ceilings, as the contract meters them.
//!
//! Periods are calendar months in UTC (`2026-11`, [`service_kit::period`]): a counter "resets"
//! on the first of the month simply because a new period key starts at zero. Taking a unit is
//! one atomic store operation, so concurrent requests never overshoot; a request refused for any
//! reason takes nothing, and work that fails upstream gives its unit back ([`refund`]).

use std::future::Future;

use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use service_kit::period::{current_period, seconds_until_next_period};

use super::auth::{internal, metered_as};
use super::error::{ApiError, Code};
use super::state::{AppState, Caller};
use crate::store::{Consumed, Counter, Scope};

/// What a counter is called in problem documents and headers.
fn describe(counter: Counter) -> (Code, &'static str, &'static str) {
    match counter {
        Counter::Fills => (Code::FillQuotaReached, "fills", "x-fill-quota-remaining"),
        Counter::Puzzles => (Code::PuzzleQuotaReached, "new puzzles", "x-puzzle-quota-remaining"),
        Counter::AiClues => (Code::AiQuotaReached, "AI clue requests", "x-ai-clues-remaining"),
    }
}

/// The plan's monthly limit of a counter (-1: unlimited).
pub fn monthly_limit(state: &AppState, caller: &Caller, counter: Counter) -> i64 {
    let plan = state.config.plan(caller.account.tier);
    match counter {
        Counter::Fills => plan.fills_per_month,
        Counter::Puzzles => plan.puzzles_per_month,
        Counter::AiClues => plan.ai_clues_per_month,
    }
}

/// Takes one unit of `counter` for the caller's account this month; returns what remains
/// (-1: unlimited) or the contract's quota error (429 with `limit`, `remaining`, `tier`,
/// `upgradeUrl`, `contact`, `Retry-After` until the first of next month (UTC), and the counter's
/// remaining-header at 0).
pub fn consume(state: &AppState, caller: &Caller, counter: Counter) -> Result<i64, ApiError> {
    let limit = monthly_limit(state, caller, counter);
    match state.store.consume(&caller.account.id, counter, &current_period(), limit).map_err(internal)? {
        Consumed::Taken { remaining } => Ok(remaining),
        Consumed::Exhausted => Err(quota_reached(state, caller, counter)),
    }
}

/// The contract's 429 for a spent monthly quota of `counter`.
pub fn quota_reached(state: &AppState, caller: &Caller, counter: Counter) -> ApiError {
    let limit = monthly_limit(state, caller, counter);
    let (code, what, header) = describe(counter);
    ApiError::new(
        code,
        format!(
            "the {} plan allows {limit} {what} a month; the quota refills on the first of next month (UTC)",
            caller.account.tier.as_str()
        ),
    )
    .with("limit", limit)
    .with("remaining", 0)
    .with("tier", caller.account.tier.as_str())
    .with("upgradeUrl", state.upgrade_url())
    .with("contact", format!("{}/contact", state.base_url()))
    .header(HeaderName::from_static("retry-after"), seconds_until_next_period())
    .header(HeaderName::from_static(header), 0)
}

/// What is left of `counter` this month (-1: unlimited), read without taking anything; `None`
/// when storage cannot say.
pub fn remaining(state: &AppState, caller: &Caller, counter: Counter) -> Option<i64> {
    let limit = monthly_limit(state, caller, counter);
    if limit < 0 {
        return Some(-1);
    }
    let used = state.store.usage(&caller.account.id, counter, &current_period()).ok()?;
    Some((limit - i64::try_from(used).unwrap_or(i64::MAX)).max(0))
}

/// Like [`super::auth::metered`], for an operation that spends `counter` (fills, AI clues):
/// every 429 it answers (a full window, a busy solver, a spent quota) also carries the
/// counter's remaining-header, as the contract lists it for these operations.
pub async fn metered_spending<F, Fut, T>(
    state: &AppState,
    headers: &HeaderMap,
    scope: Scope,
    counter: Counter,
    inner: F,
) -> Response
where
    F: FnOnce(Caller) -> Fut,
    Fut: Future<Output = Result<T, ApiError>>,
    T: IntoResponse,
{
    let caller = match state.authorize(headers, scope) {
        Ok(c) => c,
        Err(e) => return e.into_response(),
    };
    let mut response = metered_as(state, caller.clone(), inner).await;
    let header = HeaderName::from_static(describe(counter).2);
    if response.status() == StatusCode::TOO_MANY_REQUESTS && !response.headers().contains_key(&header) {
        if let Some(left) = remaining(state, &caller, counter) {
            response.headers_mut().insert(header, HeaderValue::from(left));
        }
    }
    response
}

/// Gives back a unit taken by [`consume`] when the work failed upstream.
pub fn refund(state: &AppState, caller: &Caller, counter: Counter) {
    if monthly_limit(state, caller, counter) >= 0 {
        if let Err(e) = state.store.refund(&caller.account.id, counter, &current_period()) {
            tracing::error!(error = %e, "quota refund failed");
        }
    }
}

/// Refuses grids larger than the caller's plan allows (403 `GRID_SIZE_LOCKED`).
pub fn check_grid_size(state: &AppState, caller: &Caller, size: u32) -> Result<(), ApiError> {
    let max = state.config.plan(caller.account.tier).max_grid;
    if size <= max {
        return Ok(());
    }
    Err(ApiError::new(
        Code::GridSizeLocked,
        format!("the {} plan allows grids up to {max}x{max}; this one is {size}x{size}", caller.account.tier.as_str()),
    )
    .with("maxGridSize", max)
    .with("tier", caller.account.tier.as_str())
    .with("upgradeUrl", state.upgrade_url()))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::config::{Config, Tier};
    use crate::store::{RedbStore, Scope, Store};
    use service_kit::admin::AdminGate;
    use service_kit::observe::Observer;

    fn state_and_caller(tier: Tier, toml: &str) -> (tempfile::TempDir, AppState, Caller) {
        let dir = tempfile::tempdir().unwrap();
        let store = RedbStore::open(&dir.path().join("db.redb")).unwrap();
        let account = store.create_account(tier, None).unwrap();
        let (_, key) = crate::keys::new_key(&account.id, &Scope::ALL);
        store.insert_key(&key).unwrap();
        let state = AppState {
            config: Config::from_toml(toml).unwrap(),
            store: Arc::new(store),
            indexes: Arc::new(crate::indexes::IndexManager::new(dir.path(), 0)),
            reads: Default::default(),
            open: Default::default(),
            observer: Arc::new(Observer::new("http://svc")),
            admin: AdminGate::new(String::new()),
            auth_cache: Default::default(),
            auth_ttl: None,
            solver: Arc::new(crate::api::solver_pool::SolverPool::new(1)),
            clue_signer: crossword_clues::token::ClueSigner::new([1; 32]),
            clue_generator: Arc::new(crossword_clues::generate::BuiltinGenerator),
            fonts: crate::api::state::Fonts::new(dir.path()),
        };
        (dir, state, Caller { account: account.into(), key: key.into() })
    }

    #[test]
    fn quotas_count_down_and_refuse_with_the_contract_fields() {
        let (_d, state, caller) = state_and_caller(Tier::Free, "[tiers.free]\nfills_per_month = 2\n");
        assert_eq!(consume(&state, &caller, Counter::Fills).unwrap(), 1);
        assert_eq!(consume(&state, &caller, Counter::Fills).unwrap(), 0);
        let e = consume(&state, &caller, Counter::Fills).unwrap_err();
        assert_eq!(e.code, Code::FillQuotaReached);
        assert_eq!(e.status.as_u16(), 429);
        for field in ["limit", "remaining", "tier", "upgradeUrl", "contact"] {
            assert!(e.extra.contains_key(field), "{field}");
        }
        assert!(e.headers.iter().any(|(h, v)| h == "x-fill-quota-remaining" && v == "0"));
        let retry: u64 = e.headers.iter().find(|(h, _)| h == "retry-after").unwrap().1.parse().unwrap();
        assert!((1..=31 * 86_400).contains(&retry), "Retry-After {retry} s is the time to next month");
        assert_eq!(remaining(&state, &caller, Counter::Fills), Some(0));
        refund(&state, &caller, Counter::Fills);
        assert_eq!(consume(&state, &caller, Counter::Fills).unwrap(), 0, "a refunded unit can be used again");
        // Free plans have no AI clues at all; puzzles are counted apart.
        assert_eq!(consume(&state, &caller, Counter::AiClues).unwrap_err().code, Code::AiQuotaReached);
        assert_eq!(consume(&state, &caller, Counter::Puzzles).unwrap(), 29);
    }

    #[test]
    fn unlimited_plans_say_minus_one() {
        let (_d, state, caller) = state_and_caller(Tier::Patron, "[tiers.patron]\nfills_per_month = -1\n");
        for _ in 0..3 {
            assert_eq!(consume(&state, &caller, Counter::Fills).unwrap(), -1);
        }
    }

    #[test]
    fn grid_ceilings_follow_the_plan() {
        let (_d, state, caller) = state_and_caller(Tier::Free, "");
        assert!(check_grid_size(&state, &caller, 13).is_ok());
        let e = check_grid_size(&state, &caller, 15).unwrap_err();
        assert_eq!((e.code, e.status.as_u16()), (Code::GridSizeLocked, 403));
        assert_eq!(e.extra["maxGridSize"], 13);
        assert_eq!(e.extra["tier"], "free");
        let (_d, state, caller) = state_and_caller(Tier::Starter, "");
        assert!(check_grid_size(&state, &caller, 23).is_ok());
    }
}
