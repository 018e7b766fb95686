//! A rule file (TOML) parsed, compiled and run over one step: errors are fine, a panic or a
//! hang is a bug.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    trajscope::fuzzing::rule_file(&String::from_utf8_lossy(data));
});
