//! Nodes and expressions → text, with Python's meaning for lengths, slices and truth.

use super::TemplateError;
use super::parse::{Expr, Node};
use serde_json::{Map, Value};

pub fn run(
    nodes: &[Node],
    scope: &mut Map<String, Value>,
    out: &mut String,
) -> Result<(), TemplateError> {
    for node in nodes {
        match node {
            Node::Text(t) => out.push_str(t),
            Node::Print(e) => out.push_str(&display(&value(e, scope)?)),
            Node::Set(name, e) => {
                let v = value(e, scope)?;
                scope.insert(name.clone(), v);
            }
            Node::If(arms, otherwise) => {
                let mut taken = false;
                for (condition, body) in arms {
                    if truthy(&value(condition, scope)?) {
                        run(body, scope, out)?;
                        taken = true;
                        break;
                    }
                }
                if !taken {
                    run(otherwise, scope, out)?;
                }
            }
        }
    }
    Ok(())
}

fn display(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        other => other.to_string(),
    }
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

fn int(v: &Value) -> Result<i64, TemplateError> {
    v.as_i64()
        .ok_or_else(|| TemplateError(format!("`{v}` is not an integer")))
}

fn value(e: &Expr, scope: &Map<String, Value>) -> Result<Value, TemplateError> {
    Ok(match e {
        Expr::Int(n) => Value::from(*n),
        Expr::Str(s) => Value::String(s.clone()),
        Expr::Name(n) => scope.get(n).cloned().unwrap_or(Value::Null),
        Expr::Attr(target, key) => value(target, scope)?
            .get(key)
            .cloned()
            .unwrap_or(Value::Null),
        Expr::Index(target, index) => {
            let target = value(target, scope)?;
            match value(index, scope)? {
                Value::String(key) => target.get(&key).cloned().unwrap_or(Value::Null),
                i => {
                    let i = int(&i)?;
                    match &target {
                        Value::Array(items) => python_index(i, items.len())
                            .and_then(|i| items.get(i).cloned())
                            .unwrap_or(Value::Null),
                        Value::String(s) => {
                            let chars: Vec<char> = s.chars().collect();
                            python_index(i, chars.len())
                                .and_then(|i| chars.get(i))
                                .map(|c| Value::String(c.to_string()))
                                .unwrap_or(Value::Null)
                        }
                        _ => Value::Null,
                    }
                }
            }
        }
        Expr::Slice(target, start, end) => {
            let target = value(target, scope)?;
            let start = start
                .as_ref()
                .map(|e| value(e, scope).and_then(|v| int(&v)));
            let end = end.as_ref().map(|e| value(e, scope).and_then(|v| int(&v)));
            let start = start.transpose()?;
            let end = end.transpose()?;
            match target {
                Value::String(s) => {
                    let chars: Vec<char> = s.chars().collect();
                    let (a, b) = python_slice(start, end, chars.len());
                    Value::String(chars[a..b].iter().collect())
                }
                Value::Array(items) => {
                    let (a, b) = python_slice(start, end, items.len());
                    Value::Array(items[a..b].to_vec())
                }
                _ => Value::Null,
            }
        }
        Expr::Filter(target, name) => {
            let target = value(target, scope)?;
            match name.as_str() {
                "length" | "count" => Value::from(match &target {
                    Value::String(s) => s.chars().count(),
                    Value::Array(a) => a.len(),
                    Value::Object(o) => o.len(),
                    _ => 0,
                }),
                "string" => Value::String(display(&target)),
                "trim" => Value::String(display(&target).trim().to_string()),
                other => return Err(TemplateError(format!("unsupported filter `{other}`"))),
            }
        }
        Expr::Neg(inner) => Value::from(-int(&value(inner, scope)?)?),
        Expr::Not(inner) => Value::Bool(!truthy(&value(inner, scope)?)),
        Expr::Binary(left, op, right) => {
            let l = value(left, scope)?;
            match op.as_str() {
                "and" => {
                    if truthy(&l) {
                        value(right, scope)?
                    } else {
                        l
                    }
                }
                "or" => {
                    if truthy(&l) {
                        l
                    } else {
                        value(right, scope)?
                    }
                }
                _ => binary(&l, op, &value(right, scope)?)?,
            }
        }
    })
}

fn binary(l: &Value, op: &str, r: &Value) -> Result<Value, TemplateError> {
    if op == "==" {
        return Ok(Value::Bool(l == r));
    }
    if op == "!=" {
        return Ok(Value::Bool(l != r));
    }
    if op == "+"
        && let (Value::String(a), Value::String(b)) = (l, r)
    {
        return Ok(Value::String(format!("{a}{b}")));
    }
    let (a, b) = (int(l)?, int(r)?);
    Ok(match op {
        "+" => Value::from(a.saturating_add(b)),
        "-" => Value::from(a.saturating_sub(b)),
        "<" => Value::Bool(a < b),
        ">" => Value::Bool(a > b),
        "<=" => Value::Bool(a <= b),
        ">=" => Value::Bool(a >= b),
        other => return Err(TemplateError(format!("unsupported operator `{other}`"))),
    })
}

fn python_index(i: i64, len: usize) -> Option<usize> {
    let len = i64::try_from(len).ok()?;
    let i = if i < 0 { len + i } else { i };
    (0..len)
        .contains(&i)
        .then(|| usize::try_from(i).ok())
        .flatten()
}

/// `[start:end]` as Python clamps it.
fn python_slice(start: Option<i64>, end: Option<i64>, len: usize) -> (usize, usize) {
    let n = i64::try_from(len).unwrap_or(i64::MAX);
    let clamp = |v: i64| -> usize {
        let v = if v < 0 { (n + v).max(0) } else { v.min(n) };
        usize::try_from(v).unwrap_or(0)
    };
    let a = start.map_or(0, clamp);
    let b = end.map_or(len, clamp);
    (a, b.max(a))
}
