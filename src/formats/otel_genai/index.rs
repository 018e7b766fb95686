//! An export's traces as places in the file, then read back one trace at a time: what lets
//! a listing or a tally of a big export hold its largest trace, not all of them.
//!
//! The first pass is fed the export's records as the bounded read cuts them (slimmed: its
//! lines, or its `resourceSpans` items) and keeps, per trace in order of first appearance,
//! only where its GenAI spans are in the file ([`places`], found by a second handle on the
//! same file, read alongside). Then each trace's spans are read back from those places,
//! made into compact spans and a trajectory by the same code as the whole read
//! ([`super::traces::trajectory`]), handed over and dropped.

use super::attributes::Attrs;
use super::places::{Place, Places};
use super::span::{self, Pool};
use super::traces::{no_genai, trajectory};
use crate::formats::LoadError;
use crate::formats::json::json_line;
use crate::model::Trajectory;
use serde_json::Value;
use std::collections::HashMap;
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// Bytes read per chunk by the scan for places.
const CHUNK: usize = 1 << 20;

/// One trace's places.
struct TracePlaces {
    id: String,
    /// It has a span with `gen_ai.operation.name` (else it is not a trajectory).
    genai: bool,
    /// Its GenAI spans, in file order.
    places: Vec<Place>,
}

/// The places of an export's traces, gathered record by record.
pub struct TraceIndex {
    lines: bool,
    traces: Vec<TracePlaces>,
    by_id: HashMap<String, usize>,
    /// Lines skipped, said first in every trajectory's warnings.
    warnings: Vec<String>,
    /// The scan for places, on its own handle, and whether it reached the end of the file.
    file: File,
    places: Places,
    at_end: bool,
    /// A record's spans and the places found for it disagree: the index cannot be trusted.
    unplaced: bool,
    /// Bytes held (ids and places), against the memory budget.
    held: u64,
    budget: u64,
}

impl TraceIndex {
    /// The index of `path`, JSON Lines when `lines`, else one document.
    pub fn new(path: &Path, lines: bool) -> Result<TraceIndex, LoadError> {
        Ok(TraceIndex {
            lines,
            traces: Vec::new(),
            by_id: HashMap::new(),
            warnings: Vec::new(),
            file: File::open(path).map_err(|err| LoadError::io(path, err))?,
            places: Places::new(lines),
            at_end: false,
            unplaced: false,
            held: 0,
            budget: crate::formats::memory_budget().unwrap_or(u64::MAX),
        })
    }

    /// Record `line_no` (slimmed): a line of JSON Lines (`is_last` when nothing follows it),
    /// or an item of `resourceSpans`.
    pub fn record(
        &mut self,
        path: &Path,
        line_no: usize,
        bytes: &[u8],
        is_last: bool,
    ) -> Result<(), LoadError> {
        if self.lines {
            match json_line::<Value>(path, line_no, bytes, is_last) {
                Ok(line) => {
                    let spans = spans_of_export(&line.value);
                    let places = self.places_of_line(path, line_no)?;
                    self.add(path, &spans, places)?;
                }
                Err(warning) => self.warnings.push(warning),
            }
            return Ok(());
        }
        let item: Value = serde_json::from_slice(bytes)
            .map_err(|err| LoadError::json(path, &err, line_no.saturating_sub(1)))?;
        let mut spans = Vec::new();
        spans_of_resource(&item, &mut spans);
        let wanted = spans.iter().filter(|s| s.is_object()).count();
        let places = self.next_places(path, wanted)?;
        self.add(path, &spans, places)
    }

    /// Whether the places found match the spans read: when not, read the file another way.
    pub fn is_placed(&mut self, path: &Path) -> Result<bool, LoadError> {
        if !self.lines {
            while !self.at_end {
                self.scan(path)?;
            }
            self.unplaced |= !self.places.found().is_empty();
        }
        Ok(!self.unplaced)
    }

    /// Pairs a record's `spans` with their `places` (one per object, in order).
    fn add(&mut self, path: &Path, spans: &[&Value], places: Vec<Place>) -> Result<(), LoadError> {
        let objects = spans.iter().filter(|s| s.is_object()).count();
        if objects != places.len() {
            self.unplaced = true;
            return Ok(());
        }
        let mut places = places.into_iter();
        for value in spans {
            let id = value.get("traceId").and_then(Value::as_str).unwrap_or("");
            let at = match self.by_id.get(id) {
                Some(&at) => at,
                None => {
                    self.held += 2 * id.len() as u64 + 64;
                    self.by_id.insert(id.to_string(), self.traces.len());
                    self.traces.push(TracePlaces {
                        id: id.to_string(),
                        genai: false,
                        places: Vec::new(),
                    });
                    self.traces.len() - 1
                }
            };
            let place = if value.is_object() {
                places.next()
            } else {
                None
            };
            let genai = Attrs::of(value).str("gen_ai.operation.name").is_some();
            if let (Some(trace), Some(place), true) = (self.traces.get_mut(at), place, genai) {
                trace.genai = true;
                trace.places.push(place);
                self.held += std::mem::size_of::<Place>() as u64;
            }
        }
        if self.held > self.budget {
            return Err(LoadError::invalid(
                path,
                format!(
                    "the places of its {} traces outgrow the memory budget of {} bytes ({})",
                    self.traces.len(),
                    self.budget,
                    crate::formats::BUDGET_ENV
                ),
            ));
        }
        Ok(())
    }

    /// The places of the spans that start on line `line` (JSON Lines).
    fn places_of_line(&mut self, path: &Path, line: usize) -> Result<Vec<Place>, LoadError> {
        loop {
            let found = self.places.found();
            while found.front().is_some_and(|&(l, _)| l < line) {
                found.pop_front();
            }
            if self.places.line() > line || self.at_end {
                break;
            }
            self.scan(path)?;
        }
        let found = self.places.found();
        let mut out = Vec::new();
        while let Some(&(l, place)) = found.front()
            && l == line
        {
            out.push(place);
            found.pop_front();
        }
        Ok(out)
    }

    /// The next `n` places (a document's spans, in order); fewer when the file has no more.
    fn next_places(&mut self, path: &Path, n: usize) -> Result<Vec<Place>, LoadError> {
        while self.places.found().len() < n && !self.at_end {
            self.scan(path)?;
        }
        let found = self.places.found();
        Ok(found.drain(..n.min(found.len())).map(|(_, p)| p).collect())
    }

    fn scan(&mut self, path: &Path) -> Result<(), LoadError> {
        let mut buffer = vec![0; CHUNK];
        let n = loop {
            match self.file.read(&mut buffer) {
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                other => break other.map_err(|err| LoadError::io(path, err))?,
            }
        };
        if n == 0 {
            self.at_end = true;
        }
        self.places.feed(&buffer[..n]);
        Ok(())
    }

    /// Reads each trace back from `file` (the file indexed, unchanged), in the order the
    /// traces first appear, and hands its trajectory to `on_trajectory`: all of them, or
    /// only the `only`-th (0-based). How many trajectories the file holds.
    pub fn read_each(
        self,
        path: &Path,
        file: &File,
        only: Option<usize>,
        on_trajectory: &mut dyn FnMut(Trajectory) -> Result<(), LoadError>,
    ) -> Result<usize, LoadError> {
        let traces: Vec<TracePlaces> = self.traces.into_iter().filter(|t| t.genai).collect();
        if traces.is_empty() {
            return Err(no_genai(path));
        }
        let many = traces.len() > 1;
        let count = traces.len();
        for (i, trace) in traces.into_iter().enumerate() {
            if only.is_some_and(|only| only != i) {
                continue;
            }
            let bytes: u64 = trace.places.iter().map(|p| p.len).sum();
            if bytes > self.budget {
                return Err(LoadError::invalid(
                    path,
                    format!(
                        "trace {}: its spans ({bytes} bytes) outgrow the memory budget of {} \
                         bytes ({})",
                        trace.id,
                        self.budget,
                        crate::formats::BUDGET_ENV
                    ),
                ));
            }
            let mut pool = Pool::default();
            let mut spans = Vec::new();
            for place in &trace.places {
                let value = read_span(path, file, *place)?;
                if value.get("traceId").and_then(Value::as_str).unwrap_or("") != trace.id {
                    return Err(LoadError::invalid(
                        path,
                        format!(
                            "the span at byte {} is not one of trace {} (was the file changed?)",
                            place.start, trace.id
                        ),
                    ));
                }
                if let Some(kept) = span::compact(&value, &mut pool) {
                    spans.extend(kept);
                }
            }
            let at = many.then_some(i);
            let mut t = trajectory(path, &trace.id, spans, &pool, at, &self.warnings);
            // As every parse's trajectories are ([`crate::formats::parse_with`]).
            t.number_steps();
            on_trajectory(t)?;
        }
        Ok(count)
    }
}

/// The span at `place` of `file`, parsed.
fn read_span(path: &Path, file: &File, place: Place) -> Result<Value, LoadError> {
    let len =
        usize::try_from(place.len).map_err(|err| LoadError::invalid(path, err.to_string()))?;
    let mut bytes = vec![0; len];
    file.read_exact_at(&mut bytes, place.start)
        .map_err(|err| LoadError::io(path, err))?;
    serde_json::from_slice(&bytes).map_err(|err| {
        LoadError::invalid(
            path,
            format!(
                "the span at byte {}: {err} (was the file changed?)",
                place.start
            ),
        )
    })
}

/// The spans of an export request, as [`super::Traces::export`] walks them.
fn spans_of_export(export: &Value) -> Vec<&Value> {
    let mut spans = Vec::new();
    if let Some(Value::Array(resources)) = export.get("resourceSpans") {
        for resource in resources {
            spans_of_resource(resource, &mut spans);
        }
    }
    spans
}

/// The spans of one `resourceSpans` item, added to `spans`.
fn spans_of_resource<'v>(resource: &'v Value, spans: &mut Vec<&'v Value>) {
    let Some(Value::Array(scopes)) = resource.get("scopeSpans") else {
        return;
    };
    for scope in scopes {
        if let Some(Value::Array(items)) = scope.get("spans") {
            spans.extend(items);
        }
    }
}
