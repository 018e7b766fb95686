//! Shell commands that write files: here-documents and redirections (`cat > f <<'EOF'`,
//! `echo … > f`, `tee`), `sed -i`, `rm`, `mv`, `cp`, `git checkout -- f`, `git apply`/`patch`
//! with an inline patch. A command that may write files in a way trajscope cannot follow (a
//! Python script that calls `write_text`, `perl -i`) becomes an opaque edit of the files it
//! names, so their reconstruction is marked instead of silently kept.

use crate::diff::edit::{Attempt, Edit, EditOp, Uninterpreted};
use crate::diff::patch::parse_patch;
use crate::diff::sed;
use crate::diff::shell::{self, Command, Word};
use regex::Regex;
use std::sync::LazyLock;

/// The file edits of a shell command line.
pub fn interpret(script: &str) -> Vec<Attempt> {
    let mut out = Vec::new();
    for pipeline in shell::parse(script) {
        for command in &pipeline.commands {
            interpret_command(command, &mut out);
        }
    }
    out
}

fn interpret_command(c: &Command, out: &mut Vec<Attempt>) {
    let argv = c.argv();
    let name = c.name();
    let plain = |w: &Word| (!w.dynamic).then(|| w.text.clone());
    let outputs: Vec<(&Word, bool)> = c
        .output_files()
        .filter(|(w, _)| w.text != "/dev/null")
        .collect();
    match name {
        "cat" if argv.len() == 1 && c.heredoc.is_some() => {
            let text = c.heredoc.clone().unwrap_or_default();
            for (target, append) in &outputs {
                out.push(write(target, &text, *append, "cat <<EOF"));
            }
            return;
        }
        "tee" if c.heredoc.is_some() => {
            let append = argv.iter().any(|a| *a == "-a" || *a == "--append");
            let text = c.heredoc.clone().unwrap_or_default();
            for word in c.words.iter().skip(1).filter(|w| !w.text.starts_with('-')) {
                out.push(write(word, &text, append, "tee"));
            }
        }
        "echo" | "printf" => {
            if let Some(text) = echo_text(c) {
                for (target, append) in &outputs {
                    out.push(write(target, &text, *append, name));
                }
            } else {
                for (target, _) in &outputs {
                    out.push(opaque(
                        plain(target),
                        name,
                        "the text written depends on expansions or printf formats",
                    ));
                }
            }
            return;
        }
        "sed"
            if argv
                .iter()
                .any(|a| a.starts_with("-i") || *a == "--in-place") =>
        {
            out.extend(sed_in_place(c));
        }
        "rm" => {
            for word in c.words.iter().skip(1).filter(|w| !w.text.starts_with('-')) {
                match plain(word) {
                    Some(path) => out.push(Ok(Edit::new(Some(path), EditOp::Delete, "rm"))),
                    None => out.push(opaque(
                        None,
                        "rm",
                        "the files removed depend on a glob or expansion",
                    )),
                }
            }
        }
        "mv" | "cp" => {
            let args: Vec<&Word> = c
                .words
                .iter()
                .skip(1)
                .filter(|w| !w.text.starts_with('-'))
                .collect();
            if let [from, to] = args.as_slice()
                && let (Some(from), Some(to)) = (plain(from), plain(to))
            {
                let op = if name == "mv" {
                    EditOp::Rename { to }
                } else {
                    EditOp::Copy { to }
                };
                out.push(Ok(Edit::new(Some(from), op, name)));
            } else if let Some(target) = args.last() {
                out.push(opaque(
                    plain(target),
                    name,
                    "several sources or an expansion",
                ));
            }
        }
        "git" => git(c, out),
        "patch" if c.heredoc.is_some() => {
            inline_patch(c.heredoc.as_deref().unwrap_or(""), "patch", out)
        }
        "perl" | "ruby"
            if argv
                .iter()
                .any(|a| a.starts_with("-i") || a.starts_with("-pi")) =>
        {
            for word in c
                .words
                .iter()
                .skip(1)
                .filter(|w| !w.text.starts_with('-'))
                .skip(1)
            {
                out.push(opaque(plain(word), name, "an in-place perl edit"));
            }
        }
        "python" | "python3" | "node" => {
            let code = c.heredoc.clone().or_else(|| {
                let i = argv.iter().position(|a| *a == "-c")?;
                argv.get(i + 1).map(|s| s.to_string())
            });
            if let Some(code) = code {
                out.extend(script_writes(&code, name));
            }
        }
        _ => {}
    }
    for (target, _) in outputs {
        out.push(opaque(
            plain(target),
            name,
            "its output was redirected into the file",
        ));
    }
}

fn write(target: &Word, text: &str, append: bool, label: &str) -> Attempt {
    if target.dynamic {
        return Err(Uninterpreted::new(
            label,
            None,
            format!("the file name `{}` depends on an expansion", target.text),
        ));
    }
    let op = if append {
        EditOp::Append {
            text: text.to_string(),
        }
    } else {
        EditOp::Write {
            text: text.to_string(),
        }
    };
    Ok(Edit::new(
        Some(target.text.clone()),
        op,
        if append {
            format!("{label} >>")
        } else {
            format!("{label} >")
        },
    ))
}

fn opaque(path: Option<String>, label: &str, why: &str) -> Attempt {
    Ok(Edit::new(
        path,
        EditOp::Opaque {
            reason: format!("`{label}` may have changed it: {why}"),
        },
        label,
    ))
}

/// What `echo`/`printf` print, when their words are literal.
fn echo_text(c: &Command) -> Option<String> {
    let words: Vec<&Word> = c.words.iter().skip(1).collect();
    if words.iter().any(|w| w.dynamic) {
        return None;
    }
    if c.name() == "printf" {
        let format = words.first()?;
        if words.len() != 1 || format.text.contains('%') {
            return None;
        }
        return Some(unescape(&format.text));
    }
    let mut newline = true;
    let mut escapes = false;
    let mut rest = words.as_slice();
    while let Some(flag) = rest
        .first()
        .filter(|w| matches!(w.text.as_str(), "-n" | "-e" | "-ne" | "-en" | "-E"))
    {
        newline &= !flag.text.contains('n');
        escapes |= flag.text.contains('e');
        rest = &rest[1..];
    }
    let mut text = rest
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    if escapes {
        text = unescape(&text);
    }
    if newline {
        text.push('\n');
    }
    Some(text)
}

fn unescape(text: &str) -> String {
    text.replace("\\n", "\n")
        .replace("\\t", "\t")
        .replace("\\\\", "\\")
}

fn sed_in_place(c: &Command) -> Vec<Attempt> {
    let argv = c.argv();
    let mut scripts = Vec::new();
    let mut files = Vec::new();
    let mut extended = false;
    let mut i = 1;
    let mut script_from_arg = true;
    while i < argv.len() {
        let a = argv[i];
        match a {
            "-e" | "--expression" => {
                scripts.push(argv.get(i + 1).copied().unwrap_or(""));
                script_from_arg = false;
                i += 1;
            }
            "-E" | "-r" | "--regexp-extended" => extended = true,
            "-n" | "--quiet" | "-f" => {
                return vec![Err(Uninterpreted::new(
                    "sed -i",
                    None,
                    format!("sed option `{a}` is not supported"),
                ))];
            }
            _ if a.starts_with("-i")
                || a == "--in-place"
                || a.starts_with("-")
                    && a.len() > 1
                    && a[1..].chars().all(|ch| "iEr".contains(ch)) =>
            {
                extended |= a.contains('E') || a.contains('r');
            }
            _ => {
                if script_from_arg && scripts.is_empty() {
                    scripts.push(a);
                } else {
                    files.push(&c.words[i]);
                }
            }
        }
        i += 1;
    }
    if files.is_empty() {
        return vec![Err(Uninterpreted::new("sed -i", None, "no file to edit"))];
    }
    let script = sed::parse(&scripts, extended);
    files
        .into_iter()
        .map(|w| {
            let path = (!w.dynamic).then(|| w.text.clone());
            match (&script, path) {
                (Ok(s), Some(path)) => Ok(Edit::new(Some(path), EditOp::Sed(s.clone()), "sed -i")),
                (Err(reason), path) => Err(Uninterpreted::new("sed -i", path, reason.clone())),
                (Ok(_), None) => Err(Uninterpreted::new(
                    "sed -i",
                    None,
                    format!("the file name `{}` depends on an expansion", w.text),
                )),
            }
        })
        .collect()
}

fn git(c: &Command, out: &mut Vec<Attempt>) {
    let argv = c.argv();
    match argv.get(1).copied() {
        Some("checkout" | "restore") => {
            let files: Vec<&Word> = c
                .words
                .iter()
                .skip(2)
                .filter(|w| !w.text.starts_with('-'))
                .collect();
            let after_dashes = argv.iter().position(|a| *a == "--").is_some();
            for w in files {
                if !after_dashes && !w.text.contains('.') && !w.text.contains('/') {
                    continue; // a branch name
                }
                match (!w.dynamic).then(|| w.text.clone()) {
                    Some(path) if path != "." => {
                        out.push(Ok(Edit::new(Some(path), EditOp::Restore, "git checkout")))
                    }
                    _ => out.push(opaque(None, "git checkout", "it restores files")),
                }
            }
        }
        Some("stash" | "reset" | "am" | "cherry-pick" | "merge" | "pull" | "rebase") => {
            out.push(opaque(
                None,
                &format!("git {}", argv[1]),
                "it rewrites files",
            ));
        }
        Some("apply") => match &c.heredoc {
            Some(patch) => inline_patch(patch, "git apply", out),
            None => out.push(opaque(None, "git apply", "the patch is in a file")),
        },
        _ => {}
    }
}

fn inline_patch(text: &str, label: &str, out: &mut Vec<Attempt>) {
    let files = parse_patch(text);
    if files.is_empty() {
        out.push(Err(Uninterpreted::new(
            label,
            None,
            "no file diff in the patch",
        )));
    }
    for f in files {
        let path = f.path.clone();
        out.push(Ok(Edit::new(Some(path), EditOp::Hunks(f.hunks), label)));
    }
}

static WRITES: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r#"write_text\(|write_bytes\(|\.write\(|open\([^)]*,\s*(?:mode\s*=\s*)?['"][rbt]*[wax+]|os\.replace|os\.rename|shutil\.|\.unlink\(|writeFileSync"#).ok()
});
static PATH_LITERAL: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r#"['"]((?:[\w.\-]+/)*[\w.\-]+\.(?:py|pyi|rst|txt|cfg|toml|ini|json|ya?ml|md|js|ts|c|h|cpp|rs|go|java|html|css|sh))['"]"#).ok()
});

/// Script files a command line runs with an interpreter (`python fix.py`): (interpreter,
/// path).
pub fn scripts_run(script: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for pipeline in shell::parse(script) {
        for c in &pipeline.commands {
            if !matches!(c.name(), "python" | "python3" | "node") || c.heredoc.is_some() {
                continue;
            }
            let file = c.words.iter().skip(1).find(|w| !w.text.starts_with('-'));
            if let Some(w) = file
                .filter(|w| !w.dynamic && c.words.iter().all(|x| x.text != "-c" && x.text != "-m"))
            {
                out.push((c.name().to_string(), w.text.clone()));
            }
        }
    }
    out
}

/// A script that writes files: an opaque edit of each file path it names.
pub fn script_writes(code: &str, name: &str) -> Vec<Attempt> {
    let (Some(writes), Some(paths)) = (WRITES.as_ref(), PATH_LITERAL.as_ref()) else {
        return Vec::new();
    };
    if !writes.is_match(code) {
        return Vec::new();
    }
    let mut named: Vec<String> = paths
        .captures_iter(code)
        .map(|c| c[1].to_string())
        .collect();
    named.dedup();
    if named.is_empty() {
        return vec![opaque(None, name, "a script that writes files")];
    }
    named
        .into_iter()
        .map(|p| opaque(Some(p), name, "a script that writes files"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(script: &str) -> Vec<(Option<String>, EditOp)> {
        interpret(script)
            .into_iter()
            .map(|a| a.map(|e| (e.path, e.op)).unwrap())
            .collect()
    }

    #[test]
    fn heredocs_from_the_gpt5_mini_run() {
        let e = ops(
            "cat > test_settings_minimal.py <<'PY'\nSECRET_KEY = 'not-secret'\nUSE_TZ = True\nPY\n\nDJANGO_SETTINGS_MODULE=test_settings_minimal python - <<'PY'\nprint(1)\nPY",
        );
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].0.as_deref(), Some("test_settings_minimal.py"));
        assert_eq!(
            e[0].1,
            EditOp::Write {
                text: "SECRET_KEY = 'not-secret'\nUSE_TZ = True\n".into()
            }
        );
        let e =
            ops("cat <<'PY' > /tmp/fix.py && python3 /tmp/fix.py\nfrom pathlib import Path\nPY");
        assert_eq!(e[0].0.as_deref(), Some("/tmp/fix.py"));
    }

    #[test]
    fn sed_in_place_from_the_gpt5_mini_run() {
        let e = ops(
            "sed -i \"s/sig = inspect.signature(obj)/sig = inspect.signature(obj, type_aliases=app.config.autodoc_type_aliases)/\" sphinx/ext/autodoc/typehints.py && nl -ba sphinx/ext/autodoc/typehints.py | sed -n '1,140p'",
        );
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].0.as_deref(), Some("sphinx/ext/autodoc/typehints.py"));
        assert!(matches!(e[0].1, EditOp::Sed(_)));
        let a = interpret("sed -i 'y/ab/cd/' x.py");
        assert!(a[0].is_err());
    }

    #[test]
    fn python_scripts_that_write_are_opaque() {
        // gpt-5-mini django__django-11066.
        let e = ops(
            "python - <<'PY'\nfrom pathlib import Path\np=Path('django/contrib/contenttypes/management/__init__.py')\ns=p.read_text()\ns=s.replace('a','b')\np.write_text(s)\nPY",
        );
        assert_eq!(e.len(), 1);
        assert_eq!(
            e[0].0.as_deref(),
            Some("django/contrib/contenttypes/management/__init__.py")
        );
        assert!(matches!(e[0].1, EditOp::Opaque { .. }));
        assert!(ops("python - <<'PY'\nprint(open('a.py').read())\nPY").is_empty());
    }

    #[test]
    fn echo_rm_mv_and_redirects() {
        let e = ops(
            "echo 'x = 1' > a.py; echo -n hi >> b.txt; rm -f c.py; mv d.py e.py; python run.py > out.log 2>&1",
        );
        assert_eq!(
            e[0],
            (
                Some("a.py".into()),
                EditOp::Write {
                    text: "x = 1\n".into()
                }
            )
        );
        assert_eq!(
            e[1],
            (Some("b.txt".into()), EditOp::Append { text: "hi".into() })
        );
        assert_eq!(e[2], (Some("c.py".into()), EditOp::Delete));
        assert_eq!(
            e[3],
            (Some("d.py".into()), EditOp::Rename { to: "e.py".into() })
        );
        assert!(matches!(&e[4], (Some(p), EditOp::Opaque { .. }) if p == "out.log"));
        assert!(ops("ls > /dev/null; grep -n x a.py").is_empty());
    }

    #[test]
    fn git_apply_with_inline_patch() {
        let e = ops("git apply <<'EOF'\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x\n+y\nEOF");
        assert!(matches!(&e[0], (Some(p), EditOp::Hunks(h)) if p == "a.py" && h.len() == 1));
        assert_eq!(ops("git checkout -- a.py")[0].1, EditOp::Restore);
        assert!(ops("git checkout main").is_empty());
    }
}
