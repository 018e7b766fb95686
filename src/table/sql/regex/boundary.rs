//! Word boundaries, the one construct the engines spell most differently: Java gets Rust's
//! Unicode boundary by lookaround; for RE2, whose `\b` is ASCII-only, this finds what the
//! characters on each side of a boundary can be, so the DuckDB query's guard can test only
//! the texts where the two kinds of boundary could disagree.

use super::class_text;
use regex_syntax::hir::{Class, Hir, HirKind};

/// A class of the non-ASCII characters Rust's `\w` holds, for the boundary guard.
pub fn non_ascii_word_class() -> String {
    let mut out = String::new();
    if let Ok(hir) = regex_syntax::parse(r"[\w&&[^\x00-\x7F]]")
        && let HirKind::Class(Class::Unicode(class)) = hir.kind()
    {
        let ranges: Vec<(u32, u32)> = class
            .ranges()
            .iter()
            .map(|r| (u32::from(r.start()), u32::from(r.end())))
            .collect();
        class_text(&ranges, &mut out);
    }
    out
}

/// The characters `hir` can begin (`last`: end) a match with, when every match has one.
pub(super) fn edge(hir: &Hir, last: bool) -> Option<Vec<(u32, u32)>> {
    match hir.kind() {
        HirKind::Literal(literal) => {
            let text = std::str::from_utf8(&literal.0).ok()?;
            let c = if last {
                text.chars().next_back()
            } else {
                text.chars().next()
            }?;
            Some(vec![(u32::from(c), u32::from(c))])
        }
        HirKind::Class(Class::Unicode(class)) => Some(
            class
                .ranges()
                .iter()
                .map(|r| (u32::from(r.start()), u32::from(r.end())))
                .collect(),
        ),
        HirKind::Class(Class::Bytes(class)) => Some(
            class
                .ranges()
                .iter()
                .map(|r| (u32::from(r.start()), u32::from(r.end())))
                .collect(),
        ),
        HirKind::Capture(capture) => edge(&capture.sub, last),
        HirKind::Repetition(repetition) if repetition.min >= 1 => edge(&repetition.sub, last),
        HirKind::Concat(parts) => {
            let part = if last { parts.last() } else { parts.first() }?;
            if part.properties().minimum_len().is_none_or(|n| n == 0) {
                return None;
            }
            edge(part, last)
        }
        HirKind::Alternation(branches) => {
            let mut all = Vec::new();
            for branch in branches {
                all.extend(edge(branch, last)?);
            }
            Some(all)
        }
        _ => None,
    }
}

/// Whether every character of `ranges` is an ASCII word character.
pub(super) fn all_ascii_word(ranges: &[(u32, u32)]) -> bool {
    ranges.iter().all(|&(start, end)| {
        (start..=end)
            .all(|c| char::from_u32(c).is_some_and(|c| c.is_ascii_alphanumeric() || c == '_'))
    })
}

/// A word boundary (or its negation) by lookaround on `word`, for Java.
pub(super) fn boundary(word: &str, negate: bool) -> String {
    if negate {
        format!("(?:(?<={word})(?={word})|(?<!{word})(?!{word}))")
    } else {
        format!("(?:(?<={word})(?!{word})|(?<!{word})(?={word}))")
    }
}
