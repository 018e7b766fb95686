//! Detection and loading as `trajscope` does it for a file of any name: whatever the bytes,
//! a kind and a parse, or an error naming the file; never a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use trajscope::formats::load_bytes;

/// File names that steer detection and loaders differently; the first byte picks one.
const NAMES: &[&str] = &[
    "run/astropy__astropy-12907.traj",
    "run/astropy__astropy-12907.traj.json",
    "run/output.jsonl",
    "logs/sample.eval",
    "logs/sample.json",
    "project/.aider.chat.history.md",
    "trajs/astropy__astropy-12907-prompt.txt",
    "results/results.json",
    "results/report.json",
    "all_preds.jsonl",
];

fuzz_target!(|data: &[u8]| {
    let (name, bytes) = match data.split_first() {
        Some((first, rest)) => (NAMES[*first as usize % NAMES.len()], rest),
        None => (NAMES[0], data),
    };
    let _ = load_bytes(Path::new(name), bytes);
});
