//! Inspect `.json` logs: one JSON document with the header fields and `samples`.
//!
//! Read in two passes over the bytes: the header first (samples skipped unparsed), then the
//! samples one at a time, each turned into a trajectory before the next is parsed, so a
//! log of many long samples never holds more than one sample's JSON tree.

use super::header::Header;
use super::sample::RawSample;
use crate::formats::LoadError;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;
use std::path::Path;

/// Each sample of the log, in order, as `(sample or why not, ordinal)`.
pub fn read(
    path: &Path,
    bytes: &[u8],
    mut each: impl FnMut(&Header, Result<RawSample, String>, usize),
) -> Result<Header, LoadError> {
    let header: Header =
        serde_json::from_slice(bytes).map_err(|err| LoadError::json(path, &err, 0))?;
    let mut visitor = TopLevel {
        each: &mut |sample, ordinal| each(&header, sample, ordinal),
        samples_not_a_list: false,
    };
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    deserializer
        .deserialize_map(&mut visitor)
        .map_err(|err| LoadError::json(path, &err, 0))?;
    if visitor.samples_not_a_list {
        return Err(LoadError::invalid(
            path,
            "Inspect log whose `samples` is not a list",
        ));
    }
    Ok(header)
}

type EachSample<'a> = dyn FnMut(Result<RawSample, String>, usize) + 'a;

struct TopLevel<'a, 'b> {
    each: &'a mut EachSample<'b>,
    samples_not_a_list: bool,
}

impl<'de> Visitor<'de> for &mut TopLevel<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an Inspect log object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key == "samples" {
                let outcome = map.next_value_seed(Samples {
                    each: &mut *self.each,
                })?;
                self.samples_not_a_list |= !outcome;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

/// The `samples` value: `true` when it was a list (or null), each item handed on as read.
struct Samples<'a, 'b> {
    each: &'a mut EachSample<'b>,
}

impl<'de> DeserializeSeed<'de> for Samples<'_, '_> {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Samples<'_, '_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of samples")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        let mut ordinal = 0;
        while let Some(value) = seq.next_element::<Value>()? {
            let sample = match value {
                Value::Object(_) => {
                    serde_json::from_value::<RawSample>(value).map_err(|e| e.to_string())
                }
                _ => Err("not a JSON object".to_string()),
            };
            (self.each)(sample, ordinal);
            ordinal += 1;
        }
        Ok(true)
    }

    fn visit_unit<E>(self) -> Result<bool, E> {
        Ok(true)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(false)
    }

    fn visit_bool<E>(self, _: bool) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_i64<E>(self, _: i64) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_u64<E>(self, _: u64) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_f64<E>(self, _: f64) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_str<E>(self, _: &str) -> Result<bool, E> {
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(text: &str) -> Result<Vec<String>, LoadError> {
        let mut seen = Vec::new();
        read(
            Path::new("l.json"),
            text.as_bytes(),
            |_, sample, ordinal| {
                seen.push(match sample {
                    Ok(_) => format!("{ordinal}:ok"),
                    Err(why) => format!("{ordinal}:{why}"),
                })
            },
        )?;
        Ok(seen)
    }

    #[test]
    fn samples_arrive_one_by_one_whatever_the_key_order() {
        let text =
            r#"{"samples": [{"id": 1}, 5, {"id": 2}], "version": 2, "eval": {"model": "m"}}"#;
        assert_eq!(
            ids(text).unwrap(),
            vec!["0:ok", "1:not a JSON object", "2:ok"]
        );
        let mut model = None;
        read(Path::new("l.json"), text.as_bytes(), |h, _, _| {
            model = h.model()
        })
        .unwrap();
        assert_eq!(model.as_deref(), Some("m"));
    }

    #[test]
    fn no_samples_is_fine_a_wrong_samples_is_not() {
        assert!(ids(r#"{"version": 2, "eval": {}}"#).unwrap().is_empty());
        assert!(
            ids(r#"{"version": 2, "eval": {}, "samples": null}"#)
                .unwrap()
                .is_empty()
        );
        let err = ids(r#"{"eval": {}, "samples": {"a": 1}}"#).unwrap_err();
        assert!(err.to_string().contains("not a list"), "{err}");
        let err = ids(r#"{"eval": {}, "samples": [{"id": 1}"#).unwrap_err();
        assert!(err.to_string().contains("truncated"), "{err}");
    }
}
