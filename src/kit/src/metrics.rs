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

/// One route's figures: requests by status and the latency histogram.
#[derive(Default)]
struct RouteFigures {
    by_status: Vec<(u16, u64)>,
    latency: Histogram,
}

/// Request counters and latency histograms: one map under one lock, looked up by the route's
/// text without allocating (a route's key is made once, the first time it is seen).
#[derive(Default)]
pub struct RequestMetrics {
    routes: Mutex<AHashMap<Box<str>, RouteFigures>>,
}

impl RequestMetrics {
    /// Records one finished request.
    pub fn observe(&self, route: &str, status: u16, elapsed: Duration) {
        let seconds = elapsed.as_secs_f64();
        let mut routes = self.routes.lock();
        let figures = match routes.get_mut(route) {
            Some(f) => f,
            None => routes.entry(route.into()).or_default(),
        };
        match figures.by_status.iter_mut().find(|(s, _)| *s == status) {
            Some((_, n)) => *n += 1,
            None => figures.by_status.push((status, 1)),
        }
        let h = &mut figures.latency;
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
        let routes = self.routes.lock();
        let mut names: Vec<&Box<str>> = routes.keys().collect();
        names.sort();
        for route in &names {
            let mut statuses = routes[*route].by_status.clone();
            statuses.sort_unstable();
            for (status, n) in statuses {
                let _ = writeln!(out, "{prefix}_requests_total{{route=\"{route}\",status=\"{status}\"}} {n}");
            }
        }
        let _ = write!(
            out,
            "# HELP {prefix}_request_seconds Request latency by route.\n# TYPE {prefix}_request_seconds histogram\n"
        );
        for route in names {
            let h = &routes[route].latency;
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
