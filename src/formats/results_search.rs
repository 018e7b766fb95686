//! Eval results outside the opened folders: the files the user names (`--results FILE`) and
//! those directly in the folders above what was opened.
//!
//! A SWE-bench run keeps `results.json` beside its `trajs/` folder, so opening `trajs/` (or
//! one trajectory) must still find it. The walk up looks only at the files directly in each
//! folder above (never their other subfolders), and stops at the first of the home folder, a
//! repository root (a folder holding `.git`) or the filesystem root, that folder included.
//! Only files that hold eval results count there; a trajectory found above is not read.
//! What a source found this way may join is decided by `EvalResults::apply`: its scope is
//! the opened path, its `above` the number of folders climbed, so the nearest one wins.

use super::LoadError;
use super::detect::{Kind, detect};
use super::eval_results;
use super::load::{Loaded, load_file};
use crate::model::ResultsSource;
use std::path::{Path, PathBuf};

/// Files above this size found by walking up are not read: results files are small, and a
/// stray archive in a home folder must not slow every start.
const MAX_ABOVE: u64 = 64 << 20;

/// The results files the user named, in order, each speaking for every trajectory (subject
/// to the model check). A file that is not an eval results file is an error naming it.
pub fn named_results(files: &[PathBuf]) -> Result<Vec<ResultsSource>, LoadError> {
    files
        .iter()
        .map(|path| match load_file(path)? {
            Loaded::Results(mut source) => {
                source.explicit = true;
                source.scope = PathBuf::new();
                Ok(source)
            }
            Loaded::Trajectories(_) => Err(LoadError::invalid(
                path,
                "not an eval results file (a trajectory)",
            )),
        })
        .collect()
}

/// The results files directly in the folders above each of `roots`, nearest first.
/// Unreadable folders and files that are not results are passed over: they were not asked
/// for.
pub fn results_above(roots: &[PathBuf]) -> Vec<ResultsSource> {
    let home = dirs::home_dir().and_then(|h| h.canonicalize().ok());
    let mut found = Vec::new();
    for root in roots {
        let Ok(absolute) = root.canonicalize() else {
            continue;
        };
        let start = if absolute.is_dir() {
            if is_boundary(&absolute, home.as_deref()) {
                continue;
            }
            absolute.parent()
        } else {
            absolute.parent()
        };
        let mut above = 1;
        let mut dir = start;
        while let Some(folder) = dir {
            for mut source in results_in(folder) {
                source.scope = root.clone();
                source.above = above;
                found.push(source);
            }
            if is_boundary(folder, home.as_deref()) {
                break;
            }
            dir = folder.parent();
            above += 1;
        }
    }
    found
}

/// Where the walk up stops: the home folder, a repository root, the filesystem root.
fn is_boundary(folder: &Path, home: Option<&Path>) -> bool {
    folder.parent().is_none() || Some(folder) == home || folder.join(".git").exists()
}

/// The eval results files directly in `folder`, by name order.
fn results_in(folder: &Path) -> Vec<ResultsSource> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| !t.is_dir()))
        .map(|e| e.path())
        .filter(|p| maybe_results(p))
        .collect();
    paths.sort();
    paths.iter().filter_map(|p| read_results(p)).collect()
}

/// Results files are JSON or JSON lines; trajectories (`.traj`, `.traj.json`) never are.
fn maybe_results(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    !name.starts_with('.')
        && (name.ends_with(".json") || name.ends_with(".jsonl"))
        && !name.ends_with(".traj.json")
}

fn read_results(path: &Path) -> Option<ResultsSource> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_ABOVE {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    match detect(path, &bytes).ok()? {
        Kind::Results(kind) => eval_results::parse(kind, path, &bytes).ok(),
        Kind::Trajectories(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    const RESULTS: &str = r#"{"resolved": ["a__a-1"], "applied": ["a__a-1", "b__b-2"]}"#;

    #[test]
    fn finds_results_in_the_folders_above_up_to_the_repository_root() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        fs::create_dir_all(top.join(".git")).unwrap();
        fs::create_dir_all(top.join("run/trajs")).unwrap();
        fs::create_dir_all(top.join("run/other")).unwrap();
        fs::write(top.join("run/results.json"), RESULTS).unwrap();
        // In a sibling folder, not directly above: never read.
        fs::write(top.join("run/other/results.json"), RESULTS).unwrap();
        fs::write(top.join("results.json"), RESULTS).unwrap();
        fs::write(top.join("run/trajs/a__a-1.traj"), "{}").unwrap();

        let root = top.join("run/trajs");
        let found = results_above(std::slice::from_ref(&root));
        let paths: Vec<(PathBuf, usize)> =
            found.iter().map(|s| (s.path.clone(), s.above)).collect();
        let canonical = top.canonicalize().unwrap();
        assert_eq!(
            paths,
            vec![
                (canonical.join("run/results.json"), 1),
                (canonical.join("results.json"), 2)
            ]
        );
        assert!(found.iter().all(|s| s.scope == root));

        // A single file: its own folder is the first one above.
        let file = root.join("a__a-1.traj");
        let found = results_above(std::slice::from_ref(&file));
        assert_eq!(found[0].path, canonical.join("run/results.json"));
        assert_eq!(found[0].scope, file);
    }

    #[test]
    fn an_opened_repository_root_is_not_climbed_out_of() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        fs::create_dir_all(top.join("repo/.git")).unwrap();
        fs::write(top.join("results.json"), RESULTS).unwrap();
        assert!(results_above(&[top.join("repo")]).is_empty());
    }

    #[test]
    fn a_named_trajectory_is_not_taken_for_results() {
        let dir = tempfile::tempdir().unwrap();
        let traj = dir.path().join("x.traj");
        fs::write(&traj, r#"{"trajectory": [], "info": {}}"#).unwrap();
        let err = named_results(&[traj]).unwrap_err();
        assert!(err.to_string().contains("x.traj"), "{err}");
        let results = dir.path().join("results.json");
        fs::write(&results, RESULTS).unwrap();
        let named = named_results(&[results]).unwrap();
        assert!(named[0].explicit);
        assert_eq!(named[0].verdicts.get("a__a-1"), Some(&true));
    }
}
