//! Inspect `.eval` logs: a zip archive of `header.json` (written when the eval ends),
//! `_journal/start.json` (written when it starts), `samples/<id>_epoch_<n>.json` (one per
//! sample and epoch), `summaries.json` and `reductions.json`.
//!
//! Samples are decompressed and read one at a time, in (id, epoch) order.

use super::header::Header;
use super::sample::RawSample;
use crate::formats::LoadError;
use std::cmp::Ordering;
use std::io::{Cursor, Read};
use std::path::Path;
use zip::ZipArchive;

/// No entry of a log is read past this size: a broken or hostile archive must not take
/// all memory. Real sample files are well below it.
const ENTRY_LIMIT: u64 = 2 << 30;

/// The header and the sample entries, in (id, epoch) order.
pub fn open<'a>(path: &Path, bytes: &'a [u8]) -> Result<(Header, Samples<'a>), LoadError> {
    let mut archive = ZipArchive::new(Cursor::new(bytes))
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
    Ok((header, Samples { archive, names }))
}

/// The sample entries of an archive, read one by one (from any thread) when asked.
pub struct Samples<'a> {
    archive: ZipArchive<Cursor<&'a [u8]>>,
    names: Vec<String>,
}

impl Samples<'_> {
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// The `ordinal`-th sample, decompressed and parsed.
    pub fn read(&self, ordinal: usize) -> Result<RawSample, String> {
        let name = self.names.get(ordinal).ok_or("no such sample")?;
        // A clone shares the archive's index and has a cursor of its own.
        let bytes = entry(&mut self.archive.clone(), name)?;
        serde_json::from_slice::<RawSample>(&bytes).map_err(|err| format!("{name}: {err}"))
    }
}

fn entry(archive: &mut ZipArchive<Cursor<&[u8]>>, name: &str) -> Result<Vec<u8>, String> {
    let file = archive
        .by_name(name)
        .map_err(|err| format!("{name}: {err}"))?;
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
        let (header, samples) = open(Path::new("x.eval"), bytes)?;
        let seen = (0..samples.len())
            .map(|i| match samples.read(i) {
                Ok(s) => format!("{i}:{}", s.epoch.unwrap_or(0)),
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
