//! How big a file may be to be read whole: a file bigger than the memory there is to hold it
//! is refused with a message naming it, rather than left to the kernel's out-of-memory
//! killer (an 8 GB session on a 16 GB machine took the whole terminal down with it).
//!
//! Reading a file whole costs its bytes plus what is parsed out of them (about as much
//! again), so the budget is half the memory the kernel reports available;
//! `TRAJSCOPE_MEMORY_BUDGET` (bytes, or with a `K`/`M`/`G` suffix) overrides it. The memory
//! available is read from the kernel at most every 100 ms, not once per file.

use super::LoadError;
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

pub const BUDGET_ENV: &str = "TRAJSCOPE_MEMORY_BUDGET";

/// Bytes a file read whole may have; `None` when nothing says (no `/proc/meminfo`).
pub fn memory_budget() -> Option<u64> {
    if let Some(value) = std::env::var_os(BUDGET_ENV) {
        return parse_size(&value.to_string_lossy());
    }
    available().map(|bytes| bytes / 2)
}

/// How long a reading of the memory available stands for the next ones. A run's files are
/// checked one by one, thousands a second: reading `/proc/meminfo` for each (an open, a
/// dozen reads, the kernel adding up every counter) cost 3% of an uncached tally's CPU time
/// (docs/scale.md, twelfth round), and the figure does not move that fast.
const READING_LASTS: Duration = Duration::from_millis(100);

/// The last reading of `MemAvailable`: when (since [`START`]) and the bytes, `NONE` for none.
static READ_AT_MS: AtomicU64 = AtomicU64::new(NEVER);
static AVAILABLE: AtomicU64 = AtomicU64::new(NONE);
static START: OnceLock<Instant> = OnceLock::new();
const NEVER: u64 = u64::MAX;
const NONE: u64 = u64::MAX;

/// The memory available, in bytes, read at most [`READING_LASTS`] ago (two threads may both
/// read it: each stores a true reading).
fn available() -> Option<u64> {
    let now = u64::try_from(START.get_or_init(Instant::now).elapsed().as_millis()).ok()?;
    let at = READ_AT_MS.load(Ordering::Acquire);
    let lasts = u64::try_from(READING_LASTS.as_millis()).unwrap_or(0);
    if at != NEVER && now.saturating_sub(at) < lasts {
        let bytes = AVAILABLE.load(Ordering::Acquire);
        return (bytes != NONE).then_some(bytes);
    }
    let bytes = read_available();
    AVAILABLE.store(bytes.unwrap_or(NONE), Ordering::Release);
    READ_AT_MS.store(now, Ordering::Release);
    bytes
}

/// `MemAvailable` from `/proc/meminfo`, in bytes.
fn read_available() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
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

    #[test]
    fn a_reading_of_the_memory_available_is_the_kernels() {
        // Two calls in a row: the second may come from the first reading, never from nowhere.
        let first = available();
        let second = available();
        assert_eq!(first.is_some(), read_available().is_some());
        assert_eq!(second.is_some(), first.is_some());
    }
}
