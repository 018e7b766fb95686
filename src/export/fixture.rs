//! A small trajectory holding everything that has broken a Markdown or HTML document
//! somewhere, for the export tests of both formats.

use crate::model::{Format, Step, Trajectory};

/// Everything that has broken a Markdown or HTML document somewhere.
pub const HOSTILE: &str = "before </script><script>alert(1)</script> <img src=x onerror=alert(2)>\n\
<!-- an unclosed comment\n]]> <![CDATA[ x\n```\nfence in the log\n````\n~~~\n</details></pre>\n\
\x1b[31mred\x1b[0m nul:\0 bell:\x07 del:\x7f";

pub fn trajectory() -> Trajectory {
    let mut t = Trajectory::new("runs/x/demo__demo-1.traj", Format::SweAgent);
    t.model = Some("gpt-4o".into());
    t.exit_status = Some("submitted".into());
    t.task = Some("Fix `<b>` handling.\n\n```python\nprint('<b>')\n```\n<!-- hidden".into());
    t.steps.push(Step {
        thought: format!("Let me look. {HOSTILE}\n```\nnever closed"),
        action: "ls -la".into(),
        tool: Some("bash".into()),
        observation: HOSTILE.into(),
        ..Step::default()
    });
    t.steps.push(Step {
        thought: "Write the fix.".into(),
        action: "cat <<'EOF' > hello.py\nprint('hi')\nEOF".into(),
        tool: Some("bash".into()),
        ..Step::default()
    });
    t.steps.push(Step {
        action: "python hello.py".into(),
        tool: Some("bash".into()),
        observation: (1..=80).map(|i| format!("line {i}\n")).collect(),
        exit_code: Some(1),
        ..Step::default()
    });
    t.submission = Some("diff --git a/hello.py b/hello.py\n--- /dev/null\n+++ b/hello.py\n@@ -0,0 +1 @@\n+print('hi')\n".into());
    t.number_steps();
    t
}
