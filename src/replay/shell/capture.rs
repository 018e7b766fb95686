//! Reading a child's merged output on a thread, so that waiting, timeouts and the output cap
//! never block on a full pipe.

use std::io::Read;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::Instant;

/// Chunks read from a pipe; the channel closes at end of file.
pub struct Capture {
    chunks: Receiver<Vec<u8>>,
}

/// What arrived before the deadline or the end.
pub enum Arrival {
    Chunk(Vec<u8>),
    /// End of file: every writer closed the pipe.
    Closed,
    Deadline,
}

impl Capture {
    pub fn start(mut reader: impl Read + Send + 'static) -> Capture {
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if tx.send(buf[..n].to_vec()).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        Capture { chunks: rx }
    }

    pub fn next(&self, deadline: Instant) -> Arrival {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.chunks.recv_timeout(wait) {
            Ok(chunk) => Arrival::Chunk(chunk),
            Err(RecvTimeoutError::Timeout) => Arrival::Deadline,
            Err(RecvTimeoutError::Disconnected) => Arrival::Closed,
        }
    }
}

/// Output kept up to a cap, with a count of what was dropped.
#[derive(Debug, Default)]
pub struct Capped {
    pub kept: Vec<u8>,
    pub dropped: usize,
    cap: usize,
}

impl Capped {
    pub fn new(cap: usize) -> Capped {
        Capped {
            kept: Vec::new(),
            dropped: 0,
            cap,
        }
    }

    pub fn push(&mut self, chunk: &[u8]) {
        let room = self.cap.saturating_sub(self.kept.len());
        let take = room.min(chunk.len());
        self.kept.extend_from_slice(&chunk[..take]);
        self.dropped += chunk.len() - take;
    }

    /// The kept output as text, with a marker saying how much was dropped.
    pub fn text(&self) -> String {
        let mut text = String::from_utf8_lossy(&self.kept).into_owned();
        if self.dropped > 0 {
            text.push_str(&format!(
                "\n[trajscope: {} more bytes of output were dropped (output cap {} bytes)]\n",
                self.dropped, self.cap
            ));
        }
        text
    }
}
