//! Codex token totals as ccusage sums them (issue 20): `scripts/ccusage-codex-sum.py`, written
//! from ccusage's loader independently of trajscope's reader, sums every Codex session log of
//! the shared corpus and of the samples, and `trajscope ls --json` must report the same input,
//! cached, output and reasoning tokens for each. Files in which ccusage counts nothing (older
//! rollouts without `token_count`, `codex exec --json` output) are left out: ccusage reports
//! no usage for them, trajscope may read more. Skipped without python3.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/cli.rs"]
mod cli;
#[path = "support/corpus.rs"]
mod corpus;

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const KEYS: [&str; 4] = [
    "tokens_in",
    "tokens_cached",
    "tokens_out",
    "tokens_reasoning",
];

fn jsonl_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            jsonl_under(&path, out);
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            out.push(path);
        }
    }
}

/// What the ccusage-style script sums, by path, for files where it counts at least one event.
fn ccusage_sums(files: &[PathBuf]) -> Option<BTreeMap<PathBuf, Value>> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/ccusage-codex-sum.py");
    let out = match Command::new("python3").arg(script).args(files).output() {
        Ok(out) => out,
        Err(err) => {
            eprintln!("skipping: python3 could not run: {err}");
            return None;
        }
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sums = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|row| row["events"].as_u64().unwrap() > 0)
        .map(|row| (PathBuf::from(row["path"].as_str().unwrap()), row))
        .collect();
    Some(sums)
}

fn trajscope_rows(files: &[&PathBuf]) -> BTreeMap<PathBuf, Value> {
    let home = tempfile::tempdir().unwrap();
    let rows = cli::json_of(
        cli::isolated(home.path())
            .args(["ls", "--json", "--no-cache"])
            .args(files),
    );
    let Value::Array(rows) = rows else {
        panic!("ls --json gives an array: {rows}")
    };
    rows.into_iter()
        .map(|row| (PathBuf::from(row["path"].as_str().unwrap()), row))
        .collect()
}

#[test]
fn codex_totals_are_what_ccusage_sums() {
    let mut files = Vec::new();
    if let Some(dir) = corpus::corpus("codex-cli") {
        jsonl_under(&dir, &mut files);
    }
    jsonl_under(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-trajectories/codex"),
        &mut files,
    );
    let Some(sums) = ccusage_sums(&files) else {
        return;
    };
    // The sample alone has seven reports; the corpus adds four logs with usage.
    assert!(!sums.is_empty(), "no Codex log with token_count found");
    let counted: Vec<&PathBuf> = sums.keys().collect();
    let rows = trajscope_rows(&counted);
    let mut differences = Vec::new();
    for (path, want) in &sums {
        let Some(row) = rows.get(path) else {
            differences.push(format!("{}: no row in ls --json", path.display()));
            continue;
        };
        assert_eq!(row["format"], "codex", "{}", path.display());
        for key in KEYS {
            if row[key] != want[key] {
                differences.push(format!(
                    "{} {key}: trajscope {}, ccusage {}",
                    path.display(),
                    row[key],
                    want[key]
                ));
            }
        }
    }
    assert!(differences.is_empty(), "\n{}", differences.join("\n"));
}
