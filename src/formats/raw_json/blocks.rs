//! A JSON document 64 bytes at a time: whether a block is all ASCII, with SSE2 (part of every
//! x86_64) or, elsewhere, the standard check. It lets the UTF-8 check of a log skip its ASCII,
//! which is nearly all of it.

/// Bytes per block.
pub(super) const BLOCK: usize = 64;

/// Whether the 64 bytes of `block` are all ASCII.
#[cfg(target_arch = "x86_64")]
pub(super) fn ascii(block: &[u8; BLOCK]) -> bool {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128};
    // SAFETY: SSE2 is part of the x86_64 baseline; the four 16-byte loads stay inside the
    // 64-byte block.
    unsafe {
        // `loadu` reads unaligned: the pointer's alignment does not matter.
        #[allow(clippy::cast_ptr_alignment)]
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
