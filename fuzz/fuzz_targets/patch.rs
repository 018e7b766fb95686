//! The unified-diff reader (patches in logs and eval results): never a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    trajscope::fuzzing::patch(&String::from_utf8_lossy(data));
});
