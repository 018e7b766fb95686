//! Both wire protocols end to end over real HTTP/1.1 on loopback: what the client sends
//! (path, headers, body) and what it makes of a streamed answer cut at awkward places.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/loopback.rs"]
mod loopback;

use loopback::{Loopback, Reply, anthropic_sse, openai_sse, split};
use std::time::{Duration, Instant};
use trajscope::backend::{
    Backend, BackendConfig, BackendKind, CancellationToken, Completion, CompletionRequest,
    FinishReason, StreamEvent, ToolChoice, ToolSpec,
};
use trajscope::model::{Message, ToolCall};

const KEY: &str = "sk-loopback-test-key-0123456789";

fn backend(kind: BackendKind, url: &str) -> Backend {
    let config = BackendConfig::new(Some(kind), url, "test-model").with_api_key_env("LOOPBACK_KEY");
    Backend::with_lookup("loop", config, &|var| {
        (var == "LOOPBACK_KEY").then(|| KEY.to_string())
    })
    .unwrap()
}

fn request() -> CompletionRequest {
    CompletionRequest::new(vec![
        Message::system("You are a helpful agent."),
        Message::user("List the files."),
    ])
    .with_tools(
        vec![ToolSpec {
            name: "bash".into(),
            description: Some("Run a command".into()),
            parameters: serde_json::json!({"type": "object", "properties": {"command": {"type": "string"}}}),
        }],
        Some(ToolChoice::Function("bash".into())),
    )
}

async fn drain(backend: &Backend) -> (Vec<StreamEvent>, Completion) {
    let cancel = CancellationToken::new();
    let mut stream = backend.stream(&request(), &cancel).await.unwrap();
    let mut events = Vec::new();
    while let Some(event) = stream.next().await.unwrap() {
        events.push(event);
    }
    (events, stream.into_completion())
}

/// llama.cpp's shape: id and name repeated in every chunk, arguments in pieces.
const OPENAI_CHUNKS: &[&str] = &[
    r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","model":"smollm2","choices":[{"index":0,"delta":{"role":"assistant","content":"Sure"},"finish_reason":null}]}"#,
    r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","model":"smollm2","choices":[{"index":0,"delta":{"content":", listing."},"finish_reason":null}]}"#,
    r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","model":"smollm2","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_x","type":"function","function":{"name":"bash","arguments":"{\"command\""}}]},"finish_reason":null}]}"#,
    r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","model":"smollm2","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_x","type":"function","function":{"name":"bash","arguments":": \"ls -la\"}"}}]},"finish_reason":null}]}"#,
    r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","model":"smollm2","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
    r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","model":"smollm2","choices":[],"usage":{"prompt_tokens":31,"completion_tokens":12,"total_tokens":43}}"#,
];

#[tokio::test]
async fn openai_stream_cut_every_seven_bytes() {
    let server = Loopback::start(vec![Reply::sse(&openai_sse(OPENAI_CHUNKS), 7)]).await;
    let (events, completion) = drain(&backend(BackendKind::OpenAi, &server.base_url)).await;

    assert_eq!(completion.text, "Sure, listing.");
    assert_eq!(
        completion.tool_calls,
        [ToolCall {
            id: Some("call_x".into()),
            name: "bash".into(),
            arguments: r#"{"command": "ls -la"}"#.into()
        }]
    );
    assert_eq!(completion.finish_reason, Some(FinishReason::ToolCalls));
    assert_eq!(completion.model.as_deref(), Some("smollm2"));
    let usage = completion.usage.unwrap();
    assert_eq!((usage.tokens_in, usage.tokens_out), (Some(31), Some(12)));
    assert_eq!(completion.timing.attempts, 1);
    let deltas: String = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallDelta { arguments, .. } => Some(arguments.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        deltas, r#"{"command": "ls -la"}"#,
        "deltas add up to the arguments"
    );

    let sent = &server.requests()[0];
    assert_eq!(sent.method, "POST");
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(
        sent.header("authorization"),
        Some(&*format!("Bearer {KEY}"))
    );
    assert_eq!(sent.header("accept"), Some("text/event-stream"));
    let body = sent.json();
    assert_eq!(body["stream"], true);
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["tool_choice"]["function"]["name"], "bash");
}

#[tokio::test]
async fn openai_close_delimited_body_without_chunking() {
    let server = Loopback::start(vec![Reply::Stream {
        pieces: split(&openai_sse(OPENAI_CHUNKS), 64, Duration::ZERO),
        chunked: false,
    }])
    .await;
    let (_, completion) = drain(&backend(BackendKind::OpenAi, &server.base_url)).await;
    assert_eq!(completion.text, "Sure, listing.");
    assert_eq!(completion.tool_calls.len(), 1);
}

const ANTHROPIC_EVENTS: &[(&str, &str)] = &[
    (
        "message_start",
        r#"{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"usage":{"input_tokens":40,"output_tokens":1}}}"#,
    ),
    (
        "content_block_start",
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
    ),
    ("ping", r#"{"type":"ping"}"#),
    (
        "content_block_delta",
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"I'll list "}}"#,
    ),
    (
        "content_block_delta",
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"them."}}"#,
    ),
    (
        "content_block_stop",
        r#"{"type":"content_block_stop","index":0}"#,
    ),
    (
        "content_block_start",
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01","name":"bash","input":{}}}"#,
    ),
    (
        "content_block_delta",
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"comma"}}"#,
    ),
    (
        "content_block_delta",
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"nd\": \"ls\"}"}}"#,
    ),
    (
        "content_block_stop",
        r#"{"type":"content_block_stop","index":1}"#,
    ),
    (
        "message_delta",
        r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":22}}"#,
    ),
    ("message_stop", r#"{"type":"message_stop"}"#),
];

#[tokio::test]
async fn anthropic_stream_cut_every_five_bytes() {
    let server = Loopback::start(vec![Reply::sse(&anthropic_sse(ANTHROPIC_EVENTS), 5)]).await;
    let (_, completion) = drain(&backend(BackendKind::Anthropic, &server.base_url)).await;

    assert_eq!(completion.text, "I'll list them.");
    assert_eq!(completion.id.as_deref(), Some("msg_01"));
    assert_eq!(completion.tool_calls[0].name, "bash");
    assert_eq!(completion.tool_calls[0].id.as_deref(), Some("toolu_01"));
    assert_eq!(completion.tool_calls[0].arguments, r#"{"command": "ls"}"#);
    assert_eq!(completion.finish_reason, Some(FinishReason::ToolCalls));
    let usage = completion.usage.unwrap();
    assert_eq!((usage.tokens_in, usage.tokens_out), (Some(40), Some(22)));

    let sent = &server.requests()[0];
    assert_eq!(sent.path, "/v1/messages");
    assert_eq!(sent.header("x-api-key"), Some(KEY));
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(sent.header("authorization"), None);
    let body = sent.json();
    assert_eq!(body["system"], "You are a helpful agent.");
    assert_eq!(
        body["tool_choice"],
        serde_json::json!({"type": "tool", "name": "bash"})
    );
}

#[tokio::test]
async fn slow_tokens_arrive_one_by_one() {
    let pieces: Vec<String> = (0..8)
        .map(|i| format!(r#"{{"choices":[{{"index":0,"delta":{{"content":"t{i} "}}}}]}}"#))
        .collect();
    let mut chunks: Vec<&str> = pieces.iter().map(String::as_str).collect();
    chunks.push(r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#);
    let body = openai_sse(&chunks);
    // One event per piece, 80 ms apart.
    let events: Vec<&str> = body.split_inclusive("\r\n\r\n").collect();
    let server = Loopback::start(vec![Reply::Stream {
        pieces: events
            .iter()
            .map(|e| loopback::Piece {
                delay: Duration::from_millis(80),
                bytes: e.as_bytes().to_vec(),
            })
            .collect(),
        chunked: true,
    }])
    .await;
    let backend = backend(BackendKind::OpenAi, &server.base_url);
    let cancel = CancellationToken::new();
    let mut stream = backend.stream(&request(), &cancel).await.unwrap();
    let mut first_text_at = None;
    while let Some(event) = stream.next().await.unwrap() {
        if matches!(event, StreamEvent::TextDelta { .. }) && first_text_at.is_none() {
            first_text_at = Some(Instant::now());
        }
    }
    let completion = stream.into_completion();
    assert_eq!(completion.text, "t0 t1 t2 t3 t4 t5 t6 t7 ");
    let last_piece = server.last_piece()[0];
    assert!(
        first_text_at.unwrap() < last_piece,
        "the first token reached the caller before the server sent the last one"
    );
    let timing = completion.timing;
    assert!(timing.first_token_s.unwrap() <= timing.total_s);
    assert!(timing.first_byte_s.unwrap() <= timing.first_token_s.unwrap());
}

#[tokio::test]
async fn a_server_that_ignores_stream_true() {
    let whole = r#"{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"whole answer"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}"#;
    let server = Loopback::start(vec![Reply::Json(whole.into())]).await;
    let (_, completion) = drain(&backend(BackendKind::OpenAi, &server.base_url)).await;
    assert_eq!(completion.text, "whole answer");
    assert_eq!(completion.finish_reason, Some(FinishReason::Stop));
}
