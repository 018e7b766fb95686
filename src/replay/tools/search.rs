//! SWE-agent's search commands, natively: `search_dir TERM [DIR]` (grep over a folder, counts
//! per file), `search_file TERM [FILE]` (matching lines of one file, the open one by
//! default) and `find_file NAME [DIR]` (`find -name`). The term is a grep basic regular
//! expression, as in the originals; output and messages are theirs word for word. Results are
//! sorted by path (the originals sort `search_dir`, and print `find` in directory order, which
//! no replay can reproduce).

use super::pattern::{bre, fnmatch};
use super::resolve;
use crate::replay::files::{Files, Kind};

/// `search_dir` gives up beyond this many matching files.
const MAX_FILES: usize = 100;

fn is_binary(data: &[u8]) -> bool {
    data[..data.len().min(32 * 1024)].contains(&0)
}

fn hidden_below(path: &str, dir: &str) -> bool {
    path.strip_prefix(dir)
        .unwrap_or(path)
        .split('/')
        .any(|part| part.starts_with('.'))
}

pub fn search_dir(files: &dyn Files, cwd: &str, args: &[String]) -> String {
    let (term, dir_arg) = match args {
        [term] => (term, None),
        [term, dir] => (term, Some(dir)),
        _ => return "Usage: search_dir <search_term> [<dir>]\n".into(),
    };
    if let Some(d) = dir_arg
        && !files.is_dir(&resolve(cwd, d))
    {
        return format!("Directory {d} not found\n");
    }
    let target = resolve(cwd, dir_arg.map_or(".", |d| d.as_str()));
    let dir = files.realpath(&target).unwrap_or(target);
    let regex = bre(term);
    let mut counts: Vec<(String, usize)> = Vec::new();
    for entry in files.walk(&dir, None).unwrap_or_default() {
        if entry.kind != Kind::File || hidden_below(&entry.path, &dir) {
            continue;
        }
        let (Some(re), Ok(data)) = (regex.as_ref(), files.read(&entry.path)) else {
            continue;
        };
        if is_binary(&data) {
            continue;
        }
        let n = data
            .split(|&b| b == b'\n')
            .filter(|l| re.is_match(l))
            .count();
        if n > 0 {
            counts.push((entry.path, n));
        }
    }
    if counts.is_empty() {
        return format!("No matches found for \"{term}\" in {dir}\n");
    }
    if counts.len() > MAX_FILES {
        return format!(
            "More than {} files matched for \"{term}\" in {dir}. Please narrow your search.\n",
            counts.len()
        );
    }
    counts.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let total: usize = counts.iter().map(|(_, n)| n).sum();
    let mut out = format!("Found {total} matches for \"{term}\" in {dir}:\n");
    for (path, n) in &counts {
        out.push_str(&format!("{path} ({n} matches)\n"));
    }
    out.push_str(&format!("End of matches for \"{term}\" in {dir}\n"));
    out
}

pub fn search_file(
    files: &dyn Files,
    cwd: &str,
    open_file: Option<&str>,
    args: &[String],
) -> String {
    const USAGE: &str = "Usage: search_file <search_term> [<file>]\n";
    let Some(term) = args.first().filter(|t| !t.is_empty()) else {
        return USAGE.into();
    };
    let file = match args.get(1).filter(|f| !f.is_empty()) {
        Some(f) => {
            let path = resolve(cwd, f);
            if files.is_dir(&path) || !files.exists(&path) {
                return format!(
                    "{USAGE}Error: File name {f} not found. Please provide a valid file name.\n"
                );
            }
            path
        }
        None => match open_file {
            Some(f) => f.to_string(),
            None => return "No file open. Use the open command first.\n".into(),
        },
    };
    let file = files.realpath(&file).unwrap_or(file);
    let data = files.read(&file).unwrap_or_default();
    let lines: Vec<(usize, &[u8])> = match bre(term) {
        Some(re) => data
            .split(|&b| b == b'\n')
            .enumerate()
            .filter(|(_, l)| re.is_match(l))
            .map(|(i, l)| (i + 1, l))
            .collect(),
        None => Vec::new(),
    };
    if lines.is_empty() {
        return format!("No matches found for \"{term}\" in {file}\n");
    }
    let mut out = format!("Found {} matches for \"{term}\" in {file}:\n", lines.len());
    for (n, line) in &lines {
        out.push_str(&format!("Line {n}:{}\n", String::from_utf8_lossy(line)));
    }
    out.push_str(&format!("End of matches for \"{term}\" in {file}\n"));
    out
}

pub fn find_file(files: &dyn Files, cwd: &str, args: &[String]) -> String {
    let (name, dir_arg) = match args {
        [name] => (name, None),
        [name, dir] => (name, Some(dir)),
        _ => return "Usage: find_file <file_name> [<dir>]\n".into(),
    };
    if let Some(d) = dir_arg
        && !files.is_dir(&resolve(cwd, d))
    {
        return format!("Directory {d} not found\n");
    }
    let target = resolve(cwd, dir_arg.map_or("./", |d| d.as_str()));
    let dir = files.realpath(&target).unwrap_or(target);
    let matches: Vec<String> = files
        .walk(&dir, None)
        .unwrap_or_default()
        .into_iter()
        .filter(|e| e.kind == Kind::File)
        .filter(|e| fnmatch(name, e.path.rsplit('/').next().unwrap_or("")))
        .map(|e| e.path)
        .collect();
    if matches.is_empty() {
        return format!("No matches found for \"{name}\" in {dir}\n");
    }
    let mut out = format!("Found {} matches for \"{name}\" in {dir}:\n", matches.len());
    for m in matches {
        out.push_str(&m);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::files::LocalFiles;

    fn repo() -> (tempfile::TempDir, String) {
        let (dir, root) = crate::replay::tools::temp_root();
        for (path, text) in [
            (
                "django/core/checks/translation.py",
                "E004 = 'translation.E004'\nx = 1\n",
            ),
            ("docs/ref/checks.txt", "* **translation.E004**: bad\n"),
            (
                "tests/check_framework/test_translation.py",
                "msg = 'translation.E004'\n",
            ),
            (".git/config", "translation.E004\n"),
            ("bin/blob", "translation.E004\0\n"),
        ] {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        (dir, root)
    }

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    /// The shape of `search_dir "translation.E004"` in CodeR's django__django-12286.
    #[test]
    fn search_dir_counts_per_file_skipping_hidden_and_binary() {
        let (_d, root) = repo();
        let out = search_dir(&LocalFiles, &root, &words(&["translation.E004"]));
        assert_eq!(
            out,
            format!(
                "Found 3 matches for \"translation.E004\" in {root}:\n\
                 {root}/django/core/checks/translation.py (1 matches)\n\
                 {root}/docs/ref/checks.txt (1 matches)\n\
                 {root}/tests/check_framework/test_translation.py (1 matches)\n\
                 End of matches for \"translation.E004\" in {root}\n"
            )
        );
        let out = search_dir(&LocalFiles, &root, &words(&["UniqueConstraint", "django"]));
        assert_eq!(
            out,
            format!("No matches found for \"UniqueConstraint\" in {root}/django\n")
        );
        let out = search_dir(&LocalFiles, &root, &words(&["x", "preprocessing"]));
        assert_eq!(out, "Directory preprocessing not found\n");
        assert_eq!(
            search_dir(&LocalFiles, &root, &[]),
            "Usage: search_dir <search_term> [<dir>]\n"
        );
    }

    /// `search_file "_print_Function"` in CodeR's sympy__sympy-11400.
    #[test]
    fn search_file_lists_lines() {
        let (_d, root) = repo();
        let file = format!("{root}/django/core/checks/translation.py");
        let out = search_file(&LocalFiles, &root, Some(&file), &words(&["E004"]));
        assert_eq!(
            out,
            format!(
                "Found 1 matches for \"E004\" in {file}:\nLine 1:E004 = 'translation.E004'\nEnd of matches for \"E004\" in {file}\n"
            )
        );
        let out = search_file(
            &LocalFiles,
            &root,
            None,
            &words(&["x = ", "django/core/checks/translation.py"]),
        );
        assert!(out.contains("Line 2:x = 1\n"), "{out}");
        let out = search_file(&LocalFiles, &root, None, &words(&["CreateModel", "django"]));
        assert_eq!(
            out,
            "Usage: search_file <search_term> [<file>]\nError: File name django not found. Please provide a valid file name.\n"
        );
        let out = search_file(&LocalFiles, &root, None, &words(&["x"]));
        assert_eq!(out, "No file open. Use the open command first.\n");
        let out = search_file(&LocalFiles, &root, Some(&file), &words(&["nothing"]));
        assert_eq!(out, format!("No matches found for \"nothing\" in {file}\n"));
    }

    /// `find_file "fields.py" src` in the marshmallow demonstration.
    #[test]
    fn find_file_by_name_including_hidden_folders() {
        let (_d, root) = repo();
        let out = find_file(&LocalFiles, &root, &words(&["translation.py", "django"]));
        assert_eq!(
            out,
            format!(
                "Found 1 matches for \"translation.py\" in {root}/django:\n{root}/django/core/checks/translation.py\n"
            )
        );
        let out = find_file(&LocalFiles, &root, &words(&["config"]));
        assert_eq!(
            out,
            format!("Found 1 matches for \"config\" in {root}:\n{root}/.git/config\n")
        );
        let out = find_file(&LocalFiles, &root, &words(&["reproduce.py"]));
        assert_eq!(
            out,
            format!("No matches found for \"reproduce.py\" in {root}\n")
        );
        let out = find_file(&LocalFiles, &root, &words(&["a", "mpl_toolkits/mplot3d"]));
        assert_eq!(out, "Directory mpl_toolkits/mplot3d not found\n");
    }
}
