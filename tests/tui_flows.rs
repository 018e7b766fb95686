//! Key flows through the real keymap, on the fixture run, headless: what a person types and
//! what they then see.

#[path = "support/tui.rs"]
mod tui;

use trajscope::tui::document::Page;
use trajscope::tui::effect::Effect;
use trajscope::tui::harness::Harness;
use trajscope::tui::keymap::parse_keys;
use trajscope::tui::msg::Msg;
use trajscope::tui::state::{Screen, Size, State};
use trajscope::tui::update::{start, update};
use tui::keys;

fn step(h: &Harness) -> Option<usize> {
    h.state.trajectory.as_ref().and_then(|t| t.step_index())
}

fn page(h: &Harness) -> Option<Page> {
    h.state.trajectory.as_ref().map(|t| t.page)
}

#[test]
fn the_newcomer_flow() {
    // Open the run, open the first trajectory, find the syntax error, read the exact context
    // of that step, view the final patch, go back, quit.
    let mut h = tui::open(120, 40);
    assert!(h.text().contains("3 trajectories"));
    keys(&mut h, "<CR>");
    assert_eq!(h.state.screen, Screen::Trajectory);
    assert!(h.text().contains("astropy__astropy-12907 · swe-agent 1.1+"));

    keys(&mut h, "/SyntaxError<CR>");
    assert_eq!(step(&h), Some(3));
    assert!(h.text().contains("E999 SyntaxError: invalid syntax"));

    keys(&mut h, "c");
    assert_eq!(page(&h), Some(Page::Context));
    let text = h.text();
    assert!(text.contains("Model input at step 3  EXACT"), "{text}");

    keys(&mut h, "p");
    assert!(h.text().contains("Final patch · 1 file · +1 -1"));

    keys(&mut h, "q");
    assert_eq!(h.state.screen, Screen::Run);
    keys(&mut h, "q");
    assert!(h.state.quit);
}

#[test]
fn search_then_n_moves_through_hits_across_steps() {
    // "error" (smart case: any case) is in steps 2 (ModelDefinitionError) and 3 (the linter).
    let mut h = tui::open(100, 30);
    keys(&mut h, "<CR>/error<CR>");
    assert_eq!(step(&h), Some(2));
    let text = h.text();
    assert!(text.contains("/error 1/"), "{text}");
    keys(&mut h, "n");
    assert_eq!(step(&h), Some(3));
    keys(&mut h, "N");
    assert_eq!(step(&h), Some(2));
}

#[test]
fn errors_tools_and_trajectories_by_key() {
    let mut h = tui::open(100, 30);
    keys(&mut h, "<CR>e");
    assert_eq!(step(&h), Some(3), "the linter's syntax error");
    keys(&mut h, "t");
    assert_eq!(step(&h), Some(4), "the next `edit`");
    keys(&mut h, "]");
    let t = h.state.trajectory.as_ref().unwrap();
    assert_eq!(t.title, "django__django-11099");
    keys(&mut h, "e");
    assert_eq!(step(&h), Some(2), "the traceback");
    assert!(h.text().contains("OBSERVATION · python traceback"));
    keys(&mut h, "[");
    assert_eq!(
        h.state.trajectory.as_ref().unwrap().title,
        "astropy__astropy-12907"
    );
}

#[test]
fn copy_and_editor_keys_take_what_is_shown() {
    let mut h = tui::open(100, 30);
    keys(&mut h, "<CR>jjjjy");
    let (what, text) = h.copied.last().unwrap().clone();
    assert_eq!(what, "action of step 5");
    assert_eq!(text, "python reproduce.py");
    keys(&mut h, "Y");
    let (_, observation) = h.copied.last().unwrap().clone();
    assert!(
        !observation.contains('\u{1b}'),
        "the clipboard gets sanitised text"
    );
    assert!(h.text().contains("copied observation of step 5"));
    keys(&mut h, "co");
    let (name, text) = h.edited.last().unwrap();
    assert_eq!(name, "astropy__astropy-12907-context-at-step-5.txt");
    assert!(text.starts_with("Context at step 5 (exact)"));
}

#[test]
fn run_wide_search_opens_the_trajectory_at_the_step() {
    let mut h = tui::open(100, 30);
    keys(&mut h, "<C-f>ValidationError<CR>");
    let text = h.text();
    assert!(text.contains("django__django-11099  1 step"), "{text}");
    keys(&mut h, "j<CR>");
    assert_eq!(h.state.screen, Screen::Trajectory);
    assert_eq!(
        h.state.trajectory.as_ref().unwrap().title,
        "django__django-11099"
    );
    assert_eq!(step(&h), Some(2));
    assert!(h.text().contains("/ValidationError"));
}

#[test]
fn fuzzy_finders_by_key() {
    let mut h = tui::open(100, 30);
    keys(&mut h, "<C-p>sympy<CR>");
    assert_eq!(
        h.state.trajectory.as_ref().unwrap().title,
        "sympy__sympy-20590"
    );
    keys(&mut h, "fpytets<CR>");
    assert_eq!(step(&h), Some(3));
}

#[test]
fn plain_text_shows_until_the_highlighted_page_arrives() {
    // Drive update by hand and hold back the document build: the step is still readable.
    let mut state = State::new(
        vec![tui::run_dir()],
        trajscope::tui::config::Config::default(),
        Size {
            width: 100,
            height: 30,
        },
    );
    let mut pending: Vec<Effect> = start(&mut state);
    let mut held = Vec::new();
    let mut typed = parse_keys("<CR>jjjj").unwrap().into_iter();
    loop {
        while let Some(effect) = pending.pop() {
            let msgs = match effect {
                Effect::BuildDocument(request) => {
                    held.push(request);
                    continue;
                }
                load @ Effect::LoadRun { .. } => {
                    let (tx, rx) = std::sync::mpsc::channel();
                    let never = std::sync::atomic::AtomicBool::new(false);
                    trajscope::tui::job::run(load, &|msg| tx.send(msg).is_ok(), &never, None);
                    rx.try_iter().collect()
                }
                Effect::LoadTrajectory {
                    id,
                    source,
                    lazy_above,
                } => {
                    vec![trajscope::tui::job::load_trajectory(
                        id, &source, lazy_above,
                    )]
                }
                // Nothing is written to the run while this test reads it.
                Effect::Watch { .. } => continue,
                Effect::LoadLabels { roots } => vec![trajscope::tui::job::labels::load(&roots)],
                other => panic!("unexpected {other:?}"),
            };
            for msg in msgs {
                pending.extend(update(&mut state, msg));
            }
        }
        match typed.next() {
            Some(key) => pending.extend(update(&mut state, Msg::Key(key))),
            None => break,
        }
    }
    assert!(!held.is_empty(), "pages were asked for");
    assert_eq!(state.documents.len(), 0, "and none was built");
    let mut h = Harness::with_state(state);
    let text = h.text();
    assert!(text.contains("Step 5/6 · python"), "{text}");
    assert!(text.contains("[[ True False]"));
    assert!(!text.contains('\u{1b}'));
}

#[test]
fn resizing_rebuilds_for_the_new_width() {
    let mut h = tui::open(120, 40);
    keys(&mut h, "<CR>j");
    h.resize(80, 24);
    let text = h.text();
    assert_eq!(text.lines().count(), 24);
    assert!(
        text.lines()
            .all(|l| unicode_width::UnicodeWidthStr::width(l) <= 80)
    );
    assert!(text.contains("Step 2/6 · open"));
}

#[test]
fn a_trajectory_without_steps_says_so() {
    use trajscope::model::{Format, Trajectory, TrajectorySummary};
    use trajscope::tui::msg::FileOutcome;
    use trajscope::tui::state::trajectory::LoadedTrajectory;
    let state = State::new(
        vec!["run".into()],
        trajscope::tui::config::Config::default(),
        Size {
            width: 100,
            height: 30,
        },
    );
    let mut h = Harness::with_state(state);
    let summary = TrajectorySummary::of(&Trajectory::new("run/empty.json", Format::ChatMessages));
    h.send(Msg::RunFile {
        bytes: 1,
        outcome: FileOutcome::Trajectories(vec![summary]),
    });
    keys(&mut h, "<CR>");
    let id = h.state.trajectory.as_ref().unwrap().id;
    let mut empty = Trajectory::new("run/empty.json", Format::ChatMessages);
    empty.task = Some("Say hello.".into());
    h.send(Msg::TrajectoryLoaded {
        id,
        result: Ok(Box::new(LoadedTrajectory::new(empty))),
    });
    assert!(h.text().contains("This log holds no steps"));
    keys(&mut h, "jkeEtT/x<CR>nyYc");
    assert!(
        h.text().contains("This log holds no steps"),
        "nothing breaks on an empty list"
    );
    keys(&mut h, "i");
    assert!(h.text().contains("Say hello."));
}

#[test]
fn a_second_opening_lists_the_run_from_the_run_cache() {
    // The harness loads through the run cache as the app does (its own cache, not the
    // user's). A file overwritten with garbage of the same size and modification time is
    // still listed as it was by a second app that keeps the first one's cache, which proves
    // the file was not read; an app without that cache reads it and cannot.
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(tui::run_dir()).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
    }
    let roots = [dir.path().to_path_buf()];
    let config = trajscope::tui::config::Config::default;
    let mut first = Harness::open(&roots, config(), 120, 40);
    let listed = first.text();
    assert!(listed.contains("1 file could not be read"), "{listed}");

    let file = dir.path().join("sympy__sympy-20590.traj");
    let meta = std::fs::metadata(&file).unwrap();
    std::fs::write(&file, vec![b'x'; meta.len() as usize]).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(meta.modified().unwrap())
        .unwrap();

    let mut second = first.reopen(config());
    assert_eq!(second.text(), listed, "listed from the cache, not read");
    let mut cold = Harness::open(&roots, config(), 120, 40);
    let text = cold.text();
    assert!(text.contains("2 files could not be read"), "{text}");
    assert!(!text.contains("sympy__sympy-20590"), "{text}");
}
