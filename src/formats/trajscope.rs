//! trajscope's own trajectory file: the model serialised as JSON. Forks written by
//! `trajscope replay` use it, so that everything else reads them like any other log.

use super::LoadError;
use crate::model::Trajectory;
use std::path::Path;

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    let mut trajectory: Trajectory =
        serde_json::from_slice(bytes).map_err(|err| LoadError::json(path, &err, 0))?;
    // The file may have been moved since it was written: where it is now is its source.
    trajectory.path = path.to_path_buf();
    Ok(vec![trajectory])
}
