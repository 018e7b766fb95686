//! Walking a JSON document held in memory without decoding it: where each value starts and
//! ends, and the members of an object as (raw key, value span). Strings are crossed by
//! jumping from quote to quote (a quote preceded by an odd run of backslashes is escaped),
//! which is what makes skipping a log's long, `\n`-dense strings cheap; nothing is unescaped
//! by the walk ([`unescape_short`] decodes a string's common form for callers that want its
//! text), and the UTF-8 check ([`is_utf8`]) skips ASCII 64 bytes at a time. The walk checks the
//! structure (brackets, colons, commas) but not what is inside the strings and scalars it
//! skips: callers that need a value decode its span with serde, which checks it. Any surprise
//! gives `None`, and the caller reads the file the usual way (which then words the error).

mod blocks;
mod unescape;

use blocks::{BLOCK, ascii, controls, quotes};
use memchr::memchr;

pub(crate) use unescape::{unescape, unescape_short};

/// A value's bytes: `start..end` of the document.
pub(crate) type Span = std::ops::Range<usize>;

fn skip_ws(bytes: &[u8], mut at: usize) -> usize {
    while at < bytes.len() && matches!(bytes[at], b' ' | b'\n' | b'\r' | b'\t') {
        at += 1;
    }
    at
}

/// Whether `bytes` are valid UTF-8, as `std::str::from_utf8` says, skipping ASCII 64 bytes
/// at a time: logs are mostly ASCII, and the standard check costs about one instruction a
/// byte on them. Only the runs of blocks holding other bytes go to the standard check; each
/// run starts and ends at an ASCII block's edge, which is a character's edge.
pub(crate) fn is_utf8(bytes: &[u8]) -> bool {
    let block_at = |at: usize| {
        bytes
            .get(at..at + BLOCK)
            .and_then(|b| <&[u8; BLOCK]>::try_from(b).ok())
    };
    let mut at = 0;
    while let Some(block) = block_at(at) {
        if ascii(block) {
            at += BLOCK;
            continue;
        }
        let mut end = at + BLOCK;
        while block_at(end).is_some_and(|b| !ascii(b)) {
            end += BLOCK;
        }
        if block_at(end).is_none() {
            break;
        }
        if std::str::from_utf8(&bytes[at..end]).is_err() {
            return false;
        }
        at = end + BLOCK;
    }
    std::str::from_utf8(&bytes[at..]).is_ok()
}

/// Whether `bytes` hold a control character (below 0x20), 64 bytes at a time: a string's
/// inside that holds none can be unescaped by hand (a raw control character is an error
/// serde words). Byte by byte this was two instructions a byte of every action decoded.
pub(crate) fn has_control(bytes: &[u8]) -> bool {
    let mut blocks = bytes.chunks_exact(BLOCK);
    let found = blocks.any(|b| <&[u8; BLOCK]>::try_from(b).is_ok_and(controls));
    found || blocks.remainder().iter().any(|&b| b < 0x20)
}

/// The end (one past the closing quote) of the string whose opening quote is at `at`.
///
/// The string is crossed 64 bytes at a time: each block's quotes come as bits, and a quote
/// preceded by an odd run of backslashes (escaped) is passed over without reloading the
/// block. Jumping from quote to quote with `memchr` cost a call per quote, and a log's
/// messages hold many escaped ones (`\"` is 293,000 of the CodeR run's 458,000 quotes).
pub(crate) fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above).
        return unsafe { string_end_avx2(bytes, at) };
    }
    string_end_by(bytes, at, quotes)
}

/// [`string_end`] with each block's quotes found by AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn string_end_avx2(bytes: &[u8], at: usize) -> Option<usize> {
    string_end_by(bytes, at, |block| blocks::quotes_avx2(block))
}

/// [`string_end`] with `quotes` giving each block's quotes as bits; inlined into each of
/// its callers, so that the AVX2 one's blocks are read with AVX2 throughout: left out of
/// line, its call of the AVX2 closure could not be inlined (a function without AVX2 cannot
/// take in one with it), a call per block.
#[allow(clippy::inline_always)]
#[inline(always)]
fn string_end_by(bytes: &[u8], at: usize, quotes: impl Fn(&[u8; BLOCK]) -> u64) -> Option<usize> {
    let mut base = at + 1;
    while let Some(block) = bytes
        .get(base..base + BLOCK)
        .and_then(|b| <&[u8; BLOCK]>::try_from(b).ok())
    {
        let mut found = quotes(block);
        while found != 0 {
            let quote = base + found.trailing_zeros() as usize;
            if !escaped(bytes, quote) {
                return Some(quote + 1);
            }
            found &= found - 1;
        }
        base += BLOCK;
    }
    let mut from = base;
    loop {
        let quote = from + memchr(b'"', bytes.get(from..)?)?;
        if !escaped(bytes, quote) {
            return Some(quote + 1);
        }
        from = quote + 1;
    }
}

/// Whether the quote at `quote` inside a string is escaped: preceded by an odd run of
/// backslashes (the run stops at the latest at the string's opening quote).
fn escaped(bytes: &[u8], quote: usize) -> bool {
    bytes[..quote]
        .iter()
        .rev()
        .take_while(|&&b| b == b'\\')
        .count()
        % 2
        == 1
}

/// The end of the value that starts at `at` (after any whitespace).
pub(crate) fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    let at = skip_ws(bytes, at);
    match *bytes.get(at)? {
        b'"' => string_end(bytes, at),
        b'{' | b'[' => container_end(bytes, at),
        _ => {
            // A scalar: runs until the next delimiter.
            let len = bytes[at..]
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t'))
                .unwrap_or(bytes.len() - at);
            (len > 0).then_some(at + len)
        }
    }
}

/// The end of the object or array that opens at `at`: brackets are counted between strings,
/// and each string is jumped over whole.
fn container_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut stack: Vec<u8> = vec![bytes[at]];
    let mut i = at + 1;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' => {
                i = string_end(bytes, i)?;
                continue;
            }
            b'{' | b'[' => stack.push(b),
            b'}' | b']' => {
                let open = stack.pop()?;
                if (open == b'{') != (b == b'}') {
                    return None;
                }
                if stack.is_empty() {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Calls `each` with every member of the object at `at` (raw key bytes without quotes, span of
/// the value, whitespace excluded); `each` returns false to give up. The end of the object,
/// or `None` when it is not a well-formed object or `each` gave up.
pub(crate) fn members(
    bytes: &[u8],
    at: usize,
    each: &mut dyn FnMut(&[u8], Span) -> bool,
) -> Option<usize> {
    walk_members(bytes, at, &mut |key, start| {
        let end = value_end(bytes, start)?;
        each(key, start..end).then_some(end)
    })
}

/// The members of the object at `at` named in `wanted`, and its end; `None` when it is not
/// an object, repeats a member of `wanted` (serde refuses duplicates in a struct and keeps the
/// last in a value: the caller reads such a file the usual way) or has a key with an escape.
pub(crate) fn object_members<const N: usize>(
    bytes: &[u8],
    at: usize,
    wanted: [&[u8]; N],
) -> Option<(usize, [Option<Span>; N])> {
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    let mut found: [Option<Span>; N] = std::array::from_fn(|_| None);
    let end = members(
        bytes,
        at,
        &mut |key, value| match wanted.iter().position(|w| *w == key) {
            Some(i) => found[i].replace(value).is_none(),
            None => !key.contains(&b'\\'),
        },
    )?;
    Some((end, found))
}

/// Like [`members`], but `each` is given where each value starts and reads it itself,
/// returning its end (`None` to give up): a value read member by member is then crossed
/// once, not once to find its end and again to read it.
pub(crate) fn walk_members(
    bytes: &[u8],
    at: usize,
    each: &mut dyn FnMut(&[u8], usize) -> Option<usize>,
) -> Option<usize> {
    let mut i = skip_ws(bytes, at);
    if bytes.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_ws(bytes, i + 1);
    if bytes.get(i) == Some(&b'}') {
        return Some(i + 1);
    }
    loop {
        if bytes.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = string_end(bytes, i)?;
        let key = &bytes[i + 1..key_end - 1];
        i = skip_ws(bytes, key_end);
        if bytes.get(i) != Some(&b':') {
            return None;
        }
        let end = each(key, skip_ws(bytes, i + 1))?;
        i = skip_ws(bytes, end);
        match bytes.get(i)? {
            b',' => i = skip_ws(bytes, i + 1),
            b'}' => return Some(i + 1),
            _ => return None,
        }
    }
}

/// Calls `each` with where every element of the array at `at` starts; `each` reads it and
/// returns its end (`None` to give up). The end of the array, or `None` when it is not a
/// well-formed array or `each` gave up.
pub(crate) fn walk_elements(
    bytes: &[u8],
    at: usize,
    each: &mut dyn FnMut(usize) -> Option<usize>,
) -> Option<usize> {
    let mut i = skip_ws(bytes, at);
    if bytes.get(i) != Some(&b'[') {
        return None;
    }
    i = skip_ws(bytes, i + 1);
    if bytes.get(i) == Some(&b']') {
        return Some(i + 1);
    }
    loop {
        let end = each(i)?;
        i = skip_ws(bytes, end);
        match bytes.get(i)? {
            b',' => i = skip_ws(bytes, i + 1),
            b']' => return Some(i + 1),
            _ => return None,
        }
    }
}

/// Whether the document is `value` followed by nothing but whitespace.
pub(crate) fn only_whitespace_after(bytes: &[u8], end: usize) -> bool {
    skip_ws(bytes, end) == bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_and_elements_cross_escaped_quotes_and_nesting() {
        let doc = br#" {"a": "x\"}\\", "b" : [1, {"c": "]"}, [true]], "d":null} "#;
        let mut seen = Vec::new();
        let end = members(doc, 0, &mut |key, span| {
            seen.push((
                String::from_utf8_lossy(key).into_owned(),
                String::from_utf8_lossy(&doc[span]).into_owned(),
            ));
            true
        })
        .unwrap();
        assert!(only_whitespace_after(doc, end));
        assert_eq!(
            seen,
            vec![
                ("a".to_string(), r#""x\"}\\""#.to_string()),
                ("b".to_string(), r#"[1, {"c": "]"}, [true]]"#.to_string()),
                ("d".to_string(), "null".to_string()),
            ]
        );
        let mut items = Vec::new();
        let array = br#"[1, {"c": "]"}, [true]]"#;
        walk_elements(array, 0, &mut |start| {
            let end = value_end(array, start)?;
            items.push(String::from_utf8_lossy(&array[start..end]).into_owned());
            Some(end)
        })
        .unwrap();
        assert_eq!(items, vec!["1", r#"{"c": "]"}"#, "[true]"]);
    }

    #[test]
    fn broken_documents_give_none() {
        for doc in [
            &br#"{"a": "open}"#[..],
            br#"{"a" 1}"#,
            br#"{"a": [1}"#,
            br#"{"a": 1 "b": 2}"#,
            br#"["#,
        ] {
            assert!(members(doc, 0, &mut |_, _| true).is_none(), "{doc:?}");
        }
    }

    /// A generated value: strings of quotes, backslashes, brackets, control characters and
    /// non-ASCII (which serde escapes), nested lists and objects, long enough to cross blocks.
    fn generated(seed: &mut u64, depth: usize) -> serde_json::Value {
        use serde_json::Value;
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        let pick = *seed;
        match pick % if depth > 3 { 2 } else { 4 } {
            0 => Value::String(
                (0..pick % 150)
                    .map(|i| {
                        ['"', '\\', '[', '}', '\n', 'a', 'é', '\u{1}', ' ']
                            [(pick >> (i % 50)) as usize % 9]
                    })
                    .collect(),
            ),
            1 => Value::from(pick % 1000),
            2 => Value::Array((0..pick % 5).map(|_| generated(seed, depth + 1)).collect()),
            _ => Value::Object(
                (0..pick % 5)
                    .map(|i| (format!("k{i}\"]"), generated(seed, depth + 1)))
                    .collect(),
            ),
        }
    }

    #[test]
    fn generated_documents_walk_to_their_end_and_their_members_decode_back() {
        let mut seed = 0x1234_5678_9abc_def1;
        for round in 0..2000 {
            let value =
                serde_json::json!({"a": generated(&mut seed, 0), "b": generated(&mut seed, 0)});
            let doc = if round % 2 == 0 {
                serde_json::to_vec(&value).unwrap()
            } else {
                serde_json::to_vec_pretty(&value).unwrap()
            };
            let mut decoded = serde_json::Map::new();
            let end = members(&doc, 0, &mut |key, span| {
                let key: String = serde_json::from_slice(&[b"\"", key, b"\""].concat()).unwrap();
                decoded.insert(key, serde_json::from_slice(&doc[span]).unwrap());
                true
            });
            assert_eq!(end, Some(doc.len()), "{}", String::from_utf8_lossy(&doc));
            assert_eq!(serde_json::Value::Object(decoded), value);
            // Cut anywhere inside, the document is no longer whole.
            let cut = 1 + (seed as usize) % (doc.len() - 1);
            assert!(value_end(&doc[..cut], 0).is_none());
        }
    }

    /// The end of the string at `at`, byte by byte: the reading `string_end` must agree with.
    fn string_end_byte_by_byte(bytes: &[u8], at: usize) -> Option<usize> {
        let mut i = at + 1;
        while i < bytes.len() {
            match bytes[i] {
                b'\\' => i += 2,
                b'"' => return Some(i + 1),
                _ => i += 1,
            }
        }
        None
    }

    #[test]
    fn string_ends_agree_with_a_byte_by_byte_reading() {
        let mut seed = 0x5eed_1234_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut checked = 0;
        for _ in 0..4000 {
            // Runs of backslashes and quotes of every length, across 64-byte block edges.
            let len = (next() % 300) as usize;
            let mut doc = vec![b'"'];
            while doc.len() < len {
                let piece: &[u8] = match next() % 6 {
                    0 => br"\\",
                    1 => br#"\""#,
                    2 => br"\",
                    3 => br#"""#,
                    4 => b"plain text ",
                    _ => "\u{e9}x".as_bytes(),
                };
                doc.extend_from_slice(piece);
            }
            for at in 0..doc.len() {
                if doc[at] == b'"' {
                    assert_eq!(
                        string_end(&doc, at),
                        string_end_byte_by_byte(&doc, at),
                        "{at} in {}",
                        String::from_utf8_lossy(&doc)
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 10_000);
    }

    #[test]
    fn utf8_is_checked_as_the_standard_library_checks_it() {
        let mut seed = 0x0bad_cafe_u64;
        let pieces: [&[u8]; 7] = [
            b"plain ascii text ",
            "é".as_bytes(),
            "€".as_bytes(),
            "😀".as_bytes(),
            &[0xff],
            &[0xe2, 0x82],
            b"\n",
        ];
        for round in 0..3000 {
            let mut doc = Vec::new();
            while doc.len() < 300 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                // Mostly ASCII, sometimes a bad byte: both answers are exercised.
                let i = (seed % if round % 3 == 0 { 7 } else { 4 }) as usize;
                doc.extend_from_slice(
                    pieces[if i < 4 && seed.is_multiple_of(5) {
                        0
                    } else {
                        i
                    }],
                );
            }
            for cut in [doc.len(), doc.len() - 1, 130, 64, 63] {
                let part = &doc[..cut];
                assert_eq!(is_utf8(part), std::str::from_utf8(part).is_ok(), "{part:?}");
            }
        }
    }
}
