//! The crossword contract's error codes. Every failure the API returns is an [`ApiError`]: a
//! problem document (`application/problem+json`, the kit's [`Problem`]) with one of these codes,
//! its `type` pointing at the error reference page (`/api/v1/errors#CODE`).

use service_kit::problem::{CodeInfo, Problem, ProblemCode};

/// The contract's error codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// Missing, malformed, unknown or revoked key.
    Unauthorized,
    /// The key lacks the scope the operation needs.
    ForbiddenScope,
    /// The grid is larger than the plan allows.
    GridSizeLocked,
    /// Only paid plans may do this.
    MembersOnly,
    /// Monthly AI clue quota used up.
    AiQuotaReached,
    /// Monthly fill quota used up.
    FillQuotaReached,
    /// Monthly puzzle quota used up.
    PuzzleQuotaReached,
    /// Three puzzles already await showcase review.
    ShowcaseQueueFull,
    /// Too many requests in the current window.
    RateLimited,
    /// The solver runs as many jobs as allowed.
    SolverBusy,
    /// Unknown language code (400) or index not loadable (503).
    LanguageUnavailable,
    /// A field is missing, of the wrong type or out of range.
    ValidationError,
    /// No such resource.
    NotFound,
    /// A dependency failed.
    UpstreamUnavailable,
}

impl ProblemCode for Code {
    const ERRORS_PATH: &'static str = "/api/v1/errors";
    const VALIDATION: Code = Code::ValidationError;

    fn all() -> &'static [Code] {
        &Code::ALL
    }

    fn info(self) -> CodeInfo {
        self.reference()
    }
}

impl Code {
    /// Every code, in the contract's order.
    pub const ALL: [Code; 14] = [
        Code::Unauthorized,
        Code::ForbiddenScope,
        Code::GridSizeLocked,
        Code::MembersOnly,
        Code::AiQuotaReached,
        Code::FillQuotaReached,
        Code::PuzzleQuotaReached,
        Code::ShowcaseQueueFull,
        Code::RateLimited,
        Code::SolverBusy,
        Code::LanguageUnavailable,
        Code::ValidationError,
        Code::NotFound,
        Code::UpstreamUnavailable,
    ];

    /// Reference facts (also [`ProblemCode::info`]).
    pub fn reference(self) -> CodeInfo {
        const QUOTA: &[&str] = &["limit", "remaining", "tier", "upgradeUrl", "contact"];
        let (name, status, title, meaning, retry, extras): (_, _, _, _, _, &'static [&'static str]) = match self {
            Code::Unauthorized => ("UNAUTHORIZED", 401, "Unauthorized", "The API key is missing, malformed, unknown or revoked (the causes are not told apart).", "No.", &[]),
            Code::ForbiddenScope => ("FORBIDDEN_SCOPE", 403, "Forbidden", "The key is valid but lacks the scope this operation needs.", "No.", &["requiredScope"]),
            Code::GridSizeLocked => ("GRID_SIZE_LOCKED", 403, "Grid size locked", "The grid is larger than the account's plan allows (13x13 free, 23x23 paid).", "No.", &["maxGridSize", "tier", "upgradeUrl"]),
            Code::MembersOnly => ("MEMBERS_ONLY", 403, "Members only", "Only paid plans may generate AI clues; the free plan's allowance is zero.", "No.", &["tier", "upgradeUrl"]),
            Code::AiQuotaReached => ("AI_QUOTA_REACHED", 429, "AI clue quota reached", "The account's monthly AI clue requests are used up.", "Next calendar month.", QUOTA),
            Code::FillQuotaReached => ("FILL_QUOTA_REACHED", 429, "Fill quota reached", "The account's monthly fills are used up; a clean-up counts as a fill.", "Next calendar month.", QUOTA),
            Code::PuzzleQuotaReached => ("PUZZLE_QUOTA_REACHED", 429, "Puzzle quota reached", "The account's monthly new puzzles are used up; use Idempotency-Key to avoid duplicates.", "Next calendar month.", QUOTA),
            Code::ShowcaseQueueFull => ("SHOWCASE_QUEUE_FULL", 409, "Showcase queue full", "Three of the account's puzzles already await showcase review; nothing was applied.", "Once a queued puzzle is reviewed.", &["limit", "queued"]),
            Code::RateLimited => ("RATE_LIMITED", 429, "Rate limited", "Too many requests in the current one-minute window; nothing was consumed.", "After Retry-After seconds.", &["limit", "remaining"]),
            Code::SolverBusy => ("SOLVER_BUSY", 429, "Solver busy", "The solver runs as many jobs as allowed (two fills per account); the request was not queued and nothing was charged.", "After a few seconds, with jitter.", &[]),
            Code::LanguageUnavailable => ("LANGUAGE_UNAVAILABLE", 400, "Language unavailable", "400: the language code is unknown. 503: the code is real but its index could not be loaded.", "400: no. 503: retry once after a few seconds.", &[]),
            Code::ValidationError => ("VALIDATION_ERROR", 400, "Validation error", "A field is missing, of the wrong type or out of range; `field` names it, and for a grid `detail` names the row and column. An oversized body is refused with status 413.", "No.", &["field"]),
            Code::NotFound => ("NOT_FOUND", 404, "Not found", "No such resource or route, or another account's draft.", "No.", &[]),
            Code::UpstreamUnavailable => ("UPSTREAM_UNAVAILABLE", 502, "Upstream unavailable", "A dependency failed (502) or is unavailable (503); nothing was charged or written.", "Exponential backoff.", &[]),
        };
        let statuses = match self {
            Code::LanguageUnavailable => "400 or 503",
            Code::UpstreamUnavailable => "502 or 503",
            Code::ValidationError => "400 (413 for a body over 1 MB)",
            _ => "",
        };
        CodeInfo { name, status, statuses, title, meaning, retry, extras }
    }
}

/// A failure answered as a problem document with one of the crossword codes.
pub type ApiError = Problem<Code>;

/// Result of a handler.
pub type ApiResult<T> = Result<T, ApiError>;
