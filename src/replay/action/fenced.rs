//! Commands inside text answers: SWE-agent's last top-level fenced block (or `<command>` tag),
//! mini-swe-agent's regex matches.

use regex::Regex;
use std::sync::LazyLock;

static FENCE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?m)^```(\S*)\s*\n|^```\s*$").ok());

/// SWE-agent's `ThoughtActionParser`: the last fenced block that is not nested in another;
/// `XMLThoughtActionParser`: the last `<command>…</command>`.
pub fn swe_agent_action(text: &str) -> Option<String> {
    if let Some(command) = xml_command(text) {
        return Some(command);
    }
    let fence = FENCE.as_ref()?;
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let mut last: Option<(usize, usize)> = None;
    for caps in fence.captures_iter(text) {
        let Some(m) = caps.get(0) else { continue };
        let opener = caps.get(1).map(|g| g.as_str());
        match opener {
            // A bare fence closes the innermost open block when one is open.
            Some("") | None if !stack.is_empty() => {
                if let Some((_, body_start)) = stack.pop()
                    && stack.is_empty()
                {
                    last = Some((body_start, m.start()));
                }
            }
            Some(_) => stack.push((m.start(), m.end())),
            None => {}
        }
    }
    last.map(|(a, b)| text[a..b].to_string())
}

fn xml_command(text: &str) -> Option<String> {
    let end = text.rfind("</command>")?;
    let start = text[..end].rfind("<command>")? + "<command>".len();
    Some(text[start..end].trim_start_matches('\n').to_string())
}

/// Every match of mini-swe-agent's `action_regex` (its first group, or the whole match).
pub fn regex_actions(pattern: &str, text: &str) -> Vec<String> {
    let Ok(re) = Regex::new(pattern) else {
        return Vec::new();
    };
    re.captures_iter(text)
        .filter_map(|c| {
            c.get(1)
                .or_else(|| c.get(0))
                .map(|m| m.as_str().to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swe_agent_takes_the_last_top_level_block() {
        let text = "DISCUSSION\nLet's look.\n```\nls -F\n```\n";
        assert_eq!(swe_agent_action(text).as_deref(), Some("ls -F\n"));
        let two = "first\n```\nls\n```\nthen\n```bash\ncat a.py\n```";
        assert_eq!(swe_agent_action(two).as_deref(), Some("cat a.py\n"));
        let nested = "```\nedit 1:3\n```python\nx = 1\n```\nend_of_edit\n```";
        assert_eq!(
            swe_agent_action(nested).as_deref(),
            Some("edit 1:3\n```python\nx = 1\n```\nend_of_edit\n")
        );
        assert_eq!(swe_agent_action("no command here"), None);
        assert_eq!(swe_agent_action("```\nunclosed"), None);
        let xml = "Let's see.\n<command>\nls -F\n</command>";
        assert_eq!(swe_agent_action(xml).as_deref(), Some("ls -F\n"));
    }

    #[test]
    fn mini_swe_agent_counts_every_block() {
        let re = r"(?s)```bash\s*\n(.*?)\n```";
        let text = "THOUGHT: x\n\n```bash\nls -la\n```";
        assert_eq!(regex_actions(re, text), vec!["ls -la"]);
        let two = "```bash\nls\n```\nand\n```bash\npwd\n```";
        assert_eq!(regex_actions(re, two).len(), 2);
        assert!(regex_actions(re, "```python\nx\n```").is_empty());
    }
}
