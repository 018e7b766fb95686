//! The Kimi CLI loader on arbitrary bytes: it may refuse them, never panic or hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use trajscope::formats::parse;
use trajscope::model::Format;

fuzz_target!(|data: &[u8]| {
    let _ = parse(Format::KimiCli, Path::new("sessions/wd_x/session_1/agents/main/wire.jsonl"), data);
});
