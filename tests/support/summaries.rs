//! What the raw-summary tests share: the summaries of the usual (whole) read, and the check
//! that every raw summary of the files under a folder is that summary.
//!
//! Include with `#[path = "support/summaries.rs"] mod summaries;`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use trajscope::formats::{Detail, Loaded, load_bytes_with, raw_summary};
use trajscope::model::{Format, TrajectorySummary};

/// The summaries of the usual read, or `None` when it fails or holds results.
pub fn usual(path: &Path, bytes: &[u8]) -> Option<Vec<TrajectorySummary>> {
    match load_bytes_with(path, bytes, Detail::Steps) {
        Ok(Loaded::Trajectories(ts)) => Some(ts.iter().map(TrajectorySummary::of).collect()),
        _ => None,
    }
}

/// The files under `root` that `keep` takes, depth first.
fn files(root: &Path, keep: &dyn Fn(&std::fs::DirEntry) -> bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, keep, out);
        } else if keep(&entry) {
            out.push(path);
        }
    }
}

/// Checks every file under `root` that `keep` takes: a raw summary, where there is one, is
/// the usual read's. The number of raw summaries of `format` (of any format when `None`).
pub fn agrees_under(
    root: &Path,
    keep: &dyn Fn(&std::fs::DirEntry) -> bool,
    format: Option<Format>,
) -> usize {
    let mut all = Vec::new();
    files(root, keep, &mut all);
    let mut taken = 0;
    for path in all {
        let bytes = std::fs::read(&path).unwrap();
        if let Some(raw) = raw_summary(&path, &bytes) {
            taken += usize::from(format.is_none_or(|f| raw.format == f));
            let want = usual(&path, &bytes)
                .unwrap_or_else(|| panic!("{}: summarised raw, unreadable whole", path.display()));
            assert_eq!(vec![raw], want, "{}", path.display());
        }
    }
    taken
}

/// Writes `text` to `dir/name`; the path and the bytes.
pub fn write(dir: &Path, name: &str, text: &str) -> (PathBuf, Vec<u8>) {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    (path, text.as_bytes().to_vec())
}
