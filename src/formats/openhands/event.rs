//! One OpenHands event as serialized: an action (`action`, `args`) or an observation
//! (`observation`, `content`, `extras`, `cause`), read leniently.
//!
//! Owns the raw shapes and small accessors; turning events into steps is `history.rs`'s job.

use crate::formats::json::{Text, content_text, lenient, str_field, to_text, u64_field};
use crate::model::{ToolCall, Usage};
use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;
use std::fmt;
use std::marker::PhantomData;

/// An event. Every field may be missing or oddly typed in some version of OpenHands.
#[derive(Debug, Deserialize, Default)]
#[serde(default)]
pub struct RawEvent {
    #[serde(deserialize_with = "lenient")]
    pub id: Option<i64>,
    pub timestamp: Option<Text>,
    /// `agent`, `user` or `environment`.
    pub source: Text,
    pub message: Text,
    pub action: Option<Text>,
    pub observation: Option<Text>,
    /// For observations: the id of the action this answers.
    #[serde(deserialize_with = "lenient")]
    pub cause: Option<i64>,
    pub args: Value,
    #[serde(deserialize_with = "object_or_none")]
    pub extras: Option<Extras>,
    pub content: Text,
    #[serde(deserialize_with = "object_or_none")]
    pub tool_call_metadata: Option<ToolCallMetadata>,
    /// Metrics accumulated up to this event (not this event's own).
    pub llm_metrics: Value,
}

/// How an action came out of a function-calling model response.
#[derive(Debug, Deserialize, Default)]
#[serde(default)]
pub struct ToolCallMetadata {
    pub function_name: Text,
    pub tool_call_id: Text,
    /// The whole LLM response (litellm's `ModelResponse`), repeated on every action it
    /// produced and on their observations: kept unparsed until an action needs it.
    pub model_response: Option<Box<RawValue>>,
}

/// What an observation's `extras` say that trajscope reads. Edits carry the whole file
/// before and after in there too; those are skipped unread.
#[derive(Debug, Deserialize, Default)]
#[serde(default)]
pub struct Extras {
    #[serde(deserialize_with = "object_or_none")]
    metadata: Option<CommandMetadata>,
    /// Where versions before 0.2x put it.
    exit_code: Value,
    agent_state: Option<Text>,
}

#[derive(Debug, Deserialize, Default)]
#[serde(default)]
struct CommandMetadata {
    exit_code: Value,
    prefix: Option<Text>,
    suffix: Option<Text>,
}

/// What trajscope reads of a model response (litellm's `ModelResponse`).
#[derive(Debug, Deserialize, Default)]
#[serde(default)]
pub struct ModelResponse {
    id: Text,
    model: Text,
    choices: Value,
    usage: Value,
}

impl ModelResponse {
    /// The id litellm gave the response: the same on every action it produced.
    pub fn id(&self) -> Option<&str> {
        Some(self.id.0.as_str()).filter(|id| !id.is_empty())
    }

    /// The model named in the response (`claude-3-5-sonnet-20241022`).
    pub fn model(&self) -> Option<&str> {
        Some(self.model.0.as_str()).filter(|m| !m.is_empty())
    }

    fn message(&self) -> &Value {
        self.choices.pointer("/0/message").unwrap_or(&Value::Null)
    }

    /// The text the model wrote alongside its tool calls.
    pub fn text(&self) -> String {
        content_text(self.message().get("content").unwrap_or(&Value::Null))
    }

    /// Every tool call of the response, as the model emitted them.
    pub fn tool_calls(&self) -> Vec<ToolCall> {
        self.message()
            .get("tool_calls")
            .map(crate::formats::swe_agent::tool_calls)
            .unwrap_or_default()
    }

    /// Tokens of the call (`usage.prompt_tokens`, `completion_tokens`).
    pub fn usage(&self) -> Usage {
        Usage {
            tokens_in: u64_field(&self.usage, "prompt_tokens"),
            tokens_out: u64_field(&self.usage, "completion_tokens"),
            ..Usage::default()
        }
    }
}

/// An object read as `T`; anything else (a string, a list, …) as `None`. Streams the
/// object: `tool_call_metadata` carries the whole model response, on every event.
fn object_or_none<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct ObjectOrNone<T>(PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectOrNone<T> {
        type Value = Option<T>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Option<T>, A::Error> {
            T::deserialize(MapAccessDeserializer::new(map)).map(Some)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<T>, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        fn visit_bool<E>(self, _: bool) -> Result<Option<T>, E> {
            Ok(None)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Option<T>, E> {
            Ok(None)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Option<T>, E> {
            Ok(None)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Option<T>, E> {
            Ok(None)
        }
        fn visit_str<E>(self, _: &str) -> Result<Option<T>, E> {
            Ok(None)
        }
        fn visit_unit<E>(self) -> Result<Option<T>, E> {
            Ok(None)
        }
    }
    deserializer.deserialize_any(ObjectOrNone(PhantomData))
}

impl RawEvent {
    pub fn action(&self) -> Option<&str> {
        self.action
            .as_ref()
            .map(|t| t.0.as_str())
            .filter(|a| !a.is_empty())
    }

    pub fn observation(&self) -> Option<&str> {
        self.observation
            .as_ref()
            .map(|t| t.0.as_str())
            .filter(|o| !o.is_empty())
    }

    pub fn timestamp(&self) -> Option<&str> {
        self.timestamp
            .as_ref()
            .map(|t| t.0.as_str())
            .filter(|t| !t.is_empty())
    }

    pub fn arg(&self, key: &str) -> Option<&str> {
        str_field(&self.args, key)
    }

    /// An argument as text whatever its JSON type; empty when missing or null.
    pub fn arg_text(&self, key: &str) -> String {
        self.args.get(key).map(to_text).unwrap_or_default()
    }

    pub fn function_name(&self) -> Option<&str> {
        self.tool_call_metadata
            .as_ref()
            .map(|m| m.function_name.0.as_str())
            .filter(|n| !n.is_empty())
    }

    pub fn tool_call_id(&self) -> Option<&str> {
        self.tool_call_metadata
            .as_ref()
            .map(|m| m.tool_call_id.0.as_str())
            .filter(|n| !n.is_empty())
    }

    /// The model response behind this action, when logged and readable.
    pub fn response(&self) -> Option<ModelResponse> {
        let raw = self.tool_call_metadata.as_ref()?.model_response.as_ref()?;
        serde_json::from_str(raw.get()).ok()
    }

    /// The command's exit code: `extras.metadata.exit_code` (0.2x+) or `extras.exit_code`.
    pub fn exit_code(&self) -> Option<i64> {
        let extras = self.extras.as_ref()?;
        let code = extras
            .metadata
            .as_ref()
            .map(|m| &m.exit_code)
            .filter(|c| !c.is_null())
            .unwrap_or(&extras.exit_code);
        code.as_i64().or_else(|| code.as_f64().map(|f| f as i64))
    }

    /// What the model read for this observation: the content framed by the command
    /// prefix/suffix OpenHands adds (`[The command completed with exit code 0.]`).
    pub fn observation_for_model(&self) -> String {
        let metadata = self.extras.as_ref().and_then(|e| e.metadata.as_ref());
        let prefix = metadata
            .and_then(|m| m.prefix.as_ref())
            .map_or("", |t| t.0.as_str());
        let suffix = metadata
            .and_then(|m| m.suffix.as_ref())
            .map_or("", |t| t.0.as_str());
        format!("{prefix}{}{suffix}", self.content.0)
    }

    /// The agent state an `agent_state_changed` observation or `change_agent_state` action
    /// announces.
    pub fn agent_state(&self) -> Option<&str> {
        match (self.action(), self.observation()) {
            (Some("change_agent_state"), _) => self.arg("agent_state"),
            (_, Some("agent_state_changed")) => self
                .extras
                .as_ref()?
                .agent_state
                .as_ref()
                .map(|s| s.0.as_str()),
            _ => None,
        }
    }
}

/// Accumulated cost and tokens as of an event (`llm_metrics`, or an instance's `metrics`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Accumulated {
    pub cost: f64,
    pub tokens_in: u64,
    pub tokens_out: u64,
}

impl Accumulated {
    pub fn of(metrics: &Value) -> Option<Accumulated> {
        if !metrics.is_object() {
            return None;
        }
        let tokens = metrics
            .get("accumulated_token_usage")
            .unwrap_or(&Value::Null);
        Some(Accumulated {
            cost: metrics
                .get("accumulated_cost")
                .and_then(Value::as_f64)
                .unwrap_or(0.0),
            tokens_in: u64_field(tokens, "prompt_tokens").unwrap_or(0),
            tokens_out: u64_field(tokens, "completion_tokens").unwrap_or(0),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn odd_fields_do_not_lose_the_event() {
        let event: RawEvent = serde_json::from_str(
            &json!({
                "id": "7", "cause": null, "source": 3, "action": "run",
                "tool_call_metadata": "broken", "args": {"command": "ls"}, "extras": [1]
            })
            .to_string(),
        )
        .unwrap();
        assert!(event.extras.is_none());
        assert_eq!(event.id, None);
        assert_eq!(event.source.0, "3");
        assert!(event.tool_call_metadata.is_none());
        assert_eq!(event.arg("command"), Some("ls"));
    }

    #[test]
    fn response_parts() {
        let event: RawEvent = serde_json::from_str(&json!({
            "action": "run",
            "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": "t1", "model_response": {
                "id": "r1", "model": "m",
                "choices": [{"message": {"content": "I look", "tool_calls": [
                    {"id": "t1", "type": "function", "function": {"name": "execute_bash", "arguments": "{\"command\": \"ls\"}"}}
                ]}}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 2}
            }},
            "extras": {"metadata": {"exit_code": 2, "suffix": "\n[exit 2]"}},
            "content": "out"
        })
        .to_string())
        .unwrap();
        let response = event.response().unwrap();
        assert_eq!(response.id(), Some("r1"));
        assert_eq!(response.model(), Some("m"));
        assert_eq!(response.text(), "I look");
        assert_eq!(
            response.tool_calls()[0].argument("command").as_deref(),
            Some("ls")
        );
        assert_eq!(response.usage().tokens_in, Some(10));
        assert_eq!(event.exit_code(), Some(2));
        assert_eq!(event.observation_for_model(), "out\n[exit 2]");
    }
}
