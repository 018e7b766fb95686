//! `trajscope stats --emit-sql` on real engines: the table `trajscope table` writes of the
//! whole shared corpus and of the samples, tallied by DuckDB (every case) and by Spark (local
//! mode; the corpus and the samples, see `Case::spark`) with the emitted query, gives rule by rule the
//! numbers `trajscope stats --json` gives, and every default rule that looks at one step is
//! computed, not refused.
//!
//! The engines live in the venv `scripts/engines.sh` installs; without it the test skips,
//! unless `TRAJSCOPE_REQUIRE_ENGINES=1` (set by `.ci/run`) makes that a failure. One engine
//! session runs all the queries (`scripts/engines/run_sql.py`): Spark starts once.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/corpus.rs"]
mod corpus;

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_trajscope");

fn engines_python() -> Option<PathBuf> {
    let venv = std::env::var_os("TRAJSCOPE_ENGINES_VENV")
        .map(PathBuf::from)
        .or_else(|| dirs::cache_dir().map(|d| d.join("trajscope").join("engines")))?;
    let python = venv.join("bin").join("python");
    if python.exists() {
        return Some(python);
    }
    assert!(
        std::env::var("TRAJSCOPE_REQUIRE_ENGINES").as_deref() != Ok("1"),
        "TRAJSCOPE_REQUIRE_ENGINES=1 but {} is missing: run scripts/engines.sh",
        python.display()
    );
    eprintln!(
        "skipping: no engines venv at {} (scripts/engines.sh installs it)",
        venv.display()
    );
    None
}

/// trajscope with no user rule file and no cache outside `home`.
fn trajscope(home: &Path) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_CACHE_HOME", home.join("cache"));
    cmd
}

fn run_ok(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

struct Case {
    name: &'static str,
    path: PathBuf,
    rules: Vec<&'static str>,
    /// Spark checks this case too: the samples and the whole corpus under the default rules
    /// (about a minute and a half each on 2 busy cores, after a minute of start-up); the
    /// samples with both packs only with `TRAJSCOPE_SPARK_ALL=1`. DuckDB checks every case.
    spark: bool,
}

/// The numbers of one rule, by output column.
type Numbers = BTreeMap<String, u64>;

fn stats_numbers(json: &Value) -> BTreeMap<String, Numbers> {
    json["rules"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["kind"] == "rule")
        .map(|r| {
            let mut n = Numbers::new();
            for key in ["matches", "steps", "trajectories"] {
                n.insert(key.to_string(), r[key].as_u64().unwrap());
                for outcome in ["resolved", "unresolved", "unknown"] {
                    n.insert(
                        format!("{outcome}_{key}"),
                        r[outcome][key].as_u64().unwrap(),
                    );
                }
            }
            (r["name"].as_str().unwrap().to_string(), n)
        })
        .collect()
}

fn engine_numbers(rows: &Value, what: &str) -> BTreeMap<String, Numbers> {
    let rows = rows
        .as_array()
        .unwrap_or_else(|| panic!("{what}: the engine failed: {rows}"));
    rows.iter()
        .map(|row| {
            let row = row.as_object().unwrap();
            let numbers = row
                .iter()
                .filter(|(k, _)| *k != "rule")
                .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
                .collect();
            (row["rule"].as_str().unwrap().to_string(), numbers)
        })
        .collect()
}

/// The rules a query refuses, from its header comments.
fn refused(sql: &str) -> Vec<String> {
    sql.lines()
        .filter_map(|l| l.strip_prefix("-- refused: rule `"))
        .filter_map(|l| l.split('`').next())
        .map(String::from)
        .collect()
}

#[test]
fn duckdb_and_spark_tally_the_corpus_and_samples_like_stats() {
    let Some(python) = engines_python() else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let samples = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-trajectories");
    let spark_all = std::env::var("TRAJSCOPE_SPARK_ALL").as_deref() == Ok("1");
    let mut cases = vec![
        Case {
            name: "samples",
            path: samples.clone(),
            rules: vec![],
            spark: true,
        },
        Case {
            name: "samples-packs",
            path: samples,
            rules: vec!["swe-bench-pro-failure-modes", "sniffly-claude-code-errors"],
            spark: spark_all,
        },
    ];
    if let Some(corpus) = corpus::corpus("") {
        cases.push(Case {
            name: "corpus",
            path: corpus,
            rules: vec![],
            spark: true,
        });
    }

    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/engines/run_sql.py");
    let mut expected = BTreeMap::new();
    let mut jobs: BTreeMap<&str, Vec<Value>> = BTreeMap::new();
    for case in &cases {
        let table = home.path().join(format!("{}.table", case.name));
        run_ok(
            trajscope(home.path())
                .arg("table")
                .arg(&case.path)
                .arg("-o")
                .arg(&table)
                .arg("--no-cache"),
        );
        let rule_args: Vec<String> = case
            .rules
            .iter()
            .flat_map(|r| ["--rules".to_string(), r.to_string()])
            .collect();
        let stats = run_ok(
            trajscope(home.path())
                .arg("stats")
                .arg(&case.path)
                .args(["--json", "--no-cache"])
                .args(&rule_args),
        );
        let stats: Value = serde_json::from_slice(&stats.stdout).unwrap();
        expected.insert(case.name, stats_numbers(&stats));
        let engines: &[&str] = if case.spark {
            &["duckdb", "spark"]
        } else {
            &["duckdb"]
        };
        for &engine in engines {
            let out = run_ok(
                trajscope(home.path())
                    .args(["stats", "--emit-sql", engine, "--table"])
                    .arg(&table)
                    .args(&rule_args),
            );
            let sql = String::from_utf8(out.stdout).unwrap();
            if case.rules.is_empty() {
                // Every default rule decided by its own step is computed by the engine.
                let single_step = [
                    "syntax_error",
                    "edit_rejected",
                    "file_not_found",
                    "command_not_found",
                    "python_traceback",
                    "timeout",
                    "error_after_tool_call",
                    "tool_calls",
                    "format_error",
                    "context_window_exceeded",
                    "nonzero_exit",
                    "edit",
                    "test_run",
                    "submit",
                ];
                let refused = refused(&sql);
                for rule in single_step {
                    assert!(
                        !refused.contains(&rule.to_string()),
                        "{engine} refuses {rule}"
                    );
                }
                assert!(refused.is_empty(), "{engine} refuses {refused:?}");
            }
            let sql_file = home.path().join(format!("{}.{engine}.sql", case.name));
            std::fs::write(&sql_file, &sql).unwrap();
            jobs.entry(engine).or_default().push(serde_json::json!({
                "sql": sql_file,
                "out": home.path().join(format!("{}.{engine}.json", case.name)),
                "case": case.name,
            }));
        }
    }

    for (engine, jobs) in &jobs {
        let jobs_file = home.path().join(format!("{engine}.jobs.json"));
        std::fs::write(&jobs_file, serde_json::to_vec(jobs).unwrap()).unwrap();
        run_ok(
            Command::new(&python)
                .arg(&script)
                .arg(engine)
                .arg(&jobs_file),
        );
        for job in jobs {
            let case = job["case"].as_str().unwrap();
            let sql = std::fs::read_to_string(job["sql"].as_str().unwrap()).unwrap();
            let rows: Value =
                serde_json::from_slice(&std::fs::read(job["out"].as_str().unwrap()).unwrap())
                    .unwrap();
            let got = engine_numbers(&rows, &format!("{engine} on {case}"));
            let want = &expected[case];
            let refused = refused(&sql);
            let computed: Vec<&String> = want.keys().filter(|r| !refused.contains(r)).collect();
            assert!(!computed.is_empty(), "{engine} on {case}: nothing computed");
            for rule in computed {
                assert_eq!(
                    got.get(rule),
                    Some(&want[rule]),
                    "{engine} on {case}: rule `{rule}`"
                );
            }
            assert_eq!(
                got.len() + refused.iter().filter(|r| want.contains_key(*r)).count(),
                want.len(),
                "{engine} on {case}: one row per rule shown: {:?}",
                got.keys().collect::<Vec<_>>()
            );
        }
    }
}
