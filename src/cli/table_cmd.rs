//! `trajscope table PATH… -o DIR`: a run written as Parquet, the step and trajectory tables
//! DuckDB and Spark run the rules over (`trajscope stats --emit-sql`; docs/parquet.md).

use super::progress::Indicator;
use anyhow::Result;
use std::path::PathBuf;
use std::process::ExitCode;
use trajscope::formats::RunCache;
use trajscope::table::{TableOptions, write_run};

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// Run folders or trajectory files (any format trajscope reads).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// The table folder to write: DIR/steps/*.parquet and DIR/trajectories/*.parquet.
    #[arg(long, short = 'o', value_name = "DIR")]
    pub output: PathBuf,
    /// Replace DIR when it is not empty (only once the new table is complete).
    #[arg(long)]
    pub force: bool,
    /// The `run` column (by default the PATH that holds each file): name each shard's run
    /// when tables from several machines are read together.
    #[arg(long, value_name = "NAME")]
    pub run: Option<String>,
    /// Close a Parquet file and begin the next past this many megabytes.
    #[arg(long, value_name = "MB", default_value_t = 256)]
    pub file_mb: usize,
    /// Read every file instead of reusing the summaries cached from the last time.
    #[arg(long)]
    pub no_cache: bool,
}

const EXAMPLES: &str = "\
Examples:
  trajscope table runs/my-eval/ -o my-eval.table
  trajscope table shard-3/ -o s3.table --run shard-3     one shard of a larger run
  duckdb -c \"$(trajscope stats --emit-sql duckdb --table my-eval.table)\"";

pub fn run(args: Args) -> Result<ExitCode> {
    let options = TableOptions {
        run: args.run.clone(),
        force: args.force,
        file_bytes: args.file_mb.max(1) << 20,
        ..TableOptions::default()
    };
    let mut cache = match RunCache::default_dir() {
        Some(dir) if !args.no_cache => RunCache::open(&dir, &args.paths),
        _ => RunCache::disabled(),
    };
    let indicator = Indicator::new();
    let written = write_run(&args.paths, &args.output, &options, &mut cache, &|p| {
        indicator.update(p)
    });
    indicator.finish();
    // A cache that cannot be written only costs speed next time.
    let _ = cache.save();
    let report = written?;
    for failure in &report.failures {
        eprintln!("trajscope: {}", failure.message);
    }
    eprintln!(
        "trajscope: wrote {} trajectories and {} steps to {} ({} files, {:.1} MB)",
        report.trajectories,
        report.steps,
        report.folder.display(),
        report.files.len(),
        report.bytes as f64 / 1_048_576.0
    );
    Ok(ExitCode::SUCCESS)
}
