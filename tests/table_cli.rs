//! `trajscope table`: the Parquet tables of a run, read back with the parquet crate: one
//! row per step and per trajectory, the facts the rules read, the verdicts `stats` uses;
//! a non-empty output folder is refused without --force and replaced whole with it; the
//! output may not hold an input.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use arrow_array::{Array, BooleanArray, Int64Array, RecordBatch, StringArray};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_trajscope");

fn samples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-trajectories")
}

fn trajscope(home: &Path) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_CACHE_HOME", home.join("cache"));
    cmd
}

fn batches(folder: &Path) -> Vec<RecordBatch> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .into_iter()
        .flat_map(|f| {
            ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&f).unwrap())
                .unwrap()
                .build()
                .unwrap()
                .map(|b| b.unwrap())
                .collect::<Vec<_>>()
        })
        .collect()
}

fn strings<'a>(batch: &'a RecordBatch, name: &str) -> &'a StringArray {
    batch
        .column_by_name(name)
        .unwrap()
        .as_any()
        .downcast_ref()
        .unwrap()
}

#[test]
fn the_samples_table_holds_every_step_and_the_verdicts_stats_uses() {
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("samples.table");
    let written = trajscope(home.path())
        .arg("table")
        .arg(samples())
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        written.status.success(),
        "{}",
        String::from_utf8_lossy(&written.stderr)
    );
    let said = String::from_utf8_lossy(&written.stderr);
    assert!(said.contains("trajscope: wrote "), "{said}");

    let ls = trajscope(home.path())
        .arg("ls")
        .arg(samples())
        .arg("--json")
        .output()
        .unwrap();
    let listed: Vec<Value> = serde_json::from_slice::<Vec<Value>>(&ls.stdout)
        .unwrap()
        .into_iter()
        .filter(|t| t["label"].is_string())
        .collect();
    let total_steps: u64 = listed.iter().map(|t| t["steps"].as_u64().unwrap()).sum();

    let trajectories = batches(&out.join("trajectories"));
    let rows: usize = trajectories.iter().map(|b| b.num_rows()).sum();
    assert_eq!(rows, listed.len(), "one row per trajectory `ls` lists");
    let steps = batches(&out.join("steps"));
    let step_rows: u64 = steps.iter().map(|b| b.num_rows() as u64).sum();
    assert_eq!(step_rows, total_steps, "one row per step");

    // The verdicts are the ones `ls` shows, by label.
    let mut resolved_listed: Vec<(String, Option<bool>)> = listed
        .iter()
        .map(|t| {
            (
                t["label"].as_str().unwrap().to_string(),
                t["resolved"].as_bool(),
            )
        })
        .collect();
    let mut resolved_table: Vec<(String, Option<bool>)> = Vec::new();
    for batch in &trajectories {
        let labels = strings(batch, "label");
        let resolved: &BooleanArray = batch
            .column_by_name("resolved")
            .unwrap()
            .as_any()
            .downcast_ref()
            .unwrap();
        for i in 0..batch.num_rows() {
            let r = (!resolved.is_null(i)).then(|| resolved.value(i));
            resolved_table.push((labels.value(i).to_string(), r));
        }
    }
    resolved_listed.sort();
    resolved_table.sort();
    assert_eq!(resolved_table, resolved_listed);

    // Steps are numbered 1.. in each trajectory, and carry the facts rules read.
    let mut saw_tool_calls = false;
    for batch in &steps {
        let step: &Int64Array = batch
            .column_by_name("step")
            .unwrap()
            .as_any()
            .downcast_ref()
            .unwrap();
        let counts: &Int64Array = batch
            .column_by_name("tool_call_count")
            .unwrap()
            .as_any()
            .downcast_ref()
            .unwrap();
        assert!((0..batch.num_rows()).all(|i| step.value(i) >= 1));
        saw_tool_calls |= (0..batch.num_rows()).any(|i| counts.value(i) > 0);
        assert!(strings(batch, "observation").len() == batch.num_rows());
    }
    assert!(saw_tool_calls, "the samples call tools");
}

#[test]
fn a_non_empty_folder_needs_force_and_is_replaced_whole() {
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("t");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("keep.txt"), "mine").unwrap();
    let refused = trajscope(home.path())
        .arg("table")
        .arg(samples())
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("is not empty; pass --force"), "{said}");
    assert!(out.join("keep.txt").exists(), "nothing touched");

    let forced = trajscope(home.path())
        .arg("table")
        .arg(samples())
        .arg("-o")
        .arg(&out)
        .arg("--force")
        .args(["--run", "shard 1"])
        .output()
        .unwrap();
    assert!(
        forced.status.success(),
        "{}",
        String::from_utf8_lossy(&forced.stderr)
    );
    assert!(
        !out.join("keep.txt").exists(),
        "the old folder is replaced whole"
    );
    assert!(out.join("steps/shard_1-part-00000.parquet").exists());
    let leftovers: Vec<String> = std::fs::read_dir(home.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn the_output_may_not_hold_an_input() {
    let home = tempfile::tempdir().unwrap();
    let run = home.path().join("run");
    std::fs::create_dir(&run).unwrap();
    std::fs::write(run.join("a.jsonl"), "{}\n").unwrap();
    let out = trajscope(home.path())
        .arg("table")
        .arg(&run)
        .arg("-o")
        .arg(home.path())
        .arg("--force")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("would hold the input"), "{said}");
    assert!(run.exists());
}
