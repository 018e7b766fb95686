use super::*;
use std::time::Instant;

fn config(dir: &std::path::Path) -> ShellConfig {
    ShellConfig {
        launcher: Vec::new(),
        cwd: dir.to_string_lossy().into_owned(),
        env: quiet_env(),
        timeout: Duration::from_secs(20),
        output_cap: 1 << 20,
    }
}

#[test]
fn fresh_commands_merge_streams_and_forget_state() {
    let dir = tempfile::tempdir().unwrap();
    let mut shell = Shell::fresh(config(dir.path()));
    let out = shell
        .run("echo out; echo err >&2; echo $PAGER; exit 3")
        .unwrap();
    assert_eq!(out.output, "out\nerr\ncat\n");
    assert_eq!(out.exit_code, Some(3));
    shell.run("cd /; export X=1").unwrap();
    let out = shell.run("pwd; echo \"[$X]\"").unwrap();
    assert_eq!(
        out.output,
        format!("{}\n[]\n", dir.path().canonicalize().unwrap().display())
    );
    let out = shell.run("nosuchcommand_ts").unwrap();
    assert_eq!(
        out.output,
        "bash: line 1: nosuchcommand_ts: command not found\n"
    );
    assert_eq!(out.exit_code, Some(127));
}

#[test]
fn session_keeps_cwd_variables_and_functions() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let mut shell = Shell::session(config(dir.path())).unwrap();
    let out = shell
        .run("cd sub && export X=42\nf() { echo \"f:$1\"; }")
        .unwrap();
    assert_eq!((out.output.as_str(), out.exit_code), ("", Some(0)));
    assert!(shell.cwd().ends_with("/sub"));
    let out = shell.run("echo $X; f a; printf 'no newline'").unwrap();
    assert_eq!(out.output, "42\nf:a\nno newline");
    let out = shell.run("false").unwrap();
    assert_eq!(out.exit_code, Some(1));
    // A command reading stdin gets end of file, not the protocol.
    let out = shell.run("cat; echo after").unwrap();
    assert_eq!(out.output, "after\n");
    // An unbalanced quote is a syntax error of that command only.
    let out = shell.run("echo 'oops").unwrap();
    assert!(
        out.output.starts_with("bash: line 1: unexpected EOF"),
        "{}",
        out.output
    );
    assert_eq!(shell.run("echo $X").unwrap().output, "42\n");
    let out = shell.run("nosuchcommand_ts").unwrap();
    assert_eq!(
        out.output,
        "bash: line 1: nosuchcommand_ts: command not found\n"
    );
}

#[test]
fn timeouts_kill_the_whole_group_and_sessions_come_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(dir.path());
    cfg.timeout = Duration::from_millis(500);
    let mut fresh = Shell::fresh(cfg.clone());
    let started = Instant::now();
    let out = fresh
        .run("echo before; (sleep 30; echo child) & sleep 30")
        .unwrap();
    assert!(out.timed_out);
    assert_eq!(out.exit_code, None);
    assert_eq!(out.output, "before\n");
    assert!(started.elapsed() < Duration::from_secs(10));

    let mut session = Shell::session(cfg).unwrap();
    session.run("cd /").unwrap();
    let out = session.run("echo partial; sleep 30").unwrap();
    assert!(out.timed_out);
    assert_eq!(out.output, "partial\n");
    let out = session.run("pwd; echo alive").unwrap();
    assert_eq!(out.output, "/\nalive\n");
    let out = session.run("exit 7").unwrap();
    assert_eq!(out.exit_code, Some(7));
    assert_eq!(session.run("echo back").unwrap().output, "back\n");
}

#[test]
fn output_is_capped_with_a_marker() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(dir.path());
    cfg.output_cap = 100;
    let mut fresh = Shell::fresh(cfg.clone());
    let out = fresh.run("head -c 100000 /dev/zero | tr '\\0' a").unwrap();
    assert_eq!(out.dropped_bytes, 99_900);
    assert!(out.output.starts_with(&"a".repeat(100)));
    assert!(
        out.output
            .contains("99900 more bytes of output were dropped")
    );
    let mut session = Shell::session(cfg).unwrap();
    let out = session.run("head -c 5000 /dev/zero | tr '\\0' b").unwrap();
    assert_eq!((out.dropped_bytes, out.exit_code), (4900, Some(0)));
    assert_eq!(session.run("echo ok").unwrap().output, "ok\n");
}

#[test]
fn quoting_round_trips_through_bash() {
    let dir = tempfile::tempdir().unwrap();
    let mut shell = Shell::fresh(config(dir.path()));
    for word in ["plain", "", "it's", "a b\nc", "$HOME `x` \"q\""] {
        let out = shell.run(&format!("printf %s {}", quote(word))).unwrap();
        assert_eq!(out.output, word);
    }
}
