//! The Cursor transcript loader on arbitrary bytes: it may refuse them, never panic or hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use trajscope::formats::parse;
use trajscope::model::Format;

fuzz_target!(|data: &[u8]| {
    let _ = parse(Format::Cursor, Path::new("agent-transcripts/0b9e.jsonl"), data);
});
