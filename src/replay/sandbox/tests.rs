use super::*;

fn words(policy: &Policy) -> Vec<String> {
    let bwrap = Bubblewrap {
        program: PathBuf::from("/usr/bin/bwrap"),
    };
    bwrap.launcher(
        Path::new("/tmp/ws/repo"),
        &[PathBuf::from("/src/repo")],
        policy,
    )
}

fn has(words: &[String], seq: &[&str]) -> bool {
    words
        .windows(seq.len())
        .any(|w| w.iter().zip(seq).all(|(a, b)| a == b))
}

#[test]
fn only_the_workspace_is_writable_and_the_network_is_off_by_default() {
    let w = words(&Policy::default());
    assert_eq!(w.first().map(String::as_str), Some("/usr/bin/bwrap"));
    assert!(has(&w, &["--ro-bind", "/", "/"]));
    assert!(has(&w, &["--bind", "/tmp/ws/repo", "/tmp/ws/repo"]));
    // /src/repo does not exist here: a path that is not there is not bound.
    assert!(!w.iter().any(|x| x == "/src/repo"));
    assert!(has(&w, &["--tmpfs", "/tmp"]));
    assert!(has(&w, &["--unshare-all"]));
    assert!(!w.iter().any(|x| x == "--share-net"));
    assert!(has(&w, &["--cap-drop", "ALL"]));
    assert!(w.iter().any(|x| x == "--die-with-parent"));
    assert!(w.iter().any(|x| x == "--clearenv"));
    assert_eq!(w.last().map(String::as_str), Some("--"));
    // The workspace is bound after /tmp is hidden, or the tmpfs would cover it.
    let tmp = w.iter().position(|x| x == "/tmp").unwrap_or(0);
    let ws = w.iter().position(|x| x == "/tmp/ws/repo").unwrap_or(0);
    assert!(tmp < ws);
}

#[test]
fn network_and_binds_are_opt_in() {
    let dir = tempfile::tempdir().unwrap();
    let bind = dir.path().to_path_buf();
    let policy = Policy {
        network: true,
        binds: vec![bind.clone()],
    };
    let w = words(&policy);
    assert!(w.iter().any(|x| x == "--share-net"));
    let b = bind.to_string_lossy();
    assert!(has(&w, &["--ro-bind", b.as_ref(), b.as_ref()]));
    assert!(policy.check().is_ok());
    let relative = Policy {
        network: false,
        binds: vec![PathBuf::from("relative/path")],
    };
    assert!(matches!(relative.check(), Err(SandboxError::Bind { .. })));
}

/// The real thing, where bwrap works: a write outside the workspace does not reach the host.
#[test]
fn a_write_outside_lands_nowhere_where_bwrap_works() {
    let policy = Policy::default();
    let Ok(bwrap) = Bubblewrap::find(&policy) else {
        eprintln!("skipping: bwrap is not installed or does not work here");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let outside = dir.path().join("outside.txt");
    let words = bwrap.launcher(&ws, &[], &policy);
    let script = format!(
        "echo in > inside.txt; echo out > {} ; echo x > ../up.txt; true",
        outside.display()
    );
    let status = Command::new(&words[0])
        .args(&words[1..])
        .args(["bash", "-c", &script])
        .status()
        .unwrap();
    assert!(status.success());
    assert!(ws.join("inside.txt").exists());
    assert!(!outside.exists());
    assert!(!dir.path().join("up.txt").exists());
}
