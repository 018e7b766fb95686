//! `--results FILE`: eval results files the user names, shared by every command that shows
//! verdicts. Named files come before those found beside or above the trajectories.

use anyhow::Result;
use std::path::PathBuf;
use trajscope::formats::{named_results, results_above};
use trajscope::model::{EvalResults, ResultsSource, Trajectory};

#[derive(Debug, Clone, Default, clap::Args)]
pub struct ResultsArg {
    /// An eval results file (SWE-bench results.json, report.json, a run summary, preds.json),
    /// repeatable: its verdicts are taken before those found beside or above the
    /// trajectories. Results of another model are still not joined.
    #[arg(long = "results", value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

impl ResultsArg {
    /// The named files, read; a file that cannot be read as results is an error naming it.
    pub fn named(&self) -> Result<Vec<ResultsSource>> {
        Ok(named_results(&self.files)?)
    }

    /// Joins a trajectory opened alone with the named files and those above its file.
    pub fn join(&self, trajectory: &mut Trajectory) -> Result<()> {
        let mut results = EvalResults {
            sources: results_above(std::slice::from_ref(&trajectory.path)),
        };
        results.name_first(self.named()?);
        results.apply(std::slice::from_mut(trajectory));
        Ok(())
    }
}
