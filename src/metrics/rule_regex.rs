//! A rule's regex, compiled first for ASCII text: most texts a rule searches (the lines of a
//! test log, a shell command) are all ASCII, and on an all-ASCII text a regex means the same
//! with its classes cut to ASCII (`\w`, `\d`, `\s`, `\b`, `.`, negated classes and case
//! folding agree with Unicode's on every ASCII character), while Unicode `\w` and `\b` make
//! a regex several times dearer to compile: 35M of the 87M instructions a tally of one small
//! file cost went to compiling the default rules. A text with non-ASCII characters is
//! searched by a form cut to its characters ([`narrow`]: compiled like the ASCII form, once
//! per set of characters), and past a few such sets by the Unicode regex, compiled then,
//! once per process (clones share it).
//!
//! The pattern is still checked whole when the rules load: its Unicode syntax is parsed (a
//! syntax error is the `regex` crate's own message), and a pattern whose compiled size might
//! pass the `regex` crate's limit (a counted repetition of a class, a long source) or that
//! has no ASCII form (`\p{…}`) compiles whole at once, so it is reported or kept as before.

mod narrow;

use narrow::{Narrow, Narrowed};
use regex::Regex;
use regex_syntax::hir::{Class, Hir, HirKind};
use std::sync::{Arc, OnceLock};

/// Patterns with more large Unicode classes than this (each `\w` or `[^\d\s]` compiles to
/// a few kilobytes, twice: forwards and backwards) compile whole at once: their size could
/// approach the limit (10 MiB).
const LAZY_CLASSES_MAX: usize = 64;

/// A class of more ranges than this is a large one.
const LARGE_CLASS: usize = 16;

/// A compiled rule regex. Cheap to clone.
#[derive(Debug, Clone)]
pub(crate) struct RuleRegex(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    source: String,
    /// The regex with ASCII classes, for all-ASCII texts; `None` when it has no such form.
    ascii: Option<regex::bytes::Regex>,
    /// The regex as written, compiled on first need (at once when `ascii` is `None`).
    unicode: OnceLock<Option<Regex>>,
    /// Forms cut to the characters of the non-ASCII texts met before `unicode` is compiled.
    narrowed: Narrowed,
    /// The syntax tree of the regex as written.
    hir: Hir,
}

impl RuleRegex {
    /// Compiles `source` (flags included), failing as `Regex::new` does.
    pub(crate) fn new(source: &str) -> Result<RuleRegex, regex::Error> {
        let hir = match regex_syntax::parse(source) {
            Ok(hir) => hir,
            // The `regex` crate's error, word for word (it parses the same way).
            Err(err) => {
                return Err(Regex::new(source)
                    .err()
                    .unwrap_or_else(|| regex::Error::Syntax(err.to_string())));
            }
        };
        let ascii = regex::bytes::RegexBuilder::new(&format!("(?-u){source}"))
            .build()
            .ok();
        let regex = RuleRegex(Arc::new(Inner {
            source: source.to_string(),
            ascii,
            unicode: OnceLock::new(),
            narrowed: Narrowed::default(),
            hir,
        }));
        let hir = &regex.0.hir;
        if regex.0.ascii.is_none() || sized(hir) || large_classes(hir) > LAZY_CLASSES_MAX {
            let whole = Regex::new(source)?;
            let _ = regex.0.unicode.set(Some(whole));
        }
        Ok(regex)
    }

    /// The source, flags included.
    pub(crate) fn as_str(&self) -> &str {
        &self.0.source
    }

    /// The syntax tree of the regex as written.
    pub(crate) fn hir(&self) -> &Hir {
        &self.0.hir
    }

    /// The number of non-overlapping matches in `text`, as `Regex::find_iter` counts them.
    pub(crate) fn count(&self, text: &str) -> usize {
        if let Some(ascii) = self.ascii_for(text) {
            return ascii.find_iter(text.as_bytes()).count();
        }
        match self.narrow_for(text) {
            Narrow::Cut(regex) => regex.find_iter(text.as_bytes()).count(),
            Narrow::Whole => self.unicode().map_or(0, |r| r.find_iter(text).count()),
        }
    }

    /// Whether the regex matches somewhere in `text`.
    pub(crate) fn is_match(&self, text: &str) -> bool {
        if let Some(ascii) = self.ascii_for(text) {
            return ascii.is_match(text.as_bytes());
        }
        match self.narrow_for(text) {
            Narrow::Cut(regex) => regex.is_match(text.as_bytes()),
            Narrow::Whole => self.unicode().is_some_and(|r| r.is_match(text)),
        }
    }

    /// For a non-ASCII text: the Unicode form once it is compiled, else a form cut to the
    /// text's characters ([`narrow`]).
    fn narrow_for(&self, text: &str) -> Narrow {
        if self.0.unicode.get().is_some() {
            return Narrow::Whole;
        }
        self.0.narrowed.for_text(&self.0.hir, text)
    }

    fn ascii_for(&self, text: &str) -> Option<&regex::bytes::Regex> {
        self.0.ascii.as_ref().filter(|_| text.is_ascii())
    }

    /// The regex as written; `None` only if it failed to compile late, which the checks at
    /// load leave to no pattern they know of (it then counts nothing on non-ASCII texts).
    fn unicode(&self) -> Option<&Regex> {
        self.0
            .unicode
            .get_or_init(|| Regex::new(&self.0.source).ok())
            .as_ref()
    }
}

/// Whether `hir` repeats a class a counted number of times (`\w{50}`): the one way a short
/// pattern's compiled size grows past the `regex` crate's limit.
fn sized(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Empty | HirKind::Literal(_) | HirKind::Look(_) | HirKind::Class(_) => false,
        HirKind::Repetition(rep) => {
            (rep.max.is_some_and(|m| m > 1) || rep.min > 1) && has_class(&rep.sub)
                || sized(&rep.sub)
        }
        HirKind::Capture(cap) => sized(&cap.sub),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => subs.iter().any(sized),
    }
}

/// The number of large Unicode classes in `hir`.
fn large_classes(hir: &Hir) -> usize {
    match hir.kind() {
        HirKind::Class(Class::Unicode(class)) => usize::from(class.ranges().len() > LARGE_CLASS),
        HirKind::Empty | HirKind::Literal(_) | HirKind::Look(_) | HirKind::Class(_) => 0,
        HirKind::Repetition(rep) => large_classes(&rep.sub),
        HirKind::Capture(cap) => large_classes(&cap.sub),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => subs.iter().map(large_classes).sum(),
    }
}

fn has_class(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Class(Class::Unicode(_)) => true,
        HirKind::Empty | HirKind::Literal(_) | HirKind::Look(_) | HirKind::Class(_) => false,
        HirKind::Repetition(rep) => has_class(&rep.sub),
        HirKind::Capture(cap) => has_class(&cap.sub),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => subs.iter().any(has_class),
    }
}

#[cfg(test)]
mod tests;
