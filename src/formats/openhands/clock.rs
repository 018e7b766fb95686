//! ISO 8601 timestamps as OpenHands writes them, turned into seconds to measure step durations.
//!
//! Only differences between two timestamps of one log are taken, so a timestamp without a
//! zone (`2025-01-27T22:44:56.900854`, OpenHands' usual form) is read as UTC.

use crate::calendar::days_from_civil;
/// Seconds since the Unix epoch of `2025-01-27T22:44:56.900854`, `…Z` or `…+02:00`.
pub fn seconds(text: &str) -> Option<f64> {
    let text = text.trim();
    let (date, time) = text.split_once(['T', ' '])?;
    let mut ymd = date.splitn(3, '-');
    let year: i64 = ymd.next()?.parse().ok()?;
    let month: i64 = ymd.next()?.parse().ok()?;
    let day: i64 = ymd.next()?.parse().ok()?;
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let (clock, offset) = split_offset(time)?;
    let mut hms = clock.splitn(3, ':');
    let hours: f64 = hms.next()?.parse().ok()?;
    let minutes: f64 = hms.next()?.parse().ok()?;
    let secs: f64 = hms.next().unwrap_or("0").parse().ok()?;
    let days = days_from_civil(year, month, day) as f64;
    let total = days * 86_400.0 + hours * 3_600.0 + minutes * 60.0 + secs - offset;
    total.is_finite().then_some(total)
}

/// The seconds between two timestamps, when both parse and the second is not earlier.
pub fn elapsed(start: &str, end: &str) -> Option<f64> {
    let d = seconds(end)? - seconds(start)?;
    (d >= 0.0).then_some(d)
}

/// `12:00:00.5+02:00` → (`12:00:00.5`, 7200 s); `Z` and no zone are UTC.
fn split_offset(time: &str) -> Option<(&str, f64)> {
    if let Some(clock) = time.strip_suffix('Z') {
        return Some((clock, 0.0));
    }
    let Some(at) = time.rfind(['+', '-']) else {
        return Some((time, 0.0));
    };
    let (clock, zone) = time.split_at(at);
    let sign = if zone.starts_with('-') { -1.0 } else { 1.0 };
    let zone = &zone[1..];
    let (h, m) = zone.split_once(':').unwrap_or((zone, "0"));
    let offset = h.parse::<f64>().ok()? * 3_600.0 + m.parse::<f64>().ok()? * 60.0;
    Some((clock, sign * offset))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_instants() {
        assert_eq!(seconds("1970-01-01T00:00:00"), Some(0.0));
        assert_eq!(seconds("2000-03-01T00:00:00Z"), Some(951_868_800.0));
        assert_eq!(seconds("2000-03-01T02:00:00+02:00"), Some(951_868_800.0));
        assert_eq!(seconds("2000-02-29T23:00:00-01:00"), Some(951_868_800.0));
    }

    #[test]
    fn elapsed_between_openhands_events() {
        let d = elapsed("2025-01-27T22:45:13.764487", "2025-01-27T22:45:13.801384").unwrap();
        assert!((d - 0.036897).abs() < 1e-6, "{d}");
        let across_midnight = elapsed("2025-01-31T23:59:59", "2025-02-01T00:00:01").unwrap();
        assert!((across_midnight - 2.0).abs() < 1e-9);
        assert_eq!(elapsed("2025-01-02T00:00:00", "2025-01-01T00:00:00"), None);
    }

    #[test]
    fn garbage_is_none() {
        for text in [
            "",
            "yesterday",
            "2025-13-01T00:00:00",
            "2025-01-01",
            "2025-01-01Tab:cd",
            "2025-01-01T00:00:NaN",
        ] {
            assert_eq!(seconds(text), None, "{text}");
        }
    }
}
