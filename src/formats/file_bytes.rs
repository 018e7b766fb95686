//! A small file's bytes read whole for the paths that read a run file by file (the raw-byte
//! tally, the raw summary of `ls`): into a buffer kept by each thread and reused from file to
//! file, not a fresh `Vec` per file.
//!
//! Why (docs/scale.md, twelfth round): a fresh `Vec` per file is fresh pages per file (page
//! faults, the kernel zeroing them, malloc and free of a few hundred KB), and the kernel's
//! copy lands in memory the cache has not seen. A reused buffer is already mapped and, for
//! files of a few hundred KB, still in the core's L2 when the next file is copied into it
//! and walked. mmap was measured too and is not used: no faster here (the walk then reads
//! the page cache itself, several passes from memory), and a file truncated while mapped
//! raises SIGBUS.
//!
//! The bytes are what `std::fs::read` gives: read to the end of the file, whatever its size
//! by then (a file that grows or shrinks while read gives its bytes at the time, never
//! bytes of another file: the buffer is handed over only up to what this read filled).
//! The file's size is checked against the memory budget before it is read
//! ([`super::check_fits`]). A buffer grown past [`KEEP_AT_MOST`] is freed after its file.

use super::{LoadError, check_fits};
use std::cell::Cell;
use std::io::Read;
use std::path::Path;

/// The largest buffer a thread keeps between files: a run's files are a few hundred KB, and
/// an idle pool should not hold one big file's worth per thread.
pub const KEEP_AT_MOST: usize = 8 << 20;

thread_local! {
    /// Taken while a file is read (a nested read on the same thread, e.g. a rayon task
    /// stolen while waiting, finds it empty and uses a buffer of its own), put back after.
    static BUFFER: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// Calls `with` on the bytes of `path`, read whole; `Err` naming the file when it cannot be
/// opened or read, or is too big for the memory budget.
pub fn with_file_bytes<R>(path: &Path, with: impl FnOnce(&[u8]) -> R) -> Result<R, LoadError> {
    let io = |err| LoadError::io(path, err);
    let mut file = std::fs::File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    check_fits(path, len)?;
    let mut buffer = BUFFER.take();
    // One byte more than the file: the read that returns 0 (the end) needs room to ask.
    let want = usize::try_from(len).unwrap_or(usize::MAX).saturating_add(1);
    let filled = fill(&mut file, &mut buffer, want);
    let out = filled.map(|filled| with(buffer.get(..filled).unwrap_or_default()));
    if buffer.len() <= KEEP_AT_MOST {
        BUFFER.set(buffer);
    }
    out.map_err(io)
}

/// Reads `file` to its end into `buffer` (grown to `want` bytes first, more if the file grew
/// meanwhile); how many bytes it holds. The buffer stays initialised whole (grown with
/// zeroes), so no byte past what this read filled is ever handed out.
fn fill(file: &mut std::fs::File, buffer: &mut Vec<u8>, want: usize) -> std::io::Result<usize> {
    if buffer.len() < want {
        let grown = want.max(buffer.len().saturating_mul(2).min(KEEP_AT_MOST));
        buffer.resize(grown, 0);
    }
    let mut filled = 0;
    loop {
        if filled == buffer.len() {
            let more = buffer.len().max(64 << 10);
            buffer.resize(buffer.len().saturating_add(more), 0);
        }
        match file.read(buffer.get_mut(filled..).unwrap_or_default()) {
            Ok(0) => return Ok(filled),
            Ok(n) => filled += n,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("trajscope-file-bytes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    #[test]
    fn a_reused_buffer_hands_out_only_this_files_bytes() {
        let big = scratch("big");
        let small = scratch("small");
        let empty = scratch("empty");
        std::fs::write(&big, vec![b'x'; 300_000]).unwrap();
        std::fs::write(&small, b"{\"a\": 1}").unwrap();
        std::fs::write(&empty, b"").unwrap();
        let read = |p: &Path| with_file_bytes(p, <[u8]>::to_vec).unwrap();
        assert_eq!(read(&big), vec![b'x'; 300_000]);
        // The buffer still holds the big file's bytes: none of them may show.
        assert_eq!(read(&small), b"{\"a\": 1}");
        assert_eq!(read(&empty), b"");
        assert_eq!(read(&big).len(), 300_000);
        let nested = with_file_bytes(&small, |outer| {
            let inner = with_file_bytes(&big, <[u8]>::len).unwrap();
            (outer.to_vec(), inner)
        })
        .unwrap();
        assert_eq!(nested, (b"{\"a\": 1}".to_vec(), 300_000));
    }

    #[test]
    fn a_file_bigger_than_its_size_said_is_read_to_its_end() {
        let path = scratch("grown");
        let bytes: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let mut file = std::fs::File::open(&path).unwrap();
        let mut buffer = Vec::new();
        // As if the size was taken before the file grew to 200,000 bytes.
        let filled = fill(&mut file, &mut buffer, 1_000).unwrap();
        assert_eq!(&buffer[..filled], &bytes[..]);
    }

    #[test]
    fn a_missing_file_is_an_error_naming_it() {
        let path = scratch("missing");
        let err = with_file_bytes(&path, |_| ()).unwrap_err();
        assert!(err.to_string().contains("missing"), "{err}");
    }
}
