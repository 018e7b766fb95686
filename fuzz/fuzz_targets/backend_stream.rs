//! Streamed model answers: arbitrary bytes through the SSE decoder and both wire protocols
//! (OpenAI chunks, Anthropic events), fed whole and in pieces. Nothing may panic, and where the
//! body is cut must not change what comes out.

#![no_main]

use libfuzzer_sys::fuzz_target;
use trajscope::backend::{BackendKind, DecodeError, StreamDecoder, StreamEvent, decode_whole};

fn decode(
    kind: BackendKind,
    body: &[u8],
    piece: usize,
) -> (Vec<StreamEvent>, Result<(), DecodeError>) {
    let mut decoder = StreamDecoder::new(kind);
    let mut events = Vec::new();
    for chunk in body.chunks(piece.max(1)) {
        if let Err(error) = decoder.feed(chunk, &mut events) {
            return (events, Err(error));
        }
    }
    let end = decoder.finish(&mut events);
    (events, end)
}

fuzz_target!(|input: &[u8]| {
    // The first byte picks the protocol and the piece size; the rest is the body.
    let Some((&control, body)) = input.split_first() else {
        return;
    };
    let kind = if control & 1 == 0 {
        BackendKind::OpenAi
    } else {
        BackendKind::Anthropic
    };
    let whole = decode(kind, body, body.len());
    let pieces = decode(kind, body, usize::from(control >> 1));
    assert_eq!(whole, pieces, "the split changed the events");
    let _ = decode_whole(kind, body);
});
