//! What can go wrong exporting: the writer fails, or the steps asked for are not there.

/// An export that could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("writing the export: {0}")]
    Io(#[from] std::io::Error),
    #[error("no step {step}; steps are numbered 1 to {len}")]
    NoSuchStep { step: usize, len: usize },
    #[error("`{0}` is not a step range: give N, A..B, A.. or ..B (1-based, inclusive)")]
    BadRange(String),
    /// A step of a trajectory opened lazily could not be read back from its file.
    #[error("{0}")]
    Read(String),
}
