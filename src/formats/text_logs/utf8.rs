//! The warning the whole read gives a text file with invalid UTF-8 (`load::repair_utf8`),
//! found by one pass over the file in chunks before it is read step by step: the warning
//! leads each trajectory's warnings and counts every bad place, so it must be known before
//! the first trajectory is handed over.

use crate::formats::LoadError;
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// More invalid sequences than this (and than one per thousand bytes) mean binary data: the
/// whole read then gives no warning (as `load::repair_utf8`).
const MAX_REPAIRS: usize = 64;
/// The start of the file where a NUL byte means binary data.
const BINARY_HEAD: u64 = 64 * 1024;

/// `path:line:column: invalid UTF-8 (N place(s)); …` naming the first bad byte, or `None`
/// when the file is valid UTF-8 or looks binary.
pub fn warning(path: &Path, file: &mut File) -> Result<Option<String>, LoadError> {
    let mut buffer = vec![0u8; 1 << 20];
    // An incomplete sequence at the end of a chunk, completed (or not) by the next.
    let mut carry: Vec<u8> = Vec::new();
    let mut offset: u64 = 0;
    let mut bad = 0usize;
    let mut first: Option<u64> = None;
    let mut lines = 0u64;
    let mut last_newline: Option<u64> = None;
    let mut nul = false;
    loop {
        let n = loop {
            match file.read(&mut buffer) {
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                other => break other.map_err(|err| LoadError::io(path, err))?,
            }
        };
        let chunk = &buffer[..n];
        if offset < BINARY_HEAD {
            let head = (BINARY_HEAD - offset).min(n as u64) as usize;
            nul |= chunk[..head].contains(&0);
        }
        let at_end = n == 0;
        let base = offset - carry.len() as u64;
        carry.extend_from_slice(chunk);
        let mut rest: &[u8] = &carry;
        let mut at = base;
        let mut keep = 0;
        while let Err(err) = std::str::from_utf8(rest) {
            let valid = err.valid_up_to();
            match err.error_len() {
                Some(len) => {
                    bad += 1;
                    first.get_or_insert(at + valid as u64);
                    rest = &rest[valid + len..];
                    at += (valid + len) as u64;
                }
                None if at_end => {
                    bad += 1;
                    first.get_or_insert(at + valid as u64);
                    break;
                }
                None => {
                    keep = rest.len() - valid;
                    break;
                }
            }
        }
        // Lines counted up to the first bad byte (a carried sequence holds no line end).
        let upto = match first {
            Some(f) if f < offset + n as u64 => f.saturating_sub(offset) as usize,
            _ => n,
        };
        if first.is_none_or(|f| f >= offset) {
            for i in memchr::memchr_iter(b'\n', &chunk[..upto]) {
                lines += 1;
                last_newline = Some(offset + i as u64);
            }
        }
        let tail = carry.len() - keep;
        carry.drain(..tail);
        offset += n as u64;
        if at_end {
            break;
        }
    }
    let Some(first) = first else {
        return Ok(None);
    };
    let head_is_zip = {
        let mut head = [0u8; 4];
        let mut f = File::open(path).map_err(|err| LoadError::io(path, err))?;
        f.read_exact(&mut head).is_ok() && &head == b"PK\x03\x04"
    };
    if nul || head_is_zip || (bad > MAX_REPAIRS && bad as u64 > offset / 1000) {
        return Ok(None);
    }
    let line = lines + 1;
    let column = first - last_newline.map_or(0, |i| i + 1) + 1;
    Ok(Some(format!(
        "{}:{line}:{column}: invalid UTF-8 ({bad} place(s)); read with U+FFFD in place of the bad bytes",
        path.display()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warn(bytes: &[u8]) -> Option<String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.md");
        std::fs::write(&path, bytes).unwrap();
        let mut file = File::open(&path).unwrap();
        warning(&path, &mut file).unwrap()
    }

    #[test]
    fn a_character_across_chunks_is_valid_and_bad_bytes_are_counted_where_they_are() {
        let chunk = 1 << 20;
        let mut bytes = b"ab\n".to_vec();
        bytes.resize(chunk - 1, b'a');
        // `é` cut by the chunk boundary is not a bad place.
        bytes.extend_from_slice("é\nxy".as_bytes());
        bytes.push(0xFF);
        bytes.extend_from_slice(b"\nz\xE2\x82");
        let got = warn(&bytes).unwrap();
        assert!(got.contains(":3:3: invalid UTF-8 (2 place(s))"), "{got}");
        assert!(warn("ok é\n".as_bytes()).is_none());
        // Binary data gets no warning, as in the whole read.
        let mut binary = vec![0u8, 1, 2];
        binary.push(0xFF);
        assert!(warn(&binary).is_none());
    }
}
