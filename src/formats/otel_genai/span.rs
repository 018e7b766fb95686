//! One span kept as a compact record: what [`super::read_trace`] reads of it, taken out of
//! its OTLP value tree as soon as the span is read, so that a trace waiting for its last
//! spans holds texts, not JSON values. A chat span's input repeats the conversation so far
//! (every request resends the history): its messages are kept once per trace, in the
//! trace's [`Pool`], and each span keeps their numbers.

use super::attributes::{Attrs, nanos};
use super::parts_text;
use crate::formats::json::{content_text, str_field};
use crate::model::ToolCall;
use serde_json::Value;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

/// A span, flattened out of its resource and scope.
pub struct Span {
    pub start: u64,
    pub end: u64,
    pub name: String,
    pub op: Op,
    /// `error.type`, or the status message of a span whose status is ERROR.
    pub error: Option<String>,
}

/// What a span does, by `gen_ai.operation.name`.
pub enum Op {
    /// `chat`, `text_completion`, `generate_content`: one model step.
    Chat(Box<Chat>),
    /// `execute_tool`: the answer to a call.
    Tool(Box<Tool>),
    /// `invoke_agent`, `create_agent`: the agent's name.
    Agent(Option<String>),
}

/// A model call: its input as message numbers in the trace's pool, its output's parts.
pub struct Chat {
    /// `gen_ai.system_instructions`, as a message of the pool.
    pub system: Option<u32>,
    /// `gen_ai.input.messages`, in order ([`OTHER`] for roles the reader skips).
    pub input: Vec<u32>,
    /// How many output messages there were (the conversation grows by that many).
    pub outputs: usize,
    pub parts: Vec<Part>,
    /// The response model, else the requested one.
    pub model: Option<String>,
    pub tokens_in: Option<u64>,
    pub tokens_out: Option<u64>,
}

/// A part of an output message.
pub enum Part {
    Thought(String),
    Call(ToolCall),
    Text(String),
}

/// A tool run.
pub struct Tool {
    pub id: Option<String>,
    pub name: String,
    pub result: String,
    pub arguments: String,
}

/// An input message as the reader uses it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Message {
    User(String),
    System(String),
    /// Tool responses by call id.
    Tool(Vec<(String, String)>),
}

/// The number of an input message the reader skips (an assistant message: the output of
/// an earlier span).
pub const OTHER: u32 = u32::MAX;

/// A trace's input messages, each kept once however many requests resend it.
#[derive(Default)]
pub struct Pool {
    messages: Vec<Message>,
    by_hash: HashMap<u64, Vec<u32>>,
}

impl Pool {
    /// The number of `message`, added if it is new.
    pub fn add(&mut self, message: Message) -> u32 {
        let mut hasher = DefaultHasher::new();
        message.hash(&mut hasher);
        let ids = self.by_hash.entry(hasher.finish()).or_default();
        if let Some(&id) = ids
            .iter()
            .find(|&&id| self.messages.get(id as usize) == Some(&message))
        {
            return id;
        }
        let id = u32::try_from(self.messages.len()).unwrap_or(OTHER);
        if id != OTHER {
            self.messages.push(message);
            ids.push(id);
        }
        id
    }

    pub fn get(&self, id: u32) -> Option<&Message> {
        self.messages.get(id as usize)
    }

    /// Messages kept.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.messages.len()
    }
}

/// The compact record of `span` (an OTLP span object), its input messages added to `pool`;
/// `None` for a span without `gen_ai.operation.name`, and `Some(None)` for a GenAI span the
/// reader does nothing with.
pub fn compact(span: &Value, pool: &mut Pool) -> Option<Option<Span>> {
    let attrs = Attrs::of(span);
    let operation = attrs.str("gen_ai.operation.name")?;
    let op = match operation {
        "chat" | "text_completion" | "generate_content" => Op::Chat(Box::new(chat(&attrs, pool))),
        "execute_tool" => Op::Tool(Box::new(Tool {
            id: attrs.str("gen_ai.tool.call.id").map(String::from),
            name: attrs.str("gen_ai.tool.name").unwrap_or("tool").to_string(),
            result: attrs.raw("gen_ai.tool.call.result").unwrap_or_default(),
            arguments: attrs.raw("gen_ai.tool.call.arguments").unwrap_or_default(),
        })),
        "invoke_agent" | "create_agent" => {
            Op::Agent(attrs.str("gen_ai.agent.name").map(String::from))
        }
        _ => return Some(None),
    };
    let status = span.get("status");
    let failed = status
        .and_then(|s| s.get("code"))
        .is_some_and(|c| *c == 2 || *c == "STATUS_CODE_ERROR");
    let error = attrs.str("error.type").map(String::from).or_else(|| {
        failed.then(|| {
            status
                .and_then(|s| str_field(s, "message"))
                .unwrap_or("error")
                .to_string()
        })
    });
    Some(Some(Span {
        start: nanos(span.get("startTimeUnixNano")),
        end: nanos(span.get("endTimeUnixNano")),
        name: str_field(span, "name").unwrap_or("").to_string(),
        op,
        error,
    }))
}

fn chat(attrs: &Attrs, pool: &mut Pool) -> Chat {
    let system = attrs
        .json("gen_ai.system_instructions")
        .map(|s| pool.add(Message::System(parts_text(&s))));
    let input = match attrs.json("gen_ai.input.messages") {
        Some(Value::Array(messages)) => messages.iter().map(|m| input(m, pool)).collect(),
        _ => Vec::new(),
    };
    let output = attrs.json("gen_ai.output.messages");
    let outputs = match &output {
        Some(Value::Array(messages)) => messages.as_slice(),
        _ => &[],
    };
    let mut parts = Vec::new();
    for message in outputs {
        let Some(Value::Array(items)) = message.get("parts") else {
            continue;
        };
        parts.extend(items.iter().map(part));
    }
    Chat {
        system,
        input,
        outputs: outputs.len(),
        parts,
        model: attrs
            .str("gen_ai.response.model")
            .or_else(|| attrs.str("gen_ai.request.model"))
            .map(String::from),
        tokens_in: attrs.u64("gen_ai.usage.input_tokens"),
        tokens_out: attrs.u64("gen_ai.usage.output_tokens"),
    }
}

fn input(message: &Value, pool: &mut Pool) -> u32 {
    let text = || parts_text(message.get("parts").unwrap_or(&Value::Null));
    let kept = match str_field(message, "role").unwrap_or("") {
        "user" => Message::User(text()),
        "system" => Message::System(text()),
        // Results of calls no tool span answered, as the next request carries them.
        "tool" => {
            let parts = message.get("parts").and_then(Value::as_array);
            let answers = parts
                .into_iter()
                .flatten()
                .filter_map(|p| {
                    let id = str_field(p, "id")?.to_string();
                    Some((id, p.get("response").map(content_text).unwrap_or_default()))
                })
                .collect();
            Message::Tool(answers)
        }
        _ => return OTHER,
    };
    pool.add(kept)
}

fn part(part: &Value) -> Part {
    let content = || part.get("content").map(content_text).unwrap_or_default();
    match str_field(part, "type").unwrap_or("") {
        "reasoning" => Part::Thought(content()),
        "tool_call" => {
            let arguments = match part.get("arguments") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Null) | None => String::new(),
                Some(other) => other.to_string(),
            };
            Part::Call(ToolCall {
                id: str_field(part, "id").map(String::from),
                name: str_field(part, "name").unwrap_or("tool").to_string(),
                arguments,
            })
        }
        _ => Part::Text(content()),
    }
}
