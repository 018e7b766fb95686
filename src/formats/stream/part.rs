//! Reading part of a file, or all of it while saying how far the read has got: the first
//! lines (or array items) of a big file, opened to show its first steps at once while the
//! rest is indexed, and the bytes read so far for the index's progress line.

use std::fs::File;
use std::io::Read;

/// Called with the bytes read so far; an error stops the read with it (a cancelled open).
pub type Progress<'a> = &'a mut (dyn FnMut(u64) -> std::io::Result<()> + Send);

/// How much of a file an open reads, and who hears how far it has got.
pub struct Part<'a> {
    /// Bytes read from the start (`u64::MAX`: all of them). A limit below the file's size
    /// may fall anywhere: the record it cuts through is left out.
    pub limit: u64,
    pub progress: Progress<'a>,
}

impl Part<'_> {
    /// The whole file, nobody told.
    pub fn whole(progress: Progress<'_>) -> Part<'_> {
        Part {
            limit: u64::MAX,
            progress,
        }
    }

    /// The bytes of `file` this part reads.
    pub(crate) fn reader<'a>(&'a mut self, file: File) -> impl Read + 'a {
        Counted {
            inner: file.take(self.limit),
            read: 0,
            progress: &mut *self.progress,
        }
    }
}

/// Tells `progress` of every read.
struct Counted<'a, R> {
    inner: R,
    read: u64,
    progress: Progress<'a>,
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        (self.progress)(self.read)?;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_reads_its_limit_and_says_how_far() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.jsonl");
        std::fs::write(&path, "0123456789").unwrap();
        let mut seen = Vec::new();
        let mut progress = |n| {
            seen.push(n);
            Ok(())
        };
        let mut part = Part {
            limit: 4,
            progress: &mut progress,
        };
        let mut text = String::new();
        part.reader(File::open(&path).unwrap())
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "0123");
        assert_eq!(seen.last(), Some(&4));
    }
}
