//! Finding the files of a run: walk the folders the user opened, keep what may be a log.

use crate::model::LoadFailure;
use std::io::Read;
use std::path::{Path, PathBuf};

/// A file that may hold trajectories or eval results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub path: PathBuf,
    pub size: u64,
}

/// Folders that never hold a run's logs but can hold a great many files.
const SKIPPED_DIRS: &[&str] = &["node_modules", "target", "__pycache__", ".git", ".venv"];

/// The candidate files under `roots` (files given directly are always candidates), sorted
/// by path, and the folders that could not be read.
pub fn discover(roots: &[PathBuf]) -> (Vec<Candidate>, Vec<LoadFailure>) {
    let mut found = Vec::new();
    let mut failures = Vec::new();
    for root in roots {
        match std::fs::metadata(root) {
            Ok(meta) if meta.is_dir() => walk(root, &mut found, &mut failures),
            Ok(meta) => found.push(Candidate {
                path: root.clone(),
                size: meta.len(),
            }),
            Err(err) => failures.push(LoadFailure {
                path: root.clone(),
                message: format!("{}: {err}", root.display()),
            }),
        }
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    found.dedup_by(|a, b| a.path == b.path);
    (found, failures)
}

fn walk(dir: &Path, found: &mut Vec<Candidate>, failures: &mut Vec<LoadFailure>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) => {
            failures.push(LoadFailure {
                path: dir.to_path_buf(),
                message: format!("{}: cannot read folder: {err}", dir.display()),
            });
            return;
        }
    };
    let first = found.len();
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if file_type.is_dir() {
            if !name.starts_with('.') && !SKIPPED_DIRS.contains(&name.as_ref()) {
                walk(&path, found, failures);
            }
            continue;
        }
        // Symlinks to files are followed; to folders, not (no cycles).
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if meta.is_file() && is_candidate(&path, &name) {
            found.push(Candidate {
                path,
                size: meta.len(),
            });
        }
    }
    // A session of OpenCode's storage is a folder of message files: listed once.
    super::opencode::collapse_folder(dir, found, first);
}

/// Whether a file found in a folder walk may be a log (by name, and for Markdown and text by
/// its first bytes).
pub fn is_candidate_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    is_candidate(path, &name)
}

/// Whether a file found in a folder walk may be a log. JSON of any kind is a candidate (and
/// reported when it is not a trajectory); Markdown and text only when they look like the
/// Aider and Llama formats, so that a repository's README is not reported as a bad log.
fn is_candidate(path: &Path, name: &str) -> bool {
    if name.starts_with('.') && !name.ends_with(".aider.chat.history.md") {
        return false;
    }
    // A Claude Code sub-agent's description, beside its log: not a log itself.
    if name.starts_with("agent-")
        && name.ends_with(".meta.json")
        && path
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|d| d == "subagents")
    {
        return false;
    }
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "json" | "jsonl" | "traj" | "eval" | "parquet" => true,
        "md" => {
            name.ends_with(".aider.chat.history.md")
                || head(path, 4096).is_some_and(|h| super::detect::is_aider_history(&h))
        }
        "yaml" | "yml" => head(path, 16 * 1024)
            .is_some_and(|h| super::swe_agent::is_demonstration(&String::from_utf8_lossy(&h))),
        "txt" | "log" => head(path, 4096)
            .is_some_and(|h| memchr::memmem::find(&h, b"<|start_header_id|>").is_some()),
        _ => false,
    }
}

fn head(path: &Path, len: u64) -> Option<Vec<u8>> {
    let mut buf = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(len)
        .read_to_end(&mut buf)
        .ok()?;
    Some(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_folders_and_keeps_only_candidates() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("run/a")).unwrap();
        std::fs::create_dir_all(root.join("run/.git")).unwrap();
        std::fs::write(root.join("run/a/x.traj"), "{}").unwrap();
        std::fs::write(root.join("run/.git/y.json"), "{}").unwrap();
        std::fs::write(root.join("run/README.md"), "# readme").unwrap();
        std::fs::write(
            root.join("run/s.aider.chat.history.md"),
            "# aider chat started at 1",
        )
        .unwrap();
        std::fs::write(root.join("run/chat.md"), "# aider chat started at 2").unwrap();
        std::fs::write(root.join("run/p-prompt.txt"), "<|start_header_id|>system").unwrap();
        std::fs::write(root.join("run/notes.txt"), "hello").unwrap();
        std::fs::write(root.join("run/eval.log"), "PASSED").unwrap();
        std::fs::create_dir_all(root.join("run/s1/subagents")).unwrap();
        std::fs::write(root.join("run/s1/subagents/agent-a.meta.json"), "{}").unwrap();
        let (found, failures) = discover(&[root.join("run")]);
        let names: Vec<String> = found
            .iter()
            .map(|c| c.path.strip_prefix(root).unwrap().display().to_string())
            .collect();
        assert_eq!(
            names,
            vec![
                "run/a/x.traj",
                "run/chat.md",
                "run/p-prompt.txt",
                "run/s.aider.chat.history.md"
            ]
        );
        assert!(failures.is_empty());
    }

    #[test]
    fn a_missing_root_is_a_failure_not_a_panic() {
        let (found, failures) = discover(&[PathBuf::from("/definitely/not/here")]);
        assert!(found.is_empty());
        assert_eq!(failures.len(), 1);
        assert!(failures[0].message.contains("/definitely/not/here"));
    }
}
