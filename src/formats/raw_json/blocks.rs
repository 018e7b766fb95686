//! A JSON document 64 bytes at a time, with SSE2 (part of every x86_64) or, elsewhere, plain
//! loops: whether a block is all ASCII (the UTF-8 check of a log skips its ASCII, which is
//! nearly all of it), and where its quotes are (a string is crossed block by block, not
//! quote by quote).

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

/// Whether `block` holds a control character (a byte below 0x20), which a JSON string may
/// not hold raw.
#[cfg(target_arch = "x86_64")]
pub(super) fn controls(block: &[u8; BLOCK]) -> bool {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of the x86_64 baseline; the four 16-byte loads stay inside the
    // 64-byte block.
    unsafe {
        #[allow(clippy::cast_ptr_alignment)]
        let p = block.as_ptr().cast::<__m128i>();
        let below = _mm_set1_epi8(0x1f);
        // A byte is below 0x20 exactly when it is its (unsigned) minimum with 0x1f.
        let lane = |i: usize| {
            let x = _mm_loadu_si128(p.add(i));
            _mm_cmpeq_epi8(_mm_min_epu8(x, below), x)
        };
        let any = _mm_or_si128(
            _mm_or_si128(lane(0), lane(1)),
            _mm_or_si128(lane(2), lane(3)),
        );
        _mm_movemask_epi8(any) != 0
    }
}

#[cfg(not(target_arch = "x86_64"))]
pub(super) fn controls(block: &[u8; BLOCK]) -> bool {
    block.iter().any(|&b| b < 0x20)
}

/// The quotes (`"`) of `block` as bits: bit `i` is set when `block[i]` is one.
#[cfg(target_arch = "x86_64")]
pub(super) fn quotes(block: &[u8; BLOCK]) -> u64 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of the x86_64 baseline; the four 16-byte loads stay inside the
    // 64-byte block.
    unsafe {
        #[allow(clippy::cast_ptr_alignment)]
        let p = block.as_ptr().cast::<__m128i>();
        let quote = _mm_set1_epi8(b'"' as i8);
        let lane = |i: usize| {
            let mask = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(p.add(i)), quote));
            // The mask holds 16 bits: the sign-extending cast cannot set others.
            u64::from(mask as u16) << (16 * i)
        };
        lane(0) | lane(1) | lane(2) | lane(3)
    }
}

/// [`quotes`] with AVX2: two 32-byte lanes instead of four 16-byte ones. Callers check
/// that the CPU has it, once per string (see `raw_json::string_end`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn quotes_avx2(block: &[u8; BLOCK]) -> u64 {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_set1_epi8,
    };
    #[allow(clippy::cast_ptr_alignment)]
    let p = block.as_ptr().cast::<__m256i>();
    let quote = _mm256_set1_epi8(b'"' as i8);
    // SAFETY: the two 32-byte loads stay inside the 64-byte block; `loadu` reads unaligned.
    let (low, high) = unsafe { (_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1))) };
    let low = _mm256_movemask_epi8(_mm256_cmpeq_epi8(low, quote));
    let high = _mm256_movemask_epi8(_mm256_cmpeq_epi8(high, quote));
    // Each mask holds 32 bits: the casts keep them as they are.
    u64::from(low as u32) | u64::from(high as u32) << 32
}

#[cfg(not(target_arch = "x86_64"))]
pub(super) fn quotes(block: &[u8; BLOCK]) -> u64 {
    block
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'"')
        .fold(0, |mask, (i, _)| mask | 1 << i)
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

    #[test]
    fn controls_are_every_byte_below_0x20_and_no_other() {
        for other in [0x20, 0x7f, 0x80, 0x9f, 0xff] {
            let mut block = [other; BLOCK];
            assert!(!controls(&block));
            for control in [0, 0x0a, 0x1f] {
                for i in [0, 16, 40, 63] {
                    block[i] = control;
                    assert!(controls(&block));
                    block[i] = other;
                }
            }
        }
    }

    #[test]
    fn quotes_are_found_at_every_place_of_a_block() {
        let mut block = [b'\\'; BLOCK];
        assert_eq!(quotes(&block), 0);
        for i in [0, 1, 15, 16, 31, 32, 47, 48, 63] {
            block[i] = b'"';
            assert_eq!(quotes(&block), 1 << i);
            block[i] = 0xa2;
            assert_eq!(quotes(&block), 0);
        }
        block[3] = b'"';
        block[60] = b'"';
        assert_eq!(quotes(&block), 1 << 3 | 1 << 60);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn quotes_with_avx2_are_the_same_bits() {
        if !std::is_x86_feature_detected!("avx2") {
            return;
        }
        let mut block = [b'a'; BLOCK];
        for i in 0..BLOCK {
            block[i] = if i % 7 == 0 { b'"' } else { 0xa2 };
            block[(i * 13) % BLOCK] = b'"';
            // SAFETY: the CPU has AVX2 (checked above).
            assert_eq!(unsafe { quotes_avx2(&block) }, quotes(&block));
            assert_ne!(quotes(&block), 0);
        }
    }
}
