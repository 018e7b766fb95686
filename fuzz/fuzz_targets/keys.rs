//! The key-binding parser of keymap.toml: never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    trajscope::fuzzing::keys(&String::from_utf8_lossy(data));
});
