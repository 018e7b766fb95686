//! The small part of Jinja that agents' observation and error templates use, so that a replayed
//! observation is rendered with the very template the recorded run used (mini-swe-agent keeps
//! `action_observation_template`, `format_error_template` and `timeout_template` in its log).
//!
//! Supported: text, `{{ expr }}`, `{% if %}`/`{% elif %}`/`{% else %}`/`{% endif %}`,
//! `{% set name = expr %}`, whitespace control (`{{-`, `-}}`, `{%-`, `-%}`). Expressions:
//! names with `.attr` and `['key']`, integer and string literals, slices `[:n]` / `[-n:]`,
//! the `length` filter, `+ - < > <= >= == !=`, `not`, `and`, `or`. Pure; nothing here panics.

mod eval;
mod parse;

use serde_json::Value;
use thiserror::Error;

/// Why a template could not be rendered.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("template: {0}")]
pub struct TemplateError(pub String);

/// Renders `template` with `vars` (a JSON object of the names the template uses).
pub fn render(template: &str, vars: &Value) -> Result<String, TemplateError> {
    let nodes = parse::parse(template)?;
    let mut scope = match vars {
        Value::Object(map) => map.clone(),
        _ => serde_json::Map::new(),
    };
    let mut out = String::new();
    eval::run(&nodes, &mut scope, &mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const MINI_LONG: &str = "<returncode>{{output.returncode}}</returncode>\n{% if output.output | length < 10000 -%}\n<output>\n{{ output.output -}}\n</output>\n{%- else -%}\n<warning>\ntoo long\n</warning>\n{%- set elided_chars = output.output | length - 10 -%}\n<output_head>\n{{ output.output[:5] }}\n</output_head>\n<elided_chars>\n{{ elided_chars }} characters elided\n</elided_chars>\n<output_tail>\n{{ output.output[-5:] }}\n</output_tail>\n{%- endif -%}";

    #[test]
    fn mini_swe_agent_short_observation() {
        let v = json!({"output": {"returncode": 0, "output": "3 0 -4\n"}});
        let simple =
            "<returncode>{{output.returncode}}</returncode>\n<output>\n{{output.output}}</output>";
        assert_eq!(
            render(simple, &v).unwrap(),
            "<returncode>0</returncode>\n<output>\n3 0 -4\n</output>"
        );
        assert_eq!(
            render(MINI_LONG, &v).unwrap(),
            "<returncode>0</returncode>\n<output>\n3 0 -4\n</output>"
        );
    }

    #[test]
    fn mini_swe_agent_long_observation_is_elided() {
        let long = "abcdefghij".repeat(1001);
        let v = json!({"output": {"returncode": 1, "output": long}});
        let out = render(MINI_LONG, &v).unwrap();
        assert!(out.starts_with("<returncode>1</returncode>\n<warning>\ntoo long\n</warning><output_head>\nabcde\n</output_head>"));
        assert!(out.contains("<elided_chars>\n10000 characters elided\n</elided_chars>"));
        assert!(out.ends_with("<output_tail>\nfghij\n</output_tail>"));
    }

    #[test]
    fn exception_info_and_lists() {
        let t = "{% if output.exception_info %}<exception>{{output.exception_info}}</exception>\n{% endif %}<returncode>{{output.returncode}}</returncode>";
        let v = json!({"output": {"returncode": -1, "exception_info": ""}});
        assert_eq!(render(t, &v).unwrap(), "<returncode>-1</returncode>");
        let v = json!({"output": {"returncode": 1, "exception_info": "boom"}});
        assert_eq!(
            render(t, &v).unwrap(),
            "<exception>boom</exception>\n<returncode>1</returncode>"
        );
        let f = "found {{actions|length}} actions, last {{ action['action'] }}.";
        let v = json!({"actions": ["a", "b"], "action": {"action": "ls"}});
        assert_eq!(render(f, &v).unwrap(), "found 2 actions, last ls.");
    }

    #[test]
    fn elif_not_and_comparisons() {
        let t = "{% if n > 2 and not quiet %}big{% elif n == 2 %}two{% else %}small{% endif %}";
        assert_eq!(render(t, &json!({"n": 3, "quiet": false})).unwrap(), "big");
        assert_eq!(render(t, &json!({"n": 2})).unwrap(), "two");
        assert_eq!(render(t, &json!({"n": 1})).unwrap(), "small");
    }

    #[test]
    fn bad_templates_are_errors_not_panics() {
        for t in [
            "{{ a",
            "{% if a %}x",
            "{% endif %}",
            "{{ a[ }}",
            "{% frobnicate %}",
            "{{ 1 + }}",
        ] {
            assert!(render(t, &json!({})).is_err(), "{t}");
        }
        assert_eq!(render("{{ missing.deep }}", &json!({})).unwrap(), "");
    }
}
