//! Frame cost of every view at 200x60 into ratatui's TestBackend, on a 1,000-trajectory run
//! and a 2,000-step trajectory, and the cost of a keystroke (update + frame) while the
//! highlighted page is still being built. The budget to compare with is one frame at 60 Hz
//! (16.7 ms); the page build itself runs in a task and is measured separately.
//!
//!     cargo bench --bench render

// Setup that fails is a broken benchmark: panicking with the reason is the right outcome.
#![allow(clippy::expect_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::atomic::AtomicBool;
use trajscope::model::{
    Exactness, Format, Message, Step, StepContext, Trajectory, TrajectoryHeader, TrajectorySummary,
    Usage,
};
use trajscope::tui::config::Config;
use trajscope::tui::effect::Effect;
use trajscope::tui::harness::Harness;
use trajscope::tui::keymap::parse_keys;
use trajscope::tui::msg::{FileOutcome, Msg};
use trajscope::tui::state::trajectory::LoadedTrajectory;
use trajscope::tui::state::{Size, State};
use trajscope::tui::update::update;

const W: u16 = 200;
const H: u16 = 60;

fn summary(i: usize) -> TrajectorySummary {
    let format = if i.is_multiple_of(3) {
        Format::MiniSweAgent
    } else {
        Format::SweAgent
    };
    let mut header = TrajectoryHeader::new(format!("run/repo__repo-{i:05}.traj"), format);
    header.model = Some("gpt-4o".into());
    header.exit_status = Some(["submitted", "exit_cost", "exit_format"][i % 3].into());
    header.resolved = Some(i.is_multiple_of(4));
    TrajectorySummary {
        header,
        steps: 10 + i % 90,
        forced_exit: None,
        usage: Usage {
            cost: Some(0.01 * (i % 50) as f64),
            tokens_in: Some(1000 * i as u64),
            tokens_out: Some(50 * i as u64),
            api_calls: Some(20),
            ..Usage::default()
        },
        patch_lines: i % 40,
        error_steps: i % 7,
        warnings: Vec::new(),
        fork_of: None,
        parent: None,
    }
}

/// A long trajectory with the shapes that cost: Python source, tracebacks, diffs, long
/// outputs, and a context that grows by two messages per step.
fn long_trajectory(steps: usize) -> Trajectory {
    let mut t = Trajectory::new("run/repo__repo-00000.traj", Format::SweAgent);
    t.task = Some("Fix the bug in the parser.\n".repeat(20));
    t.push_message(Message::system(
        "You are an autonomous programmer.\n".repeat(50),
    ));
    t.push_message(Message::user(t.task.clone().unwrap_or_default()));
    for i in 1..=steps {
        let (action, observation) = match i % 5 {
            0 => (
                "python reproduce.py".to_string(),
                format!(
                    "Traceback (most recent call last):\n{}ValueError: step {i}\n",
                    "  File \"/repo/x.py\", line 10, in f\n    return g(x)\n".repeat(30)
                ),
            ),
            1 => (
                format!("cat -n src/module_{i}.py"),
                (1..=400)
                    .map(|n| format!("{n:>6}\tdef function_{n}(x, y):  # returns x + y * {n}"))
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            2 => (
                "git diff".to_string(),
                "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n-a = 1\n+a = 2\n b = 3\n"
                    .repeat(20),
            ),
            3 => ("ls -la".to_string(), "drwxr-xr-x 2 root root 4096 file.txt\n".repeat(40)),
            _ => ("grep -rn needle .".to_string(), "src/a.py:12:needle = 1\n".repeat(10)),
        };
        let thought = format!("Step {i}: I will look at the module and run the tests again.");
        t.push_message(Message::assistant(format!("{thought}\n```\n{action}\n```")));
        t.push_message(Message::user(observation.clone()));
        t.steps.push(Step {
            thought,
            action: action.clone(),
            tool: action.split_whitespace().next().map(String::from),
            observation,
            usage: Usage {
                tokens_in: Some(1000 + i as u64),
                tokens_out: Some(80),
                cost: Some(0.002),
                ..Usage::default()
            },
            context: Some(StepContext::prefix(Exactness::Exact, 2 * i)),
            ..Step::default()
        });
    }
    t.submission = Some(
        "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n-a = 1\n+a = 2\n b = 3\n"
            .repeat(50),
    );
    t.number_steps();
    t
}

fn run_state(rows: usize) -> State {
    let mut state = State::new(
        vec!["run".into()],
        Config::default(),
        Size {
            width: W,
            height: H,
        },
    );
    state.run.progress.files_total = Some(rows);
    for i in 0..rows {
        update(
            &mut state,
            Msg::RunFile {
                bytes: 1,
                outcome: FileOutcome::Trajectories(vec![summary(i)]),
            },
        );
    }
    update(&mut state, Msg::RunLoaded);
    state
}

/// The run, with the first trajectory open on `long_trajectory(steps)`.
fn trajectory_harness(steps: usize) -> Harness {
    let mut state = run_state(1000);
    let effects = press(&mut state, "<CR>");
    let id = effects
        .iter()
        .find_map(|e| match e {
            Effect::LoadTrajectory { id, .. } => Some(*id),
            _ => None,
        })
        .expect("opening asks for the trajectory");
    let mut h = Harness::with_state(state);
    h.send(Msg::TrajectoryLoaded {
        id,
        result: Ok(Box::new(LoadedTrajectory::new(long_trajectory(steps)))),
    });
    h
}

fn press(state: &mut State, keys: &str) -> Vec<Effect> {
    let mut effects = Vec::new();
    for key in parse_keys(keys).expect("valid keys") {
        effects.extend(update(state, Msg::Key(key)));
    }
    effects
}

fn frame(c: &mut Criterion, name: &str, h: &mut Harness) {
    c.bench_function(name, |b| b.iter(|| black_box(h.render().area.width)));
}

fn benches(c: &mut Criterion) {
    // What any frame costs: clearing and diffing a 200x60 buffer, no content.
    let mut blank =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(W, H)).expect("terminal");
    c.bench_function("frame/baseline: an empty 200x60 frame", |b| {
        b.iter(|| {
            let _ = blank.draw(|f| {
                f.render_widget(ratatui::widgets::Block::new(), f.area());
            });
        })
    });

    let mut run = Harness::with_state(run_state(1000));
    frame(c, "frame/run 1000 trajectories", &mut run);
    run.keys("G").expect("keys");
    frame(c, "frame/run 1000 trajectories, at the end", &mut run);
    run.keys("/repo 12<CR>").expect("keys");
    frame(c, "frame/run filtered", &mut run);

    let mut finder = Harness::with_state(run_state(1000));
    finder.keys("<C-p>repo99").expect("keys");
    frame(c, "frame/trajectory finder over 1000", &mut finder);

    let mut h = trajectory_harness(2000);
    h.keys(":1001<CR>").expect("keys");
    frame(
        c,
        "frame/step 1001 of 2000, highlighted page cached",
        &mut h,
    );
    h.keys("j").expect("keys");
    frame(c, "frame/step 1002 (400-line python file), cached", &mut h);
    h.keys("c").expect("keys");
    frame(
        c,
        "frame/context at step 1002 (2004 messages), cached",
        &mut h,
    );
    h.keys("<End>").expect("keys");
    frame(c, "frame/context at step 1002, scrolled to the end", &mut h);
    h.keys("p").expect("keys");
    frame(c, "frame/final patch", &mut h);
    h.keys("?").expect("keys");
    frame(c, "frame/help", &mut h);

    // The UI thread's work for one `j`/`k`: update, then a frame drawn from the plain
    // preview because the highlighted page of the new step is not built yet.
    let mut h = trajectory_harness(2000);
    h.keys(":1001<CR>").expect("keys");
    let mut down = true;
    c.bench_function("keystroke/j or k on 2000 steps, page not built yet", |b| {
        b.iter(|| {
            let key = if down { "j" } else { "k" };
            down = !down;
            let effects = press(&mut h.state, key);
            black_box(effects.len());
            black_box(h.render().area.width)
        })
    });

    // The same with a 50,000-line (2.6 MB) observation on every other step.
    let mut h = trajectory_harness(2000);
    if let Some(t) = h.state.trajectory.as_mut() {
        let mut big = t.trajectory.as_deref().cloned().expect("loaded");
        for step in big.steps.iter_mut().step_by(2) {
            step.observation = (0..50_000)
                .map(|n| format!("\u{1b}[32mtest_{n} PASSED\u{1b}[0m in 0.01s"))
                .collect::<Vec<_>>()
                .join("\n");
        }
        t.trajectory = Some(std::sync::Arc::new(big));
    }
    let mut down = true;
    c.bench_function(
        "keystroke/j or k onto a 50,000-line observation, page not built yet",
        |b| {
            b.iter(|| {
                let key = if down { "j" } else { "k" };
                down = !down;
                black_box(press(&mut h.state, key).len());
                black_box(h.render().area.width)
            })
        },
    );

    let mut state = run_state(1000);
    let mut typed = false;
    c.bench_function("keystroke/typing in the filter over 1000 rows", |b| {
        let mut h = Harness::with_state(std::mem::replace(&mut state, run_state(0)));
        h.keys("/").expect("keys");
        b.iter(|| {
            let key = if typed { "<BS>" } else { "1" };
            typed = !typed;
            press(&mut h.state, key);
            black_box(h.render().area.width)
        })
    });

    // Off the UI thread: building the highlighted page of the 400-line file.
    let h = trajectory_harness(2000);
    let mut state = h.state.clone();
    press(&mut state, ":1002<CR>");
    let request = state.document_request().expect("a page to build");
    c.bench_function("task/highlight and wrap a 400-line python file", |b| {
        b.iter(|| {
            black_box(trajscope::tui::document::build(
                &request,
                trajscope::tui::document::Mode::FULL,
                &AtomicBool::new(false),
            ))
        })
    });
}

criterion_group! {
    name = render;
    config = Criterion::default().sample_size(30).warm_up_time(std::time::Duration::from_millis(500)).measurement_time(std::time::Duration::from_secs(2));
    targets = benches
}
criterion_main!(render);
