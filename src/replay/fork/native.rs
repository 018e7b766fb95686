//! A fork in the parent agent's own file shape, so that the agent's tools (mini-swe-agent's
//! inspector, SWE-agent's `sweagent inspect`) and trajscope's own loaders read it:
//! mini-swe-agent `.traj.json` (`info`, `messages`, `trajectory_format`) and SWE-agent `.traj`
//! (`trajectory[]` with each step's `query`, `history`, `info`).
//!
//! Rendered from the fork [`Trajectory`] each time it is written; the parent's own
//! configuration (`info.config`, `replay_config`) is carried over, and where the fork came
//! from goes under `info.trajscope_fork`.

use crate::model::{Format, Message, Role, Trajectory};
use serde_json::{Map, Value, json};

/// Which agent's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NativeShape {
    MiniSweAgent,
    SweAgent,
}

impl NativeShape {
    pub fn of(format: Format) -> Option<NativeShape> {
        match format {
            Format::MiniSweAgent => Some(NativeShape::MiniSweAgent),
            Format::SweAgent => Some(NativeShape::SweAgent),
            // Forks of the interactive CLIs' sessions are written in trajscope's own format.
            Format::GeminiCli
            | Format::CopilotCli
            | Format::KimiCli
            | Format::Cursor
            | Format::OpenCode
            | Format::Droid
            | Format::HfTrace
            | Format::OtelGenai => None,
            // No agent tool reads these back as forks: trajscope's own format too.
            Format::OpenHands
            | Format::InspectAi
            | Format::ClaudeCode
            | Format::Codex
            | Format::Aider
            | Format::LlamaPrompt
            | Format::ChatMessages
            | Format::Trajscope => None,
        }
    }

    /// The file name ending the agent's tools look for.
    pub fn extension(self) -> &'static str {
        match self {
            NativeShape::MiniSweAgent => ".traj.json",
            NativeShape::SweAgent => ".traj",
        }
    }

    /// The document for `fork`, whose live conversation is `conversation`; `parent` is the
    /// parent file's JSON (`Null` when it could not be read).
    pub fn render(self, fork: &Trajectory, conversation: &[&Message], parent: &Value) -> Value {
        let usage = fork.total_usage();
        let origin = fork
            .fork
            .as_ref()
            .and_then(|o| serde_json::to_value(o).ok())
            .unwrap_or(Value::Null);
        let mut info = Map::new();
        info.insert(
            "exit_status".into(),
            fork.exit_status.clone().map_or(Value::Null, Value::String),
        );
        info.insert(
            "submission".into(),
            fork.submission.clone().map_or(Value::Null, Value::String),
        );
        info.insert(
            "model_stats".into(),
            json!({
                "instance_cost": usage.cost.unwrap_or(0.0),
                "api_calls": usage.api_calls.unwrap_or(fork.steps.len() as u64),
                "tokens_sent": usage.tokens_in.unwrap_or(0),
                "tokens_received": usage.tokens_out.unwrap_or(0),
            }),
        );
        info.insert("trajscope_fork".into(), origin);
        match self {
            NativeShape::MiniSweAgent => {
                for key in ["config", "mini_version"] {
                    if let Some(v) = parent.pointer(&format!("/info/{key}")) {
                        info.insert(key.into(), v.clone());
                    }
                }
                let format = parent
                    .get("trajectory_format")
                    .cloned()
                    .unwrap_or_else(|| json!("mini-swe-agent-1"));
                let messages: Vec<Value> = conversation.iter().map(|m| openai(m, None)).collect();
                json!({
                    "info": Value::Object(info),
                    "messages": messages,
                    "trajectory_format": format,
                })
            }
            NativeShape::SweAgent => {
                let steps: Vec<Value> = fork
                    .steps
                    .iter()
                    .map(|s| {
                        let query: Vec<Value> = s
                            .context_messages(&fork.messages)
                            .into_iter()
                            .map(|m| openai(m, Some("main")))
                            .collect();
                        json!({
                            "action": s.action,
                            "observation": s.observation,
                            "response": s.response,
                            "thought": s.thought,
                            "execution_time": s.duration_s.unwrap_or(0.0),
                            "state": {},
                            "query": query,
                            "extra_info": {},
                        })
                    })
                    .collect();
                let history: Vec<Value> = conversation
                    .iter()
                    .map(|m| openai(m, Some("main")))
                    .collect();
                json!({
                    "environment": "trajscope-fork",
                    "trajectory": steps,
                    "history": history,
                    "info": Value::Object(info),
                    "replay_config": parent.get("replay_config").cloned().unwrap_or(Value::Null),
                })
            }
        }
    }
}

/// A message in the OpenAI chat shape both agents log.
fn openai(m: &Message, agent: Option<&str>) -> Value {
    let mut out = Map::new();
    out.insert("role".into(), json!(m.role.as_str()));
    out.insert("content".into(), json!(m.content));
    if !m.tool_calls.is_empty() {
        let calls: Vec<Value> = m
            .tool_calls
            .iter()
            .map(|c| {
                json!({
                    "id": c.id,
                    "type": "function",
                    "function": { "name": c.name, "arguments": c.arguments },
                })
            })
            .collect();
        out.insert("tool_calls".into(), Value::Array(calls));
    }
    if m.role == Role::Tool
        && let Some(id) = &m.tool_call_id
    {
        out.insert("tool_call_id".into(), json!(id));
    }
    if let Some(agent) = agent {
        out.insert("agent".into(), json!(agent));
    }
    Value::Object(out)
}
