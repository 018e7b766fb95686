//! The OpenTelemetry GenAI loader on arbitrary bytes: it may refuse them, never panic or hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use trajscope::formats::parse;
use trajscope::model::Format;

fuzz_target!(|data: &[u8]| {
    let _ = parse(Format::OtelGenai, Path::new("otel/traces.json"), data);
});
