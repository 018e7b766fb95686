//! Buffer snapshots of every view of the terminal app, on the fixture run, at 80x24 and
//! 120x40. Each test says what its snapshot must show and asserts the key facts too, so a
//! snapshot accepted by mistake still fails.

#[path = "support/big_session.rs"]
mod big_session;
#[path = "support/tui.rs"]
mod tui;

use trajscope::tui::harness::Harness;
use tui::keys;

fn both_sizes(name: &str, setup: impl Fn(&mut Harness), check: impl Fn(&str)) {
    for (w, h) in [(80, 24), (120, 40)] {
        let mut harness = tui::open(w, h);
        setup(&mut harness);
        let text = harness.text();
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), text);
        check(&text);
    }
}

#[test]
fn run_view() {
    // The table of the three readable trajectories, sorted by instance, with the summary line
    // (1 of 3 resolved, total cost) and the unreadable file announced.
    both_sizes(
        "run",
        |_| {},
        |text| {
            assert!(
                text.contains(
                    "3 trajectories · resolved 1/3 (33%) · from results.json · cost $2.47"
                ),
                "{text}"
            );
            assert!(text.contains("1 file could not be read · ! lists"));
            let astropy = text.find("astropy__astropy-12907").unwrap();
            let django = text.find("django__django-11099").unwrap();
            assert!(astropy < django);
            assert!(text.contains("✓ yes") && text.contains("✗ no"));
        },
    );
}

#[test]
fn run_view_sorted_by_cost_and_filtered() {
    // `s` five times: instance → format → steps → exit → resolved → cost (biggest first).
    both_sizes(
        "run_sorted_filtered",
        |h| keys(h, "sssss/exit:submitted<CR>"),
        |text| {
            assert!(text.contains("cost▼"), "{text}");
            assert!(
                text.contains("2 of 3 trajectories (filter: exit:submitted)"),
                "{text}"
            );
            let astropy = text.find("astropy__astropy-12907").unwrap();
            let django = text.find("django__django-11099").unwrap();
            assert!(astropy < django, "the $0.42 run comes before the $0.05 one");
            assert!(
                !text.contains("sympy__sympy-20590"),
                "exit_cost is filtered out"
            );
        },
    );
}

#[test]
fn trajectory_view_at_the_syntax_error() {
    // Opened from the run, `/SyntaxError` jumps to step 3: the list marks it as an error and a
    // hit, the right pane shows its thought, action and the linter's observation, and the
    // status bar counts the hit.
    both_sizes(
        "trajectory_search",
        |h| keys(h, "<CR>/SyntaxError<CR>"),
        |text| {
            assert!(text.contains("step 3/6"), "{text}");
            assert!(text.contains("── OBSERVATION · 12 lines"));
            assert!(text.contains("E999 SyntaxError: invalid syntax"));
            assert!(text.contains("/SyntaxError 1/1 in 1 step"));
            assert!(text.contains("✓ resolved"));
        },
    );
}

#[test]
fn context_page_is_marked_exact() {
    both_sizes(
        "context",
        |h| keys(h, "<CR>jjc"),
        |text| {
            assert!(
                text.contains("Model input at step 3  EXACT  6 messages"),
                "{text}"
            );
            assert!(text.contains("[1] system"));
            assert!(text.contains("[2] user"));
        },
    );
}

#[test]
fn context_page_is_marked_reconstructed_for_old_logs() {
    // sympy's SWE-agent 0.x log stores no model inputs: rebuilt from the history, and said so.
    both_sizes(
        "context_reconstructed",
        |h| keys(h, "G<CR>Gc"),
        |text| {
            assert!(
                text.contains("Model input at step 3  RECONSTRUCTED"),
                "{text}"
            );
            assert!(text.contains("what the model saw"));
        },
    );
}

#[test]
fn patch_page() {
    both_sizes(
        "patch",
        |h| keys(h, "<CR>p"),
        |text| {
            assert!(text.contains("Final patch · 1 file · +1 -1"), "{text}");
            assert!(text.contains("+        cright[-right.shape[0]:,"));
            assert!(text.contains("= right"));
            assert!(
                !text.contains("│-right"),
                "a wrapped + line must not read as a - line"
            );
        },
    );
}

#[test]
fn patch_page_without_a_patch() {
    both_sizes(
        "patch_none",
        |h| keys(h, "G<CR>p"),
        |text| {
            assert!(
                text.contains("No patch was submitted (exit status: exit_cost)."),
                "{text}"
            );
        },
    );
}

#[test]
fn task_page() {
    both_sizes(
        "task",
        |h| keys(h, "<CR>i"),
        |text| {
            assert!(text.contains("── TASK"), "{text}");
            assert!(text.contains("Consider the following model:"));
            assert!(text.contains("gpt-4o-2024-08-06"));
        },
    );
}

#[test]
fn a_long_observation_is_folded() {
    // Step 2 opens a 91-line file: 40 lines, a fold marker, the last 20. The line of rules it
    // matched takes the pane's top row: three rows up from the end show the marker.
    both_sizes(
        "folded",
        |h| keys(h, "<CR>j<End>KKK"),
        |text| {
            assert!(
                text.contains("··· 31 lines folded · z unfolds ···"),
                "{text}"
            );
        },
    );
}

#[test]
fn escape_sequences_in_an_observation_are_harmless() {
    // Step 5 prints colours, a progress bar redrawn with \r, a window-title OSC and a
    // clear-screen: only the text a terminal would show remains.
    both_sizes(
        "ansi_observation",
        |h| keys(h, "<CR>jjjj"),
        |text| {
            assert!(text.contains("Step 5/6 · python"), "{text}");
            assert!(text.contains("[[ True False]"));
            assert!(text.contains("100%ing 10%"));
            assert!(!text.contains('\u{1b}'));
            assert!(!text.contains("pwned title"));
        },
    );
}

#[test]
fn help_overlay() {
    both_sizes(
        "help",
        |h| keys(h, "<CR>?"),
        |text| {
            assert!(text.contains("Keys · esc closes"), "{text}");
            assert!(text.contains("Trajectory (steps on the left"));
            assert!(text.contains("next step with an error"));
        },
    );
}

#[test]
fn trajectory_finder() {
    both_sizes(
        "finder_trajectories",
        |h| keys(h, "fdj"),
        |text| {
            assert!(text.contains("Find a trajectory · 1/3"), "{text}");
            assert!(text.contains("> dj"));
            assert!(text.contains("django__django-11099"));
        },
    );
}

#[test]
fn step_finder() {
    both_sizes(
        "finder_steps",
        |h| keys(h, "<CR>fedit"),
        |text| {
            assert!(text.contains("Find a step · "), "{text}");
            assert!(text.contains("3 ✗ edit  245:245"));
        },
    );
}

#[test]
fn run_wide_search() {
    both_sizes(
        "grep",
        |h| keys(h, "<C-f>error<CR>"),
        |text| {
            assert!(
                text.contains("Search all trajectories for \"error\""),
                "{text}"
            );
            assert!(text.contains("searched 3 files"));
            assert!(text.contains("astropy__astropy-12907"));
            assert!(text.contains("sympy__sympy-20590") || text.contains("django__django-11099"));
        },
    );
}

#[test]
fn failures_overlay() {
    both_sizes(
        "failures",
        |h| keys(h, "!"),
        |text| {
            assert!(text.contains("Files that could not be read · 1"), "{text}");
            assert!(text.contains("broken.traj:1:84: unexpected end of JSON"));
        },
    );
}

#[test]
fn light_theme_with_styles() {
    // The one snapshot with colours: the trajectory view in the light theme. The error step
    // and the search hit must carry the light theme's red and highlight.
    let mut h = tui::open_with(tui::light(), 80, 24);
    keys(&mut h, "<CR>/SyntaxError<CR>");
    let buffer = h.render().clone();
    let hit = (0..buffer.area.height)
        .flat_map(|y| (0..buffer.area.width).map(move |x| (x, y)))
        .find(|&(x, y)| {
            buffer[(x, y)].symbol() == "S"
                && buffer[(x + 1, y)].symbol() == "y"
                && buffer[(x + 6, y)].symbol() == "E"
                && x > 30
        })
        .expect("the hit on screen");
    assert_eq!(
        buffer[hit].bg,
        ratatui::style::Color::Rgb(0xbc, 0x4c, 0x00),
        "current hit colour"
    );
    insta::assert_debug_snapshot!("trajectory_light_80x24", buffer);
}

/// A state on a run that is still loading, or with a trajectory delivered from memory.
mod built {
    use trajscope::model::{Format, Step, Trajectory, TrajectorySummary};
    use trajscope::tui::config::Config;
    use trajscope::tui::harness::Harness;
    use trajscope::tui::msg::{FileOutcome, Msg};
    use trajscope::tui::state::trajectory::LoadedTrajectory;
    use trajscope::tui::state::{Size, State};

    pub fn summary(id: &str) -> TrajectorySummary {
        let mut s =
            TrajectorySummary::of(&Trajectory::new(format!("run/{id}.traj"), Format::SweAgent));
        s.format_detail = Some("0.x".into());
        s.steps = 4;
        s.exit_status = Some("submitted".into());
        s
    }

    pub fn harness(width: u16, height: u16) -> Harness {
        let state = State::new(
            vec!["run".into()],
            Config::default(),
            Size { width, height },
        );
        Harness::with_state(state)
    }

    pub fn file(h: &mut Harness, id: &str) {
        h.send(Msg::RunFile {
            bytes: 1_000_000,
            outcome: FileOutcome::Trajectories(vec![summary(id)]),
        });
    }

    /// A CodeR-style trajectory: four agents taking turns.
    pub fn multi_agent() -> LoadedTrajectory {
        let mut t = Trajectory::new("run/coder.traj", Format::SweAgent);
        t.format_detail = Some("0.x".into());
        for (i, agent) in ["Manager", "Reproducer", "Programmer", "Tester"]
            .iter()
            .enumerate()
        {
            t.steps.push(Step {
                agent: Some(agent.to_string()),
                thought: format!("{agent} takes over."),
                action: format!("plan_{i}"),
                tool: Some(format!("plan_{i}")),
                observation: "ok".into(),
                ..Step::default()
            });
        }
        t.number_steps();
        LoadedTrajectory::new(t)
    }
}

#[test]
fn a_big_run_shows_progress_while_it_fills_in() {
    // 2 of 1,000 files read: the two rows are there, and the gauge says how far loading is.
    for (w, h) in [(80, 24), (120, 40)] {
        let mut harness = built::harness(w, h);
        harness.send(trajscope::tui::msg::Msg::RunDiscovered {
            files: 1000,
            bytes: 1_000_000_000,
            failures: Vec::new(),
        });
        built::file(&mut harness, "b__b-2");
        built::file(&mut harness, "a__a-1");
        let text = harness.text();
        insta::assert_snapshot!(format!("loading_{w}x{h}"), text);
        assert!(text.contains("loading 2/1000 files 1.9 MB"), "{text}");
        assert!(text.find("a__a-1").unwrap() < text.find("b__b-2").unwrap());
    }
}

#[test]
fn several_agents_are_named_in_the_step_list() {
    for (w, h) in [(80, 24), (120, 40)] {
        let mut harness = built::harness(w, h);
        built::file(&mut harness, "coder");
        keys(&mut harness, "<CR>");
        let id = harness.state.trajectory.as_ref().unwrap().id;
        harness.send(trajscope::tui::msg::Msg::TrajectoryLoaded {
            id,
            result: Ok(Box::new(built::multi_agent())),
        });
        let text = harness.text();
        insta::assert_snapshot!(format!("multi_agent_{w}x{h}"), text);
        assert!(
            text.contains("Reproduc") && text.contains("Tester"),
            "{text}"
        );
        assert!(text.contains("Step 1/4 · Manager · plan_0"));
    }
}

#[test]
fn a_big_session_shows_its_first_steps_while_it_is_indexed() {
    // A 6 MB session opened alone with lazy_above_mb = 1: its first steps arrive first (the
    // loader sends them before reading the rest), and the header says the count is a floor
    // and how far the index is; once it is done, the count is the whole file's and the
    // same step is still shown.
    use trajscope::tui::effect::Effect;
    use trajscope::tui::msg::Msg;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    big_session::write(&path, 6 << 20);
    let config = trajscope::tui::config::Config::parse(
        "[options]\nlazy_above_mb = 1\n",
        std::path::Path::new("t.toml"),
        None,
    );
    let roots = vec![path.clone()];
    let opening = trajscope::tui::job::opening(&roots, config.options.lazy_above);
    let size = trajscope::tui::state::Size {
        width: 120,
        height: 40,
    };
    let mut state = trajscope::tui::state::State::with_opening(roots, config, size, opening);
    let effects = trajscope::tui::update::start(&mut state);
    let mut msgs = Vec::new();
    let mut later = Vec::new();
    for effect in effects {
        let sent = std::sync::Mutex::new(Vec::new());
        let send = |msg: Msg| {
            sent.lock().unwrap().push(msg);
            true
        };
        let never = std::sync::atomic::AtomicBool::new(false);
        let is_load = matches!(effect, Effect::LoadTrajectory { .. });
        if is_load || matches!(effect, Effect::LoadRun { .. }) {
            trajscope::tui::job::run(effect, &send, &never, None);
        }
        let sent = sent.into_inner().unwrap();
        if is_load {
            later = sent;
        } else {
            msgs.extend(sent);
        }
    }
    let mut h = Harness::with_state(state);
    for msg in msgs {
        h.send(msg);
    }
    let mut later = later.into_iter();
    let first = later.next().unwrap();
    assert!(matches!(first, Msg::TrajectoryStarted { .. }), "{first:?}");
    h.send(first);
    let progress = later
        .by_ref()
        .find(|m| matches!(m, Msg::TrajectoryIndexing { read, total, .. } if read * 100 / total >= 40))
        .unwrap();
    h.send(progress);
    keys(&mut h, "j");
    let text = h.text();
    insta::assert_snapshot!("first_steps_while_indexing_120x40", text);
    assert!(text.contains("steps · indexing 4"), "{text}");
    assert!(text.contains("Step 2/"), "{text}");
    let floor = text.split("Step 2/").nth(1).unwrap();
    assert!(
        floor.split_whitespace().next().unwrap().ends_with('+'),
        "{text}"
    );
    for msg in later {
        h.send(msg);
    }
    let text = h.text();
    assert!(!text.contains("indexing"), "{text}");
    let t = h.state.trajectory.as_ref().unwrap();
    let count = t.trajectory.as_ref().unwrap().step_count();
    assert_eq!(t.step_index(), Some(2), "still on the step read");
    assert!(
        text.contains(&format!("{count} steps")) && text.contains(&format!("Step 2/{count} ")),
        "{text}"
    );
}
