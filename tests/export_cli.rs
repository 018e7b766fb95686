//! `trajscope export` on real trajectories of the shared corpus (skipped when absent), read
//! back through a GitHub-flavoured Markdown renderer; and the generated completions, man
//! pages and version.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/corpus.rs"]
mod corpus;

use std::path::Path;
use std::process::{Command, Output};
use trajscope::export::cleaned;

const CODER: &str = "coder-swebench-lite/trajs/django__django-11133.traj";
const MINI: &str = "mini-swe-agent/gpt-5-mini-swebench-verified-run/results/llm-ablation/gpt-5-mini/sympy__sympy-12489/sympy__sympy-12489.traj.json";

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .args(args)
        .output()
        .unwrap()
}

fn trajscope(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn gfm(markdown: &str) -> String {
    let mut options = comrak::Options::default();
    options.extension.table = true;
    options.extension.strikethrough = true;
    options.extension.autolink = true;
    options.extension.tasklist = true;
    options.render.r#unsafe = true;
    options.render.github_pre_lang = true;
    comrak::markdown_to_html(markdown, &options)
}

/// How text shows inside a rendered code block.
fn in_code(text: &str) -> String {
    cleaned(text)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn steps_of(path: &str) -> Vec<serde_json::Value> {
    let json: serde_json::Value =
        serde_json::from_str(&trajscope(&["show", path, "--json"])).unwrap();
    json["steps"].as_array().unwrap().clone()
}

#[test]
fn every_action_and_observation_comes_back_whole_from_github_markdown() {
    for rel in [CODER, MINI] {
        let Some(path) = corpus::corpus(rel) else {
            return;
        };
        let path = path.to_str().unwrap();
        let steps = steps_of(path);
        let html = gfm(&trajscope(&["export", path, "--markdown"]));
        assert_eq!(html.matches("<h3>").count(), steps.len(), "{rel}");
        let mut checked = 0;
        for step in &steps {
            for field in ["action", "observation"] {
                let text = step[field].as_str().unwrap_or("");
                if text.trim().is_empty() {
                    continue;
                }
                let block = format!("<code>{}\n</code></pre>", in_code(text.trim_end()));
                assert!(
                    html.contains(&block),
                    "{rel} step {}: the {field} is not one whole code block",
                    step["index"]
                );
                checked += 1;
            }
        }
        assert!(
            checked >= steps.len(),
            "{rel}: only {checked} blocks checked"
        );
        assert!(
            html.contains("<h2>Final patch</h2>\n<pre lang=\"diff\">"),
            "{rel}"
        );
    }
}

#[test]
fn one_step_pastes_as_a_heading_and_its_blocks() {
    let Some(path) = corpus::corpus(CODER) else {
        return;
    };
    let path = path.to_str().unwrap();
    let md = trajscope(&["export", path, "--step", "16", "--markdown"]);
    assert!(
        // The model comes from the run's all_preds.jsonl, one folder above the file.
        md.starts_with("**django__django-11133** · swe-agent 0.x · `20240604_CodeR` · step 16 of 30\n\n### Step 16/30 · `Programmer` · `edit` · ⚠️ error\n"),
        "{md}"
    );
    let html = gfm(&md);
    assert_eq!(html.matches("<h3>").count(), 1);
    assert!(
        html.contains("<pre lang=\"python\"><code>edit 223:237\n"),
        "{html}"
    );
    let range = trajscope(&["export", path, "--steps", "4..6", "--markdown"]);
    let headings: Vec<&str> = range.lines().filter(|l| l.starts_with("### ")).collect();
    assert_eq!(headings.len(), 3);
    assert!(headings[0].starts_with("### Step 4/30") && headings[2].starts_with("### Step 6/30"));
}

#[test]
fn the_html_page_has_every_step_and_ends_whole() {
    let Some(path) = corpus::corpus(MINI) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("page.html");
    let result = run(&[
        "export",
        path.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(result.status.success());
    let said = String::from_utf8_lossy(&result.stderr);
    assert!(
        said.starts_with(&format!("trajscope: wrote {} (28 steps, ", out.display())),
        "{said}"
    );
    let html = std::fs::read_to_string(&out).unwrap();
    assert_eq!(html.matches("<section class=\"step").count(), 28);
    for k in 1..=28 {
        assert!(html.contains(&format!("id=\"step-{k}\"")), "step {k}");
    }
    assert!(html.ends_with("</html>\n"));
    assert_eq!(html.matches("<script").count(), 1);
    // No temporary file is left beside the page.
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 1);
}

#[test]
fn mistakes_are_refused_before_anything_is_written() {
    let Some(path) = corpus::corpus(MINI) else {
        return;
    };
    let path = path.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.md");
    let out = out.to_str().unwrap();

    let wrong_step = run(&["export", path, "--step", "99", "-o", out]);
    assert!(!wrong_step.status.success());
    let said = String::from_utf8_lossy(&wrong_step.stderr);
    assert!(
        said.contains("no step 99; steps are numbered 1 to 28"),
        "{said}"
    );
    assert!(!Path::new(out).exists());

    let no_format = run(&["export", path]);
    assert!(String::from_utf8_lossy(&no_format.stderr).contains("--markdown or --html"));

    let backwards = run(&["export", path, "--steps", "5..3", "--markdown"]);
    assert!(!backwards.status.success());
    assert!(String::from_utf8_lossy(&backwards.stderr).contains("is not a step range"));

    let onto_input = run(&["export", path, "--html", "-o", path]);
    assert!(!onto_input.status.success());
    assert!(String::from_utf8_lossy(&onto_input.stderr).contains("never overwrites a log"));

    // The format follows the output's extension.
    assert!(
        run(&["export", path, "--step", "1", "-o", out])
            .status
            .success()
    );
    assert!(
        std::fs::read_to_string(out)
            .unwrap()
            .starts_with("**sympy__sympy-12489**")
    );
}

#[test]
fn completions_and_man_pages_come_from_the_cli_and_stay_out_of_the_help() {
    for shell in ["bash", "zsh", "fish"] {
        let script = trajscope(&["completions", shell]);
        assert!(script.contains("export"), "{shell}");
        assert!(script.contains("--markdown"), "{shell}");
    }
    let man = trajscope(&["man"]);
    assert!(man.contains(".TH trajscope 1"), "{man}");
    assert!(man.contains("export"));
    let dir = tempfile::tempdir().unwrap();
    trajscope(&["man", "--dir", dir.path().to_str().unwrap()]);
    for page in ["trajscope.1", "trajscope-export.1", "trajscope-show.1"] {
        assert!(dir.path().join(page).exists(), "{page}");
    }
    let help = trajscope(&["--help"]);
    assert!(help.contains("export"));
    assert!(
        !help.contains("completions") && !help.contains("\n  man "),
        "{help}"
    );
}

#[test]
fn the_version_names_the_git_revision() {
    let version = trajscope(&["--version"]);
    let rev = version
        .trim()
        .strip_prefix(&format!("trajscope {} (", env!("CARGO_PKG_VERSION")))
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{version}"));
    let manifest = env!("CARGO_MANIFEST_DIR");
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(manifest)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let own_checkout = git(&["rev-parse", "--show-toplevel"])
        .is_some_and(|top| std::fs::canonicalize(top).ok() == std::fs::canonicalize(manifest).ok());
    match git(&["rev-parse", "--short", "HEAD"]) {
        Some(head) if own_checkout && std::env::var_os("TRAJSCOPE_GIT_REV").is_none() => {
            assert_eq!(rev, head)
        }
        _ => assert!(
            rev == "unknown" || rev.chars().all(|c| c.is_ascii_hexdigit()),
            "{rev}"
        ),
    }
}
