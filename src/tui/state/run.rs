//! The run being browsed: its trajectories (as summaries), the files that failed, eval
//! results, and how the table is sorted, filtered and scrolled.

use super::list::ListCursor;
use crate::metrics::{FilterRow, RunFilter};
use crate::model::{EvalResults, LoadFailure, TrajectorySummary, labels};
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

/// A column of the run table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Column {
    Instance,
    Format,
    Steps,
    Exit,
    Resolved,
    Cost,
    Tokens,
    Patch,
    Errors,
    /// The phase strip: explore, edit, verify, submit, step by step.
    Phases,
}

impl Column {
    pub const ALL: [Column; 10] = [
        Column::Instance,
        Column::Format,
        Column::Steps,
        Column::Exit,
        Column::Resolved,
        Column::Cost,
        Column::Tokens,
        Column::Patch,
        Column::Errors,
        Column::Phases,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Column::Instance => "instance",
            Column::Format => "format",
            Column::Steps => "steps",
            Column::Exit => "exit status",
            Column::Resolved => "resolved",
            Column::Cost => "cost",
            Column::Tokens => "tokens",
            Column::Patch => "patch",
            Column::Errors => "errors",
            Column::Phases => "phases",
        }
    }

    /// Numbers sort biggest first when first chosen: the costliest, longest, most failing.
    pub fn descending_first(self) -> bool {
        matches!(
            self,
            Column::Steps | Column::Cost | Column::Tokens | Column::Patch | Column::Errors
        )
    }

    fn position(self) -> usize {
        Column::ALL.iter().position(|&c| c == self).unwrap_or(0)
    }

    pub fn next(self) -> Column {
        Column::ALL[(self.position() + 1) % Column::ALL.len()]
    }

    pub fn previous(self) -> Column {
        Column::ALL[(self.position() + Column::ALL.len() - 1) % Column::ALL.len()]
    }

    fn compare(self, a: &TrajectorySummary, b: &TrajectorySummary) -> Ordering {
        let tokens = |s: &TrajectorySummary| {
            s.usage.tokens_in.unwrap_or(0) + s.usage.tokens_out.unwrap_or(0)
        };
        match self {
            Column::Instance => a.instance_id.cmp(&b.instance_id),
            Column::Format => a.format.cmp(&b.format),
            Column::Steps => a.steps.cmp(&b.steps),
            Column::Exit => a.exit_status.cmp(&b.exit_status),
            Column::Resolved => a.resolved.cmp(&b.resolved),
            Column::Cost => a
                .usage
                .cost
                .unwrap_or(-1.0)
                .total_cmp(&b.usage.cost.unwrap_or(-1.0)),
            Column::Tokens => tokens(a).cmp(&tokens(b)),
            Column::Patch => a.patch_lines.cmp(&b.patch_lines),
            Column::Errors => a.error_steps.cmp(&b.error_steps),
            // The strip lives in the tally, not the summary: ties, so by instance.
            Column::Phases => Ordering::Equal,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sort {
    pub column: Column,
    pub descending: bool,
}

/// How far loading has come. `files_total` is known once the folder walk is done.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    pub files_done: usize,
    pub files_total: Option<usize>,
    pub bytes_done: u64,
    pub bytes_total: u64,
    /// Rows listed from a file still being read (a Parquet dataset's shard): the gauge then
    /// counts rows, since files and bytes stay at 0 for minutes.
    pub rows_streamed: usize,
    pub finished: bool,
}

/// Totals over the shown rows, for the summary line.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Totals {
    pub shown: usize,
    pub resolved: usize,
    pub judged: usize,
    pub cost: f64,
    pub with_cost: usize,
    pub steps: usize,
}

#[derive(Debug, Clone)]
pub struct RunState {
    /// What the user opened.
    pub roots: Vec<PathBuf>,
    pub rows: Vec<TrajectorySummary>,
    pub failures: Vec<LoadFailure>,
    pub results: EvalResults,
    /// Indices into `rows` of the rows shown, filtered and sorted.
    pub visible: Vec<usize>,
    pub sort: Sort,
    pub filter: String,
    pub cursor: ListCursor,
    /// The user has moved the cursor: keep their row selected as rows arrive and re-sort.
    /// Until then the first row stays selected, whichever file loaded first.
    pub user_moved: bool,
    pub progress: Progress,
    pub totals: Totals,
    /// Instance ids that more than one row has (several agents or runs on one task): the
    /// table tells those rows apart by where they come from ([`RunState::origin`]).
    pub shared_ids: HashSet<String>,
    /// Each row's label (parallel to `rows`): unique within the run.
    pub labels: Vec<String>,
    /// The filter in force: the terms of `filter` that parse.
    pub applied: RunFilter,
    /// Why the text in `filter` does not parse, shown in the filter line.
    pub filter_error: Option<String>,
    /// The names of the rules, for `rule:NAME` terms.
    pub rule_names: Vec<String>,
    /// The rules each trajectory matched, by (path, index in the file), as tallied.
    pub rule_hits: HashMap<(PathBuf, Option<usize>), Vec<String>>,
    /// The results files that gave rows their verdicts (the rows' own files left out).
    pub verdict_files: Vec<PathBuf>,
    /// The exit column's width: its longest cell (`submitted (exit_cost)`), within limits.
    pub exit_width: u16,
    /// Decimals of the cost column: one precision for the whole column.
    pub cost_decimals: usize,
}

impl RunState {
    pub fn new(roots: Vec<PathBuf>) -> RunState {
        RunState {
            roots,
            rows: Vec::new(),
            failures: Vec::new(),
            results: EvalResults::default(),
            visible: Vec::new(),
            sort: Sort {
                column: Column::Instance,
                descending: false,
            },
            filter: String::new(),
            cursor: ListCursor::default(),
            user_moved: false,
            progress: Progress::default(),
            totals: Totals::default(),
            shared_ids: HashSet::new(),
            labels: Vec::new(),
            applied: RunFilter::default(),
            filter_error: None,
            rule_names: Vec::new(),
            rule_hits: HashMap::new(),
            verdict_files: Vec::new(),
            exit_width: 13,
            cost_decimals: 4,
        }
    }

    /// A cost as the cost column shows it (the column's one precision).
    pub fn cost_cell(&self, dollars: f64) -> String {
        format!("${dollars:.prec$}", prec = self.cost_decimals)
    }

    /// The label of row `i`.
    pub fn label(&self, i: usize) -> &str {
        self.labels
            .get(i)
            .map_or_else(|| self.rows[i].instance_id.as_str(), String::as_str)
    }

    /// A run whose results start with the files the user named (`--results`),
    /// and the rule names `rule:` terms may use.
    pub fn with_results(
        roots: Vec<PathBuf>,
        named: Vec<crate::model::ResultsSource>,
        rule_names: Vec<String>,
    ) -> RunState {
        let mut run = RunState::new(roots);
        run.results.name_first(named);
        run.rule_names = rule_names;
        run
    }

    /// What tells `row` apart from other rows with its instance id: its folder under the
    /// root (folders and files named after the instance are skipped, they say nothing new),
    /// the root's name when several are open, and which of the file's trajectories it is.
    pub fn origin(&self, row: &TrajectorySummary) -> String {
        let root = self.roots.iter().find(|r| row.path.starts_with(r));
        let relative = root
            .and_then(|r| row.path.strip_prefix(r).ok())
            .unwrap_or(&row.path);
        let mut parts: Vec<String> = Vec::new();
        if self.roots.len() > 1
            && let Some(name) = root.and_then(|r| name_of(r))
        {
            parts.push(name);
        }
        let names: Vec<String> = relative
            .components()
            .filter_map(|c| match c {
                Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        let kept = names
            .iter()
            .rposition(|n| !n.contains(row.instance_id.as_str()))
            .map_or(0, |last| last + 1);
        if kept > 0 {
            parts.push(names[..kept].join("/"));
        } else if parts.is_empty()
            && let Some(file) = names.last()
        {
            parts.push(file.clone());
        }
        let mut origin = parts.join("/");
        if let Some(index) = row.source_index {
            origin.push_str(&format!(" #{}", index + 1));
        }
        origin
    }

    /// The row index under the cursor.
    pub fn selected_row(&self) -> Option<usize> {
        self.visible.get(self.cursor.selected).copied()
    }

    /// Recomputes `visible` and `totals` after rows, filter or sort changed, keeping the
    /// same row selected where it is still shown.
    pub fn refresh(&mut self) {
        let keep = self.selected_row().filter(|_| self.user_moved);
        let keys: Vec<_> = self.rows.iter().map(|r| r.label_key()).collect();
        self.labels = labels(&keys);
        let names: Vec<&str> = self.rule_names.iter().map(String::as_str).collect();
        let known = (!names.is_empty()).then_some(names.as_slice());
        // A term that does not parse is left out (and shown as an error), never matching
        // nothing in silence.
        let (filter, error) = RunFilter::parse_lenient(&self.filter, known);
        self.applied = filter;
        self.filter_error = error.map(|e| e.to_string());
        let mut visible: Vec<usize> = (0..self.rows.len())
            .filter(|&i| self.applied.is_empty() || self.matches(i))
            .collect();
        let Sort { column, descending } = self.sort;
        let root_of = |row: &TrajectorySummary| {
            self.roots
                .iter()
                .position(|r| row.path.starts_with(r))
                .unwrap_or(usize::MAX)
        };
        visible.sort_by(|&a, &b| {
            let (ra, rb) = (&self.rows[a], &self.rows[b]);
            let order = column.compare(ra, rb);
            let order = if descending { order.reverse() } else { order };
            order
                .then_with(|| ra.instance_id.cmp(&rb.instance_id))
                // Rows arrive in whatever order the files were read: ties go by root, in the
                // order the user named them, then by file, so the table is the same every time.
                .then_with(|| root_of(ra).cmp(&root_of(rb)))
                .then_with(|| ra.path.cmp(&rb.path))
                .then(ra.source_index.cmp(&rb.source_index))
                .then(a.cmp(&b))
        });
        self.visible = self.forks_under_parents(visible);
        if let Some(position) = keep.and_then(|k| self.visible.iter().position(|&i| i == k)) {
            self.cursor.selected = position;
        }
        self.totals = self.compute_totals();
        let own = |r: &TrajectorySummary| r.verdict_source.as_deref() == Some(r.path.as_path());
        let mut files: Vec<PathBuf> = Vec::new();
        for row in self.rows.iter().filter(|r| !own(r)) {
            if let Some(source) = &row.verdict_source
                && !files.contains(source)
            {
                files.push(source.clone());
            }
        }
        self.verdict_files = files;
        self.exit_width = self
            .rows
            .iter()
            .filter_map(|r| r.exit_shown())
            .map(|e| crate::text::display_width(&e))
            .max()
            .map_or(13, |w| w.clamp(11, 21) as u16);
        let most = self
            .rows
            .iter()
            .filter_map(|r| r.usage.cost)
            .fold(0.0_f64, f64::max);
        // `$12.3456` fits the column; bigger costs need fewer decimals.
        self.cost_decimals = if most < 100.0 {
            4
        } else if most < 10_000.0 {
            2
        } else {
            0
        };
        let mut seen: HashMap<&str, usize> = HashMap::new();
        // A fork shares its original's instance id by nature, and is marked as a fork: it
        // does not make the original ambiguous.
        for row in self.rows.iter().filter(|r| r.fork_of.is_none()) {
            *seen.entry(row.instance_id.as_str()).or_default() += 1;
        }
        self.shared_ids = seen
            .into_iter()
            .filter(|&(_, n)| n > 1)
            .map(|(id, _)| id.to_string())
            .collect();
    }

    /// Whether row `i` passes the filter in force.
    fn matches(&self, i: usize) -> bool {
        let row = &self.rows[i];
        let path = row.path.display().to_string();
        let exit = row.exit_shown();
        let hits = self.rule_hits.get(&(row.path.clone(), row.source_index));
        let matched = |name: &str| hits.is_some_and(|h| h.iter().any(|n| n == name));
        let mut subject = FilterRow::of_summary(row, self.label(i), &path);
        subject.exit = exit.as_deref();
        subject.rule = Some(&matched);
        self.applied.matches(&subject)
    }

    /// `visible` with each fork moved to just under the trajectory it forked from (forks of
    /// one parent in their sorted order; a fork whose parent is not shown stays in place).
    fn forks_under_parents(&self, visible: Vec<usize>) -> Vec<usize> {
        if !visible.iter().any(|&i| self.rows[i].fork_of.is_some()) {
            return visible;
        }
        let mut by_path: HashMap<&Path, usize> = HashMap::new();
        let mut by_name: HashMap<(Option<&Path>, Option<&OsStr>), usize> = HashMap::new();
        for &i in &visible {
            let path = self.rows[i].path.as_path();
            by_path.entry(path).or_insert(i);
            by_name
                .entry((path.parent(), path.file_name()))
                .or_insert(i);
        }
        let mut children: HashMap<usize, Vec<usize>> = HashMap::new();
        let mut roots = Vec::new();
        for &i in &visible {
            let row = &self.rows[i];
            let parent = row.fork_of.as_ref().and_then(|link| {
                by_path
                    .get(link.parent.as_path())
                    .or_else(|| by_name.get(&(row.path.parent(), link.parent.file_name())))
                    .copied()
                    .filter(|&p| p != i)
            });
            match parent {
                Some(p) => children.entry(p).or_default().push(i),
                None => roots.push(i),
            }
        }
        let mut out = Vec::with_capacity(visible.len());
        let mut seen = HashSet::new();
        let mut stack: Vec<usize> = roots.into_iter().rev().collect();
        while let Some(i) = stack.pop() {
            if !seen.insert(i) {
                continue;
            }
            out.push(i);
            if let Some(kids) = children.get(&i) {
                stack.extend(kids.iter().rev());
            }
        }
        // Forks whose parents fork from each other in a circle: where they were.
        out.extend(visible.into_iter().filter(|i| !seen.contains(i)));
        out
    }

    fn compute_totals(&self) -> Totals {
        let mut t = Totals {
            shown: self.visible.len(),
            ..Totals::default()
        };
        for row in self.visible.iter().map(|&i| &self.rows[i]) {
            if let Some(resolved) = row.resolved {
                t.judged += 1;
                t.resolved += usize::from(resolved);
            }
            if let Some(cost) = row.usage.cost {
                t.cost += cost;
                t.with_cost += 1;
            }
            t.steps += row.steps;
        }
        t
    }

    /// Adds rows as their files load, joining the eval results known so far.
    pub fn add_rows(&mut self, mut rows: Vec<TrajectorySummary>) {
        let run = self.row_paths();
        self.results.apply_among(&mut rows, &run);
        self.rows.extend(rows);
        self.refresh();
    }

    /// Rows and results files of many files at once, joined and sorted once.
    pub fn add_batch(
        &mut self,
        mut rows: Vec<TrajectorySummary>,
        sources: Vec<crate::model::ResultsSource>,
    ) {
        if rows.is_empty() && sources.is_empty() {
            return;
        }
        if sources.is_empty() {
            let run = self.row_paths();
            self.results.apply_among(&mut rows, &run);
            self.rows.extend(rows);
        } else {
            self.rows.extend(rows);
            self.results.sources.extend(sources);
            self.results.apply(&mut self.rows);
        }
        self.refresh();
    }

    /// The files of the rows listed so far.
    fn row_paths(&self) -> Vec<std::path::PathBuf> {
        self.rows.iter().map(|r| r.path.clone()).collect()
    }

    /// A results file arrived: join it into every row.
    pub fn add_results(&mut self, source: crate::model::ResultsSource) {
        self.results.sources.push(source);
        self.results.apply(&mut self.rows);
        self.refresh();
    }

    /// The row of the trajectory `source`, if the run lists it.
    pub fn row_of(&self, source: &super::trajectory::TrajectoryRef) -> Option<usize> {
        self.rows
            .iter()
            .position(|r| r.path == source.path && r.source_index == source.index)
    }

    /// The visible position after (or before) the row `row`, for next/previous trajectory.
    pub fn neighbour(&self, row: usize, forward: bool) -> Option<usize> {
        let position = self.visible.iter().position(|&i| i == row)?;
        let next = if forward {
            position.checked_add(1)?
        } else {
            position.checked_sub(1)?
        };
        self.visible.get(next).copied()
    }
}

fn name_of(root: &Path) -> Option<String> {
    root.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .or_else(|| Some(root.display().to_string()).filter(|s| !s.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Format, Trajectory};

    #[test]
    fn rows_sharing_an_instance_id_are_told_apart_by_where_they_come_from() {
        let at = |path: &str, index: Option<usize>| {
            let mut r = row("astropy__astropy-12907", 3, 0.0, None);
            r.path = PathBuf::from(path);
            r.source_index = index;
            r
        };
        let mut run = RunState::new(vec![PathBuf::from("runs")]);
        run.rows = vec![
            at(
                "runs/swe-agent/astropy__astropy-12907/astropy__astropy-12907.traj",
                None,
            ),
            at("runs/claude-code/session-1.jsonl", None),
            at("runs/openhands/output.jsonl", Some(4)),
            row("other", 1, 0.0, None),
        ];
        run.refresh();
        assert_eq!(
            run.shared_ids,
            HashSet::from(["astropy__astropy-12907".to_string()])
        );
        // Folders and files named after the instance say nothing new and are skipped.
        assert_eq!(run.origin(&run.rows[0]), "swe-agent");
        assert_eq!(run.origin(&run.rows[1]), "claude-code/session-1.jsonl");
        assert_eq!(run.origin(&run.rows[2]), "openhands/output.jsonl #5");

        // Two runs of one benchmark: the root tells them apart.
        let mut two = RunState::new(vec![PathBuf::from("a/run-1"), PathBuf::from("b/run-2")]);
        two.rows = vec![
            at("a/run-1/astropy__astropy-12907.traj", None),
            at("b/run-2/astropy__astropy-12907.traj", None),
        ];
        two.refresh();
        assert_eq!(two.origin(&two.rows[0]), "run-1");
        assert_eq!(two.origin(&two.rows[1]), "run-2");
    }

    fn row(id: &str, steps: usize, cost: f64, resolved: Option<bool>) -> TrajectorySummary {
        let mut s =
            TrajectorySummary::of(&Trajectory::new(format!("run/{id}.traj"), Format::SweAgent));
        s.steps = steps;
        s.exit_status = Some("submitted".into());
        s.resolved = resolved;
        s.usage.cost = Some(cost);
        s
    }

    fn run() -> RunState {
        let mut run = RunState::new(vec![PathBuf::from("run")]);
        run.add_rows(vec![
            row("b", 10, 0.5, Some(true)),
            row("a", 30, 0.1, Some(false)),
            row("c", 20, 1.0, None),
        ]);
        run
    }

    fn ids(run: &RunState) -> Vec<&str> {
        run.visible
            .iter()
            .map(|&i| run.rows[i].instance_id.as_str())
            .collect()
    }

    #[test]
    fn sorts_by_any_column_and_keeps_the_selection() {
        let mut run = run();
        assert_eq!(ids(&run), ["a", "b", "c"]);
        run.cursor.selected = 1; // b
        run.user_moved = true;
        run.sort = Sort {
            column: Column::Steps,
            descending: true,
        };
        run.refresh();
        assert_eq!(ids(&run), ["a", "c", "b"]);
        assert_eq!(
            run.selected_row().map(|i| run.rows[i].instance_id.as_str()),
            Some("b")
        );
        run.sort = Sort {
            column: Column::Cost,
            descending: false,
        };
        run.refresh();
        assert_eq!(ids(&run), ["a", "b", "c"]);
    }

    #[test]
    fn filters_on_every_word_and_totals_follow() {
        let mut run = run();
        assert_eq!(run.totals.shown, 3);
        assert_eq!((run.totals.resolved, run.totals.judged), (1, 2));
        assert!((run.totals.cost - 1.6).abs() < 1e-9);
        run.filter = "resolved:no".into();
        run.refresh();
        assert_eq!(ids(&run), ["a"]);
        run.filter = "exit:submitted c".into();
        run.refresh();
        assert_eq!(ids(&run), ["c"]);
        assert_eq!(run.totals.steps, 20);
    }

    #[test]
    fn forks_sit_under_their_original_in_any_sort() {
        let mut run = run();
        let mut fork = row("a", 3, 9.0, None);
        fork.path = PathBuf::from("run/a.fork-k2-1.trajscope.json");
        fork.format = Format::Trajscope;
        // Written by a replay started elsewhere: only the file name matches.
        fork.fork_of = Some(crate::model::ForkLink {
            parent: PathBuf::from("/elsewhere/run/a.traj"),
            step: 2,
        });
        run.add_rows(vec![fork]);
        let order = |run: &RunState| -> Vec<String> {
            run.visible
                .iter()
                .map(|&i| run.rows[i].path.display().to_string())
                .collect()
        };
        assert_eq!(
            order(&run),
            [
                "run/a.traj",
                "run/a.fork-k2-1.trajscope.json",
                "run/b.traj",
                "run/c.traj"
            ]
        );
        // By cost, descending: the fork (9.0) would come first; it stays under a (0.1).
        run.sort = Sort {
            column: Column::Cost,
            descending: true,
        };
        run.refresh();
        assert_eq!(
            order(&run),
            [
                "run/c.traj",
                "run/b.traj",
                "run/a.traj",
                "run/a.fork-k2-1.trajscope.json"
            ]
        );
        assert!(
            run.shared_ids.is_empty(),
            "a fork does not make `a` ambiguous"
        );
        run.filter = "trajscope".into();
        run.refresh();
        assert_eq!(
            order(&run),
            ["run/a.fork-k2-1.trajscope.json"],
            "alone when filtered"
        );
    }

    #[test]
    fn neighbours_follow_the_visible_order() {
        let run = run();
        let a = run.rows.iter().position(|r| r.instance_id == "a").unwrap();
        let b = run.neighbour(a, true).unwrap();
        assert_eq!(run.rows[b].instance_id, "b");
        assert_eq!(run.neighbour(a, false), None);
    }
}
