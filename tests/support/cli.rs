//! Runs the built `trajscope` binary for the CLI tests: the command, and the check every test
//! repeats (the run succeeded, or the test fails showing the binary's stderr).
//!
//! Include with `#[path = "support/cli.rs"] mod cli;`.

#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

/// The `trajscope` binary under test.
pub fn trajscope() -> Command {
    Command::new(env!("CARGO_BIN_EXE_trajscope"))
}

/// The binary with its home, config and cache in `home`, so a developer's own rules, labels and
/// run cache never change what a test sees.
pub fn isolated(home: &Path) -> Command {
    let mut command = trajscope();
    command
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home)
        .env("XDG_CACHE_HOME", home);
    command
}

/// Runs `command` and returns its standard output; a failed run fails the test with its stderr.
pub fn stdout_of(command: &mut Command) -> String {
    let out = command.output().expect("the trajscope binary runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("trajscope writes UTF-8")
}

/// Runs `command` and parses its standard output as JSON; a failed run fails the test.
pub fn json_of(command: &mut Command) -> serde_json::Value {
    let text = stdout_of(command);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}
