//! End to end against a real model: SmolLM2-135M behind llama-cpp-python's OpenAI-compatible
//! server, started by `scripts/live-model.sh start` (which `.ci/run` does). The base URL comes
//! from `TRAJSCOPE_LIVE_MODEL_URL`; without it every test here says so and passes, so a fresh
//! `cargo test` needs no model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;
use trajscope::backend::{
    Backend, BackendConfig, BackendKind, CancellationToken, Completion, CompletionRequest,
    FinishReason, Sampling, StreamEvent, Timeouts, ToolChoice, ToolSpec,
};
use trajscope::model::{Message, ToolCall};

fn live() -> Option<Backend> {
    let Ok(url) = std::env::var("TRAJSCOPE_LIVE_MODEL_URL") else {
        eprintln!("skipping: TRAJSCOPE_LIVE_MODEL_URL is not set (scripts/live-model.sh start)");
        return None;
    };
    let config = BackendConfig::new(Some(BackendKind::OpenAi), url, "smollm2")
        .with_sampling(Sampling {
            temperature: Some(0.0),
            seed: Some(42),
            max_tokens: Some(48),
            ..Sampling::default()
        })
        // The server answers one request at a time and the tests run in parallel on a machine
        // that may be busy compiling: a queued request can wait minutes for its first token.
        .with_timeouts(Timeouts {
            connect_s: 10.0,
            read_s: 600.0,
            total_s: 1200.0,
        });
    Some(Backend::new("live", config).unwrap())
}

fn bash_tool() -> ToolSpec {
    ToolSpec {
        name: "bash".into(),
        description: Some("Run a shell command and return its output".into()),
        parameters: serde_json::json!({
            "type": "object",
            "properties": {"command": {"type": "string", "description": "the command"}},
            "required": ["command"]
        }),
    }
}

async fn complete(backend: &Backend, request: &CompletionRequest) -> Completion {
    backend
        .complete(request, &CancellationToken::new())
        .await
        .unwrap()
}

#[tokio::test]
async fn the_same_request_at_temperature_zero_gives_the_same_text() {
    let Some(backend) = live() else { return };
    let request = CompletionRequest::new(vec![
        Message::system("You are a concise assistant."),
        Message::user("Name three colours."),
    ]);
    let first = complete(&backend, &request).await;
    let second = complete(&backend, &request).await;
    assert!(!first.text.trim().is_empty(), "{first:?}");
    assert_eq!(first.text, second.text);
    assert!(
        matches!(
            first.finish_reason,
            Some(FinishReason::Stop | FinishReason::Length)
        ),
        "{first:?}"
    );
    assert_eq!(first.model.as_deref(), Some("smollm2"));
    let timing = first.timing;
    assert_eq!(timing.attempts, 1);
    assert!(timing.first_byte_s.unwrap() <= timing.first_token_s.unwrap());
    assert!(timing.first_token_s.unwrap() <= timing.total_s);
}

#[tokio::test]
async fn a_named_tool_choice_streams_a_real_tool_call() {
    let Some(backend) = live() else { return };
    let request = CompletionRequest::new(vec![
        Message::system("You are an agent that runs shell commands."),
        Message::user("List the files in the current directory."),
    ])
    .with_tools(vec![bash_tool()], Some(ToolChoice::Function("bash".into())));
    let cancel = CancellationToken::new();
    let mut stream = backend.stream(&request, &cancel).await.unwrap();
    let mut fragments = Vec::new();
    while let Some(event) = stream.next().await.unwrap() {
        if let StreamEvent::ToolCallDelta { index, arguments } = event {
            assert_eq!(index, 0);
            fragments.push(arguments);
        }
    }
    let completion = stream.into_completion();
    assert_eq!(completion.tool_calls.len(), 1, "{completion:?}");
    let call = &completion.tool_calls[0];
    assert_eq!(call.name, "bash");
    assert!(call.id.is_some());
    assert!(
        fragments.len() > 1,
        "the arguments came in pieces: {fragments:?}"
    );
    assert_eq!(
        fragments.concat(),
        call.arguments,
        "pieces joined once each"
    );
    assert!(
        call.arguments_json().is_some_and(|v| v.is_object()),
        "joined arguments are a JSON object: {}",
        call.arguments
    );
    assert_eq!(completion.finish_reason, Some(FinishReason::ToolCalls));
}

#[tokio::test]
async fn a_recorded_tool_call_with_empty_content_is_accepted() {
    let Some(backend) = live() else { return };
    // How OpenAI, litellm and mini-swe-agent log a tool call: content null (here ""), which
    // this server refuses with HTTP 500 when sent as null.
    let mut call = Message::assistant("");
    call.tool_calls = vec![ToolCall::new("bash", r#"{"command": "ls"}"#)];
    let request = CompletionRequest::new(vec![
        Message::system("You are an agent that runs shell commands."),
        Message::user("List the files, then say which one is Python."),
        call,
        Message::tool("README.md\nmain.py\n"),
    ]);
    let completion = complete(&backend, &request).await;
    assert!(!completion.text.is_empty(), "{completion:?}");
}

#[tokio::test]
async fn cancelling_mid_stream_stops_at_once_and_the_server_goes_on_serving() {
    let Some(backend) = live() else { return };
    let request = CompletionRequest::new(vec![
        Message::system("You are a storyteller."),
        Message::user("Tell a long story about a lighthouse keeper."),
    ])
    .with_sampling(Sampling {
        max_tokens: Some(400),
        ..Sampling::default()
    });
    let cancel = CancellationToken::new();
    let mut stream = backend.stream(&request, &cancel).await.unwrap();
    let mut texts = 0;
    while texts < 5 {
        match stream.next().await.unwrap() {
            Some(StreamEvent::TextDelta { .. }) => texts += 1,
            Some(_) => {}
            None => panic!("the story ended after {texts} tokens"),
        }
    }
    cancel.cancel();
    let started = std::time::Instant::now();
    let error = loop {
        match stream.next().await {
            Ok(Some(_)) => {}
            Ok(None) => panic!("finished instead of cancelled"),
            Err(error) => break error,
        }
    };
    assert!(error.is_cancelled(), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(1));
    let partial = stream.completion();
    assert!(partial.finish_reason.is_none());
    assert!(!partial.text.is_empty());

    let after = complete(
        &backend,
        &CompletionRequest::new(vec![Message::system(""), Message::user("Say hi.")]),
    )
    .await;
    assert!(!after.text.is_empty());
}

/// Time to first byte and token, tokens per second and latency on the real model, printed
/// (run with `--nocapture`); asserted only for consistency, never for speed.
#[tokio::test]
async fn figures() {
    let Some(backend) = live() else { return };
    let request = CompletionRequest::new(vec![
        Message::system("You are a helpful assistant."),
        Message::user("Explain in a few sentences what a unit test is."),
    ])
    .with_sampling(Sampling {
        max_tokens: Some(128),
        ..Sampling::default()
    });
    let cancel = CancellationToken::new();
    let mut stream = backend.stream(&request, &cancel).await.unwrap();
    let mut tokens = 0u32;
    while let Some(event) = stream.next().await.unwrap() {
        if matches!(event, StreamEvent::TextDelta { .. }) {
            tokens += 1;
        }
    }
    let completion = stream.into_completion();
    let timing = completion.timing;
    let first_token = timing.first_token_s.unwrap();
    let streaming = timing.total_s - first_token;
    let rate = f64::from(tokens.saturating_sub(1)) / streaming.max(1e-9);
    eprintln!(
        "live model: first byte {:.0} ms, first token {:.0} ms, {tokens} text deltas in {:.2} s total, {rate:.1} tokens/s after the first",
        timing.first_byte_s.unwrap() * 1000.0,
        first_token * 1000.0,
        timing.total_s,
    );
    assert!(tokens > 1);
    assert!(timing.first_byte_s.unwrap() <= first_token && first_token <= timing.total_s);
}
