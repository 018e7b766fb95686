//! What to ask a model: a context of trajscope [`Message`]s, the tools it may call and sampling
//! overrides; and the request body each wire protocol gets for it.
//!
//! The body is as faithful to the context as the API allows. Where an API forces a change (a
//! tool result without a call, a system message in the middle for Anthropic, a seed Anthropic
//! cannot take), the change is made and listed in [`Body::adaptations`] so replay can say the
//! request was not byte-for-byte the recorded context.

mod pairing;

pub(crate) use pairing::pair_tool_calls;

use super::config::{BackendConfig, Sampling};
use super::kind::BackendKind;
use super::{anthropic, openai};
use crate::model::Message;
use serde::{Deserialize, Serialize};

/// A tool the model may call: a name, what it does, and a JSON Schema of its arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A JSON Schema object (`{"type": "object", "properties": …}`).
    pub parameters: serde_json::Value,
}

/// Whether and which tool the model must call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolChoice {
    /// The model decides.
    Auto,
    /// No tool calls.
    None,
    /// Some tool must be called (Anthropic `any`).
    Required,
    /// This tool must be called. llama.cpp servers produce tool calls only this way.
    Function(String),
}

/// One completion request, independent of the wire protocol.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CompletionRequest {
    pub messages: Vec<Message>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolSpec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Overrides of the backend's sampling settings, field by field (a resample's seed).
    pub sampling: Sampling,
}

impl CompletionRequest {
    pub fn new(messages: Vec<Message>) -> CompletionRequest {
        CompletionRequest {
            messages,
            ..CompletionRequest::default()
        }
    }

    pub fn with_tools(mut self, tools: Vec<ToolSpec>, choice: Option<ToolChoice>) -> Self {
        self.tools = tools;
        self.tool_choice = choice;
        self
    }

    pub fn with_sampling(mut self, sampling: Sampling) -> CompletionRequest {
        self.sampling = sampling;
        self
    }
}

/// The JSON body for one backend, and what had to change to make the API accept the context.
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    pub json: serde_json::Value,
    /// One sentence per change, naming the 1-based message it concerns.
    pub adaptations: Vec<String>,
}

/// The streaming request body `config`'s API expects for `request`.
pub fn body(config: &BackendConfig, request: &CompletionRequest) -> Body {
    let sampling = request.sampling.or(&config.sampling);
    let (messages, mut adaptations) = pair_tool_calls(&request.messages);
    let mut json = match config.kind {
        BackendKind::OpenAi => {
            openai::body(config, &messages, request, &sampling, &mut adaptations)
        }
        BackendKind::Anthropic => {
            anthropic::body(config, &messages, request, &sampling, &mut adaptations)
        }
    };
    if let Some(object) = json.as_object_mut() {
        for (key, value) in &config.extra_body {
            object.insert(key.clone(), value.clone());
        }
    }
    Body { json, adaptations }
}
