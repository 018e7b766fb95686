//! Aider chat histories and Llama prompt logs read line by line, their steps let go as they
//! finish (`formats::visit_text_log`): long logs generated from the samples and the corpus's
//! Aider history (1,133 sessions). The visited steps (contexts included), each
//! trajectory's header and warnings, the listing's summaries and the `stats` tallies equal
//! the whole read's; a one-trajectory log also through the step visit every command uses
//! (`visited::assert_visit_equals_whole`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/text_logs.rs"]
mod text_logs;
#[path = "support/visited.rs"]
mod visited;

use std::path::Path;
use trajscope::formats::{
    Loaded, SLIM_ABOVE, TextLogOut, load_file, text_log_summaries, visit_text_log,
};
use trajscope::metrics::{Matcher, RuleSet, TrajectoryTally, tally_text_log};
use trajscope::model::{Trajectory, TrajectorySummary};

fn whole(path: &Path) -> Vec<Trajectory> {
    match load_file(path).unwrap() {
        Loaded::Trajectories(ts) => ts,
        Loaded::Results(_) => panic!("{} read as results", path.display()),
    }
}

/// Reads `path` line by line and asserts that every trajectory (steps with their contexts,
/// header, warnings), summary and tally equals the whole read's. Returns the trajectories.
fn assert_text_visit_equals_whole(path: &Path) -> Vec<Trajectory> {
    let shown = path.display().to_string();
    let want = whole(path);
    let mut got: Vec<Trajectory> = Vec::new();
    let mut steps = Vec::new();
    let visited = visit_text_log(path, &mut |out| {
        match out {
            TextLogOut::Step(step) => steps.push(step),
            TextLogOut::Trajectory(mut t) => {
                assert!(t.steps.is_empty() && t.messages.is_empty(), "{shown}: kept");
                t.steps = std::mem::take(&mut steps);
                got.push(*t);
            }
        }
        Ok(())
    })
    .unwrap();
    assert!(visited.is_some(), "{shown}: not read line by line");
    assert!(steps.is_empty(), "{shown}: steps after the last trajectory");
    assert_eq!(got.len(), want.len(), "{shown}: trajectories");
    for (got, want) in got.iter_mut().zip(&want) {
        let id = &want.instance_id;
        assert_eq!(got.steps.len(), want.steps.len(), "{shown} {id}: steps");
        for (g, w) in got.steps.iter().zip(&want.steps) {
            assert_eq!(g, w, "{shown} {id}: step {}", w.index);
        }
        got.messages = want.messages.clone();
        assert_eq!(&*got, want, "{shown} {id}: header");
    }
    let summaries = text_log_summaries(path).unwrap().unwrap();
    let want_summaries: Vec<TrajectorySummary> = want.iter().map(TrajectorySummary::of).collect();
    assert_eq!(summaries, want_summaries, "{shown}: summaries");
    let matcher = Matcher::new(RuleSet::defaults().rules).0;
    let tallies = tally_text_log(path, &matcher).unwrap().unwrap();
    assert_eq!(tallies.len(), want.len(), "{shown}: tallies");
    for ((tally, summary), want) in tallies.iter().zip(&want) {
        assert_eq!(
            tally,
            &TrajectoryTally::of(&matcher, want),
            "{shown}: tally"
        );
        assert_eq!(summary, &TrajectorySummary::of(want), "{shown}: summary");
    }
    want
}

#[test]
fn a_long_aider_session_is_visited_as_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.aider.chat.history.md");
    std::fs::write(&path, text_logs::long_aider(1, 400, false)).unwrap();
    let ts = assert_text_visit_equals_whole(&path);
    assert_eq!(ts.len(), 1);
    assert!(ts[0].steps.len() > 1_000, "{} steps", ts[0].steps.len());
    assert!(ts[0].steps.iter().any(|s| s.failed));
    assert_eq!(ts[0].exit_status.as_deref(), Some("interrupted"));
    visited::assert_visit_equals_whole(&path, &ts[0], &[SLIM_ABOVE]);
}

#[test]
fn aider_sessions_are_trajectories_as_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let text = text_logs::long_aider(7, 40, true);
    let plain = dir.path().join("sessions.aider.chat.history.md");
    std::fs::write(&plain, &text).unwrap();
    let ts = assert_text_visit_equals_whole(&plain);
    assert_eq!(ts.len(), 8, "the fragment and seven sessions");
    assert!(ts[0].warnings[0].contains("start is not in the file"));
    // A file with Windows line ends, an editor's mode line and a bad byte in a session.
    let mut bytes = b"-*- mode: fundamental -*-\r\n".to_vec();
    let text = text.replace('\n', "\r\n");
    let cut = text.find("[3.5]").unwrap();
    bytes.extend_from_slice(&text.as_bytes()[..cut]);
    bytes.push(0xFF);
    bytes.extend_from_slice(&text.as_bytes()[cut..]);
    let odd = dir.path().join("odd.aider.chat.history.md");
    std::fs::write(&odd, bytes).unwrap();
    let ts = assert_text_visit_equals_whole(&odd);
    assert!(
        ts.iter()
            .all(|t| t.warnings[0].contains("invalid UTF-8 (1 place(s))"))
    );
    // A history whose prefixed lines lost their trailing spaces is read by prefix alone.
    let stripped = dir.path().join("stripped.aider.chat.history.md");
    let text: Vec<&str> = text.lines().map(str::trim_end).collect();
    std::fs::write(&stripped, text.join("\n")).unwrap();
    assert_text_visit_equals_whole(&stripped);
}

#[test]
fn the_corpus_aider_history_is_visited_as_read_whole() {
    let Some(path) = corpus::corpus("aider/Aider-AI__aider/tests/fixtures/chat-history.md") else {
        return;
    };
    let ts = assert_text_visit_equals_whole(&path);
    assert!(ts.len() > 1_000);
}

#[test]
fn an_aider_history_with_an_llm_history_beside_it_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".aider.chat.history.md");
    std::fs::write(&path, text_logs::long_aider(1, 3, false)).unwrap();
    std::fs::write(dir.path().join(".aider.llm.history"), "").unwrap();
    let visited = visit_text_log(&path, &mut |_| Ok(())).unwrap();
    assert!(visited.is_none());
}

#[test]
fn a_long_llama_prompt_log_is_visited_as_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tinycalc__tinycalc-1-prompt.txt");
    std::fs::write(&path, text_logs::long_llama(300)).unwrap();
    assert!(
        std::fs::metadata(&path).unwrap().len() > 4 << 20,
        "spans several chunks"
    );
    let ts = assert_text_visit_equals_whole(&path);
    assert_eq!(ts.len(), 1);
    let t = &ts[0];
    assert!(t.steps.len() > 1_000, "{} steps", t.steps.len());
    assert!(
        t.warnings
            .iter()
            .any(|w| w.contains("unknown role `observer`"))
    );
    assert!(
        t.warnings
            .iter()
            .any(|w| w.contains("`<|begin_of_text|>` appears"))
    );
    visited::assert_visit_equals_whole(&path, t, &[SLIM_ABOVE]);
}

#[test]
fn a_llama_log_cut_inside_a_header_is_visited_as_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut-prompt.txt");
    let text = text_logs::long_llama(20) + "<|start_header_id|>assist";
    std::fs::write(&path, text).unwrap();
    let ts = assert_text_visit_equals_whole(&path);
    assert!(ts[0].warnings.iter().any(|w| w.contains("cut off")));
}

/// What `export` writes of a big text log, opened to be walked again at each pass
/// (`open_revisited`), equals the whole read's export (diffs off on both sides: a file
/// walked step by step has none).
#[test]
fn a_text_log_walked_again_exports_as_read_whole() {
    use trajscope::export::{ExportOptions, write_html, write_markdown};
    use trajscope::formats::open_revisited;
    let dir = tempfile::tempdir().unwrap();
    let aider = dir.path().join("x.aider.chat.history.md");
    std::fs::write(&aider, text_logs::long_aider(1, 30, false)).unwrap();
    let llama = dir.path().join("x-prompt.txt");
    std::fs::write(&llama, text_logs::long_llama(12)).unwrap();
    let options = ExportOptions {
        diffs: false,
        ..ExportOptions::default()
    };
    for path in [&aider, &llama] {
        let walked = open_revisited(path, SLIM_ABOVE).unwrap().unwrap();
        let full = visited::whole_read(path);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        write_markdown(&mut a, &walked, &options).unwrap();
        write_markdown(&mut b, &full, &options).unwrap();
        assert!(a == b, "{}: Markdown", path.display());
        let (mut a, mut b) = (Vec::new(), Vec::new());
        write_html(&mut a, &walked, &options).unwrap();
        write_html(&mut b, &full, &options).unwrap();
        assert!(a == b, "{}: HTML", path.display());
    }
    // Several sessions are not one trajectory to walk: read whole (and picked) instead.
    let sessions = dir.path().join("s.aider.chat.history.md");
    std::fs::write(&sessions, text_logs::long_aider(2, 3, false)).unwrap();
    assert!(open_revisited(&sessions, SLIM_ABOVE).unwrap().is_none());
}
