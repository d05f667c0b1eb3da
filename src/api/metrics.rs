//! Prometheus metrics at GET /metrics, in the text exposition format: requests by route and
//! status, latency histograms by route, index loads and mapped bytes.

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use ahash::AHashMap;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use parking_lot::Mutex;

use super::AppState;

/// Upper bounds of the latency buckets, in seconds.
const BUCKETS: [f64; 12] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 2.5];

#[derive(Default)]
struct Histogram {
    counts: [u64; BUCKETS.len()],
    total: u64,
    sum: f64,
}

/// Request counters and latency histograms.
#[derive(Default)]
pub struct Metrics {
    requests: Mutex<AHashMap<(String, u16), u64>>,
    latency: Mutex<AHashMap<String, Histogram>>,
}

impl Metrics {
    /// Records one finished request.
    pub fn observe(&self, route: &str, status: u16, elapsed: Duration) {
        *self.requests.lock().entry((route.to_owned(), status)).or_default() += 1;
        let seconds = elapsed.as_secs_f64();
        let mut latency = self.latency.lock();
        let h = latency.entry(route.to_owned()).or_default();
        for (count, bound) in h.counts.iter_mut().zip(BUCKETS) {
            if seconds <= bound {
                *count += 1;
            }
        }
        h.total += 1;
        h.sum += seconds;
    }

    /// The exposition text.
    pub fn render(&self, state: &AppState) -> String {
        let mut out = String::new();
        out.push_str("# HELP crossword_requests_total HTTP requests by route and status.\n# TYPE crossword_requests_total counter\n");
        let mut requests: Vec<_> = self.requests.lock().iter().map(|(k, v)| (k.clone(), *v)).collect();
        requests.sort();
        for ((route, status), n) in requests {
            let _ = writeln!(out, "crossword_requests_total{{route=\"{route}\",status=\"{status}\"}} {n}");
        }
        out.push_str(
            "# HELP crossword_request_seconds Request latency by route.\n# TYPE crossword_request_seconds histogram\n",
        );
        let latency = self.latency.lock();
        let mut routes: Vec<&String> = latency.keys().collect();
        routes.sort();
        for route in routes {
            let h = &latency[route];
            for (count, bound) in h.counts.iter().zip(BUCKETS) {
                let _ = writeln!(out, "crossword_request_seconds_bucket{{route=\"{route}\",le=\"{bound}\"}} {count}");
            }
            let _ = writeln!(out, "crossword_request_seconds_bucket{{route=\"{route}\",le=\"+Inf\"}} {}", h.total);
            let _ = writeln!(out, "crossword_request_seconds_sum{{route=\"{route}\"}} {}", h.sum);
            let _ = writeln!(out, "crossword_request_seconds_count{{route=\"{route}\"}} {}", h.total);
        }
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
}

/// GET /metrics.
pub async fn render(State(state): State<Arc<AppState>>) -> Response {
    let text = state.metrics.render(&state);
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response()
}
