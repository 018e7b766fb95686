//! The replay's Jinja subset (observation templates read from logs): never a panic or a
//! hang.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    trajscope::fuzzing::template(&String::from_utf8_lossy(data));
});
