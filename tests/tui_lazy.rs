//! The trajectory view on a file opened lazily (`lazy_above_mb = 0` makes every SWE-agent
//! file lazy, as a 200 MB one is by default): the newcomer's flow reads the same as on the
//! whole file, steps come back from the file when shown, and the pages that need the whole
//! trajectory say so instead of showing something wrong.

#[path = "support/tui.rs"]
mod tui;

use std::path::Path;
use trajscope::tui::config::Config;
use trajscope::tui::document::Page;
use trajscope::tui::harness::Harness;
use tui::keys;

fn lazy_config() -> Config {
    let config = Config::parse("[options]\nlazy_above_mb = 0\n", Path::new("t.toml"), None);
    assert!(config.problems.is_empty(), "{:?}", config.problems);
    config
}

fn step(h: &Harness) -> Option<usize> {
    h.state.trajectory.as_ref().and_then(|t| t.step_index())
}

fn is_lazy(h: &Harness) -> bool {
    let t = h
        .state
        .trajectory
        .as_ref()
        .and_then(|t| t.trajectory.as_ref());
    t.is_some_and(|t| t.lazy.is_some())
}

#[test]
fn the_newcomer_flow_reads_the_same_on_a_lazy_file() {
    let mut h = tui::open_with(lazy_config(), 120, 40);
    keys(&mut h, "<CR>");
    assert!(is_lazy(&h), "the SWE-agent file opened lazily");
    let text = h.text();
    assert!(
        text.contains("astropy__astropy-12907 · swe-agent 1.1+ · lazy, 39.4 KB"),
        "{text}"
    );
    assert!(
        text.contains("opened lazily"),
        "the status bar says so: {text}"
    );
    let held = h.state.trajectory.as_ref().unwrap();
    assert!(
        held.trajectory.as_ref().unwrap().steps.is_empty(),
        "no step held"
    );
    assert!(held.steps.len() > 3, "but every step has its row");

    // The step page is read back from the file: the first step's action is on screen.
    let text = h.text();
    assert!(text.contains("Step 1/"), "{text}");
    assert!(!text.contains("Reading step"), "the read finished: {text}");

    keys(&mut h, "/SyntaxError<CR>");
    assert_eq!(step(&h), Some(3), "the search reads every step back");
    assert!(h.text().contains("E999 SyntaxError: invalid syntax"));

    keys(&mut h, "c");
    let text = h.text();
    assert!(text.contains("Model input at step 3  EXACT"), "{text}");

    keys(&mut h, "p");
    assert!(h.text().contains("Final patch · 1 file · +1 -1"));

    keys(&mut h, "d");
    assert_eq!(
        h.state.trajectory.as_ref().map(|t| t.page),
        Some(Page::Diff)
    );
    let text = h.text();
    assert!(text.contains("was opened lazily"), "{text}");
    assert!(
        text.contains("--step 3"),
        "names the command for this step: {text}"
    );

    keys(&mut h, "1r");
    let text = h.text();
    assert!(text.contains("replay needs the whole trajectory"), "{text}");
}

#[test]
fn a_step_of_a_lazy_file_can_be_labelled() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    std::fs::create_dir(&run).unwrap();
    std::fs::copy(
        tui::run_dir().join("astropy__astropy-12907.traj"),
        run.join("a.traj"),
    )
    .unwrap();
    let mut h = Harness::open(std::slice::from_ref(&run), lazy_config(), 120, 40);
    keys(&mut h, "<CR>jjL");
    keys(&mut h, "looks wrong<CR>");
    let text = h.text();
    assert!(text.contains("step 3 labelled “looks wrong”"), "{text}");
    let saved = std::fs::read_to_string(run.join(".trajscope-labels.json")).unwrap_or_default();
    assert!(
        saved.contains("looks wrong"),
        "written next to the run: {saved}"
    );
}

#[test]
fn a_lazy_0x_file_says_where_its_reconstructed_context_is() {
    // The third row is the SWE-agent 0.x trajectory: its contexts come from `history`.
    let mut h = tui::open_with(lazy_config(), 120, 40);
    keys(&mut h, "jj<CR>");
    assert!(is_lazy(&h));
    keys(&mut h, "jc");
    let text = h.text();
    assert!(
        text.contains("Not rebuilt: this trajectory was opened lazily"),
        "{text}"
    );
    assert!(text.contains("--context"), "{text}");
}

#[test]
fn a_big_file_opened_alone_is_read_while_the_run_lists_it() {
    let file = tui::run_dir().join("astropy__astropy-12907.traj");
    let starts_open = |config: Config| {
        let size = trajscope::tui::state::Size {
            width: 120,
            height: 40,
        };
        let roots = vec![file.clone()];
        let opening = trajscope::tui::job::opening(&roots, config.options.lazy_above);
        let mut state = trajscope::tui::state::State::with_opening(roots, config, size, opening);
        let effects = trajscope::tui::update::start(&mut state);
        effects
            .iter()
            .any(|e| matches!(e, trajscope::tui::effect::Effect::LoadTrajectory { .. }))
    };
    assert!(
        starts_open(lazy_config()),
        "lazy: opened with the run's load"
    );
    assert!(!starts_open(Config::default()), "small: opened once listed");

    let mut h = Harness::open(std::slice::from_ref(&file), lazy_config(), 120, 40);
    let t = h.state.trajectory.as_ref().expect("open");
    assert_eq!(t.row, Some(0), "its row is found once the run is listed");
    assert!(is_lazy(&h));
    assert!(h.text().contains("Step 1/6"));
}

#[test]
fn below_the_threshold_files_are_read_whole() {
    let mut h = tui::open(120, 40);
    keys(&mut h, "<CR>");
    assert!(!is_lazy(&h));
    let held = h.state.trajectory.as_ref().unwrap();
    assert!(!held.trajectory.as_ref().unwrap().steps.is_empty());
}

#[test]
fn a_mini_swe_agent_trajectory_opens_lazily_above_the_threshold_too() {
    // The second row is the mini-swe-agent trajectory: its record reader keeps the pool
    // now, so it opens lazily, with the whole read's steps.
    let mut h = tui::open_with(lazy_config(), 120, 40);
    keys(&mut h, "j<CR>");
    let t = h.state.trajectory.as_ref().unwrap();
    let trajectory = t.trajectory.as_ref().expect("loaded");
    assert_eq!(trajectory.format, trajscope::model::Format::MiniSweAgent);
    assert!(trajectory.lazy.is_some(), "opened lazily");
    let whole = match trajscope::formats::load_file(&trajectory.path).unwrap() {
        trajscope::formats::Loaded::Trajectories(mut ts) => ts.remove(0),
        trajscope::formats::Loaded::Results(_) => panic!("not a trajectory"),
    };
    assert_eq!(trajectory.step_count(), whole.steps.len());
}

/// One file named on the command line that holds several trajectories (an OTel export of
/// two traces, an Inspect log of two samples) and is big enough to open at once: the app
/// lists its trajectories instead of showing an error page ("the trajectory is no longer
/// in the file"), and never reads the file whole to find out.
#[test]
fn a_big_file_of_several_trajectories_opens_on_its_list() {
    let dir = tempfile::tempdir().unwrap();
    let sample =
        std::fs::read_to_string("sample-trajectories/otel-genai/tinycalc__tinycalc-1.json")
            .unwrap();
    let one: serde_json::Value = serde_json::from_str(&sample).unwrap();
    let line = serde_json::to_string(&one).unwrap();
    let other = line.replace(
        "5f5f310cafd00046ffdc72d22a367c55",
        "0123456789abcdef0123456789abcdef",
    );
    assert_ne!(line, other, "the second trace has its own id");
    let otel = dir.path().join("traces.jsonl");
    std::fs::write(&otel, format!("{line}\n{other}\n")).unwrap();
    let inspect = Path::new(
        "sample-trajectories/inspect-ai/2025-03-17T10-00-00+00-00_tinycalc-swe_86KhjPLUTNeBL35abgajcV.json",
    );

    for file in [otel.as_path(), inspect] {
        let mut h = Harness::open(&[file.to_path_buf()], lazy_config(), 120, 30);
        assert!(
            h.state.trajectory.is_none(),
            "{}: no trajectory page is left open: {:?}",
            file.display(),
            h.state.trajectory.as_ref().map(|t| &t.error)
        );
        assert_eq!(h.state.run.rows.len(), 2, "{}", file.display());
        let text = h.text();
        assert!(!text.contains("no longer in the file"), "{text}");
        assert!(
            text.contains("2 trajectories in "),
            "the status bar says why: {text}"
        );

        // Each row still opens, as from any run.
        keys(&mut h, "<CR>");
        let t = h.state.trajectory.as_ref().expect("the first row opened");
        assert_eq!(t.error, None, "{}", file.display());
        assert!(t.trajectory.is_some(), "{}", file.display());
    }
}
