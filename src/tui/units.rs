//! Numbers as people read them on screen: `1,204`, `$0.0123`, `1.2 KB`, `3.4s`.

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

#[cfg(test)]
mod tests {
    use super::*;

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
