//! `sed -i` scripts: the common one-line forms (`s///`, `d`, `i\`, `a\`, `c\` with line,
//! `$` and `/regex/` addresses), run over a file whose lines may be partly unknown.
//! Anything else (hold space, branches, `N`) is refused, so the step shows "could not
//! interpret" rather than a guess.

use regex::{Regex, RegexBuilder};

/// Where a command applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Addr {
    Line(usize),
    Last,
    /// A pattern, already translated to `regex` syntax.
    Regex(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Substitute {
        pattern: String,
        replacement: String,
        global: bool,
        nth: usize,
        icase: bool,
    },
    Delete,
    Insert(Vec<String>),
    Append(Vec<String>),
    Change(Vec<String>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cmd {
    pub from: Option<Addr>,
    pub to: Option<Addr>,
    pub action: Command,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Script {
    pub commands: Vec<Cmd>,
}

impl Script {
    /// The highest line number an address names.
    pub fn max_line(&self) -> usize {
        self.commands
            .iter()
            .flat_map(|c| [&c.from, &c.to])
            .filter_map(|a| match a {
                Some(Addr::Line(n)) => Some(*n),
                _ => None,
            })
            .max()
            .unwrap_or(0)
    }

    /// Whether a command may apply to any line (a regex or no address).
    pub fn scans_all(&self) -> bool {
        self.commands.iter().any(|c| {
            !matches!(
                (&c.from, &c.to),
                (Some(Addr::Line(_)), None | Some(Addr::Line(_)))
            )
        })
    }
}

/// Parses the scripts given with `-e` (or the one script argument).
pub fn parse(scripts: &[&str], extended: bool) -> Result<Script, String> {
    let mut commands = Vec::new();
    for script in scripts {
        let chars: Vec<char> = script.chars().collect();
        let mut i = 0;
        loop {
            while i < chars.len() && (chars[i].is_whitespace() || chars[i] == ';') {
                i += 1;
            }
            if i >= chars.len() {
                break;
            }
            let (cmd, next) = parse_command(&chars, i, extended)?;
            commands.push(cmd);
            i = next;
        }
    }
    if commands.is_empty() {
        return Err("empty sed script".into());
    }
    Ok(Script { commands })
}

fn parse_command(chars: &[char], mut i: usize, extended: bool) -> Result<(Cmd, usize), String> {
    let (from, next) = parse_addr(chars, i, extended)?;
    i = next;
    let mut to = None;
    if from.is_some() && chars.get(i) == Some(&',') {
        let (addr, next) = parse_addr(chars, i + 1, extended)?;
        to = Some(addr.ok_or("a range without an end")?);
        i = next;
    }
    while chars.get(i) == Some(&' ') {
        i += 1;
    }
    let Some(&c) = chars.get(i) else {
        return Err("an address without a command".into());
    };
    i += 1;
    let action = match c {
        's' => {
            let delim = *chars.get(i).ok_or("s without a delimiter")?;
            if delim == '\\' || delim == '\n' {
                return Err("bad delimiter".into());
            }
            let (pattern, next) = read_until(chars, i + 1, delim)?;
            let (replacement, next) = read_until(chars, next, delim)?;
            i = next;
            let (mut global, mut nth, mut icase) = (false, 1, false);
            let mut number = String::new();
            while let Some(&f) = chars.get(i) {
                match f {
                    'g' => global = true,
                    'i' | 'I' => icase = true,
                    'p' => {}
                    d if d.is_ascii_digit() => number.push(d),
                    ';' | '\n' | ' ' | '}' => break,
                    other => return Err(format!("unsupported s flag `{other}`")),
                }
                i += 1;
            }
            if !number.is_empty() {
                nth = number.parse().map_err(|_| "bad occurrence number")?;
            }
            Command::Substitute {
                pattern: translate_regex(&pattern, extended, delim),
                replacement: translate_replacement(&replacement),
                global,
                nth: nth.max(1),
                icase,
            }
        }
        'd' => Command::Delete,
        'i' | 'a' | 'c' => {
            // GNU one-liners: `5i text`, `5i\text`, `5i\` newline `text`.
            if chars.get(i) == Some(&'\\') {
                i += 1;
            }
            if chars.get(i) == Some(&'\n') {
                i += 1;
            }
            while chars.get(i) == Some(&' ') {
                i += 1;
            }
            let end = chars[i..]
                .iter()
                .position(|&c| c == '\n')
                .map_or(chars.len(), |p| i + p);
            let text: String = chars[i..end].iter().collect();
            let lines = vec![text.replace("\\t", "\t")];
            i = end;
            match c {
                'i' => Command::Insert(lines),
                'a' => Command::Append(lines),
                _ => Command::Change(lines),
            }
        }
        other => return Err(format!("unsupported sed command `{other}`")),
    };
    Ok((Cmd { from, to, action }, i))
}

fn parse_addr(
    chars: &[char],
    mut i: usize,
    extended: bool,
) -> Result<(Option<Addr>, usize), String> {
    match chars.get(i) {
        Some(d) if d.is_ascii_digit() => {
            let start = i;
            while chars.get(i).is_some_and(char::is_ascii_digit) {
                i += 1;
            }
            let n: String = chars[start..i].iter().collect();
            Ok((
                Some(Addr::Line(n.parse().map_err(|_| "bad line number")?)),
                i,
            ))
        }
        Some('$') => Ok((Some(Addr::Last), i + 1)),
        Some('/') => {
            let (pattern, next) = read_until(chars, i + 1, '/')?;
            Ok((
                Some(Addr::Regex(translate_regex(&pattern, extended, '/'))),
                next,
            ))
        }
        _ => Ok((None, i)),
    }
}

/// Text up to an unescaped `delim`; an escaped delimiter loses its backslash.
fn read_until(chars: &[char], mut i: usize, delim: char) -> Result<(String, usize), String> {
    let mut out = String::new();
    while let Some(&c) = chars.get(i) {
        if c == '\\' {
            match chars.get(i + 1) {
                Some(&d) if d == delim => out.push(d),
                Some(&d) => {
                    out.push('\\');
                    out.push(d);
                }
                None => return Err("unterminated expression".into()),
            }
            i += 2;
        } else if c == delim {
            return Ok((out, i + 1));
        } else {
            out.push(c);
            i += 1;
        }
    }
    Err("unterminated expression".into())
}

/// POSIX basic (or extended) regex → `regex` crate syntax.
fn translate_regex(pattern: &str, extended: bool, _delim: char) -> String {
    let mut out = String::new();
    let mut chars = pattern.chars().peekable();
    let mut in_bracket = false;
    while let Some(c) = chars.next() {
        if in_bracket {
            if c == ']' {
                in_bracket = false;
            }
            if c == '\\' {
                out.push_str("\\\\");
            } else {
                out.push(c);
            }
            continue;
        }
        match c {
            '[' => {
                in_bracket = true;
                out.push('[');
                for lead in ['^', ']'] {
                    if chars.peek() == Some(&lead) {
                        out.push(lead);
                        chars.next();
                    }
                }
            }
            '\\' => match chars.next() {
                Some(n @ ('(' | ')' | '{' | '}' | '+' | '?' | '|')) if !extended => out.push(n),
                Some('<' | '>') => out.push_str("\\b"),
                Some('n') => out.push_str("\\n"),
                Some('t') => out.push_str("\\t"),
                Some(d) if d.is_ascii_digit() => {
                    // Back-references have no `regex` equivalent; match the group's text
                    // loosely rather than fail.
                    out.push_str(".*?");
                }
                Some(n @ ('w' | 'W' | 's' | 'S' | 'b' | 'B')) => {
                    out.push('\\');
                    out.push(n);
                }
                Some(other) => out.push_str(&regex::escape(&other.to_string())),
                None => out.push_str("\\\\"),
            },
            '(' | ')' | '{' | '}' | '+' | '?' | '|' if !extended => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// `&`, `\1` and `\n` in a sed replacement → `regex` replacement syntax.
fn translate_replacement(replacement: &str) -> String {
    let mut out = String::new();
    let mut chars = replacement.chars();
    while let Some(c) = chars.next() {
        match c {
            '&' => out.push_str("${0}"),
            '$' => out.push_str("$$"),
            '\\' => match chars.next() {
                Some(d) if d.is_ascii_digit() => out.push_str(&format!("${{{d}}}")),
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('$') => out.push_str("$$"),
                Some(other) => out.push(other),
                None => {}
            },
            other => out.push(other),
        }
    }
    out
}

/// A line of the result: kept from the input (by index) or new text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    Kept(usize),
    New(String),
}

#[derive(Debug, Default)]
pub struct SedResult {
    pub lines: Vec<Line>,
    /// A command might have changed a line whose text is unknown.
    pub touched_unseen: bool,
    /// The script addresses the last line, but the file's end is not known.
    pub needs_end: bool,
}

/// Runs `script` over `lines` (`None` = text unknown). `complete`: the lines are the whole
/// file, so `$` is the last of them.
pub fn run(script: &Script, lines: &[Option<String>], complete: bool) -> SedResult {
    let mut out = SedResult::default();
    let compiled: Vec<Option<Regex>> = script
        .commands
        .iter()
        .map(|c| match &c.action {
            Command::Substitute { pattern, icase, .. } => RegexBuilder::new(pattern)
                .case_insensitive(*icase)
                .build()
                .ok(),
            _ => None,
        })
        .collect();
    let addr_regex = |a: &Option<Addr>| match a {
        Some(Addr::Regex(p)) => Regex::new(p).ok(),
        _ => None,
    };
    let from_re: Vec<Option<Regex>> = script
        .commands
        .iter()
        .map(|c| addr_regex(&c.from))
        .collect();
    let to_re: Vec<Option<Regex>> = script.commands.iter().map(|c| addr_regex(&c.to)).collect();
    let mut active = vec![false; script.commands.len()];
    if script
        .commands
        .iter()
        .any(|c| c.from == Some(Addr::Last) || c.to == Some(Addr::Last))
        && !complete
    {
        out.needs_end = true;
    }
    for (i, text) in lines.iter().enumerate() {
        let number = i + 1;
        let last = complete && number == lines.len();
        let mut current: Option<String> = text.clone();
        let mut changed = false;
        let mut deleted = false;
        let mut after = Vec::new();
        for (k, cmd) in script.commands.iter().enumerate() {
            let matches_addr = |addr: &Addr, re: &Option<Regex>, unseen: &mut bool| match addr {
                Addr::Line(n) => *n == number,
                Addr::Last => last,
                Addr::Regex(_) => match (&current, re) {
                    (Some(t), Some(re)) => re.is_match(t),
                    _ => {
                        *unseen = true;
                        false
                    }
                },
            };
            let mut unseen = false;
            let selected = match (&cmd.from, &cmd.to) {
                (None, _) => true,
                (Some(from), None) => matches_addr(from, &from_re[k], &mut unseen),
                (Some(from), Some(to)) => {
                    if active[k] {
                        let end = match to {
                            Addr::Line(n) => number >= *n,
                            _ => matches_addr(to, &to_re[k], &mut unseen),
                        };
                        if end {
                            active[k] = false;
                        }
                        true
                    } else if matches_addr(from, &from_re[k], &mut unseen) {
                        let single = matches!(to, Addr::Line(n) if *n <= number);
                        active[k] = !single;
                        true
                    } else {
                        false
                    }
                }
            };
            if unseen {
                out.touched_unseen = true;
            }
            if !selected {
                continue;
            }
            match &cmd.action {
                Command::Substitute {
                    replacement,
                    global,
                    nth,
                    ..
                } => {
                    let (Some(t), Some(re)) = (&current, &compiled[k]) else {
                        out.touched_unseen |= current.is_none();
                        continue;
                    };
                    let replaced = substitute(re, t, replacement, *global, *nth);
                    if replaced != *t {
                        current = Some(replaced);
                        changed = true;
                    }
                }
                Command::Delete => {
                    deleted = true;
                    break;
                }
                Command::Insert(text) => out.lines.extend(text.iter().cloned().map(Line::New)),
                Command::Append(text) => after.extend(text.iter().cloned()),
                Command::Change(text) => {
                    out.lines.extend(text.iter().cloned().map(Line::New));
                    deleted = true;
                    break;
                }
            }
        }
        if !deleted {
            out.lines.push(match (changed, current) {
                (true, Some(t)) => Line::New(t),
                _ => Line::Kept(i),
            });
        }
        out.lines.extend(after.into_iter().map(Line::New));
    }
    out
}

fn substitute(re: &Regex, text: &str, replacement: &str, global: bool, nth: usize) -> String {
    if global && nth == 1 {
        return re.replace_all(text, replacement).into_owned();
    }
    let mut out = String::new();
    let mut last = 0;
    for (count, caps) in re.captures_iter(text).enumerate() {
        let Some(m) = caps.get(0) else { continue };
        if count + 1 >= nth && (global || count + 1 == nth) {
            out.push_str(&text[last..m.start()]);
            caps.expand(replacement, &mut out);
            last = m.end();
        }
    }
    out.push_str(&text[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(v: &[&str]) -> Vec<Option<String>> {
        v.iter().map(|s| Some(s.to_string())).collect()
    }

    fn texts(o: &SedResult, input: &[Option<String>]) -> Vec<String> {
        o.lines
            .iter()
            .map(|l| match l {
                Line::Kept(i) => input[*i].clone().unwrap_or_default(),
                Line::New(t) => t.clone(),
            })
            .collect()
    }

    #[test]
    fn real_substitution_from_the_gpt5_mini_run() {
        // django__django-11119: sed -i "s/return t.render(Context(context))/…/"
        let s = parse(&["s/return t.render(Context(context))/return t.render(Context(context, autoescape=self.autoescape))/"], false).unwrap();
        let input = lines(&[
            "        t = self.get_template(template_name)",
            "        return t.render(Context(context))",
        ]);
        let o = run(&s, &input, true);
        assert_eq!(
            texts(&o, &input)[1],
            "        return t.render(Context(context, autoescape=self.autoescape))"
        );
        assert_eq!(o.lines[0], Line::Kept(0));
    }

    #[test]
    fn bre_groups_and_ampersand() {
        let s = parse(&[r"s/\(foo\)(x)/\1+&/g"], false).unwrap();
        let input = lines(&["foo(x) foo(x)"]);
        assert_eq!(
            texts(&run(&s, &input, true), &input),
            vec!["foo+foo(x) foo+foo(x)"]
        );
        let s = parse(&["s|a+|b|"], true).unwrap();
        let input = lines(&["caaat"]);
        assert_eq!(texts(&run(&s, &input, true), &input), vec!["cbt"]);
    }

    #[test]
    fn line_addresses_delete_insert_append() {
        let s = parse(&["2d", "3i\\new", "$a end"], false).unwrap();
        let input = lines(&["a", "b", "c"]);
        assert_eq!(
            texts(&run(&s, &input, true), &input),
            vec!["a", "new", "c", "end"]
        );
        let s = parse(&["/^b/,/^c/d"], false).unwrap();
        let input = lines(&["a", "b", "x", "c", "d"]);
        assert_eq!(texts(&run(&s, &input, true), &input), vec!["a", "d"]);
    }

    #[test]
    fn unknown_lines_are_flagged_not_guessed() {
        let s = parse(&["s/a/b/"], false).unwrap();
        let input = vec![Some("a".to_string()), None];
        let o = run(&s, &input, true);
        assert!(o.touched_unseen);
        assert_eq!(o.lines[1], Line::Kept(1));
        let s = parse(&["1s/a/b/"], false).unwrap();
        assert!(!run(&s, &input, true).touched_unseen);
    }

    #[test]
    fn unsupported_scripts_are_refused() {
        for bad in ["N;P;D", "s/a/b", "y/abc/xyz/", "s/a/b/w out", ""] {
            assert!(parse(&[bad], false).is_err(), "{bad}");
        }
    }
}
