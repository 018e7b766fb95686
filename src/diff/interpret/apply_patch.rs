//! Codex `apply_patch`: the `*** Begin Patch` … `*** End Patch` format (add, delete,
//! update with context chunks, move).

use crate::diff::edit::{Attempt, ContextChunk, Edit, EditOp, Uninterpreted};

/// The edits of a patch text. A patch without its envelope, or with a line the format does
/// not allow, yields a "could not interpret" mark for the file it was in.
pub fn interpret(text: &str) -> Vec<Attempt> {
    let body = match text.find("*** Begin Patch") {
        Some(start) => &text[start..],
        None => {
            return vec![Err(Uninterpreted::new(
                "apply_patch",
                None,
                "no `*** Begin Patch` line",
            ))];
        }
    };
    let mut out = Vec::new();
    let mut lines = body.lines().skip(1).peekable();
    while let Some(line) = lines.next() {
        let line = line.trim_end_matches('\r');
        if line.trim() == "*** End Patch" {
            return out;
        }
        if let Some(path) = line.strip_prefix("*** Add File: ") {
            let mut text = String::new();
            while let Some(next) = lines.peek() {
                let Some(added) = next.strip_prefix('+') else {
                    break;
                };
                text.push_str(added);
                text.push('\n');
                lines.next();
            }
            out.push(Ok(Edit::new(
                Some(path.trim().to_string()),
                EditOp::Write { text },
                "apply_patch add",
            )));
        } else if let Some(path) = line.strip_prefix("*** Delete File: ") {
            out.push(Ok(Edit::new(
                Some(path.trim().to_string()),
                EditOp::Delete,
                "apply_patch delete",
            )));
        } else if let Some(path) = line.strip_prefix("*** Update File: ") {
            let path = path.trim().to_string();
            let mut move_to = None;
            if let Some(to) = lines.peek().and_then(|l| l.strip_prefix("*** Move to: ")) {
                move_to = Some(to.trim().to_string());
                lines.next();
            }
            match update_chunks(&mut lines) {
                Ok(chunks) => {
                    out.push(Ok(Edit::new(
                        Some(path.clone()),
                        EditOp::Chunks(chunks),
                        "apply_patch update",
                    )));
                    if let Some(to) = move_to {
                        out.push(Ok(Edit::new(
                            Some(path),
                            EditOp::Rename { to },
                            "apply_patch move",
                        )));
                    }
                }
                Err(reason) => out.push(Err(Uninterpreted::new(
                    "apply_patch update",
                    Some(path),
                    reason,
                ))),
            }
        } else if !line.trim().is_empty() {
            out.push(Err(Uninterpreted::new(
                "apply_patch",
                None,
                format!("unexpected line `{line}`"),
            )));
            return out;
        }
    }
    out.push(Err(Uninterpreted::new(
        "apply_patch",
        None,
        "no `*** End Patch` line",
    )));
    out
}

fn update_chunks<'a>(
    lines: &mut std::iter::Peekable<impl Iterator<Item = &'a str>>,
) -> Result<Vec<ContextChunk>, String> {
    let mut chunks: Vec<ContextChunk> = Vec::new();
    let mut current: Option<ContextChunk> = None;
    while let Some(&line) = lines.peek() {
        let line = line.trim_end_matches('\r');
        if line.starts_with("*** ") && line != "*** End of File" {
            break;
        }
        lines.next();
        if line == "*** End of File" {
            if let Some(c) = current.as_mut() {
                c.at_end = true;
            }
            continue;
        }
        if let Some(anchor) = line.strip_prefix("@@") {
            chunks.extend(current.take());
            let anchor = anchor.trim();
            current = Some(ContextChunk {
                anchor: (!anchor.is_empty()).then(|| anchor.to_string()),
                old: Vec::new(),
                new: Vec::new(),
                at_end: false,
            });
            continue;
        }
        let chunk = current.get_or_insert_with(|| ContextChunk {
            anchor: None,
            old: Vec::new(),
            new: Vec::new(),
            at_end: false,
        });
        match line.chars().next() {
            Some(' ') => {
                chunk.old.push(line[1..].to_string());
                chunk.new.push(line[1..].to_string());
            }
            None => {
                chunk.old.push(String::new());
                chunk.new.push(String::new());
            }
            Some('-') => chunk.old.push(line[1..].to_string()),
            Some('+') => chunk.new.push(line[1..].to_string()),
            _ => return Err(format!("unexpected line `{line}` in an update")),
        }
    }
    chunks.extend(current);
    if chunks.is_empty() {
        return Err("an update without changes".into());
    }
    Ok(chunks)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATCH: &str = "*** Begin Patch
*** Add File: hello.txt
+Hello world
*** Update File: src/app.py
*** Move to: src/main.py
@@ def greet():
-print(\"Hi\")
+print(\"Hello, world!\")
*** Delete File: obsolete.txt
*** End Patch";

    #[test]
    fn add_update_move_delete() {
        let edits: Vec<Edit> = interpret(PATCH).into_iter().map(Result::unwrap).collect();
        assert_eq!(edits.len(), 4);
        assert_eq!(
            edits[0].op,
            EditOp::Write {
                text: "Hello world\n".into()
            }
        );
        let EditOp::Chunks(chunks) = &edits[1].op else {
            panic!()
        };
        assert_eq!(chunks[0].anchor.as_deref(), Some("def greet():"));
        assert_eq!(chunks[0].old, vec!["print(\"Hi\")"]);
        assert_eq!(
            edits[2].op,
            EditOp::Rename {
                to: "src/main.py".into()
            }
        );
        assert_eq!(edits[3].op, EditOp::Delete);
    }

    #[test]
    fn broken_patches_are_marked() {
        assert!(interpret("*** Update File: a").iter().all(Result::is_err));
        let a = interpret("*** Begin Patch\n*** Update File: a.py\n@@\n?what\n*** End Patch");
        assert!(
            a[0].as_ref()
                .unwrap_err()
                .reason
                .contains("unexpected line")
        );
        let a = interpret("*** Begin Patch\n*** Add File: a.py\n+x\n");
        assert!(a.last().unwrap().is_err());
    }
}
