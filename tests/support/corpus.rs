//! The shared corpus of real logs (`../shared/corpus`), when present.
//!
//! Include with `#[path = "support/corpus.rs"] mod corpus;`. Tests that need the corpus
//! call [`corpus`] and return early (saying so) when it is absent: a fresh clone of the
//! project must pass its tests on its own.

#![allow(dead_code)]

use std::path::PathBuf;

/// `../shared/corpus/<rel>` relative to the crate, or `None` (with a note on stderr).
pub fn corpus(rel: &str) -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus")
        .join(rel);
    if path.exists() {
        Some(path)
    } else {
        eprintln!("skipping: {} is not present", path.display());
        None
    }
}
