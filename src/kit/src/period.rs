//! Monthly periods: quotas are counted per UTC calendar month (`2026-11`). A counter "resets" on
//! the first of the month simply because a new period key starts at zero.

use std::time::{SystemTime, UNIX_EPOCH};

/// The UTC calendar month of a Unix time, as `YYYY-MM`.
pub fn period_of(unix_seconds: u64) -> String {
    let (year, month, _) = civil_date(unix_seconds);
    format!("{year:04}-{month:02}")
}

/// The UTC calendar date (year, month 1-12, day 1-31) of a Unix time.
pub fn civil_date(unix_seconds: u64) -> (i64, i64, i64) {
    // Civil-from-days (proleptic Gregorian), after Howard Hinnant's public-domain algorithm.
    let days = (unix_seconds / 86_400) as i64 + 719_468;
    let era = days.div_euclid(146_097);
    let doe = days - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// An RFC 3339 UTC timestamp with milliseconds (`2026-11-24T12:38:07.123Z`) of a Unix time in
/// milliseconds.
pub fn rfc3339_millis(unix_millis: u64) -> String {
    let seconds = unix_millis / 1000;
    let (year, month, day) = civil_date(seconds);
    let in_day = seconds % 86_400;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        in_day / 3600,
        in_day % 3600 / 60,
        in_day % 60,
        unix_millis % 1000
    )
}

/// Milliseconds since the Unix epoch now (0 if the clock is before it).
pub fn unix_now_millis() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// Seconds since the Unix epoch now (0 if the clock is before it).
pub fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

/// The current period.
pub fn current_period() -> String {
    period_of(unix_now())
}

/// Seconds from `now` until the first of the next month, 00:00 UTC (when monthly quotas
/// refill); at least 1.
pub fn seconds_until_next_period_from(now: u64) -> u64 {
    let period = period_of(now);
    // Step a day at a time from now until the period changes (at most 31 steps), then back to
    // midnight of that day.
    let mut t = now - now % 86_400;
    while period_of(t) == period {
        t += 86_400;
    }
    t.saturating_sub(now).max(1)
}

/// Seconds from now until the first of the next month, 00:00 UTC.
pub fn seconds_until_next_period() -> u64 {
    seconds_until_next_period_from(unix_now())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_are_utc_calendar_months() {
        assert_eq!(period_of(0), "1970-01");
        assert_eq!(period_of(951_782_400), "2000-02"); // 2000-02-29, a leap day
        assert_eq!(period_of(1_798_761_599), "2026-12"); // 2026-12-31T23:59:59Z
        assert_eq!(period_of(1_798_761_600), "2027-01"); // the first second of January
        assert_eq!(period_of(1_793_491_200), "2026-11"); // 2026-11-01T00:00:00Z
        assert_eq!(period_of(1_793_491_199), "2026-10");
    }

    #[test]
    fn timestamps_are_rfc3339_utc() {
        assert_eq!(rfc3339_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_millis(951_782_400_005), "2000-02-29T00:00:00.005Z");
        assert_eq!(rfc3339_millis(1_798_761_599_999), "2026-12-31T23:59:59.999Z");
        assert_eq!(civil_date(1_793_491_200), (2026, 11, 1));
    }

    #[test]
    fn the_next_period_starts_at_midnight_on_the_first() {
        assert_eq!(seconds_until_next_period_from(1_798_761_599), 1); // one second before 2027
        assert_eq!(seconds_until_next_period_from(1_793_491_200), 30 * 86_400); // November has 30 days
        assert_eq!(seconds_until_next_period_from(1_793_491_200 + 86_400 + 5), 29 * 86_400 - 5);
    }
}
