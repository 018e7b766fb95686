//! Where an `.eval` archive's bytes are read from: a file read whole into memory (a
//! watcher's copy, a test), or the file itself, read at positions, so that a big archive is
//! never held whole. Clones share the bytes or the open file and keep a position of their
//! own: each sample is decompressed by a reader of its own, from any thread.

use std::fs::File;
use std::io::{Cursor, Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::sync::Arc;

#[derive(Clone)]
pub enum Source<'a> {
    Bytes(Cursor<&'a [u8]>),
    File { file: Arc<File>, len: u64, at: u64 },
}

impl Source<'_> {
    pub fn file(file: File) -> std::io::Result<Source<'static>> {
        let len = file.metadata()?.len();
        Ok(Source::File {
            file: Arc::new(file),
            len,
            at: 0,
        })
    }
}

impl Read for Source<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Source::Bytes(cursor) => cursor.read(buf),
            Source::File { file, at, .. } => {
                let n = file.read_at(buf, *at)?;
                *at += n as u64;
                Ok(n)
            }
        }
    }
}

impl Seek for Source<'_> {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        match self {
            Source::Bytes(cursor) => cursor.seek(to),
            Source::File { len, at, .. } => {
                let next = match to {
                    SeekFrom::Start(n) => Some(n),
                    SeekFrom::End(d) => len.checked_add_signed(d),
                    SeekFrom::Current(d) => at.checked_add_signed(d),
                };
                *at = next.ok_or_else(|| {
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidInput,
                        "seek before the start of the file",
                    )
                })?;
                Ok(*at)
            }
        }
    }
}
