//! Golden request bodies: the exact JSON each API gets for one context with tool calls, tool
//! results (with and without recorded ids) and a trailing user message.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use trajscope::backend::{
    Backend, BackendConfig, BackendKind, CompletionRequest, Sampling, ToolChoice, ToolSpec, body,
};
use trajscope::model::{Message, ToolCall};

fn context() -> Vec<Message> {
    let mut first_call = Message::assistant("");
    first_call.tool_calls = vec![ToolCall::new("bash", r#"{"command":"ls"}"#)];
    let mut second_call = Message::assistant("Now editing.");
    second_call.tool_calls = vec![ToolCall {
        id: Some("call_9".into()),
        name: "str_replace_editor".into(),
        arguments: r#"{"command":"view","path":"a.py"}"#.into(),
    }];
    let mut second_result = Message::tool("print(1)");
    second_result.tool_call_id = Some("call_9".into());
    vec![
        Message::system("You are an agent."),
        Message::user("Fix the bug."),
        first_call,
        Message::tool("a.py\nb.py"),
        second_call,
        second_result,
        Message::user("Remember to run tests."),
    ]
}

fn request() -> CompletionRequest {
    CompletionRequest::new(context())
        .with_tools(
            vec![ToolSpec {
                name: "bash".into(),
                description: Some("Run a shell command".into()),
                parameters: json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}),
            }],
            Some(ToolChoice::Auto),
        )
        .with_sampling(Sampling {
            temperature: Some(0.0),
            max_tokens: Some(64),
            seed: Some(7),
            stop: Some(vec!["</s>".into()]),
            ..Sampling::default()
        })
}

fn golden(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn openai_body() {
    let config = BackendConfig::new(Some(BackendKind::OpenAi), "http://h", "m");
    let built = body(&config, &request());
    assert_eq!(built.adaptations, Vec::<String>::new());
    let expected = golden(
        r#"{
  "model": "m",
  "stream": true,
  "stream_options": {"include_usage": true},
  "temperature": 0.0,
  "max_tokens": 64,
  "seed": 7,
  "stop": ["</s>"],
  "tools": [{"type": "function", "function": {"name": "bash", "description": "Run a shell command",
             "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}}],
  "tool_choice": "auto",
  "messages": [
    {"role": "system", "content": "You are an agent."},
    {"role": "user", "content": "Fix the bug."},
    {"role": "assistant", "content": "", "tool_calls": [
      {"id": "call_3_1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"ls\"}"}}]},
    {"role": "tool", "tool_call_id": "call_3_1", "content": "a.py\nb.py"},
    {"role": "assistant", "content": "Now editing.", "tool_calls": [
      {"id": "call_9", "type": "function", "function": {"name": "str_replace_editor", "arguments": "{\"command\":\"view\",\"path\":\"a.py\"}"}}]},
    {"role": "tool", "tool_call_id": "call_9", "content": "print(1)"},
    {"role": "user", "content": "Remember to run tests."}
  ]
}"#,
    );
    assert_eq!(built.json, expected);
    let sent = built.json.to_string();
    assert!(
        !sent.contains("null"),
        "llama.cpp refuses null content: {sent}"
    );
}

#[test]
fn anthropic_body() {
    let config = BackendConfig::new(Some(BackendKind::Anthropic), "http://h", "m");
    let built = body(&config, &request());
    assert_eq!(
        built.adaptations,
        ["the Anthropic API takes no seed: it was not sent"]
    );
    let expected = golden(
        r#"{
  "model": "m",
  "system": "You are an agent.",
  "max_tokens": 64,
  "stream": true,
  "temperature": 0.0,
  "stop_sequences": ["</s>"],
  "tools": [{"name": "bash", "description": "Run a shell command",
             "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}],
  "tool_choice": {"type": "auto"},
  "messages": [
    {"role": "user", "content": "Fix the bug."},
    {"role": "assistant", "content": [
      {"type": "tool_use", "id": "call_3_1", "name": "bash", "input": {"command": "ls"}}]},
    {"role": "user", "content": [
      {"type": "tool_result", "tool_use_id": "call_3_1", "content": "a.py\nb.py"}]},
    {"role": "assistant", "content": [
      {"type": "text", "text": "Now editing."},
      {"type": "tool_use", "id": "call_9", "name": "str_replace_editor", "input": {"command": "view", "path": "a.py"}}]},
    {"role": "user", "content": [
      {"type": "tool_result", "tool_use_id": "call_9", "content": "print(1)"},
      {"type": "text", "text": "Remember to run tests."}]}
  ]
}"#,
    );
    assert_eq!(built.json, expected);
}

#[test]
fn a_context_without_system_message_gets_an_empty_one_on_openai_only() {
    let request = CompletionRequest::new(vec![Message::user("hi")]);
    let openai = BackendConfig::new(Some(BackendKind::OpenAi), "http://h", "m");
    let built = body(&openai, &request);
    assert_eq!(
        built.json["messages"],
        json!([{"role": "system", "content": ""}, {"role": "user", "content": "hi"}])
    );
    assert_eq!(built.adaptations.len(), 1, "the change is reported");

    let mut plain = openai.clone();
    plain.always_send_system = false;
    assert_eq!(
        body(&plain, &request).json["messages"],
        json!([{"role": "user", "content": "hi"}])
    );

    let anthropic = BackendConfig::new(Some(BackendKind::Anthropic), "http://h", "m");
    let built = body(&anthropic, &request);
    assert_eq!(built.json.get("system"), None);
    assert_eq!(built.json["max_tokens"], 4096, "the API requires a limit");
    assert_eq!(
        built.json["messages"],
        json!([{"role": "user", "content": "hi"}])
    );
}

#[test]
fn request_overrides_backend_sampling_and_extra_body_wins() {
    let mut config =
        BackendConfig::new(Some(BackendKind::OpenAi), "http://h", "m").with_sampling(Sampling {
            temperature: Some(0.7),
            top_p: Some(0.9),
            ..Sampling::default()
        });
    config
        .extra_body
        .insert("max_completion_tokens".into(), json!(10));
    let request = CompletionRequest::new(vec![Message::system("s")]).with_sampling(Sampling {
        temperature: Some(0.0),
        ..Sampling::default()
    });
    let built = body(&config, &request).json;
    assert_eq!(built["temperature"], 0.0);
    assert_eq!(built["top_p"], 0.9);
    assert_eq!(built["max_completion_tokens"], 10);
}

#[test]
fn dry_run_shows_the_request_but_not_the_key() {
    let config = BackendConfig::new(None, "https://api.anthropic.com", "claude")
        .with_api_key_env("DRY_RUN_KEY");
    let backend =
        Backend::with_lookup("claude", config, &|_| Some("sk-ant-dry-run-secret".into())).unwrap();
    let prepared = backend.prepare(&CompletionRequest::new(vec![Message::user("hi")]));
    let shown = prepared.to_string();
    assert!(
        shown.starts_with("POST https://api.anthropic.com/v1/messages\n"),
        "{shown}"
    );
    assert!(
        shown.contains("x-api-key: <the value of $DRY_RUN_KEY>"),
        "{shown}"
    );
    assert!(shown.contains("anthropic-version: 2023-06-01"), "{shown}");
    assert!(shown.contains("\"max_tokens\": 4096"), "{shown}");
    assert!(!shown.contains("sk-ant-dry-run-secret"));
    assert!(!format!("{prepared:?} {backend:?}").contains("sk-ant-dry-run-secret"));
}
