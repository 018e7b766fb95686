//! The HTML page of a trajectory full of markup, escapes and control characters: nothing
//! from the log becomes markup, nothing is fetched, and the page's structure holds.

use super::*;
use crate::export::StepRange;
use crate::export::fixture::trajectory;
use crate::present::StepBadges;

fn page(options: &ExportOptions) -> String {
    let mut out = Vec::new();
    write_html(&mut out, &trajectory(), options).unwrap();
    String::from_utf8(out).unwrap()
}

/// Opening and closing tags of `name` pair up.
fn balanced(html: &str, name: &str) -> bool {
    let opens =
        html.matches(&format!("<{name}>")).count() + html.matches(&format!("<{name} ")).count();
    opens == html.matches(&format!("</{name}>")).count()
}

#[test]
fn log_text_never_becomes_markup() {
    let html = page(&ExportOptions::default());
    // One script element: ours, at the end.
    assert_eq!(html.matches("<script").count(), 1);
    assert!(html.contains("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
    for raw in ["<img", "<!--", "<![CDATA["] {
        assert!(!html.contains(raw), "{raw} leaked");
    }
    assert!(html.contains("&lt;img src=x onerror=alert(2)&gt;"));
    assert!(html.contains("]]&gt; &lt;![CDATA[ x"));
    assert!(html.contains("red nul:\u{2400} bell:\u{2407} del:\u{2421}"));
    assert!(!html.contains('\x1b') && !html.contains('\0'));
    for tag in [
        "section", "details", "pre", "span", "code", "div", "nav", "main",
    ] {
        assert!(balanced(&html, tag), "<{tag}> unbalanced");
    }
}

#[test]
fn the_page_fetches_nothing() {
    let html = page(&ExportOptions::default());
    let policy = csp::policy(SCRIPT);
    assert!(html.contains(&format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">"
    )));
    assert!(html.contains(&format!("<script>{SCRIPT}</script>")));
    for external in [
        " src=\"",
        "href=\"http",
        "url(",
        "@import",
        "<link",
        "<iframe",
    ] {
        assert!(!html.contains(external), "{external} in the page");
    }
}

#[test]
fn steps_have_anchors_and_sidebar_links() {
    let html = page(&ExportOptions::default());
    assert_eq!(html.matches("<section class=\"step").count(), 3);
    for k in 1..=3 {
        assert!(html.contains(&format!("id=\"step-{k}\"")));
        assert_eq!(html.matches(&format!("href=\"#step-{k}\"")).count(), 2);
    }
    // Step 3 failed (exit 1): marked in the sidebar and on the step.
    assert!(html.contains("<li class=\"err\"><a href=\"#step-3\">"));
    assert!(html.contains("<section class=\"step err\" id=\"step-3\">"));
    assert!(html.contains("<li class=\"\"><a href=\"#step-1\"><span class=\"n\">1</span><span class=\"sum\">bash · ls -la</span>"));
}

#[test]
fn long_observations_fold_short_ones_do_not() {
    let html = page(&ExportOptions::default());
    assert_eq!(html.matches("<details class=\"obs\">").count(), 1);
    assert!(html.contains(
        "<details class=\"obs\"><summary>Observation \u{2014} 80 lines \u{b7} exit code 1</summary>"
    ));
    assert!(html.contains("<div class=\"label\">Observation</div>\n<pre class=\"code sy-code\" data-lang=\"text\"><code>before &lt;/script&gt;"));
}

#[test]
fn edits_code_and_patch_are_coloured() {
    let html = page(&ExportOptions::default());
    assert!(html.contains("<code>cat &lt;&lt;EOF &gt;</code> \u{b7} <code>hello.py</code> \u{b7} <span class=\"status-ok\">applied</span>"));
    assert!(html.contains("<span class=\"da\">+print(&#39;hi&#39;)</span>"));
    assert!(html.contains("<section id=\"patch\"><h2>Final patch</h2>"));
    assert!(html.contains("data-lang=\"bash\"><code><span class=\"sy-"));
}

#[test]
fn matched_rules_show_on_steps_sidebar_and_header() {
    let rules_at = |step: usize| match step {
        1 => vec!["<b>bold rule</b>"],
        3 => vec!["exit != 0", "<b>bold rule</b>"],
        _ => Vec::new(),
    };
    let badges = StepBadges::collect(1..=3, rules_at, |_| Vec::new());
    let options = ExportOptions {
        badges: &badges,
        ..ExportOptions::default()
    };
    let html = page(&options);
    assert!(html.contains("<span class=\"rule\">&lt;b&gt;bold rule&lt;/b&gt; × 2</span>"));
    assert!(html.contains("<span class=\"rule\">exit != 0 × 1</span>"));
    assert!(html.contains("<li class=\"err ruled\"><a href=\"#step-3\" title=\"exit != 0, &lt;b&gt;bold rule&lt;/b&gt;\">"));
    assert_eq!(html.matches("<span class=\"rules\">").count(), 2);
    assert!(!html.contains("<b>"));
}

#[test]
fn a_range_exports_only_its_steps() {
    let options = ExportOptions {
        steps: StepRange::parse("2..3").unwrap(),
        ..ExportOptions::default()
    };
    let html = page(&options);
    assert!(!html.contains("id=\"step-1\"") && !html.contains("#step-1\""));
    assert!(html.contains("id=\"step-2\"") && html.contains("id=\"step-3\""));
    assert!(html.contains("this page shows steps 2..3"));
    assert!(!html.contains("Final patch"));
}
