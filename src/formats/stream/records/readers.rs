//! Each format's record reader behind one interface ([`Records`]), and the choice of reader
//! for a format and a file's shape ([`reader`]). A JSON Lines reader that takes lines and
//! hands out its finished steps only implements [`LineReader`]; readers that take array
//! items, read a record back whole or tell lines from items wrap theirs here.

use super::Shape;
use super::mini::MiniItems;
use crate::formats::{
    LoadError, chat_messages, claude_code, codex, copilot_cli, cursor, droid, gemini_cli, hf_trace,
    kimi_cli, openhands, otel_genai,
};
use crate::model::{Format, Message, Step, Trajectory};
use std::path::Path;

/// A format's reader fed one slimmed record at a time.
pub(super) trait Records {
    /// The record that starts on line `line`; `is_last` when the file ends inside or right
    /// after it with no line end (a writer may still be writing it).
    fn record(&mut self, line: usize, bytes: &[u8], is_last: bool) -> Result<(), LoadError>;
    fn finish(self: Box<Self>) -> Result<Vec<Trajectory>, LoadError>;
    /// The object around the items (of a [`Shape::Keyed`] file), when it closes.
    fn header(&mut self, _bytes: &[u8]) -> Result<(), LoadError> {
        Ok(())
    }
    /// Steps finished so far, when the reader releases them as they complete (else they all
    /// come with [`Records::finish`]).
    fn released(&mut self) -> Vec<Step> {
        Vec::new()
    }
    /// Pool messages that nothing later changes, taken from the front of the pool kept
    /// (the reader's trajectory then holds the rest); none unless it keeps its pool while
    /// letting steps go.
    fn settled(&mut self) -> Vec<Message> {
        Vec::new()
    }
}

/// A JSON Lines reader: fed each line as it comes (a bad line is its own warning, never an
/// error), its finished steps taken as it lets them go.
pub(super) trait LineReader {
    fn line(&mut self, line: usize, bytes: &[u8], is_last: bool);
    fn take_released(&mut self) -> Vec<Step>;
    fn take_settled(&mut self) -> Vec<Message>;
    fn finish(self) -> Result<Vec<Trajectory>, LoadError>;
}

impl<T: LineReader> Records for T {
    fn record(&mut self, line: usize, bytes: &[u8], is_last: bool) -> Result<(), LoadError> {
        self.line(line, bytes, is_last);
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<Vec<Trajectory>, LoadError> {
        LineReader::finish(*self)
    }

    fn released(&mut self) -> Vec<Step> {
        self.take_released()
    }

    fn settled(&mut self) -> Vec<Message> {
        self.take_settled()
    }
}

/// Implements [`LineReader`] by the reader's own inherent `line`, `take_released`,
/// `take_settled` and `finish`.
macro_rules! line_reader {
    ($($reader:ty),+ $(,)?) => {$(
        impl LineReader for $reader {
            fn line(&mut self, line: usize, bytes: &[u8], is_last: bool) {
                <$reader>::line(self, line, bytes, is_last)
            }

            fn take_released(&mut self) -> Vec<Step> {
                <$reader>::take_released(self)
            }

            fn take_settled(&mut self) -> Vec<Message> {
                <$reader>::take_settled(self)
            }

            fn finish(self) -> Result<Vec<Trajectory>, LoadError> {
                <$reader>::finish(self)
            }
        }
    )+};
}

line_reader!(
    claude_code::Lines<'_>,
    codex::Lines<'_>,
    droid::Events<'_>,
    hf_trace::Messages<'_>,
    kimi_cli::Lines<'_>,
    copilot_cli::Lines<'_>,
    cursor::Lines<'_>,
);

struct OpenHandsItems<'a> {
    path: &'a Path,
    events: openhands::Events,
}

impl Records for OpenHandsItems<'_> {
    fn record(&mut self, line: usize, bytes: &[u8], _: bool) -> Result<(), LoadError> {
        self.events.item(self.path, line, bytes)
    }

    fn finish(self: Box<Self>) -> Result<Vec<Trajectory>, LoadError> {
        self.events.finish(self.path).map(|t| vec![t])
    }

    fn released(&mut self) -> Vec<Step> {
        self.events.take_released()
    }
}

/// A chat log's messages, when its steps are let go as they finish (its pool kept for the
/// lazy open's index).
struct ChatRecords<'a>(chat_messages::Messages<'a>);

impl Records for ChatRecords<'_> {
    fn record(&mut self, line: usize, bytes: &[u8], is_last: bool) -> Result<(), LoadError> {
        if self.0.is_lines() {
            self.0.line(line, bytes, is_last);
            Ok(())
        } else {
            self.0.item(line, bytes)
        }
    }

    fn finish(self: Box<Self>) -> Result<Vec<Trajectory>, LoadError> {
        self.0.finish()
    }

    fn released(&mut self) -> Vec<Step> {
        self.0.take_released()
    }

    fn settled(&mut self) -> Vec<Message> {
        self.0.take_settled()
    }
}

/// Gemini CLI sessions: the lines of the JSON Lines variant, or a document's `messages` and,
/// when it closes, its fields.
struct GeminiRecords<'a>(gemini_cli::Messages<'a>);

impl Records for GeminiRecords<'_> {
    fn record(&mut self, line: usize, bytes: &[u8], is_last: bool) -> Result<(), LoadError> {
        if self.0.is_lines() {
            self.0.line(line, bytes, is_last);
            Ok(())
        } else {
            self.0.item_at(line, bytes)
        }
    }

    fn header(&mut self, bytes: &[u8]) -> Result<(), LoadError> {
        self.0.fields(bytes)
    }

    fn finish(self: Box<Self>) -> Result<Vec<Trajectory>, LoadError> {
        self.0.finish()
    }

    fn released(&mut self) -> Vec<Step> {
        self.0.take_released()
    }

    fn settled(&mut self) -> Vec<Message> {
        self.0.take_settled()
    }
}

/// OTLP exports (lines) or the `resourceSpans` items of one document: spans gathered per
/// trace, the trajectories made at the end ([`otel_genai::Traces`]).
struct OtelRecords<'a> {
    path: &'a Path,
    lines: bool,
    traces: otel_genai::Traces,
}

impl Records for OtelRecords<'_> {
    fn record(&mut self, line: usize, bytes: &[u8], is_last: bool) -> Result<(), LoadError> {
        if self.lines {
            self.traces.line(self.path, line, bytes, is_last);
            return Ok(());
        }
        self.traces.item(self.path, line, bytes)
    }

    fn finish(self: Box<Self>) -> Result<Vec<Trajectory>, LoadError> {
        self.traces.finish(self.path)
    }
}

/// An OTel export's records indexed for the places of its traces' spans
/// ([`otel_genai::TraceIndex`]), the index left in `slot` when the file ends.
struct OtelIndexRecords<'a> {
    path: &'a Path,
    index: otel_genai::TraceIndex,
    slot: &'a mut Option<otel_genai::TraceIndex>,
}

impl Records for OtelIndexRecords<'_> {
    fn record(&mut self, line: usize, bytes: &[u8], is_last: bool) -> Result<(), LoadError> {
        self.index.record(self.path, line, bytes, is_last)
    }

    fn finish(self: Box<Self>) -> Result<Vec<Trajectory>, LoadError> {
        *self.slot = Some(self.index);
        Ok(Vec::new())
    }
}

/// The indexing reader for an OTel export of `shape` (`None` for any other file), its index
/// left in `slot`.
pub(super) fn index_reader<'a>(
    format: Format,
    shape: Shape,
    path: &'a Path,
    slot: &'a mut Option<otel_genai::TraceIndex>,
) -> Result<Option<Box<dyn Records + 'a>>, LoadError> {
    if format != Format::OtelGenai || !matches!(shape, Shape::Lines | Shape::Keyed) {
        return Ok(None);
    }
    Ok(Some(Box::new(OtelIndexRecords {
        path,
        index: otel_genai::TraceIndex::new(path, shape == Shape::Lines)?,
        slot,
    })))
}

/// The reader of `format` for records of `shape`, if it has one; releasing its steps as
/// they finish where it can when `release`.
pub(super) fn reader<'a>(
    format: Format,
    shape: Shape,
    path: &'a Path,
    release: bool,
    keep_pool: bool,
) -> Option<Box<dyn Records + 'a>> {
    match (format, shape) {
        (Format::ClaudeCode, Shape::Lines) => Some(if release {
            Box::new(claude_code::Lines::releasing(path, keep_pool))
        } else {
            Box::new(claude_code::Lines::new(path))
        }),
        (Format::OpenHands, Shape::Array) => Some(Box::new(OpenHandsItems {
            path,
            events: if release {
                openhands::Events::releasing(keep_pool)
            } else {
                openhands::Events::default()
            },
        })),
        // The next ones keep the message pool while letting steps go when `keep_pool`: the
        // lazy open's index is packed step by step, each step's context still right.
        (Format::Codex, Shape::Lines) if release => {
            Some(Box::new(codex::Lines::releasing(path, keep_pool)))
        }
        // Each message read back whole; with the pool kept, slimmed again (see `mini`).
        (Format::MiniSweAgent, Shape::Array | Shape::Keyed) if release => {
            Some(Box::new(MiniItems::new(path, keep_pool)?))
        }
        (Format::ChatMessages, Shape::Lines | Shape::Array) if release => {
            Some(Box::new(ChatRecords(chat_messages::Messages::new(
                path,
                shape == Shape::Lines,
                keep_pool,
            ))))
        }
        (Format::Droid, Shape::Lines) if release => {
            Some(Box::new(droid::Events::releasing(path, keep_pool)))
        }
        (Format::HfTrace, Shape::Lines) if release => {
            Some(Box::new(hf_trace::Messages::releasing(path, keep_pool)))
        }
        (Format::KimiCli, Shape::Lines) if release => {
            Some(Box::new(kimi_cli::Lines::releasing(path, keep_pool)))
        }
        (Format::CopilotCli, Shape::Lines) if release => {
            Some(Box::new(copilot_cli::Lines::releasing(path, keep_pool)))
        }
        (Format::Cursor, Shape::Lines) if release => {
            Some(Box::new(cursor::Lines::releasing(path, keep_pool)))
        }
        (Format::GeminiCli, Shape::Lines | Shape::Keyed) if release => {
            Some(Box::new(GeminiRecords(gemini_cli::Messages::releasing(
                path,
                shape == Shape::Lines,
                keep_pool,
            ))))
        }
        // Several trajectories a file, made at the end with their pools: read by the open,
        // never visited as one trajectory's steps.
        (Format::OtelGenai, Shape::Lines | Shape::Keyed) if keep_pool => {
            Some(Box::new(OtelRecords {
                path,
                lines: shape == Shape::Lines,
                traces: otel_genai::Traces::default(),
            }))
        }
        _ => None,
    }
}
