//! Request metrics in the Prometheus text exposition format: requests by route and status,
//! latency histograms by route. A service appends its own lines after them.

use std::fmt::Write as _;
use std::time::Duration;

use ahash::AHashMap;
use parking_lot::Mutex;

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
pub struct RequestMetrics {
    requests: Mutex<AHashMap<(String, u16), u64>>,
    latency: Mutex<AHashMap<String, Histogram>>,
}

impl RequestMetrics {
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

    /// The exposition text, metric names starting with `prefix` (`crossword`).
    pub fn render(&self, prefix: &str) -> String {
        let mut out = String::new();
        let _ = write!(
            out,
            "# HELP {prefix}_requests_total HTTP requests by route and status.\n# TYPE {prefix}_requests_total counter\n"
        );
        let mut requests: Vec<_> = self.requests.lock().iter().map(|(k, v)| (k.clone(), *v)).collect();
        requests.sort();
        for ((route, status), n) in requests {
            let _ = writeln!(out, "{prefix}_requests_total{{route=\"{route}\",status=\"{status}\"}} {n}");
        }
        let _ = write!(
            out,
            "# HELP {prefix}_request_seconds Request latency by route.\n# TYPE {prefix}_request_seconds histogram\n"
        );
        let latency = self.latency.lock();
        let mut routes: Vec<&String> = latency.keys().collect();
        routes.sort();
        for route in routes {
            let h = &latency[route];
            for (count, bound) in h.counts.iter().zip(BUCKETS) {
                let _ = writeln!(out, "{prefix}_request_seconds_bucket{{route=\"{route}\",le=\"{bound}\"}} {count}");
            }
            let _ = writeln!(out, "{prefix}_request_seconds_bucket{{route=\"{route}\",le=\"+Inf\"}} {}", h.total);
            let _ = writeln!(out, "{prefix}_request_seconds_sum{{route=\"{route}\"}} {}", h.sum);
            let _ = writeln!(out, "{prefix}_request_seconds_count{{route=\"{route}\"}} {}", h.total);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_latency_are_counted_per_route() {
        let m = RequestMetrics::default();
        m.observe("/a", 200, Duration::from_micros(50));
        m.observe("/a", 200, Duration::from_millis(3));
        m.observe("/a", 404, Duration::from_millis(3));
        let text = m.render("svc");
        assert!(text.contains("svc_requests_total{route=\"/a\",status=\"200\"} 2"), "{text}");
        assert!(text.contains("svc_requests_total{route=\"/a\",status=\"404\"} 1"));
        assert!(text.contains("svc_request_seconds_bucket{route=\"/a\",le=\"0.0001\"} 1"));
        assert!(text.contains("svc_request_seconds_bucket{route=\"/a\",le=\"0.005\"} 3"));
        assert!(text.contains("svc_request_seconds_count{route=\"/a\"} 3"));
    }
}
