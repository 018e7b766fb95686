//! SWE-agent demonstrations: `trajectories/demonstrations/*.yaml`, the YAML that
//! `sweagent traj-to-demo` writes and replays read. It holds a `history` of messages (with
//! `tool_calls`, `agent`, `message_type`) like a `.traj`'s, and a `replay_config`; read by
//! turning it into the JSON the `.traj` reader takes.

use crate::formats::LoadError;
use std::path::Path;

/// Whether the text (its start) is a demonstration: YAML with a top-level `history:` key
/// whose items have roles. JSON never starts a line with `history:`.
pub fn looks_like(head: &str) -> bool {
    head.lines().any(|l| l.trim_end() == "history:")
        && (head.contains("- role: ") || head.contains("  role: "))
}

/// The demonstration as JSON bytes, or `None` when `bytes` are JSON already.
pub fn to_json(path: &Path, bytes: &[u8]) -> Result<Option<Vec<u8>>, LoadError> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if matches!(first, Some(b'{' | b'[') | None) {
        return Ok(None);
    }
    let value: serde_json::Value = serde_yaml_ng::from_slice(bytes).map_err(|err| {
        LoadError::invalid(
            path,
            format!("not a readable SWE-agent demonstration (YAML): {err}"),
        )
    })?;
    if value.get("history").is_none_or(|h| !h.is_array()) {
        return Err(LoadError::invalid(
            path,
            "YAML without a `history` list: not a SWE-agent demonstration",
        ));
    }
    serde_json::to_vec(&value)
        .map(Some)
        .map_err(|err| LoadError::invalid(path, err.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_histories_become_json() {
        let yaml = "# a demo\nhistory:\n  - role: user\n    content: |-\n      Fix it\n    agent: main\n  - role: assistant\n    content: ok\n    tool_calls:\n      - function:\n          arguments: '{\"command\":\"ls\"}'\n          name: bash\n        id: c1\n";
        assert!(looks_like(yaml));
        let json = to_json(Path::new("d.yaml"), yaml.as_bytes())
            .unwrap()
            .unwrap();
        let value: serde_json::Value = serde_json::from_slice(&json).unwrap();
        assert_eq!(value["history"][0]["content"], "Fix it");
        assert_eq!(
            value["history"][1]["tool_calls"][0]["function"]["name"],
            "bash"
        );
        assert!(to_json(Path::new("t.traj"), b"{}").unwrap().is_none());
        let err = to_json(Path::new("x.yaml"), b"replay_config: {}\n").unwrap_err();
        assert!(err.to_string().contains("x.yaml"), "{err}");
        assert!(!looks_like("name: ci\njobs:\n  build: {}\n"));
    }
}
