//! `trajscope stats --emit-sql duckdb|spark`: a compiled rule set as ONE query over the
//! relations `steps` and `trajectories` (or, given a table folder, over its Parquet files)
//! giving one row per rule `stats` shows, with the columns `rule, matches, steps,
//! trajectories` and the same three for resolved, unresolved and unknown trajectories:
//! the numbers of `trajscope stats --json`. Hidden rules are computed (other rules refer to
//! them) but not output. A rule that cannot be translated with the same meaning is refused:
//! named with its reason in a comment at the top of the query and in [`Emitted::refused`],
//! and left out, with every rule that refers to it.

mod condition;
mod dialect;
mod regex;
mod sequence;
mod step_rule;

pub use dialect::Dialect;

use crate::metrics::{Matcher, Rule};
use condition::{Context, rust_space_class};
use std::collections::HashMap;
use std::sync::Arc;

/// The query and the rules it leaves out.
#[derive(Debug, Clone)]
pub struct Emitted {
    pub sql: String,
    pub refused: Vec<Refusal>,
}

/// A rule the query does not compute, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub rule: String,
    pub reason: String,
}

/// Where the relations come from: tables the engine already has, or a table folder.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    Relations,
    Folder(&'a str),
}

/// The output columns, in order.
pub const COLUMNS: [&str; 13] = [
    "rule",
    "matches",
    "steps",
    "trajectories",
    "resolved_matches",
    "resolved_steps",
    "resolved_trajectories",
    "unresolved_matches",
    "unresolved_steps",
    "unresolved_trajectories",
    "unknown_matches",
    "unknown_steps",
    "unknown_trajectories",
];

/// The query computing `matcher`'s tally in `dialect`. Fails only when `source` names a
/// folder the dialect cannot name.
pub fn emit(matcher: &Matcher, dialect: Dialect, source: Source<'_>) -> Result<Emitted, String> {
    let rules = matcher.rules();
    let mut refused: Vec<Refusal> = Vec::new();
    let refuse = |refused: &mut Vec<Refusal>, rule: &Rule, reason: String| {
        refused.push(Refusal {
            rule: rule.name.clone(),
            reason: reason.replace('\n', " "),
        });
    };

    // Each classifier once: its mode as a column.
    let mut classifiers: Vec<(
        Arc<crate::metrics::classifier::Classifier>,
        Result<String, String>,
    )> = Vec::new();
    let mut mode_column: HashMap<usize, String> = HashMap::new();
    for (id, rule) in rules.iter().enumerate() {
        let Some(shared) = &rule.classifier else {
            continue;
        };
        let at = match classifiers
            .iter()
            .position(|(c, _)| Arc::ptr_eq(c, &shared.0))
        {
            Some(at) => at,
            None => {
                let ctx = Context {
                    dialect,
                    rule: &shared.0.name,
                };
                classifiers.push((Arc::clone(&shared.0), step_rule::mode(&ctx, &shared.0)));
                classifiers.len() - 1
            }
        };
        mode_column.insert(id, format!("mode_{at}"));
    }

    let mut base: Vec<Option<String>> = Vec::with_capacity(rules.len());
    for (id, rule) in rules.iter().enumerate() {
        let ctx = Context {
            dialect,
            rule: &rule.name,
        };
        let mode = mode_column.get(&id);
        if let Some(column) = mode
            && let Some(at) = column
                .strip_prefix("mode_")
                .and_then(|n| n.parse::<usize>().ok())
            && let Err(reason) = &classifiers[at].1
        {
            refuse(
                &mut refused,
                rule,
                format!("classifier `{}`: {reason}", classifiers[at].0.name),
            );
            base.push(None);
            continue;
        }
        match step_rule::base_count(&ctx, rule, mode.map(String::as_str)) {
            Ok(count) => base.push(Some(count)),
            Err(reason) => {
                refuse(&mut refused, rule, reason);
                base.push(None);
            }
        }
    }
    // A rule referring to a refused rule cannot be computed either.
    for (id, rule) in rules.iter().enumerate() {
        if base[id].is_none() {
            continue;
        }
        if let Some(missing) = rule
            .references()
            .find(|name| matcher.id(name).is_none_or(|other| base[other].is_none()))
        {
            refuse(
                &mut refused,
                rule,
                format!("it refers to `{missing}`, which is refused"),
            );
            base[id] = None;
        }
    }

    let ids: HashMap<&str, usize> = rules
        .iter()
        .enumerate()
        .map(|(id, r)| (r.name.as_str(), id))
        .collect();
    let sequences: Vec<(usize, &Rule)> = rules
        .iter()
        .enumerate()
        .filter(|(id, r)| r.is_sequence() && base[*id].is_some())
        .collect();
    let levels = sequence::plan(&sequences, &ids);

    let mut sql = format!(
        "-- trajscope stats --emit-sql {dialect}: one row per rule, the numbers of `trajscope stats --json`.\n"
    );
    for r in &refused {
        sql.push_str(&format!("-- refused: rule `{}`: {}\n", r.rule, r.reason));
    }
    sql.push_str("WITH\n");
    if let Source::Folder(folder) = source {
        let folder = folder.trim_end_matches('/');
        sql.push_str(&format!(
            "steps AS (SELECT * FROM {}),\ntrajectories AS (SELECT * FROM {}),\n",
            dialect.relation(&format!("{folder}/{}", super::STEPS))?,
            dialect.relation(&format!("{folder}/{}", super::TRAJECTORIES))?
        ));
    }

    // Level 0: the step with its classifiers' modes (and what sequences read of it).
    let mut first: Vec<String> = vec!["s.*".into()];
    for (at, (_, mode)) in classifiers.iter().enumerate() {
        if let Ok(mode) = mode {
            first.push(format!("{mode} AS mode_{at}"));
        }
    }
    if levels.needs_trimmed_action {
        let space = rust_space_class();
        let trimmed = dialect.regex_strip(
            &dialect.regex_strip("s.action", &format!(r"\A{space}+")),
            &format!(r"{space}+\z"),
        );
        first.push(format!("{trimmed} AS act_trim"));
    }
    let from = if levels.needs_cost {
        first.push("t.logged_cost".into());
        "steps AS s LEFT JOIN trajectories AS t ON s.run = t.run AND s.trajectory = t.trajectory"
    } else {
        "steps AS s"
    };
    sql.push_str(&format!(
        "classified AS (SELECT {} FROM {from}),\n",
        first.join(", ")
    ));

    // Level 1: every rule's count at the step, before sequence conditions.
    let mut counts: Vec<String> = vec!["*".into()];
    for (id, count) in base.iter().enumerate() {
        if let Some(count) = count {
            counts.push(format!("{count} AS r_{id}"));
        }
    }
    sql.push_str(&format!(
        "counted AS (SELECT {} FROM classified),\n",
        counts.join(",\n  ")
    ));
    let mut previous = "counted".to_string();
    for (level, columns) in levels.levels.iter().enumerate() {
        let name = format!("seq_{level}");
        let mut select = vec!["*".to_string()];
        select.extend(columns.iter().cloned());
        sql.push_str(&format!(
            "{name} AS (SELECT {} FROM {previous}),\n",
            select.join(",\n  ")
        ));
        previous = name;
    }

    // Per trajectory, then per rule.
    let computed: Vec<usize> = (0..rules.len()).filter(|id| base[*id].is_some()).collect();
    let mut per_trajectory = vec!["run".to_string(), "trajectory".into(), "resolved".into()];
    for &id in &computed {
        let count = levels
            .finals
            .get(&id)
            .cloned()
            .unwrap_or_else(|| format!("r_{id}"));
        per_trajectory.push(format!("sum({count}) AS m_{id}"));
        per_trajectory.push(format!(
            "sum(CASE WHEN {count} > 0 THEN 1 ELSE 0 END) AS s_{id}"
        ));
    }
    sql.push_str(&format!(
        "per_trajectory AS (SELECT {} FROM {previous} GROUP BY run, trajectory, resolved)",
        per_trajectory.join(",\n  ")
    ));

    let shown: Vec<(usize, usize)> = computed
        .iter()
        .filter(|&&id| !rules[id].hidden)
        .enumerate()
        .map(|(ord, &id)| (ord, id))
        .collect();
    let columns = COLUMNS[1..].join(", ");
    if shown.is_empty() {
        let zeros = COLUMNS[1..]
            .iter()
            .map(|c| format!("CAST(0 AS BIGINT) AS {c}"))
            .collect::<Vec<_>>()
            .join(", ");
        sql.push_str(&format!(
            "\nSELECT CAST(NULL AS STRING) AS rule, {zeros} FROM per_trajectory WHERE 1 = 0\n"
        ));
        return Ok(Emitted { sql, refused });
    }
    // Every rule's totals in ONE aggregation over `per_trajectory`, then one row per rule:
    // a UNION ALL of a select per rule would be a plan (and, in Spark, a scan of the steps
    // with every rule's expressions) per rule.
    let mut totals = Vec::new();
    for &(ord, id) in &shown {
        totals.extend(rule_totals(ord, id));
    }
    sql.push_str(&format!(
        ",\ntotals AS {}(SELECT {} FROM per_trajectory)\n",
        if dialect == Dialect::DuckDb {
            "MATERIALIZED "
        } else {
            ""
        },
        totals.join(",\n  ")
    ));
    let out_columns = |ord: usize| -> Vec<String> {
        COLUMNS[1..]
            .iter()
            .map(|c| format!("t_{ord}_{c}"))
            .collect()
    };
    match dialect {
        Dialect::Spark => {
            let rows: Vec<String> = shown
                .iter()
                .map(|&(ord, id)| {
                    let mut cells = vec![dialect.string(&rules[id].name), ord.to_string()];
                    cells.extend(out_columns(ord));
                    cells.join(", ")
                })
                .collect();
            sql.push_str(&format!(
                "SELECT rule, {columns} FROM (SELECT stack({},\n  {}) AS (rule, ord, {columns}) FROM totals) AS tally ORDER BY ord\n",
                shown.len(),
                rows.join(",\n  ")
            ));
        }
        Dialect::DuckDb => {
            let rows: Vec<String> = shown
                .iter()
                .map(|&(ord, id)| {
                    let cells: Vec<String> = out_columns(ord)
                        .into_iter()
                        .zip(&COLUMNS[1..])
                        .map(|(from, to)| format!("{from} AS {to}"))
                        .collect();
                    format!(
                        "SELECT {} AS rule, {ord} AS ord, {} FROM totals",
                        dialect.string(&rules[id].name),
                        cells.join(", ")
                    )
                })
                .collect();
            sql.push_str(&format!(
                "SELECT rule, {columns} FROM (\n{}\n) AS tally ORDER BY ord\n",
                rows.join("\nUNION ALL\n")
            ));
        }
    }
    Ok(Emitted { sql, refused })
}

/// One rule's totals, overall and by outcome, as the columns `t_{ord}_{column}` of the
/// one-row `totals`.
fn rule_totals(ord: usize, id: usize) -> Vec<String> {
    let total = |expr: String| format!("CAST(coalesce(sum({expr}), 0) AS BIGINT)");
    let mut cells = Vec::new();
    for (prefix, filter) in [
        ("", "TRUE"),
        ("resolved_", "resolved = TRUE"),
        ("unresolved_", "resolved = FALSE"),
        ("unknown_", "resolved IS NULL"),
    ] {
        cells.push(format!(
            "{} AS t_{ord}_{prefix}matches",
            total(format!("CASE WHEN {filter} THEN m_{id} ELSE 0 END"))
        ));
        cells.push(format!(
            "{} AS t_{ord}_{prefix}steps",
            total(format!("CASE WHEN {filter} THEN s_{id} ELSE 0 END"))
        ));
        cells.push(format!(
            "{} AS t_{ord}_{prefix}trajectories",
            total(format!(
                "CASE WHEN {filter} AND s_{id} > 0 THEN 1 ELSE 0 END"
            ))
        ));
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::RuleSet;

    fn matcher(extra: &str) -> Matcher {
        let mut set = RuleSet::defaults();
        set.add_text(extra, "extra.toml");
        assert!(set.errors.is_empty(), "{:?}", set.errors);
        let (m, errors) = Matcher::new(set.rules);
        assert!(errors.is_empty(), "{errors:?}");
        m
    }

    #[test]
    fn the_defaults_translate_whole_in_both_dialects() {
        let m = matcher("");
        for dialect in [Dialect::DuckDb, Dialect::Spark] {
            let emitted = emit(&m, dialect, Source::Folder("t")).unwrap();
            assert!(
                emitted.refused.is_empty(),
                "{dialect}: {:?}",
                emitted.refused
            );
            let shown = m.rules().iter().filter(|r| !r.hidden).count();
            match dialect {
                Dialect::DuckDb => {
                    assert_eq!(emitted.sql.matches("\nUNION ALL\n").count(), shown - 1);
                }
                Dialect::Spark => assert!(emitted.sql.contains(&format!("stack({shown},"))),
            }
            assert_eq!(
                emitted.sql.matches("FROM per_trajectory").count(),
                1,
                "one aggregation pass over the trajectories"
            );
            assert!(
                !emitted.sql.contains("'syntax_errors_in_a_row' AS rule"),
                "hidden"
            );
            assert!(emitted.sql.contains("keep_"), "sequence rules are windows");
        }
        let duck = emit(&m, Dialect::DuckDb, Source::Folder("t/")).unwrap().sql;
        assert!(duck.contains("read_parquet('t/steps/*.parquet')"), "{duck}");
        let spark = emit(&m, Dialect::Spark, Source::Folder("s3a://b/t"))
            .unwrap()
            .sql;
        assert!(spark.contains("parquet.`s3a://b/t/steps`"));
    }

    #[test]
    fn an_untranslatable_rule_and_its_dependents_are_refused_in_the_comment() {
        let m = matcher(
            "[[rule]]\nname = \"crlf\"\nfield = \"observation\"\nregex = true\npattern = '(?R)^x$'\n\n[[rule]]\nname = \"after_crlf\"\ntool = \"*\"\nafter = \"crlf\"\n",
        );
        let emitted = emit(&m, Dialect::DuckDb, Source::Relations).unwrap();
        let names: Vec<&str> = emitted.refused.iter().map(|r| r.rule.as_str()).collect();
        assert_eq!(names, vec!["crlf", "after_crlf"]);
        assert!(emitted.sql.starts_with("-- trajscope"));
        assert!(
            emitted
                .sql
                .contains("-- refused: rule `after_crlf`: it refers to `crlf`"),
            "{}",
            emitted.sql
        );
        assert!(!emitted.sql.contains("'crlf' AS rule"));
        assert!(emitted.sql.contains("'edit' AS rule"));
    }

    #[test]
    fn spark_literals_escape_backslashes_and_quotes() {
        assert_eq!(Dialect::Spark.string(r"a\d'b"), r"'a\\d\'b'");
        assert_eq!(Dialect::DuckDb.string(r"a\d'b"), r"'a\d''b'");
    }
}
