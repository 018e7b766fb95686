use super::*;
use crate::replay::action::swe_command;
use serde_json::json;
use std::path::Path;
use std::process::Command;

fn git_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new("bash")
        .arg("-c")
        .arg(
            "git init -q -b main . && mkdir -p pkg && printf 'def half(x):\\n    return x // 2\\n' > pkg/calc.py \
             && git add -A && git -c user.name=t -c user.email=t@e commit -q -m init",
        )
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    dir
}

fn executor(agent: Agent, repo: &Path, root: &str) -> Executor {
    let ws = Workspace::create(repo).unwrap();
    let mut dialect = Dialect::new(agent);
    dialect.generation = Generation::V0;
    Executor::new(dialect, Sandbox::Scratch(ws), Some(root), Limits::default()).unwrap()
}

fn shell(c: &str) -> EnvAction {
    EnvAction::Shell { command: c.into() }
}

#[test]
fn mini_swe_agent_fresh_shells_with_recorded_paths() {
    let repo = git_repo();
    let mut ex = executor(Agent::MiniSweAgent, repo.path(), "/testbed");
    let obs = ex
        .execute(&shell("cd /testbed && pwd && cat pkg/calc.py"))
        .unwrap();
    assert_eq!(
        obs.text,
        "<returncode>0</returncode>\n<output>\n/testbed\ndef half(x):\n    return x // 2\n</output>"
    );
    let obs = ex
        .execute(&shell(
            "sed -i 's#//#/#' pkg/calc.py && python3 -c 'import pkg.calc as c; print(c.half(7))'",
        ))
        .unwrap();
    assert_eq!(
        obs.text,
        "<returncode>0</returncode>\n<output>\n3.5\n</output>"
    );
    let obs = ex.execute(&shell("cat missing.py")).unwrap();
    assert!(obs.is_error);
    assert_eq!(
        obs.text,
        "<returncode>1</returncode>\n<output>\ncat: missing.py: No such file or directory\n</output>"
    );
    let obs = ex
        .execute(&shell(
            "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached",
        ))
        .unwrap();
    let patch = obs.submitted.unwrap();
    assert!(
        patch.starts_with("diff --git a/pkg/calc.py b/pkg/calc.py"),
        "{patch}"
    );
    assert!(patch.contains("+    return x / 2"));
    // The user's repository is untouched.
    assert!(
        std::fs::read_to_string(repo.path().join("pkg/calc.py"))
            .unwrap()
            .contains("x // 2")
    );
}

#[test]
fn swe_agent_session_windowed_tools_and_submit() {
    let repo = git_repo();
    let root = "/marshmallow-code__marshmallow";
    let mut ex = executor(Agent::SweAgent, repo.path(), root);
    let obs = ex.execute(&swe_command("create reproduce.py\n")).unwrap();
    assert_eq!(
        obs.text,
        format!("[File: {root}/reproduce.py (1 lines total)]\n1:\n")
    );
    assert_eq!(obs.support, Support::Native("create".into()));
    let obs = ex
        .execute(&swe_command(
            "edit 1:1\nfrom pkg.calc import half\nprint(half(7))\nend_of_edit\n",
        ))
        .unwrap();
    assert!(
        obs.text.ends_with("Edit the file again if necessary.\n"),
        "{}",
        obs.text
    );
    let obs = ex.execute(&swe_command("python3 reproduce.py\n")).unwrap();
    assert_eq!(obs.text, "3\n");
    // State persists in the session: `cd` then a relative `open`.
    ex.execute(&swe_command("cd pkg")).unwrap();
    let obs = ex.execute(&swe_command("open calc.py")).unwrap();
    assert!(
        obs.text
            .starts_with(&format!("[File: {root}/pkg/calc.py (2 lines total)]"))
    );
    let obs = ex
        .execute(&swe_command(
            "find_file calc.py /marshmallow-code__marshmallow",
        ))
        .unwrap();
    assert_eq!(
        obs.text,
        format!("Found 1 matches for \"calc.py\" in {root}:\n{root}/pkg/calc.py\n")
    );
    let obs = ex.execute(&swe_command("submit")).unwrap();
    let patch = obs.submitted.unwrap();
    assert!(patch.contains("+++ b/reproduce.py"), "{patch}");
    assert!(obs.text.starts_with("\ndiff --git"));
}

#[test]
fn unsupported_tools_are_reported_not_run() {
    let repo = git_repo();
    let mut ex = executor(Agent::SweAgent, repo.path(), "/r");
    let obs = ex
        .execute(&EnvAction::tool(
            "rover_search_class",
            json!({"class_name": "X"}),
        ))
        .unwrap();
    assert!(matches!(obs.support, Support::Unsupported(_)));
    assert!(obs.text.contains("not replayable"));
    let compound = shell("cd src && open a.py");
    assert!(matches!(
        support(ex.dialect(), &compound),
        Support::Unsupported(_)
    ));
    assert_eq!(
        support(ex.dialect(), &shell("ls && cat a.py")),
        Support::Shell
    );
}

/// `--exec-prefix`: everything goes through the launcher (here `env`, which adds nothing), in
/// the recorded root, with no copy and no mapping.
#[test]
fn container_mode_runs_through_the_launcher() {
    let repo = git_repo();
    let root = repo
        .path()
        .canonicalize()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let mut dialect = Dialect::new(Agent::OpenHands);
    dialect.persistent_shell = true;
    let mut ex = Executor::new(
        dialect,
        Sandbox::Container {
            launcher: vec!["env".into()],
        },
        Some(&root),
        Limits::default(),
    )
    .unwrap();
    assert!(ex.describe().contains("no copy"));
    let obs = ex.execute(&shell("pwd")).unwrap();
    assert_eq!(obs.text, format!("{root}\n"));
    let file = format!("{root}/pkg/calc.py");
    let obs = ex
        .execute(&EnvAction::tool(
            "str_replace_editor",
            json!({"command": "str_replace", "path": file, "old_str": "x // 2", "new_str": "x / 2"}),
        ))
        .unwrap();
    assert!(
        obs.text
            .starts_with(&format!("The file {file} has been edited.")),
        "{}",
        obs.text
    );
    assert!(std::fs::read_to_string(&file).unwrap().contains("x / 2"));
    let err = Executor::new(
        Dialect::new(Agent::OpenHands),
        Sandbox::Container {
            launcher: vec!["env".into()],
        },
        None,
        Limits::default(),
    );
    assert!(matches!(err, Err(ExecError::NoRoot)));
}

#[test]
fn native_tools_refuse_paths_outside_the_workspace() {
    let repo = git_repo();
    let mut ex = executor(Agent::OpenHands, repo.path(), "/testbed");
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("x.txt");
    let args =
        json!({"command": "create", "path": outside.to_string_lossy(), "file_text": "pwned"});
    let call = EnvAction::Tool {
        name: "str_replace_editor".into(),
        args: args.as_object().unwrap().clone(),
    };
    let obs = ex.execute(&call).unwrap();
    assert!(obs.is_error, "{}", obs.text);
    assert!(!outside.exists());
    assert_eq!(
        obs.text,
        format!(
            "[trajscope: refused: {} is outside the workspace /testbed; str_replace_editor may only read and write files inside it]",
            outside.display()
        )
    );
    // `..` out of the recorded root is refused the same way; inside it still works.
    let args = json!({"command": "create", "path": "/testbed/../escaped.txt", "file_text": "x"});
    let obs = ex
        .execute(&EnvAction::Tool {
            name: "str_replace_editor".into(),
            args: args.as_object().unwrap().clone(),
        })
        .unwrap();
    assert!(
        obs.text.contains("is outside the workspace"),
        "{}",
        obs.text
    );
    let args = json!({"command": "create", "path": "/testbed/new.py", "file_text": "x = 1\n"});
    let obs = ex
        .execute(&EnvAction::Tool {
            name: "str_replace_editor".into(),
            args: args.as_object().unwrap().clone(),
        })
        .unwrap();
    assert!(!obs.is_error, "{}", obs.text);
    let root = ex.workspace().unwrap().root().to_path_buf();
    assert!(root.join("new.py").exists());
}

/// SWE-agent's one long-lived shell, under bubblewrap: `cd` persists between commands, the
/// scratch copy is writable, the rest is not, and a background process ends with the session.
#[test]
fn a_session_shell_runs_in_bubblewrap() {
    use crate::replay::sandbox::{Bubblewrap, Policy};
    let policy = Policy::default();
    let Ok(bwrap) = Bubblewrap::find(&policy) else {
        eprintln!("skipping: bwrap is not installed or does not work here");
        return;
    };
    let repo = git_repo();
    let ws = Workspace::create(repo.path()).unwrap();
    let root = ws.root().to_path_buf();
    let source = ws.source().to_path_buf();
    let launcher = bwrap.launcher(&root, &[source], &policy);
    let mut dialect = Dialect::new(Agent::SweAgent);
    dialect.generation = Generation::V0;
    let mut ex = Executor::new(
        dialect,
        Sandbox::Isolated {
            workspace: ws,
            launcher,
        },
        Some("/testbed"),
        Limits::default(),
    )
    .unwrap();
    assert!(ex.describe().contains("sandbox: bubblewrap"));
    let obs = ex.execute(&shell("cd pkg && echo hi > made.txt")).unwrap();
    assert!(!obs.is_error, "{}", obs.text);
    let obs = ex.execute(&shell("pwd; git status --short")).unwrap();
    assert!(obs.text.contains("/testbed/pkg"), "{}", obs.text);
    assert!(obs.text.contains("made.txt"), "{}", obs.text);
    assert!(root.join("pkg/made.txt").exists());
    let obs = ex
        .execute(&shell("echo x > /etc/trajscope-test || echo refused"))
        .unwrap();
    assert!(obs.text.contains("Read-only file system"), "{}", obs.text);
    assert!(!Path::new("/etc/trajscope-test").exists());
    let marker = format!("88.{}", std::process::id());
    ex.execute(&shell(&format!(
        "setsid nohup sleep {marker} > /dev/null 2>&1 &"
    )))
    .unwrap();
    drop(ex);
    std::thread::sleep(std::time::Duration::from_millis(300));
    let alive = std::fs::read_dir("/proc").unwrap().flatten().any(|e| {
        std::fs::read(e.path().join("cmdline"))
            .is_ok_and(|c| String::from_utf8_lossy(&c).contains(&format!("sleep\0{marker}")))
    });
    assert!(!alive, "the background sleep outlived the session");
}
