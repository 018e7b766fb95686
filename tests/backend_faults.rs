//! Every fault a backend can throw, injected by a loopback server: each ends in a successful
//! retry or a clear error (backend, status, the server's words, attempts), never a hang.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/loopback.rs"]
mod loopback;

use loopback::{Loopback, Piece, Reply, anthropic_sse, openai_sse, split};
use std::time::{Duration, Instant};
use trajscope::backend::{
    Backend, BackendConfig, BackendError, BackendKind, CancellationToken, Completion,
    CompletionRequest, DecodeError, Failure, RetryPolicy, StreamEvent, TimeoutPhase, Timeouts,
};
use trajscope::model::Message;

fn config(kind: BackendKind, url: &str) -> BackendConfig {
    BackendConfig::new(Some(kind), url, "m")
        .with_timeouts(Timeouts {
            connect_s: 2.0,
            read_s: 2.0,
            total_s: 20.0,
        })
        .with_retry(RetryPolicy {
            max_retries: 3,
            initial_backoff_s: 0.02,
            max_backoff_s: 0.1,
        })
}

fn openai(url: &str) -> Backend {
    Backend::with_lookup("faulty", config(BackendKind::OpenAi, url), &|_| None).unwrap()
}

fn with(config: BackendConfig) -> Backend {
    Backend::with_lookup("faulty", config, &|_| None).unwrap()
}

fn request() -> CompletionRequest {
    CompletionRequest::new(vec![Message::system("s"), Message::user("hi")])
}

async fn complete(backend: &Backend) -> Result<Completion, BackendError> {
    backend
        .complete(&request(), &CancellationToken::new())
        .await
}

fn hello() -> String {
    openai_sse(&[
        r#"{"choices":[{"index":0,"delta":{"content":"hel"}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}"#,
    ])
}

#[tokio::test]
async fn rate_limited_then_served_after_retry_after() {
    let server = Loopback::start(vec![
        Reply::status_with(
            429,
            &[("retry-after", "1")],
            r#"{"error":{"message":"Rate limit reached","type":"rate_limit"}}"#,
        ),
        Reply::sse(&hello(), 16),
    ])
    .await;
    let completion = complete(&openai(&server.base_url)).await.unwrap();
    assert_eq!(completion.text, "hello");
    assert_eq!(completion.timing.attempts, 2);
    let requests = server.requests();
    let waited = requests[1].at - requests[0].at;
    assert!(
        waited >= Duration::from_millis(950),
        "Retry-After: 1 was honoured, not the 20 ms backoff ({waited:?})"
    );
}

#[tokio::test]
async fn rate_limited_until_retries_run_out() {
    let server = Loopback::start(vec![Reply::status(
        429,
        r#"{"error":{"message":"Rate limit reached for requests","type":"requests"}}"#,
    )])
    .await;
    let error = complete(&openai(&server.base_url)).await.unwrap_err();
    assert_eq!(error.status(), Some(429));
    assert_eq!(error.attempts, 4, "the first attempt and 3 retries");
    assert_eq!(server.requests().len(), 4);
    let shown = error.to_string();
    assert!(
        shown.starts_with("backend `faulty` (openai at http://127.0.0.1:"),
        "{shown}"
    );
    assert!(
        shown.contains("HTTP 429 Too Many Requests: requests: Rate limit reached for requests"),
        "{shown}"
    );
    assert!(shown.ends_with("[after 4 attempts]"), "{shown}");
}

#[tokio::test]
async fn a_retry_after_beyond_the_deadline_fails_at_once() {
    let server = Loopback::start(vec![Reply::status_with(
        503,
        &[("retry-after", "3600")],
        "overloaded",
    )])
    .await;
    let started = Instant::now();
    let error = complete(&openai(&server.base_url)).await.unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "did not sleep for an hour"
    );
    assert_eq!(server.requests().len(), 1);
    assert!(
        matches!(error.failure, Failure::Status { status: 503, retry_after_s: Some(s), .. } if s == 3600.0),
        "{error:?}"
    );
    assert!(error.to_string().contains("retry after 3600 s"), "{error}");
}

#[tokio::test]
async fn server_error_then_success() {
    let server = Loopback::start(vec![
        Reply::status(500, "Internal Server Error"),
        Reply::status(502, "<html>bad gateway</html>"),
        Reply::sse(&hello(), 3),
    ])
    .await;
    let completion = complete(&openai(&server.base_url)).await.unwrap();
    assert_eq!(completion.text, "hello");
    assert_eq!(completion.timing.attempts, 3);
}

#[tokio::test]
async fn client_errors_are_not_retried_and_quote_the_server() {
    let server = Loopback::start(vec![Reply::status(
        400,
        r#"{"error":{"message":"This model's maximum context length is 4096 tokens","type":"invalid_request_error"}}"#,
    )])
    .await;
    let error = complete(&openai(&server.base_url)).await.unwrap_err();
    assert_eq!(server.requests().len(), 1);
    assert_eq!(error.attempts, 1);
    assert!(
        error
            .to_string()
            .ends_with("HTTP 400 Bad Request: invalid_request_error: This model's maximum context length is 4096 tokens"),
        "{error}"
    );
}

#[tokio::test]
async fn anthropic_error_bodies_are_read_too() {
    let server = Loopback::start(vec![Reply::status(
        401,
        r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
    )])
    .await;
    let backend = with(config(BackendKind::Anthropic, &server.base_url));
    let error = complete(&backend).await.unwrap_err();
    assert!(
        error
            .to_string()
            .ends_with("HTTP 401 Unauthorized: authentication_error: invalid x-api-key"),
        "{error}"
    );
}

#[tokio::test]
async fn dropped_mid_stream_after_tokens_keeps_the_partial_answer() {
    let partial = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"half an \"}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"answ";
    let server = Loopback::start(vec![Reply::DropMidStream {
        pieces: split(partial, 20, Duration::ZERO),
    }])
    .await;
    let backend = openai(&server.base_url);
    let mut stream = backend
        .stream(&request(), &CancellationToken::new())
        .await
        .unwrap();
    let error = loop {
        match stream.next().await {
            Ok(Some(_)) => {}
            Ok(None) => panic!("a broken stream must not look finished"),
            Err(error) => break error,
        }
    };
    assert!(
        matches!(error.failure, Failure::Interrupted { .. }),
        "{error:?}"
    );
    assert_eq!(
        server.requests().len(),
        1,
        "not retried: the caller already saw tokens"
    );
    assert_eq!(stream.completion().text, "half an ");
    assert_eq!(stream.completion().finish_reason, None);
    assert!(
        matches!(stream.next().await, Ok(None)),
        "over after the error"
    );
}

#[tokio::test]
async fn dropped_before_any_token_is_retried() {
    let server = Loopback::start(vec![
        Reply::DropMidStream {
            pieces: split(": keep-alive\n\n", 100, Duration::ZERO),
        },
        Reply::Close,
        Reply::sse(&hello(), 10),
    ])
    .await;
    let completion = complete(&openai(&server.base_url)).await.unwrap();
    assert_eq!(completion.text, "hello");
    assert_eq!(completion.timing.attempts, 3);
}

#[tokio::test]
async fn an_empty_200_is_retried_then_reported() {
    // llama-cpp-python with `--chat_format chatml-function-calling` answers a streamed
    // `tool_choice: "auto"` with an empty 200.
    let server = Loopback::start(vec![Reply::sse("", 1), Reply::sse(&hello(), 8)]).await;
    let completion = complete(&openai(&server.base_url)).await.unwrap();
    assert_eq!(completion.text, "hello");
    assert_eq!(completion.timing.attempts, 2);

    let server = Loopback::start(vec![Reply::sse("", 1)]).await;
    let error = complete(&openai(&server.base_url)).await.unwrap_err();
    assert_eq!(server.requests().len(), 4);
    assert!(
        error.to_string().ends_with(
            "the stream broke off: the server closed the connection before `data: [DONE]` [after 4 attempts]"
        ),
        "{error}"
    );
}

#[tokio::test]
async fn a_stream_that_ends_without_its_end_marker() {
    let no_done = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"cut\"}}]}\n\n";
    let server = Loopback::start(vec![Reply::sse(no_done, 100)]).await;
    let error = complete(&openai(&server.base_url)).await.unwrap_err();
    assert!(
        error.to_string().ends_with(
            "the stream broke off: the server closed the connection before `data: [DONE]`"
        ),
        "{error}"
    );
}

#[tokio::test]
async fn a_malformed_event() {
    let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\n\ndata: {\"choices\": [oops\n\n";
    let server = Loopback::start(vec![Reply::sse(body, 1000)]).await;
    let backend = openai(&server.base_url);
    let mut stream = backend
        .stream(&request(), &CancellationToken::new())
        .await
        .unwrap();
    assert!(matches!(
        stream.next().await,
        Ok(Some(StreamEvent::Started { .. }))
    ));
    assert_eq!(
        stream.next().await.unwrap(),
        Some(StreamEvent::TextDelta { text: "ok".into() }),
        "events before the bad one still arrive"
    );
    let error = stream.next().await.unwrap_err();
    match &error.failure {
        Failure::Decode(DecodeError::Malformed { excerpt, .. }) => {
            assert_eq!(excerpt, "{\"choices\": [oops")
        }
        other => panic!("{other:?}"),
    }
    assert!(error.to_string().contains("malformed event"), "{error}");
}

#[tokio::test]
async fn an_error_event_inside_an_anthropic_stream() {
    let overloaded = anthropic_sse(&[(
        "error",
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
    )]);
    let good = anthropic_sse(&[
        (
            "message_start",
            r#"{"type":"message_start","message":{"id":"m","model":"c","usage":{"input_tokens":1,"output_tokens":1}}}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"fine"}}"#,
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":0}"#,
        ),
        (
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}"#,
        ),
        ("message_stop", r#"{"type":"message_stop"}"#),
    ]);
    // Overloaded before any content: retried.
    let server = Loopback::start(vec![Reply::sse(&overloaded, 50), Reply::sse(&good, 50)]).await;
    let backend = with(config(BackendKind::Anthropic, &server.base_url));
    assert_eq!(complete(&backend).await.unwrap().text, "fine");

    // An error after content: reported.
    let late = format!(
        "{}{overloaded}",
        anthropic_sse(&[(
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"par"}}"#,
        )])
    );
    let server = Loopback::start(vec![Reply::sse(&late, 50)]).await;
    let backend = with(config(BackendKind::Anthropic, &server.base_url));
    let error = complete(&backend).await.unwrap_err();
    assert!(
        error
            .to_string()
            .ends_with("the server sent an error in the stream: overloaded_error: Overloaded"),
        "{error}"
    );
}

#[tokio::test]
async fn a_stall_mid_stream_hits_the_read_timeout() {
    let mut pieces = split(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n",
        1000,
        Duration::ZERO,
    );
    pieces.push(Piece {
        delay: Duration::from_secs(5),
        bytes: b"data: [DONE]\n\n".to_vec(),
    });
    let server = Loopback::start(vec![Reply::Stream {
        pieces,
        chunked: true,
    }])
    .await;
    let mut config = config(BackendKind::OpenAi, &server.base_url);
    config.timeouts.read_s = 0.3;
    let started = Instant::now();
    let error = complete(&with(config)).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(4));
    assert_eq!(
        error.failure,
        Failure::Timeout {
            phase: TimeoutPhase::Read,
            after: Duration::from_millis(300)
        }
    );
}

#[tokio::test]
async fn no_response_headers_in_time_is_retried_then_reported() {
    let server = Loopback::start(vec![Reply::Hang]).await;
    let mut config = config(BackendKind::OpenAi, &server.base_url);
    config.timeouts.read_s = 0.2;
    config.retry.max_retries = 1;
    let error = complete(&with(config)).await.unwrap_err();
    assert_eq!(error.attempts, 2);
    assert_eq!(server.requests().len(), 2);
    assert!(
        error
            .to_string()
            .contains("timed out waiting for the server (timeouts.read_s) after 0.2 s"),
        "{error}"
    );
}

#[tokio::test]
async fn slow_tokens_past_the_total_deadline() {
    let pieces: Vec<Piece> = (0..100)
        .map(|_| Piece {
            delay: Duration::from_millis(100),
            bytes: b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\n\n"
                .to_vec(),
        })
        .collect();
    let server = Loopback::start(vec![Reply::Stream {
        pieces,
        chunked: true,
    }])
    .await;
    let mut config = config(BackendKind::OpenAi, &server.base_url);
    config.timeouts.total_s = 0.6;
    let error = complete(&with(config)).await.unwrap_err();
    assert!(
        matches!(
            error.failure,
            Failure::Timeout {
                phase: TimeoutPhase::Total,
                ..
            }
        ),
        "{error:?}"
    );
}

#[tokio::test]
async fn nobody_listening() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let mut config = config(BackendKind::OpenAi, &format!("http://127.0.0.1:{port}"));
    config.retry.max_retries = 1;
    let error = complete(&with(config)).await.unwrap_err();
    assert!(
        matches!(error.failure, Failure::Connect { .. }),
        "{error:?}"
    );
    assert_eq!(error.attempts, 2);
    let shown = error.to_string();
    assert!(shown.contains("cannot connect"), "{shown}");
    assert!(shown.to_lowercase().contains("refused"), "{shown}");
}

#[tokio::test]
async fn cancelling_stops_the_stream_and_closes_the_connection() {
    let pieces: Vec<Piece> = (0..200)
        .map(|_| Piece {
            delay: Duration::from_millis(20),
            bytes: b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\n\n"
                .to_vec(),
        })
        .collect();
    let server = Loopback::start(vec![Reply::Stream {
        pieces,
        chunked: true,
    }])
    .await;
    let backend = openai(&server.base_url);
    let cancel = CancellationToken::new();
    let mut stream = backend.stream(&request(), &cancel).await.unwrap();
    let mut texts = 0;
    while texts < 3 {
        if let Some(StreamEvent::TextDelta { .. }) = stream.next().await.unwrap() {
            texts += 1;
        }
    }
    let canceller = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(30)).await;
        canceller.cancel();
    });
    let cancelled_at = loop {
        match stream.next().await {
            Ok(Some(_)) => {}
            Ok(None) => panic!("the stream finished instead of being cancelled"),
            Err(error) => {
                assert!(error.is_cancelled(), "{error:?}");
                break Instant::now();
            }
        }
    };
    assert_eq!(
        stream.completion().text.len(),
        stream.completion().text.matches('x').count()
    );
    assert!(
        stream.completion().text.len() < 50,
        "stopped long before the 200 tokens"
    );
    // The server notices within a few of its 20 ms writes that nobody reads any more.
    for _ in 0..100 {
        if !server.hung_up().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let hung_up = server.hung_up();
    assert_eq!(hung_up.len(), 1, "the connection was closed");
    assert!(hung_up[0] >= cancelled_at - Duration::from_millis(100));
}

#[tokio::test]
async fn cancelling_during_a_retry_wait() {
    let server = Loopback::start(vec![Reply::status_with(429, &[("retry-after", "10")], "")]).await;
    let backend = openai(&server.base_url);
    let cancel = CancellationToken::new();
    let canceller = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        canceller.cancel();
    });
    let started = Instant::now();
    let error = backend.complete(&request(), &cancel).await.unwrap_err();
    assert!(error.is_cancelled(), "{error:?}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "did not wait out the 10 s"
    );
    assert_eq!(error.to_string().rsplit(": ").next(), Some("cancelled"));
}
