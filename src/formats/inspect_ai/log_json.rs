//! Inspect `.json` logs: one JSON document with the header fields and `samples`.
//!
//! Read in two passes over the bytes: the header first (samples skipped unparsed), then the
//! place of each sample in the bytes (no copy, no tree). Each sample is parsed on its own
//! when its trajectory is built, so a log of many long samples never holds more than the
//! JSON trees of the samples being read.

use super::header::Header;
use super::sample::RawSample;
use crate::formats::LoadError;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::fmt;
use std::path::Path;

/// The header and the raw JSON of each sample, in order.
pub fn open<'a>(path: &Path, bytes: &'a [u8]) -> Result<(Header, Vec<&'a RawValue>), LoadError> {
    let header: Header =
        serde_json::from_slice(bytes).map_err(|err| LoadError::json(path, &err, 0))?;
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let samples = deserializer
        .deserialize_map(TopLevel)
        .map_err(|err| LoadError::json(path, &err, 0))?;
    match samples {
        Some(samples) => Ok((header, samples)),
        None => Err(LoadError::invalid(
            path,
            "Inspect log whose `samples` is not a list",
        )),
    }
}

/// One sample, parsed, its long lists borrowed from the log's text.
pub fn sample(raw: &RawValue) -> Result<RawSample<&RawValue>, String> {
    if !raw.get().starts_with('{') {
        return Err("not a JSON object".into());
    }
    serde_json::from_str(raw.get()).map_err(|err| err.to_string())
}

/// The top-level object: `Some(samples)` (none when absent or null), `None` when
/// `samples` is not a list.
struct TopLevel;

impl<'de> Visitor<'de> for TopLevel {
    type Value = Option<Vec<&'de RawValue>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an Inspect log object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut samples = Some(Vec::new());
        while let Some(key) = map.next_key::<String>()? {
            if key == "samples" {
                samples = map.next_value_seed(SampleList)?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(samples)
    }
}

/// The `samples` value: its items unparsed when it is a list (or empty when null).
struct SampleList;

impl<'de> DeserializeSeed<'de> for SampleList {
    type Value = Option<Vec<&'de RawValue>>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for SampleList {
    type Value = Option<Vec<&'de RawValue>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of samples")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut samples = Vec::new();
        while let Some(raw) = seq.next_element::<&'de RawValue>()? {
            samples.push(raw);
        }
        Ok(Some(samples))
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Some(Vec::new()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcomes(text: &str) -> Result<Vec<String>, LoadError> {
        let (_, samples) = open(Path::new("l.json"), text.as_bytes())?;
        Ok(samples
            .into_iter()
            .map(|raw| match sample(raw) {
                Ok(s) => format!("ok:{}", s.epoch.unwrap_or(0)),
                Err(why) => why,
            })
            .collect())
    }

    #[test]
    fn samples_are_found_whatever_the_key_order() {
        let text = r#"{"samples": [{"id": 1, "epoch": 1}, 5, {"id": 2, "epoch": 2}], "version": 2, "eval": {"model": "m"}}"#;
        assert_eq!(
            outcomes(text).unwrap(),
            ["ok:1", "not a JSON object", "ok:2"]
        );
        let (header, _) = open(Path::new("l.json"), text.as_bytes()).unwrap();
        assert_eq!(header.model().as_deref(), Some("m"));
    }

    #[test]
    fn no_samples_is_fine_a_wrong_samples_is_not() {
        assert!(
            outcomes(r#"{"version": 2, "eval": {}}"#)
                .unwrap()
                .is_empty()
        );
        assert!(
            outcomes(r#"{"version": 2, "eval": {}, "samples": null}"#)
                .unwrap()
                .is_empty()
        );
        let err = outcomes(r#"{"eval": {}, "samples": {"a": 1}}"#).unwrap_err();
        assert!(err.to_string().contains("not a list"), "{err}");
        let err = outcomes(r#"{"eval": {}, "samples": [{"id": 1}"#).unwrap_err();
        assert!(err.to_string().contains("truncated"), "{err}");
    }
}
