//! The Gemini CLI loader on arbitrary bytes: it may refuse them, never panic or hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use trajscope::formats::parse;
use trajscope::model::Format;

fuzz_target!(|data: &[u8]| {
    let _ = parse(Format::GeminiCli, Path::new("chats/session-2025-10-01T10-00-3f2a.json"), data);
});
