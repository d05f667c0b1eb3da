//! GET /metrics: the kit's request metrics (Prometheus text) plus the word index figures.

use std::fmt::Write as _;
use std::sync::Arc;

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};

use super::state::AppState;

/// The exposition text.
pub fn text(state: &AppState) -> String {
    let mut out = state.observer.metrics.render("crossword");
    let (loads, load_time) = state.indexes.load_stats();
    let loaded = state.indexes.status().iter().filter(|s| s.loaded).count();
    let _ = write!(
        out,
        "# HELP crossword_index_loads_total Language indexes opened.\n# TYPE crossword_index_loads_total counter\ncrossword_index_loads_total {loads}\n\
         # HELP crossword_index_load_seconds_total Time spent opening indexes.\n# TYPE crossword_index_load_seconds_total counter\ncrossword_index_load_seconds_total {}\n\
         # HELP crossword_index_mapped_bytes Bytes of index files mapped now (the cache size).\n# TYPE crossword_index_mapped_bytes gauge\ncrossword_index_mapped_bytes {}\n\
         # HELP crossword_index_loaded_languages Languages mapped now.\n# TYPE crossword_index_loaded_languages gauge\ncrossword_index_loaded_languages {loaded}\n",
        load_time.as_secs_f64(),
        state.indexes.mapped_bytes(),
    );
    out
}

/// GET /metrics.
pub async fn render(State(state): State<Arc<AppState>>) -> Response {
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text(&state)).into_response()
}
