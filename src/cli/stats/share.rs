//! A count beside its share of a group, as the text tables of `stats` print it. Its own
//! file so that the tables (`text.rs`) and the localization report use it without importing
//! each other (`json` → `localization` → `text` → `json` was a cycle).

/// `12 (40%)`: trajectories with a match, and their share of the group.
pub(super) fn share(n: u64, of: usize) -> String {
    if of == 0 {
        "-".into()
    } else {
        format!("{n} ({:.0}%)", 100.0 * n as f64 / of as f64)
    }
}
