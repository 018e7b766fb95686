//! A character class for `java.util.regex` (Spark), written with Java's Unicode properties
//! where they mean what Rust's classes mean, so that a query does not spell `\w` out as
//! hundreds of code point ranges (about 430 KB for the default rules).
//!
//! Rust's `\w`, `\d` and `\s` are UTS #18's: `\w` is Alphabetic, Mark, Decimal_Number,
//! Connector_Punctuation and Join_Control; `\d` is Decimal_Number; `\s` is White_Space.
//! Java's (under `UNICODE_CHARACTER_CLASS`) are defined the same way, and the properties are
//! written out by name here (`\p{IsAlphabetic}\p{M}\p{Nd}\p{Pc}\p{IsJoin_Control}`,
//! `\p{Nd}`, `\p{IsWhite_Space}`), so no flag is needed. What differs is the Unicode
//! version of the tables: Rust's `regex-syntax` has Unicode 16.0, Java 17 (Spark 4's
//! oldest) has 13.0. A property is therefore trusted only for the characters assigned by
//! Unicode 13.0; the characters of the class assigned later are added as ranges, so a
//! Java of Unicode 13.0 to 16.0 (Java 17 to 25) matches exactly what Rust matches.

use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, HirKind};
use std::sync::LazyLock;

/// A Rust class and the Java properties that spell it.
struct Property {
    java: &'static str,
    rust: ClassUnicode,
}

/// The characters Java's tables are trusted to know: Java 17's, Unicode 13.0.
static JAVA_KNOWN: LazyLock<ClassUnicode> = LazyLock::new(|| unicode_class(r"\p{Age=13.0}"));

/// The properties, largest first: `\d` inside a class is already inside `\w`.
static PROPERTIES: LazyLock<Vec<Property>> = LazyLock::new(|| {
    [
        (
            r"\p{IsAlphabetic}\p{M}\p{Nd}\p{Pc}\p{IsJoin_Control}",
            r"\w",
        ),
        (r"\p{Nd}", r"\d"),
        (r"\p{IsWhite_Space}", r"\s"),
    ]
    .into_iter()
    .map(|(java, rust)| {
        let mut rust = unicode_class(rust);
        rust.intersect(&JAVA_KNOWN);
        Property { java, rust }
    })
    .collect()
});

/// The class `source` (one class, e.g. `\w`) parses to; empty if it does not.
pub fn unicode_class(source: &str) -> ClassUnicode {
    match regex_syntax::parse(source).map(|h| h.into_kind()) {
        Ok(HirKind::Class(Class::Unicode(class))) => class,
        _ => ClassUnicode::empty(),
    }
}

/// `class` in Java syntax with the properties it holds whole written by name and the rest
/// as ranges (`ranges_text`: positive ranges, no brackets), or its negation so written,
/// whichever is shorter; `None` when it holds no property whole, nor does its negation.
pub fn java_class_text(
    class: &ClassUnicode,
    ranges_text: &dyn Fn(&ClassUnicode) -> String,
) -> Option<String> {
    let mut negated = class.clone();
    negated.negate();
    let plain = with_properties(class, false, ranges_text);
    let inverse = with_properties(&negated, true, ranges_text);
    match (plain, inverse) {
        (Some(p), Some(i)) => Some(if i.len() < p.len() { i } else { p }),
        (p, i) => p.or(i),
    }
}

fn with_properties(
    class: &ClassUnicode,
    negate: bool,
    ranges_text: &dyn Fn(&ClassUnicode) -> String,
) -> Option<String> {
    let mut named = String::new();
    let mut covered = ClassUnicode::empty();
    for property in PROPERTIES.iter() {
        let mut outside = property.rust.clone();
        outside.difference(class);
        let mut new = property.rust.clone();
        new.difference(&covered);
        if outside.ranges().is_empty() && !new.ranges().is_empty() {
            named.push_str(property.java);
            covered.union(&property.rust);
        }
    }
    if named.is_empty() {
        return None;
    }
    let mut old = class.clone();
    old.difference(&covered);
    old.intersect(&JAVA_KNOWN);
    let mut new = class.clone();
    new.difference(&JAVA_KNOWN);
    Some(format!(
        "[{}{named}{}{}]",
        if negate { "^" } else { "" },
        ranges_text(&old),
        newer_text(&new, ranges_text)
    ))
}

/// The characters of a class that Unicode assigned after 13.0 (Java 17 does not know them:
/// they are unassigned, `\p{Cn}`, to it). Spelt as `[\p{Cn}&&[…]]` their ranges may run
/// across characters Java knows, which `\p{Cn}` takes out again; that joins most of them
/// (new letters are scattered among old ones). On a Java with newer tables (21: Unicode
/// 15.0) the ones it knows are matched by the properties instead.
fn newer_text(new: &ClassUnicode, ranges_text: &dyn Fn(&ClassUnicode) -> String) -> String {
    if new.ranges().is_empty() {
        return String::new();
    }
    let plain = ranges_text(new);
    let mut joined: Vec<ClassUnicodeRange> = Vec::new();
    for range in new.ranges() {
        if let Some(last) = joined.last_mut() {
            let mut gap = ClassUnicode::new([ClassUnicodeRange::new(last.end(), range.start())]);
            gap.difference(&JAVA_KNOWN);
            gap.difference(new);
            // Nothing in between that Java could take for unassigned but Rust does not
            // put in the class (a later non-word character, or one not assigned at all).
            if gap.ranges().is_empty() {
                *last = ClassUnicodeRange::new(last.start(), range.end());
                continue;
            }
        }
        joined.push(*range);
    }
    let coarse = format!("[\\p{{Cn}}&&[{}]]", ranges_text(&ClassUnicode::new(joined)));
    if coarse.len() < plain.len() {
        coarse
    } else {
        plain
    }
}
