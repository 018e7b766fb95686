//! A rule's regex (Rust `regex` syntax) rewritten for the engine's regex library: RE2 for
//! DuckDB, `java.util.regex` for Spark. The rewrite works on the parsed syntax tree, not
//! the text: every class becomes the explicit code point ranges the Rust regex matches
//! (so `\d`, `\w`, `\s`, case folding and `.` keep their Unicode meaning in engines whose
//! own classes are ASCII), anchors become the engine's exact equivalent, and groups lose
//! their captures. What an engine cannot express with the same meaning is refused with
//! the reason, never approximated.
//!
//! One construct gets a guard instead of a refusal: RE2 has no Unicode word boundary, only
//! an ASCII one, and the two agree except next to a non-ASCII letter or digit (a "wide word
//! character"). The DuckDB query evaluates such a regex with RE2's `\b`, and stops with an
//! error naming the rule where a text could tell them apart: a wrong count is never
//! returned silently. Where the regex puts ASCII word characters on one side of the
//! boundary (`\bsed`, `pytest\b`: every default rule), only those characters next to a
//! wide word character can; elsewhere, any wide word character in a text that the regex
//! could match.

mod boundary;
mod java_class;

use super::dialect::Dialect;
pub use boundary::non_ascii_word_class;
use boundary::{all_ascii_word, boundary, edge};
use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, Hir, HirKind, Look, Repetition};
use std::fmt::Write;

/// A regex in the engine's syntax.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineRegex {
    pub pattern: String,
    /// DuckDB only: the regex has a Unicode word boundary rendered as RE2's ASCII one.
    pub boundary_guard: Option<BoundaryGuard>,
}

/// When RE2's ASCII `\b` could disagree with Rust's Unicode one: a text in which `near`
/// matches (a wide word character where a boundary is tested, next to what must match on
/// its other side) and `relaxed` (the regex without its boundaries: wherever the regex
/// could match) matches.
#[derive(Debug, Clone, PartialEq)]
pub struct BoundaryGuard {
    pub near: String,
    pub relaxed: String,
}

/// RE2 refuses repetition counts above this.
const RE2_MAX_REPEAT: u32 = 1000;

/// Translates `source` (as the rule compiled it, flags included) for `dialect`.
pub fn translate(source: &str, dialect: Dialect) -> Result<EngineRegex, String> {
    let hir = regex_syntax::parse(source).map_err(|e| format!("the regex does not parse: {e}"))?;
    let mut emitter = Emitter::new(dialect, false);
    let mut pattern = String::new();
    emitter.emit(&hir, &mut pattern)?;
    let boundary_guard = if emitter.unicode_boundary {
        let mut relaxed = Emitter::new(dialect, true);
        let mut out = String::new();
        relaxed.emit(&hir, &mut out)?;
        let wide = non_ascii_word_class();
        let near = if emitter.unanchored {
            wide
        } else {
            let mut sides = Vec::new();
            if !emitter.ends_before_wide.is_empty() {
                sides.push(format!("(?:{}){wide}", emitter.ends_before_wide.join("|")));
            }
            if !emitter.starts_after_wide.is_empty() {
                sides.push(format!("{wide}(?:{})", emitter.starts_after_wide.join("|")));
            }
            format!("(?:{})", sides.join("|"))
        };
        Some(BoundaryGuard { near, relaxed: out })
    } else {
        None
    };
    Ok(EngineRegex {
        pattern,
        boundary_guard,
    })
}

struct Emitter {
    dialect: Dialect,
    unicode_boundary: bool,
    /// Render word boundaries as nothing (the relaxed regex of the guard).
    drop_boundaries: bool,
    /// For each Unicode boundary with ASCII word characters before it: what must match
    /// right before a wide word character for the boundary to matter.
    ends_before_wide: Vec<String>,
    /// The same for boundaries with ASCII word characters after them.
    starts_after_wide: Vec<String>,
    /// A Unicode boundary without ASCII word characters on either side.
    unanchored: bool,
    /// The boundary about to be emitted was anchored by its concatenation.
    anchored_next: bool,
}

impl Emitter {
    fn new(dialect: Dialect, drop_boundaries: bool) -> Emitter {
        Emitter {
            dialect,
            unicode_boundary: false,
            drop_boundaries,
            ends_before_wide: Vec::new(),
            starts_after_wide: Vec::new(),
            unanchored: false,
            anchored_next: false,
        }
    }

    fn emit(&mut self, hir: &Hir, out: &mut String) -> Result<(), String> {
        match hir.kind() {
            HirKind::Empty => {}
            HirKind::Literal(literal) => {
                let text = std::str::from_utf8(&literal.0)
                    .map_err(|_| "the regex matches bytes that are not UTF-8".to_string())?;
                for c in text.chars() {
                    char_text(c, out);
                }
            }
            HirKind::Class(Class::Unicode(class)) => {
                let ranges = code_ranges(class.ranges().iter().map(|r| (r.start(), r.end())));
                self.class(&ranges, out)?;
            }
            HirKind::Class(Class::Bytes(class)) => {
                if class.ranges().iter().any(|r| r.end() > 0x7F) {
                    return Err("the regex has a byte class beyond ASCII ((?-u))".into());
                }
                let ranges = code_ranges(class.ranges().iter().map(|r| (r.start(), r.end())));
                self.class(&ranges, out)?;
            }
            HirKind::Look(look) => {
                let boundary = matches!(look, Look::WordUnicode | Look::WordUnicodeNegate);
                // A boundary outside a concatenation (alone, a whole branch): nothing is known
                // of its sides. Inside one, `anchor` has looked at them first.
                if boundary && !std::mem::take(&mut self.anchored_next) {
                    self.unanchored = true;
                }
                self.look(*look, out)?
            }
            HirKind::Repetition(repetition) => self.repetition(repetition, out)?,
            HirKind::Capture(capture) => {
                out.push_str("(?:");
                self.emit(&capture.sub, out)?;
                out.push(')');
            }
            HirKind::Concat(parts) => {
                for (i, part) in parts.iter().enumerate() {
                    if let HirKind::Look(Look::WordUnicode | Look::WordUnicodeNegate) = part.kind()
                        && self.dialect == Dialect::DuckDb
                        && !self.drop_boundaries
                    {
                        self.anchor(parts, i)?;
                    }
                    self.emit(part, out)?;
                }
            }
            HirKind::Alternation(branches) => {
                out.push_str("(?:");
                for (i, branch) in branches.iter().enumerate() {
                    if i > 0 {
                        out.push('|');
                    }
                    self.emit(branch, out)?;
                }
                out.push(')');
            }
        }
        Ok(())
    }

    /// Notes where the boundary at `parts[at]` can tell ASCII from Unicode words. With ASCII
    /// word characters on one side (`\\bsed`, `pytest\\b`), only a wide word character on
    /// the other side can, and only where the rest of the concatenation on the ASCII side
    /// matches too: the guard looks for that. Both sides ASCII words: the boundary never
    /// holds in either engine.
    fn anchor(&mut self, parts: &[Hir], at: usize) -> Result<(), String> {
        let ascii = |side: Option<Vec<(u32, u32)>>| side.filter(|s| all_ascii_word(s));
        let before = ascii(at.checked_sub(1).and_then(|j| edge(&parts[j], true)));
        let after = ascii(parts.get(at + 1).and_then(|p| edge(p, false)));
        let relaxed = |parts: &[Hir]| -> Result<String, String> {
            let mut sub = Emitter::new(self.dialect, true);
            let mut out = String::new();
            for part in parts {
                sub.emit(part, &mut out)?;
            }
            Ok(out)
        };
        match (before, after) {
            (Some(_), Some(_)) => {}
            (Some(_), None) => self.ends_before_wide.push(relaxed(&parts[..at])?),
            (None, Some(_)) => self.starts_after_wide.push(relaxed(&parts[at + 1..])?),
            (None, None) => self.unanchored = true,
        }
        self.anchored_next = true;
        Ok(())
    }

    fn class(&self, ranges: &[(u32, u32)], out: &mut String) -> Result<(), String> {
        if ranges.is_empty() {
            return Err("the regex has a class that matches nothing".into());
        }
        if self.dialect == Dialect::Spark {
            let class = ClassUnicode::new(ranges.iter().filter_map(|&(s, e)| {
                Some(ClassUnicodeRange::new(
                    char::from_u32(skip_surrogate(s, true))?,
                    char::from_u32(skip_surrogate(e, false))?,
                ))
            }));
            out.push_str(&java_class(&class));
            return Ok(());
        }
        class_text(ranges, out);
        Ok(())
    }

    fn repetition(&mut self, repetition: &Repetition, out: &mut String) -> Result<(), String> {
        let too_many = |n: u32| self.dialect == Dialect::DuckDb && n > RE2_MAX_REPEAT;
        if too_many(repetition.min) || repetition.max.is_some_and(too_many) {
            return Err(format!("RE2 repeats at most {RE2_MAX_REPEAT} times"));
        }
        out.push_str("(?:");
        self.emit(&repetition.sub, out)?;
        out.push(')');
        match (repetition.min, repetition.max) {
            (0, None) => out.push('*'),
            (1, None) => out.push('+'),
            (0, Some(1)) => out.push('?'),
            (min, None) => {
                let _ = write!(out, "{{{min},}}");
            }
            (min, Some(max)) if min == max => {
                let _ = write!(out, "{{{min}}}");
            }
            (min, Some(max)) => {
                let _ = write!(out, "{{{min},{max}}}");
            }
        }
        if !repetition.greedy {
            out.push('?');
        }
        Ok(())
    }

    fn look(&mut self, look: Look, out: &mut String) -> Result<(), String> {
        let duck = self.dialect == Dialect::DuckDb;
        // Java: the word characters of Rust's `\w` (UTS #18), by property.
        let java_word: &str = &JAVA_WORD;
        const ASCII_WORD: &str = "[0-9A-Za-z_]";
        let text = match look {
            Look::Start => r"\A".to_string(),
            Look::End => r"\z".to_string(),
            // RE2's multi-line anchors are Rust's: after or before `\n` only. Java's see
            // `\r` and U+2028 too, and `^` never matches after a final newline: look at the
            // neighbouring character instead.
            Look::StartLF if duck => "(?m:^)".to_string(),
            Look::EndLF if duck => "(?m:$)".to_string(),
            Look::StartLF => r"(?<![^\n])".to_string(),
            Look::EndLF => r"(?![^\n])".to_string(),
            Look::WordAscii | Look::WordAsciiNegate if self.drop_boundaries => String::new(),
            Look::WordUnicode | Look::WordUnicodeNegate if self.drop_boundaries => String::new(),
            Look::WordAscii if duck => r"\b".to_string(),
            Look::WordAsciiNegate if duck => r"\B".to_string(),
            Look::WordUnicode if duck => {
                self.unicode_boundary = true;
                r"\b".to_string()
            }
            Look::WordUnicodeNegate if duck => {
                self.unicode_boundary = true;
                r"\B".to_string()
            }
            Look::WordAscii => boundary(ASCII_WORD, false),
            Look::WordAsciiNegate => boundary(ASCII_WORD, true),
            Look::WordUnicode => boundary(java_word, false),
            Look::WordUnicodeNegate => boundary(java_word, true),
            Look::WordStartAscii if !duck => format!("(?<!{ASCII_WORD})(?={ASCII_WORD})"),
            Look::WordEndAscii if !duck => format!("(?<={ASCII_WORD})(?!{ASCII_WORD})"),
            Look::WordStartUnicode if !duck => format!("(?<!{java_word})(?={java_word})"),
            Look::WordEndUnicode if !duck => format!("(?<={java_word})(?!{java_word})"),
            Look::WordStartHalfAscii if !duck => format!("(?<!{ASCII_WORD})"),
            Look::WordEndHalfAscii if !duck => format!("(?!{ASCII_WORD})"),
            Look::WordStartHalfUnicode if !duck => format!("(?<!{java_word})"),
            Look::WordEndHalfUnicode if !duck => format!("(?!{java_word})"),
            Look::StartCRLF | Look::EndCRLF => {
                return Err("CRLF-aware anchors ((?R)) have no equivalent in the engine".into());
            }
            other => {
                return Err(format!(
                    "RE2 has no equivalent of the assertion {other:?} (word start or end)"
                ));
            }
        };
        out.push_str(&text);
        Ok(())
    }
}

const MAX_CHAR: u32 = 0x10FFFF;

/// `class` for Java: with Unicode properties by name where that is shorter
/// ([`java_class::java_class_text`]), else as ranges.
fn java_class(class: &ClassUnicode) -> String {
    let ranges: Vec<(u32, u32)> = class
        .ranges()
        .iter()
        .map(|r| (u32::from(r.start()), u32::from(r.end())))
        .collect();
    let mut plain = String::new();
    class_text(&ranges, &mut plain);
    let named = java_class::java_class_text(class, &|rest| {
        let mut text = String::new();
        for r in rest.ranges() {
            range_text(u32::from(r.start()), u32::from(r.end()), &mut text);
        }
        text
    });
    match named {
        Some(named) if named.len() < plain.len() => named,
        _ => plain,
    }
}

/// Rust's `\w` for Java: what a Unicode word boundary looks at.
static JAVA_WORD: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| java_class(&java_class::unicode_class(r"\w")));

/// A class as explicit ranges, or as the negation of its complement when that is shorter
/// (`[^\n]` rather than two ranges spanning all of Unicode). Surrogates are never chars, so
/// a gap made of them alone is no gap.
pub(super) fn class_text(ranges: &[(u32, u32)], out: &mut String) {
    let mut complement: Vec<(u32, u32)> = Vec::new();
    let mut next = 0u32;
    for &(start, end) in ranges {
        if start > next {
            complement.push((next, start - 1));
        }
        next = end.saturating_add(1);
    }
    if next <= MAX_CHAR {
        complement.push((next, MAX_CHAR));
    }
    complement.retain(|&(s, e)| !(s >= 0xD800 && e <= 0xDFFF));
    if complement.is_empty() {
        out.push_str(r"[\x{0}-\x{10FFFF}]");
        return;
    }
    let (negated, shown) = if complement.len() < ranges.len() {
        (true, complement.as_slice())
    } else {
        (false, ranges)
    };
    out.push('[');
    if negated {
        out.push('^');
    }
    for &(start, end) in shown {
        // Ranges that only differ by surrogates are shown without them.
        range_text(skip_surrogate(start, true), skip_surrogate(end, false), out);
    }
    out.push(']');
}

/// A class's ranges as code points: Unicode classes and ASCII byte classes emit alike.
fn code_ranges<C: Into<u32>>(ranges: impl Iterator<Item = (C, C)>) -> Vec<(u32, u32)> {
    ranges
        .map(|(start, end)| (start.into(), end.into()))
        .collect()
}

fn range_text(start: u32, end: u32, out: &mut String) {
    code_point(start, out);
    if end > start {
        out.push('-');
        code_point(end, out);
    }
}

fn skip_surrogate(c: u32, forward: bool) -> u32 {
    match (c, forward) {
        (0xD800..=0xDFFF, true) => 0xE000,
        (0xD800..=0xDFFF, false) => 0xD7FF,
        _ => c,
    }
}

fn code_point(c: u32, out: &mut String) {
    match char::from_u32(c) {
        Some(ch) if ch.is_ascii_alphanumeric() => out.push(ch),
        _ => {
            let _ = write!(out, r"\x{{{c:X}}}");
        }
    }
}

fn char_text(c: char, out: &mut String) {
    code_point(u32::from(c), out);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn duck(source: &str) -> EngineRegex {
        translate(source, Dialect::DuckDb).unwrap()
    }

    #[test]
    fn classes_become_unicode_ranges_and_anchors_stay_line_anchors() {
        let d = duck(r"(?m)^\d+$");
        assert!(d.pattern.starts_with("(?m:^)(?:["), "{}", d.pattern);
        assert!(
            d.pattern.contains(r"\x{660}-\x{669}"),
            "Arabic-Indic digits: {}",
            d.pattern
        );
        assert!(d.pattern.ends_with("(?m:$)"));
        assert_eq!(d.boundary_guard, None);
        let java = translate(r"(?m)^a$", Dialect::Spark).unwrap();
        assert_eq!(java.pattern, r"(?<![^\n])a(?![^\n])");
        assert_eq!(duck(r"(?m)[^\n]").pattern, r"[^\x{A}]");
        assert_eq!(
            duck("(?mi)k").pattern,
            r"[Kk\x{212A}]",
            "the Kelvin sign folds to k"
        );
    }

    #[test]
    fn word_boundaries_are_guarded_in_re2_and_exact_in_java() {
        let d = duck(r"(?m)\bsed\b");
        assert_eq!(d.pattern, r"\bsed\b");
        let guard = d.boundary_guard.unwrap();
        assert_eq!(guard.relaxed, "sed");
        assert!(
            guard.near.starts_with("(?:(?:sed)[\\x{AA}"),
            "{}",
            guard.near
        );
        assert!(guard.near.ends_with("](?:sed))"), "{}", guard.near);
        let alone = duck(r"(?m)x|\b").boundary_guard.unwrap();
        assert!(alone.near.starts_with("[\\x{AA}"), "{}", alone.near);
        let ascii = duck(r"(?m)(?-u:\b)sed");
        assert_eq!(ascii.boundary_guard, None, "an ASCII boundary is RE2's own");
        let j = translate(r"(?m)\bsed", Dialect::Spark).unwrap();
        assert!(j.pattern.contains(r"\p{IsAlphabetic}"), "{}", j.pattern);
    }

    #[test]
    fn spark_classes_name_javas_unicode_properties() {
        let spark = |source: &str| translate(source, Dialect::Spark).unwrap().pattern;
        let digits = spark(r"\d+");
        assert!(digits.starts_with(r"(?:[\p{Nd}"), "{digits}");
        assert!(
            !digits.contains(r"\x{660}"),
            "Java knows Arabic-Indic digits: {digits}"
        );
        assert!(
            spark(r"\S").starts_with(r"[^\p{IsWhite_Space}"),
            "a negated class by its negation"
        );
        let word = spark(r"[\w.]");
        assert!(word.starts_with(r"[\p{IsAlphabetic}\p{M}\p{Nd}\p{Pc}\p{IsJoin_Control}\x{2E}"));
        assert!(
            word.contains(r"[\p{Cn}&&[\x{870}-"),
            "letters assigned after Java 17's Unicode 13.0 are spelt out: {word}"
        );
        assert_eq!(spark("[a-f]"), "[a-f]", "no property inside");
        assert!(
            duck(r"\d").pattern.contains(r"\x{660}-\x{669}"),
            "RE2 has no such properties"
        );
    }

    #[test]
    fn what_cannot_be_kept_is_refused() {
        assert!(translate(r"(?mR)^a", Dialect::DuckDb).is_err());
        assert!(translate(r"\b{start}a", Dialect::DuckDb).is_err());
        assert!(translate(r"\b{start}a", Dialect::Spark).is_ok());
        assert!(translate(r"a{2000}", Dialect::DuckDb).is_err());
        assert!(translate(r"a{2000}", Dialect::Spark).is_ok());
    }

    #[test]
    fn lazy_and_counted_repetitions() {
        assert_eq!(duck("a{2,5}?b*").pattern, "(?:a){2,5}?(?:b)*");
    }
}
