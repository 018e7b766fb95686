//! Eval results outside the opened folders: the files the user names (`--results FILE`) and
//! those directly in the folders above what was opened.
//!
//! A SWE-bench run keeps `results.json` beside its `trajs/` folder, so opening `trajs/` (or
//! one trajectory) must still find it. The walk up looks only at the files directly in each
//! folder above (never their other subfolders), and stops at a repository root (a folder
//! holding `.git`), that folder included. Folders shared by everything a user keeps (the home
//! folder, the temporary folder, the filesystem root) are never part of a run: the walk stops
//! below them and never reads them, so a run in `/tmp` does not pay for (or take verdicts
//! from) what other programs left there.
//!
//! Only files shaped like eval results count: a `.json`/`.jsonl` file is parsed only when its
//! first bytes open a JSON object or array and name one of the keys every results format
//! trajscope reads starts with ([`looks_like_results`]). A big unrelated JSON file above the
//! run costs one read of its first 64 KiB; a trajectory found above is not read.
//! What a source found this way may join is decided by `EvalResults::apply`: its scope is
//! the opened path, its `above` the number of folders climbed, so the nearest one wins.

use super::LoadError;
use super::detect::{Kind, detect};
use super::eval_results;
use super::load::{Loaded, load_file};
use crate::model::ResultsSource;
use std::io::Read;
use std::path::{Path, PathBuf};

/// How much of a file found above the run is read to decide whether it may be results.
const HEAD: u64 = 64 << 10;

/// Keys of which every results file names at least one in its opening bytes: old
/// `results.json` lists (first key one of them), a harness report's `resolved` (before its
/// long `tests_status`), a run summary's counts, a prediction's `model_patch`.
const RESULTS_KEYS: &[&str] = &[
    "resolved",
    "applied",
    "generated",
    "no_generation",
    "no_apply",
    "with_logs",
    "install_fail",
    "reset_failed",
    "test_errored",
    "test_timeout",
    "resolved_ids",
    "unresolved_ids",
    "total_instances",
    "submitted_instances",
    "resolved_instances",
    "model_patch",
];

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
    walk_up(roots, &SharedFolders::here())
}

fn walk_up(roots: &[PathBuf], shared: &SharedFolders) -> Vec<ResultsSource> {
    let mut found = Vec::new();
    for root in roots {
        let Ok(absolute) = root.canonicalize() else {
            continue;
        };
        if absolute.is_dir() && (shared.holds(&absolute) || is_repository_root(&absolute)) {
            continue;
        }
        let mut above = 1;
        let mut dir = absolute.parent();
        while let Some(folder) = dir {
            if shared.holds(folder) {
                break;
            }
            for mut source in results_in(folder) {
                source.scope = root.clone();
                source.above = above;
                found.push(source);
            }
            if is_repository_root(folder) {
                break;
            }
            dir = folder.parent();
            above += 1;
        }
    }
    found
}

/// The folders that hold everything else a user keeps, so never a run's: the walk up stops
/// below them.
struct SharedFolders {
    home: Option<PathBuf>,
    temp: Option<PathBuf>,
}

impl SharedFolders {
    fn here() -> Self {
        SharedFolders {
            home: dirs::home_dir().and_then(|h| h.canonicalize().ok()),
            temp: std::env::temp_dir().canonicalize().ok(),
        }
    }

    fn holds(&self, folder: &Path) -> bool {
        folder.parent().is_none()
            || self.home.as_deref() == Some(folder)
            || self.temp.as_deref() == Some(folder)
    }
}

/// A repository root is the top of a run's project: read, then the walk stops.
fn is_repository_root(folder: &Path) -> bool {
    folder.join(".git").exists()
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
    let mut head = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(HEAD)
        .read_to_end(&mut head)
        .ok()?;
    if !looks_like_results(&head) {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    match detect(path, &bytes).ok()? {
        Kind::Results(kind) => eval_results::parse(kind, path, &bytes).ok(),
        Kind::Trajectories(_) => None,
    }
}

/// Whether `head`, a file's first bytes, may open an eval results file: a JSON object or
/// array naming one of [`RESULTS_KEYS`] as a key. Cheap, and only a filter: the file is
/// still detected and parsed whole before it counts.
pub(crate) fn looks_like_results(head: &[u8]) -> bool {
    let Some(first) = head.iter().find(|b| !b.is_ascii_whitespace()) else {
        return false;
    };
    if !matches!(first, b'{' | b'[') {
        return false;
    }
    RESULTS_KEYS.iter().any(|key| names_key(head, key))
}

/// Whether `"key"` occurs in `text` followed by a colon (spaces allowed): a key, not a word
/// in some string.
fn names_key(text: &[u8], key: &str) -> bool {
    let quoted = format!("\"{key}\"");
    memchr::memmem::find_iter(text, quoted.as_bytes()).any(|at| {
        text[at + quoted.len()..]
            .iter()
            .find(|b| !b.is_ascii_whitespace())
            .is_some_and(|&b| b == b':')
    })
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
    fn the_home_and_temporary_folders_are_never_read_nor_climbed_past() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().canonicalize().unwrap();
        let home = top.join("home");
        fs::create_dir_all(home.join("Downloads/run/trajs")).unwrap();
        fs::write(top.join("results.json"), RESULTS).unwrap();
        fs::write(home.join("results.json"), RESULTS).unwrap();
        fs::write(home.join("Downloads/run/results.json"), RESULTS).unwrap();
        let roots = [home.join("Downloads/run/trajs")];
        let shared = |home: Option<&Path>, temp: Option<&Path>| SharedFolders {
            home: home.map(Path::to_path_buf),
            temp: temp.map(Path::to_path_buf),
        };
        let paths = |shared: &SharedFolders| -> Vec<PathBuf> {
            walk_up(&roots, shared)
                .into_iter()
                .map(|s| s.path)
                .collect()
        };
        let nearest = home.join("Downloads/run/results.json");
        assert_eq!(paths(&shared(Some(&home), None)), vec![nearest.clone()]);
        // The same walk with no shared folder in the way climbs on and finds both.
        let unbounded = paths(&shared(None, None));
        assert!(
            unbounded.contains(&home.join("results.json")),
            "{unbounded:?}"
        );
        assert!(
            unbounded.contains(&top.join("results.json")),
            "{unbounded:?}"
        );
        assert_eq!(paths(&shared(None, Some(&home))), vec![nearest]);
        // A run opened as the home folder itself is not searched above.
        assert!(walk_up(std::slice::from_ref(&home), &shared(Some(&home), None)).is_empty());
    }

    #[test]
    fn only_files_shaped_like_results_are_parsed() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().canonicalize().unwrap();
        fs::create_dir_all(top.join(".git")).unwrap();
        fs::create_dir_all(top.join("run/trajs")).unwrap();
        fs::write(top.join("run/results.json"), RESULTS).unwrap();
        // Results by its keys, but they come after 64 KiB of something else: not shaped like
        // any results file trajscope knows, so not read, though it would parse as one.
        let late = format!(
            r#"{{"notes": "{}", "resolved": ["c__c-3"], "applied": ["c__c-3"]}}"#,
            "x".repeat(70_000)
        );
        assert!(matches!(
            detect(Path::new("late.json"), late.as_bytes()),
            Ok(Kind::Results(_))
        ));
        fs::write(top.join("late.json"), &late).unwrap();
        // A big unrelated document: a list of packages.
        let packages: Vec<String> = (0..20_000)
            .map(|i| format!(r#"{{"name": "pkg{i}", "version": "1.{i}.0"}}"#))
            .collect();
        fs::write(
            top.join("packages.json"),
            format!("[{}]", packages.join(",")),
        )
        .unwrap();
        let found = results_above(&[top.join("run/trajs")]);
        let paths: Vec<&Path> = found.iter().map(|s| s.path.as_path()).collect();
        assert_eq!(paths, vec![top.join("run/results.json").as_path()]);
    }

    #[test]
    fn every_results_format_opens_with_a_key_the_sniff_knows() {
        let heads = [
            // Old SWE-bench results.json, first list first.
            "{\n    \"no_generation\": [\n        \"django__django-15738\",",
            // Harness report.json.
            r#"{"sympy__sympy-12489": {"patch_is_None": false, "patch_exists": true, "resolved": false"#,
            // Run summary.
            "{\n    \"total_instances\": 500,\n    \"submitted_instances\": 43,",
            // all_preds.jsonl, preds.json keyed by instance, a predictions array.
            r#"{"model_name_or_path": "CodeR", "instance_id": "d__d-1", "model_patch": "\ndiff"#,
            r#"{"d__d-1": {"model_name_or_path": "m", "instance_id": "d__d-1", "model_patch" : "#,
            r#"  [{"instance_id": "d__d-1", "model_patch": ""#,
        ];
        for head in heads {
            assert!(looks_like_results(head.as_bytes()), "{head}");
        }
        let not_results = [
            // The word inside a string, escaped quotes, no key.
            r#"{"text": "the \"resolved\": field", "message": "resolved"}"#,
            r#"{"name": "pkg", "version": "1.0.0"}"#,
            // Not JSON at the start.
            "resolved: [a]\n\"resolved\": 1",
            "",
        ];
        for head in not_results {
            assert!(!looks_like_results(head.as_bytes()), "{head}");
        }
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
