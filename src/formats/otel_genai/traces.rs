//! The spans of an export gathered per trace as they are read, each kept as a compact
//! record ([`span`]), in whatever order the file holds them: export requests, or the
//! `resourceSpans` items of one document, one at a time. Only once every span is read are a
//! trace's spans put in start order and made its trajectory: a batch exporter writes spans
//! as they end (a parent after its children) and several traces' spans interleave, so no
//! step is known final before the end of the file.
//!
//! The whole read and the bounded read ([`crate::formats::stream`], which hands over the
//! records one by one) both feed this, so both give the same trajectories. What is held
//! meanwhile is the compact spans, their input messages once per trace, and, in the bounded
//! read, long texts left in the file as placeholders.

use super::span::{self, Pool, Span};
use crate::formats::LoadError;
use crate::formats::json::json_line;
use crate::model::Trajectory;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// One trace so far.
struct Trace {
    id: String,
    /// It has a span with `gen_ai.operation.name` (else it is not a trajectory).
    genai: bool,
    spans: Vec<Span>,
    pool: Pool,
}

/// The traces of a file, in the order their first span appears.
#[derive(Default)]
pub struct Traces {
    traces: Vec<Trace>,
    by_id: HashMap<String, usize>,
    /// Lines skipped (JSON Lines exports), said first in every trajectory's warnings.
    warnings: Vec<String>,
}

impl Traces {
    /// Line `line_no` of a JSON Lines file: one export request (`is_last` when nothing
    /// follows it: a writer may still be writing it).
    pub fn line(&mut self, path: &Path, line_no: usize, bytes: &[u8], is_last: bool) {
        match json_line::<Value>(path, line_no, bytes, is_last) {
            Ok(line) => self.export(&line.value),
            Err(warning) => self.warnings.push(warning),
        }
    }

    /// A line skipped, with why.
    pub fn warn(&mut self, warning: String) {
        self.warnings.push(warning);
    }

    /// One export request (`{"resourceSpans": […]}`).
    pub fn export(&mut self, export: &Value) {
        if let Some(Value::Array(resources)) = export.get("resourceSpans") {
            for resource in resources {
                self.resource(resource);
            }
        }
    }

    /// One item of `resourceSpans`, which starts on line `line_no` (the bounded read of
    /// a document hands them over one at a time).
    pub fn item(&mut self, path: &Path, line_no: usize, bytes: &[u8]) -> Result<(), LoadError> {
        let value: Value = serde_json::from_slice(bytes)
            .map_err(|err| LoadError::json(path, &err, line_no.saturating_sub(1)))?;
        self.resource(&value);
        Ok(())
    }

    fn resource(&mut self, resource: &Value) {
        let Some(Value::Array(scopes)) = resource.get("scopeSpans") else {
            return;
        };
        for scope in scopes {
            let Some(Value::Array(spans)) = scope.get("spans") else {
                continue;
            };
            for value in spans {
                self.span(value);
            }
        }
    }

    fn span(&mut self, value: &Value) {
        let id = value.get("traceId").and_then(Value::as_str).unwrap_or("");
        let at = match self.by_id.get(id) {
            Some(&at) => at,
            None => {
                self.by_id.insert(id.to_string(), self.traces.len());
                self.traces.push(Trace {
                    id: id.to_string(),
                    genai: false,
                    spans: Vec::new(),
                    pool: Pool::default(),
                });
                self.traces.len() - 1
            }
        };
        let Some(trace) = self.traces.get_mut(at) else {
            return;
        };
        if let Some(kept) = span::compact(value, &mut trace.pool) {
            trace.genai = true;
            trace.spans.extend(kept);
        }
    }

    /// Input messages kept, over all traces (each once per trace).
    #[cfg(test)]
    pub fn pooled(&self) -> usize {
        self.traces.iter().map(|t| t.pool.len()).sum()
    }

    /// One trajectory per trace with GenAI spans, in the order the traces first appear.
    pub fn finish(self, path: &Path) -> Result<Vec<Trajectory>, LoadError> {
        let traces: Vec<Trace> = self.traces.into_iter().filter(|t| t.genai).collect();
        if traces.is_empty() {
            return Err(no_genai(path));
        }
        let many = traces.len() > 1;
        let mut out = Vec::with_capacity(traces.len());
        for (i, trace) in traces.into_iter().enumerate() {
            let at = many.then_some(i);
            out.push(trajectory(
                path,
                &trace.id,
                trace.spans,
                &trace.pool,
                at,
                &self.warnings,
            ));
        }
        Ok(out)
    }
}

/// The error for an export none of whose spans is a GenAI span.
pub(super) fn no_genai(path: &Path) -> LoadError {
    LoadError::invalid(
        path,
        "an OTLP trace export without GenAI spans (no `gen_ai.operation.name`)",
    )
}

/// The trajectory of trace `id` from its `spans` (in file order) and `pool`: number `at` of
/// the file's trajectories when it holds several, the file's `warnings` said first.
pub(super) fn trajectory(
    path: &Path,
    id: &str,
    mut spans: Vec<Span>,
    pool: &Pool,
    at: Option<usize>,
    warnings: &[String],
) -> Trajectory {
    // Stable: spans that start and end together stay in file order.
    spans.sort_by_key(|s| (s.start, s.end));
    let mut t = super::read_trace(path, id, spans, pool);
    t.source_index = at;
    let mut all = warnings.to_vec();
    all.append(&mut t.warnings);
    t.warnings = all;
    t
}
