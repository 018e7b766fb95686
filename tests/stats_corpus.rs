//! `trajscope stats --json` over the real CodeR run agrees with an independent count: the
//! trajectories loaded with the library, every rule of `rules/default.toml` re-implemented
//! in the plainest way (a loop over steps, `str::matches`, one `Regex` per rule), split by
//! the verdicts of the run's `results.json`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/corpus.rs"]
mod corpus;

use regex::Regex;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use trajscope::formats::load_run;
use trajscope::model::{Step, Trajectory};

/// One rule as the TOML says, read without the library's rule code.
struct PlainRule {
    name: String,
    pattern: Option<String>,
    unless: Option<String>,
    regex: bool,
    ignore_case: bool,
    field: String,
    tool: Option<Vec<String>>,
    after_tool_call: bool,
    matches: Option<String>,
    after: Option<String>,
    repeat: Option<usize>,
    same_observation: bool,
    not_followed_by: Option<String>,
    before: Option<String>,
    /// Left out of the report's tables (the default alerts).
    hidden: bool,
}

fn plain_rules(text: &str) -> Vec<PlainRule> {
    let doc: toml::Table = toml::from_str(text).unwrap();
    let s = |t: &toml::Table, k: &str| t.get(k).and_then(|v| v.as_str()).map(String::from);
    let b = |t: &toml::Table, k: &str| t.get(k).and_then(|v| v.as_bool()).unwrap_or(false);
    doc["rule"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let t = r.as_table().unwrap();
            PlainRule {
                name: s(t, "name").unwrap(),
                pattern: s(t, "pattern"),
                unless: s(t, "unless"),
                regex: b(t, "regex"),
                ignore_case: b(t, "ignore_case"),
                field: s(t, "field").unwrap_or_else(|| "any".into()),
                tool: t.get("tool").map(|v| match v {
                    toml::Value::String(s) => vec![s.clone()],
                    toml::Value::Array(a) => {
                        a.iter().map(|x| x.as_str().unwrap().to_string()).collect()
                    }
                    _ => panic!("tool"),
                }),
                after_tool_call: b(t, "after_tool_call"),
                matches: s(t, "matches"),
                after: s(t, "after"),
                repeat: t
                    .get("repeat")
                    .and_then(|v| v.as_integer())
                    .map(|n| n as usize),
                same_observation: b(t, "same_observation"),
                not_followed_by: s(t, "not_followed_by"),
                before: s(t, "before"),
                hidden: b(t, "hidden"),
            }
        })
        .collect()
}

fn field_texts(step: &Step, field: &str) -> Vec<String> {
    let tools = if step.tool_calls.is_empty() {
        step.tool.clone().unwrap_or_default()
    } else {
        step.tool_calls
            .iter()
            .map(|c| c.name.clone())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let all = [
        ("observation", step.observation.clone()),
        ("action", step.action.clone()),
        ("thought", step.thought.clone()),
        ("response", step.response.clone()),
        ("tool", tools),
    ];
    all.into_iter()
        .filter(|(name, _)| field == "any" || *name == field)
        .map(|(_, text)| text)
        .collect()
}

fn made_call(step: &Step) -> bool {
    !step.tool_calls.is_empty() || !step.action.trim().is_empty()
}

fn calls(step: &Step) -> Vec<String> {
    if !step.tool_calls.is_empty() {
        step.tool_calls.iter().map(|c| c.name.clone()).collect()
    } else if made_call(step) {
        step.tool.clone().into_iter().collect()
    } else {
        Vec::new()
    }
}

fn count(pattern: &str, regex: bool, ignore_case: bool, text: &str) -> usize {
    if !regex && !ignore_case {
        return text.matches(pattern).count();
    }
    let body = if regex {
        pattern.to_string()
    } else {
        regex::escape(pattern)
    };
    let flags = if ignore_case { "(?mi)" } else { "(?m)" };
    let source = format!("{flags}{body}");
    thread_local! {
        static COMPILED: std::cell::RefCell<BTreeMap<String, Regex>> = Default::default();
    }
    COMPILED.with(|c| {
        c.borrow_mut()
            .entry(source.clone())
            .or_insert_with(|| Regex::new(&source).unwrap())
            .find_iter(text)
            .count()
    })
}

/// Matches of `rule` at each step of `t`, given the counts of the rules it refers to.
fn plain_counts(
    rule: &PlainRule,
    t: &Trajectory,
    done: &BTreeMap<String, Vec<usize>>,
) -> Vec<usize> {
    let n = t.steps.len();
    let mut out = vec![0; n];
    for (i, step) in t.steps.iter().enumerate() {
        let mut c = match &rule.pattern {
            Some(p) => field_texts(step, &rule.field)
                .iter()
                .map(|text| count(p, rule.regex, rule.ignore_case, text))
                .sum(),
            None => match &rule.tool {
                Some(tools) => calls(step)
                    .iter()
                    .filter(|c| tools.iter().any(|t| t == "*" || t == *c))
                    .count(),
                None => 1,
            },
        };
        if let Some(tools) = &rule.tool
            && !calls(step)
                .iter()
                .any(|c| tools.iter().any(|t| t == "*" || t == c))
        {
            c = 0;
        }
        if rule.after_tool_call && !made_call(step) {
            c = 0;
        }
        if let Some(u) = &rule.unless
            && field_texts(step, &rule.field)
                .iter()
                .any(|text| count(u, rule.regex, rule.ignore_case, text) > 0)
        {
            c = 0;
        }
        if let Some(other) = &rule.matches
            && done[other][i] == 0
        {
            c = 0;
        }
        if let Some(other) = &rule.after
            && (i == 0 || done[other][i - 1] == 0)
        {
            c = 0;
        }
        if let Some(k) = rule.repeat {
            let same = |a: &Step, b: &Step| {
                !a.action.trim().is_empty()
                    && a.action.trim() == b.action.trim()
                    && (!rule.same_observation || a.observation == b.observation)
            };
            let streak = (0..k).all(|back| {
                back <= i
                    && !t.steps[i - back].action.trim().is_empty()
                    && (back == 0 || same(&t.steps[i - back], &t.steps[i - back + 1]))
            });
            if !streak {
                c = 0;
            }
        }
        if let Some(follower) = &rule.not_followed_by {
            let end = match &rule.before {
                Some(b) => (i + 1..n).find(|&j| done[b][j] > 0),
                None => Some(n),
            };
            match end {
                None => c = 0,
                Some(end) => {
                    if (i..end).any(|j| done[follower][j] > 0) {
                        c = 0;
                    }
                }
            }
        }
        out[i] = c;
    }
    out
}

type Split = BTreeMap<&'static str, [u64; 3]>;

/// Runs `trajscope stats --json` on `dir`, checks every default rule against the plain
/// count, and returns the report.
fn check_against_plain_count(dir: &Path) -> Value {
    let config = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .args(["stats", "--json"])
        .arg(dir)
        .env("XDG_CONFIG_HOME", config.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(report["rule_errors"].as_array().unwrap().is_empty());

    let run = load_run(&[dir.to_path_buf()], &|_| {});
    assert_eq!(
        report["trajectories"].as_u64().unwrap() as usize,
        run.trajectories.len()
    );
    let rules_text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/default.toml"))
            .unwrap();
    let rules = plain_rules(&rules_text);
    // Rules referred to by others first, as the library does.
    let order: Vec<&PlainRule> = rules
        .iter()
        .filter(|r| {
            r.matches.is_none()
                && r.after.is_none()
                && r.not_followed_by.is_none()
                && r.repeat.is_none()
        })
        .chain(rules.iter().filter(|r| {
            r.matches.is_some()
                || r.after.is_some()
                || r.not_followed_by.is_some()
                || r.repeat.is_some()
        }))
        .collect();

    let mut expected: BTreeMap<String, Split> = BTreeMap::new();
    for t in &run.trajectories {
        let mut done: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for rule in &order {
            let counts = plain_counts(rule, t, &done);
            done.insert(rule.name.clone(), counts);
        }
        let group = match t.resolved {
            Some(true) => "resolved",
            Some(false) => "unresolved",
            None => "unknown",
        };
        for rule in &rules {
            let counts = &done[&rule.name];
            let matches: u64 = counts.iter().map(|&c| c as u64).sum();
            let steps = counts.iter().filter(|&&c| c > 0).count() as u64;
            let split = expected.entry(rule.name.clone()).or_default();
            for g in ["all", group] {
                let e = split.entry(g).or_default();
                e[0] += matches;
                e[1] += steps;
                e[2] += u64::from(steps > 0);
            }
        }
    }

    let reported = report["rules"].as_array().unwrap();
    assert_eq!(reported.len(), rules.iter().filter(|r| !r.hidden).count());
    for row in reported {
        let name = row["name"].as_str().unwrap();
        let want = &expected[name];
        let get = |v: &Value| {
            [
                v["matches"].as_u64().unwrap(),
                v["steps"].as_u64().unwrap(),
                v["trajectories"].as_u64().unwrap(),
            ]
        };
        let zero = [0, 0, 0];
        assert_eq!(get(row), *want.get("all").unwrap_or(&zero), "{name}: all");
        for g in ["resolved", "unresolved", "unknown"] {
            assert_eq!(get(&row[g]), *want.get(g).unwrap_or(&zero), "{name}: {g}");
        }
    }
    report
}

fn rule_steps(report: &Value, name: &str) -> u64 {
    report["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap()["steps"]
        .as_u64()
        .unwrap()
}

#[test]
fn stats_json_matches_an_independent_count_over_the_coder_run() {
    let Some(dir) = corpus::corpus("coder-swebench-lite") else {
        return;
    };
    let report = check_against_plain_count(&dir);
    // The verdicts: 30 resolved and 67 unresolved in results.json; 2 instances are in no list.
    assert_eq!(report["trajectories"], 99);
    assert_eq!(report["outcomes"]["resolved"], 30);
    assert_eq!(report["outcomes"]["unresolved"], 67);
    assert_eq!(report["outcomes"]["unknown"], 2);
    let reported = report["rules"].as_array().unwrap();
    let nonzero = reported
        .iter()
        .filter(|r| r["steps"].as_u64().unwrap() > 0)
        .count();
    // The check means something only if the rules find things in this run.
    assert!(nonzero >= 12, "only {nonzero} rules matched");
    let steps_of = |name: &str| rule_steps(&report, name);
    assert_eq!(steps_of("tool_calls"), 3004);
    assert!(steps_of("python_traceback") > 100);
    assert!(steps_of("untested_edit") > 0 && steps_of("error_after_edit") > 0);

    // Exit statuses: all say `submitted`, but 7 runs ended on SWE-agent's forced `exit_cost`.
    assert_eq!(report["exit_statuses"]["submitted"], 99);
    assert_eq!(report["exit_kinds"]["submitted"], 92);
    assert_eq!(report["exit_kinds"]["limit"], 7);
    let rate = &report["resolved_rate"];
    assert_eq!(
        (rate["successes"].clone(), rate["total"].clone()),
        (30.into(), 97.into())
    );
}

#[test]
fn stats_json_matches_an_independent_count_over_the_mini_swe_agent_run() {
    let Some(dir) = corpus::corpus("mini-swe-agent/gpt-5-mini-swebench-verified-run") else {
        return;
    };
    let report = check_against_plain_count(&dir);
    assert_eq!(report["trajectories"], 25);
    // gpt-5-mini answered without a tool call 534 times; each is a step of its own.
    assert_eq!(rule_steps(&report, "format_error"), 534);
    assert_eq!(
        rule_steps(&report, "tool_calls") + 534,
        report["steps"]["total"].as_f64().unwrap() as u64
    );
    assert!(rule_steps(&report, "timeout") > 0 && rule_steps(&report, "nonzero_exit") > 0);
}

#[test]
fn literal_rules_on_every_field_match_str_matches() {
    let Some(dir) = corpus::corpus("coder-swebench-lite") else {
        return;
    };
    let rules = r#"
[[rule]]
name = "error_anywhere"
pattern = "Error"

[[rule]]
name = "no_such_file"
pattern = "No such file or directory"
field = "observation"

[[rule]]
name = "edit_word"
pattern = "edit"
field = "action"

[[rule]]
name = "issue_in_thought"
pattern = "issue"
field = "thought"

[[rule]]
name = "python_tool"
pattern = "python"
field = "tool"

[[rule]]
name = "the_response"
pattern = "the "
field = "response"
"#;
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("literal.toml");
    std::fs::write(&file, rules).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .args(["stats", "--json", "--only-rules"])
        .arg(&file)
        .arg(&dir)
        .env("XDG_CONFIG_HOME", work.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let run = load_run(&[dir], &|_| {});
    for rule in plain_rules(rules) {
        let pattern = rule.pattern.clone().unwrap();
        let (mut matches, mut steps, mut trajectories) = (0u64, 0u64, 0u64);
        for t in &run.trajectories {
            let mut any = false;
            for step in &t.steps {
                let n: usize = field_texts(step, &rule.field)
                    .iter()
                    .map(|text| text.matches(pattern.as_str()).count())
                    .sum();
                matches += n as u64;
                if n > 0 {
                    steps += 1;
                    any = true;
                }
            }
            trajectories += u64::from(any);
        }
        let row = report["rules"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == rule.name.as_str())
            .unwrap();
        assert_eq!(
            (
                row["matches"].as_u64().unwrap(),
                row["steps"].as_u64().unwrap(),
                row["trajectories"].as_u64().unwrap()
            ),
            (matches, steps, trajectories),
            "{}",
            rule.name
        );
        assert!(matches > 0, "{} should match something", rule.name);
    }
}
