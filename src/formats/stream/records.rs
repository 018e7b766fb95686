//! The bounded read record by record: the slimmed text is cut into records as it comes (the
//! lines of a JSON Lines log, the items of a top-level JSON array) and each is handed to its
//! format's reader at once, so what is held is the reader's steps, never the file's text nor
//! its slimmed text whole. The format is told from the first records; a format without a
//! record reader, or a file whose start does not say, is left to the whole slim read.
//!
//! Readers fed this way: Claude Code sessions ([`claude_code::Lines`]), OpenHands event
//! lists ([`openhands::Events`]), Kimi CLI wire logs and Copilot CLI sessions
//! ([`kimi_cli::Lines`], [`copilot_cli::Lines`]), Codex rollouts, chat logs, droid
//! streams ([`droid::Events`]) and Hugging Face traces ([`hf_trace::Messages`]), their
//! steps let go as they finish, the message pool kept for the lazy open's index; and
//! mini-swe-agent trajectories ([`crate::formats::mini_swe_agent::Messages`], the items of
//! `messages`, cut by [`keyed`], each read back whole and what is kept slimmed again:
//! [`mini`]), Cursor transcripts ([`crate::formats::cursor::Lines`]) and Gemini CLI sessions
//! (both variants: [`crate::formats::gemini_cli::Messages`]), likewise. OTel exports (`otel_genai::Traces`:
//! lines, or the items of `resourceSpans`) give several trajectories, made at the end: read
//! by the open, not visited; or indexed ([`index_traces`]: where each trace's spans are),
//! for a visit of one trace at a time ([`super::traces`]).

mod keyed;
mod mini;
mod readers;

use super::inflate::Inflater;
use super::slim::Slimmer;
use super::{CHUNK, STRING_CAP, line_budget_error};
use crate::formats::LoadError;
use crate::formats::detect::{Kind, detect, is_json_lines};
use crate::formats::otel_genai::TraceIndex;
use crate::model::{Format, Message, Step, Trajectory};
use keyed::Keyed;
use readers::Records;
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Records looked at, at most, to tell the format (detection reads 8 lines or 20 items).
const SNIFF_RECORDS: usize = 24;
/// Slimmed bytes looked at, at most, to tell the format.
const SNIFF_BYTES: usize = 4 << 20;
/// Items of a list whose texts detection looks inside (for mini-swe-agent's markers).
const MARKED_ITEMS: usize = 4;

/// How the file holds its records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// One JSON value per line.
    Lines,
    /// The items of one top-level array.
    Array,
    /// The items of the array under a named key of one top-level object ([`keyed`]).
    Keyed,
    /// Starts with `{`: JSON Lines or one object, told by its first line.
    Undecided,
}

/// One record cut from the slimmed text.
struct Record {
    line: usize,
    bytes: Vec<u8>,
    is_last: bool,
    /// The object around the items, not an item ([`Shape::Keyed`]).
    header: bool,
}

/// Cuts slimmed text into records, fed in chunks.
struct Cutter {
    shape: Option<Shape>,
    /// The open record's bytes so far.
    pending: Vec<u8>,
    /// The line the open record starts on (1-based), and the line being read.
    start_line: usize,
    line: usize,
    /// Inside the array: containers open (1 inside the top-level array), string state.
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// The array has closed; anything but whitespace after it is an error.
    closed: bool,
    trailing: Option<usize>,
    keyed: Keyed,
}

impl Cutter {
    fn new() -> Cutter {
        Cutter {
            shape: None,
            pending: Vec::new(),
            start_line: 1,
            line: 1,
            depth: 0,
            in_string: false,
            escaped: false,
            closed: false,
            trailing: None,
            keyed: Keyed::default(),
        }
    }

    /// Cuts `text` (the next slimmed bytes), calling `on_record` with each record completed.
    fn feed(&mut self, text: &[u8], on_record: &mut dyn FnMut(Record)) {
        if self.shape.is_none() {
            match text.iter().find(|b| !b.is_ascii_whitespace()) {
                Some(b'[') => self.shape = Some(Shape::Array),
                Some(b'{') => self.shape = Some(Shape::Undecided),
                Some(_) => self.shape = Some(Shape::Lines),
                None => {
                    self.line += memchr::memchr_iter(b'\n', text).count();
                    return;
                }
            }
        }
        match self.shape {
            Some(Shape::Lines) => self.feed_lines(text, on_record),
            Some(Shape::Undecided) => self.feed_undecided(text, on_record),
            Some(Shape::Keyed) => self.feed_keyed(text, on_record),
            _ => self.feed_array(text, on_record),
        }
    }

    fn feed_lines(&mut self, mut text: &[u8], on_record: &mut dyn FnMut(Record)) {
        while let Some(at) = memchr::memchr(b'\n', text) {
            self.pending.extend_from_slice(&text[..at]);
            self.end_line(on_record);
            text = &text[at + 1..];
        }
        self.pending.extend_from_slice(text);
    }

    fn end_line(&mut self, on_record: &mut dyn FnMut(Record)) {
        if !self.pending.iter().all(u8::is_ascii_whitespace) {
            on_record(Record {
                line: self.line,
                bytes: std::mem::take(&mut self.pending),
                is_last: false,
                header: false,
            });
        }
        self.pending.clear();
        self.line += 1;
    }

    fn feed_array(&mut self, text: &[u8], on_record: &mut dyn FnMut(Record)) {
        for &b in text {
            if self.in_string {
                self.pending.push(b);
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            if b == b'\n' {
                self.line += 1;
            }
            if self.closed || self.depth == 0 {
                match b {
                    b'[' if !self.closed => self.depth = 1,
                    _ if b.is_ascii_whitespace() => {}
                    _ => {
                        self.trailing.get_or_insert(self.line);
                    }
                }
                continue;
            }
            if self.depth == 1 {
                match b {
                    b',' => {
                        self.end_item(on_record);
                        continue;
                    }
                    b']' => {
                        self.end_item(on_record);
                        self.depth = 0;
                        self.closed = true;
                        continue;
                    }
                    _ if b.is_ascii_whitespace() && self.pending.is_empty() => continue,
                    _ => {}
                }
            }
            if self.pending.is_empty() {
                self.start_line = self.line;
            }
            self.pending.push(b);
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
        }
    }

    /// The line the open record starts on.
    fn open_line(&self) -> usize {
        match self.shape {
            Some(Shape::Array | Shape::Keyed) => self.start_line,
            _ => self.line,
        }
    }

    fn end_item(&mut self, on_record: &mut dyn FnMut(Record)) {
        // Whitespace after a scalar item (`3\n]`) is not part of it.
        while self.pending.last().is_some_and(u8::is_ascii_whitespace) {
            self.pending.pop();
        }
        if self.pending.is_empty() {
            return;
        }
        on_record(Record {
            line: self.start_line,
            bytes: std::mem::take(&mut self.pending),
            is_last: false,
            header: false,
        });
        self.keyed.items += 1;
    }

    /// The end of the text: the last line, however it ends; an array that did not close
    /// is an error naming where its open item starts.
    fn finish(&mut self, path: &Path, on_record: &mut dyn FnMut(Record)) -> Result<(), LoadError> {
        match self.shape {
            Some(Shape::Lines | Shape::Undecided)
                if !self.pending.iter().all(u8::is_ascii_whitespace) =>
            {
                on_record(Record {
                    line: self.line,
                    bytes: std::mem::take(&mut self.pending),
                    is_last: true,
                    header: false,
                });
                Ok(())
            }
            Some(Shape::Array | Shape::Keyed) if !self.closed => {
                let err = serde_json::from_slice::<serde::de::IgnoredAny>(&self.pending)
                    .err()
                    .unwrap_or_else(|| serde::de::Error::custom("a list that never closes"));
                Err(LoadError::json(
                    path,
                    &err,
                    self.start_line.saturating_sub(1),
                ))
            }
            Some(Shape::Array | Shape::Keyed) if self.trailing.is_some() => {
                Err(LoadError::invalid(
                    path,
                    format!(
                        "line {}: trailing characters after the {}",
                        self.trailing.unwrap_or(0),
                        if self.shape == Some(Shape::Array) {
                            "list"
                        } else {
                            "object"
                        }
                    ),
                ))
            }
            Some(Shape::Keyed) => {
                on_record(Record {
                    line: 1,
                    bytes: std::mem::take(&mut self.keyed.header),
                    is_last: false,
                    header: true,
                });
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

/// Reads all of `path` record by record like [`read_releasing`], handing each step to `on_step`
/// (slim, in order, numbered) as soon as its reader lets it go, and never holding it: the
/// trajectories come back without steps. Formats with record readers give one trajectory
/// per file.
pub fn visit(
    path: &Path,
    threshold: usize,
    on_step: &mut dyn FnMut(Step) -> Result<(), LoadError>,
) -> Result<Option<Vec<Trajectory>>, LoadError> {
    let mut count = 0;
    let mut each = |mut step: Step| {
        count += 1;
        step.index = count;
        on_step(step)
    };
    let mut file = File::open(path).map_err(|err| LoadError::io(path, err))?;
    let Some(mut trajectories) = drive(
        path,
        &mut file,
        threshold,
        true,
        Some(&mut each),
        None,
        None,
    )?
    else {
        return Ok(None);
    };
    for trajectory in &mut trajectories {
        for step in std::mem::take(&mut trajectory.steps) {
            each(step)?;
        }
    }
    Ok(Some(trajectories))
}

/// Reads `path` record by record when its format has a record reader: `None` when it has
/// none or its first records do not say (read it slim and whole instead). `file` gives the
/// bytes of `path` from its start: all of them (`whole`), or its first lines or items only
/// (the open of a big file's first steps, [`super::part`]), whose array is then not expected
/// to close. Each step goes to `on_step` (slim, in order, numbered) as soon as its reader
/// lets it go, the message pool kept, each of its messages to `on_pool` as soon as nothing
/// later changes it: what the lazy open packs as it reads. The trajectories come back with
/// the steps not let go, numbered after those, and the pool's messages not handed over.
pub fn read_releasing(
    path: &Path,
    file: &mut dyn Read,
    threshold: usize,
    whole: bool,
    on_step: OnStep<'_>,
    on_pool: OnPool<'_>,
) -> Result<Option<Vec<Trajectory>>, LoadError> {
    let mut count = 0;
    let mut each = |mut step: Step| {
        count += 1;
        step.index = count;
        on_step(step)
    };
    let Some(mut trajectories) = drive(
        path,
        file,
        threshold,
        whole,
        Some(&mut each),
        Some(on_pool),
        None,
    )?
    else {
        return Ok(None);
    };
    // Steps let go come from a reader of one trajectory; a reader of several (OTel traces)
    // lets none go, and each of its trajectories counts from 1.
    for trajectory in &mut trajectories {
        let mut n = std::mem::take(&mut count);
        for step in &mut trajectory.steps {
            n += 1;
            step.index = n;
        }
    }
    Ok(Some(trajectories))
}

/// The index of the OTel export `path` (the places of its traces' spans, [`TraceIndex`]),
/// read record by record from `file` (its bytes from the start): `None` when it is not an
/// export read that way.
pub fn index_traces(
    path: &Path,
    file: &mut dyn Read,
    threshold: usize,
) -> Result<Option<TraceIndex>, LoadError> {
    let mut slot = None;
    if drive(path, file, threshold, true, None, None, Some(&mut slot))?.is_none() {
        return Ok(None);
    }
    Ok(slot)
}

/// Where [`drive`] leaves the index it builds, when asked for one ([`index_traces`]).
type IndexSlot<'a> = Option<&'a mut Option<TraceIndex>>;

/// Steps handed over as their reader releases them.
type OnStep<'a> = &'a mut dyn FnMut(Step) -> Result<(), LoadError>;
/// Pool messages handed over as they settle.
pub type OnPool<'a> = &'a mut dyn FnMut(Vec<Message>) -> Result<(), LoadError>;

/// The record reading of [`read_releasing`] and [`visit`]: with `on_step`, the reader releases
/// its steps as they finish and each goes there at once; with `on_pool`, it keeps its message
/// pool and hands its messages there as they settle.
fn drive<'a>(
    path: &'a Path,
    file: &mut dyn Read,
    threshold: usize,
    whole: bool,
    mut on_step: Option<OnStep<'_>>,
    mut on_pool: Option<OnPool<'_>>,
    mut index: IndexSlot<'a>,
) -> Result<Option<Vec<Trajectory>>, LoadError> {
    let release = on_step.is_some();
    let keep_pool = on_pool.is_some();
    let budget = crate::formats::memory_budget().unwrap_or(u64::MAX);
    let mut slimmer = Slimmer::new(threshold);
    let mut cutter = Cutter::new();
    let mut buffer = vec![0; CHUNK];
    // The first records, held until the format is known.
    let mut first: Vec<Record> = Vec::new();
    let mut first_bytes = 0;
    let mut reader: Option<Box<dyn Records>> = None;
    let mut failed: Option<LoadError> = None;
    let mut at_end = false;
    loop {
        let n = if at_end {
            0
        } else {
            file.read(&mut buffer)
                .map_err(|err| LoadError::io(path, err))?
        };
        if n == 0 {
            at_end = true;
        } else {
            slimmer.feed(&buffer[..n]);
        }
        let text = if at_end {
            std::mem::replace(&mut slimmer, Slimmer::new(threshold)).finish()
        } else {
            std::mem::take(&mut slimmer.out)
        };
        let mut on_record = |record: Record| match &mut reader {
            Some(reader) => {
                if failed.is_none()
                    && let Err(err) = hand(reader.as_mut(), &record)
                {
                    failed = Some(err);
                }
            }
            None => {
                first_bytes += record.bytes.len();
                first.push(record);
            }
        };
        cutter.feed(&text, &mut on_record);
        if at_end && whole {
            cutter.finish(path, &mut on_record)?;
        }
        if let Some(err) = failed.take() {
            return Err(err);
        }
        if let Some(reader) = &mut reader {
            hand_over(reader.as_mut(), &mut on_step, &mut on_pool)?;
        }
        if cutter.pending.len() as u64 > budget {
            return Err(line_budget_error(path, cutter.open_line(), budget));
        }
        if cutter.keyed.header.len() as u64 > budget {
            return Err(line_budget_error(path, 1, budget));
        }
        // An object whose big array is not one whose items are read here (a SWE-agent
        // `.traj`, an Inspect log): read another way, without reading it all first.
        if reader.is_none() && cutter.keyed.items == 0 && cutter.keyed.header.len() >= SNIFF_BYTES {
            return Ok(None);
        }
        if reader.is_none()
            && (first.len() >= SNIFF_RECORDS || first_bytes >= SNIFF_BYTES || at_end)
        {
            let Some(shape) = cutter.shape else {
                return Ok(None);
            };
            let Some(format) = sniff(path, shape, &first, &cutter) else {
                return Ok(None);
            };
            let chosen = match index.take() {
                Some(slot) => readers::index_reader(format, shape, path, slot)?,
                None => readers::reader(format, shape, path, release, keep_pool),
            };
            let Some(mut chosen) = chosen else {
                return Ok(None);
            };
            for record in first.drain(..) {
                hand(chosen.as_mut(), &record)?;
            }
            reader = Some(chosen);
        }
        if at_end {
            break;
        }
    }
    let Some(mut reader) = reader else {
        return Ok(None);
    };
    hand_over(reader.as_mut(), &mut on_step, &mut on_pool)?;
    reader.finish().map(Some)
}

/// Hands the steps `reader` let go to `on_step`, and the pool messages that settled to
/// `on_pool`.
fn hand_over(
    reader: &mut dyn Records,
    on_step: &mut Option<OnStep<'_>>,
    on_pool: &mut Option<OnPool<'_>>,
) -> Result<(), LoadError> {
    if let Some(on_step) = on_step {
        for step in reader.released() {
            on_step(step)?;
        }
    }
    if let Some(on_pool) = on_pool {
        let settled = reader.settled();
        if !settled.is_empty() {
            on_pool(settled)?;
        }
    }
    Ok(())
}

/// Hands `record` to `reader`.
fn hand(reader: &mut dyn Records, record: &Record) -> Result<(), LoadError> {
    if record.header {
        reader.header(&record.bytes)
    } else {
        reader.record(record.line, &record.bytes, record.is_last)
    }
}

/// The format of the file whose first records are `first` when it has a record reader for
/// them, told the way the whole read tells it (from a sample of the same records; for an object, with its keys read so
/// far).
fn sniff(path: &Path, shape: Shape, first: &[Record], cutter: &Cutter) -> Option<Format> {
    let mut sample = Vec::new();
    match shape {
        Shape::Undecided => return None,
        Shape::Keyed => {
            if let Some(header) = first.iter().find(|r| r.header) {
                sample.extend_from_slice(&header.bytes);
            } else {
                let keyed = &cutter.keyed;
                sample.extend_from_slice(&keyed.header);
                if keyed.in_items {
                    for (i, record) in first.iter().enumerate() {
                        if i > 0 {
                            // One item a line: items of one line each would pass for JSON Lines.
                            sample.extend_from_slice(b",\n");
                        }
                        sample.extend_from_slice(&record.bytes);
                    }
                    sample.push(b']');
                }
                if !cutter.closed {
                    sample.push(b'}');
                }
            }
        }
        // One line says too little to tell JSON Lines from one document.
        Shape::Lines if first.len() < 2 => return None,
        Shape::Lines => {
            for record in first.iter().filter(|r| !r.is_last) {
                sample.extend_from_slice(&record.bytes);
                sample.push(b'\n');
            }
        }
        Shape::Array => {
            // A bare message list is told mini-swe-agent's by markers inside its first
            // messages' texts (the system prompt): those are read back whole, as the whole
            // read sees them.
            let file = File::open(path).ok();
            sample.push(b'[');
            for (i, record) in first.iter().enumerate() {
                if i > 0 {
                    sample.push(b',');
                }
                match file.as_ref().filter(|_| i < MARKED_ITEMS) {
                    Some(file) => sample.extend(read_back(file, &record.bytes)),
                    None => sample.extend_from_slice(&record.bytes),
                }
            }
            sample.push(b']');
        }
    }
    // A document written over several lines (pretty-printed) is not JSON Lines.
    if shape == Shape::Lines && !is_json_lines(&sample) {
        return None;
    }
    match detect(path, &sample) {
        // Lines of whole conversations are trajectories of their own: read whole.
        Ok(Kind::Trajectories(Format::ChatMessages))
            if shape == Shape::Lines && first.iter().any(|r| holds_messages(&r.bytes)) =>
        {
            None
        }
        Ok(Kind::Trajectories(format)) => Some(format),
        _ => None,
    }
}

/// A slimmed record with its long strings read back from `file` (as it was, when that
/// fails: the read that follows says why).
fn read_back(file: &File, bytes: &[u8]) -> Vec<u8> {
    let inflater = Inflater {
        file,
        preview: false,
        cap: STRING_CAP,
    };
    serde_json::from_slice::<serde_json::Value>(bytes)
        .ok()
        .and_then(|mut value| inflater.value(&mut value).ok().map(|()| value))
        .and_then(|value| serde_json::to_vec(&value).ok())
        .unwrap_or_else(|| bytes.to_vec())
}

/// Whether a record is an object with a `messages` key.
fn holds_messages(bytes: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(bytes).is_ok_and(|v| v.get("messages").is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records as (line, text, is_last).
    pub(super) type Cut = Vec<(usize, String, bool)>;

    pub(super) fn cut(text: &str, chunk: usize) -> (Cut, Result<(), String>) {
        let mut cutter = Cutter::new();
        let mut out = Vec::new();
        let mut on = |r: Record| out.push((r.line, String::from_utf8(r.bytes).unwrap(), r.is_last));
        for piece in text.as_bytes().chunks(chunk) {
            cutter.feed(piece, &mut on);
        }
        let end = cutter
            .finish(Path::new("x.json"), &mut on)
            .map_err(|e| e.to_string());
        (out, end)
    }

    #[test]
    fn array_items_are_cut_with_their_lines() {
        let text = "[\n {\"a\": \"x,]\\\"\"},\n [1, {\"b\": 2}],\n 3\n]\n";
        for chunk in [1, 2, 5, 100] {
            let (items, end) = cut(text, chunk);
            assert_eq!(end, Ok(()));
            assert_eq!(
                items,
                vec![
                    (2, "{\"a\": \"x,]\\\"\"}".to_string(), false),
                    (3, "[1, {\"b\": 2}]".to_string(), false),
                    (4, "3".to_string(), false),
                ],
                "chunks of {chunk}"
            );
        }
    }

    #[test]
    fn lines_are_cut_and_a_torn_last_line_is_marked() {
        let (lines, end) = cut("{\"a\":1}\n\n{\"b\":2}\n{\"c\":", 3);
        assert_eq!(end, Ok(()));
        assert_eq!(
            lines,
            vec![
                (1, "{\"a\":1}".to_string(), false),
                (3, "{\"b\":2}".to_string(), false),
                (4, "{\"c\":".to_string(), true),
            ]
        );
    }

    #[test]
    fn a_torn_array_names_its_file_and_line() {
        let (_, end) = cut("[\n{\"a\": 1},\n{\"b\": [2,", 4);
        let message = end.unwrap_err();
        assert!(message.contains("x.json:3"), "{message}");
        let (_, end) = cut("[1] x", 4);
        assert!(end.unwrap_err().contains("trailing"));
    }
}
