//! Eval results and predictions: which instances were resolved, and what was submitted.
//!
//! Reads old SWE-bench `results.json` (leniently: real ones carry trailing commas), harness
//! `report.json` files, run summaries `<model>.<run_id>.json`, `preds.json` and
//! `all_preds.jsonl`, into a [`ResultsSource`] that knows which trajectories it speaks for.

mod prediction_line;

use super::json::{json_line, nonblank_lines, str_field, strip_trailing_commas};
use super::{LoadError, ResultsKind};
use crate::model::{Prediction, ResultsSource, normalise_model};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Lists of an old `results.json` that mean "tried and not resolved". `no_generation` counts:
/// the agent produced no patch, which is a failure to resolve.
const UNRESOLVED_LISTS: &[&str] = &[
    "no_generation",
    "generated",
    "with_logs",
    "install_fail",
    "reset_failed",
    "no_apply",
    "applied",
    "test_errored",
    "test_timeout",
];

/// Folder names of harness output that sit between a run's root and its reports.
const HARNESS_DIRS: &[&str] = &["eval_results", "run_evaluation", "logs", "evaluation"];

pub fn parse(kind: ResultsKind, path: &Path, bytes: &[u8]) -> Result<ResultsSource, LoadError> {
    let scope = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut source = ResultsSource {
        path: path.to_path_buf(),
        scope,
        ..ResultsSource::default()
    };
    match kind {
        ResultsKind::SweBenchResults => {
            let value = parse_lenient(path, bytes)?;
            for list in UNRESOLVED_LISTS {
                for id in ids(&value, list) {
                    source.verdicts.insert(id, false);
                }
            }
            for id in ids(&value, "resolved") {
                source.verdicts.insert(id, true);
            }
        }
        ResultsKind::HarnessReport => {
            let value: Value =
                serde_json::from_slice(bytes).map_err(|err| LoadError::json(path, &err, 0))?;
            let Some(map) = value.as_object() else {
                return Err(LoadError::invalid(path, "a report must be a JSON object"));
            };
            for (id, report) in map {
                if let Some(resolved) = report.get("resolved").and_then(Value::as_bool) {
                    source.verdicts.insert(id.clone(), resolved);
                }
            }
            let (scope, model) = report_scope(path, &source.verdicts);
            source.scope = scope;
            source.model = model;
        }
        ResultsKind::RunSummary => {
            let value: Value =
                serde_json::from_slice(bytes).map_err(|err| LoadError::json(path, &err, 0))?;
            for list in ["unresolved_ids", "empty_patch_ids", "error_ids"] {
                for id in ids(&value, list) {
                    source.verdicts.insert(id, false);
                }
            }
            for id in ids(&value, "resolved_ids") {
                source.verdicts.insert(id, true);
            }
            source.model = summary_model(path);
        }
        ResultsKind::Predictions => {
            source.predictions = predictions(path, bytes)?;
        }
    }
    Ok(source)
}

/// Strict JSON first; if that fails, again without trailing commas.
fn parse_lenient(path: &Path, bytes: &[u8]) -> Result<Value, LoadError> {
    match serde_json::from_slice(bytes) {
        Ok(value) => Ok(value),
        Err(strict) => {
            let text = String::from_utf8_lossy(bytes);
            serde_json::from_str(&strip_trailing_commas(&text))
                .map_err(|_| LoadError::json(path, &strict, 0))
        }
    }
}

fn ids(value: &Value, key: &str) -> Vec<String> {
    value
        .get(key)
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

/// The harness writes `<run root>/…/<model>/<instance_id>/report.json`: the report speaks for
/// trajectories under the run root, for that model.
fn report_scope(path: &Path, verdicts: &HashMap<String, bool>) -> (PathBuf, Option<String>) {
    let mut dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let dir_name = |d: &Path| {
        d.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    if !verdicts.contains_key(&dir_name(&dir)) {
        return (dir, None);
    }
    dir.pop();
    let model = Some(normalise_model(&dir_name(&dir))).filter(|m| !m.is_empty());
    dir.pop();
    while HARNESS_DIRS.contains(&dir_name(&dir).as_str()) {
        dir.pop();
    }
    (dir, model)
}

/// `<model>.<run_id>.json`: the run id is often the name of the folder it sits in, and may
/// itself hold dots (`claude_4.6_subset`); the model rarely does.
fn summary_model(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_string_lossy().into_owned();
    let folder = path
        .parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let model = match stem.strip_suffix(&format!(".{folder}")) {
        Some(model) if !folder.is_empty() => model.to_string(),
        _ => stem.split('.').next()?.to_string(),
    };
    Some(normalise_model(&model)).filter(|m| !m.is_empty())
}

fn prediction_of(entry: &Value) -> Option<(String, Prediction)> {
    let id = str_field(entry, "instance_id")?.to_string();
    Some((
        id,
        Prediction {
            patch: str_field(entry, "model_patch").map(String::from),
            exit_status: str_field(entry, "exit_status").map(String::from),
            model: str_field(entry, "model_name_or_path").map(String::from),
        },
    ))
}

/// The predictions of a JSON Lines file, in file order (a later line for the same instance
/// wins): each line read by hand where it can be ([`prediction_line`]), else by serde; a
/// line serde refuses is skipped.
fn prediction_lines(path: &Path, bytes: &[u8]) -> HashMap<String, Prediction> {
    let mut out = HashMap::new();
    for (line_no, line, is_last) in nonblank_lines(bytes) {
        let read = prediction_line::prediction_line(line).unwrap_or_else(|| {
            json_line::<Value>(path, line_no, line, is_last)
                .ok()
                .and_then(|l| prediction_of(&l.value))
        });
        if let Some((id, prediction)) = read {
            out.insert(id, prediction);
        }
    }
    out
}

fn predictions(path: &Path, bytes: &[u8]) -> Result<HashMap<String, Prediction>, LoadError> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace()).copied();
    let entries: Vec<Value> = match first {
        Some(b'[') => {
            serde_json::from_slice(bytes).map_err(|err| LoadError::json(path, &err, 0))?
        }
        Some(b'{') if super::detect::is_json_lines(bytes) => {
            return Ok(prediction_lines(path, bytes));
        }
        Some(b'{') => {
            let value: Value =
                serde_json::from_slice(bytes).map_err(|err| LoadError::json(path, &err, 0))?;
            match value {
                Value::Object(map) if map.contains_key("instance_id") => vec![Value::Object(map)],
                Value::Object(map) => map.into_iter().map(|(_, v)| v).collect(),
                _ => Vec::new(),
            }
        }
        _ => Vec::new(),
    };
    Ok(entries.iter().filter_map(prediction_of).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_results_with_trailing_comma() {
        let text =
            b"{\"resolved\": [\"a\"], \"applied\": [\"a\", \"b\",],\n \"no_generation\": [\"c\"]}";
        let source = parse(
            ResultsKind::SweBenchResults,
            Path::new("r/results.json"),
            text,
        )
        .unwrap();
        assert_eq!(source.verdicts.get("a"), Some(&true));
        assert_eq!(source.verdicts.get("b"), Some(&false));
        assert_eq!(source.verdicts.get("c"), Some(&false));
        assert_eq!(source.scope, PathBuf::from("r"));
    }

    #[test]
    fn harness_report_scope_climbs_to_the_run_root() {
        let text = br#"{"x__y-1": {"resolved": true}}"#;
        let path = Path::new("/runs/gpt/eval_results/openai__gpt-5-mini/x__y-1/report.json");
        let source = parse(ResultsKind::HarnessReport, path, text).unwrap();
        assert_eq!(source.scope, PathBuf::from("/runs/gpt"));
        assert_eq!(source.model.as_deref(), Some("openai__gpt-5-mini"));
        assert_eq!(source.verdicts.get("x__y-1"), Some(&true));
    }

    #[test]
    fn run_summary_model_from_file_name() {
        let path = Path::new("/r/sub_4.6_x/anthropic__claude-4.sub_4.6_x.json");
        assert_eq!(summary_model(path).as_deref(), Some("anthropic__claude-4"));
        let path = Path::new("/r/other/gpt-4o.run1.json");
        assert_eq!(summary_model(path).as_deref(), Some("gpt-4o"));
    }

    #[test]
    fn predictions_in_three_shapes() {
        let dict = br#"{"a": {"instance_id": "a", "model_patch": "p", "model_name_or_path": "m"}}"#;
        let list = br#"[{"instance_id": "a", "model_patch": "p"}]"#;
        let lines = b"{\"instance_id\": \"a\", \"model_patch\": \"p\", \"exit_status\": \"submitted\"}\n{\"instance_id\": \"b\", \"model_patch\": \"q\"}\n";
        for text in [&dict[..], &list[..], &lines[..]] {
            let source = parse(ResultsKind::Predictions, Path::new("p.json"), text).unwrap();
            assert_eq!(source.predictions["a"].patch.as_deref(), Some("p"));
        }
        let source = parse(ResultsKind::Predictions, Path::new("p.jsonl"), lines).unwrap();
        assert_eq!(source.predictions.len(), 2);
        assert_eq!(
            source.predictions["a"].exit_status.as_deref(),
            Some("submitted")
        );
    }
}
