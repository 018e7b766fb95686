//! The bundled sample trajectories (`sample-trajectories/`), for the tests that check them.
//!
//! Include with `#[path = "support/samples.rs"] mod samples;`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use trajscope::formats::{Loaded, load_file};
use trajscope::model::{Step, Trajectory};

/// The Inspect log's file name (without `.json` / `.eval`).
pub const INSPECT_LOG: &str = "2025-03-17T10-00-00+00-00_tinycalc-swe_86KhjPLUTNeBL35abgajcV";

pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-trajectories")
}

/// `path` relative to the samples folder, with `/` separators.
pub fn relative(path: &Path) -> String {
    path.strip_prefix(dir())
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

/// Every trajectory in the sample file `rel`.
pub fn load_all(rel: &str) -> Vec<Trajectory> {
    match load_file(&dir().join(rel)) {
        Ok(Loaded::Trajectories(ts)) => ts,
        other => panic!("{rel}: {other:?}"),
    }
}

/// The one trajectory in the sample file `rel`.
pub fn load(rel: &str) -> Trajectory {
    let mut ts = load_all(rel);
    assert_eq!(ts.len(), 1, "{rel}");
    ts.remove(0)
}

/// The first step whose observation contains `needle`.
pub fn step_with<'a>(t: &'a Trajectory, needle: &str) -> &'a Step {
    t.steps
        .iter()
        .find(|s| s.observation.contains(needle))
        .unwrap_or_else(|| panic!("{}: no observation with {needle:?}", t.path.display()))
}
