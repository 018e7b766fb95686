//! One message of a model's input or output, in the common chat shape.

use serde::{Deserialize, Serialize};

/// Who a message is from, in chat-completions terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

impl Role {
    /// Maps the role names found in the wild onto the four roles; `None` when unknown.
    ///
    /// `developer` is OpenAI's new name for `system`; `human`/`ai` come from LangChain-style
    /// logs; `function` is the pre-tools name for a tool result.
    pub fn parse(name: &str) -> Option<Role> {
        match name {
            "system" | "developer" => Some(Role::System),
            "user" | "human" => Some(Role::User),
            "assistant" | "ai" | "model" => Some(Role::Assistant),
            "tool" | "function" | "ipython" | "tool_result" => Some(Role::Tool),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

/// A call of a named tool with arguments, as the model emitted it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub name: String,
    /// The arguments exactly as logged: usually a JSON object in text form, kept as text so
    /// that replay can send back byte-for-byte what the model produced.
    pub arguments: String,
}

impl ToolCall {
    pub fn new(name: impl Into<String>, arguments: impl Into<String>) -> ToolCall {
        ToolCall {
            id: None,
            name: name.into(),
            arguments: arguments.into(),
        }
    }

    /// The arguments parsed as JSON, when they are JSON.
    pub fn arguments_json(&self) -> Option<serde_json::Value> {
        serde_json::from_str(&self.arguments).ok()
    }

    /// A string argument by name (`command`, `path`, …), when the arguments are a JSON object.
    pub fn argument(&self, key: &str) -> Option<String> {
        match self.arguments_json()?.get(key)? {
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Null => None,
            other => Some(other.to_string()),
        }
    }
}

/// One message: the unit of a model's context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    /// The text content. Structured content (several text parts, images) is flattened to
    /// text; images become a `[image]` placeholder.
    #[serde(default)]
    pub content: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For `Role::Tool`: the id of the call this message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// For `Role::Tool`: the tool's name, when logged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// In multi-agent logs (CodeR), which agent's history this message belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The summary a compaction put in place of the messages before it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub compaction: bool,
}

impl Message {
    pub fn new(role: Role, content: impl Into<String>) -> Message {
        Message {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            name: None,
            agent: None,
            compaction: false,
        }
    }

    pub fn system(content: impl Into<String>) -> Message {
        Message::new(Role::System, content)
    }

    pub fn user(content: impl Into<String>) -> Message {
        Message::new(Role::User, content)
    }

    pub fn assistant(content: impl Into<String>) -> Message {
        Message::new(Role::Assistant, content)
    }

    pub fn tool(content: impl Into<String>) -> Message {
        Message::new(Role::Tool, content)
    }

    pub fn with_agent(mut self, agent: Option<String>) -> Message {
        self.agent = agent;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_in_the_wild() {
        assert_eq!(Role::parse("developer"), Some(Role::System));
        assert_eq!(Role::parse("function"), Some(Role::Tool));
        assert_eq!(Role::parse("exit"), None);
    }

    #[test]
    fn tool_call_arguments() {
        let call = ToolCall::new("bash", r#"{"command":"ls -la","timeout":5}"#);
        assert_eq!(call.argument("command").as_deref(), Some("ls -la"));
        assert_eq!(call.argument("timeout").as_deref(), Some("5"));
        assert_eq!(call.argument("missing"), None);
        assert_eq!(ToolCall::new("x", "not json").argument("a"), None);
    }
}
