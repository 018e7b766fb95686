//! Buffered stdout that ends quietly when the reader goes away (`trajscope grep … | head`).

use std::fmt;
use std::io::{BufWriter, ErrorKind, StdoutLock, Write};

/// Why writing stopped.
#[derive(Debug, thiserror::Error)]
pub enum OutError {
    #[error("cannot write to stdout: {0}")]
    Io(std::io::Error),
}

pub struct Out {
    writer: BufWriter<StdoutLock<'static>>,
    closed: bool,
}

impl Out {
    pub fn new() -> Out {
        Out {
            writer: BufWriter::new(std::io::stdout().lock()),
            closed: false,
        }
    }

    /// Writes one line. After the reader has closed the pipe, writes are dropped.
    pub fn line(&mut self, args: fmt::Arguments<'_>) -> Result<(), OutError> {
        if self.closed {
            return Ok(());
        }
        let result = self
            .writer
            .write_fmt(args)
            .and_then(|()| self.writer.write_all(b"\n"));
        self.check(result)
    }

    /// Writes text as is.
    pub fn text(&mut self, text: &str) -> Result<(), OutError> {
        if self.closed {
            return Ok(());
        }
        let result = self.writer.write_all(text.as_bytes());
        self.check(result)
    }

    /// Writes `value` as pretty-printed JSON and a newline, as it is serialised: a big
    /// report is never held whole as text.
    pub fn json<T: serde::Serialize>(&mut self, value: &T) -> Result<(), OutError> {
        if self.closed {
            return Ok(());
        }
        let result = serde_json::to_writer_pretty(&mut self.writer, value)
            .map_err(std::io::Error::from)
            .and_then(|()| self.writer.write_all(b"\n"));
        self.check(result)
    }

    pub fn flush(&mut self) -> Result<(), OutError> {
        if self.closed {
            return Ok(());
        }
        let result = self.writer.flush();
        self.check(result)
    }

    fn check(&mut self, result: std::io::Result<()>) -> Result<(), OutError> {
        match result {
            Ok(()) => Ok(()),
            Err(err) if err.kind() == ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            Err(err) => Err(OutError::Io(err)),
        }
    }
}
