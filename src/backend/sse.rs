//! Server-sent events, sans-IO: bytes in (split anywhere), events out.
//!
//! Follows the WHATWG event-stream rules: lines end in LF, CRLF or a lone CR (a CRLF may be split
//! across two chunks), `:` starts a comment, `data` lines join with `\n`, a blank line dispatches,
//! a leading BOM is dropped. Knows nothing of HTTP, JSON or either wire protocol.

use thiserror::Error;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` field; empty when the server sent none (the spec's `message`).
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
    /// The last `id:` seen, when any.
    pub id: Option<String>,
}

/// The stream broke the decoder's limits.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SseError {
    #[error("an event is larger than {limit} bytes")]
    TooLarge { limit: usize },
}

/// The largest line or event accepted: far above any real completion chunk, small enough that a
/// server streaming garbage without newlines cannot exhaust memory.
pub const MAX_EVENT_BYTES: usize = 16 << 20;

/// Incremental event-stream decoder.
#[derive(Debug, Default)]
pub struct SseDecoder {
    /// Bytes of the line being read (no terminator yet).
    line: Vec<u8>,
    /// The previous chunk ended in CR: an LF at the start of the next one belongs to it.
    after_cr: bool,
    /// The BOM check is done (it applies only to the very first bytes).
    started: bool,
    event: String,
    data: String,
    has_data: bool,
    id: Option<String>,
}

impl SseDecoder {
    pub fn new() -> SseDecoder {
        SseDecoder::default()
    }

    /// Feeds the next bytes; complete events are appended to `out`.
    pub fn feed(&mut self, mut bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if !self.started {
            // The BOM may itself arrive split: wait until three bytes (or a mismatch) are seen.
            let mut head = std::mem::take(&mut self.line);
            head.extend_from_slice(bytes);
            const BOM: &[u8] = b"\xEF\xBB\xBF";
            if head.len() < BOM.len() && BOM.starts_with(&head) {
                self.line = head;
                return Ok(());
            }
            self.started = true;
            let rest = head.strip_prefix(BOM).unwrap_or(&head).to_vec();
            return self.feed_started(&rest, out);
        }
        if self.after_cr {
            if let Some(rest) = bytes.strip_prefix(b"\n") {
                bytes = rest;
            }
            self.after_cr = false;
        }
        self.feed_started(bytes, out)
    }

    fn feed_started(&mut self, mut bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        while let Some(end) = memchr::memchr2(b'\n', b'\r', bytes) {
            self.line.extend_from_slice(&bytes[..end]);
            self.check_size()?;
            let line = std::mem::take(&mut self.line);
            self.process_line(&line, out);
            let is_cr = bytes[end] == b'\r';
            bytes = &bytes[end + 1..];
            if is_cr {
                match bytes.first() {
                    Some(b'\n') => bytes = &bytes[1..],
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
        }
        self.line.extend_from_slice(bytes);
        self.check_size()
    }

    /// The stream ended. A last event whose lines were complete but that lacked the blank line
    /// is dispatched (servers that close right after `data: [DONE]\n` exist); an unterminated
    /// last line may be cut short and is dropped.
    pub fn finish(&mut self, out: &mut Vec<SseEvent>) {
        self.line.clear();
        self.dispatch(out);
    }

    fn check_size(&self) -> Result<(), SseError> {
        if self.line.len() + self.data.len() > MAX_EVENT_BYTES {
            return Err(SseError::TooLarge {
                limit: MAX_EVENT_BYTES,
            });
        }
        Ok(())
    }

    fn process_line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) {
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line[0] == b':' {
            return;
        }
        let (field, value) = match memchr::memchr(b':', line) {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        let value = String::from_utf8_lossy(value);
        match field {
            b"data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(&value);
                self.has_data = true;
            }
            b"event" => self.event = value.into_owned(),
            b"id" if !value.contains('\0') => self.id = Some(value.into_owned()),
            _ => {}
        }
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        let event = std::mem::take(&mut self.event);
        if !self.has_data {
            return;
        }
        self.has_data = false;
        out.push(SseEvent {
            event,
            data: std::mem::take(&mut self.data),
            id: self.id.clone(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_in_pieces(input: &[u8], piece: usize) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::new();
        let mut out = Vec::new();
        for chunk in input.chunks(piece.max(1)) {
            decoder.feed(chunk, &mut out).unwrap();
        }
        decoder.finish(&mut out);
        out
    }

    fn data(events: &[SseEvent]) -> Vec<&str> {
        events.iter().map(|e| e.data.as_str()).collect()
    }

    const STREAM: &[u8] = b"\xEF\xBB\xBF: keep-alive\r\n\r\nevent: message_start\r\ndata: {\"a\":1}\r\n\r\ndata: line one\rdata:line two\r\rid: 7\ndata: x\n\nevent: ping\n\ndata: [DONE]\n\n";

    #[test]
    fn fields_comments_and_line_endings() {
        let events = decode_in_pieces(STREAM, STREAM.len());
        assert_eq!(
            data(&events),
            ["{\"a\":1}", "line one\nline two", "x", "[DONE]"]
        );
        assert_eq!(events[0].event, "message_start");
        assert_eq!(events[1].event, "");
        assert_eq!(events[2].id.as_deref(), Some("7"));
    }

    #[test]
    fn every_split_gives_the_same_events() {
        let whole = decode_in_pieces(STREAM, STREAM.len());
        for piece in 1..STREAM.len() {
            assert_eq!(
                decode_in_pieces(STREAM, piece),
                whole,
                "pieces of {piece} bytes"
            );
        }
    }

    #[test]
    fn an_event_without_data_is_not_dispatched() {
        assert!(decode_in_pieces(b"event: ping\n\n: comment\n\n", 4).is_empty());
    }

    #[test]
    fn a_last_event_without_blank_line_is_kept_but_a_torn_line_is_not() {
        assert_eq!(data(&decode_in_pieces(b"data: [DONE]\n", 3)), ["[DONE]"]);
        assert!(decode_in_pieces(b"data: {\"trunc", 3).is_empty());
    }

    #[test]
    fn a_lone_cr_at_a_chunk_end_then_data() {
        let mut decoder = SseDecoder::new();
        let mut out = Vec::new();
        decoder.feed(b"data: a\r", &mut out).unwrap();
        decoder.feed(b"\r", &mut out).unwrap();
        assert_eq!(data(&out), ["a"]);
    }

    #[test]
    fn oversized_lines_are_refused() {
        let mut decoder = SseDecoder::new();
        let mut out = Vec::new();
        let big = vec![b'x'; 1 << 20];
        let mut result = Ok(());
        for _ in 0..17 {
            result = decoder.feed(&big, &mut out);
            if result.is_err() {
                break;
            }
        }
        assert_eq!(
            result,
            Err(SseError::TooLarge {
                limit: MAX_EVENT_BYTES
            })
        );
    }
}
