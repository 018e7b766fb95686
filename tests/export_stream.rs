//! The streamed export: a trajectory opened in bounded memory (the lazy open of big files,
//! forced here with a low threshold) exports, step by step as its steps are read back, the
//! same Markdown and HTML as the same trajectory read whole, on every JSON and JSON Lines
//! file of the samples and the corpus that opens so. Diffs are off on both sides: a lazily
//! opened trajectory has none.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/corpus.rs"]
mod corpus;

use std::path::{Path, PathBuf};
use trajscope::export::{ExportOptions, StepRange, write_html, write_markdown};
use trajscope::formats::{Loaded, discover, load_file, open_bounded, open_revisited};
use trajscope::model::Trajectory;

fn samples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-trajectories")
}

fn exports(t: &Trajectory, steps: StepRange) -> (String, String) {
    let options = ExportOptions {
        steps,
        diffs: false,
        ..ExportOptions::default()
    };
    let mut markdown = Vec::new();
    write_markdown(&mut markdown, t, &options).unwrap();
    let mut html = Vec::new();
    write_html(&mut html, t, &options).unwrap();
    (
        String::from_utf8(markdown).unwrap(),
        String::from_utf8(html).unwrap(),
    )
}

/// Where two texts first differ, with some context.
fn first_difference(a: &str, b: &str) -> String {
    let at = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    let from = at.saturating_sub(80);
    let cut =
        |s: &str| String::from_utf8_lossy(&s.as_bytes()[from..(at + 80).min(s.len())]).into_owned();
    format!("at byte {at}: got {:?}, want {:?}", cut(a), cut(b))
}

/// Compares the streamed and whole exports of every file under `root`; returns how many
/// trajectories were compared, and how many of those comparisons walked the file again.
fn check_tree(root: &Path) -> (usize, usize) {
    let (files, _) = discover(&[root.to_path_buf()]);
    let mut compared = 0;
    let mut walked_again = 0;
    for file in files {
        let head = std::fs::read(&file.path).unwrap_or_default();
        if !matches!(
            head.iter().find(|b| !b.is_ascii_whitespace()),
            Some(b'{' | b'[')
        ) {
            continue;
        }
        let Ok(Loaded::Trajectories(whole)) = load_file(&file.path) else {
            continue;
        };
        // The lazy open at two thresholds, then the open that walks the file again at each
        // pass (what `trajscope export` takes for a big file).
        for (threshold, again) in [
            (8, false),
            (trajscope::formats::SLIM_ABOVE, false),
            (8, true),
            (trajscope::formats::SLIM_ABOVE, true),
        ] {
            let opened = if again {
                open_revisited(&file.path, threshold)
                    .unwrap()
                    .map(|t| vec![t])
            } else {
                open_bounded(&file.path, threshold).unwrap()
            };
            let Some(lazy) = opened else {
                continue;
            };
            for (lazy, whole) in lazy.iter().zip(&whole) {
                assert!(lazy.lazy.is_some() && lazy.steps.is_empty());
                let mut ranges = vec![StepRange::All];
                if whole.steps.len() >= 3 {
                    ranges.push(StepRange::parse("2..3").unwrap());
                }
                for range in ranges {
                    let (md, html) = exports(lazy, range);
                    let (want_md, want_html) = exports(whole, range);
                    let shown = file.path.display();
                    assert!(
                        md == want_md,
                        "{shown} (threshold {threshold}, again {again}, {range}): Markdown {}",
                        first_difference(&md, &want_md)
                    );
                    assert!(
                        html == want_html,
                        "{shown} (threshold {threshold}, again {again}, {range}): HTML {}",
                        first_difference(&html, &want_html)
                    );
                }
                compared += 1;
                walked_again += usize::from(again);
            }
        }
    }
    (compared, walked_again)
}

#[test]
fn samples_export_streamed_as_they_export_whole() {
    let (compared, walked_again) = check_tree(&samples());
    assert!(compared > 0, "no sample compared");
    // The Claude Code and OpenHands samples have record readers.
    assert!(walked_again >= 2, "{walked_again} samples walked again");
}

#[test]
fn corpus_exports_streamed_as_it_exports_whole() {
    let Some(root) = corpus::corpus("") else {
        return;
    };
    let (compared, walked_again) = check_tree(&root);
    assert!(compared > 0, "no corpus file compared");
    assert!(walked_again > 0, "no corpus file walked again");
}
