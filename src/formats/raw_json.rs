//! Walking a JSON document held in memory without decoding it: where each value starts and
//! ends, and the members of an object as (raw key, value span). Strings are crossed by
//! jumping from quote to quote (a quote preceded by an odd run of backslashes is escaped),
//! which is what makes skipping a log's long, `\n`-dense strings cheap; nothing is unescaped
//! or checked as UTF-8 here. The walk checks the structure (brackets, colons, commas) but not
//! what is inside the strings and scalars it skips: callers that need a value decode its span
//! with serde, which checks it. Any surprise gives `None`, and the caller reads the file the
//! usual way (which then words the error).

use memchr::memchr;

/// A value's bytes: `start..end` of the document.
pub(crate) type Span = std::ops::Range<usize>;

fn skip_ws(bytes: &[u8], mut at: usize) -> usize {
    while at < bytes.len() && matches!(bytes[at], b' ' | b'\n' | b'\r' | b'\t') {
        at += 1;
    }
    at
}

/// The end (one past the closing quote) of the string whose opening quote is at `at`.
pub(crate) fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut from = at + 1;
    loop {
        let quote = from + memchr(b'"', bytes.get(from..)?)?;
        let backslashes = bytes[from..quote]
            .iter()
            .rev()
            .take_while(|&&b| b == b'\\')
            .count();
        if backslashes % 2 == 0 {
            return Some(quote + 1);
        }
        from = quote + 1;
    }
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
        let start = skip_ws(bytes, i + 1);
        let end = value_end(bytes, start)?;
        if !each(key, start..end) {
            return None;
        }
        i = skip_ws(bytes, end);
        match bytes.get(i)? {
            b',' => i = skip_ws(bytes, i + 1),
            b'}' => return Some(i + 1),
            _ => return None,
        }
    }
}

/// Calls `each` with the span of every element of the array at `at`; `each` returns false to
/// give up. `None` when it is not a well-formed array or `each` gave up.
pub(crate) fn elements(
    bytes: &[u8],
    at: usize,
    each: &mut dyn FnMut(Span) -> bool,
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
        let end = value_end(bytes, i)?;
        if !each(i..end) {
            return None;
        }
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
        elements(array, 0, &mut |span| {
            items.push(String::from_utf8_lossy(&array[span]).into_owned());
            true
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
}
