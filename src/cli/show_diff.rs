//! `trajscope show FILE --diff [--step N]`: per-step file edits, the working tree, the
//! cumulative change, the submission check, the context diff and repeated commands.

use super::render::{Style, emit, file_diff, labelled_diff, rule};
use crate::{put, say};
use anyhow::Result;
use serde::Serialize;
use trajscope::diff::{
    Agreement, ContextChange, ContextDiff, CumulativeChange, EditOutcome, FileSnapshot,
    Reconstruction, RepeatedRun, SubmissionCheck, check_submission, context_diff,
    repeated_commands,
};
use trajscope::model::Trajectory;
use trajscope::present::{facts, model_input};

#[derive(Serialize)]
struct StepJson<'a> {
    step: usize,
    edits: &'a [EditOutcome],
    #[serde(skip_serializing_if = "Option::is_none")]
    context: Option<ContextDiff>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    repeated: Vec<&'a RepeatedRun>,
}

#[derive(Serialize)]
struct DiffJson<'a> {
    steps: Vec<StepJson<'a>>,
    /// The working tree after the last step shown.
    files: Vec<FileSnapshot>,
    cumulative: Vec<CumulativeChange>,
    #[serde(skip_serializing_if = "Option::is_none")]
    submission: Option<SubmissionCheck>,
}

pub fn run(t: &Trajectory, step: Option<usize>, json: bool) -> Result<()> {
    let mut out = String::new();
    render(&mut out, t, step, json)?;
    emit(&out)
}

/// The whole report as text (or JSON), so that a closed pipe cannot cut a line in half.
fn render(out: &mut String, t: &Trajectory, step: Option<usize>, json: bool) -> Result<()> {
    let r = Reconstruction::of(t);
    let repeated = repeated_commands(t);
    let last = step.unwrap_or(t.steps.len());
    let shown: Vec<usize> = match step {
        Some(k) => vec![k],
        None => r.editing_steps(),
    };
    let submission = if step.is_none() {
        check_submission(t, &r)
    } else {
        None
    };
    if json {
        let report = DiffJson {
            steps: shown
                .iter()
                .map(|&k| StepJson {
                    step: k,
                    edits: r.step_edits(k),
                    context: step.and_then(|k| context_diff(t, k)),
                    repeated: repeated.iter().filter(|x| x.step == k).collect(),
                })
                .collect(),
            files: r.files_at(last),
            cumulative: r.cumulative_at(last),
            submission,
        };
        say!(out, "{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    let style = Style::detect();
    say!(out, "{} — file edits", t.display_source());
    if step.is_none() {
        let list = shown
            .iter()
            .map(|k| k.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        say!(
            out,
            "  steps that edit files: {}",
            if list.is_empty() { "none".into() } else { list }
        );
    }
    for &k in &shown {
        print_step(out, t, &r, k, style);
        if step.is_some() {
            if let Some(ctx) = context_diff(t, k) {
                print_context(out, &ctx, style);
            }
            for run in repeated.iter().filter(|x| x.step == k) {
                print_repeat(out, run, style);
            }
        }
    }
    print_tree(out, &r, last, style);
    say!(
        out,
        "\n{}",
        rule(&format!("Cumulative change, start → step {last}"), style)
    );
    let changes = r.cumulative_at(last);
    if changes.is_empty() {
        say!(out, "  (no file edited)");
    }
    for change in &changes {
        match &change.diff {
            Some(d) => {
                if let Some(note) = &change.note {
                    say!(
                        out,
                        "  {}",
                        style.warn(&format!("! {}: {note}", change.path))
                    );
                }
                put!(out, "{}", file_diff(d, style, "  "));
            }
            None => say!(
                out,
                "  {} {}",
                change.path,
                style.warn(change.note.as_deref().unwrap_or("unknown"))
            ),
        }
    }
    if let Some(check) = &submission {
        print_submission(out, check, style);
    }
    if step.is_none() && !repeated.is_empty() {
        say!(out, "\n{}", rule("Repeated commands", style));
        for run in &repeated {
            print_repeat(out, run, style);
        }
    }
    Ok(())
}

fn print_step(out: &mut String, t: &Trajectory, r: &Reconstruction, k: usize, style: Style) {
    let edits = r.step_edits(k);
    say!(
        out,
        "\n{}",
        rule(&format!("Step {k}/{}", t.steps.len()), style)
    );
    if edits.is_empty() {
        say!(out, "  (this step edits no file)");
    }
    for e in edits {
        let path = e.path.as_deref().unwrap_or("?");
        let (mark, reason) = facts::edit_status(&e.status);
        let line = format!("  {} · {path} · {mark}", e.label);
        let painted = if e.status.is_applied() && reason.is_none() {
            line
        } else {
            style.warn(&line)
        };
        say!(out, "{painted}");
        if let Some(reason) = reason {
            say!(out, "    {}", style.dim(reason));
        }
        if let Some(d) = &e.diff {
            put!(out, "{}", file_diff(d, style, "    "));
        }
    }
}

fn print_tree(out: &mut String, r: &Reconstruction, k: usize, style: Style) {
    say!(
        out,
        "\n{}",
        rule(&format!("Working tree after step {k}"), style)
    );
    let files = r.files_at(k);
    if files.is_empty() {
        say!(out, "  (no file seen or edited)");
    }
    for f in files {
        let size = facts::file_knowledge(&f);
        let role = if f.edited { "edited" } else { "viewed" };
        say!(out, "  {:<48} {role:<7} {size}", f.path);
        if let Some(lost) = &f.lost {
            say!(out, "    {}", style.warn(&format!("lost track: {lost}")));
        } else if let Some(doubt) = &f.doubt {
            say!(out, "    {}", style.warn(&format!("in doubt: {doubt}")));
        }
    }
}

fn print_submission(out: &mut String, check: &SubmissionCheck, style: Style) {
    let (a, d, u) = check.counts();
    say!(
        out,
        "\n{}",
        rule(
            &format!("Submission vs reconstruction: {a} agree, {d} differ, {u} unknown"),
            style
        )
    );
    for f in &check.files {
        let text = match &f.agreement {
            Agreement::Agrees => style.added("agrees"),
            Agreement::Differs(why) => style.removed(&format!("DIFFERS: {why}")),
            Agreement::Unknown(why) => style.warn(&format!("unknown: {why}")),
            Agreement::NotSubmitted => style.dim("edited, not in the submission"),
            Agreement::NotInLog => style.warn("in the submission, but the log shows no edit of it"),
        };
        say!(out, "  {:<48} {text}", f.path);
        if let Some(m) = &f.mismatch {
            say!(
                out,
                "    {}",
                style.dim("reconstruction (-) vs submission (+):")
            );
            put!(out, "{}", file_diff(m, style, "    "));
        }
    }
}

fn print_context(out: &mut String, ctx: &ContextDiff, style: Style) {
    say!(
        out,
        "  {}",
        style.bold(&format!(
            "Model input vs the previous step ({}): {}",
            ctx.exactness.map_or("not recorded", |e| e.as_str()),
            model_input::message_counts(ctx)
        ))
    );
    for c in &ctx.changes {
        let at = model_input::position(c);
        let line = format!(
            "  {:<9} {at:<8} {:<9} {} ({:+} chars)",
            model_input::change_word(c.change),
            c.role.as_str(),
            c.summary,
            c.chars_delta
        );
        let painted = match c.change {
            ContextChange::Added => style.added(&line),
            ContextChange::Removed => style.removed(&line),
            ContextChange::Rewritten => style.warn(&line),
        };
        say!(out, "{painted}");
    }
}

fn print_repeat(out: &mut String, run: &RepeatedRun, style: Style) {
    let verdict = if run.same_output {
        "same output"
    } else {
        "output changed"
    };
    say!(
        out,
        "  {}",
        style.bold(&format!(
            "step {} re-runs `{}` (last at step {}, {} editing steps between): {verdict}",
            run.step, run.command, run.previous_step, run.edits_between
        ))
    );
    if !run.same_output {
        let (old, new) = (
            format!("output at step {}", run.previous_step),
            format!("output at step {}", run.step),
        );
        put!(
            out,
            "{}",
            labelled_diff(&run.diff, style, "    ", &old, &new)
        );
    }
}
