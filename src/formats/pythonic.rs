//! Pythonic tool calls, as Llama 3.2/3.3 agents write them: `[view_file(path="a.py"),
//! finish()]`. Arguments become a JSON object (in the order written), so the rest of
//! trajscope treats them like any other tool call.
//!
//! A small recursive-descent reader of the Python literals such calls use: strings (single,
//! double, triple-quoted, raw, with escapes), numbers, `True`/`False`/`None`, lists, tuples
//! and dicts. It never evaluates anything and never panics; nesting is bounded.

use serde_json::{Map, Number, Value};
use std::fmt;

/// A call read from the text: the function name and its keyword arguments as a JSON object.
#[derive(Debug, Clone, PartialEq)]
pub struct PythonCall {
    pub name: String,
    /// A JSON object, keys in the order the model wrote them.
    pub arguments: String,
}

/// Why a call list could not be read, and where (a byte offset into the text given).
#[derive(Debug, Clone, PartialEq)]
pub struct CallError {
    pub offset: usize,
    pub message: String,
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at character {})", self.message, self.offset + 1)
    }
}

const MAX_DEPTH: usize = 64;

/// Reads a list of calls starting at `text[0] == '['`. Returns the calls and the number of
/// bytes read.
pub fn parse_call_list(text: &str) -> Result<(Vec<PythonCall>, usize), CallError> {
    let mut reader = Reader { text, pos: 0 };
    let calls = reader.call_list()?;
    Ok((calls, reader.pos))
}

/// Reads calls written without brackets: `view_file(path="a"), finish()`, the whole text.
pub fn parse_bare_calls(text: &str) -> Result<Vec<PythonCall>, CallError> {
    let mut reader = Reader { text, pos: 0 };
    let mut calls = Vec::new();
    loop {
        reader.skip_ws();
        calls.push(reader.call()?);
        reader.skip_ws();
        if !reader.eat(',') {
            break;
        }
        reader.skip_ws();
        if reader.at_end() {
            break;
        }
    }
    reader.skip_ws();
    if !reader.at_end() {
        return Err(reader.error("unexpected text after the call"));
    }
    Ok(calls)
}

/// Whether `text` (after a `[`) looks like the start of a call with keyword arguments:
/// `name(` then `)` or `key=`. Keeps prose such as `[see above]` or `[f(1)]` from being
/// read as a tool call.
pub fn looks_like_call(text: &str) -> bool {
    let mut reader = Reader { text, pos: 0 };
    reader.skip_ws();
    if reader.identifier().is_none() {
        return false;
    }
    reader.skip_ws();
    if !reader.eat('(') {
        return false;
    }
    reader.skip_ws();
    if reader.eat(')') {
        return true;
    }
    reader.identifier().is_some() && {
        reader.skip_ws();
        reader.peek() == Some('=') && reader.peek_at(1) != Some('=')
    }
}

struct Reader<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Reader<'a> {
    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.rest().chars().nth(n)
    }

    fn at_end(&self) -> bool {
        self.pos >= self.text.len()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    fn error(&self, message: impl Into<String>) -> CallError {
        CallError {
            offset: self.pos,
            message: message.into(),
        }
    }

    fn expect(&mut self, c: char, what: &str) -> Result<(), CallError> {
        self.skip_ws();
        if self.eat(c) {
            Ok(())
        } else if self.at_end() {
            Err(self.error(format!("the text ends where `{c}` {what} was expected")))
        } else {
            Err(self.error(format!("expected `{c}` {what}")))
        }
    }

    /// A name, dotted names allowed (`brave_search.call`).
    fn identifier(&mut self) -> Option<&'a str> {
        let start = self.pos;
        match self.peek() {
            Some(c) if c.is_alphabetic() || c == '_' => {}
            _ => return None,
        }
        while self
            .peek()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
        {
            self.bump();
        }
        Some(&self.text[start..self.pos])
    }

    fn call_list(&mut self) -> Result<Vec<PythonCall>, CallError> {
        self.expect('[', "to open the call list")?;
        let mut calls = Vec::new();
        loop {
            self.skip_ws();
            if self.eat(']') {
                return Ok(calls);
            }
            calls.push(self.call()?);
            self.skip_ws();
            if self.eat(',') {
                continue;
            }
            self.expect(']', "to close the call list")?;
            return Ok(calls);
        }
    }

    fn call(&mut self) -> Result<PythonCall, CallError> {
        self.skip_ws();
        let name = self
            .identifier()
            .ok_or_else(|| self.error("expected a function name"))?
            .to_string();
        self.expect('(', &format!("after `{name}`"))?;
        let mut arguments = String::from("{");
        let mut first = true;
        loop {
            self.skip_ws();
            if self.eat(')') {
                break;
            }
            let key_at = self.pos;
            let key = self
                .identifier()
                .ok_or_else(|| CallError {
                    offset: key_at,
                    message: format!("expected a keyword argument (`name=value`) in `{name}(…)`"),
                })?
                .to_string();
            self.expect('=', &format!("after argument `{key}`"))?;
            let value = self.value(0)?;
            if !first {
                arguments.push(',');
            }
            first = false;
            arguments.push_str(&Value::String(key).to_string());
            arguments.push(':');
            arguments.push_str(&value.to_string());
            self.skip_ws();
            if self.eat(',') {
                continue;
            }
            self.expect(')', &format!("to close `{name}(`"))?;
            break;
        }
        arguments.push('}');
        Ok(PythonCall { name, arguments })
    }

    fn value(&mut self, depth: usize) -> Result<Value, CallError> {
        if depth > MAX_DEPTH {
            return Err(self.error("arguments nested too deeply"));
        }
        self.skip_ws();
        let Some(c) = self.peek() else {
            return Err(self.error("the text ends where a value was expected"));
        };
        match c {
            '"' | '\'' => self.string(false),
            'r' | 'R' | 'b' | 'B' | 'u' | 'U' if self.string_prefix().is_some() => {
                let raw = self.string_prefix().is_some_and(|p| p.contains(['r', 'R']));
                let skip = self.string_prefix().map_or(0, str::len);
                self.pos += skip;
                self.string(raw)
            }
            '[' => self.sequence('[', ']', depth),
            '(' => self.sequence('(', ')', depth),
            '{' => self.dict(depth),
            '-' | '+' | '.' | '0'..='9' => self.number(),
            _ => {
                let at = self.pos;
                match self.identifier() {
                    Some("True" | "true") => Ok(Value::Bool(true)),
                    Some("False" | "false") => Ok(Value::Bool(false)),
                    Some("None" | "null") => Ok(Value::Null),
                    Some(other) => Err(CallError {
                        offset: at,
                        message: format!("`{other}` is not a literal value"),
                    }),
                    None => Err(self.error(format!("unexpected `{c}` where a value was expected"))),
                }
            }
        }
    }

    /// The prefix of a prefixed string literal (`r"…"`, `rb'…'`), when one starts here.
    fn string_prefix(&self) -> Option<&'a str> {
        let rest = self.rest();
        let len = rest
            .chars()
            .take(2)
            .take_while(|c| matches!(c, 'r' | 'R' | 'b' | 'B' | 'u' | 'U'))
            .count();
        let quote = rest[len..].chars().next();
        (len > 0 && matches!(quote, Some('"' | '\''))).then(|| &rest[..len])
    }

    fn string(&mut self, raw: bool) -> Result<Value, CallError> {
        let start = self.pos;
        let Some(quote) = self.bump() else {
            return Err(self.error("expected a string"));
        };
        let triple = self.rest().starts_with(&format!("{quote}{quote}"));
        if triple {
            self.pos += 2;
        }
        let mut out = String::new();
        loop {
            let Some(c) = self.bump() else {
                return Err(CallError {
                    offset: start,
                    message: "unterminated string".into(),
                });
            };
            if c == quote {
                if !triple {
                    return Ok(Value::String(out));
                }
                if self.rest().starts_with(&format!("{quote}{quote}")) {
                    self.pos += 2;
                    return Ok(Value::String(out));
                }
                out.push(c);
            } else if c == '\\' && raw {
                out.push(c);
                if let Some(next) = self.bump() {
                    out.push(next);
                }
            } else if c == '\\' {
                self.escape(&mut out)?;
            } else if c == '\n' && !triple {
                return Err(CallError {
                    offset: start,
                    message: "a string runs past the end of its line (missing closing quote?)"
                        .into(),
                });
            } else {
                out.push(c);
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), CallError> {
        let Some(c) = self.bump() else {
            return Err(self.error("unterminated string"));
        };
        match c {
            '\n' => {}
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '0' => out.push('\0'),
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'v' => out.push('\u{b}'),
            '\\' | '\'' | '"' => out.push(c),
            'x' => out.push(self.hex_char(2)?),
            'u' => out.push(self.hex_char(4)?),
            'U' => out.push(self.hex_char(8)?),
            // Python keeps unknown escapes as written.
            other => {
                out.push('\\');
                out.push(other);
            }
        }
        Ok(())
    }

    fn hex_char(&mut self, digits: usize) -> Result<char, CallError> {
        let at = self.pos;
        let hex: String = self.rest().chars().take(digits).collect();
        let code = (hex.len() == digits)
            .then(|| u32::from_str_radix(&hex, 16).ok())
            .flatten()
            .ok_or_else(|| CallError {
                offset: at,
                message: format!("bad escape: expected {digits} hex digits"),
            })?;
        self.pos += hex.len();
        Ok(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER))
    }

    fn number(&mut self) -> Result<Value, CallError> {
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E' | '_'))
        {
            self.bump();
        }
        let text = self.text[start..self.pos].replace('_', "");
        let text = text.strip_prefix('+').unwrap_or(&text);
        let number = text
            .parse::<i64>()
            .ok()
            .map(Number::from)
            .or_else(|| text.parse::<f64>().ok().and_then(Number::from_f64));
        number.map(Value::Number).ok_or_else(|| CallError {
            offset: start,
            message: format!("`{text}` is not a number"),
        })
    }

    fn sequence(&mut self, open: char, close: char, depth: usize) -> Result<Value, CallError> {
        self.expect(open, "")?;
        let mut items = Vec::new();
        loop {
            self.skip_ws();
            if self.eat(close) {
                return Ok(Value::Array(items));
            }
            items.push(self.value(depth + 1)?);
            self.skip_ws();
            if self.eat(',') {
                continue;
            }
            self.expect(close, "to close the list")?;
            return Ok(Value::Array(items));
        }
    }

    fn dict(&mut self, depth: usize) -> Result<Value, CallError> {
        self.expect('{', "")?;
        let mut map = Map::new();
        loop {
            self.skip_ws();
            if self.eat('}') {
                return Ok(Value::Object(map));
            }
            let key = match self.value(depth + 1)? {
                Value::String(s) => s,
                other => other.to_string(),
            };
            self.expect(':', "after a dict key")?;
            let value = self.value(depth + 1)?;
            map.insert(key, value);
            self.skip_ws();
            if self.eat(',') {
                continue;
            }
            self.expect('}', "to close the dict")?;
            return Ok(Value::Object(map));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(call: &PythonCall) -> Value {
        serde_json::from_str(&call.arguments).unwrap()
    }

    #[test]
    fn a_list_of_calls_with_every_kind_of_value() {
        let text = r#"[list_files(path="/workspace/x"), view_file(path='a.py'), f(n=-3, x=1.5e2, ok=True, no=False, v=None, l=[1, "a,b)"], t=(1,), d={'k': [2]})] tail"#;
        let (calls, used) = parse_call_list(text).unwrap();
        assert_eq!(&text[used..], " tail");
        assert_eq!(calls.len(), 3);
        assert_eq!(calls[0].name, "list_files");
        assert_eq!(calls[0].arguments, r#"{"path":"/workspace/x"}"#);
        assert_eq!(args(&calls[1]), json!({"path": "a.py"}));
        assert_eq!(
            args(&calls[2]),
            json!({"n": -3, "x": 150.0, "ok": true, "no": false, "v": null, "l": [1, "a,b)"], "t": [1], "d": {"k": [2]}})
        );
    }

    #[test]
    fn strings_with_escapes_commas_brackets_and_triple_quotes() {
        let text = r#"[edit_file(path="a.py", old_str="def f(a, b):\n    return [a]", new_str='it\'s \"fine\" \\ \x41\u00e9', extra="""multi
line "quoted" """, raw=r"\d+\n")]"#;
        let (calls, _) = parse_call_list(text).unwrap();
        let a = args(&calls[0]);
        assert_eq!(a["old_str"], "def f(a, b):\n    return [a]");
        assert_eq!(a["new_str"], "it's \"fine\" \\ Aé");
        assert_eq!(a["extra"], "multi\nline \"quoted\" ");
        assert_eq!(a["raw"], "\\d+\\n");
        // Keys stay in the order written.
        assert!(
            calls[0]
                .arguments
                .starts_with(r#"{"path":"a.py","old_str":"#)
        );
    }

    #[test]
    fn malformed_calls_say_what_and_where() {
        let err = parse_call_list(r#"[view_file(path="a.py)]"#).unwrap_err();
        assert!(err.message.contains("unterminated string"), "{err}");
        assert_eq!(err.offset, 16);
        let err = parse_call_list(r#"[view_file("a.py")]"#).unwrap_err();
        assert!(err.message.contains("keyword argument"), "{err}");
        let err = parse_call_list(r#"[view_file(path="a.py"]"#).unwrap_err();
        assert!(err.message.contains("to close `view_file(`"), "{err}");
        let err = parse_call_list("[f(x=open('a'))]").unwrap_err();
        assert!(err.message.contains("not a literal"), "{err}");
        let deep = format!("[f(x={}1{})]", "[".repeat(200), "]".repeat(200));
        assert!(
            parse_call_list(&deep)
                .unwrap_err()
                .message
                .contains("nested too deeply")
        );
        assert!(parse_call_list("[f(x=\"\\x4").is_err());
        assert!(parse_call_list("[").is_err());
    }

    #[test]
    fn bare_calls_and_call_shapes() {
        let calls = parse_bare_calls(r#"view_file(path="a"), finish()"#).unwrap();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[1].arguments, "{}");
        assert!(parse_bare_calls("view_file(path='a') and more").is_err());
        assert!(looks_like_call(r#"view_file(path="a")"#));
        assert!(looks_like_call("finish()"));
        assert!(looks_like_call(" brave_search.call(query='x')"));
        assert!(!looks_like_call("see above"));
        assert!(!looks_like_call("f(1)"));
        assert!(!looks_like_call("f(a == b)"));
    }
}
