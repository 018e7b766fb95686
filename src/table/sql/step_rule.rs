//! A rule decided by its own step, as the SQL count of its matches at one row of the steps
//! relation, in the order the matcher applies its parts: the pattern's occurrences in each
//! field it covers, the step conditions (tool, after a tool call), `unless`, `when`; and a
//! classifier as the nested CASE its ordered cases are.

use super::condition::{Context, column, fields};
use crate::metrics::Rule;
use crate::metrics::classifier::{Case, Classifier, Then};

/// The matches of `rule` at a step, before sequence conditions. `mode_column` is the
/// column holding the mode its classifier gives the step, for a mode.
pub fn base_count(
    ctx: &Context<'_>,
    rule: &Rule,
    mode_column: Option<&str>,
) -> Result<String, String> {
    let d = ctx.dialect;
    if let Some(mode) = mode_column {
        return Ok(format!(
            "CASE WHEN {mode} = {} THEN 1 ELSE 0 END",
            d.string(&rule.name)
        ));
    }
    let mut qualifies: Vec<String> = Vec::new();
    if rule.after_tool_call {
        qualifies.push("executed".into());
    }
    let mut count = match &rule.pattern {
        Some(pattern) => {
            if pattern.text.is_empty() {
                return Err("the pattern is empty".into());
            }
            let parts = fields(rule.field)
                .into_iter()
                .map(|f| {
                    let text = column(f, d);
                    if !pattern.regex && !pattern.ignore_case {
                        Ok(d.literal_count(text, &pattern.text))
                    } else {
                        ctx.regex_count(
                            text,
                            &regex_source(&pattern.text, pattern.regex, pattern.ignore_case),
                        )
                    }
                })
                .collect::<Result<Vec<_>, String>>()?;
            if let Some(tools) = &rule.tool {
                qualifies.push(format!("{} > 0", ctx.tool_calls(tools)));
            }
            format!("({})", parts.join(" + "))
        }
        None => match &rule.tool {
            Some(tools) => ctx.tool_calls(tools),
            None => "1".into(),
        },
    };
    if !qualifies.is_empty() {
        count = format!(
            "CASE WHEN {} THEN {count} ELSE 0 END",
            qualifies.join(" AND ")
        );
    }
    if let Some(unless) = &rule.unless {
        let source = regex_source(&unless.text, unless.regex, unless.ignore_case);
        let excluded = fields(rule.field)
            .into_iter()
            .map(|f| ctx.regex_matches(column(f, d), &source))
            .collect::<Result<Vec<_>, String>>()?;
        count = format!(
            "CASE WHEN {} THEN 0 ELSE {count} END",
            excluded.join(" OR ")
        );
    }
    if let Some(when) = &rule.when {
        count = format!("CASE WHEN {} THEN {count} ELSE 0 END", ctx.condition(when)?);
    }
    Ok(count)
}

/// A pattern as the matcher compiles it: line-anchored, case-insensitive on request.
fn regex_source(text: &str, regex: bool, ignore_case: bool) -> String {
    let flags = if ignore_case { "(?mi)" } else { "(?m)" };
    if regex {
        format!("{flags}{text}")
    } else {
        format!("{flags}{}", regex::escape(text))
    }
}

/// The mode `classifier` gives a step (NULL for none), as nested CASE expressions.
pub fn mode(ctx: &Context<'_>, classifier: &Classifier) -> Result<String, String> {
    let decided = decide(ctx, &classifier.cases)?;
    Ok(match &classifier.when {
        Some(when) => format!(
            "CASE WHEN {} THEN {decided} ELSE CAST(NULL AS STRING) END",
            ctx.condition(when)?
        ),
        None => decided,
    })
}

fn decide(ctx: &Context<'_>, cases: &[Case]) -> Result<String, String> {
    let mut out = String::from("CASE");
    for case in cases {
        let when = match &case.when {
            Some(condition) => ctx.condition(condition)?,
            None => "TRUE".into(),
        };
        let then = match &case.then {
            Then::Mode(mode) => ctx.dialect.string(mode),
            Then::Branch(inner) => decide(ctx, inner)?,
            Then::Stop => "CAST(NULL AS STRING)".into(),
        };
        out.push_str(&format!(" WHEN {when} THEN {then}"));
    }
    out.push_str(" ELSE CAST(NULL AS STRING) END");
    Ok(out)
}
