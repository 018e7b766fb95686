//! The shell reader behind the diffs (which files a command changes): any bytes, never a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    trajscope::fuzzing::shell(&String::from_utf8_lossy(data));
});
