//! The sed reader and runner behind the diffs (first line the script, the rest the file's
//! lines, `?` for an unseen line; the first byte picks -E): never a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some((first, rest)) = data.split_first() {
        trajscope::fuzzing::sed(&String::from_utf8_lossy(rest), first & 1 == 1);
    }
});
