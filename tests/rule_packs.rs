//! The built-in rule packs count what the published classifiers they follow count: for each
//! mode, the steps `trajscope stats --only-rules PACK --json` gives the mode's rule equal the
//! steps the original assigns that mode. The reference numbers were computed once by running
//! the original logic (commands below) and are recorded here, so anyone can re-check them.
//!
//! nilenso's SWE-Bench Pro failure modes (`swe-bench-pro-failure-modes`): the classifier
//! imported unchanged from nilenso/swe-bench-pro-cost-token-time-analysis at
//! 1169deb8892569c6b1ac4c51f2b09eb3b886ddef, each `.traj` read as its
//! scripts/build_failure_modes.py reads it (`data["trajectory"]`, each step's `action` and
//! `observation`; files without trajectory steps are skipped):
//!
//! ```text
//! git clone https://github.com/nilenso/swe-bench-pro-cost-token-time-analysis /tmp/nilenso
//! git -C /tmp/nilenso checkout 1169deb8892569c6b1ac4c51f2b09eb3b886ddef
//! python3 scripts/parity/nilenso_failure_modes.py /tmp/nilenso ../shared/corpus
//! python3 scripts/parity/nilenso_failure_modes.py /tmp/nilenso tests/fixtures/packs
//! ```
//!
//! sniffly's Claude Code error categories (`sniffly-claude-code-errors`): sniffly's own log
//! processor and error analysis, imported unchanged from chiphuyen/sniffly at
//! a237d7e9a9b37181626c049046c99b496f6c33c5 (needs `pip install orjson`):
//!
//! ```text
//! git clone https://github.com/chiphuyen/sniffly /tmp/sniffly
//! git -C /tmp/sniffly checkout a237d7e9a9b37181626c049046c99b496f6c33c5
//! python3 scripts/parity/sniffly_error_categories.py /tmp/sniffly tests/fixtures/packs/claude_errors.jsonl
//! cd ../shared/corpus && python3 $OLDPWD/scripts/parity/sniffly_error_categories.py /tmp/sniffly \
//!     $(find claude-code -type f \( -name '*.jsonl' -o -name '*.json' \) | sort)
//! ```
//!
//! The script prints two counts per category: `records`, sniffly's classification of every
//! failed tool result its reader extracts, and `pipeline`, what its whole log processing
//! (deduplication, regrouping into user-prompted interactions) classifies, sniffly's
//! published numbers. On the corpus they differ by one result: a user rejection in a
//! session whose records are all marked `isSidechain` (agent-sessions' small.jsonl), which
//! the pipeline drops and which answers no tool call in the log, so trajscope makes no step
//! of it either. The pack equals `pipeline` on both the corpus and the fixture.
//!
//! The fixtures under tests/fixtures/packs are ours: one step per branch of each classifier
//! and the edge cases of its text handling (character windows after Unicode lowercasing,
//! Python's whitespace, the first window line), since the corpus reaches only a few modes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/corpus.rs"]
mod corpus;

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const NILENSO: &str = "swe-bench-pro-failure-modes";
const SNIFFLY: &str = "sniffly-claude-code-errors";

/// (mode, steps, trajectories) as the original counted them.
type Reference = &'static [(&'static str, u64, u64)];

/// `nilenso_failure_modes.py` on the shared corpus: 108 SWE-agent trajectories with steps
/// (99 CodeR, 9 of SWE-agent's own; its 10th `.traj` has history only).
const NILENSO_CORPUS: Reference = &[
    ("apply_patch_cmd_not_found", 0, 0),
    ("apply_patch_shell_syntax", 0, 0),
    ("apply_patch_other", 0, 0),
    ("bash_trailing_brace", 0, 0),
    ("bash_quote_nesting", 0, 0),
    ("bash_history_expansion", 0, 0),
    ("bash_heredoc_unterminated", 0, 0),
    ("bash_command_not_found", 12, 5),
    ("bash_syntax_error", 0, 0),
    ("bash_broken_pipe", 0, 0),
    ("strep_no_match", 0, 0),
    ("strep_multiple_matches", 0, 0),
    ("strep_file_not_found", 0, 0),
    ("strep_invalid_range", 0, 0),
    ("strep_create_exists", 0, 0),
    ("py_module_not_found", 26, 12),
    ("py_syntax_error", 2, 1),
    ("py_indentation_error", 111, 34),
    ("py_traceback_other", 101, 42),
    ("node_error", 0, 0),
    ("test_failed", 1, 1),
    ("test_collection_error", 2, 2),
];

/// `nilenso_failure_modes.py` on tests/fixtures/packs (one trajectory of 48 steps).
const NILENSO_FIXTURE: Reference = &[
    ("apply_patch_cmd_not_found", 2, 1),
    ("apply_patch_shell_syntax", 1, 1),
    ("apply_patch_other", 2, 1),
    ("bash_trailing_brace", 2, 1),
    ("bash_quote_nesting", 1, 1),
    ("bash_history_expansion", 2, 1),
    ("bash_heredoc_unterminated", 1, 1),
    ("bash_command_not_found", 4, 1),
    ("bash_syntax_error", 2, 1),
    ("bash_broken_pipe", 1, 1),
    ("strep_no_match", 2, 1),
    ("strep_multiple_matches", 1, 1),
    ("strep_file_not_found", 1, 1),
    ("strep_invalid_range", 1, 1),
    ("strep_create_exists", 1, 1),
    ("py_module_not_found", 1, 1),
    ("py_syntax_error", 3, 1),
    ("py_indentation_error", 1, 1),
    ("py_traceback_other", 2, 1),
    ("node_error", 3, 1),
    ("test_failed", 4, 1),
    ("test_collection_error", 1, 1),
];

/// `sniffly_error_categories.py` on tests/fixtures/packs/claude_errors.jsonl (22 failed
/// tool results, one per step).
const SNIFFLY_FIXTURE: Reference = &[
    ("User Interruption", 1, 1),
    ("Command Timeout", 1, 1),
    ("File Not Read", 1, 1),
    ("File Modified", 1, 1),
    ("File Too Large", 1, 1),
    ("Content Not Found", 3, 1),
    ("No Changes", 1, 1),
    ("Permission Error", 2, 1),
    ("Tool Not Found", 1, 1),
    ("Wrong Tool", 1, 1),
    ("Code Runtime Error", 1, 1),
    ("Port Binding Error", 1, 1),
    ("Syntax Error", 3, 1),
    ("Notebook Cell Not Found", 1, 1),
    ("Other Tool Errors", 1, 1),
    ("Other", 2, 1),
];

/// `sniffly_error_categories.py` on the Claude Code files of the corpus (`pipeline`: two
/// failed results in two files; `records` has one `User Interruption` more, see above).
const SNIFFLY_CORPUS: Reference = &[
    ("User Interruption", 0, 0),
    ("Command Timeout", 0, 0),
    ("File Not Read", 0, 0),
    ("File Modified", 0, 0),
    ("File Too Large", 0, 0),
    ("Content Not Found", 0, 0),
    ("No Changes", 0, 0),
    ("Permission Error", 0, 0),
    ("Tool Not Found", 1, 1),
    ("Wrong Tool", 0, 0),
    ("Code Runtime Error", 0, 0),
    ("Port Binding Error", 0, 0),
    ("Syntax Error", 0, 0),
    ("Notebook Cell Not Found", 0, 0),
    ("Other Tool Errors", 0, 0),
    ("Other", 1, 1),
];

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/packs")
        .join(name)
}

/// (steps, trajectories) per rule of `pack` over `paths`, from `stats --json`.
fn counts(pack: &str, paths: &[PathBuf]) -> BTreeMap<String, (u64, u64)> {
    let out = Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .args([
            "stats",
            "--one-run",
            "--json",
            "--no-cache",
            "--only-rules",
            pack,
        ])
        .args(paths)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        json["rule_errors"].as_array().map_or(0, Vec::len),
        0,
        "{json:#}"
    );
    json["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let n = |k: &str| r[k].as_u64().unwrap();
            (
                r["name"].as_str().unwrap().to_string(),
                (n("steps"), n("trajectories")),
            )
        })
        .collect()
}

fn assert_parity(pack: &str, paths: &[PathBuf], reference: Reference) {
    let found = counts(pack, paths);
    let mut table = String::new();
    let mut differ = false;
    for (mode, steps, trajs) in reference {
        let ours = found.get(*mode).copied().unwrap_or((u64::MAX, u64::MAX));
        differ |= ours != (*steps, *trajs);
        table.push_str(&format!(
            "{mode:28} original {steps:4} steps {trajs:3} trajs   trajscope {:4} steps {:3} trajs\n",
            ours.0, ours.1
        ));
    }
    assert!(!differ, "{pack}:\n{table}");
    assert_eq!(
        found.len(),
        reference.len(),
        "one rule per mode, nothing else: {found:?}"
    );
}

#[test]
fn nilenso_failure_modes_match_the_original_on_every_branch() {
    assert_parity(NILENSO, &[fixture("failure_modes.traj")], NILENSO_FIXTURE);
}

#[test]
fn sniffly_categories_match_the_original_on_every_category() {
    assert_parity(SNIFFLY, &[fixture("claude_errors.jsonl")], SNIFFLY_FIXTURE);
}

/// The SWE-agent `.traj` files of the corpus that hold trajectory steps, as the original
/// reads them.
fn swe_agent_trajectories(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "traj") {
                let json: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
                if json["trajectory"].as_array().is_some_and(|t| !t.is_empty()) {
                    found.push(path);
                }
            }
        }
    }
    found.sort();
    found
}

#[test]
fn nilenso_failure_modes_match_the_original_on_the_corpus() {
    let (Some(coder), Some(swe_agent)) = (
        corpus::corpus("coder-swebench-lite"),
        corpus::corpus("swe-agent"),
    ) else {
        return;
    };
    let mut files = swe_agent_trajectories(&coder);
    files.extend(swe_agent_trajectories(&swe_agent));
    assert_eq!(files.len(), 108);
    assert_parity(NILENSO, &files, NILENSO_CORPUS);
}

#[test]
fn sniffly_categories_match_the_original_on_the_corpus() {
    let Some(root) = corpus::corpus("claude-code") else {
        return;
    };
    let mut files = Vec::new();
    let mut folders = vec![root];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path
                .extension()
                .is_some_and(|e| e == "jsonl" || e == "json")
            {
                files.push(path);
            }
        }
    }
    files.sort();
    assert_eq!(files.len(), 9);
    assert_parity(SNIFFLY, &files, SNIFFLY_CORPUS);
}

#[test]
fn the_packs_are_listed_with_source_and_version() {
    let out = Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .args(["rules", "--list", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let packs: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = packs
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["default", NILENSO, SNIFFLY]);
    let nilenso = &packs[1];
    assert_eq!(nilenso["rules"], 22);
    assert_eq!(nilenso["version"], "1169deb");
    assert!(
        nilenso["source"]
            .as_str()
            .unwrap()
            .contains("nilenso/swe-bench-pro-cost-token-time-analysis")
    );
    assert_eq!(packs[2]["rules"], 16);
    let text = Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .args(["rules", "--list"])
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("swe-bench-pro-failure-modes  version 1169deb  (22 rules, classifier swe_bench_pro_failure_mode)"), "{text}");
    let shown = Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .args(["rules", "--show", SNIFFLY])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(shown.stdout).unwrap(),
        std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/sniffly-claude-code-errors.toml")
        )
        .unwrap()
    );
    let missing = Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .args(["rules", "--show", "nope"])
        .output()
        .unwrap();
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no built-in rule pack `nope`"));
}

#[test]
fn a_pack_adds_to_the_defaults_by_name() {
    let out = Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .args(["stats", "--json", "--no-cache", "--rules", NILENSO])
        .arg(fixture("failure_modes.traj"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = json["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"syntax_error") && names.contains(&"strep_no_match"));
    let origin = json["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "strep_no_match")
        .unwrap()["origin"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        origin.starts_with("pack:swe-bench-pro-failure-modes:"),
        "{origin}"
    );
}
