//! Loader for the `claude_code` format (being written).

use super::LoadError;
use crate::model::Trajectory;
use std::path::Path;

pub fn parse(path: &Path, _bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    Err(LoadError::invalid(
        path,
        "this format's loader is not written yet",
    ))
}
