//! Numbers as people read them on screen: `1,204`, `$0.0123`, `1.2 KB`, `3.4s`.

use crate::calendar::days_from_civil;
/// `1234567` → `1,234,567`.
pub fn count(n: u64) -> String {
    crate::text::thousands(n)
}

/// Dollars with enough digits to tell small step costs apart.
pub fn cost(dollars: f64) -> String {
    if dollars >= 100.0 {
        format!("${dollars:.0}")
    } else if dollars >= 1.0 {
        format!("${dollars:.2}")
    } else {
        format!("${dollars:.4}")
    }
}

/// Token counts in the short form tables use: `950`, `12.3k`, `4.1M`.
pub fn short(n: u64) -> String {
    match n {
        0..=9_999 => n.to_string(),
        10_000..=999_999 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

pub fn bytes(n: u64) -> String {
    match n {
        0..=1023 => format!("{n} B"),
        1024..=1_048_575 => format!("{:.1} KB", n as f64 / 1024.0),
        _ => format!("{:.1} MB", n as f64 / 1_048_576.0),
    }
}

pub fn seconds(s: f64) -> String {
    if s >= 60.0 {
        format!("{}m{:02}s", (s / 60.0) as u64, (s % 60.0) as u64)
    } else {
        format!("{s:.2}s")
    }
}

/// A logged timestamp as local date-time, `2026-03-09 17:28:44`: epoch seconds (as
/// mini-swe-agent writes them, `1773073724.4782195`; milliseconds too) or RFC 3339 with a
/// zone (`…Z`, `…+02:00`). Anything else is shown as logged.
pub fn local_time(text: &str) -> String {
    match epoch_seconds(text.trim()) {
        Some(seconds) => local(seconds).unwrap_or_else(|| text.to_string()),
        None => text.to_string(),
    }
}

fn epoch_seconds(text: &str) -> Option<i64> {
    if let Ok(value) = text.parse::<f64>() {
        if !value.is_finite() || value <= 0.0 {
            return None;
        }
        let seconds = if value > 1e12 { value / 1000.0 } else { value };
        return Some(seconds as i64);
    }
    let b = text.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b' ') {
        return None;
    }
    let num = |range: std::ops::Range<usize>| text.get(range)?.parse::<i64>().ok();
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut rest = &text[19..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        rest = &fraction[digits..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ => {
            let sign = match rest.as_bytes().first()? {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let digits: String = rest[1..].chars().filter(|c| *c != ':').collect();
            if digits.len() != 4 {
                return None;
            }
            let hours: i64 = digits[..2].parse().ok()?;
            let minutes: i64 = digits[2..].parse().ok()?;
            sign * (hours * 3600 + minutes * 60)
        }
    };
    let days = days_from_civil(year, month, day);
    Some(days * 86_400 + hour * 3600 + minute * 60 + second - offset)
}

/// `seconds` since the epoch in the user's time zone.
#[cfg(unix)]
fn local(seconds: i64) -> Option<String> {
    // `time_t` is 32 bits on some platforms: the conversion is not useless there.
    #[allow(clippy::useless_conversion)]
    let time: libc::time_t = seconds.try_into().ok()?;
    // SAFETY: `tm` is plain data that `localtime_r` fills in; both pointers are to locals
    // that outlive the call, and the reentrant variant keeps no shared state.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let filled = unsafe { libc::localtime_r(&time, &mut tm) };
    if filled.is_null() {
        return None;
    }
    Some(format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
        tm.tm_year + 1900,
        tm.tm_mon + 1,
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec
    ))
}

#[cfg(not(unix))]
fn local(_seconds: i64) -> Option<String> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_read_as_local_date_time() {
        // One instant in three spellings.
        let epoch = local_time("1773073724.4782195");
        assert_eq!(epoch.len(), 19, "{epoch}");
        assert!(!epoch.contains("1773073724"), "{epoch}");
        assert_eq!(local_time("2026-03-09T16:28:44Z"), epoch);
        assert_eq!(local_time("2026-03-09T18:28:44.120+02:00"), epoch);
        assert_eq!(local_time("1773073724478"), epoch);
        // Not a time: as logged.
        assert_eq!(local_time("step 3"), "step 3");
        assert_eq!(local_time("2026-03-09T16:28:44"), "2026-03-09T16:28:44");
    }

    #[test]
    fn readable_numbers() {
        assert_eq!(count(0), "0");
        assert_eq!(count(1204), "1,204");
        assert_eq!(count(1234567), "1,234,567");
        assert_eq!(cost(0.01234), "$0.0123");
        assert_eq!(cost(12.345), "$12.35");
        assert_eq!(short(12_345), "12.3k");
        assert_eq!(short(4_100_000), "4.1M");
        assert_eq!(bytes(2048), "2.0 KB");
        assert_eq!(seconds(75.0), "1m15s");
    }
}
