//! Llama-style tool calls written as Python: `[edit_file(path="/w/a.py", old_str="x",
//! new_str="y")]`, with any Python string literal (quotes, triple quotes, escapes).

use serde_json::{Map, Value};

/// Calls of `names` found in `text`, as (name, JSON arguments). A call whose arguments do
/// not parse is returned with `None`, so it can be marked.
pub fn calls(text: &str, names: &[&str]) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for name in names {
        let needle = format!("{name}(");
        let mut from = 0;
        while let Some(pos) = text[from..].find(&needle) {
            let start = from + pos;
            from = start + needle.len();
            let preceded_by_ident = text[..start]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.');
            if preceded_by_ident {
                continue;
            }
            let chars: Vec<char> = text[from..].chars().collect();
            match arguments(&chars) {
                Some((args, used)) => {
                    out.push((name.to_string(), Some(Value::Object(args).to_string())));
                    from += chars[..used].iter().map(|c| c.len_utf8()).sum::<usize>();
                }
                None => out.push((name.to_string(), None)),
            }
        }
    }
    out
}

/// `key=value, …)` → the arguments and the number of chars read through `)`.
fn arguments(chars: &[char]) -> Option<(Map<String, Value>, usize)> {
    let mut args = Map::new();
    let mut i = 0;
    loop {
        while chars.get(i)?.is_whitespace() || chars[i] == ',' {
            i += 1;
        }
        if chars[i] == ')' {
            return Some((args, i + 1));
        }
        let start = i;
        while chars.get(i)?.is_alphanumeric() || chars[i] == '_' {
            i += 1;
        }
        let key: String = chars[start..i].iter().collect();
        while chars.get(i)?.is_whitespace() {
            i += 1;
        }
        if key.is_empty() || chars[i] != '=' {
            return None;
        }
        i += 1;
        while chars.get(i)?.is_whitespace() {
            i += 1;
        }
        let (value, next) = literal(chars, i)?;
        args.insert(key, value);
        i = next;
    }
}

fn literal(chars: &[char], mut i: usize) -> Option<(Value, usize)> {
    let mut raw = false;
    while matches!(chars.get(i)?, 'r' | 'R' | 'b' | 'B' | 'u' | 'U' | 'f' | 'F')
        && matches!(chars.get(i + 1)?, '"' | '\'' | 'r' | 'b')
    {
        raw |= matches!(chars[i], 'r' | 'R');
        i += 1;
    }
    let quote = *chars.get(i)?;
    if quote != '"' && quote != '\'' {
        let start = i;
        while chars.get(i).is_some_and(|c| !matches!(c, ',' | ')')) {
            i += 1;
        }
        let word: String = chars[start..i].iter().collect();
        let value = match word.trim() {
            "None" => Value::Null,
            "True" => Value::Bool(true),
            "False" => Value::Bool(false),
            w => w
                .parse::<i64>()
                .map(Value::from)
                .unwrap_or_else(|_| Value::String(w.to_string())),
        };
        return Some((value, i));
    }
    let triple = chars.get(i + 1) == Some(&quote) && chars.get(i + 2) == Some(&quote);
    i += if triple { 3 } else { 1 };
    let mut out = String::new();
    loop {
        let c = *chars.get(i)?;
        if c == quote
            && (!triple || chars.get(i + 1) == Some(&quote) && chars.get(i + 2) == Some(&quote))
        {
            return Some((Value::String(out), i + if triple { 3 } else { 1 }));
        }
        if c == '\\' && !raw {
            let next = *chars.get(i + 1)?;
            i += 2;
            match next {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                '0' => out.push('\0'),
                '\n' => {}
                'x' | 'u' => {
                    let len = if next == 'x' { 2 } else { 4 };
                    let hex: String = chars.get(i..i + len)?.iter().collect();
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                    i += len;
                }
                other if matches!(other, '\\' | '\'' | '"') => out.push(other),
                other => {
                    out.push('\\');
                    out.push(other);
                }
            }
            continue;
        }
        out.push(c);
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_file_call_with_escapes_and_triple_quotes() {
        let text = r#"<|python_tag|>[edit_file(path="/workspace/django/django/http/response.py", old_str="if isinstance(value, bytes):\n    return bytes(value)", new_str='''if isinstance(value, (bytes, memoryview)):
    return bytes(value)''')]"#;
        let c = calls(text, &["edit_file"]);
        assert_eq!(c.len(), 1);
        let args: Value = serde_json::from_str(c[0].1.as_deref().unwrap()).unwrap();
        assert_eq!(args["path"], "/workspace/django/django/http/response.py");
        assert_eq!(
            args["old_str"],
            "if isinstance(value, bytes):\n    return bytes(value)"
        );
        assert_eq!(
            args["new_str"],
            "if isinstance(value, (bytes, memoryview)):\n    return bytes(value)"
        );
    }

    #[test]
    fn broken_calls_are_reported_not_dropped() {
        let c = calls(
            "edit_file(path=\"/a.py\", new_str=\"unterminated)",
            &["edit_file"],
        );
        assert_eq!(c, vec![("edit_file".to_string(), None)]);
        assert!(calls("self.edit_file(x)", &["edit_file"]).is_empty());
    }
}
