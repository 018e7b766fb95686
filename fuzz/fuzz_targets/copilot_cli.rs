//! The Copilot CLI loader on arbitrary bytes: it may refuse them, never panic or hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use trajscope::formats::parse;
use trajscope::model::Format;

fuzz_target!(|data: &[u8]| {
    let _ = parse(Format::CopilotCli, Path::new("session-state/0f1e/events.jsonl"), data);
});
