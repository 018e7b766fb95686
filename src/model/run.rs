//! A run: the trajectories of one eval (a folder, usually), joined with its eval results.

use super::{Trajectory, TrajectorySummary};
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

/// What eval results need to know about a trajectory (or its summary) to join it.
pub trait JoinTarget {
    fn source(&self) -> &Path;
    fn instance_id(&self) -> &str;
    fn model(&self) -> Option<&str>;
    /// Takes a verdict and, for what the target lacks, a prediction's patch and status.
    fn join(&mut self, resolved: Option<bool>, prediction: Option<&Prediction>);
}

impl JoinTarget for Trajectory {
    fn source(&self) -> &Path {
        &self.source
    }
    fn instance_id(&self) -> &str {
        &self.instance_id
    }
    fn model(&self) -> Option<&str> {
        self.model.as_deref()
    }
    fn join(&mut self, resolved: Option<bool>, prediction: Option<&Prediction>) {
        if self.resolved.is_none() {
            self.resolved = resolved;
        }
        if let Some(prediction) = prediction {
            if self.submission.is_none() {
                self.submission = prediction.patch.clone();
            }
            if self.exit_status.is_none() {
                self.exit_status = prediction.exit_status.clone();
            }
            if self.model.is_none() {
                self.model = prediction.model.clone();
            }
        }
    }
}

impl JoinTarget for TrajectorySummary {
    fn source(&self) -> &Path {
        &self.path
    }
    fn instance_id(&self) -> &str {
        &self.instance_id
    }
    fn model(&self) -> Option<&str> {
        self.model.as_deref()
    }
    fn join(&mut self, resolved: Option<bool>, prediction: Option<&Prediction>) {
        if self.resolved.is_none() {
            self.resolved = resolved;
        }
        if let Some(prediction) = prediction {
            if self.patch_lines == 0 {
                self.patch_lines = prediction
                    .patch
                    .as_deref()
                    .map_or(0, super::trajectory::count_patch_lines);
            }
            if self.exit_status.is_none() {
                self.exit_status = prediction.exit_status.clone();
            }
            if self.model.is_none() {
                self.model = prediction.model.clone();
            }
        }
    }
}

impl EvalResults {
    pub fn is_empty(&self) -> bool {
        self.sources.is_empty()
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
        matching.sort_by_key(|(depth, _)| std::cmp::Reverse(*depth));
        matching.into_iter().map(|(_, s)| s).collect()
    }

    /// Joins verdicts and predictions into `targets` by instance id. A trajectory's own
    /// verdict, submission and exit status win over a results file's.
    pub fn apply<T: JoinTarget>(&self, targets: &mut [T]) {
        let scope_is_empty: Vec<bool> = self
            .sources
            .iter()
            .map(|s| !targets.iter().any(|t| t.source().starts_with(&s.scope)))
            .collect();
        for target in targets.iter_mut() {
            let sources = self.sources_for(target.source(), target.model(), &scope_is_empty);
            let id = target.instance_id();
            let resolved = sources.iter().find_map(|s| s.verdicts.get(id).copied());
            let prediction = sources.iter().find_map(|s| s.predictions.get(id)).cloned();
            target.join(resolved, prediction.as_ref());
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
    use crate::model::Format;

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
            predictions: HashMap::new(),
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
