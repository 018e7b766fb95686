//! The Markdown export rendered by a GitHub-flavoured Markdown renderer (comrak, with raw
//! HTML passed through so that any injection would show): fences, folds and diffs come
//! out as the blocks they should be, whatever the log holds.

use super::*;
use crate::export::StepRange;
use crate::export::fixture::trajectory;
use crate::present::StepBadges;

fn export(t: &Trajectory, options: &ExportOptions) -> String {
    let mut out = Vec::new();
    write_markdown(&mut out, t, options).unwrap();
    String::from_utf8(out).unwrap()
}

fn gfm(markdown: &str) -> String {
    let mut options = comrak::Options::default();
    options.extension.table = true;
    options.extension.strikethrough = true;
    options.extension.autolink = true;
    options.extension.tasklist = true;
    options.extension.footnotes = true;
    options.render.r#unsafe = true;
    options.render.github_pre_lang = true;
    comrak::markdown_to_html(markdown, &options)
}

#[test]
fn hostile_text_stays_in_its_blocks() {
    let md = export(&trajectory(), &ExportOptions::default());
    let html = gfm(&md);
    // Every step is a heading: nothing swallowed a later one.
    assert_eq!(html.matches("<h3>").count(), 3, "{md}");
    assert!(html.contains("<h2>Final patch</h2>"), "{html}");
    // Raw HTML from the log never reaches the page; only ours (`<details>`) does.
    for raw in ["<script", "<img", "<!--", "</pre></details>", "<![CDATA["] {
        assert!(!html.contains(raw), "{raw} leaked:\n{html}");
    }
    // The observation is one code block holding all of its lines, fences included.
    assert!(
        html.contains("<pre lang=\"text\"><code>before &lt;/script&gt;"),
        "{html}"
    );
    assert!(html.contains("```\nfence in the log\n````\n~~~\n&lt;/details&gt;&lt;/pre&gt;"));
    // Control characters are visible, colours gone.
    assert!(
        html.contains("red nul:\u{2400} bell:\u{2407} del:\u{2421}"),
        "{html}"
    );
    assert!(!md.contains('\x1b') && !md.contains('\0'));
}

#[test]
fn fences_carry_their_language() {
    let html = gfm(&export(&trajectory(), &ExportOptions::default()));
    assert!(
        html.contains("<pre lang=\"bash\"><code>ls -la\n</code></pre>"),
        "{html}"
    );
    // The task's own Python block survives as a Python block.
    assert!(html.contains("<pre lang=\"python\"><code>print('&lt;b&gt;')\n</code></pre>"));
    // The thought's unclosed fence was closed where the thought ends.
    assert!(html.contains("\nnever closed\n</code></pre>"), "{html}");
}

#[test]
fn edits_and_the_patch_are_diff_blocks() {
    let md = export(&trajectory(), &ExportOptions::default());
    let html = gfm(&md);
    let diffs = html.matches("<pre lang=\"diff\">").count();
    // Step 2's edit and the final patch.
    assert_eq!(diffs, 2, "{md}");
    assert!(
        html.contains("+++ b/hello.py\n@@ -0,0 +1 @@\n+print('hi')"),
        "{html}"
    );
    assert!(
        md.contains("**Edit** `cat <<EOF >` · `hello.py` · applied"),
        "{md}"
    );
    let without = export(
        &trajectory(),
        &ExportOptions {
            diffs: false,
            ..ExportOptions::default()
        },
    );
    assert!(!without.contains("```diff"), "{without}");
}

#[test]
fn long_observations_fold_into_details() {
    let md = export(&trajectory(), &ExportOptions::default());
    let html = gfm(&md);
    assert_eq!(html.matches("<details>").count(), 1, "{md}");
    assert_eq!(html.matches("</details>").count(), 1);
    assert!(
        html.contains("<details><summary>Observation (exit code 1) — 80 lines</summary>"),
        "{html}"
    );
    // The fence inside the fold is still a code block.
    let fold = &html[html.find("<details>").unwrap()..html.find("</details>").unwrap()];
    assert!(fold.contains("<pre lang=\"text\"><code>line 1\n"), "{fold}");
    assert!(fold.contains("line 80\n</code></pre>"));
}

#[test]
fn one_step_has_a_one_line_header() {
    let options = ExportOptions {
        steps: StepRange::one(2),
        ..ExportOptions::default()
    };
    let md = export(&trajectory(), &options);
    assert!(
        md.starts_with(
            "**demo__demo-1** · swe-agent · `gpt-4o` · step 2 of 3\n\n### Step 2/3 · `bash`\n"
        ),
        "{md}"
    );
    assert!(!md.contains("### Step 1/") && !md.contains("### Step 3/"));
    assert!(!md.contains("## Final patch") && !md.contains("## Task"));
    let html = gfm(&md);
    assert!(html.contains("<pre lang=\"bash\"><code>cat &lt;&lt;'EOF' &gt; hello.py"));
}

#[test]
fn matched_rules_label_their_steps() {
    let rules_at = |step: usize| {
        if step == 3 {
            vec!["errors after a tool call", "exit `1`"]
        } else {
            Vec::new()
        }
    };
    let badges = StepBadges::collect(1..=3, rules_at, |_| Vec::new());
    let options = ExportOptions {
        badges: &badges,
        ..ExportOptions::default()
    };
    let md = export(&trajectory(), &options);
    assert_eq!(md.matches("**Rules matched:**").count(), 1);
    assert!(
        md.contains("### Step 3/3 · `bash` · ⚠️ error\n\n**Rules matched:** `errors after a tool call`, `` exit `1` ``\n"),
        "{md}"
    );
}

#[test]
fn steps_out_of_range_are_an_error_before_any_output() {
    let mut out = Vec::new();
    let options = ExportOptions {
        steps: StepRange::one(9),
        ..ExportOptions::default()
    };
    let err = write_markdown(&mut out, &trajectory(), &options).unwrap_err();
    assert_eq!(err.to_string(), "no step 9; steps are numbered 1 to 3");
    assert!(out.is_empty());
}
