//! A file bigger than the memory there is to read it whole is refused with a message naming
//! it, and the rest of the run still opens: the budget is lowered with
//! `TRAJSCOPE_MEMORY_BUDGET` so that a small file stands for a huge one.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/cli.rs"]
mod cli;

use std::process::Command;

fn sample(path: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample-trajectories")
        .join(path)
}

#[test]
fn a_file_over_the_budget_is_refused_by_name_and_the_others_still_load() {
    let dir = tempfile::tempdir().unwrap();
    let big = std::fs::read(sample("claude-code/tinycalc__tinycalc-1.jsonl")).unwrap();
    let small = std::fs::read(sample("chat/tinycalc__tinycalc-1.jsonl")).unwrap();
    assert!(
        big.len() > 16 << 10 && small.len() < 16 << 10,
        "sizes around the budget"
    );
    std::fs::write(dir.path().join("huge.jsonl"), &big).unwrap();
    std::fs::write(dir.path().join("small.jsonl"), &small).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .arg("ls")
        .arg(dir.path())
        .env("TRAJSCOPE_MEMORY_BUDGET", "16K")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("huge.jsonl"), "{text}");
    assert!(text.contains("too big to read whole"), "{text}");
    assert!(
        text.contains("tinycalc__tinycalc-1") || text.contains("small"),
        "{text}"
    );

    // Within the budget, the same file reads.
    cli::stdout_of(
        cli::trajscope()
            .arg("ls")
            .arg(dir.path().join("huge.jsonl"))
            .env("TRAJSCOPE_MEMORY_BUDGET", "64M"),
    );
}
