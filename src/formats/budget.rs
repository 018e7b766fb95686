//! How big a file may be to be read whole: a file bigger than the memory there is to hold it
//! is refused with a message naming it, rather than left to the kernel's out-of-memory
//! killer (an 8 GB session on a 16 GB machine took the whole terminal down with it).
//!
//! Reading a file whole costs its bytes plus what is parsed out of them (about as much
//! again), so the budget is half the memory the kernel reports available;
//! `TRAJSCOPE_MEMORY_BUDGET` (bytes, or with a `K`/`M`/`G` suffix) overrides it.

use super::LoadError;
use std::path::Path;

pub const BUDGET_ENV: &str = "TRAJSCOPE_MEMORY_BUDGET";

/// Bytes a file read whole may have; `None` when nothing says (no `/proc/meminfo`).
pub fn memory_budget() -> Option<u64> {
    if let Some(value) = std::env::var_os(BUDGET_ENV) {
        return parse_size(&value.to_string_lossy());
    }
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024 / 2)
}

/// `Err` naming `path` when its `len` bytes cannot be read whole within the budget.
pub fn check_fits(path: &Path, len: u64) -> Result<(), LoadError> {
    match memory_budget() {
        Some(budget) if len > budget => Err(LoadError::invalid(
            path,
            format!(
                "{} is too big to read whole here (the memory budget is {}: half the \
                 memory available, or {BUDGET_ENV}); open it in the TUI or show one step \
                 (`show --step N`), which read its steps back one at a time",
                human(len),
                human(budget)
            ),
        )),
        _ => Ok(()),
    }
}

fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => (&text[..i], text[i..].trim().to_ascii_uppercase()),
        None => (text, String::new()),
    };
    let n: u64 = digits.parse().ok()?;
    let shift = match unit.trim_end_matches(['B', 'I']) {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return None,
    };
    n.checked_mul(1 << shift)
}

fn human(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{:.1} GB", bytes as f64 / (1u64 << 30) as f64)
    } else {
        format!("{:.0} MB", bytes as f64 / (1u64 << 20) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_with_units() {
        assert_eq!(parse_size("1024"), Some(1024));
        assert_eq!(parse_size("64M"), Some(64 << 20));
        assert_eq!(parse_size("2 GiB"), Some(2 << 30));
        assert_eq!(parse_size("lots"), None);
    }
}
