//! Opening the TUI headless on test data. Include with
//! `#[path = "support/tui.rs"] mod tui;`.
//!
//! The run under test is `tests/fixtures/tui/run`: three trajectories (SWE-agent 1.1 with exact
//! contexts, mini-swe-agent, SWE-agent 0.x), eval results and one truncated file.

#![allow(dead_code)]

use std::path::PathBuf;
use trajscope::tui::config::Config;
use trajscope::tui::harness::Harness;

/// The fixture run, relative to the crate (tests run from the crate root, so paths shown on
/// screen are the same on every machine).
pub fn run_dir() -> PathBuf {
    PathBuf::from("tests/fixtures/tui/run")
}

pub fn open(width: u16, height: u16) -> Harness {
    open_with(Config::default(), width, height)
}

pub fn open_with(config: Config, width: u16, height: u16) -> Harness {
    Harness::open(&[run_dir()], config, width, height)
}

pub fn light() -> Config {
    Config::parse("theme = \"light\"", std::path::Path::new("test.toml"), None)
}

/// Types `keys`, panicking on a malformed key string (a bug in the test).
pub fn keys(h: &mut Harness, keys: &str) {
    h.keys(keys)
        .unwrap_or_else(|e| panic!("bad keys {keys:?}: {e}"));
}
