//! Sequence conditions as window functions over (trajectory, step), mirroring
//! `metrics::sequence`: each condition becomes helper columns computed a level at a time
//! (a window cannot read another window's result in the same SELECT), then one flag per
//! rule saying whether its step-by-step matches are kept.

use crate::metrics::Rule;
use std::collections::HashMap;

/// One trajectory's steps in order.
pub const WINDOW: &str = "PARTITION BY run, trajectory ORDER BY step";
const TRAJECTORY: &str = "PARTITION BY run, trajectory";
const SO_FAR: &str = "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW";

/// Helper columns, by level: each level's columns read only the levels before.
#[derive(Debug, Default)]
pub struct Levels {
    pub levels: [Vec<String>; 6],
    /// Rule id → the expression of its final count.
    pub finals: HashMap<usize, String>,
    /// Whether the steps need the trajectory's logged cost and the trimmed action.
    pub needs_cost: bool,
    pub needs_trimmed_action: bool,
}

/// Plans the sequence rules of `rules` (ids index `rules`); `ids` resolves references.
pub fn plan(rules: &[(usize, &Rule)], ids: &HashMap<&str, usize>) -> Levels {
    let mut out = Levels::default();
    let mut streaks: Vec<bool> = Vec::new();
    for &(id, rule) in rules {
        let r = |name: &Option<String>| name.as_deref().and_then(|n| ids.get(n).copied());
        let mut keep = vec![format!("r_{id} > 0")];
        if let Some(other) = r(&rule.matches) {
            keep.push(format!("r_{other} > 0"));
        }
        if let Some(after) = r(&rule.after) {
            out.levels[0].push(format!(
                "coalesce(lag(r_{after}) OVER ({WINDOW}), 0) AS after_{id}"
            ));
            keep.push(format!("after_{id} > 0"));
        }
        if let Some(n) = rule.repeat {
            out.needs_trimmed_action = true;
            let same = rule.same_observation;
            if !streaks.contains(&same) {
                streaks.push(same);
                let tag = streak_tag(same);
                let mut differs = format!(
                    "act_trim = '' OR lag(act_trim) OVER ({WINDOW}) IS NULL OR lag(act_trim) OVER ({WINDOW}) <> act_trim"
                );
                if same {
                    differs.push_str(&format!(
                        " OR lag(observation) OVER ({WINDOW}) <> observation"
                    ));
                }
                out.levels[0].push(format!(
                    "CASE WHEN {differs} THEN 1 ELSE 0 END AS brk_{tag}"
                ));
                out.levels[1].push(format!(
                    "sum(brk_{tag}) OVER ({WINDOW} {SO_FAR}) AS grp_{tag}"
                ));
                out.levels[2].push(format!(
                    "CASE WHEN act_trim = '' THEN 0 ELSE row_number() OVER (PARTITION BY run, trajectory, grp_{tag} ORDER BY step) END AS streak_{tag}"
                ));
            }
            keep.push(format!("streak_{} >= {n}", streak_tag(same)));
        }
        if let Some(follower) = r(&rule.not_followed_by) {
            out.levels[0].push(format!(
                "min(CASE WHEN r_{follower} > 0 THEN step END) OVER ({WINDOW} ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS nf_{id}"
            ));
            match r(&rule.before) {
                Some(before) => {
                    out.levels[0].push(format!(
                        "min(CASE WHEN r_{before} > 0 THEN step END) OVER ({WINDOW} ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS nb_{id}"
                    ));
                    keep.push(format!(
                        "nb_{id} IS NOT NULL AND (nf_{id} IS NULL OR nf_{id} >= nb_{id})"
                    ));
                }
                None => keep.push(format!("nf_{id} IS NULL")),
            }
        }
        if let Some(limit) = rule.cost_above {
            if !out.needs_cost {
                out.needs_cost = true;
                out.levels[0].extend([
                    format!("max(CASE WHEN cost IS NOT NULL THEN 1 ELSE 0 END) OVER ({TRAJECTORY}) AS has_step_cost"),
                    format!("sum(coalesce(cost, 0)) OVER ({WINDOW} {SO_FAR}) AS cost_so_far"),
                    format!("max(step) OVER ({TRAJECTORY}) AS last_step"),
                ]);
            }
            keep.push(format!(
                "(CASE WHEN has_step_cost = 1 THEN cost_so_far WHEN step = last_step THEN coalesce(logged_cost, 0) ELSE 0 END) > {}",
                float(limit)
            ));
        }
        out.levels[3].push(format!(
            "CASE WHEN {} THEN 1 ELSE 0 END AS keep_{id}",
            keep.join(" AND ")
        ));
        let kept = match rule.in_a_row {
            Some(n) => {
                out.levels[4].push(format!(
                    "sum(1 - keep_{id}) OVER ({WINDOW} {SO_FAR}) AS gap_{id}"
                ));
                out.levels[5].push(format!(
                    "sum(keep_{id}) OVER (PARTITION BY run, trajectory, gap_{id} ORDER BY step {SO_FAR}) AS run_{id}"
                ));
                format!("keep_{id} = 1 AND run_{id} >= {n}")
            }
            None => format!("keep_{id} = 1"),
        };
        out.finals
            .insert(id, format!("CASE WHEN {kept} THEN r_{id} ELSE 0 END"));
    }
    out
}

fn streak_tag(same_observation: bool) -> &'static str {
    if same_observation { "ao" } else { "a" }
}

/// A dollar limit as an SQL double literal.
fn float(limit: f64) -> String {
    if limit.is_finite() {
        format!("CAST({limit:?} AS DOUBLE)")
    } else if limit > 0.0 {
        "CAST('Infinity' AS DOUBLE)".into()
    } else {
        "CAST('-Infinity' AS DOUBLE)".into()
    }
}
