//! What names a trajectory and how it ended: the fields a [`super::Trajectory`], its listing
//! row ([`super::TrajectorySummary`]) and its rule tally share, and the one join of eval
//! results into them.
//!
//! Each of the three embeds one [`TrajectoryHeader`] and dereferences to it, so
//! `trajectory.instance_id` and `summary.resolved` read the same field the same way; a
//! field added here reaches all three, and a verdict is joined by one piece of code.

use super::{Format, LabelKey, Prediction, instance_id_from_path};
use serde::{Deserialize, Serialize};
use std::ops::DerefMut;
use std::path::{Path, PathBuf};

/// The identity and outcome of one trajectory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrajectoryHeader {
    /// The file it was read from.
    pub path: PathBuf,
    /// Where in the file, when a file holds several (the line of an `output.jsonl`, the
    /// sample of an Inspect log, the session of an Aider history): 0-based.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_index: Option<usize>,
    pub format: Format,
    /// The format's version or dialect, e.g. `1.1`, `v2 tool-calls`, `0.x`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format_detail: Option<String>,
    /// The task's id (SWE-bench instance id); the file stem when the log does not say.
    pub instance_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// How the run ended (`submitted`, `exit_cost`, `LimitsExceeded`, …), as the log says it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_status: Option<String>,
    /// Whether the task was solved: the log's own verdict, or one joined from eval results
    /// by instance id. Listings show an unknown one, so it is always written.
    #[serde(default)]
    pub resolved: Option<bool>,
    /// The file the verdict was read from: a results file, or the trajectory's own file
    /// when the log carries its verdict (Inspect scores). `None` without a verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict_source: Option<PathBuf>,
}

/// Which trajectory: its file, and its place in the file when the file holds several.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct TrajectoryKey {
    pub path: PathBuf,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_index: Option<usize>,
}

impl TrajectoryKey {
    pub fn of(header: &TrajectoryHeader) -> TrajectoryKey {
        header.key()
    }
}

impl TrajectoryHeader {
    /// The header of a trajectory of `format` read from `path`, named after the file.
    pub fn new(path: impl Into<PathBuf>, format: Format) -> TrajectoryHeader {
        let path = path.into();
        TrajectoryHeader {
            instance_id: instance_id_from_path(&path),
            path,
            source_index: None,
            format,
            format_detail: None,
            model: None,
            exit_status: None,
            resolved: None,
            verdict_source: None,
        }
    }

    /// The header as a listing keeps it: a verdict the log carries names the trajectory's
    /// own file as its source.
    pub fn listed(&self) -> TrajectoryHeader {
        let mut header = self.clone();
        header.join(None, None);
        header
    }

    pub fn key(&self) -> TrajectoryKey {
        TrajectoryKey {
            path: self.path.clone(),
            source_index: self.source_index,
        }
    }

    /// What its label is made from (see [`super::labels`]).
    pub fn label_key(&self) -> LabelKey<'_> {
        LabelKey {
            instance_id: &self.instance_id,
            path: &self.path,
            index: self.source_index,
        }
    }

    /// A name that tells trajectories of one file apart: `path` or `path#3`.
    pub fn display_source(&self) -> String {
        match self.source_index {
            Some(i) => format!("{}#{}", self.path.display(), i + 1),
            None => self.path.display().to_string(),
        }
    }

    /// Sets a joined verdict, unless the log carries its own (the trajectory's own path is
    /// then its source); a joined verdict is replaced when the results known so far name a
    /// better one (results arrive file by file in the app). Takes the exit status and model
    /// of a prediction where the log has none.
    pub fn join(&mut self, verdict: Option<(bool, &Path)>, prediction: Option<&Prediction>) {
        let own_verdict = match self.verdict_source.as_deref() {
            Some(s) => s == self.path,
            None => self.resolved.is_some(),
        };
        if own_verdict {
            if self.verdict_source.is_none() {
                self.verdict_source = Some(self.path.clone());
            }
        } else if let Some((value, from)) = verdict {
            self.resolved = Some(value);
            self.verdict_source = Some(from.to_path_buf());
        }
        if let Some(prediction) = prediction {
            if self.exit_status.is_none() {
                self.exit_status.clone_from(&prediction.exit_status);
            }
            if self.model.is_none() {
                self.model.clone_from(&prediction.model);
            }
        }
    }
}

/// What eval results are joined into: anything that holds a header. Only the patch differs
/// between the three (a trajectory keeps the text, a row its size, a tally also its files).
pub trait JoinTarget: DerefMut<Target = TrajectoryHeader> {
    /// Takes a prediction's patch, when the target has none of its own.
    fn take_patch(&mut self, patch: &str);

    /// Takes a verdict (and the results file it was read from) and, for what the target
    /// lacks, a prediction's patch, status and model.
    fn join(&mut self, verdict: Option<(bool, &Path)>, prediction: Option<&Prediction>) {
        self.deref_mut().join(verdict, prediction);
        if let Some(patch) = prediction.and_then(|p| p.patch.as_deref()) {
            self.take_patch(patch);
        }
    }
}

/// Implements `Deref`/`DerefMut` to the embedded `header` field.
macro_rules! derefs_to_header {
    ($type:ty) => {
        impl std::ops::Deref for $type {
            type Target = $crate::model::TrajectoryHeader;
            fn deref(&self) -> &Self::Target {
                &self.header
            }
        }
        impl std::ops::DerefMut for $type {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.header
            }
        }
    };
}
pub(crate) use derefs_to_header;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_own_verdict_stays_and_a_joined_one_gives_way_to_a_better_one() {
        let mut own = TrajectoryHeader::new("run/x.eval", Format::SweAgent);
        own.resolved = Some(false);
        own.join(Some((true, Path::new("run/results.json"))), None);
        assert_eq!(own.resolved, Some(false));
        assert_eq!(own.verdict_source.as_deref(), Some(Path::new("run/x.eval")));

        let mut joined = TrajectoryHeader::new("run/x.traj", Format::SweAgent);
        joined.join(Some((false, Path::new("a.json"))), None);
        joined.join(Some((true, Path::new("b.json"))), None);
        assert_eq!(joined.resolved, Some(true));
        assert_eq!(joined.verdict_source.as_deref(), Some(Path::new("b.json")));
    }

    #[test]
    fn a_prediction_fills_only_what_the_log_lacks() {
        let mut h = TrajectoryHeader::new("x.traj", Format::SweAgent);
        h.model = Some("mine".into());
        let p = Prediction {
            patch: None,
            exit_status: Some("submitted".into()),
            model: Some("theirs".into()),
        };
        h.join(None, Some(&p));
        assert_eq!(h.model.as_deref(), Some("mine"));
        assert_eq!(h.exit_status.as_deref(), Some("submitted"));
        assert_eq!(h.display_source(), "x.traj");
        h.source_index = Some(2);
        assert_eq!(h.display_source(), "x.traj#3");
    }
}
