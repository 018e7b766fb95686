//! Inspect AI eval logs, `.json` and `.eval` (zip): each sample (and epoch) is a trajectory.
//!
//! A step is an assistant message with the tool results that answered it; its context is
//! the exact input of the `model` event that produced it. `attachment://` (and older
//! `tc://`) references are resolved from the sample's attachments everywhere text can hold
//! them. A log without samples (a header-only or cancelled eval) holds no trajectory, which
//! is not an error. The containers are read by `log_json` and `archive`, one sample at a
//! time; `sample`, `steps` and `message` turn a sample into a trajectory. A big `.json`
//! log is read from the file a sample at a time (`by_sample`, after `log_scan`'s pass).

mod archive;
mod by_sample;
mod events;
mod header;
mod log_head;
mod log_json;
mod log_scan;
mod message;
mod refs;
mod sample;
mod score;
mod source;
mod steps;

use super::LoadError;
use crate::model::{Trajectory, TrajectorySummary};
pub use by_sample::SampleLog;
use header::Header;
use rayon::prelude::*;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::path::Path;

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    let is_zip = bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06");
    let (header, samples, detail) = if is_zip {
        let (header, samples) = archive::open(path, bytes)?;
        let detail = header.detail("eval");
        (header, Samples::Archive(samples), detail)
    } else {
        let (header, samples) = log_json::open(path, bytes)?;
        let detail = header.detail("json");
        (header, Samples::Json(samples), detail)
    };
    read_samples(path, &header, &samples, &detail)
}

/// Whether `head` (a file's first bytes) starts a zip archive: an `.eval` log, which
/// [`parse_file`] reads without holding it whole.
pub fn is_archive(head: &[u8]) -> bool {
    head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06")
}

/// Bytes of a file looked at to tell whether it may be an Inspect `.json` log.
const SNIFF_BYTES: u64 = 64 << 10;

/// Whether the file at `path` may be an Inspect `.json` log, from its first bytes (its
/// first keys): the bounded read does not slim it, and [`SampleLog::open`] decides.
pub fn may_be_json_log(path: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(SNIFF_BYTES).read_to_end(&mut head))
        .is_ok()
        && log_head::may_be_log(&head)
}

/// The trajectories of the Inspect `.json` log at `path` read a sample at a time (never the
/// file whole; see [`SampleLog`]); `None` when it is not one.
pub fn read_json_log(
    path: &Path,
    detail: super::Detail,
) -> Result<Option<Vec<Trajectory>>, LoadError> {
    match open_json_log(path)? {
        Some(log) => log.read_all(detail).map(Some),
        None => Ok(None),
    }
}

/// The summaries of the Inspect `.json` log at `path`, each trajectory read a sample at a
/// time, summarised and dropped; `None` when it is not one.
pub fn json_log_summaries(path: &Path) -> Result<Option<Vec<TrajectorySummary>>, LoadError> {
    let Some(log) = open_json_log(path)? else {
        return Ok(None);
    };
    let mut summaries = Vec::with_capacity(log.len());
    log.visit(&mut |t| {
        summaries.push(TrajectorySummary::of(&t));
        Ok(())
    })?;
    Ok(Some(summaries))
}

/// [`SampleLog::open`] when the file may be an Inspect `.json` log ([`may_be_json_log`]).
pub fn open_json_log(path: &Path) -> Result<Option<SampleLog>, LoadError> {
    if !may_be_json_log(path) {
        return Ok(None);
    }
    SampleLog::open(path)
}

/// The trajectories of the `.eval` archive at `path`, read from the file at positions
/// (never held whole), a sample at a time.
pub fn parse_file(path: &Path) -> Result<Vec<Trajectory>, LoadError> {
    let (header, samples) = archive::open_file(path)?;
    let detail = header.detail("eval");
    read_samples(path, &header, &Samples::Archive(samples), &detail)
}

fn read_samples(
    path: &Path,
    header: &Header,
    samples: &Samples<'_>,
    detail: &str,
) -> Result<Vec<Trajectory>, LoadError> {
    // Samples are independent: read them in parallel, each holding only its own JSON tree.
    let outcomes: Vec<Result<(Trajectory, u64), String>> = (0..samples.len())
        .into_par_iter()
        .map(|ordinal| {
            let (trajectory, epoch) = samples
                .trajectory(ordinal, path, header, detail)
                .map_err(|why| skipped(ordinal, &why))?;
            Ok((trajectory, epoch.unwrap_or(1)))
        })
        .collect();
    let mut trajectories = Vec::new();
    let mut problems = Vec::new();
    for outcome in outcomes {
        match outcome {
            Ok(done) => trajectories.push(done),
            Err(problem) => problems.push(problem),
        }
    }
    if trajectories.is_empty() {
        if let Some(first) = problems.first() {
            return Err(LoadError::invalid(path, first.clone()));
        }
        return Ok(Vec::new());
    }
    name_epochs(&mut trajectories, header);
    let mut trajectories: Vec<Trajectory> = trajectories.into_iter().map(|(t, _)| t).collect();
    if let Some(first) = trajectories.first_mut() {
        first.warnings.extend(problems);
    }
    Ok(trajectories)
}

/// Why the `ordinal`-th sample (0-based) gives no trajectory, as a warning.
fn skipped(ordinal: usize, why: &str) -> String {
    format!("sample {}: {why}; skipped", ordinal + 1)
}

/// Where a log's samples are, before they are read.
enum Samples<'a> {
    Json(Vec<&'a RawValue>),
    Archive(archive::Samples<'a>),
}

impl Samples<'_> {
    fn len(&self) -> usize {
        match self {
            Samples::Json(raw) => raw.len(),
            Samples::Archive(entries) => entries.len(),
        }
    }

    /// The trajectory of the `ordinal`-th sample, and its epoch.
    fn trajectory(
        &self,
        ordinal: usize,
        path: &Path,
        header: &Header,
        detail: &str,
    ) -> Result<(Trajectory, Option<u64>), String> {
        match self {
            Samples::Json(raw) => {
                let sample = log_json::sample(raw[ordinal])?;
                let epoch = sample.epoch;
                Ok((
                    sample::trajectory(path, header, detail, sample, ordinal),
                    epoch,
                ))
            }
            Samples::Archive(entries) => entries.trajectory(ordinal, path, header, detail),
        }
    }
}

/// With several epochs, each sample appears once per epoch: `12_epoch_2` (Inspect's own
/// name for it) tells them apart.
fn name_epochs(trajectories: &mut [(Trajectory, u64)], header: &Header) {
    let ids = trajectories
        .iter()
        .map(|(t, epoch)| (t.instance_id.as_str(), *epoch));
    if several_epochs(header, ids) {
        for (t, epoch) in trajectories.iter_mut() {
            name_epoch(t, *epoch);
        }
    }
}

/// Whether the log's samples (instance id and epoch of each read) are named by epoch: the
/// eval ran several, or a sample appears twice, or one is of a later epoch.
fn several_epochs<'a>(header: &Header, samples: impl Iterator<Item = (&'a str, u64)>) -> bool {
    if header.epochs().is_some_and(|e| e > 1) {
        return true;
    }
    let mut per_id: HashMap<&str, usize> = HashMap::new();
    for (id, epoch) in samples {
        let seen = per_id.entry(id).or_default();
        *seen += 1;
        if epoch > 1 || *seen > 1 {
            return true;
        }
    }
    false
}

fn name_epoch(t: &mut Trajectory, epoch: u64) {
    t.instance_id = format!("{}_epoch_{epoch}", t.instance_id);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_archive_read_from_its_file_equals_its_bytes_read_whole() {
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/corpus/inspect-ai/tests/log/test_eval_log");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            eprintln!("skipping: {} is not present", dir.display());
            return;
        };
        let mut seen = 0;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "eval") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let whole = parse(&path, &bytes).map_err(|e| e.to_string());
            let from_file = parse_file(&path).map_err(|e| e.to_string());
            assert_eq!(from_file, whole, "{}", path.display());
            seen += 1;
        }
        assert!(seen > 0);
    }

    fn ids(text: &str) -> Vec<String> {
        parse(Path::new("log.json"), text.as_bytes())
            .unwrap()
            .into_iter()
            .map(|t| t.header.instance_id)
            .collect()
    }

    #[test]
    fn epochs_are_named_only_when_there_are_several() {
        assert_eq!(
            ids(
                r#"{"version": 2, "eval": {}, "samples": [{"id": 1, "epoch": 1}, {"id": 2, "epoch": 1}]}"#
            ),
            ["1", "2"]
        );
        assert_eq!(
            ids(
                r#"{"version": 2, "eval": {}, "samples": [{"id": 1, "epoch": 1}, {"id": 1, "epoch": 2}]}"#
            ),
            ["1_epoch_1", "1_epoch_2"]
        );
        assert_eq!(
            ids(r#"{"eval": {"config": {"epochs": 3}}, "samples": [{"id": "a", "epoch": 1}]}"#),
            ["a_epoch_1"]
        );
    }

    #[test]
    fn no_samples_is_no_trajectory() {
        assert!(
            ids(r#"{"version": 2, "status": "cancelled", "eval": {}, "samples": []}"#).is_empty()
        );
    }

    #[test]
    fn broken_samples_are_reported() {
        let ts = parse(
            Path::new("l.json"),
            br#"{"eval": {}, "samples": [{"id": 1}, "x"]}"#,
        )
        .unwrap();
        assert_eq!(ts.len(), 1);
        assert!(
            ts[0]
                .warnings
                .iter()
                .any(|w| w.starts_with("sample 2: not a JSON object")),
            "{:?}",
            ts[0].warnings
        );
        let err = parse(Path::new("l.json"), br#"{"eval": {}, "samples": ["x"]}"#).unwrap_err();
        assert!(err.to_string().starts_with("l.json: sample 1"), "{err}");
        assert!(parse(Path::new("l.json"), b"{\"eval\": {}, \"samp").is_err());
    }
}
