//! A run: the trajectories of one eval (a folder, usually), joined with its eval results.

use super::{JoinTarget, Trajectory};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A file that could not be read as a trajectory, and why. Listed, never fatal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadFailure {
    pub path: PathBuf,
    /// One line naming the problem and, where known, `line:column`.
    pub message: String,
}

/// What one prediction file says about an instance.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    pub patch: Option<String>,
    pub exit_status: Option<String>,
    pub model: Option<String>,
}

/// One eval results or predictions file, and which trajectories it may speak for.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResultsSource {
    pub path: PathBuf,
    /// Trajectories under this folder are the ones this file describes.
    pub scope: PathBuf,
    /// The model the file is about, when it names one (harness `report.json` under a model
    /// folder, run summaries `<model>.<run_id>.json`). Normalised: `/` becomes `__`.
    pub model: Option<String>,
    /// Instance id → resolved.
    pub verdicts: HashMap<String, bool>,
    /// Instance id → the submitted patch and exit status, from `preds.json` / `all_preds.jsonl`.
    pub predictions: HashMap<String, Prediction>,
    /// Named by the user (`--results FILE`): taken before any file found by looking.
    #[serde(default)]
    pub explicit: bool,
    /// How many folders above the opened path the file sits (0: inside it). A file found
    /// above speaks only for the opened path, and a nearer one wins.
    #[serde(default)]
    pub above: usize,
}

/// Every results file found for a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EvalResults {
    pub sources: Vec<ResultsSource>,
}

/// `openai/gpt-5-mini` and `openai__gpt-5-mini` name the same model.
pub fn normalise_model(model: &str) -> String {
    model.trim().replace('/', "__").to_lowercase()
}

/// Whether two model names may name the same model: equal once the provider prefix is
/// dropped, or one a prefix of the other (`claude-3` in a file name cut at a dot, against
/// `claude-3.5-sonnet`). Lenient on purpose: this only guards against joining a run of
/// one model with the results of a clearly different one.
fn same_model(a: &str, b: &str) -> bool {
    let bare = |m: &str| -> String {
        let m = normalise_model(m);
        match m.rfind("__") {
            Some(i) => m[i + 2..].to_string(),
            None => m,
        }
    };
    let (a, b) = (bare(a), bare(b));
    !a.is_empty() && !b.is_empty() && (a.starts_with(&b) || b.starts_with(&a))
}

impl EvalResults {
    pub fn is_empty(&self) -> bool {
        self.sources.is_empty()
    }

    /// Puts the files the user named (`--results`) before every file found by looking.
    pub fn name_first(&mut self, named: Vec<ResultsSource>) {
        self.sources.splice(0..0, named);
    }

    /// The sources that may speak for a trajectory at `path` run by `model`, closest first.
    ///
    /// A source speaks for trajectories under its scope folder whose model is unknown or
    /// matches. A source whose scope holds no trajectory at all (a harness `logs/` folder
    /// opened next to the trajectories) speaks for any trajectory, but only when both name
    /// the same model: joining by instance id alone would mix up runs of different models.
    fn sources_for<'a>(
        &'a self,
        path: &Path,
        model: Option<&str>,
        scope_is_empty: &[bool],
    ) -> Vec<&'a ResultsSource> {
        let mut matching: Vec<(usize, &ResultsSource)> = self
            .sources
            .iter()
            .zip(scope_is_empty)
            .filter_map(|(source, &empty)| {
                let model_matches = match (&source.model, model) {
                    (Some(a), Some(b)) => Some(same_model(a, b)),
                    _ => None,
                };
                if model_matches == Some(false) {
                    None
                } else if path.starts_with(&source.scope) {
                    Some((source.scope.components().count(), source))
                } else if model_matches == Some(true) && empty {
                    Some((0, source))
                } else {
                    None
                }
            })
            .collect();
        // Named files first, in the order named; then the nearest: the deepest scope, and
        // among files found above the opened path, the lowest folder.
        matching.sort_by_key(|(depth, s)| (!s.explicit, std::cmp::Reverse(*depth), s.above));
        matching.into_iter().map(|(_, s)| s).collect()
    }

    /// Joins verdicts and predictions into `targets` by instance id. A trajectory's own
    /// verdict, submission and exit status win over a results file's.
    pub fn apply<T: JoinTarget>(&self, targets: &mut [T]) {
        let run: Vec<PathBuf> = targets.iter().map(|t| t.path.clone()).collect();
        self.apply_among(targets, &run);
    }

    /// [`Self::apply`] for some of a run's trajectories (one opened, one file that grew),
    /// whose whole run is at the paths `run`. Whether a results file's folder holds
    /// trajectories is a fact of the run, not of the part joined now: judged on the part
    /// alone, every other folder's results would look like a harness `logs/` folder and join
    /// by model (a Droid session run with Claude took the verdict of a Claude Code run).
    pub fn apply_among<T: JoinTarget>(&self, targets: &mut [T], run: &[impl AsRef<Path>]) {
        let scope_is_empty: Vec<bool> = self
            .sources
            .iter()
            .map(|s| {
                !run.iter().any(|p| p.as_ref().starts_with(&s.scope))
                    && !targets.iter().any(|t| t.path.starts_with(&s.scope))
            })
            .collect();
        for target in targets.iter_mut() {
            let sources = self.sources_for(&target.path, target.model.as_deref(), &scope_is_empty);
            let id = target.instance_id.as_str();
            let verdict = sources
                .iter()
                .find_map(|s| s.verdicts.get(id).map(|&v| (v, s.path.clone())));
            let prediction = sources.iter().find_map(|s| s.predictions.get(id)).cloned();
            target.join(
                verdict.as_ref().map(|(v, p)| (*v, p.as_path())),
                prediction.as_ref(),
            );
        }
    }
}

/// The trajectories of a run, the files that failed, and the eval results found.
#[derive(Debug, Clone, Default)]
pub struct Run {
    /// What the user opened (a folder, or a file).
    pub roots: Vec<PathBuf>,
    pub trajectories: Vec<Trajectory>,
    pub failures: Vec<LoadFailure>,
    pub results: EvalResults,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Format, TrajectorySummary};

    fn traj(path: &str, id: &str, model: Option<&str>) -> Trajectory {
        let mut t = Trajectory::new(path, Format::SweAgent);
        t.instance_id = id.into();
        t.model = model.map(String::from);
        t
    }

    fn source(scope: &str, model: Option<&str>, verdicts: &[(&str, bool)]) -> ResultsSource {
        ResultsSource {
            path: PathBuf::from(scope).join("results.json"),
            scope: scope.into(),
            model: model.map(normalise_model),
            verdicts: verdicts.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            ..ResultsSource::default()
        }
    }

    #[test]
    fn results_apply_within_their_scope_only() {
        let results = EvalResults {
            sources: vec![source("run-a", None, &[("x", true)])],
        };
        let mut ts = vec![
            traj("run-a/x.traj", "x", None),
            traj("run-b/x.traj", "x", None),
        ];
        results.apply(&mut ts);
        assert_eq!(ts[0].resolved, Some(true));
        assert_eq!(ts[1].resolved, None);
    }

    #[test]
    fn one_trajectory_joined_alone_is_judged_against_its_whole_run() {
        // Claude Code's run summary speaks for claude-code/; a Droid session run with the
        // same model sits in droid/. Joined with the whole run, the summary's folder holds
        // trajectories, so it does not reach droid/. Joined alone (the opened trajectory),
        // it must not either.
        let results = EvalResults {
            sources: vec![source(
                "s/claude-code",
                Some("claude-sonnet-4-5"),
                &[("x", true)],
            )],
        };
        let droid = || traj("s/droid/x.jsonl", "x", Some("claude-sonnet-4-5-20250929"));
        let run = [
            PathBuf::from("s/claude-code/x.jsonl"),
            PathBuf::from("s/droid/x.jsonl"),
        ];
        let mut one = vec![droid()];
        results.apply_among(&mut one, &run);
        assert_eq!(one[0].resolved, None);
        // With no trajectory under it in the run (a harness logs/ folder), it joins by model.
        let mut one = vec![droid()];
        results.apply_among(&mut one, &[PathBuf::from("s/droid/x.jsonl")]);
        assert_eq!(one[0].resolved, Some(true));
    }

    #[test]
    fn a_results_file_about_another_model_is_not_joined() {
        let results = EvalResults {
            sources: vec![
                source("run", Some("anthropic/claude"), &[("x", true)]),
                source("run/eval", Some("openai__gpt-5-mini"), &[("x", false)]),
            ],
        };
        let mut ts = vec![traj("run/x/x.traj.json", "x", Some("openai/gpt-5-mini"))];
        results.apply(&mut ts);
        assert_eq!(ts[0].resolved, Some(false));
    }

    #[test]
    fn named_files_win_then_the_nearest_folder_above() {
        let above = |path: &str, n: usize, verdict: bool| ResultsSource {
            path: PathBuf::from(path),
            scope: "run/trajs".into(),
            above: n,
            verdicts: [("x".to_string(), verdict)].into(),
            ..ResultsSource::default()
        };
        let mut results = EvalResults {
            sources: vec![above("/r.json", 2, false), above("run/r.json", 1, true)],
        };
        let mut rows = vec![TrajectorySummary::of(&traj("run/trajs/x.traj", "x", None))];
        results.apply(&mut rows);
        assert_eq!(rows[0].resolved, Some(true));
        assert_eq!(rows[0].verdict_source, Some(PathBuf::from("run/r.json")));

        results.name_first(vec![ResultsSource {
            path: "named.json".into(),
            explicit: true,
            verdicts: [("x".to_string(), false)].into(),
            ..ResultsSource::default()
        }]);
        results.apply(&mut rows);
        assert_eq!(rows[0].resolved, Some(false));
        assert_eq!(rows[0].verdict_source, Some(PathBuf::from("named.json")));

        // A verdict the log carries is never replaced.
        let mut own = traj("run/trajs/x.traj", "x", None);
        own.resolved = Some(true);
        let mut rows = vec![TrajectorySummary::of(&own)];
        results.apply(&mut rows);
        assert_eq!(rows[0].resolved, Some(true));
        assert_eq!(
            rows[0].verdict_source,
            Some(PathBuf::from("run/trajs/x.traj"))
        );
    }

    #[test]
    fn the_closest_source_wins() {
        let results = EvalResults {
            sources: vec![
                source("/a", None, &[("x", false)]),
                source("/a/b", None, &[("x", true)]),
            ],
        };
        let mut ts = vec![traj("/a/b/x.traj", "x", None)];
        results.apply(&mut ts);
        assert_eq!(ts[0].resolved, Some(true));
    }
}
