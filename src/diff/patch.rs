//! A structured diff: files, hunks, lines with kinds, and the unified-diff text parser.
//!
//! Every diff trajscope shows (a step's edit, the cumulative change, a submission, a gold
//! patch) is a [`FileDiff`]. Lines whose text the log never showed carry `text: None`, so a
//! view can say "3 lines not seen" instead of inventing them. Rendering lives in the views.

use serde::Serialize;

/// What a diff line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LineKind {
    Context,
    Added,
    Removed,
}

/// One line of a hunk. Line numbers are 1-based; `None` where the position is not known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiffLine {
    pub kind: LineKind,
    /// The line without its newline; `None` when the log never showed it.
    pub text: Option<String>,
    pub old_line: Option<usize>,
    pub new_line: Option<usize>,
}

impl DiffLine {
    pub fn new(kind: LineKind, text: impl Into<String>) -> DiffLine {
        DiffLine {
            kind,
            text: Some(text.into()),
            old_line: None,
            new_line: None,
        }
    }
}

/// A run of changed lines with their context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hunk {
    /// First old line (1-based; for an empty old side, the line after which lines go, as in
    /// unified diffs). `None` when the edit's position in the file is not known.
    pub old_start: Option<usize>,
    pub old_len: usize,
    pub new_start: Option<usize>,
    pub new_len: usize,
    /// The text after the second `@@` (a function name), when there is one.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub section: String,
    pub lines: Vec<DiffLine>,
}

impl Hunk {
    pub fn added(&self) -> usize {
        self.lines
            .iter()
            .filter(|l| l.kind == LineKind::Added)
            .count()
    }

    pub fn removed(&self) -> usize {
        self.lines
            .iter()
            .filter(|l| l.kind == LineKind::Removed)
            .count()
    }

    /// The `@@ -a,b +c,d @@` header; `?` stands for an unknown position.
    pub fn header(&self) -> String {
        let side = |start: Option<usize>, len: usize| match start {
            Some(s) if len == 1 => s.to_string(),
            Some(s) => format!("{s},{len}"),
            None => format!("?,{len}"),
        };
        let mut out = format!(
            "@@ -{} +{} @@",
            side(self.old_start, self.old_len),
            side(self.new_start, self.new_len)
        );
        if !self.section.is_empty() {
            out.push(' ');
            out.push_str(&self.section);
        }
        out
    }
}

/// How a file changed as a whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileChange {
    Modified,
    Created,
    Deleted,
    Renamed,
}

/// The change to one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileDiff {
    pub path: String,
    /// The old name, for renames.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_path: Option<String>,
    pub change: FileChange,
    pub hunks: Vec<Hunk>,
    /// A binary file or a mode change: the patch says so without hunks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl FileDiff {
    pub fn new(path: impl Into<String>, change: FileChange) -> FileDiff {
        FileDiff {
            path: path.into(),
            old_path: None,
            change,
            hunks: Vec::new(),
            note: None,
        }
    }

    pub fn added(&self) -> usize {
        self.hunks.iter().map(Hunk::added).sum()
    }

    pub fn removed(&self) -> usize {
        self.hunks.iter().map(Hunk::removed).sum()
    }

    /// The `---` and `+++` labels of `diff -u` (`a/x`, `b/x`, `/dev/null` for a side that
    /// does not exist).
    /// An absolute path outside the repository keeps one slash (`a/project/x.py`), as git
    /// writes it: `a/` + `/project` would read `a//project`.
    pub fn labels(&self) -> (String, String) {
        let side = |prefix: &str, path: &str| format!("{prefix}{}", path.trim_start_matches('/'));
        let old = || side("a/", self.old_path.as_deref().unwrap_or(&self.path));
        let new = || side("b/", &self.path);
        match self.change {
            FileChange::Created => ("/dev/null".to_string(), new()),
            FileChange::Deleted => (side("a/", &self.path), "/dev/null".to_string()),
            FileChange::Renamed | FileChange::Modified => (old(), new()),
        }
    }

    /// No hunk changes anything (an edit that wrote what was already there).
    pub fn is_empty(&self) -> bool {
        self.hunks
            .iter()
            .all(|h| h.lines.iter().all(|l| l.kind == LineKind::Context))
            && self.change == FileChange::Modified
    }
}

/// Parses a unified diff (`git diff`, `diff -u`) into files and hunks. Lenient: text that is
/// not part of a file diff (a commit message, a trailing prompt) is skipped; a hunk cut short
/// keeps the lines it has.
pub fn parse_patch(text: &str) -> Vec<FileDiff> {
    let mut files: Vec<FileDiff> = Vec::new();
    let mut lines = text.lines().peekable();
    // Lines still expected in the open hunk: (old, new).
    let mut open: Option<(usize, usize)> = None;
    // A `diff --git` line opened a file whose `---`/`+++` lines have not come yet.
    let mut git_header_pending = false;
    while let Some(line) = lines.next() {
        if let Some((old_left, new_left)) = open {
            if old_left == 0 && new_left == 0 {
                open = None;
            } else if let Some(file) = files.last_mut()
                && let Some(hunk) = file.hunks.last_mut()
            {
                let (kind, body) = match line.as_bytes().first() {
                    Some(b' ') => (Some(LineKind::Context), &line[1..]),
                    Some(b'-') if old_left > 0 => (Some(LineKind::Removed), &line[1..]),
                    Some(b'+') if new_left > 0 => (Some(LineKind::Added), &line[1..]),
                    Some(b'\\') => (None, ""),
                    // Editors and models drop the space of empty context lines.
                    None => (Some(LineKind::Context), ""),
                    _ => {
                        open = None;
                        (None, "")
                    }
                };
                if let Some(kind) = kind {
                    let old_no = hunk.old_start.unwrap_or(0) + hunk.old_len - old_left;
                    let new_no = hunk.new_start.unwrap_or(0) + hunk.new_len - new_left;
                    let (o, n) = match kind {
                        LineKind::Context => {
                            (old_left.saturating_sub(1), new_left.saturating_sub(1))
                        }
                        LineKind::Removed => (old_left - 1, new_left),
                        LineKind::Added => (old_left, new_left - 1),
                    };
                    hunk.lines.push(DiffLine {
                        kind,
                        text: Some(body.to_string()),
                        old_line: (kind != LineKind::Added).then_some(old_no),
                        new_line: (kind != LineKind::Removed).then_some(new_no),
                    });
                    open = Some((o, n));
                    continue;
                }
                if open.is_some() {
                    continue;
                }
            } else {
                open = None;
            }
        }
        if let Some(rest) = line.strip_prefix("diff --git ") {
            let (a, b) = split_git_header(rest);
            let mut file = FileDiff::new(b.clone(), FileChange::Modified);
            if a != b {
                file.old_path = Some(a);
                file.change = FileChange::Renamed;
            }
            files.push(file);
            git_header_pending = true;
        } else if line.starts_with("--- ") && lines.peek().is_some_and(|l| l.starts_with("+++ ")) {
            let old = diff_path(&line[4..]);
            let new = lines.next().map(|l| diff_path(&l[4..])).unwrap_or_default();
            if !git_header_pending {
                files.push(FileDiff::new(String::new(), FileChange::Modified));
            }
            git_header_pending = false;
            if let Some(file) = files.last_mut() {
                match (old.as_str(), new.as_str()) {
                    ("/dev/null", _) => {
                        file.change = FileChange::Created;
                        file.path = new;
                        file.old_path = None;
                    }
                    (_, "/dev/null") => {
                        file.change = FileChange::Deleted;
                        file.path = old;
                        file.old_path = None;
                    }
                    _ => {
                        file.path = new;
                        if old != file.path {
                            file.old_path = Some(old);
                            file.change = FileChange::Renamed;
                        }
                    }
                }
            }
        } else if let Some(header) = line.strip_prefix("@@ ") {
            let Some((old, new, section)) = parse_hunk_header(header) else {
                continue;
            };
            if files.is_empty() {
                files.push(FileDiff::new(String::new(), FileChange::Modified));
            }
            git_header_pending = false;
            if let Some(file) = files.last_mut() {
                file.hunks.push(Hunk {
                    old_start: Some(old.0),
                    old_len: old.1,
                    new_start: Some(new.0),
                    new_len: new.1,
                    section,
                    lines: Vec::new(),
                });
                open = Some((old.1, new.1));
            }
        } else if let Some(file) = files.last_mut() {
            if line.starts_with("new file mode") {
                file.change = FileChange::Created;
            } else if line.starts_with("deleted file mode") {
                file.change = FileChange::Deleted;
            } else if let Some(from) = line.strip_prefix("rename from ") {
                file.old_path = Some(from.to_string());
                file.change = FileChange::Renamed;
            } else if let Some(to) = line.strip_prefix("rename to ") {
                file.path = to.to_string();
            } else if line.starts_with("Binary files ") || line.starts_with("GIT binary patch") {
                file.note = Some("binary file".into());
            }
        }
    }
    files.retain(|f| !f.path.is_empty());
    files
}

/// `a/x b/x` → (`x`, `x`). Paths with spaces are ambiguous in this header; the `---`/`+++`
/// lines that follow settle them.
fn split_git_header(rest: &str) -> (String, String) {
    let half = rest.len() / 2;
    if rest.len() % 2 == 1 && rest.as_bytes().get(half) == Some(&b' ') {
        let (a, b) = (&rest[..half], &rest[half + 1..]);
        return (strip_prefix_dir(a), strip_prefix_dir(b));
    }
    match rest.split_once(" b/") {
        Some((a, b)) => (strip_prefix_dir(a), b.to_string()),
        None => {
            let mut parts = rest.splitn(2, ' ');
            let a = parts.next().unwrap_or_default();
            let b = parts.next().unwrap_or(a);
            (strip_prefix_dir(a), strip_prefix_dir(b))
        }
    }
}

fn strip_prefix_dir(path: &str) -> String {
    path.strip_prefix("a/")
        .or_else(|| path.strip_prefix("b/"))
        .unwrap_or(path)
        .to_string()
}

/// The path of a `---`/`+++` line: without `a/`/`b/` and without a trailing timestamp.
fn diff_path(raw: &str) -> String {
    let path = raw.split('\t').next().unwrap_or(raw).trim_end();
    if path == "/dev/null" {
        return path.to_string();
    }
    strip_prefix_dir(path)
}

/// `-a,b +c,d @@ section` → ((a, b), (c, d), section). A missing length means 1.
/// (start, length) of one side of a hunk.
type Range = (usize, usize);

fn parse_hunk_header(header: &str) -> Option<(Range, Range, String)> {
    let (ranges, section) = match header.split_once("@@") {
        Some((r, s)) => (r, s.trim().to_string()),
        None => (header, String::new()),
    };
    let mut parts = ranges.split_whitespace();
    let old = parse_range(parts.next()?.strip_prefix('-')?)?;
    let new = parse_range(parts.next()?.strip_prefix('+')?)?;
    Some((old, new, section))
}

fn parse_range(range: &str) -> Option<(usize, usize)> {
    match range.split_once(',') {
        Some((start, len)) => Some((start.parse().ok()?, len.parse().ok()?)),
        None => Some((range.parse().ok()?, 1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUBMISSION: &str = "diff --git a/django/http/response.py b/django/http/response.py
index 6a84e193ba..05da20567f 100644
--- a/django/http/response.py
+++ b/django/http/response.py
@@ -233,6 +233,9 @@ class HttpResponseBase:
             return bytes(value)
         if isinstance(value, str):
             return bytes(value.encode(self.charset))
+        # Handle memoryview type.
+        if isinstance(value, memoryview):
+            return value.tobytes()
         # Handle non-string types.
         return str(value).encode(self.charset)
 
";

    #[test]
    fn real_submission_parses_into_one_hunk() {
        let files = parse_patch(SUBMISSION);
        assert_eq!(files.len(), 1);
        let f = &files[0];
        assert_eq!(f.path, "django/http/response.py");
        assert_eq!(f.change, FileChange::Modified);
        assert_eq!(f.hunks.len(), 1);
        let h = &f.hunks[0];
        assert_eq!(
            (h.old_start, h.old_len, h.new_start, h.new_len),
            (Some(233), 6, Some(233), 9)
        );
        assert_eq!(h.section, "class HttpResponseBase:");
        assert_eq!(h.added(), 3);
        assert_eq!(h.removed(), 0);
        assert_eq!(h.lines.len(), 9);
        assert_eq!(h.lines[3].new_line, Some(236));
        assert_eq!(h.lines[3].old_line, None);
        assert_eq!(h.lines[8].old_line, Some(238));
        assert_eq!(h.lines[8].text.as_deref(), Some(""));
    }

    #[test]
    fn new_deleted_and_renamed_files() {
        let text = "diff --git a/new.py b/new.py
new file mode 100644
index 0000000..e69de29
--- /dev/null
+++ b/new.py
@@ -0,0 +1,2 @@
+a
+b
diff --git a/old.py b/old.py
deleted file mode 100644
--- a/old.py
+++ /dev/null
@@ -1 +0,0 @@
-gone
diff --git a/x.py b/y.py
similarity index 100%
rename from x.py
rename to y.py
";
        let files = parse_patch(text);
        assert_eq!(files.len(), 3);
        assert_eq!(
            (files[0].path.as_str(), files[0].change),
            ("new.py", FileChange::Created)
        );
        assert_eq!(files[0].added(), 2);
        assert_eq!(
            (files[1].path.as_str(), files[1].change),
            ("old.py", FileChange::Deleted)
        );
        assert_eq!(files[1].removed(), 1);
        assert_eq!(
            (files[2].path.as_str(), files[2].change),
            ("y.py", FileChange::Renamed)
        );
        assert_eq!(files[2].old_path.as_deref(), Some("x.py"));
    }

    #[test]
    fn plain_diff_u_without_git_header_and_cut_short() {
        let text = "--- a.py\t2024-01-01\n+++ a.py\t2024-01-02\n@@ -1,3 +1,3 @@\n x\n-y\n+z\n";
        let files = parse_patch(text);
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].path, "a.py");
        assert_eq!(files[0].hunks[0].lines.len(), 3);
    }

    #[test]
    fn garbage_yields_nothing() {
        assert!(parse_patch("hello\n@@ nonsense @@\n+++ x").is_empty());
        assert!(parse_patch("").is_empty());
    }
}
