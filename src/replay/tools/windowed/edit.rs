//! The windowed editor's edits: 0.x `edit start:end` + replacement lines, and 1.x
//! `edit search replace [replace_all]` and `insert text [line]`. Python files are linted
//! after the edit; an edit that introduces errors is undone and shown both ways.

use super::super::lint;
use super::super::window::{v0, v1};
use super::{Generation, ReplaceMessage, Windowed, py_repr};
use crate::replay::files::Files;

const V0_SUCCESS: &str = "File updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.\n";
const V0_LINT_HEAD: &str = "Your proposed edit has introduced new syntax error(s). Please understand the fixes and retry your edit commmand.\n";
const V0_LINT_TAIL: &str = "Your changes have NOT been applied. Please fix your edit command and try again.\nYou either need to 1) Specify the correct start/end line arguments or 2) Correct your edit code.\nDO NOT re-run the same failed edit command. Running it again will lead to the same error.\n";
const RULE_V0: &str = "-------------------------------------------------";
const RULE_V1: &str = "------------------------------------------------";
const V1_PLAIN_TAIL: &str = "Please review the changes and make sure they are correct\n(correct indentation, no duplicate lines, etc). Edit the file again if necessary.";
const V1_SUCCESS: &str = "Text replaced. Please review the changes and make sure they are correct:\n\n1. The edited file is correctly indented\n2. The edited file does not contain duplicate lines\n3. The edit does not break existing functionality\n\nEdit the file again if necessary.";

impl Windowed {
    /// 0.x `edit start:end` with `replacement` (the lines before `end_of_edit`).
    pub fn edit_lines(&mut self, files: &dyn Files, range: &str, replacement: &str) -> String {
        const USAGE: &str = "Usage: edit <start_line>:<end_line>\n";
        let Some(file) = self.file.clone() else {
            return "No file open. Use the `open` command first.\n".into();
        };
        // `echo $1: | cut -d: -f1` / `-f2`
        let mut fields = format!("{range}:")
            .split(':')
            .map(String::from)
            .collect::<Vec<_>>();
        fields.resize(2, String::new());
        let (start, end) = (fields[0].clone(), fields[1].clone());
        if start.is_empty() || end.is_empty() {
            return USAGE.into();
        }
        let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
        if !digits(&start) {
            return format!("{USAGE}Error: start_line must be a number\n");
        }
        if !digits(&end) {
            return format!("{USAGE}Error: end_line must be a number\n");
        }
        let start = start.parse::<i64>().unwrap_or(i64::MAX).saturating_sub(1);
        let end = end.parse::<i64>().unwrap_or(i64::MAX);
        let before_lint = lint::run(&self.launcher, &file);
        let original = files.read(&file).unwrap_or_default();
        let text = String::from_utf8_lossy(&original).into_owned();
        // `mapfile -t`: every line, a last one without newline too.
        let mut lines: Vec<&str> = text.split('\n').collect();
        if text.ends_with('\n') || text.is_empty() {
            lines.pop();
        }
        // `while IFS= read -r line`: lines of the heredoc body.
        let new: Vec<&str> = if replacement.is_empty() {
            Vec::new()
        } else {
            replacement
                .strip_suffix('\n')
                .unwrap_or(replacement)
                .split('\n')
                .collect()
        };
        let line_count = i64::try_from(new.len()).unwrap_or(i64::MAX);
        let clamp = |i: i64| usize::try_from(i.max(0)).unwrap_or(0).min(lines.len());
        let mut out_lines: Vec<&str> = lines[..clamp(start)].to_vec();
        out_lines.extend(&new);
        out_lines.extend(&lines[clamp(end)..]);
        // `printf "%s\n" "${new_lines[@]}"` prints one newline even for no lines.
        let mut written = out_lines.join("\n");
        written.push('\n');
        if let Err(e) = files.write(&file, written.as_bytes()) {
            return format!("{file}: {e}\n");
        }
        let errors = if file.ends_with(".py") {
            let after = lint::run(&self.launcher, &file);
            lint::new_errors(&after, &before_lint, (start + 1, end), line_count, false)
        } else {
            String::new()
        };
        if errors.is_empty() {
            self.line = v0::constrain(start, self.window, v0::total_lines(&written));
            return self.print(files, &file) + V0_SUCCESS;
        }
        let applied = v0::print(
            &file,
            &written,
            v0::constrain(
                line_count / 2 + start,
                line_count + 10,
                v0::total_lines(&written),
            ),
            line_count + 10,
        );
        let _ = files.write(&file, &original);
        let width = end - start + 10;
        let before = v0::print(
            &file,
            &text,
            v0::constrain((end - start + 1) / 2 + start, width, v0::total_lines(&text)),
            width,
        );
        format!(
            "{V0_LINT_HEAD}\nERRORS:\n{errors}\n\nThis is how your edit would have looked if applied\n{RULE_V0}\n{applied}{RULE_V0}\n\nThis is the original code before your edit\n{RULE_V0}\n{before}{RULE_V0}\n{V0_LINT_TAIL}"
        )
    }

    /// 1.x `edit search replace [replace_all]`.
    pub fn edit_replace(
        &mut self,
        files: &dyn Files,
        search: &str,
        replace: &str,
        replace_all: bool,
    ) -> String {
        let Some(file) = self.file.clone() else {
            return "No file opened. Either `open` or `create` a file first.\n".into();
        };
        if search.is_empty() {
            return "Search text must not be empty. Use insert to add new text.\n".into();
        }
        if search == replace {
            return "Your search and replace strings are the same. No changes were made. Please modify your search or replace strings.\n".into();
        }
        let before_lint = lint::run(&self.launcher, &file);
        let original = String::from_utf8_lossy(&files.read(&file).unwrap_or_default()).into_owned();
        let old_first = self.line;
        let n = v1::n_lines(&original);
        let end = (self.line + self.window - 1).min(n - 1);
        let mut parts: Vec<String> = original.split('\n').map(String::from).collect();
        let (from, to) = span(self.line, end, parts.len());
        let window_text = parts[from..to].join("\n");
        let (new_text, first_replaced, n_replacements) = if !replace_all {
            if window_text.matches(search).count() > 1 {
                return format!(
                    "Your edit was not applied (file not modified): Found more than one occurrence of {} in the currently displayed lines.\nPlease make your search string more specific (for example, by including more lines of context).\n\n",
                    py_repr(search)
                );
            }
            let Some(index) = window_text.find(search) else {
                return not_found(&original, search);
            };
            let first = self.line + count_newlines(&window_text[..index]);
            let replaced = window_text.replace(search, replace);
            let new_lines: Vec<String> = if replaced.is_empty() {
                Vec::new()
            } else {
                replaced.split('\n').map(String::from).collect()
            };
            parts.splice(from..to, new_lines);
            (parts.join("\n"), first, 1)
        } else {
            let Some(index) = original.find(search) else {
                return not_found(&original, search);
            };
            // `len(text[:index].split("\n"))`: the 1-based line, used as 0-based downstream.
            let first = count_newlines(&original[..index]) + 1;
            (
                original.replace(search, replace),
                first,
                original.matches(search).count(),
            )
        };
        if let Err(e) = files.write(&file, new_text.as_bytes()) {
            return format!("{file}: {e}\n");
        }
        self.line = v1::top_for(first_replaced, self.window, v1::n_lines(&new_text));
        let after_lint = lint::run(&self.launcher, &file);
        let n_search = count_newlines(search) + 1;
        let errors = if replace_all {
            lint::new_errors(&after_lint, "", (0, 0), 1, false)
        } else {
            let window = (first_replaced, first_replaced + n_search - 1);
            lint::new_errors(
                &after_lint,
                &before_lint,
                window,
                count_newlines(replace) + 1,
                false,
            )
        };
        if !errors.is_empty() {
            return self.lint_failure(files, &file, &original, old_first, &errors);
        }
        let message = match (self.replace_message, replace_all) {
            (ReplaceMessage::Checklist, false) => V1_SUCCESS.to_string(),
            (ReplaceMessage::Checklist, true) => V1_SUCCESS.replacen(
                "Text replaced.",
                &format!("Replaced {n_replacements} occurrences."),
                1,
            ),
            (ReplaceMessage::Plain, _) => format!("Text replaced. {V1_PLAIN_TAIL}"),
            (ReplaceMessage::Counted, _) => {
                format!("Replaced {n_replacements} occurrences. {V1_PLAIN_TAIL}")
            }
        };
        format!("{message}\n{}", self.print(files, &file))
    }

    /// 1.x `insert text [line]` (1-based line to insert at; the end of the file without).
    pub fn insert(&mut self, files: &dyn Files, text: &str, line: Option<i64>) -> String {
        let Some(file) = self.file.clone() else {
            return "No file opened. Use the `create` or `open` command first.\n".into();
        };
        let before_lint = lint::run(&self.launcher, &file);
        let original = String::from_utf8_lossy(&files.read(&file).unwrap_or_default()).into_owned();
        let old_first = self.line;
        if text.is_empty() {
            return self.print(files, &file);
        }
        let text = text.strip_suffix('\n').unwrap_or(text);
        let (new_text, at) = match line.map(|l| l - 1) {
            None => {
                let body = if original.is_empty() {
                    text.to_string()
                } else {
                    format!(
                        "{}\n{text}",
                        original.strip_suffix('\n').unwrap_or(&original)
                    )
                };
                (body, v1::n_lines(&original))
            }
            Some(l) if l < 0 => {
                let body = if original.is_empty() {
                    text.to_string()
                } else {
                    format!(
                        "{text}\n{}",
                        original.strip_prefix('\n').unwrap_or(&original)
                    )
                };
                (body, 0)
            }
            Some(l) => {
                let mut parts: Vec<&str> = original.split('\n').collect();
                let at = usize::try_from(l).unwrap_or(0).min(parts.len());
                parts.insert(at, text);
                (parts.join("\n"), l)
            }
        };
        if let Err(e) = files.write(&file, new_text.as_bytes()) {
            return format!("{file}: {e}\n");
        }
        self.line = v1::top_for(at, self.window, v1::n_lines(&new_text));
        let after_lint = lint::run(&self.launcher, &file);
        let added = count_newlines(text) + 1;
        let errors = lint::new_errors(&after_lint, &before_lint, (at, at), added, false);
        if !errors.is_empty() {
            return self.lint_failure(files, &file, &original, old_first, &errors);
        }
        self.print(files, &file)
    }

    /// Shows the edit applied and undone, and undoes it.
    fn lint_failure(
        &mut self,
        files: &dyn Files,
        file: &str,
        original: &str,
        old_first: i64,
        errors: &str,
    ) -> String {
        let applied = self.print(files, file);
        let _ = files.write(file, original.as_bytes());
        self.line = old_first;
        let before = self.print(files, file);
        debug_assert_eq!(self.generation, Generation::V1);
        format!(
            "Your proposed edit has introduced new syntax error(s). Please read this error message carefully and then retry editing the file.\n\nERRORS:\n\n{errors}\n\nThis is how your edit would have looked if applied\n{RULE_V1}\n{applied}{RULE_V1}\n\nThis is the original code before your edit\n{RULE_V1}\n{before}{RULE_V1}\n\nYour changes have NOT been applied. Please fix your edit command and try again.\nDO NOT re-run the same failed edit command. Running it again will lead to the same error.\n\n"
        )
    }
}

fn span(first: i64, end: i64, len: usize) -> (usize, usize) {
    let from = usize::try_from(first.max(0)).unwrap_or(0).min(len);
    let to = usize::try_from(end + 1).unwrap_or(0).clamp(from, len);
    (from, to)
}

fn count_newlines(s: &str) -> i64 {
    i64::try_from(s.matches('\n').count()).unwrap_or(i64::MAX)
}

fn not_found(text: &str, search: &str) -> String {
    let mut lines = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find(search) {
        let at = from + i;
        lines.push(format!("- line {}", count_newlines(&text[..at]) + 1));
        from = at + search.len().max(1);
    }
    if lines.is_empty() {
        format!(
            "Your edit was not applied (file not modified): Text {} not found in displayed lines (or anywhere in the file).\nPlease modify your search string. Did you forget to properly handle whitespace/indentation?\nYou can also call `open` again to re-display the file with the correct context.\n\n",
            py_repr(search)
        )
    } else {
        format!(
            "Your edit was not applied (file not modified): Text {} not found in displayed lines.\n\nHowever, we found the following occurrences of your search string in the file:\n\n{}\n\nYou can use the `goto` command to navigate to these locations before running the edit command again.\n\n",
            py_repr(search),
            lines.join("\n")
        )
    }
}
