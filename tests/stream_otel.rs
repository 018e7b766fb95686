//! A long OTLP export read in bounded memory: the sample's trace repeated under fresh trace,
//! span and call ids, forty traces running at once, their spans exported as they end (a
//! parent after its children, several traces in one request), some tool results long (low
//! thresholds leave them in the file) and some failed. As JSON Lines (one request a line,
//! the last one torn) and as one pretty-printed document. At thresholds 8, 64 and 512 the
//! trajectories read back, the listing's summaries and what a tally reads equal the whole
//! read's, with a memory budget smaller than the file: only a read that holds one record at
//! a time (not the file, nor its slimmed text) gets through.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
#[path = "support/cli.rs"]
mod cli;

use trajscope::formats::{
    BUDGET_ENV, Detail, Loaded, SLIM_ABOVE, bounded_summaries, load_bytes, open_bounded,
    read_bounded, trace_at, visit_bounded, visit_traces_bounded,
};
use trajscope::model::{Format, Step, Trajectory, TrajectorySummary};

const TRACES: usize = 40;
/// Smaller than each generated file, larger than any of its records.
const BUDGET: &str = "200K";

fn sample_spans() -> Vec<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("sample-trajectories/otel-genai/tinycalc__tinycalc-1.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
        .as_array()
        .unwrap()
        .clone()
}

fn attr<'a>(span: &'a mut Value, key: &str) -> Option<&'a mut Value> {
    span["attributes"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|a| a["key"] == key)
        .map(|a| &mut a["value"]["stringValue"])
}

/// Every span of every trace, in the order they end.
fn long_export() -> Vec<Value> {
    let template = sample_spans();
    let trace = template[0]["traceId"].as_str().unwrap().to_string();
    let mut calls: Vec<String> = Vec::new();
    for span in &template {
        let mut span = span.clone();
        if let Some(id) = attr(&mut span, "gen_ai.tool.call.id") {
            calls.push(id.as_str().unwrap().to_string());
        }
    }
    let text = serde_json::to_string(&template).unwrap();
    let mut all = Vec::new();
    for n in 0..TRACES {
        let mut fresh = text
            .replace(&trace, &format!("{n:032x}"))
            .replace("Division drops", &format!("Division {n} drops"));
        for (k, call) in calls.iter().enumerate() {
            fresh = fresh.replace(call, &format!("call_{n}_{k}"));
        }
        let mut spans: Vec<Value> = serde_json::from_str(&fresh).unwrap();
        // Traces start 3 s apart and last a minute: about twenty run at once.
        let shift = n as u64 * 3_000_000_000;
        let mut tools = 0;
        for (i, span) in spans.iter_mut().enumerate() {
            span["spanId"] = json!(format!("{n:08x}{i:08x}"));
            for key in ["startTimeUnixNano", "endTimeUnixNano"] {
                let t: u64 = span[key].as_str().unwrap().parse().unwrap();
                span[key] = json!((t + shift).to_string());
            }
            if let Some(result) = attr(span, "gen_ai.tool.call.result") {
                tools += 1;
                if n % 3 == 1 && tools == 1 {
                    *result = json!(format!("{n}: {}", "FAILED test_x\n".repeat(60)));
                }
                if n % 4 == 2 && tools == 2 {
                    span["status"] = json!({"code": 2, "message": "exit status 1"});
                }
            }
        }
        all.extend(spans);
    }
    let end = |s: &Value| -> u64 { s["endTimeUnixNano"].as_str().unwrap().parse().unwrap() };
    all.sort_by_key(end);
    all
}

fn request(spans: &[Value]) -> Value {
    json!({"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "fixer"}}]},
           "scopeSpans": [{"scope": {"name": "openai-agents"}, "spans": spans}]})
}

fn whole(path: &Path) -> Vec<Trajectory> {
    match load_bytes(path, &std::fs::read(path).unwrap()).unwrap() {
        Loaded::Trajectories(ts) => ts,
        Loaded::Results(_) => panic!("not trajectories"),
    }
}

fn without_contexts(steps: &[Step]) -> Vec<Step> {
    steps
        .iter()
        .map(|s| Step {
            context: None,
            ..s.clone()
        })
        .collect()
}

fn bounded_equals_whole(path: &Path) {
    let full = whole(path);
    // One trace read back alone (`show FILE#N`, `export --trajectory N`), the others left.
    let (third, count) = trace_at(path, 3).unwrap().expect("an export");
    assert_eq!(count, TRACES);
    assert!(third.as_ref() == Some(&full[2]), "trajectory 3 alone");
    let (none, _) = trace_at(path, TRACES + 1).unwrap().unwrap();
    assert!(none.is_none());
    assert_eq!(full.len(), TRACES, "one trajectory per trace");
    assert!(full.iter().all(|t| t.format == Format::OtelGenai));
    let steps: usize = full.iter().map(|t| t.steps.len()).sum();
    assert!(steps > 300, "{steps} steps");
    let len = std::fs::metadata(path).unwrap().len();
    assert!(
        len > 4 * 200 * 1024,
        "the file ({len} bytes) outgrows the budget"
    );
    for threshold in [8, 64, SLIM_ABOVE] {
        let held = read_bounded(path, threshold, Detail::Full)
            .unwrap_or_else(|e| panic!("threshold {threshold}: {e}"))
            .expect("read as JSON");
        assert_eq!(held.len(), full.len(), "threshold {threshold}");
        for (got, want) in held.iter().zip(&full) {
            if got != want {
                let step = got.steps.iter().zip(&want.steps).position(|(a, b)| a != b);
                panic!(
                    "threshold {threshold}, trace {}: {} steps for {}, first differing: {step:?}; \
                     pools equal: {}",
                    want.instance_id,
                    got.steps.len(),
                    want.steps.len(),
                    got.messages == want.messages
                );
            }
        }
        let listed = read_bounded(path, threshold, Detail::Steps)
            .unwrap()
            .unwrap();
        for (got, want) in listed.iter().zip(&full) {
            assert_eq!(got.steps, without_contexts(&want.steps));
        }
        let opened = open_bounded(path, threshold).unwrap().unwrap();
        let last = &opened[TRACES - 1];
        let want = &full[TRACES - 1];
        assert_eq!(last.step_count(), want.steps.len());
        assert_eq!(last.load_step(2).unwrap().steps[0], want.steps[1]);
        let summaries = bounded_summaries(path, threshold).unwrap().unwrap();
        let want: Vec<TrajectorySummary> = full.iter().map(TrajectorySummary::of).collect();
        assert_eq!(summaries, want, "threshold {threshold}");
        // One trace at a time, read back from the places of its spans: the whole read's.
        let mut visited = Vec::new();
        let count = visit_traces_bounded(path, threshold, &mut |t| {
            visited.push(t);
            Ok(())
        })
        .unwrap_or_else(|e| panic!("threshold {threshold}: {e}"))
        .expect("an export visited trace by trace");
        assert_eq!(count, full.len());
        for (got, want) in visited.iter().zip(&full) {
            assert_eq!(got.warnings, want.warnings, "threshold {threshold}");
            assert_eq!(got.messages, want.messages, "threshold {threshold}");
            assert_eq!(got.steps, want.steps, "threshold {threshold}");
            assert!(got == want, "threshold {threshold}: {}", want.instance_id);
        }
        // Several trajectories are not one trajectory's steps: not visited as such.
        assert!(
            visit_bounded(path, threshold, &mut |_| Ok(()))
                .unwrap()
                .is_none()
        );
    }
}

#[test]
fn a_long_interleaved_export_read_in_bounded_memory_equals_the_whole_read() {
    // SAFETY: this binary has this one test, and no other thread reads the environment yet.
    unsafe { std::env::set_var(BUDGET_ENV, BUDGET) };
    let spans = long_export();
    // Spans come in end order, so a trace's first span (its agent's) comes after its steps.
    let agent_at = spans
        .iter()
        .position(|s| s["name"].as_str().unwrap().starts_with("invoke_agent"))
        .unwrap();
    assert!(
        agent_at > 10,
        "the agent span of a trace ends after its steps"
    );
    let dir = tempfile::tempdir().unwrap();

    let lines = dir.path().join("traces.jsonl");
    let mut text: String = spans
        .chunks(7)
        .map(|batch| json!({"resourceSpans": [request(batch)]}).to_string() + "\n")
        .collect();
    text.push_str(r#"{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "#);
    std::fs::write(&lines, text).unwrap();
    bounded_equals_whole(&lines);
    listed_and_tallied_within_the_budget(&lines, dir.path());
    let torn = &whole(&lines)[0].warnings;
    assert!(
        torn.iter().any(|w| w.contains("last line is incomplete")),
        "{torn:?}"
    );

    let doc = dir.path().join("traces.json");
    let items: Vec<Value> = spans.chunks(7).map(request).collect();
    let text = serde_json::to_string_pretty(&json!({"resourceSpans": items})).unwrap();
    std::fs::write(&doc, text).unwrap();
    bounded_equals_whole(&doc);
    listed_and_tallied_within_the_budget(&doc, dir.path());

    // One request a line inside the document, as gen-big.py writes it.
    let items: Vec<String> = spans.chunks(7).map(|b| request(b).to_string()).collect();
    let text = format!("{{\"resourceSpans\": [{}]}}\n", items.join(",\n"));
    std::fs::write(&doc, text).unwrap();
    bounded_equals_whole(&doc);
    listed_and_tallied_within_the_budget(&doc, dir.path());
}

/// `ls` and `stats` of `path` under [`BUDGET`] (smaller than the file, which main then
/// refused to read whole, larger than any of its traces) print what they print of it read
/// whole without a budget: its trajectories are read back and dropped one at a time.
fn listed_and_tallied_within_the_budget(path: &Path, home: &Path) {
    for command in ["ls", "stats"] {
        let run = |budget: Option<&str>| {
            let mut c = cli::isolated(home);
            c.args([command, "--json", "--no-cache"]).arg(path);
            match budget {
                Some(b) => c.env(BUDGET_ENV, b),
                None => c.env_remove(BUDGET_ENV),
            };
            cli::json_of(&mut c)
        };
        let within = run(Some(BUDGET));
        let free = run(None);
        assert_eq!(within, free, "{command} {}", path.display());
        let listed = match command {
            "ls" => within.as_array().map(Vec::len),
            _ => within["trajectories"].as_u64().map(|n| n as usize),
        };
        assert_eq!(listed, Some(TRACES), "{command}: {within}");
    }
}
