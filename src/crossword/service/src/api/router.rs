//! The router: every route of the service, the 404 fallback, and the one middleware. It is the
//! top of the request path and nothing imports it but the server.

use std::sync::Arc;

use axum::routing::{get, post};
use axum::Router;
use service_kit::admin::ADMIN_PATH;
use service_kit::observe::observe;

use super::error::{ApiError, Code};
use super::state::AppState;
use super::{admin, clues, export, fill, meta, metrics, puzzles, words};
use crate::web;

/// The service's router.
pub fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/", get(meta::landing))
        .route("/api/v1", get(meta::landing))
        .route("/api/v1/openapi.json", get(meta::openapi))
        .route("/api/v1/errors", get(meta::errors_page))
        .route("/api/v1/status", get(meta::status))
        .route("/api/v1/languages", get(meta::languages))
        .route("/api/v1/words", get(words::search))
        .route("/api/v1/words/scores", post(words::scores))
        .route("/api/v1/fill", post(fill::fill_handler))
        .route("/api/v1/fill/cancel", post(fill::cancel_handler))
        .route("/api/v1/fill/improve", post(fill::improve_handler))
        .route("/api/v1/clues/bulk", post(clues::bulk))
        .route("/api/v1/clues/generate", post(clues::generate_handler))
        .route("/api/v1/clues/{word}", get(clues::lookup))
        .route("/api/v1/puzzles", get(puzzles::list).post(puzzles::create))
        .route("/api/v1/puzzles/import", post(puzzles::import))
        .route("/api/v1/puzzles/{id}", get(puzzles::read).patch(puzzles::edit).delete(puzzles::delete))
        .route("/api/v1/puzzles/{id}/publish", post(puzzles::publish))
        .route("/api/v1/puzzles/{id}/export", get(export::export))
        .route("/api/v1/puzzles/{id}/versions", get(puzzles::versions))
        .route("/api/v1/puzzles/{id}/versions/{n}", get(puzzles::version))
        .route("/p/{id}", get(web::puzzle_page))
        .route("/p/{id}/preview.svg", get(web::preview))
        .route("/embed/{id}", get(web::embed_page))
        .route("/oembed", get(web::oembed))
        .route("/u/{slug}", get(web::author_page))
        .route("/showcase", get(web::showcase))
        .route("/assets/{name}", get(web::asset))
        .route("/metrics", get(metrics::render))
        .route(ADMIN_PATH, post(admin::command))
        .fallback(not_found)
        .method_not_allowed_fallback(not_found)
        .layer(axum::middleware::from_fn_with_state(state.observer.clone(), observe))
        .with_state(state)
}

async fn not_found(method: axum::http::Method) -> ApiError {
    ApiError::new(Code::NotFound, format!("no such route for {method}"))
}
