//! What the reader uses of a message's `extra` and of the file's `info`, picked member by
//! member while serde reads them: every other member (a tool message's `raw_output`, the
//! assistant's `actions` and `response.choices`, `info.config`'s templates…) is crossed by
//! serde without being built. They were read into `serde_json::Value` trees and dropped: a
//! third of a tool-calling file's bytes.
//!
//! Read as a `Value` was read, so that the reader's tests give the same answers: any shape
//! is accepted (a member that is not an object reads as one without members, as `get` on a
//! `Value` found nothing in it), a repeated member's last value wins, and the members that
//! are read are kept as JSON values (a `cost` written as a string, a `timestamp` of any kind,
//! a `null` that stops a fallback). What a `Value` would have refused inside a skipped member
//! (bytes that are not UTF-8, a lone surrogate escape) is no longer seen.

use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;
use std::fmt;
use std::marker::PhantomData;

/// An object whose members of [`Pick::KEYS`] are kept, read from any JSON (see the module doc).
pub(super) trait Pick: Default {
    const KEYS: &'static [&'static str];
    /// Reads the value of the member `KEYS[key]`.
    fn pick<'de, A: MapAccess<'de>>(&mut self, key: usize, map: &mut A) -> Result<(), A::Error>;
}

/// A [`Pick`] read from any JSON.
#[derive(Debug, Default)]
pub(super) struct Picked<T>(pub T);

impl<'de, T: Pick> Deserialize<'de> for Picked<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(PickVisitor(PhantomData))
    }
}

struct PickVisitor<T>(PhantomData<T>);

impl<'de, T: Pick> Visitor<'de> for PickVisitor<T> {
    type Value = Picked<T>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Picked<T>, A::Error> {
        let mut picked = T::default();
        while let Some(key) = map.next_key_seed(KeyOf(T::KEYS))? {
            match key {
                Some(key) => picked.pick(key, &mut map)?,
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Picked(picked))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Picked<T>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Picked::default())
    }
    fn visit_bool<E>(self, _: bool) -> Result<Picked<T>, E> {
        Ok(Picked::default())
    }
    fn visit_i64<E>(self, _: i64) -> Result<Picked<T>, E> {
        Ok(Picked::default())
    }
    fn visit_u64<E>(self, _: u64) -> Result<Picked<T>, E> {
        Ok(Picked::default())
    }
    fn visit_f64<E>(self, _: f64) -> Result<Picked<T>, E> {
        Ok(Picked::default())
    }
    fn visit_str<E>(self, _: &str) -> Result<Picked<T>, E> {
        Ok(Picked::default())
    }
    fn visit_unit<E>(self) -> Result<Picked<T>, E> {
        Ok(Picked::default())
    }
    fn visit_none<E>(self) -> Result<Picked<T>, E> {
        Ok(Picked::default())
    }
}

/// A member's key: its place in the keys picked, or `None` for any other, read without
/// allocating.
struct KeyOf(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for KeyOf {
    type Value = Option<usize>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for KeyOf {
    type Value = Option<usize>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E>(self, key: &str) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|k| *k == key))
    }
}

/// A message's `extra`: what steps, rejected replies and the exit read.
#[derive(Debug, Default)]
pub(super) struct Extra {
    pub timestamp: Option<Value>,
    pub cost: Option<Value>,
    pub response: Option<Picked<Response>>,
    pub model_response: Option<Value>,
    pub exit_status: Option<Value>,
    pub submission: Option<Value>,
    pub interrupt_type: Option<Value>,
}

impl Pick for Extra {
    const KEYS: &'static [&'static str] = &[
        "timestamp",
        "cost",
        "response",
        "model_response",
        "exit_status",
        "submission",
        "interrupt_type",
    ];
    fn pick<'de, A: MapAccess<'de>>(&mut self, key: usize, map: &mut A) -> Result<(), A::Error> {
        match key {
            0 => self.timestamp = Some(map.next_value()?),
            1 => self.cost = Some(map.next_value()?),
            2 => self.response = Some(map.next_value()?),
            3 => self.model_response = Some(map.next_value()?),
            4 => self.exit_status = Some(map.next_value()?),
            5 => self.submission = Some(map.next_value()?),
            _ => self.interrupt_type = Some(map.next_value()?),
        }
        Ok(())
    }
}

/// `extra.response`: its usage, and its `choices` kept as they were written, read only for
/// a rejected reply (on an answer they copy the message).
#[derive(Debug, Default)]
pub(super) struct Response {
    pub usage: Option<Value>,
    pub choices: Option<Box<RawValue>>,
}

impl Pick for Response {
    const KEYS: &'static [&'static str] = &["usage", "choices"];
    fn pick<'de, A: MapAccess<'de>>(&mut self, key: usize, map: &mut A) -> Result<(), A::Error> {
        match key {
            0 => self.usage = Some(map.next_value()?),
            _ => self.choices = Some(map.next_value()?),
        }
        Ok(())
    }
}

impl Extra {
    /// `response.usage`, as `Value::pointer` finds it.
    pub fn response_usage(&self) -> Option<&Value> {
        self.response.as_ref()?.0.usage.as_ref()
    }

    /// `response.choices[0].message`, as `Value::pointer("/response/choices/0/message")`
    /// finds it.
    pub fn response_message(&self) -> Option<Value> {
        let raw = self.response.as_ref()?.0.choices.as_ref()?;
        let mut choices: Value = serde_json::from_str(raw.get()).ok()?;
        choices.pointer_mut("/0/message").map(Value::take)
    }
}

/// The file's `info`: the exit, the cost, the model.
#[derive(Debug, Default)]
pub(super) struct Info {
    pub exit_status: Option<Value>,
    pub submission: Option<Value>,
    pub model_stats: Option<Value>,
    pub config: Option<Picked<Config>>,
}

impl Pick for Info {
    const KEYS: &'static [&'static str] = &["exit_status", "submission", "model_stats", "config"];
    fn pick<'de, A: MapAccess<'de>>(&mut self, key: usize, map: &mut A) -> Result<(), A::Error> {
        match key {
            0 => self.exit_status = Some(map.next_value()?),
            1 => self.submission = Some(map.next_value()?),
            2 => self.model_stats = Some(map.next_value()?),
            _ => self.config = Some(map.next_value()?),
        }
        Ok(())
    }
}

#[derive(Debug, Default)]
pub(super) struct Config {
    pub model: Option<Picked<ModelConfig>>,
}

impl Pick for Config {
    const KEYS: &'static [&'static str] = &["model"];
    fn pick<'de, A: MapAccess<'de>>(&mut self, _: usize, map: &mut A) -> Result<(), A::Error> {
        self.model = Some(map.next_value()?);
        Ok(())
    }
}

#[derive(Debug, Default)]
pub(super) struct ModelConfig {
    pub model_name: Option<Value>,
}

impl Pick for ModelConfig {
    const KEYS: &'static [&'static str] = &["model_name"];
    fn pick<'de, A: MapAccess<'de>>(&mut self, _: usize, map: &mut A) -> Result<(), A::Error> {
        self.model_name = Some(map.next_value()?);
        Ok(())
    }
}

impl Info {
    /// `config.model.model_name`, as `Value::pointer` finds it.
    pub fn model_name(&self) -> Option<&Value> {
        self.config
            .as_ref()?
            .0
            .model
            .as_ref()?
            .0
            .model_name
            .as_ref()
    }

    /// The members `swe_agent::read_exit_and_submission` reads, as the object it reads.
    pub fn exit_and_submission(&self) -> Value {
        let mut object = serde_json::Map::new();
        for (key, value) in [
            ("exit_status", &self.exit_status),
            ("submission", &self.submission),
        ] {
            if let Some(value) = value {
                object.insert(key.to_string(), value.clone());
            }
        }
        Value::Object(object)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Odd shapes real or broken logs may hold: each picked member read as `Value::get` and
    /// `Value::pointer` read it from the whole `Value`.
    fn extras() -> Vec<Value> {
        vec![
            json!(null),
            json!("text"),
            json!([1, {"cost": 2}]),
            json!(3.5),
            json!({}),
            json!({"timestamp": null, "cost": "0.25", "raw_output": "x".repeat(100)}),
            json!({"timestamp": {"a": 1}, "cost": [1], "response": "no object"}),
            json!({"response": {"usage": null}, "model_response": {"usage": {"prompt_tokens": 3}}}),
            json!({"response": {"choices": {"0": {"message": "keyed"}}}}),
            json!({"response": {"choices": [{"message": {"content": "hi"}}, 2]}}),
            json!({"response": {"choices": [[1]]}}),
            json!({"response": [1, 2], "model_response": null}),
            json!({"model_response": "plain", "exit_status": 1, "submission": null}),
            json!({"exit_status": "Submitted", "submission": "diff", "interrupt_type": "FormatError"}),
        ]
    }

    #[test]
    fn picked_members_read_as_the_value_reads_them() {
        for value in extras() {
            let text = serde_json::to_string(&value).unwrap();
            // From the bytes (the whole read) and from a `Value` (the bounded read).
            let from_bytes: Picked<Extra> = serde_json::from_str(&text).unwrap();
            let from_value: Picked<Extra> = serde_json::from_value(value.clone()).unwrap();
            for Picked(extra) in [from_bytes, from_value] {
                assert_eq!(extra.timestamp.as_ref(), value.get("timestamp"), "{text}");
                assert_eq!(extra.cost.as_ref(), value.get("cost"), "{text}");
                assert_eq!(
                    extra.response_usage(),
                    value.pointer("/response/usage"),
                    "{text}"
                );
                assert_eq!(
                    extra.response_message().as_ref(),
                    value.pointer("/response/choices/0/message"),
                    "{text}"
                );
                for (key, picked) in [
                    ("model_response", &extra.model_response),
                    ("exit_status", &extra.exit_status),
                    ("submission", &extra.submission),
                    ("interrupt_type", &extra.interrupt_type),
                ] {
                    assert_eq!(picked.as_ref(), value.get(key), "{key} of {text}");
                }
            }
        }
    }

    #[test]
    fn a_repeated_member_keeps_its_last_value_as_a_value_does() {
        let text = r#"{"cost": 1, "response": {"usage": 1, "usage": {"n": 2}}, "cost": "3"}"#;
        let value: Value = serde_json::from_str(text).unwrap();
        let Picked(extra) = serde_json::from_str::<Picked<Extra>>(text).unwrap();
        assert_eq!(extra.cost.as_ref(), value.get("cost"));
        assert_eq!(extra.cost, Some(json!("3")));
        assert_eq!(extra.response_usage(), value.pointer("/response/usage"));
    }

    #[test]
    fn info_reads_the_model_and_the_exit_as_the_value_does() {
        for value in [
            json!(null),
            json!([]),
            json!({"config": [1]}),
            json!({"config": {"model": "name"}}),
            json!({"config": {"model": {"model_name": 7}}, "exit_status": null}),
            json!({"config": {"agent": {"x": 1}, "model": {"model_name": "m", "kw": {}}},
                   "model_stats": {"instance_cost": "0.5"}, "submission": "p", "mini_version": "1"}),
        ] {
            let Picked(info) = serde_json::from_value::<Picked<Info>>(value.clone()).unwrap();
            assert_eq!(
                info.model_name(),
                value.pointer("/config/model/model_name"),
                "{value}"
            );
            assert_eq!(info.model_stats.as_ref(), value.get("model_stats"));
            let exit = info.exit_and_submission();
            for key in ["exit_status", "submission"] {
                assert_eq!(exit.get(key), value.get(key), "{key} of {value}");
            }
        }
    }
}
