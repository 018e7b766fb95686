//! The step and trajectory tables as Parquet, and rules as SQL for DuckDB and Spark: how
//! counting leaves one machine without a home-made engine. [`write_run`] streams a run
//! (any format trajscope reads) into `DIR/steps/*.parquet` (one row per step: every fact a
//! rule looks at) and `DIR/trajectories/*.parquet` (one row per trajectory); [`sql::emit`]
//! translates a compiled rule set into one query over those two relations that gives the
//! numbers `trajscope stats --json` gives. Facts go in the tables, never rule results: the
//! rules run in the engine. Reading Parquet back as trajectories is `formats`' business.

mod columns;
mod error;
mod parts;
pub mod sql;
mod write_run;

pub use error::TableError;
pub use write_run::{TableOptions, TableReport, write_run};

/// The folder of the steps relation under a table folder.
pub const STEPS: &str = "steps";
/// The folder of the trajectories relation under a table folder.
pub const TRAJECTORIES: &str = "trajectories";
