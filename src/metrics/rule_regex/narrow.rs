//! A rule regex cut down to the characters of the texts it met: on a text whose characters
//! all lie in a set `S`, a regex whose every class is intersected with `S` matches exactly
//! where the regex as written does (a match only ever asks whether a character of the text
//! is in a class; literals and look-arounds, Unicode `\b` included, are left as they are).
//! The regex's Unicode form compiles `\w` and the other large classes into thousands of
//! UTF-8 states, forwards and backwards (20M instructions for the four default rules that
//! met non-ASCII text on the CodeR run); cut to ASCII and the few other characters of a
//! log's line it compiles like the ASCII form.
//!
//! Each character set compiles once per process and serves every later text whose
//! characters it holds; past [`NARROW_MAX`] sets, or for a text of many different non-ASCII
//! characters (a log in another script), the caller compiles the Unicode form instead.

use regex_automata::meta;
use regex_syntax::hir::{
    Capture, Class, ClassUnicode, ClassUnicodeRange, Hir, HirKind, Repetition,
};
use std::sync::{Arc, Mutex};

/// Character sets compiled per regex before the Unicode form is compiled instead.
pub(super) const NARROW_MAX: usize = 8;

/// A text with more distinct non-ASCII characters than this takes the Unicode form.
const CHARS_MAX: usize = 64;

/// The narrowed forms of one regex compiled so far, with the non-ASCII characters each
/// was cut to (sorted).
#[derive(Debug, Default)]
pub(super) struct Narrowed(Mutex<Vec<(Vec<char>, Arc<meta::Regex>)>>);

/// What a non-ASCII text is searched with.
pub(super) enum Narrow {
    /// A form cut to a set holding the text's characters.
    Cut(Arc<meta::Regex>),
    /// The Unicode form: too many sets or characters.
    Whole,
}

impl Narrowed {
    /// The form of `hir` to search `text` with: one compiled for a set holding its
    /// characters, else a new one cut to them, unless there are too many.
    pub(super) fn for_text(&self, hir: &Hir, text: &str) -> Narrow {
        let mut chars: Vec<char> = text.chars().filter(|c| !c.is_ascii()).collect();
        chars.sort_unstable();
        chars.dedup();
        if chars.len() > CHARS_MAX {
            return Narrow::Whole;
        }
        let Ok(mut forms) = self.0.lock() else {
            return Narrow::Whole;
        };
        let holds = |set: &[char]| chars.iter().all(|c| set.binary_search(c).is_ok());
        if let Some((_, regex)) = forms.iter().find(|(set, _)| holds(set)) {
            return Narrow::Cut(regex.clone());
        }
        if forms.len() >= NARROW_MAX {
            return Narrow::Whole;
        }
        let Some(regex) = compile(hir, &chars) else {
            return Narrow::Whole;
        };
        let regex = Arc::new(regex);
        forms.push((chars, regex.clone()));
        Narrow::Cut(regex)
    }

    /// How many forms were compiled (for tests).
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.0.lock().map_or(0, |forms| forms.len())
    }
}

/// `hir` with its classes cut to ASCII and `chars`, compiled as the `regex` crate compiles
/// a `Regex` (leftmost-first, empty matches only between characters, its size limits).
fn compile(hir: &Hir, chars: &[char]) -> Option<meta::Regex> {
    let mut keep = ClassUnicode::new([ClassUnicodeRange::new('\0', '\x7f')]);
    keep.union(&ClassUnicode::new(
        chars.iter().map(|&c| ClassUnicodeRange::new(c, c)),
    ));
    let config = meta::Config::new()
        .nfa_size_limit(Some(10 * (1 << 20)))
        .hybrid_cache_capacity(2 * (1 << 20))
        .match_kind(regex_automata::MatchKind::LeftmostFirst)
        .utf8_empty(true);
    meta::Builder::new()
        .configure(config)
        .build_from_hir(&cut(hir, &keep))
        .ok()
}

/// `hir` with every Unicode class intersected with `keep`.
fn cut(hir: &Hir, keep: &ClassUnicode) -> Hir {
    match hir.kind() {
        HirKind::Class(Class::Unicode(class)) => {
            let mut class = class.clone();
            class.intersect(keep);
            Hir::class(Class::Unicode(class))
        }
        HirKind::Empty | HirKind::Literal(_) | HirKind::Look(_) | HirKind::Class(_) => hir.clone(),
        HirKind::Repetition(rep) => Hir::repetition(Repetition {
            min: rep.min,
            max: rep.max,
            greedy: rep.greedy,
            sub: Box::new(cut(&rep.sub, keep)),
        }),
        HirKind::Capture(cap) => Hir::capture(Capture {
            index: cap.index,
            name: cap.name.clone(),
            sub: Box::new(cut(&cap.sub, keep)),
        }),
        HirKind::Concat(subs) => Hir::concat(subs.iter().map(|s| cut(s, keep)).collect()),
        HirKind::Alternation(subs) => Hir::alternation(subs.iter().map(|s| cut(s, keep)).collect()),
    }
}
