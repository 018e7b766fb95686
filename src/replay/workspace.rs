//! The scratch copy of the repository the agent worked on (`--workspace PATH`), in a temporary
//! folder that is removed when the replay ends.
//!
//! The starting state is PATH as it is now: for a git repository, a shared clone checked out
//! at HEAD (objects are borrowed, nothing is written into PATH, not even worktree metadata),
//! then the working tree's uncommitted changes (as one binary diff against HEAD) and its
//! untracked, not ignored files are carried over; staged and unstaged changes both arrive
//! unstaged, and ignored files (build products, virtualenvs) are not copied. Anything else is
//! copied file by file (symlinks stay symlinks). PATH is only ever read.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum WorkspaceError {
    #[error("workspace {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("workspace {path} is not a directory")]
    NotADirectory { path: PathBuf },
    #[error("git {args} failed in {path}: {stderr}")]
    Git {
        path: PathBuf,
        args: String,
        stderr: String,
    },
}

/// How the scratch copy was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CopyKind {
    /// A shared clone at `head`, plus the working tree's changes when it was dirty.
    Git {
        head: String,
        /// Uncommitted changes to tracked files were applied.
        changes: bool,
        /// Untracked (not ignored) files copied over.
        untracked: usize,
    },
    /// A plain recursive copy (PATH is not a git repository).
    Copy { files: usize },
}

/// A scratch copy; dropping it removes the copy.
#[derive(Debug)]
pub struct Workspace {
    source: PathBuf,
    root: PathBuf,
    kind: CopyKind,
    _temp: tempfile::TempDir,
}

impl Workspace {
    /// Copies `source` into a new temporary folder.
    pub fn create(source: &Path) -> Result<Workspace, WorkspaceError> {
        let io = |e| WorkspaceError::Io {
            path: source.to_path_buf(),
            source: e,
        };
        let source = source.canonicalize().map_err(io)?;
        if !source.is_dir() {
            return Err(WorkspaceError::NotADirectory { path: source });
        }
        let temp = tempfile::Builder::new()
            .prefix("trajscope-replay-")
            .tempdir()
            .map_err(io)?;
        let base = temp.path().canonicalize().map_err(io)?;
        let root = base.join("repo");
        let kind = if is_git_root(&source) {
            git_copy(&source, &root)?
        } else {
            let files = copy_tree(&source, &root)?;
            CopyKind::Copy { files }
        };
        Ok(Workspace {
            source,
            root,
            kind,
            _temp: temp,
        })
    }

    /// The scratch copy's root: where commands run.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The folder it was copied from.
    pub fn source(&self) -> &Path {
        &self.source
    }

    pub fn kind(&self) -> &CopyKind {
        &self.kind
    }

    /// One line for the user: what was copied, how, where to.
    pub fn describe(&self) -> String {
        let how = match &self.kind {
            CopyKind::Git {
                head,
                changes,
                untracked,
            } => {
                let short = &head[..head.len().min(12)];
                let mut how = format!("git clone at {short}");
                if *changes {
                    how.push_str(" + uncommitted changes");
                }
                if *untracked > 0 {
                    how.push_str(&format!(" + {untracked} untracked files"));
                }
                how
            }
            CopyKind::Copy { files } => format!("copy of {files} files"),
        };
        format!(
            "{} → {} ({how})",
            self.source.display(),
            self.root.display()
        )
    }
}

fn is_git_root(dir: &Path) -> bool {
    git(dir, &["rev-parse", "--show-toplevel"])
        .ok()
        .and_then(|top| Path::new(top.trim()).canonicalize().ok())
        .is_some_and(|top| top == dir)
}

/// Runs git in `dir`, returning stdout.
fn git(dir: &Path, args: &[&str]) -> Result<String, WorkspaceError> {
    let out = git_command(dir, args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| WorkspaceError::Io {
            path: dir.to_path_buf(),
            source: e,
        })?;
    if !out.status.success() {
        return Err(WorkspaceError::Git {
            path: dir.to_path_buf(),
            args: args.join(" "),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn git_command(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new("git");
    c.arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0");
    c
}

fn git_copy(source: &Path, root: &Path) -> Result<CopyKind, WorkspaceError> {
    let head = git(source, &["rev-parse", "HEAD"])?.trim().to_string();
    let src = source.to_string_lossy();
    let dst = root.to_string_lossy();
    let parent = root.parent().unwrap_or(root);
    git(
        parent,
        &["clone", "--quiet", "--shared", "--no-checkout", &src, &dst],
    )?;
    git(root, &["checkout", "--quiet", "--detach", &head])?;
    // `git diff` against HEAD: staged and unstaged changes to tracked files, binary-safe.
    let patch = git_command(source, &["diff", "--binary", "HEAD"])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| WorkspaceError::Io {
            path: source.to_path_buf(),
            source: e,
        })?;
    let changes = !patch.stdout.is_empty();
    if changes {
        apply(root, &patch.stdout)?;
    }
    let listed = git(
        source,
        &["ls-files", "--others", "--exclude-standard", "-z"],
    )?;
    let mut untracked = 0;
    for name in listed.split('\0').filter(|n| !n.is_empty()) {
        copy_entry(&source.join(name), &root.join(name))?;
        untracked += 1;
    }
    Ok(CopyKind::Git {
        head,
        changes,
        untracked,
    })
}

fn apply(root: &Path, patch: &[u8]) -> Result<(), WorkspaceError> {
    use std::io::Write;
    let io = |e| WorkspaceError::Io {
        path: root.to_path_buf(),
        source: e,
    };
    let mut child = git_command(root, &["apply", "--binary", "--whitespace=nowarn", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(io)?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(patch).map_err(io)?;
    }
    let out = child.wait_with_output().map_err(io)?;
    if !out.status.success() {
        return Err(WorkspaceError::Git {
            path: root.to_path_buf(),
            args: "apply --binary -".into(),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(())
}

/// Copies a file or symlink, creating parent folders.
fn copy_entry(from: &Path, to: &Path) -> Result<(), WorkspaceError> {
    let io = |e| WorkspaceError::Io {
        path: from.to_path_buf(),
        source: e,
    };
    if let Some(parent) = to.parent() {
        fs::create_dir_all(parent).map_err(io)?;
    }
    let meta = fs::symlink_metadata(from).map_err(io)?;
    if meta.file_type().is_symlink() {
        let target = fs::read_link(from).map_err(io)?;
        std::os::unix::fs::symlink(target, to).map_err(io)?;
    } else {
        fs::copy(from, to).map_err(io)?;
    }
    Ok(())
}

/// A recursive copy of `from` into `to`; returns the number of files and links copied.
fn copy_tree(from: &Path, to: &Path) -> Result<usize, WorkspaceError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |e| WorkspaceError::Io { path, source: e }
    };
    fs::create_dir_all(to).map_err(io(to))?;
    let mut count = 0;
    let mut stack = vec![(from.to_path_buf(), to.to_path_buf())];
    while let Some((src, dst)) = stack.pop() {
        for entry in fs::read_dir(&src).map_err(io(&src))? {
            let entry = entry.map_err(io(&src))?;
            let kind = entry.file_type().map_err(io(&entry.path()))?;
            let target = dst.join(entry.file_name());
            if kind.is_dir() {
                fs::create_dir_all(&target).map_err(io(&target))?;
                stack.push((entry.path(), target));
            } else {
                copy_entry(&entry.path(), &target)?;
                count += 1;
            }
        }
    }
    Ok(count)
}

#[cfg(test)]
mod tests;
