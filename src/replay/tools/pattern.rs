//! The pattern languages the original tools inherit from Unix: grep's basic regular
//! expressions (SWE-agent's `search_dir`/`search_file` run `grep` with the model's term),
//! `find -name` globs, and the `**` globs of Claude Code's `Glob`. Pure.

use regex::bytes::{Regex, RegexBuilder};

/// A GNU grep basic regular expression (BRE) as a Rust regex: `( ) { } + ? |` are literal
/// unless escaped, `*` at the start is literal, `^`/`$` anchor only at the ends, `\<`/`\>`
/// are word boundaries, and a backslash inside `[…]` is literal.
/// `None` where grep itself would fail (`Unmatched [`), so nothing matches.
pub fn bre(pattern: &str) -> Option<Regex> {
    RegexBuilder::new(&bre_to_regex(pattern)?).build().ok()
}

pub fn bre_to_regex(pattern: &str) -> Option<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() * 2);
    let mut i = 0;
    // Where a `*` would have nothing to repeat, so it is literal (start, after `\(` or `\|`).
    let mut at_start = true;
    while i < chars.len() {
        let c = chars[i];
        let was_start = at_start;
        at_start = false;
        match c {
            '\\' if i + 1 < chars.len() => {
                let n = chars[i + 1];
                i += 2;
                match n {
                    '(' => {
                        out.push('(');
                        at_start = true;
                    }
                    '|' => {
                        out.push('|');
                        at_start = true;
                    }
                    ')' | '{' | '}' | '+' | '?' => out.push(n),
                    '<' | '>' => out.push_str(r"\b"),
                    'w' | 'W' | 's' | 'S' | 'b' | 'B' => {
                        out.push('\\');
                        out.push(n);
                    }
                    d if d.is_ascii_digit() => {
                        // Back-references have no Rust equivalent; match the digit literally.
                        out.push(d);
                    }
                    other => push_literal(&mut out, other),
                }
                continue;
            }
            '\\' => out.push_str(r"\\"),
            '*' if was_start => out.push_str(r"\*"),
            '^' if was_start => {
                out.push('^');
                at_start = true;
            }
            '$' if i + 1 == chars.len()
                || chars[i + 1..].starts_with(&['\\', ')'])
                || chars[i + 1..].starts_with(&['\\', '|']) =>
            {
                out.push('$')
            }
            '[' => {
                i = bracket(&chars, i, &mut out)?;
                continue;
            }
            '.' | '*' => out.push(c),
            other => push_literal(&mut out, other),
        }
        i += 1;
    }
    Some(out)
}

fn push_literal(out: &mut String, c: char) {
    if c.is_ascii_punctuation() {
        out.push('\\');
    }
    out.push(c);
}

/// Copies a POSIX bracket expression starting at `chars[start] == '['`; returns the index
/// after it, or `None` when it is never closed.
fn bracket(chars: &[char], start: usize, out: &mut String) -> Option<usize> {
    let mut i = start + 1;
    let mut body = String::from("[");
    if chars.get(i) == Some(&'^') {
        body.push('^');
        i += 1;
    }
    let mut first = true;
    while let Some(&c) = chars.get(i) {
        if c == ']' && !first {
            body.push(']');
            out.push_str(&body);
            return Some(i + 1);
        }
        first = false;
        if c == '[' && matches!(chars.get(i + 1), Some(':' | '=' | '.')) {
            let kind = chars[i + 1];
            let close: String = [kind, ']'].iter().collect();
            let rest: String = chars[i..].iter().collect();
            if let Some(end) = rest[2..].find(&close) {
                let class: String = chars[i..i + 2 + end + 2].iter().collect();
                body.push_str(&class);
                i += class.chars().count();
                continue;
            }
        }
        if matches!(c, '\\' | '[' | '&' | '~') || (c == '-' && chars.get(i + 1) == Some(&'-')) {
            body.push('\\');
        }
        body.push(c);
        i += 1;
    }
    None
}

/// `fnmatch` as `find -name` uses it: `*`, `?`, `[…]`, `\x`; `*` matches any characters.
pub fn fnmatch(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    glob_match(&p, &n, false)
}

/// Claude Code `Glob` patterns: `**` crosses folders, `*` and `?` stay within one, `{a,b}`
/// alternatives. Matched against a path relative to the search folder.
pub fn path_glob(pattern: &str, path: &str) -> bool {
    for expanded in braces(pattern) {
        let p: Vec<char> = expanded.chars().collect();
        let n: Vec<char> = path.chars().collect();
        if glob_match(&p, &n, true) {
            return true;
        }
    }
    false
}

fn braces(pattern: &str) -> Vec<String> {
    let Some(open) = pattern.find('{') else {
        return vec![pattern.to_string()];
    };
    let Some(close) = pattern[open..].find('}').map(|c| open + c) else {
        return vec![pattern.to_string()];
    };
    let (head, tail) = (&pattern[..open], &pattern[close + 1..]);
    pattern[open + 1..close]
        .split(',')
        .flat_map(|alt| braces(&format!("{head}{alt}{tail}")))
        .collect()
}

fn glob_match(p: &[char], n: &[char], slash_aware: bool) -> bool {
    match p.first() {
        None => n.is_empty(),
        Some('*') if slash_aware && p.get(1) == Some(&'*') => {
            // `**/` matches zero or more folders; a bare `**` anything.
            if p.get(2) != Some(&'/') {
                return (0..=n.len()).any(|i| glob_match(&p[2..], &n[i..], true));
            }
            let rest = &p[3..];
            (0..=n.len()).any(|i| (i == 0 || n[i - 1] == '/') && glob_match(rest, &n[i..], true))
        }
        Some('*') => (0..=n.len())
            .take_while(|&i| !(slash_aware && i > 0 && n[i - 1] == '/'))
            .any(|i| glob_match(&p[1..], &n[i..], slash_aware)),
        Some('?') => {
            let blocked = n.is_empty() || slash_aware && n[0] == '/';
            !blocked && glob_match(&p[1..], &n[1..], slash_aware)
        }
        Some('[') => match class_match(p, n.first().copied()) {
            Some((true, used)) => glob_match(&p[used..], &n[1..], slash_aware),
            Some((false, _)) => false,
            None => n.first() == Some(&'[') && glob_match(&p[1..], &n[1..], slash_aware),
        },
        Some('\\') if p.len() > 1 => {
            n.first() == Some(&p[1]) && glob_match(&p[2..], &n[1..], slash_aware)
        }
        Some(&c) => n.first() == Some(&c) && glob_match(&p[1..], &n[1..], slash_aware),
    }
}

/// Whether `c` is in the class at the start of `p`, and the class's length; `None` when the
/// `[` does not start a class.
fn class_match(p: &[char], c: Option<char>) -> Option<(bool, usize)> {
    let mut i = 1;
    let negate = matches!(p.get(i), Some('!' | '^'));
    if negate {
        i += 1;
    }
    let mut found = false;
    let mut first = true;
    while let Some(&pc) = p.get(i) {
        if pc == ']' && !first {
            return Some((c.is_some() && found != negate, i + 1));
        }
        first = false;
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|&e| e != ']') {
            let end = p[i + 2];
            if c.is_some_and(|c| pc <= c && c <= end) {
                found = true;
            }
            i += 3;
        } else {
            if c == Some(pc) {
                found = true;
            }
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grep(pattern: &str, line: &str) -> bool {
        bre(pattern).is_some_and(|r| r.is_match(line.as_bytes()))
    }

    #[test]
    fn basic_regular_expressions_like_grep() {
        assert!(grep("class Plot(", "class Plot(Base):"));
        assert!(!grep("class Plot(", "class Plot:"));
        assert!(grep("def fit(", "    def fit(self, X):"));
        // `*` repeats the `I` before it: CodeR's sympy search found nothing, and neither do we.
        assert!(!grep(
            "-I*exp(I*k) + I*exp(-I*k)",
            "-I*exp(I*k) + I*exp(-I*k)"
        ));
        assert!(grep("-I*exp(I*k) + I*exp(-I*k)", "-exp(k) + exp(-k)"));
        assert!(grep("translation.E004", "translationXE004"));
        assert!(grep("a\\|b", "b"));
        assert!(grep("x\\{2\\}", "axxb") && !grep("x\\{2\\}", "axb"));
        assert!(grep("^def ", "def f():") && !grep("^def ", " def f():"));
        assert!(grep("a^b$c", "a^b$c"));
        assert!(grep("end$", "the end"));
        assert!(grep("*star", "a *star"));
        assert!(grep("[[:digit:]]\\+", "x9"));
        assert!(grep("[\\]", "a\\b"));
        assert!(grep("[]a]", "]"));
        assert!(grep("{a}", "{a}"));
        assert!(grep("\\<word\\>", "a word here") && !grep("\\<word\\>", "swordfish"));
        assert!(!grep("[unterminated", "x[unterminated"));
        assert!(grep("a.c#d", "abc#d"));
    }

    #[test]
    fn find_name_globs() {
        assert!(fnmatch("*.py", "fields.py"));
        assert!(!fnmatch("*.py", "fields.pyc"));
        assert!(fnmatch("test_?.py", "test_a.py"));
        assert!(fnmatch("[ab]*", "beta") && !fnmatch("[!ab]*", "beta"));
        assert!(fnmatch("reproduce.py", "reproduce.py"));
        assert!(!fnmatch("postgresql", "postgresql.py"));
    }

    #[test]
    fn claude_code_globs() {
        assert!(path_glob("**/*.py", "a.py"));
        assert!(path_glob("**/*.py", "pkg/sub/a.py"));
        assert!(!path_glob("*.py", "pkg/a.py"));
        assert!(path_glob("pkg/*.{py,txt}", "pkg/a.txt"));
        assert!(path_glob("src/**", "src/x/y.rs"));
        assert!(!path_glob("src/*", "src/x/y.rs"));
    }
}
