//! Model backends: ask a live model to continue a context, and stream its answer.
//!
//! Two wire protocols — OpenAI-compatible chat completions and Anthropic Messages — behind one
//! API: build a [`CompletionRequest`] from trajscope [`Message`](crate::model::Message)s, get a
//! [`Backend`] from a [`BackendConfig`] (a `[backends.NAME]` table of
//! [`BackendsFile`], or flags), then [`Backend::stream`] it and read [`StreamEvent`]s until the
//! [`Completion`] is whole. The decoding ([`sse`], [`StreamDecoder`]) is sans-IO, so it is
//! tested and fuzzed without a network.
//!
//! Owns request building, decoding, HTTP, retries, timeouts, cancellation and keys. Knows
//! nothing of steps, forks or execution (that is `replay`) and never prints. Keys are read
//! from the environment and never reach a `Debug`/`Display`, an error or a file.

mod anthropic;
mod client;
mod config;
mod decode;
mod error;
mod event;
mod kind;
mod openai;
mod request;
mod retry;
mod secret;
mod select;
pub mod sse;

pub use client::{Backend, CompletionStream, PreparedRequest};
pub use config::{
    BackendConfig, BackendsFile, ConfigError, RetryPolicy, Sampling, Timeouts, display_url,
};
pub use decode::{DecodeError, StreamDecoder, decode_whole};
pub use error::{BackendError, Failure, TimeoutPhase};
pub use event::{Completion, FinishReason, StreamEvent, Timing};
pub use kind::BackendKind;
pub use request::{Body, CompletionRequest, ToolChoice, ToolSpec, body};
pub use secret::ApiKey;
pub use select::{AD_HOC, AdHoc, SelectError, select};
pub use tokio_util::sync::CancellationToken;
