//! A JSON document 64 bytes at a time as bit masks (bit `i` is byte `i` of the block): where
//! its quotes, backslashes, brackets and control characters are, and which characters an
//! odd run of backslashes escapes. This is what lets the raw walk cross a log's long,
//! `\"`- and `\n`-dense strings and skip whole arrays without stopping at each byte: with
//! SSE2 (part of every x86_64) sixteen bytes are compared at once, elsewhere a plain loop
//! builds the same masks. The escape arithmetic is simdjson's (Langdale and Lemire,
//! "Parsing gigabytes of JSON per second", 2019).

/// Bytes per block.
pub(super) const BLOCK: usize = 64;

/// One block's bytes of interest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Masks {
    pub quote: u64,
    pub backslash: u64,
    /// `{` or `[`.
    pub open: u64,
    /// `}` or `]`.
    pub close: u64,
    /// Bytes below 0x20, which JSON forbids inside strings.
    pub control: u64,
}

/// The 64 bytes from `at`, padded with spaces past the end (a space is none of the bytes
/// looked for, so the padding never ends a string or closes a bracket). Inlined, so that a
/// caller that reads only some masks does not pay for the others.
#[inline(always)]
pub(super) fn masks_at(bytes: &[u8], at: usize) -> Masks {
    match bytes
        .get(at..at + BLOCK)
        .and_then(|b| <&[u8; BLOCK]>::try_from(b).ok())
    {
        Some(block) => masks(block),
        None => padded_masks(bytes, at),
    }
}

#[inline(never)]
fn padded_masks(bytes: &[u8], at: usize) -> Masks {
    let mut padded = [b' '; BLOCK];
    let rest = bytes.get(at..).unwrap_or(&[]);
    padded[..rest.len()].copy_from_slice(rest);
    masks(&padded)
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn masks(block: &[u8; BLOCK]) -> Masks {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_or_si128, _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of the x86_64 baseline, and each unaligned 16-byte load stays
    // inside the 64-byte block.
    unsafe {
        let p = block.as_ptr().cast::<__m128i>();
        let lanes = [
            _mm_loadu_si128(p),
            _mm_loadu_si128(p.add(1)),
            _mm_loadu_si128(p.add(2)),
            _mm_loadu_si128(p.add(3)),
        ];
        let eq = |byte: u8| move |v| _mm_cmpeq_epi8(v, _mm_set1_epi8(byte as i8));
        // `[`/`{` and `]`/`}` differ only in bit 0x20.
        let folded = |byte: u8| {
            move |v| _mm_cmpeq_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)), _mm_set1_epi8(byte as i8))
        };
        Masks {
            quote: mask(&lanes, eq(b'"')),
            backslash: mask(&lanes, eq(b'\\')),
            open: mask(&lanes, folded(b'{')),
            close: mask(&lanes, folded(b'}')),
            control: mask(&lanes, |v| {
                _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v)
            }),
        }
    }
}

/// One 64-bit mask from a comparison of each of the four lanes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn mask(
    lanes: &[std::arch::x86_64::__m128i; 4],
    compare: impl Fn(std::arch::x86_64::__m128i) -> std::arch::x86_64::__m128i,
) -> u64 {
    use std::arch::x86_64::_mm_movemask_epi8;
    // SAFETY: SSE2 is part of the x86_64 baseline.
    let bits = |v| (unsafe { _mm_movemask_epi8(compare(v)) }) as u32 as u16 as u64;
    bits(lanes[0]) | bits(lanes[1]) << 16 | bits(lanes[2]) << 32 | bits(lanes[3]) << 48
}

#[cfg(not(target_arch = "x86_64"))]
fn masks(block: &[u8; BLOCK]) -> Masks {
    portable_masks(block)
}

/// The masks a byte at a time: the fallback off x86_64, and the reference the tests hold
/// the vector version to.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn portable_masks(block: &[u8]) -> Masks {
    let mut m = Masks::default();
    for (i, &b) in block.iter().take(BLOCK).enumerate() {
        let bit = 1u64 << i;
        match b {
            b'"' => m.quote |= bit,
            b'\\' => m.backslash |= bit,
            b'{' | b'[' => m.open |= bit,
            b'}' | b']' => m.close |= bit,
            0..=0x1f => m.control |= bit,
            _ => {}
        }
    }
    m
}

/// Whether the 64 bytes of `block` are all ASCII.
#[cfg(target_arch = "x86_64")]
pub(super) fn ascii(block: &[u8; BLOCK]) -> bool {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128};
    // SAFETY: SSE2 is part of the x86_64 baseline; the four 16-byte loads stay inside the
    // 64-byte block.
    unsafe {
        let p = block.as_ptr().cast::<__m128i>();
        let a = _mm_or_si128(_mm_loadu_si128(p), _mm_loadu_si128(p.add(1)));
        let b = _mm_or_si128(_mm_loadu_si128(p.add(2)), _mm_loadu_si128(p.add(3)));
        _mm_movemask_epi8(_mm_or_si128(a, b)) == 0
    }
}

#[cfg(not(target_arch = "x86_64"))]
pub(super) fn ascii(block: &[u8; BLOCK]) -> bool {
    block.is_ascii()
}

const ODD_BITS: u64 = 0xAAAA_AAAA_AAAA_AAAA;

/// The characters of a block that a backslash escapes (the one after each odd run of
/// backslashes), given its backslashes; `carry` says whether the block's first character is
/// escaped by the previous block and is updated for the next.
pub(super) fn escaped(backslash: u64, carry: &mut u64) -> u64 {
    if backslash == 0 {
        return std::mem::take(carry);
    }
    // A backslash that is itself escaped starts no escape.
    let potential = backslash & !*carry;
    // Adding a run's start to the run carries past its end: whether the run's length is odd
    // shows in the parity of the bit it lands on, read against the odd bits.
    let codes = ((potential << 1) | ODD_BITS).wrapping_sub(potential) ^ ODD_BITS;
    let escaped = codes ^ (backslash | *carry);
    *carry = (codes & backslash) >> 63;
    escaped
}

/// Each bit set when an odd number of `quotes` bits are at or below it: inside a string,
/// counting its opening quote, not its closing one.
pub(super) fn prefix_xor(mut x: u64) -> u64 {
    for shift in [1, 2, 4, 8, 16, 32] {
        x ^= x << shift;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Escaped characters the slow way: after an odd run of backslashes.
    fn escaped_slowly(bytes: &[u8]) -> Vec<bool> {
        let mut out = vec![false; bytes.len()];
        let mut run = 0usize;
        for (i, &b) in bytes.iter().enumerate() {
            out[i] = run % 2 == 1;
            run = if b == b'\\' && !out[i] { run + 1 } else { 0 };
            if out[i] {
                run = 0;
            }
        }
        out
    }

    /// A small deterministic generator (no dependency for tests).
    fn next(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    #[test]
    fn escapes_across_blocks_match_the_byte_by_byte_reading() {
        let mut seed = 0x2545_f491_4f6c_dd1d;
        for round in 0..3000 {
            let len = 1 + (next(&mut seed) % 300) as usize;
            // Dense in backslashes (long runs cross block edges), then sparse.
            let dense = round % 2 == 0;
            let bytes: Vec<u8> = (0..len)
                .map(|_| match next(&mut seed) % if dense { 3 } else { 12 } {
                    0 | 1 => b'\\',
                    2 => b'"',
                    _ => b'a',
                })
                .collect();
            let want = escaped_slowly(&bytes);
            let mut carry = 0;
            for at in (0..len).step_by(BLOCK) {
                let m = masks_at(&bytes, at);
                let e = escaped(m.backslash, &mut carry);
                for i in 0..BLOCK.min(len - at) {
                    assert_eq!(e >> i & 1 == 1, want[at + i], "{bytes:?} at {}", at + i);
                }
            }
        }
    }

    #[test]
    fn vector_masks_match_the_portable_ones() {
        let mut seed = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..2000 {
            let block: [u8; BLOCK] = std::array::from_fn(|_| next(&mut seed) as u8);
            assert_eq!(masks(&block), portable_masks(&block), "{block:?}");
        }
        for start in (0..256).step_by(BLOCK) {
            let all: [u8; BLOCK] = std::array::from_fn(|i| (start + i) as u8);
            assert_eq!(masks(&all), portable_masks(&all));
        }
    }

    #[test]
    fn ascii_blocks_are_told_apart_by_any_high_byte() {
        let mut block = [b'a'; BLOCK];
        assert!(ascii(&block));
        for i in [0, 17, 63] {
            block[i] = 0x80;
            assert!(!ascii(&block));
            block[i] = 0x7f;
            assert!(ascii(&block));
        }
    }

    #[test]
    fn prefix_xor_marks_the_inside_of_strings() {
        // Quotes at 1, 6 and 11: inside from 1 to 5, and from 11 on (a string left open).
        let quotes = 1 << 1 | 1 << 6 | 1 << 11;
        assert_eq!(prefix_xor(quotes), 0b11_1110 | !0 << 11);
    }
}
