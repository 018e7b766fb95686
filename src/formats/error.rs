//! Why a file could not be read: one line, naming the file and, where known, line and column.

use std::path::{Path, PathBuf};
use thiserror::Error;

/// A file that is not a readable trajectory. `Display` is the one-line message shown to users.
#[derive(Debug, Error)]
pub enum LoadError {
    // The I/O error is in the message, and so is not also its `source`: a report that
    // prints the chain (`{err:#}`) would say it twice.
    #[error("{}: {error}", path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{}:{line}:{column}: {message}", path.display())]
    Syntax {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{}: the file is empty", path.display())]
    Empty { path: PathBuf },
    #[error("{}: not a trajectory ({reason})", path.display())]
    Unrecognized { path: PathBuf, reason: String },
    #[error("{}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
    #[error("{}:{line}: {message}", path.display())]
    InvalidAt {
        path: PathBuf,
        line: usize,
        message: String,
    },
}

impl LoadError {
    pub fn path(&self) -> &Path {
        match self {
            LoadError::Io { path, .. }
            | LoadError::Syntax { path, .. }
            | LoadError::Empty { path }
            | LoadError::Unrecognized { path, .. }
            | LoadError::Invalid { path, .. }
            | LoadError::InvalidAt { path, .. } => path,
        }
    }

    pub fn io(path: &Path, source: std::io::Error) -> LoadError {
        LoadError::Io {
            path: path.to_path_buf(),
            error: source,
        }
    }

    pub fn invalid(path: &Path, message: impl Into<String>) -> LoadError {
        LoadError::Invalid {
            path: path.to_path_buf(),
            message: message.into(),
        }
    }

    pub fn unrecognized(path: &Path, reason: impl Into<String>) -> LoadError {
        LoadError::Unrecognized {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }

    /// A serde_json error at a position in the whole file. `line_offset` is added to the
    /// line serde reports, for errors inside one line of a JSONL file.
    pub fn json(path: &Path, err: &serde_json::Error, line_offset: usize) -> LoadError {
        let message = if err.is_eof() {
            "unexpected end of JSON: the file is truncated (still being written?)".to_string()
        } else {
            // serde_json appends " at line L column C"; we print the position up front.
            let text = err.to_string();
            match text.rfind(" at line ") {
                Some(at) => text[..at].to_string(),
                None => text,
            }
        };
        LoadError::Syntax {
            path: path.to_path_buf(),
            line: err.line() + line_offset,
            column: err.column(),
            message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_errors_name_file_line_and_column() {
        let err = serde_json::from_str::<serde_json::Value>("{\n  \"a\": [1, 2,\n").unwrap_err();
        let msg = LoadError::json(Path::new("x.traj"), &err, 0).to_string();
        assert!(msg.starts_with("x.traj:3:"), "{msg}");
        assert!(msg.contains("truncated"), "{msg}");

        let err = serde_json::from_str::<serde_json::Value>("{\"a\": tru }").unwrap_err();
        let msg = LoadError::json(Path::new("y.json"), &err, 4).to_string();
        assert!(msg.starts_with("y.json:5:"), "{msg}");
        assert!(!msg.contains(" at line "), "{msg}");
    }
}
