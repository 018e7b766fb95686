//! Run against run: two trajectories of the same task aligned step by step on their
//! normalised actions (Needleman–Wunsch with a similarity score), where they first diverge,
//! and their final patches side by side.

use super::patch::{FileDiff, parse_patch};
use super::paths::{Paths, same_file};
use crate::model::{Step, Trajectory};
use serde::Serialize;
use similar::{Algorithm, DiffOp, capture_diff_slices};
use std::collections::HashSet;

/// One column of the alignment: a step of A, of B, or of both (1-based numbers).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AlignedPair {
    pub a: Option<usize>,
    pub b: Option<usize>,
    /// Both steps did the same thing (equal normalised actions).
    pub same: bool,
    /// 0..=1: how alike the two actions are (0 when one side is missing).
    pub similarity: f32,
}

/// The comparison of two runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunComparison {
    pub a_steps: usize,
    pub b_steps: usize,
    pub pairs: Vec<AlignedPair>,
    /// The 1-based step of A at which A first differs from B; `None` when they agree
    /// step for step. When A stops where B goes on, one past A's last step.
    pub first_divergence: Option<usize>,
    /// B's step at the same place (one past B's last step when B stops first).
    pub first_divergence_b: Option<usize>,
    /// Steps paired with an equal action.
    pub same_steps: usize,
    pub patch_a: Vec<FileDiff>,
    pub patch_b: Vec<FileDiff>,
    /// The two submissions touch the same set of files.
    pub same_files: bool,
}

/// The action as compared across runs: the tool and its main argument, paths relative to
/// the repository, whitespace collapsed.
pub fn normalise_action(step: &Step, paths: &Paths) -> String {
    let raw = match step.tool_calls.first() {
        Some(call) => {
            let args = call.arguments_json().unwrap_or_default();
            let field = |k: &str| match args.get(k) {
                Some(serde_json::Value::String(s)) => Some(s.clone()),
                Some(serde_json::Value::Number(n)) => Some(n.to_string()),
                _ => None,
            };
            let command = field("command").or_else(|| field("cmd"));
            match command {
                // A shell call reads as the command line it ran, as text-mode agents write it.
                Some(c) if super::interpret::SHELL_TOOLS.contains(&call.name.as_str()) => c,
                _ => {
                    let main = [
                        "command",
                        "path",
                        "file_path",
                        "filename",
                        "file_name",
                        "search",
                        "dir",
                        "line_number",
                    ]
                    .iter()
                    .filter_map(|k| field(k))
                    .collect::<Vec<_>>()
                    .join(" ");
                    format!("{} {}", call.name, main)
                }
            }
        }
        None => step.action.lines().next().unwrap_or("").to_string(),
    };
    let words: Vec<String> = raw
        .split_whitespace()
        .map(|w| {
            let bare = w.trim_matches(|c| c == '"' || c == '\'');
            if bare.contains('/') {
                paths.canonical(bare)
            } else {
                bare.to_string()
            }
        })
        .collect();
    let joined = words.join(" ");
    super::repeat::normalise_command(&joined)
}

/// Word-set similarity of two normalised actions.
fn similarity(a: &str, b: &str) -> f32 {
    if a == b {
        return 1.0;
    }
    let wa: HashSet<&str> = a.split_whitespace().collect();
    let wb: HashSet<&str> = b.split_whitespace().collect();
    let union = wa.union(&wb).count();
    if union == 0 {
        return 0.0;
    }
    let same_tool = a.split_whitespace().next() == b.split_whitespace().next();
    let jaccard = wa.intersection(&wb).count() as f32 / union as f32;
    if same_tool {
        jaccard.max(0.25)
    } else {
        jaccard * 0.5
    }
}

/// Above this many cells, alignment falls back to an exact-match diff (linear memory).
const MAX_CELLS: usize = 4_000_000;

/// Aligns `a` and `b` and compares their submissions.
pub fn compare_runs(a: &Trajectory, b: &Trajectory) -> RunComparison {
    let (pa, pb) = (Paths::of(a), Paths::of(b));
    let na: Vec<String> = a.steps.iter().map(|s| normalise_action(s, &pa)).collect();
    let nb: Vec<String> = b.steps.iter().map(|s| normalise_action(s, &pb)).collect();
    let pairs = if na.len().saturating_mul(nb.len()) <= MAX_CELLS {
        needleman_wunsch(&na, &nb)
    } else {
        exact_alignment(&na, &nb)
    };
    let mut first_divergence = None;
    let mut first_divergence_b = None;
    for (k, pair) in pairs.iter().enumerate() {
        if !pair.same {
            let next_a = pairs[k..].iter().find_map(|p| p.a).unwrap_or(na.len() + 1);
            let next_b = pairs[k..].iter().find_map(|p| p.b).unwrap_or(nb.len() + 1);
            first_divergence = Some(next_a);
            first_divergence_b = Some(next_b);
            break;
        }
    }
    let patch_a = a.submission.as_deref().map(parse_patch).unwrap_or_default();
    let patch_b = b.submission.as_deref().map(parse_patch).unwrap_or_default();
    let same_files = patch_a.len() == patch_b.len()
        && patch_a
            .iter()
            .all(|f| patch_b.iter().any(|g| same_file(&f.path, &g.path)));
    RunComparison {
        a_steps: na.len(),
        b_steps: nb.len(),
        same_steps: pairs.iter().filter(|p| p.same).count(),
        pairs,
        first_divergence,
        first_divergence_b,
        patch_a,
        patch_b,
        same_files,
    }
}

/// Pairing two unrelated actions scores below two gaps, so they are not paired.
fn pair_score(similarity: f32) -> f32 {
    if similarity > 0.0 {
        2.0 * similarity - 1.0
    } else {
        -1.5
    }
}

fn needleman_wunsch(a: &[String], b: &[String]) -> Vec<AlignedPair> {
    const GAP: f32 = -0.5;
    let (n, m) = (a.len(), b.len());
    let width = m + 1;
    let mut score = vec![0f32; (n + 1) * width];
    for i in 1..=n {
        score[i * width] = GAP * i as f32;
    }
    for (j, cell) in score.iter_mut().enumerate().take(m + 1).skip(1) {
        *cell = GAP * j as f32;
    }
    for i in 1..=n {
        for j in 1..=m {
            let s = similarity(&a[i - 1], &b[j - 1]);
            let diagonal = score[(i - 1) * width + j - 1] + pair_score(s);
            let up = score[(i - 1) * width + j] + GAP;
            let left = score[i * width + j - 1] + GAP;
            score[i * width + j] = diagonal.max(up).max(left);
        }
    }
    let mut pairs = Vec::with_capacity(n.max(m));
    let (mut i, mut j) = (n, m);
    while i > 0 || j > 0 {
        let here = score[i * width + j];
        if i > 0 && j > 0 {
            let s = similarity(&a[i - 1], &b[j - 1]);
            if (here - (score[(i - 1) * width + j - 1] + pair_score(s))).abs() < 1e-4 {
                pairs.push(AlignedPair {
                    a: Some(i),
                    b: Some(j),
                    same: a[i - 1] == b[j - 1],
                    similarity: s,
                });
                i -= 1;
                j -= 1;
                continue;
            }
        }
        if i > 0 && (j == 0 || (here - (score[(i - 1) * width + j] + GAP)).abs() < 1e-4) {
            pairs.push(AlignedPair {
                a: Some(i),
                b: None,
                same: false,
                similarity: 0.0,
            });
            i -= 1;
        } else {
            pairs.push(AlignedPair {
                a: None,
                b: Some(j),
                same: false,
                similarity: 0.0,
            });
            j -= 1;
        }
    }
    pairs.reverse();
    pairs
}

fn exact_alignment(a: &[String], b: &[String]) -> Vec<AlignedPair> {
    let mut pairs = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, a, b) {
        match op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => {
                pairs.extend((0..len).map(|k| AlignedPair {
                    a: Some(old_index + k + 1),
                    b: Some(new_index + k + 1),
                    same: true,
                    similarity: 1.0,
                }));
            }
            _ => {
                pairs.extend(op.old_range().map(|i| AlignedPair {
                    a: Some(i + 1),
                    b: None,
                    same: false,
                    similarity: 0.0,
                }));
                pairs.extend(op.new_range().map(|j| AlignedPair {
                    a: None,
                    b: Some(j + 1),
                    same: false,
                    similarity: 0.0,
                }));
            }
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Format;

    fn run(actions: &[&str]) -> Trajectory {
        let mut t = Trajectory::new("t.traj", Format::SweAgent);
        for a in actions {
            t.steps.push(Step {
                action: a.to_string(),
                ..Step::default()
            });
        }
        t.number_steps();
        t
    }

    #[test]
    fn first_divergence_is_a_one_based_step_of_a() {
        let a = run(&["ls", "open a.py", "edit 1:1", "python r.py", "submit"]);
        let b = run(&[
            "ls",
            "open /testbed/a.py",
            "goto 40",
            "edit 1:1",
            "python r.py",
            "submit",
        ]);
        let c = compare_runs(&a, &b);
        assert_eq!(c.first_divergence, Some(3));
        assert_eq!(c.first_divergence_b, Some(3));
        assert_eq!(c.same_steps, 5);
        assert!(c.pairs.iter().any(|p| p.a.is_none() && p.b == Some(3)));
    }

    #[test]
    fn identical_runs_and_prefixes() {
        let a = run(&["ls", "cat a.py"]);
        assert_eq!(compare_runs(&a, &a).first_divergence, None);
        let b = run(&["ls", "cat a.py", "python t.py"]);
        let c = compare_runs(&a, &b);
        assert_eq!(
            (c.first_divergence, c.first_divergence_b),
            (Some(3), Some(3))
        );
        let empty = run(&[]);
        assert_eq!(compare_runs(&empty, &empty).first_divergence, None);
    }
}
