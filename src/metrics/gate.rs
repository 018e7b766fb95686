//! Literal gates for regex rules: a set of strings one of which every match of the regex
//! contains. The matcher finds them all with the field's one Aho-Corasick pass and runs a
//! rule's regex only where one of its gate strings occurred: on that line when a match
//! cannot span lines, else on the whole text. A regex scan over every byte of a run's
//! observations costs more than loading them; most rules match a few lines in a thousand.
//!
//! Derived from the regex's syntax tree, so a gate is always sound: a text without any gate
//! string has no match. Patterns without a useful gate (case-insensitive ones, or ones whose
//! shortest necessary string is under [`MIN_GATE_LEN`] bytes) run over every text.

use regex_syntax::hir::{Class, Hir, HirKind, Look};

/// Shorter necessary strings (`:`, `E`) would gate nothing and flood the literal pass.
pub const MIN_GATE_LEN: usize = 3;

/// Where a gated regex must look once a gate string is found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gate {
    pub literals: Vec<String>,
    /// Every match lies within one line and the regex does not anchor to the text's start
    /// or end, so counting per line that holds a gate string equals counting in the text.
    pub per_line: bool,
}

/// The gate of regex `source` (as compiled: flags included), if it has one.
pub fn gate(source: &str) -> Option<Gate> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(source)
        .ok()?;
    gate_of(&hir)
}

/// The gate of the regex whose syntax tree is `hir`, if it has one.
pub fn gate_of(hir: &Hir) -> Option<Gate> {
    let literals = necessary(hir)?;
    if literals.iter().any(|l| l.len() < MIN_GATE_LEN) {
        return None;
    }
    Some(Gate {
        literals,
        per_line: !can_match_newline(hir) && !anchors_to_text(hir),
    })
}

/// Strings one of which every match contains; `None` when no such finite set is known.
fn necessary(hir: &Hir) -> Option<Vec<String>> {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) | HirKind::Class(_) => None,
        HirKind::Literal(lit) => String::from_utf8(lit.0.to_vec()).ok().map(|s| vec![s]),
        HirKind::Capture(cap) => necessary(&cap.sub),
        HirKind::Repetition(rep) if rep.min >= 1 => necessary(&rep.sub),
        HirKind::Repetition(_) => None,
        HirKind::Concat(subs) => subs.iter().filter_map(necessary).max_by_key(|set| {
            // The most selective part: the longest shortest string, then the fewest.
            let shortest = set.iter().map(String::len).min().unwrap_or(0);
            (shortest, std::cmp::Reverse(set.len()))
        }),
        HirKind::Alternation(subs) => {
            let mut all = Vec::new();
            for sub in subs {
                all.extend(necessary(sub)?);
            }
            all.sort();
            all.dedup();
            Some(all)
        }
    }
}

fn can_match_newline(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => false,
        HirKind::Literal(lit) => lit.0.contains(&b'\n'),
        HirKind::Class(Class::Unicode(class)) => class
            .ranges()
            .iter()
            .any(|r| r.start() <= '\n' && '\n' <= r.end()),
        HirKind::Class(Class::Bytes(class)) => class
            .ranges()
            .iter()
            .any(|r| r.start() <= b'\n' && b'\n' <= r.end()),
        HirKind::Capture(cap) => can_match_newline(&cap.sub),
        HirKind::Repetition(rep) => can_match_newline(&rep.sub),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => subs.iter().any(can_match_newline),
    }
}

/// `\A`, `\z` and CRLF-mode line anchors mean something else on a line cut out of the text.
fn anchors_to_text(hir: &Hir) -> bool {
    let looks = hir.properties().look_set();
    [Look::Start, Look::End, Look::StartCRLF, Look::EndCRLF]
        .into_iter()
        .any(|l| looks.contains(l))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn literals(source: &str) -> Option<Vec<String>> {
        gate(source).map(|g| g.literals)
    }

    #[test]
    fn necessary_strings_of_real_patterns() {
        assert_eq!(
            literals(r"(?m)^(?:[^\d\s+-][^\n]*?)?Traceback \(most recent call last\):"),
            Some(vec!["Traceback (most recent call last):".to_string()])
        );
        assert_eq!(
            literals(r"(?m)^(?:E[ \t]+)?(?:SyntaxError|IndentationError)(?::|$)|syntax error near"),
            Some(vec![
                "IndentationError".into(),
                "SyntaxError".into(),
                "syntax error near".into()
            ])
        );
        // The longest necessary part of a concatenation wins.
        assert_eq!(
            literals(r"(?m)^File \S.* not found$"),
            Some(vec![" not found".into()])
        );
        assert_eq!(literals(r"ab+cdef"), Some(vec!["cdef".into()]));
        // One branch without a necessary string leaves the whole pattern ungated.
        assert_eq!(literals(r"Traceback|\d+"), None);
        assert_eq!(
            literals(r"Traceback|\d+ errors?"),
            Some(vec![" error".into(), "Traceback".into()])
        );
        assert_eq!(literals(r"x?abc"), Some(vec!["abc".into()]));
        assert_eq!(literals(r"(?:abc)*"), None);
        assert_eq!(
            literals(r"(?i)traceback"),
            None,
            "case folding gives classes, not strings"
        );
        assert_eq!(literals(r"E:"), None, "too short to gate");
        assert!(literals(r"E: ").is_some());
    }

    #[test]
    fn per_line_only_when_sound() {
        assert!(gate(r"(?m)^Traceback[^\n]*$").unwrap().per_line);
        assert!(
            !gate(r"Error\s+here").unwrap().per_line,
            "\\s crosses lines"
        );
        assert!(
            !gate(r"\A\s*<returncode>1").unwrap().per_line,
            "anchored to the text"
        );
        assert!(!gate(r"(?s)Error.here").unwrap().per_line);
        assert!(gate(r"\bError\b").unwrap().per_line);
    }
}
