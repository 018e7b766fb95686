use super::*;

fn sh(dir: &Path, script: &str) -> String {
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    sh(
        dir.path(),
        "git init -q -b main . && printf 'a = 1\\n' > a.py && mkdir pkg && printf 'x\\n' > pkg/b.txt \
         && printf 'build/\\n' > .gitignore && git add -A && git commit -q -m init",
    );
    dir
}

/// Everything under `.git` and the working tree, with contents, to prove nothing changed.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                out.push((e.path(), fs::read(e.path()).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn clean_repository_is_cloned_at_head_and_left_untouched() {
    let src = repo();
    let before = snapshot(src.path());
    let ws = Workspace::create(src.path()).unwrap();
    let head = sh(src.path(), "git rev-parse HEAD").trim().to_string();
    assert_eq!(
        ws.kind(),
        &CopyKind::Git {
            head: head.clone(),
            changes: false,
            untracked: 0
        }
    );
    assert_eq!(
        fs::read_to_string(ws.root().join("a.py")).unwrap(),
        "a = 1\n"
    );
    assert_eq!(sh(ws.root(), "git rev-parse HEAD").trim(), head);
    assert_eq!(sh(ws.root(), "git status --porcelain"), "");
    // The agent's edits land in the copy only.
    fs::write(ws.root().join("a.py"), "a = 2\n").unwrap();
    assert_eq!(sh(ws.root(), "git status --porcelain"), " M a.py\n");
    let root = ws.root().to_path_buf();
    assert!(ws.describe().contains("git clone at"));
    drop(ws);
    assert!(!root.exists());
    assert_eq!(snapshot(src.path()), before);
}

#[test]
fn dirty_repository_carries_changes_and_untracked_files_not_ignored_ones() {
    let src = repo();
    sh(
        src.path(),
        "printf 'a = 3\\n' > a.py && printf 'y\\n' >> pkg/b.txt && git add pkg/b.txt \
         && printf 'new\\n' > notes.md && mkdir -p build && printf 'o' > build/out.o \
         && printf '\\x00\\x01' > blob.bin && git add blob.bin && git commit -q -m blob \
         && printf '\\x00\\x02' > blob.bin",
    );
    let before = snapshot(src.path());
    let ws = Workspace::create(src.path()).unwrap();
    match ws.kind() {
        CopyKind::Git {
            changes, untracked, ..
        } => assert_eq!((*changes, *untracked), (true, 1)),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        fs::read_to_string(ws.root().join("a.py")).unwrap(),
        "a = 3\n"
    );
    assert_eq!(
        fs::read_to_string(ws.root().join("pkg/b.txt")).unwrap(),
        "x\ny\n"
    );
    assert_eq!(
        fs::read_to_string(ws.root().join("notes.md")).unwrap(),
        "new\n"
    );
    assert_eq!(fs::read(ws.root().join("blob.bin")).unwrap(), vec![0, 2]);
    assert!(!ws.root().join("build").exists());
    assert_eq!(
        sh(ws.root(), "git diff HEAD --stat"),
        sh(src.path(), "git diff HEAD --stat")
    );
    drop(ws);
    assert_eq!(snapshot(src.path()), before);
}

#[test]
fn plain_folders_are_copied_with_symlinks() {
    let src = tempfile::tempdir().unwrap();
    sh(
        src.path(),
        "mkdir -p d/e && printf 1 > d/e/f && ln -s d/e/f link && printf 2 > top",
    );
    let ws = Workspace::create(src.path()).unwrap();
    assert_eq!(ws.kind(), &CopyKind::Copy { files: 3 });
    assert_eq!(fs::read_to_string(ws.root().join("d/e/f")).unwrap(), "1");
    assert!(
        fs::symlink_metadata(ws.root().join("link"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_to_string(ws.root().join("link")).unwrap(), "1");
}

#[test]
fn subfolders_of_a_repository_are_copied_not_cloned_and_bad_paths_fail() {
    let src = repo();
    let ws = Workspace::create(&src.path().join("pkg")).unwrap();
    assert_eq!(ws.kind(), &CopyKind::Copy { files: 1 });
    let err = Workspace::create(&src.path().join("a.py")).unwrap_err();
    assert!(err.to_string().contains("is not a directory"), "{err}");
    let err = Workspace::create(Path::new("/nonexistent/trajscope")).unwrap_err();
    assert!(err.to_string().contains("/nonexistent/trajscope"), "{err}");
}
