//! When to send a failed request again and how long to wait first: which statuses are worth a
//! retry, exponential backoff with jitter, and the server's own `Retry-After` (seconds or an
//! HTTP date, or `retry-after-ms`). Pure functions of their inputs, so they are tested without
//! sleeping.

use super::config::RetryPolicy;
use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, SystemTime};

/// Statuses that say "try again later": timeouts, rate limits, overload and server errors.
/// 501 (not implemented) and 505 will not get better by retrying.
pub fn is_retryable(status: u16) -> bool {
    matches!(status, 408 | 425 | 429)
        || (500..=599).contains(&status) && !matches!(status, 501 | 505)
}

/// The wait the server asks for, from `retry-after-ms` or `Retry-After` (delta seconds or an
/// HTTP date, measured from `now`). A date in the past means "now".
pub fn retry_after(headers: &reqwest::header::HeaderMap, now: SystemTime) -> Option<Duration> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return Duration::try_from_secs_f64(ms / 1000.0).ok();
    }
    let value = header("retry-after")?;
    if let Ok(seconds) = value.parse::<f64>() {
        return Duration::try_from_secs_f64(seconds).ok();
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

/// The wait before retry number `retry` (1-based): `initial · 2^(retry-1)`, capped at the
/// policy's maximum, then "equal jitter" (between half and all of it) so that many clients
/// rate-limited at once (a fan-out across backends) do not come back in lockstep.
pub fn backoff(policy: &RetryPolicy, retry: u32) -> Duration {
    let exponent = retry.saturating_sub(1).min(30);
    let full = (policy.initial_backoff_s * f64::from(1u32 << exponent)).min(policy.max_backoff_s);
    let full = Duration::try_from_secs_f64(full.max(0.0)).unwrap_or(Duration::ZERO);
    full / 2 + full.mul_f64(jitter() / 2.0)
}

/// A number in [0, 1) that differs between calls; no randomness crate needed for this.
fn jitter() -> f64 {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::{HeaderMap, HeaderValue};

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn retry_after_in_seconds_dates_and_milliseconds() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(
            retry_after(&headers(&[("retry-after", "3")]), now),
            Some(Duration::from_secs(3))
        );
        let later = httpdate::fmt_http_date(now + Duration::from_secs(20));
        assert_eq!(
            retry_after(&headers(&[("retry-after", &later)]), now),
            Some(Duration::from_secs(20))
        );
        let past = httpdate::fmt_http_date(now - Duration::from_secs(20));
        assert_eq!(
            retry_after(&headers(&[("retry-after", &past)]), now),
            Some(Duration::ZERO)
        );
        assert_eq!(
            retry_after(
                &headers(&[("retry-after-ms", "250"), ("retry-after", "9")]),
                now
            ),
            Some(Duration::from_millis(250))
        );
        assert_eq!(retry_after(&headers(&[("retry-after", "soon")]), now), None);
        assert_eq!(retry_after(&headers(&[("retry-after", "-1")]), now), None);
        assert_eq!(retry_after(&HeaderMap::new(), now), None);
    }

    #[test]
    fn backoff_doubles_within_jitter_and_caps() {
        let policy = RetryPolicy {
            max_retries: 10,
            initial_backoff_s: 1.0,
            max_backoff_s: 5.0,
        };
        for (retry, full) in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 5.0), (40, 5.0)] {
            let wait = backoff(&policy, retry).as_secs_f64();
            assert!(
                wait >= full / 2.0 && wait <= full,
                "retry {retry}: {wait} not in [{}, {full}]",
                full / 2.0
            );
        }
    }

    #[test]
    fn which_statuses_are_retried() {
        for status in [408, 429, 500, 502, 503, 504, 529] {
            assert!(is_retryable(status), "{status}");
        }
        for status in [400, 401, 403, 404, 422, 501] {
            assert!(!is_retryable(status), "{status}");
        }
    }
}
