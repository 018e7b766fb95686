//! Template text → nodes: tags, whitespace control and the expression grammar.

use super::TemplateError;

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Int(i64),
    Str(String),
    Name(String),
    Attr(Box<Expr>, String),
    Index(Box<Expr>, Box<Expr>),
    Slice(Box<Expr>, Option<Box<Expr>>, Option<Box<Expr>>),
    Filter(Box<Expr>, String),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Binary(Box<Expr>, String, Box<Expr>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Text(String),
    Print(Expr),
    If(Vec<(Expr, Vec<Node>)>, Vec<Node>),
    Set(String, Expr),
}

fn err(msg: impl Into<String>) -> TemplateError {
    TemplateError(msg.into())
}

/// One piece of the template before nesting: text, `{{ }}` or `{% %}`.
enum Piece {
    Text(String),
    Print(String),
    Tag(String),
}

fn pieces(template: &str) -> Result<Vec<Piece>, TemplateError> {
    let mut out = Vec::new();
    let mut rest = template;
    let mut strip_next = false;
    loop {
        let next = [rest.find("{{"), rest.find("{%")]
            .into_iter()
            .flatten()
            .min();
        let Some(at) = next else {
            push_text(&mut out, rest, strip_next, false);
            return Ok(out);
        };
        let is_print = rest[at..].starts_with("{{");
        let close = if is_print { "}}" } else { "%}" };
        let inner_start = at + 2;
        let strip_before = rest[inner_start..].starts_with('-');
        push_text(&mut out, &rest[..at], strip_next, strip_before);
        let Some(end) = rest[inner_start..].find(close) else {
            return Err(err(format!("unclosed `{}`", &rest[at..at + 2])));
        };
        let mut inner = &rest[inner_start..inner_start + end];
        inner = inner.strip_prefix('-').unwrap_or(inner);
        strip_next = inner.ends_with('-');
        inner = inner.strip_suffix('-').unwrap_or(inner);
        let inner = inner.trim().to_string();
        out.push(if is_print {
            Piece::Print(inner)
        } else {
            Piece::Tag(inner)
        });
        rest = &rest[inner_start + end + 2..];
    }
}

fn push_text(out: &mut Vec<Piece>, text: &str, strip_start: bool, strip_end: bool) {
    let mut t = text;
    if strip_start {
        t = t.trim_start();
    }
    if strip_end {
        t = t.trim_end();
    }
    if !t.is_empty() {
        out.push(Piece::Text(t.to_string()));
    }
}

pub fn parse(template: &str) -> Result<Vec<Node>, TemplateError> {
    let pieces = pieces(template)?;
    let mut at = 0;
    let (nodes, stop) = block(&pieces, &mut at)?;
    match stop {
        None => Ok(nodes),
        Some(tag) => Err(err(format!("`{{% {tag} %}}` without its `if`"))),
    }
}

/// Nodes until the end or an `elif`/`else`/`endif` tag, which is returned.
fn block(pieces: &[Piece], at: &mut usize) -> Result<(Vec<Node>, Option<String>), TemplateError> {
    let mut nodes = Vec::new();
    while let Some(piece) = pieces.get(*at) {
        *at += 1;
        match piece {
            Piece::Text(t) => nodes.push(Node::Text(t.clone())),
            Piece::Print(e) => nodes.push(Node::Print(expression(e)?)),
            Piece::Tag(tag) => {
                let (word, rest) = tag.split_once(char::is_whitespace).unwrap_or((tag, ""));
                match word {
                    "if" => nodes.push(if_node(expression(rest)?, pieces, at)?),
                    "set" => {
                        let (name, value) = rest
                            .split_once('=')
                            .ok_or_else(|| err(format!("`set` without `=`: {tag}")))?;
                        nodes.push(Node::Set(name.trim().to_string(), expression(value)?));
                    }
                    "elif" | "else" | "endif" => return Ok((nodes, Some(tag.clone()))),
                    other => return Err(err(format!("unsupported tag `{other}`"))),
                }
            }
        }
    }
    Ok((nodes, None))
}

fn if_node(first: Expr, pieces: &[Piece], at: &mut usize) -> Result<Node, TemplateError> {
    let mut arms = Vec::new();
    let mut condition = first;
    loop {
        let (body, stop) = block(pieces, at)?;
        let stop = stop.ok_or_else(|| err("`if` without `endif`"))?;
        let (word, rest) = stop.split_once(char::is_whitespace).unwrap_or((&stop, ""));
        arms.push((condition, body));
        match word {
            "elif" => condition = expression(rest)?,
            "else" => {
                let (otherwise, end) = block(pieces, at)?;
                return match end.as_deref() {
                    Some("endif") => Ok(Node::If(arms, otherwise)),
                    _ => Err(err("`else` without `endif`")),
                };
            }
            _ => return Ok(Node::If(arms, Vec::new())),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Int(i64),
    Str(String),
    Ident(String),
    Sym(&'static str),
}

fn tokens(text: &str) -> Result<Vec<Token>, TemplateError> {
    const SYMBOLS: [&str; 15] = [
        "<=", ">=", "==", "!=", "<", ">", "+", "-", ".", "[", "]", ":", "|", "(", ")",
    ];
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    'outer: while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            let digits: String = chars[start..i].iter().collect();
            out.push(Token::Int(
                digits
                    .parse()
                    .map_err(|_| err(format!("bad number {digits}")))?,
            ));
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Token::Ident(chars[start..i].iter().collect()));
        } else if c == '\'' || c == '"' {
            let start = i + 1;
            let end = chars[start..]
                .iter()
                .position(|&d| d == c)
                .ok_or_else(|| err("unterminated string"))?;
            out.push(Token::Str(chars[start..start + end].iter().collect()));
            i = start + end + 1;
        } else {
            for sym in SYMBOLS {
                let len = sym.len();
                if chars.len() >= i + len && chars[i..i + len].iter().copied().eq(sym.chars()) {
                    out.push(Token::Sym(sym));
                    i += len;
                    continue 'outer;
                }
            }
            return Err(err(format!("unexpected `{c}` in expression")));
        }
    }
    Ok(out)
}

pub fn expression(text: &str) -> Result<Expr, TemplateError> {
    let tokens = tokens(text)?;
    let mut p = Parser { tokens, at: 0 };
    let e = p.or()?;
    if p.at != p.tokens.len() {
        return Err(err(format!("trailing input in `{text}`")));
    }
    Ok(e)
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn eat_sym(&mut self, sym: &str) -> bool {
        if matches!(self.peek(), Some(Token::Sym(s)) if *s == sym) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn eat_word(&mut self, word: &str) -> bool {
        if matches!(self.peek(), Some(Token::Ident(w)) if w == word) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn or(&mut self) -> Result<Expr, TemplateError> {
        let mut left = self.and()?;
        while self.eat_word("or") {
            left = Expr::Binary(Box::new(left), "or".into(), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, TemplateError> {
        let mut left = self.not()?;
        while self.eat_word("and") {
            left = Expr::Binary(Box::new(left), "and".into(), Box::new(self.not()?));
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<Expr, TemplateError> {
        if self.eat_word("not") {
            return Ok(Expr::Not(Box::new(self.not()?)));
        }
        self.comparison()
    }

    fn comparison(&mut self) -> Result<Expr, TemplateError> {
        let left = self.sum()?;
        for op in ["<=", ">=", "==", "!=", "<", ">"] {
            if self.eat_sym(op) {
                return Ok(Expr::Binary(
                    Box::new(left),
                    op.into(),
                    Box::new(self.sum()?),
                ));
            }
        }
        Ok(left)
    }

    fn sum(&mut self) -> Result<Expr, TemplateError> {
        let mut left = self.postfix()?;
        loop {
            let op = if self.eat_sym("+") {
                "+"
            } else if self.eat_sym("-") {
                "-"
            } else {
                return Ok(left);
            };
            left = Expr::Binary(Box::new(left), op.into(), Box::new(self.postfix()?));
        }
    }

    fn postfix(&mut self) -> Result<Expr, TemplateError> {
        let mut e = self.primary()?;
        loop {
            if self.eat_sym(".") {
                e = Expr::Attr(Box::new(e), self.ident()?);
            } else if self.eat_sym("|") {
                e = Expr::Filter(Box::new(e), self.ident()?);
            } else if self.eat_sym("[") {
                e = self.subscript(e)?;
            } else {
                return Ok(e);
            }
        }
    }

    fn subscript(&mut self, target: Expr) -> Result<Expr, TemplateError> {
        let start = if matches!(self.peek(), Some(Token::Sym(":"))) {
            None
        } else {
            Some(Box::new(self.or()?))
        };
        if self.eat_sym(":") {
            let end = if matches!(self.peek(), Some(Token::Sym("]"))) {
                None
            } else {
                Some(Box::new(self.or()?))
            };
            self.expect("]")?;
            return Ok(Expr::Slice(Box::new(target), start, end));
        }
        self.expect("]")?;
        let index = start.ok_or_else(|| err("empty subscript"))?;
        Ok(Expr::Index(Box::new(target), index))
    }

    fn expect(&mut self, sym: &str) -> Result<(), TemplateError> {
        if self.eat_sym(sym) {
            Ok(())
        } else {
            Err(err(format!("expected `{sym}`")))
        }
    }

    fn ident(&mut self) -> Result<String, TemplateError> {
        match self.tokens.get(self.at).cloned() {
            Some(Token::Ident(w)) => {
                self.at += 1;
                Ok(w)
            }
            _ => Err(err("expected a name")),
        }
    }

    fn primary(&mut self) -> Result<Expr, TemplateError> {
        let token = self.tokens.get(self.at).cloned();
        self.at += 1;
        match token {
            Some(Token::Int(n)) => Ok(Expr::Int(n)),
            Some(Token::Str(s)) => Ok(Expr::Str(s)),
            Some(Token::Ident(w)) => Ok(Expr::Name(w)),
            Some(Token::Sym("-")) => Ok(Expr::Neg(Box::new(self.postfix()?))),
            Some(Token::Sym("(")) => {
                let e = self.or()?;
                self.expect(")")?;
                Ok(e)
            }
            _ => Err(err("expected a value")),
        }
    }
}
