//! The Anthropic Messages wire: request bodies ([`body`]) and the stream events
//! ([`StreamDecoder`]).

mod request;
mod stream;

pub(crate) use request::body;
pub use stream::{StreamDecoder, decode_whole, error_message};
