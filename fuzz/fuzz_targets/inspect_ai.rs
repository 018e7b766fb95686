//! The InspectAi loader on arbitrary bytes: it may refuse them, never panic or hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use trajscope::formats::parse;
use trajscope::model::Format;

fuzz_target!(|data: &[u8]| {
    let _ = parse(Format::InspectAi, Path::new("logs/2024-05-29T12-38-43_math_Gprr29Mv.eval"), data);
});
