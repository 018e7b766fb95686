//! How close a trajectory came to the gold patch of its SWE-bench instance, step by step:
//! the gold files it had edited and the gold hunks its reconstructed working tree held after
//! each step, and whether it reached the gold change and later lost it.
//!
//! A gold hunk is *present* when every run of its added lines (blank lines and trailing
//! whitespace ignored) appears as consecutive known lines of the file, next to the hunk's
//! nearest context line on each side where the file shows that line (so code the fix only
//! moves is not taken for the fix). A hunk that only removes lines is present when the
//! trajectory edited the file and no run of the removed lines is left in place. The
//! reconstruction only knows the lines the log showed, so "not present" can also mean "never
//! seen": a hunk is counted present only on evidence.

use super::patch::{FileDiff, LineKind, parse_patch};
use super::paths::same_file;
use super::reconstruct::Reconstruction;
use crate::model::Trajectory;
use serde::Serialize;

/// One gold hunk reduced to what is checked.
#[derive(Debug, Clone, PartialEq, Eq)]
struct GoldHunk {
    file: String,
    added: Vec<Anchored>,
    removed: Vec<Anchored>,
}

/// A run of changed lines and the nearest non-blank context line before and after it in the
/// hunk, if the hunk has one there.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Anchored {
    before: Option<String>,
    run: Vec<String>,
    after: Option<String>,
}

/// The gold patch against one step's working tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct StepGold {
    /// Gold files the trajectory had edited by this step.
    pub files_touched: usize,
    /// Gold hunks present in the tree after this step.
    pub hunks_present: usize,
}

/// Where the final state was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FinalSource {
    /// The submitted patch (what the grader applies).
    Patch,
    /// No patch was submitted: the tree after the last step.
    Tree,
}

/// A trajectory against its instance's gold patch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GoldProximity {
    pub gold_files: Vec<String>,
    pub gold_hunks: usize,
    /// Per step, in order (step k is `steps[k - 1]`).
    pub steps: Vec<StepGold>,
    /// The first step whose tree held every gold hunk.
    pub reached_at: Option<usize>,
    /// Gold hunks present in the final state.
    pub final_hunks_present: usize,
    pub final_source: FinalSource,
    /// Reached the gold change and the final state does not hold it all.
    pub lost: bool,
}

impl GoldProximity {
    /// A one-character-per-step strip: `·` no gold file edited, `○` gold files edited but no
    /// gold hunk, `◐` some gold hunks, `●` every gold hunk.
    pub fn strip(&self) -> String {
        self.steps.iter().map(|s| self.cell(s)).collect()
    }

    pub fn cell(&self, s: &StepGold) -> char {
        if self.gold_hunks > 0 && s.hunks_present == self.gold_hunks {
            '●'
        } else if s.hunks_present > 0 {
            '◐'
        } else if s.files_touched > 0 {
            '○'
        } else {
            '·'
        }
    }
}

/// Compares every step of `trajectory` (replayed in `reconstruction`) with `gold_patch`.
pub fn gold_proximity(
    trajectory: &Trajectory,
    reconstruction: &Reconstruction,
    gold_patch: &str,
) -> GoldProximity {
    let gold = parse_patch(gold_patch);
    let hunks = gold_hunks(&gold);
    let gold_files: Vec<String> = gold.iter().map(|f| f.path.clone()).collect();
    let steps: Vec<StepGold> = (1..=reconstruction.steps())
        .map(|k| step_gold(reconstruction, k, &gold_files, &hunks))
        .collect();
    let complete = |s: &StepGold| !hunks.is_empty() && s.hunks_present == hunks.len();
    let reached_at = steps.iter().position(complete).map(|i| i + 1);
    let patch = trajectory
        .submission
        .as_deref()
        .filter(|p| !p.trim().is_empty());
    let (final_hunks_present, final_source) = match patch {
        Some(patch) => {
            let agent = parse_patch(patch);
            let present = hunks.iter().filter(|h| in_patch(h, &agent)).count();
            (present, FinalSource::Patch)
        }
        None => (
            steps.last().map_or(0, |s| s.hunks_present),
            FinalSource::Tree,
        ),
    };
    GoldProximity {
        gold_hunks: hunks.len(),
        lost: reached_at.is_some() && final_hunks_present < hunks.len(),
        gold_files,
        steps,
        reached_at,
        final_hunks_present,
        final_source,
    }
}

fn gold_hunks(gold: &[FileDiff]) -> Vec<GoldHunk> {
    gold.iter()
        .flat_map(|file| {
            file.hunks.iter().map(|hunk| GoldHunk {
                file: file.path.clone(),
                added: runs(
                    hunk.lines.iter().map(|l| (l.kind, l.text.as_deref())),
                    LineKind::Added,
                ),
                removed: runs(
                    hunk.lines.iter().map(|l| (l.kind, l.text.as_deref())),
                    LineKind::Removed,
                ),
            })
        })
        .filter(|h| !h.added.is_empty() || !h.removed.is_empty())
        .collect()
}

/// Maximal runs of lines of `kind` (blank lines skipped, trailing whitespace trimmed), each
/// with the context lines next to it.
fn runs<'a>(
    lines: impl Iterator<Item = (LineKind, Option<&'a str>)>,
    kind: LineKind,
) -> Vec<Anchored> {
    let lines: Vec<(LineKind, &str)> = lines
        .filter_map(|(k, text)| Some((k, text?.trim_end())))
        .filter(|(_, text)| !text.is_empty())
        .collect();
    let context = |i: Option<usize>| {
        i.and_then(|i| lines.get(i))
            .filter(|(k, _)| *k == LineKind::Context)
            .map(|(_, t)| t.to_string())
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].0 != kind {
            i += 1;
            continue;
        }
        let start = i;
        while i < lines.len() && lines[i].0 == kind {
            i += 1;
        }
        out.push(Anchored {
            before: context(start.checked_sub(1)),
            run: lines[start..i].iter().map(|(_, t)| t.to_string()).collect(),
            after: context(Some(i)),
        });
    }
    out
}

fn step_gold(
    reconstruction: &Reconstruction,
    step: usize,
    gold_files: &[String],
    hunks: &[GoldHunk],
) -> StepGold {
    let files: Vec<(&String, Option<Known>)> = gold_files
        .iter()
        .map(|f| (f, reconstruction.known_lines(step, f)))
        .collect();
    let files_touched = files
        .iter()
        .filter(|(_, known)| known.as_ref().is_some_and(|(_, edited)| *edited))
        .count();
    let hunks_present = hunks
        .iter()
        .filter(|hunk| {
            let Some((_, Some((lines, edited)))) = files.iter().find(|(f, _)| **f == hunk.file)
            else {
                return false;
            };
            let haystack: Vec<Option<&str>> = lines
                .iter()
                .map(|l| l.map(str::trim_end))
                .filter(|l| *l != Some(""))
                .collect();
            if hunk.added.is_empty() {
                *edited && !hunk.removed.iter().any(|run| contains(&haystack, run))
            } else {
                hunk.added.iter().all(|run| contains(&haystack, run))
            }
        })
        .count();
    StepGold {
        files_touched,
        hunks_present,
    }
}

/// A file's known lines after a step, and whether it was edited by then.
type Known<'a> = (Vec<Option<&'a str>>, bool);

/// `a.run` appears as consecutive known lines of `haystack`, with its context lines next to
/// it where the haystack shows them (an unknown line, or the haystack's end, passes).
fn contains(haystack: &[Option<&str>], a: &Anchored) -> bool {
    let n = a.run.len();
    if n == 0 || haystack.len() < n {
        return false;
    }
    let fits =
        |at: Option<usize>, want: &Option<String>| match (want, at.and_then(|i| haystack.get(i))) {
            (Some(want), Some(Some(line))) => *line == want.as_str(),
            _ => true,
        };
    (0..=haystack.len() - n).any(|i| {
        haystack[i..i + n]
            .iter()
            .zip(&a.run)
            .all(|(line, want)| *line == Some(want.as_str()))
            && fits(i.checked_sub(1), &a.before)
            && fits(Some(i + n), &a.after)
    })
}

/// The hunk's change is in the agent's patch: its added runs among the new side of one of
/// the patch's hunks for the file, or (removal only) its removed runs among the removed
/// lines.
fn in_patch(hunk: &GoldHunk, agent: &[FileDiff]) -> bool {
    let sides = |kinds: &[LineKind]| -> Vec<Vec<Option<&str>>> {
        agent
            .iter()
            .filter(|f| same_file(&f.path, &hunk.file))
            .flat_map(|f| &f.hunks)
            .map(|h| {
                h.lines
                    .iter()
                    .filter(|l| kinds.contains(&l.kind))
                    .map(|l| l.text.as_deref().map(str::trim_end))
                    .filter(|l| *l != Some(""))
                    .collect()
            })
            .collect()
    };
    let (runs, kinds): (&[Anchored], &[LineKind]) = if hunk.added.is_empty() {
        (&hunk.removed, &[LineKind::Removed])
    } else {
        (&hunk.added, &[LineKind::Added, LineKind::Context])
    };
    let sides = sides(kinds);
    runs.iter()
        .all(|run| sides.iter().any(|side| contains(side, run)))
}

#[cfg(test)]
mod tests;
