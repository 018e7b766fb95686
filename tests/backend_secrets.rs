//! A key in the environment reaches the server and nothing else: not the Debug or Display of a
//! config, a backend, a prepared request, a completion or an error, even when the server echoes
//! it back. One test in its own binary, because it sets a process environment variable.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/loopback.rs"]
mod loopback;

use loopback::{Loopback, Reply};
use trajscope::backend::{
    Backend, BackendConfig, BackendKind, BackendsFile, CancellationToken, CompletionRequest,
    RetryPolicy,
};
use trajscope::model::Message;

const VAR: &str = "TRAJSCOPE_TEST_SECRET_KEY";
const KEY: &str = "sk-env-secret-7f3a9c1e5b2d4806";

#[tokio::test]
async fn the_key_never_leaks() {
    // SAFETY: this binary has this one test, and no other thread reads the environment yet.
    unsafe { std::env::set_var(VAR, KEY) };

    let echo = format!(
        r#"{{"error":{{"message":"Incorrect API key provided: {KEY}. You can find your API key at …","type":"invalid_request_error"}}}}"#
    );
    let garbage = format!("data: {{\"choices\": [\"{KEY}\n\n");
    let server = Loopback::start(vec![
        Reply::status(401, &echo),
        Reply::sse(&garbage, 9),
        Reply::status(500, &echo),
    ])
    .await;

    let file = format!(
        "[backends.env]\nkind = \"openai\"\nbase_url = \"{}\"\nmodel = \"m\"\napi_key_env = \"{VAR}\"\nretry = {{ max_retries = 0 }}\n",
        server.base_url
    );
    let backends = BackendsFile::parse(&file, std::path::Path::new("backends.toml")).unwrap();
    let config = backends.get("env").unwrap().clone();
    let backend = Backend::new("env", config.clone()).unwrap();
    let request = CompletionRequest::new(vec![Message::user("hi")]);
    let cancel = CancellationToken::new();

    let unauthorized = backend.complete(&request, &cancel).await.unwrap_err();
    let malformed = backend.complete(&request, &cancel).await.unwrap_err();
    let retried = Backend::new(
        "env",
        config.clone().with_retry(RetryPolicy {
            max_retries: 0,
            ..RetryPolicy::default()
        }),
    )
    .unwrap()
    .complete(&request, &cancel)
    .await
    .unwrap_err();

    let requests = server.requests();
    assert_eq!(
        requests[0].header("authorization"),
        Some(&*format!("Bearer {KEY}")),
        "the key from the environment was sent"
    );
    assert!(
        unauthorized
            .to_string()
            .contains("Incorrect API key provided: <redacted>.")
    );

    let prepared = backend.prepare(&request);
    let anthropic = Backend::new(
        "a",
        BackendConfig::new(Some(BackendKind::Anthropic), &server.base_url, "m")
            .with_api_key_env(VAR),
    )
    .unwrap();
    let shown = [
        format!("{config:?}"),
        format!("{backends:?}"),
        config.settings_json().to_string(),
        toml::to_string(&backends).unwrap(),
        format!("{backend:?}"),
        format!("{anthropic:?}"),
        format!("{prepared:?}"),
        prepared.to_string(),
        format!("{:?}", anthropic.prepare(&request)),
        format!("{unauthorized:?}"),
        unauthorized.to_string(),
        format!("{malformed:?}"),
        malformed.to_string(),
        format!("{retried:?}"),
        retried.to_string(),
    ];
    for (i, text) in shown.iter().enumerate() {
        assert!(!text.contains(KEY), "item {i} shows the key: {text}");
        assert!(
            !text.contains("7f3a9c1e"),
            "item {i} shows part of the key: {text}"
        );
    }
    assert!(
        malformed.to_string().contains("malformed event"),
        "{malformed}"
    );
}
