//! A small shell-command reader: enough of POSIX sh to see what a command line writes and
//! reads (words with quotes removed, pipelines, `&&`/`;` lists, redirections, here-documents,
//! `bash -c "…"`). It never runs anything. Words that depend on expansions (`$x`, `$(…)`,
//! globs) are marked, so interpreters refuse to guess what they name.

/// One simple command: `sed -i 's/a/b/' f.py > log 2>&1 <<EOF …`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Command {
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
    /// The body of its here-document (`<<EOF`), the last one when there are several.
    pub heredoc: Option<String>,
}

impl Command {
    /// The words as plain strings.
    pub fn argv(&self) -> Vec<&str> {
        self.words.iter().map(|w| w.text.as_str()).collect()
    }

    /// The command name, without a leading path (`/usr/bin/sed` → `sed`).
    pub fn name(&self) -> &str {
        let first = self.words.first().map_or("", |w| w.text.as_str());
        first.rsplit('/').next().unwrap_or(first)
    }

    /// Files written by `>`/`>>` redirections of standard output: (path, appends).
    pub fn output_files(&self) -> impl Iterator<Item = (&Word, bool)> {
        self.redirects.iter().filter_map(|r| match r.op {
            RedirectOp::Write if r.fd == 1 => Some((&r.target, false)),
            RedirectOp::Append if r.fd == 1 => Some((&r.target, true)),
            _ => None,
        })
    }
}

/// A word with quotes removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Word {
    pub text: String,
    /// It holds an unquoted or double-quoted expansion (`$x`, `$(…)`, `` `…` ``) or an
    /// unquoted glob: its value at run time is not `text`.
    pub dynamic: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    pub fd: u32,
    pub op: RedirectOp,
    pub target: Word,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirectOp {
    Write,
    Append,
    Read,
    /// `2>&1` and the like: the target is a descriptor.
    Duplicate,
}

/// How a pipeline is joined to the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connector {
    /// `;`, a newline, or the start.
    Then,
    /// `&&`: runs only if the previous pipeline succeeded.
    And,
    /// `||`: runs only if the previous pipeline failed.
    Or,
}

/// Commands joined by `|`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pipeline {
    pub connector: Connector,
    pub commands: Vec<Command>,
}

/// Parses a command line into pipelines, flattening `( … )`, `{ …; }` and `bash -c '…'`.
/// Never fails: what it cannot read becomes words that interpreters will not recognise.
pub fn parse(script: &str) -> Vec<Pipeline> {
    let mut out = Vec::new();
    parse_into(script, &mut out, 0);
    out
}

fn parse_into(script: &str, out: &mut Vec<Pipeline>, depth: usize) {
    let tokens = tokenize(script);
    let mut connector = Connector::Then;
    let mut commands: Vec<Command> = Vec::new();
    let mut current = Command::default();
    let mut pending_redirect: Option<(u32, RedirectOp)> = None;
    let flush_command = |current: &mut Command, commands: &mut Vec<Command>| {
        if !current.words.is_empty() || !current.redirects.is_empty() {
            commands.push(std::mem::take(current));
        }
    };
    for token in tokens {
        match token {
            Token::Word(word) => {
                if let Some((fd, op)) = pending_redirect.take() {
                    current.redirects.push(Redirect {
                        fd,
                        op,
                        target: word,
                    });
                } else {
                    current.words.push(word);
                }
            }
            Token::Redirect(fd, op) => pending_redirect = Some((fd, op)),
            Token::Heredoc(body) => current.heredoc = Some(body),
            Token::Pipe => flush_command(&mut current, &mut commands),
            Token::Separator(next) => {
                flush_command(&mut current, &mut commands);
                if !commands.is_empty() {
                    push_pipeline(out, connector, std::mem::take(&mut commands), depth);
                }
                connector = next;
            }
        }
    }
    flush_command(&mut current, &mut commands);
    if !commands.is_empty() {
        push_pipeline(out, connector, commands, depth);
    }
}

/// Adds a pipeline, unwrapping `bash -c "script"` (and `sh -c`, `bash -lc`) into the
/// pipelines of its script.
fn push_pipeline(
    out: &mut Vec<Pipeline>,
    connector: Connector,
    commands: Vec<Command>,
    depth: usize,
) {
    if commands.len() == 1 && depth < 4 {
        let c = &commands[0];
        let argv = c.argv();
        let is_shell = matches!(c.name(), "bash" | "sh" | "zsh");
        if is_shell && argv.len() == 3 && argv[1].starts_with('-') && argv[1].contains('c') {
            let start = out.len();
            parse_into(argv[2], out, depth + 1);
            if let Some(first) = out.get_mut(start) {
                first.connector = connector;
            }
            return;
        }
    }
    out.push(Pipeline {
        connector,
        commands,
    });
}

#[derive(Debug)]
enum Token {
    Word(Word),
    Redirect(u32, RedirectOp),
    Heredoc(String),
    Pipe,
    Separator(Connector),
}

fn tokenize(script: &str) -> Vec<Token> {
    let chars: Vec<char> = script.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    // Here-documents announced on the current line: (delimiter, strip tabs, token index).
    let mut pending: Vec<(String, bool, usize)> = Vec::new();
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\n' => {
                i += 1;
                for (delim, strip, at) in pending.drain(..) {
                    let (body, next) = read_heredoc(&chars, i, &delim, strip);
                    i = next;
                    if let Some(Token::Heredoc(slot)) = tokens.get_mut(at) {
                        *slot = body;
                    }
                }
                tokens.push(Token::Separator(Connector::Then));
            }
            ' ' | '\t' | '\r' => i += 1,
            '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            ';' | '(' | ')' | '{' | '}' if c != '{' && c != '}' || is_brace_word(&chars, i) => {
                i += 1;
                if c == ';' && chars.get(i) == Some(&';') {
                    i += 1;
                }
                tokens.push(Token::Separator(Connector::Then));
            }
            '&' if chars.get(i + 1) == Some(&'&') => {
                i += 2;
                tokens.push(Token::Separator(Connector::And));
            }
            '&' if chars.get(i + 1) == Some(&'>') => {
                let append = chars.get(i + 2) == Some(&'>');
                i += if append { 3 } else { 2 };
                let op = if append {
                    RedirectOp::Append
                } else {
                    RedirectOp::Write
                };
                tokens.push(Token::Redirect(2, RedirectOp::Duplicate));
                tokens.push(Token::Word(Word {
                    text: "1".into(),
                    dynamic: false,
                }));
                tokens.push(Token::Redirect(1, op));
            }
            '&' => {
                i += 1;
                tokens.push(Token::Separator(Connector::Then));
            }
            '|' if chars.get(i + 1) == Some(&'|') => {
                i += 2;
                tokens.push(Token::Separator(Connector::Or));
            }
            '|' => {
                i += 1;
                if chars.get(i) == Some(&'&') {
                    i += 1;
                }
                tokens.push(Token::Pipe);
            }
            '<' | '>' => i = redirect(&chars, i, 1, &mut tokens, &mut pending),
            d if d.is_ascii_digit() && matches!(chars.get(i + 1), Some('<' | '>')) => {
                let fd = d.to_digit(10).unwrap_or(1);
                i = redirect(&chars, i + 1, fd, &mut tokens, &mut pending);
            }
            _ => {
                let (word, next) = read_word(&chars, i);
                i = next;
                tokens.push(Token::Word(word));
            }
        }
    }
    tokens
}

/// `{` and `}` group commands only as words of their own.
fn is_brace_word(chars: &[char], i: usize) -> bool {
    let before = i == 0 || chars[i - 1].is_whitespace() || chars[i - 1] == ';';
    let after = chars
        .get(i + 1)
        .is_none_or(|c| c.is_whitespace() || *c == ';');
    before && after
}

/// Reads a redirection operator at `i` (a `<` or `>`), pushing its tokens.
fn redirect(
    chars: &[char],
    mut i: usize,
    fd: u32,
    tokens: &mut Vec<Token>,
    pending: &mut Vec<(String, bool, usize)>,
) -> usize {
    let c = chars[i];
    i += 1;
    if c == '<' {
        if chars.get(i) == Some(&'<') {
            i += 1;
            if chars.get(i) == Some(&'<') {
                // `<<<word`: a here-string.
                i += 1;
                while chars.get(i) == Some(&' ') {
                    i += 1;
                }
                let (word, next) = read_word(chars, i);
                tokens.push(Token::Heredoc(format!("{}\n", word.text)));
                return next;
            }
            let strip = chars.get(i) == Some(&'-');
            if strip {
                i += 1;
            }
            while chars.get(i) == Some(&' ') {
                i += 1;
            }
            let (word, next) = read_word(chars, i);
            pending.push((word.text, strip, tokens.len()));
            tokens.push(Token::Heredoc(String::new()));
            return next;
        }
        tokens.push(Token::Redirect(0, RedirectOp::Read));
        return i;
    }
    let op = if chars.get(i) == Some(&'>') {
        i += 1;
        RedirectOp::Append
    } else {
        if chars.get(i) == Some(&'|') {
            i += 1;
        }
        RedirectOp::Write
    };
    if chars.get(i) == Some(&'&') {
        i += 1;
        tokens.push(Token::Redirect(fd, RedirectOp::Duplicate));
        return i;
    }
    tokens.push(Token::Redirect(fd, op));
    i
}

/// A here-document body starting at `i`, up to the line equal to `delim`.
fn read_heredoc(chars: &[char], mut i: usize, delim: &str, strip_tabs: bool) -> (String, usize) {
    let mut body = String::new();
    while i < chars.len() {
        let end = chars[i..]
            .iter()
            .position(|&c| c == '\n')
            .map_or(chars.len(), |p| i + p);
        let line: String = chars[i..end].iter().collect();
        let next = (end + 1).min(chars.len());
        let candidate = if strip_tabs {
            line.trim_start_matches('\t')
        } else {
            line.as_str()
        };
        if candidate.trim_end_matches('\r') == delim {
            return (body, next);
        }
        body.push_str(candidate);
        body.push('\n');
        i = if end >= chars.len() {
            chars.len()
        } else {
            next
        };
    }
    (body, i)
}

/// One word from `i`: quotes removed, escapes applied, expansions marked.
fn read_word(chars: &[char], mut i: usize) -> (Word, usize) {
    let mut word = Word::default();
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\n' | '\r' | ';' | '&' | '|' | '<' | '>' | '(' | ')' => break,
            '\\' => {
                match chars.get(i + 1) {
                    Some('\n') => {}
                    Some(&next) => word.text.push(next),
                    None => {}
                }
                i += 2;
            }
            '\'' => {
                i += 1;
                while i < chars.len() && chars[i] != '\'' {
                    word.text.push(chars[i]);
                    i += 1;
                }
                i += 1;
            }
            '$' if chars.get(i + 1) == Some(&'\'') => {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    if chars[i] == '\\' && i + 1 < chars.len() {
                        word.text.push(match chars[i + 1] {
                            'n' => '\n',
                            't' => '\t',
                            'r' => '\r',
                            '0' => '\0',
                            other => other,
                        });
                        i += 2;
                    } else {
                        word.text.push(chars[i]);
                        i += 1;
                    }
                }
                i += 1;
            }
            '"' => {
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    match chars[i] {
                        '\\' if matches!(chars.get(i + 1), Some('"' | '\\' | '$' | '`' | '\n')) => {
                            if chars[i + 1] != '\n' {
                                word.text.push(chars[i + 1]);
                            }
                            i += 2;
                        }
                        '$' | '`' => {
                            word.dynamic = true;
                            i = read_expansion(chars, i, &mut word.text);
                        }
                        other => {
                            word.text.push(other);
                            i += 1;
                        }
                    }
                }
                i += 1;
            }
            '$' | '`' => {
                word.dynamic = true;
                i = read_expansion(chars, i, &mut word.text);
            }
            '*' | '?' | '[' => {
                word.dynamic = true;
                word.text.push(c);
                i += 1;
            }
            _ => {
                word.text.push(c);
                i += 1;
            }
        }
    }
    (word, i)
}

/// Copies an expansion (`$x`, `${x}`, `$(…)`, `` `…` ``) verbatim, balancing brackets.
fn read_expansion(chars: &[char], mut i: usize, out: &mut String) -> usize {
    let (open, close) = match (chars[i], chars.get(i + 1)) {
        ('`', _) => ('`', '`'),
        ('$', Some('(')) => ('(', ')'),
        ('$', Some('{')) => ('{', '}'),
        _ => {
            out.push(chars[i]);
            i += 1;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                out.push(chars[i]);
                i += 1;
            }
            return i;
        }
    };
    if open != '`' {
        out.push('$');
        i += 1;
    }
    out.push(chars[i]);
    i += 1;
    let mut depth = 1;
    while i < chars.len() && depth > 0 {
        let c = chars[i];
        if open != '`' && c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
        }
        out.push(c);
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argvs(script: &str) -> Vec<Vec<String>> {
        parse(script)
            .iter()
            .flat_map(|p| {
                p.commands
                    .iter()
                    .map(|c| c.argv().iter().map(|s| s.to_string()).collect())
            })
            .collect()
    }

    #[test]
    fn quotes_and_lists() {
        let p = parse(r#"cd /testbed && sed -i "s/a b/c\"d/" x.py; echo 'it''s' done"#);
        assert_eq!(p.len(), 3);
        assert_eq!(p[1].connector, Connector::And);
        assert_eq!(
            p[1].commands[0].argv(),
            vec!["sed", "-i", "s/a b/c\"d/", "x.py"]
        );
        assert_eq!(p[2].commands[0].argv(), vec!["echo", "its", "done"]);
    }

    #[test]
    fn heredoc_with_redirect_before_and_after() {
        let script = "cat <<'PY' > /tmp/fix.py && python3 /tmp/fix.py\nimport x\n$HOME stays\nPY\n";
        let p = parse(script);
        assert_eq!(p.len(), 2);
        let cat = &p[0].commands[0];
        assert_eq!(cat.heredoc.as_deref(), Some("import x\n$HOME stays\n"));
        let out: Vec<_> = cat
            .output_files()
            .map(|(w, a)| (w.text.clone(), a))
            .collect();
        assert_eq!(out, vec![("/tmp/fix.py".to_string(), false)]);
        assert_eq!(p[1].commands[0].argv(), vec!["python3", "/tmp/fix.py"]);

        let p = parse("cat > a.py << EOF\nx\nEOF\necho hi");
        assert_eq!(p[0].commands[0].heredoc.as_deref(), Some("x\n"));
        assert_eq!(p[1].commands[0].argv(), vec!["echo", "hi"]);
    }

    #[test]
    fn pipelines_and_redirect_forms() {
        let p = parse("nl -ba f.py | sed -n '10,20p' 2>&1 >> log.txt");
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].commands.len(), 2);
        let sed = &p[0].commands[1];
        assert_eq!(sed.argv(), vec!["sed", "-n", "10,20p"]);
        assert_eq!(
            sed.output_files()
                .map(|(w, a)| (w.text.as_str(), a))
                .collect::<Vec<_>>(),
            vec![("log.txt", true)]
        );
    }

    #[test]
    fn bash_dash_c_is_unwrapped() {
        let a = argvs("bash -lc \"cat > t.py <<'PYT'\ndef f():\n    pass\nPYT\npytest -q\"");
        assert_eq!(
            a,
            vec![
                vec!["cat".to_string()],
                vec!["pytest".to_string(), "-q".to_string()]
            ]
        );
        let p = parse("bash -lc \"cat > t.py <<'PYT'\ndef f():\n    pass\nPYT\npytest -q\"");
        assert_eq!(
            p[0].commands[0].heredoc.as_deref(),
            Some("def f():\n    pass\n")
        );
    }

    #[test]
    fn expansions_are_marked() {
        let p = parse("echo \"$HOME/x\" > $OUT; rm *.pyc");
        assert!(p[0].commands[0].words[1].dynamic);
        assert!(p[0].commands[0].redirects[0].target.dynamic);
        assert!(p[1].commands[0].words[1].dynamic);
        let p = parse("echo $(ls)x");
        assert_eq!(p[0].commands[0].words[1].text, "$(ls)x");
    }

    #[test]
    fn unterminated_input_does_not_panic() {
        for s in [
            "'abc",
            "\"abc",
            "cat <<EOF\nno end",
            "$(",
            "a \\",
            "echo >",
            "x 2>",
            "{ a; }",
            "((",
            "`",
        ] {
            let _ = parse(s);
        }
    }
}
