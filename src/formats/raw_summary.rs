//! A listing's summary of one file read from its raw bytes, for the formats that have such a
//! reader (SWE-agent `.traj`, mini-swe-agent `.traj.json`): which reader a file goes to. Each
//! reader gives exactly the summary of the whole read, or `None` (read the file the usual way).

use super::{detect, mini_swe_agent, swe_agent};
use crate::model::{Format, TrajectorySummary};
use std::path::Path;

/// The summary of the trajectory in `bytes` read from its raw bytes; `None` when no raw
/// reader gives it exactly.
pub fn raw_summary(path: &Path, bytes: &[u8]) -> Option<TrajectorySummary> {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace())?;
    // SWE-agent writes `environment` or `trajectory` first: most of a SWE-agent run's files
    // go straight to its reader.
    if detect::format_from_first_key(&bytes[start..]) == Some(Format::SweAgent) {
        return swe_agent::raw_summary(path, bytes);
    }
    mini_swe_agent::raw_summary(path, bytes).or_else(|| swe_agent::raw_summary(path, bytes))
}
