//! `trajscope stats --runs A B C`: three runs written by the test with known verdicts, the
//! `comparison` JSON object and the text tables, checked against statistics computed outside
//! trajscope (the Python command is next to each number); and the corpus runs that share
//! instances, when the corpus is present.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/corpus.rs"]
mod corpus;

use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Output};

/// A SWE-agent trajectory of `id` whose one step sees `observation`.
fn write_traj(dir: &Path, id: &str, observation: &str) {
    let doc = json!({
        "trajectory": [{"action": "python reproduce.py", "observation": observation,
                        "response": "", "thought": "", "state": "{}"}],
        "history": [],
        "info": {"exit_status": "submitted", "submission": "diff --git a/x b/x\n+y\n"}
    });
    std::fs::write(
        dir.join(format!("{id}.traj")),
        serde_json::to_vec(&doc).unwrap(),
    )
    .unwrap();
}

/// A run of `i0..i{n}` with a run summary of which were resolved; instances where `error`
/// holds see a traceback.
fn write_run(
    dir: &Path,
    n: usize,
    resolved: impl Fn(usize) -> bool,
    error: impl Fn(usize) -> bool,
) {
    std::fs::create_dir_all(dir).unwrap();
    let (mut yes, mut no) = (Vec::new(), Vec::new());
    for i in 0..n {
        let id = format!("i{i}");
        let observation = if error(i) {
            "Traceback (most recent call last):\nValueError: x"
        } else {
            "ok"
        };
        write_traj(dir, &id, observation);
        if resolved(i) {
            yes.push(id)
        } else {
            no.push(id)
        }
    }
    let summary = json!({"resolved_ids": yes, "unresolved_ids": no});
    std::fs::write(
        dir.join("model.run.json"),
        serde_json::to_vec(&summary).unwrap(),
    )
    .unwrap();
}

fn trajscope(args: &[&str], config: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .args(args)
        .env("XDG_CONFIG_HOME", config)
        .env("XDG_CACHE_HOME", config)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn ok(output: &Output) -> String {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn close(v: &Value, want: f64) -> bool {
    (v.as_f64().unwrap() - want).abs() < 1e-9
}

/// Three runs of i0..i11: A resolves i < 8, B the even ones, C every third; C also has an
/// instance of its own. A has a traceback in i0..i5, B in i0..i2, C nowhere.
fn three_runs(dir: &Path) -> [String; 3] {
    write_run(&dir.join("a"), 12, |i| i < 8, |i| i < 6);
    write_run(&dir.join("b"), 12, |i| i % 2 == 0, |i| i < 3);
    write_run(&dir.join("c"), 13, |i| i % 3 == 0, |_| false);
    ["a", "b", "c"].map(|r| dir.join(r).display().to_string())
}

#[test]
fn three_runs_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let [a, b, c] = three_runs(dir.path());
    let out = ok(&trajscope(
        &["stats", "--json", "--runs", &a, &b, &c],
        dir.path(),
    ));
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        report["runs"].as_array().unwrap().len(),
        3,
        "each run's own report"
    );
    let cmp = &report["comparison"];
    assert_eq!(cmp["runs"], json!([a, b, c]));
    // i12 is only in C: 12 shared instances, in id order.
    let instances = cmp["instances"].as_array().unwrap();
    assert_eq!(instances.len(), 12);
    let i0 = instances.iter().find(|i| i["instance_id"] == "i0").unwrap();
    assert_eq!(i0["resolved"], json!([true, true, true]));
    let i9 = instances.iter().find(|i| i["instance_id"] == "i9").unwrap();
    assert_eq!(i9["resolved"], json!([false, false, true]));
    // Row sums (runs resolving each instance): one 0, six 1s, three 2s, two 3s.
    assert_eq!(cmp["solve_counts"], json!({"0": 1, "1": 6, "2": 3, "3": 2}));
    // Pairs and McNemar, computed outside trajscope:
    //   python3 -c "import math
    //   n=12; A=[int(i<8) for i in range(n)]; B=[int(i%2==0) for i in range(n)]
    //   C=[int(i%3==0) for i in range(n)]; R=[A,B,C]
    //   for a in range(3):
    //     for b in range(a+1,3):
    //       x,y=R[a],R[b]; oa=sum(p&(1-q) for p,q in zip(x,y)); ob=sum((1-p)&q for p,q in zip(x,y))
    //       m=oa+ob; k=min(oa,ob); s=sum(math.comb(m,i) for i in range(k+1))/2**m
    //       print(a,b,oa,ob,(oa-ob)**2/m,min(1,2*s),min(1,2*s-math.comb(m,k)/2**m))"
    //   0 1 4 2 0.6666666666666666 0.6875 0.453125
    //   0 2 5 1 2.6666666666666665 0.21875 0.125
    //   1 2 4 2 0.6666666666666666 0.6875 0.453125
    let pairs = cmp["pairs"].as_array().unwrap();
    let expected = [
        (0, 1, 4, 4, 2, 2, 2.0 / 3.0, 0.6875, 0.453125),
        (0, 2, 3, 5, 1, 3, 8.0 / 3.0, 0.21875, 0.125),
        (1, 2, 2, 4, 2, 4, 2.0 / 3.0, 0.6875, 0.453125),
    ];
    for (p, (a, b, both, only_a, only_b, neither, chi2, exact, mid)) in pairs.iter().zip(expected) {
        assert_eq!(
            (
                &p["a"],
                &p["b"],
                &p["both"],
                &p["only_a"],
                &p["only_b"],
                &p["neither"]
            ),
            (
                &json!(a),
                &json!(b),
                &json!(both),
                &json!(only_a),
                &json!(only_b),
                &json!(neither)
            ),
            "{p}"
        );
        assert!(close(&p["mcnemar"]["statistic"], chi2), "{p}");
        assert!(close(&p["mcnemar"]["exact_p"], exact), "{p}");
        assert!(close(&p["mcnemar"]["mid_p"], mid), "{p}");
    }
    // Cochran's Q: column sums (8, 6, 4), T = 18, Σ R² = 6 + 12 + 18 = 36, so
    // Q = 2·(3·116 − 324)/(3·18 − 36) = 48/18 = 8/3; p = e^(−Q/2) for df = 2:
    //   python3 -c "import math; print(math.exp(-4/3))"   # 0.26359713811572677
    let q = &cmp["cochran_q"];
    assert_eq!(
        (q["instances"].as_u64(), q["df"].as_u64()),
        (Some(12), Some(2))
    );
    assert!(close(&q["statistic"], 8.0 / 3.0), "{q}");
    assert!(close(&q["p_value"], 0.263_597_138_115_726_77), "{q}");
    // Per-rule tallies per run: tracebacks in 6 of 12, 3 of 12, 0 of 13 trajectories.
    let traceback = cmp["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["runs"][0]["trajectories"] == 6)
        .expect("a rule matching A's six tracebacks");
    assert_eq!(traceback["runs"][1]["trajectories"], 3);
    assert_eq!(traceback["runs"][2]["trajectories"], 0);
    assert!(close(&traceback["runs"][1]["share"], 0.25));
}

#[test]
fn three_runs_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let [a, b, c] = three_runs(dir.path());
    let text = ok(&trajscope(&["stats", "--runs", &a, &b, &c], dir.path()));
    assert!(
        text.contains(&format!("A: {a}: 12 trajectories, resolved 8/12")),
        "{text}"
    );
    assert!(
        text.contains("shared: 12 instance(s) in every run, 12 with a verdict in every run"),
        "{text}"
    );
    assert!(
        text.contains("solved by exactly k runs: 0: 1, 1: 6, 2: 3, 3: 2"),
        "{text}"
    );
    assert!(
        text.contains("Cochran's Q = 2.667 (df 2, 12 instances), p = 0.264"),
        "{text}"
    );
    let pair = text
        .lines()
        .find(|l| l.starts_with("A–C"))
        .expect("the A–C row");
    let cells: Vec<&str> = pair.split_whitespace().collect();
    assert_eq!(
        cells,
        ["A–C", "3", "5", "1", "3", "2.667", "0.219", "0.125"]
    );
    let i9 = text
        .lines()
        .find(|l| l.starts_with("i9 "))
        .expect("the i9 row");
    assert_eq!(
        i9.split_whitespace().collect::<Vec<_>>(),
        ["i9", "no", "no", "yes", "1/3"]
    );
    // CSV: one row per rule, four numbers per run.
    let csv = ok(&trajscope(
        &["stats", "--csv", "--runs", &a, &b, &c],
        dir.path(),
    ));
    assert!(
        csv.starts_with("name,a_matches,a_steps,a_trajectories,a_share,b_matches"),
        "{csv}"
    );
}

#[test]
fn the_two_run_forms_gain_the_comparison_object() {
    let dir = tempfile::tempdir().unwrap();
    let [a, b, _] = three_runs(dir.path());
    for args in [
        vec!["stats", "--json", &a, &b],
        vec!["stats", "--json", "--runs", &a, &b],
    ] {
        let report: Value = serde_json::from_str(&ok(&trajscope(&args, dir.path()))).unwrap();
        // Today's two-run keys are still there…
        assert_eq!(report["mcnemar"]["only_a"], 4, "{args:?}");
        assert_eq!(report["mcnemar"]["only_b"], 2);
        // …and the comparison says the same of its one pair.
        let pair = &report["comparison"]["pairs"][0];
        assert_eq!((&pair["only_a"], &pair["only_b"]), (&json!(4), &json!(2)));
        assert_eq!(pair["mcnemar"]["exact_p"], report["mcnemar"]["exact_p"]);
        assert!(
            report["comparison"].get("cochran_q").is_none(),
            "two runs: no Cochran's Q"
        );
    }
    let bad = trajscope(&["stats", "--runs", &a], dir.path());
    assert!(!bad.status.success(), "one run is not a comparison");
}

#[test]
fn corpus_runs_of_the_same_instances() {
    // CodeR (SWE-bench Lite) and mini-swe-agent with gpt-5-mini (SWE-bench Verified) ran three
    // of the same instances; each run's results sit in its folder.
    let (Some(coder), Some(mini)) = (
        corpus::corpus("coder-swebench-lite"),
        corpus::corpus(
            "mini-swe-agent/gpt-5-mini-swebench-verified-run/results/llm-ablation/gpt-5-mini",
        ),
    ) else {
        return;
    };
    let config = tempfile::tempdir().unwrap();
    let (coder, mini) = (coder.display().to_string(), mini.display().to_string());
    let report: Value = serde_json::from_str(&ok(&trajscope(
        &["stats", "--json", "--runs", &coder, &mini],
        config.path(),
    )))
    .unwrap();
    let cmp = &report["comparison"];
    let ids: Vec<&str> = cmp["instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["instance_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "django__django-11133",
            "django__django-13590",
            "django__django-13925"
        ]
    );
    let pair = &cmp["pairs"][0];
    let total = ["both", "only_a", "only_b", "neither"]
        .iter()
        .map(|k| pair[k].as_u64().unwrap())
        .sum::<u64>();
    let judged = cmp["instances"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| {
            i["resolved"]
                .as_array()
                .unwrap()
                .iter()
                .all(|v| !v.is_null())
        })
        .count() as u64;
    assert_eq!(
        total, judged,
        "the pair counts every instance both runs judged"
    );
}

#[test]
fn by_trajectory_json_gives_the_phase_strip_and_flags_an_unverified_pass() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    std::fs::create_dir_all(&run).unwrap();
    // i0 runs the script, edits, and submits without running anything again; i1 runs the
    // script after its edit. Both are resolved.
    for (id, actions) in [
        (
            "i0",
            ["python reproduce.py", "sed -i 's/a/b/' x.py", "submit"],
        ),
        (
            "i1",
            ["sed -i 's/a/b/' x.py", "python reproduce.py", "submit"],
        ),
    ] {
        let steps: Vec<Value> = actions
            .iter()
            .map(|a| json!({"action": a, "observation": "ok", "response": "", "thought": "", "state": "{}"}))
            .collect();
        let doc = json!({"trajectory": steps, "history": [], "info": {"exit_status": "submitted"}});
        std::fs::write(
            run.join(format!("{id}.traj")),
            serde_json::to_vec(&doc).unwrap(),
        )
        .unwrap();
    }
    let summary = json!({"resolved_ids": ["i0", "i1"], "unresolved_ids": []});
    std::fs::write(
        run.join("model.run.json"),
        serde_json::to_vec(&summary).unwrap(),
    )
    .unwrap();
    let report: Value = serde_json::from_str(&ok(&trajscope(
        &["stats", "--json", "--by-trajectory", run.to_str().unwrap()],
        dir.path(),
    )))
    .unwrap();
    let rows = report["by_trajectory"].as_array().unwrap();
    let row = |id: &str| rows.iter().find(|r| r["instance_id"] == id).unwrap();
    assert_eq!(row("i0")["phases"], "ves");
    assert_eq!(row("i0")["unverified_pass"], true);
    assert_eq!(row("i1")["phases"], "evs");
    assert_eq!(row("i1")["unverified_pass"], false);
}
