//! The OpenAI chat-completions wire: request bodies ([`body`]) and the streamed chunks
//! ([`StreamDecoder`]). Also what vLLM, llama.cpp, Ollama, OpenRouter and LiteLLM speak.

mod request;
mod stream;

pub(crate) use request::body;
pub use stream::{StreamDecoder, decode_whole, error_message};
