//! Inspect `.eval` logs: a zip archive of `header.json` (written when the eval ends),
//! `_journal/start.json` (written when it starts), `samples/<id>_epoch_<n>.json` (one per
//! sample and epoch), `summaries.json` and `reductions.json`.
//!
//! Samples are decompressed and read one at a time, in (id, epoch) order; a big one is
//! parsed as it is decompressed, never held inflated (its messages and events kept as their
//! JSON texts), and one bigger than the memory budget is refused with its name. An archive on disk is read at positions ([`Source`]), never
//! held whole.

use super::header::Header;
use super::sample::{self, RawSample};
use super::source::Source;
use crate::formats::LoadError;
use crate::model::Trajectory;
use serde_json::value::RawValue;
use std::cmp::Ordering;
use std::io::{BufReader, Cursor, Read};
use std::path::Path;
use zip::ZipArchive;
use zip::read::ZipFile;

/// Samples bigger than this (uncompressed) are parsed as they are decompressed.
const STREAM_ABOVE: u64 = 64 << 20;

/// No entry of a log is read past this size: a broken or hostile archive must not take
/// all memory. Real sample files are well below it.
const ENTRY_LIMIT: u64 = 2 << 30;

/// The header and the sample entries, in (id, epoch) order.
pub fn open<'a>(path: &Path, bytes: &'a [u8]) -> Result<(Header, Samples<'a>), LoadError> {
    open_source(path, Source::Bytes(Cursor::new(bytes)), STREAM_ABOVE)
}

/// [`open`] on the file at `path`, read at positions.
pub fn open_file(path: &Path) -> Result<(Header, Samples<'static>), LoadError> {
    let file = std::fs::File::open(path).map_err(|err| LoadError::io(path, err))?;
    let source = Source::file(file).map_err(|err| LoadError::io(path, err))?;
    open_source(path, source, STREAM_ABOVE)
}

fn open_source<'a>(
    path: &Path,
    source: Source<'a>,
    stream_above: u64,
) -> Result<(Header, Samples<'a>), LoadError> {
    let mut archive = ZipArchive::new(source)
        .map_err(|err| LoadError::invalid(path, format!("not a readable zip archive ({err})")))?;
    let names: Vec<String> = archive
        .file_names()
        .filter_map(Result::ok)
        .map(|n| n.into_owned())
        .collect();
    let header_name = ["header.json", "_journal/start.json"]
        .into_iter()
        .find(|n| names.iter().any(|m| m == n))
        .ok_or_else(|| {
            LoadError::unrecognized(
                path,
                "a zip archive without header.json or _journal/start.json, not an Inspect log",
            )
        })?;
    let header_bytes =
        entry(&mut archive, header_name).map_err(|why| LoadError::invalid(path, why))?;
    let mut header: Header = serde_json::from_slice(&header_bytes)
        .map_err(|err| LoadError::invalid(path, format!("{header_name}: {err}")))?;
    if header.status.is_none() && header_name != "header.json" {
        header.status = Some(crate::formats::json::Text("started".into()));
    }
    let mut names: Vec<String> = names
        .into_iter()
        .filter(|n| n.starts_with("samples/") && n.ends_with(".json"))
        .collect();
    names.sort_by(|a, b| sample_order(a, b));
    Ok((
        header,
        Samples {
            archive,
            names,
            stream_above,
        },
    ))
}

/// The sample entries of an archive, read one by one (from any thread) when asked.
pub struct Samples<'a> {
    archive: ZipArchive<Source<'a>>,
    names: Vec<String>,
    /// Samples bigger than this are parsed as they are decompressed.
    stream_above: u64,
}

impl Samples<'_> {
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// The trajectory of the `ordinal`-th sample, decompressed and parsed, and its epoch.
    pub fn trajectory(
        &self,
        ordinal: usize,
        path: &Path,
        header: &Header,
        detail: &str,
    ) -> Result<(Trajectory, Option<u64>), String> {
        let name = self.names.get(ordinal).ok_or("no such sample")?;
        match self.read(ordinal)? {
            Entry::Parsed(raw) => {
                let epoch = raw.epoch;
                Ok((
                    sample::trajectory(path, header, detail, *raw, ordinal),
                    epoch,
                ))
            }
            Entry::Text(bytes) => {
                let raw: RawSample<&RawValue> =
                    serde_json::from_slice(&bytes).map_err(|err| format!("{name}: {err}"))?;
                let epoch = raw.epoch;
                Ok((
                    sample::trajectory(path, header, detail, raw, ordinal),
                    epoch,
                ))
            }
        }
    }

    /// The `ordinal`-th sample, decompressed (and parsed when it is big).
    fn read(&self, ordinal: usize) -> Result<Entry, String> {
        let name = self.names.get(ordinal).ok_or("no such sample")?;
        // A clone shares the archive's index and has a cursor of its own.
        let mut archive = self.archive.clone();
        let file = archive
            .by_name(name)
            .map_err(|err| format!("{name}: {err}"))?;
        if file.size() > self.stream_above {
            fits(name, file.size())?;
            let reader = BufReader::with_capacity(1 << 20, file.take(ENTRY_LIMIT));
            return serde_json::from_reader(reader)
                .map(|raw| Entry::Parsed(Box::new(raw)))
                .map_err(|err| format!("{name}: {err}"));
        }
        read_entry(file, name).map(Entry::Text)
    }
}

/// A sample entry as read: its text, or (a big one) parsed as it was decompressed, its long
/// lists copied out as texts since the text they would borrow from is never held whole.
enum Entry {
    Text(Vec<u8>),
    Parsed(Box<RawSample<Box<RawValue>>>),
}

/// `Err` naming the sample when its `size` uncompressed bytes cannot be parsed within the
/// memory budget (its parsed tree takes more than its text).
fn fits(name: &str, size: u64) -> Result<(), String> {
    match crate::formats::memory_budget() {
        Some(budget) if size > budget => Err(format!(
            "{name}: {size} bytes uncompressed, more than the memory budget of {budget} \
             bytes ({}); not read",
            crate::formats::BUDGET_ENV
        )),
        _ => Ok(()),
    }
}

fn entry(archive: &mut ZipArchive<Source<'_>>, name: &str) -> Result<Vec<u8>, String> {
    let file = archive
        .by_name(name)
        .map_err(|err| format!("{name}: {err}"))?;
    read_entry(file, name)
}

fn read_entry<R: Read>(file: ZipFile<'_, R>, name: &str) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::with_capacity(file.size().min(64 << 20) as usize);
    file.take(ENTRY_LIMIT)
        .read_to_end(&mut bytes)
        .map_err(|err| format!("{name}: {err}"))?;
    if bytes.len() as u64 >= ENTRY_LIMIT {
        return Err(format!("{name}: larger than {} GiB", ENTRY_LIMIT >> 30));
    }
    Ok(bytes)
}

/// `samples/2_epoch_1.json` before `samples/10_epoch_1.json`: numeric ids as numbers, then
/// by epoch.
fn sample_order(a: &str, b: &str) -> Ordering {
    let key = |name: &str| {
        let stem = name
            .trim_start_matches("samples/")
            .trim_end_matches(".json");
        let (id, epoch) = stem.rsplit_once("_epoch_").unwrap_or((stem, "0"));
        (
            id.parse::<u64>().ok(),
            id.to_string(),
            epoch.parse::<u64>().unwrap_or(0),
        )
    };
    let (a, b) = (key(a), key(b));
    match (a.0, b.0) {
        (Some(x), Some(y)) => x.cmp(&y).then(a.2.cmp(&b.2)),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.1.cmp(&b.1).then(a.2.cmp(&b.2)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use zip::write::SimpleFileOptions;

    fn archive(entries: &[(&str, &str)]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        for (name, text) in entries {
            zip.start_file(*name, SimpleFileOptions::default()).unwrap();
            zip.write_all(text.as_bytes()).unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    fn read_all(bytes: &[u8]) -> Result<(Header, Vec<String>), LoadError> {
        let path = Path::new("x.eval");
        let (header, samples) = open(path, bytes)?;
        let seen = (0..samples.len())
            .map(|i| match samples.trajectory(i, path, &header, "eval") {
                Ok((_, epoch)) => format!("{i}:{}", epoch.unwrap_or(0)),
                Err(e) => format!("{i}:{e}"),
            })
            .collect();
        Ok((header, seen))
    }

    #[test]
    fn samples_in_id_and_epoch_order() {
        let bytes = archive(&[
            (
                "_journal/start.json",
                r#"{"version": 2, "eval": {"model": "m"}}"#,
            ),
            ("samples/10_epoch_1.json", r#"{"id": 10, "epoch": 1}"#),
            ("samples/2_epoch_2.json", r#"{"id": 2, "epoch": 2}"#),
            ("samples/2_epoch_1.json", r#"{"id": 2, "epoch": 1}"#),
            ("samples/bad_epoch_1.json", "{not json"),
            (
                "header.json",
                r#"{"version": 2, "status": "success", "eval": {"model": "m"}}"#,
            ),
        ]);
        let (header, seen) = read_all(&bytes).unwrap();
        assert_eq!(header.status.map(|s| s.0).as_deref(), Some("success"));
        assert_eq!(seen[..3], ["0:1", "1:2", "2:1"]);
        assert!(
            seen[3].starts_with("3:samples/bad_epoch_1.json: key must be a string"),
            "{seen:?}"
        );
    }

    #[test]
    fn a_running_eval_has_only_its_journal() {
        let bytes = archive(&[(
            "_journal/start.json",
            r#"{"version": 2, "eval": {"model": "m"}}"#,
        )]);
        let (header, seen) = read_all(&bytes).unwrap();
        assert_eq!(header.status.map(|s| s.0).as_deref(), Some("started"));
        assert!(seen.is_empty());
    }

    /// Every sample of `bytes` as a trajectory (or why not), read from memory whole and
    /// from a file as it decompresses.
    fn both_ways(bytes: &[u8]) -> (Vec<String>, Vec<String>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.eval");
        std::fs::write(&path, bytes).unwrap();
        let file = Source::file(std::fs::File::open(&path).unwrap()).unwrap();
        let streamed = open_source(&path, file, 0).unwrap();
        let whole = open(&path, bytes).unwrap();
        let all = |(header, samples): &(Header, Samples)| {
            let detail = header.detail("eval");
            (0..samples.len())
                .map(|i| match samples.trajectory(i, &path, header, &detail) {
                    Ok((t, _)) => serde_json::to_string(&t).unwrap(),
                    Err(e) => e,
                })
                .collect::<Vec<_>>()
        };
        (all(&streamed), all(&whole))
    }

    #[test]
    fn samples_parsed_as_they_decompress_equal_those_read_whole() {
        let log = "tests/test_module.py::test_case PASSED\n".repeat(20_000);
        let big = serde_json::json!({
            "id": 1, "epoch": 1,
            "messages": [{"role": "user", "content": "fix it"},
                         {"role": "tool", "content": log}],
            "attachments": {"a": "b"}
        })
        .to_string();
        let bytes = archive(&[
            (
                "header.json",
                r#"{"version": 2, "status": "success", "eval": {"model": "m"}}"#,
            ),
            ("samples/1_epoch_1.json", &big),
            ("samples/2_epoch_1.json", r#"{"id": 2, "epoch": 1}"#),
            (
                "samples/3_epoch_1.json",
                r#"{"id": 3, "epoch": 1, "messages": [tor"#,
            ),
        ]);
        let (streamed, whole) = both_ways(&bytes);
        assert_eq!(streamed.len(), 3);
        assert!(streamed[..2] == whole[..2]);
        assert!(streamed[0].contains("test_case PASSED"));
        assert!(
            streamed[2].contains("samples/3_epoch_1.json"),
            "{}",
            streamed[2]
        );
        // The corpus's archives, when present.
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/corpus/inspect-ai/tests/log/test_eval_log");
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            if entry.path().extension().is_some_and(|e| e == "eval") {
                let bytes = std::fs::read(entry.path()).unwrap();
                let (streamed, whole) = both_ways(&bytes);
                assert!(streamed == whole, "{}", entry.path().display());
            }
        }
    }

    #[test]
    fn other_zips_and_broken_zips_are_errors() {
        let err = read_all(&archive(&[("readme.txt", "hi")])).unwrap_err();
        assert!(err.to_string().contains("not an Inspect log"), "{err}");
        let mut bytes = archive(&[("header.json", "{}")]);
        bytes.truncate(bytes.len() / 2);
        assert!(read_all(&bytes).is_err());
        assert!(read_all(b"PK\x03\x04garbage").is_err());
    }
}
