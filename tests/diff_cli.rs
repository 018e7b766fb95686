//! `trajscope show --diff` and `trajscope diff` on real trajectories of the shared corpus.
//! Skips when the corpus is absent.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/cli.rs"]
mod cli;
#[path = "support/corpus.rs"]
mod corpus;

fn trajscope(args: &[&str]) -> String {
    cli::stdout_of(cli::trajscope().args(args).env("NO_COLOR", "1"))
}

#[test]
fn diff_of_one_instance_in_two_agents_shows_where_they_diverge() {
    let (Some(a), Some(b)) = (
        corpus::corpus("coder-swebench-lite/trajs/django__django-11133.traj"),
        corpus::corpus(
            "mini-swe-agent/gpt-5-mini-swebench-verified-run/results/llm-ablation/gpt-5-mini/django__django-11133/django__django-11133.traj.json",
        ),
    ) else {
        return;
    };
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let json: serde_json::Value =
        serde_json::from_str(&trajscope(&["diff", a, b, "--json"])).unwrap();
    // CodeR starts with a plan, mini-swe-agent with `ls -la`: they part at once.
    assert_eq!(json["first_divergence"], 1);
    assert_eq!(json["a"]["steps"], 30);
    assert_eq!(json["b"]["steps"], 16);
    assert_eq!(json["same_files"], true);
    let text = trajscope(&["diff", a, b]);
    assert!(text.contains("First divergence: A step 1"));
    assert!(text.contains("Final patches"));
}

#[test]
fn marshmallow_demonstrations_diverge_where_the_edits_differ() {
    let base = "swe-agent/trajectories/demonstrations";
    let (Some(default), Some(calls), Some(window)) = (
        corpus::corpus(&format!(
            "{base}/replay__marshmallow-code__marshmallow-1867__default__t-0.20__p-0.95__c-2.00__install-1___install_from_source/marshmallow-code__marshmallow-1867.traj"
        )),
        corpus::corpus(&format!(
            "{base}/replay__marshmallow-code__marshmallow-1867__function_calling_replace_from_source/marshmallow-code__marshmallow-1867.traj"
        )),
        corpus::corpus(&format!(
            "{base}/replay__marshmallow-code__marshmallow-1867__xml_sys-env_window100__t-0.20__p-0.95__c-2.00__install-1/marshmallow-code__marshmallow-1867.traj"
        )),
    ) else {
        return;
    };
    let run = |a: &std::path::Path, b: &std::path::Path| -> serde_json::Value {
        serde_json::from_str(&trajscope(&[
            "diff",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--json",
        ]))
        .unwrap()
    };
    // Same first four steps; the text-mode run writes reproduce.py with `edit 1:1`, the
    // function-calling run with `insert`.
    let j = run(&default, &calls);
    assert_eq!(j["first_divergence"], 5);
    assert_eq!(j["first_divergence_b"], 5);
    // The window100 run skips the first three steps (ls, open setup.py, pip install).
    let j = run(&default, &window);
    assert_eq!(j["first_divergence"], 1);
    assert_eq!(j["same_steps"], 11);
    let j = run(&window, &window);
    assert_eq!(j["first_divergence"], serde_json::Value::Null);
}

#[test]
fn show_diff_on_a_coder_run() {
    let Some(path) = corpus::corpus("coder-swebench-lite/trajs/django__django-11133.traj") else {
        return;
    };
    let path = path.to_str().unwrap();
    let text = trajscope(&["show", path, "--diff"]);
    assert!(
        text.contains("steps that edit files: 2, 3, 5, 7, 16, 23, 27"),
        "{text}"
    );
    assert!(text.contains("edit 223:237 · django/http/response.py · applied"));
    assert!(text.contains("Submission vs reconstruction: 1 agree, 0 differ, 0 unknown"));
    let step: serde_json::Value = serde_json::from_str(&trajscope(&[
        "show", path, "--diff", "--step", "16", "--json",
    ]))
    .unwrap();
    let edit = &step["steps"][0]["edits"][0];
    assert_eq!(edit["status"], "applied");
    assert_eq!(edit["diff"]["hunks"][0]["old_start"], 220);
    let rewrites = step["steps"][0]["context"]["changes"].as_array().unwrap();
    assert!(rewrites.iter().any(|c| c["change"] == "added"));
}
