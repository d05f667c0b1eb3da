//! Per-request facts available anywhere while a request is handled (problem documents need the
//! path and the public base URL). Installed by the middleware as a task-local.

/// What the current request is.
#[derive(Debug, Clone, Default)]
pub struct RequestContext {
    /// Public base URL of the service (no trailing slash), e.g. `http://127.0.0.1:8080`.
    pub base_url: String,
    /// The request path, used as the problem document's `instance`.
    pub path: String,
    /// The request id (also sent as `X-Request-Id`).
    pub request_id: String,
}

tokio::task_local! {
    static CONTEXT: RequestContext;
}

/// Runs `f` with `ctx` as the current request context.
pub async fn scope<F: std::future::Future>(ctx: RequestContext, f: F) -> F::Output {
    CONTEXT.scope(ctx, f).await
}

/// The current request context (empty outside a request).
pub fn current() -> RequestContext {
    CONTEXT.try_with(Clone::clone).unwrap_or_default()
}
