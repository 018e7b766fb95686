//! SWE-bench dataset files (JSON array or JSON lines with `instance_id` and `patch`): the
//! gold patches, and the localization measure "did the agent edit the files the fix edits".

use super::patch::parse_patch;
use super::paths::same_file;
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;

#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    #[error("line {line}: {message}")]
    Line { line: usize, message: String },
    #[error("not a SWE-bench dataset: {0}")]
    Shape(String),
}

/// Gold patches by instance id.
#[derive(Debug, Clone, Default)]
pub struct GoldPatches {
    pub patches: HashMap<String, String>,
}

impl GoldPatches {
    /// Parses a dataset file's content: a JSON array of instances, or one per line.
    pub fn parse(text: &str) -> Result<GoldPatches, DatasetError> {
        let trimmed = text.trim_start();
        let instances: Vec<Value> = if trimmed.starts_with('[') {
            serde_json::from_str(trimmed).map_err(|e| DatasetError::Line {
                line: e.line(),
                message: e.to_string(),
            })?
        } else {
            let mut out = Vec::new();
            for (i, line) in text.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                out.push(serde_json::from_str(line).map_err(|e| DatasetError::Line {
                    line: i + 1,
                    message: e.to_string(),
                })?);
            }
            out
        };
        let mut patches = HashMap::new();
        for instance in &instances {
            let (Some(id), Some(patch)) = (
                instance.get("instance_id").and_then(Value::as_str),
                instance.get("patch").and_then(Value::as_str),
            ) else {
                continue;
            };
            patches.insert(id.to_string(), patch.to_string());
        }
        if patches.is_empty() {
            return Err(DatasetError::Shape(
                "no instance has both `instance_id` and `patch`".into(),
            ));
        }
        Ok(GoldPatches { patches })
    }

    pub fn get(&self, instance_id: &str) -> Option<&str> {
        self.patches.get(instance_id).map(String::as_str)
    }
}

/// Whether the agent's patch touches the files the gold patch touches.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Localization {
    pub gold_files: Vec<String>,
    pub agent_files: Vec<String>,
    /// Gold files the agent also edited.
    pub hit_files: Vec<String>,
    /// The agent edited at least one gold file.
    pub any: bool,
    /// The agent edited every gold file.
    pub all: bool,
    /// Share of the agent's files that are gold files (1 when it edited none).
    pub precision: f64,
    /// Share of the gold files the agent edited.
    pub recall: f64,
}

/// Localization of `agent_patch` against `gold_patch` (both unified diffs).
pub fn localization(agent_patch: &str, gold_patch: &str) -> Localization {
    let files =
        |patch: &str| -> Vec<String> { parse_patch(patch).into_iter().map(|f| f.path).collect() };
    localize(files(agent_patch), files(gold_patch))
}

/// Localization of the files an agent's patch touched against the gold patch's files.
pub fn localize(agent_files: Vec<String>, gold_files: Vec<String>) -> Localization {
    let hit_files: Vec<String> = gold_files
        .iter()
        .filter(|g| agent_files.iter().any(|a| same_file(a, g)))
        .cloned()
        .collect();
    let agent_hits = agent_files
        .iter()
        .filter(|a| gold_files.iter().any(|g| same_file(a, g)))
        .count();
    let ratio = |num: usize, den: usize| {
        if den == 0 {
            1.0
        } else {
            num as f64 / den as f64
        }
    };
    Localization {
        any: !hit_files.is_empty(),
        all: !gold_files.is_empty() && hit_files.len() == gold_files.len(),
        precision: ratio(agent_hits, agent_files.len()),
        recall: ratio(hit_files.len(), gold_files.len()),
        gold_files,
        agent_files,
        hit_files,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOLD: &str = "diff --git a/django/http/response.py b/django/http/response.py\n--- a/django/http/response.py\n+++ b/django/http/response.py\n@@ -1 +1 @@\n-a\n+b\n";

    #[test]
    fn jsonl_and_array_datasets() {
        let line = serde_json::json!({"instance_id": "django__django-11133", "patch": GOLD, "repo": "django/django"}).to_string();
        let g = GoldPatches::parse(&format!("{line}\n\n")).unwrap();
        assert_eq!(g.get("django__django-11133"), Some(GOLD));
        let g = GoldPatches::parse(&format!("[{line}]")).unwrap();
        assert_eq!(g.patches.len(), 1);
        assert!(matches!(
            GoldPatches::parse("{\"a\":1}\n"),
            Err(DatasetError::Shape(_))
        ));
        assert!(matches!(
            GoldPatches::parse("{oops\n"),
            Err(DatasetError::Line { line: 1, .. })
        ));
    }

    #[test]
    fn localization_counts_shared_files() {
        let agent = format!(
            "{GOLD}diff --git a/reproduce.py b/reproduce.py\n--- /dev/null\n+++ b/reproduce.py\n@@ -0,0 +1 @@\n+x\n"
        );
        let l = localization(&agent, GOLD);
        assert!(l.any && l.all);
        assert_eq!(l.precision, 0.5);
        assert_eq!(l.recall, 1.0);
        let l = localization("", GOLD);
        assert!(!l.any);
        assert_eq!(l.recall, 0.0);
    }
}
