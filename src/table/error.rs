//! What can go wrong writing a table: every message names the path it is about.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum TableError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: writing Parquet: {source}", path.display())]
    Parquet {
        path: PathBuf,
        source: parquet::errors::ParquetError,
    },
    #[error("{}: building a column batch: {source}", path.display())]
    Arrow {
        path: PathBuf,
        source: arrow_schema::ArrowError,
    },
    #[error(
        "{}: the folder exists and is not empty; pass --force to replace it (it is replaced only once the new table is complete)",
        path.display()
    )]
    NotEmpty { path: PathBuf },
    #[error("{}: the output folder would hold the input {}; choose a folder outside the run", out.display(), input.display())]
    HoldsInput { out: PathBuf, input: PathBuf },
    #[error("no trajectories found in {0}")]
    NothingRead(String),
}

impl TableError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> TableError {
        TableError::Io {
            path: path.into(),
            source,
        }
    }
}
