//! The columns of the two tables (their Arrow schemas, documented in docs/parquet.md) and
//! the builders that collect rows until a batch is cut. A step row holds every fact a rule
//! can look at, as the rule language reads it: the `tool` text is what a rule on the `tool`
//! field searches, `tool_calls` what a `tool` condition tests, `executed` what
//! `after_tool_call` asks.

use super::parts::Bounds;
use crate::metrics::{Field, made_tool_call, tool_calls_of};
use crate::model::{Step, Trajectory};
use arrow_array::builder::{
    BooleanBuilder, Float64Builder, Int64Builder, ListBuilder, StringBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{ArrowError, DataType, Field as Column, Schema, SchemaRef};
use std::sync::{Arc, LazyLock};

/// Who a row belongs to: the trajectory's identity and outcome, after eval results are
/// joined (the same values `trajscope ls` and `stats` use).
#[derive(Debug, Clone)]
pub struct Identity {
    pub run: String,
    /// `path`, or `path#N` for the N-th trajectory of a file holding several.
    pub trajectory: String,
    pub path: String,
    pub source_index: Option<usize>,
    pub label: String,
    pub instance_id: String,
    pub model: Option<String>,
    pub resolved: Option<bool>,
    pub exit_status: Option<String>,
}

fn text(name: &str) -> Column {
    Column::new(name, DataType::Utf8, false)
}

fn maybe_text(name: &str) -> Column {
    Column::new(name, DataType::Utf8, true)
}

fn identity_columns() -> Vec<Column> {
    vec![
        text("run"),
        text("trajectory"),
        text("path"),
        Column::new("source_index", DataType::Int64, true),
        text("label"),
        text("instance_id"),
        maybe_text("model"),
        Column::new("resolved", DataType::Boolean, true),
        maybe_text("exit_status"),
    ]
}

/// The steps relation.
pub static STEP_SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut columns = identity_columns();
    columns.extend([
        Column::new("step", DataType::Int64, false),
        text("kind"),
        Column::new("executed", DataType::Boolean, false),
        Column::new("failed", DataType::Boolean, false),
        text("tool"),
        Column::new(
            "tool_calls",
            DataType::List(Arc::new(Column::new("item", DataType::Utf8, true))),
            false,
        ),
        Column::new("tool_call_count", DataType::Int64, false),
        text("action"),
        text("thought"),
        text("response"),
        text("observation"),
        text("user"),
        Column::new("exit_code", DataType::Int64, true),
        Column::new("tokens_in", DataType::Int64, true),
        Column::new("tokens_out", DataType::Int64, true),
        Column::new("cost", DataType::Float64, true),
    ]);
    Arc::new(Schema::new(columns))
});

/// The trajectories relation.
pub static TRAJECTORY_SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut columns = identity_columns();
    columns.extend([
        text("format"),
        maybe_text("forced_exit"),
        Column::new("steps", DataType::Int64, false),
        Column::new("cost", DataType::Float64, true),
        Column::new("logged_cost", DataType::Float64, true),
        Column::new("tokens_in", DataType::Int64, true),
        Column::new("tokens_out", DataType::Int64, true),
        Column::new("patch_lines", DataType::Int64, false),
        maybe_text("submission"),
    ]);
    Arc::new(Schema::new(columns))
});

fn int(value: usize) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

fn count(value: Option<u64>) -> Option<i64> {
    value.map(|v| i64::try_from(v).unwrap_or(i64::MAX))
}

#[derive(Default)]
struct IdentityBuilders {
    run: StringBuilder,
    trajectory: StringBuilder,
    path: StringBuilder,
    source_index: Int64Builder,
    label: StringBuilder,
    instance_id: StringBuilder,
    model: StringBuilder,
    resolved: BooleanBuilder,
    exit_status: StringBuilder,
}

impl IdentityBuilders {
    fn push(&mut self, id: &Identity) {
        self.run.append_value(&id.run);
        self.trajectory.append_value(&id.trajectory);
        self.path.append_value(&id.path);
        self.source_index.append_option(id.source_index.map(int));
        self.label.append_value(&id.label);
        self.instance_id.append_value(&id.instance_id);
        self.model.append_option(id.model.as_deref());
        self.resolved.append_option(id.resolved);
        self.exit_status.append_option(id.exit_status.as_deref());
    }

    fn finish(&mut self) -> Vec<ArrayRef> {
        vec![
            Arc::new(self.run.finish()),
            Arc::new(self.trajectory.finish()),
            Arc::new(self.path.finish()),
            Arc::new(self.source_index.finish()),
            Arc::new(self.label.finish()),
            Arc::new(self.instance_id.finish()),
            Arc::new(self.model.finish()),
            Arc::new(self.resolved.finish()),
            Arc::new(self.exit_status.finish()),
        ]
    }
}

/// A table's own columns (those after the identity ones), built row by row.
pub trait Columns: Default {
    /// The whole table's schema: the identity columns, then these.
    fn schema() -> SchemaRef;
    /// These columns' arrays, in schema order; the builders start empty again.
    fn finish(&mut self) -> Vec<ArrayRef>;
}

/// Rows of one table not yet cut into a batch: their identity columns, the table's own
/// columns, and how many rows and roughly how many bytes they hold (what bounds a batch).
#[derive(Default)]
pub struct Pending<C> {
    identity: IdentityBuilders,
    columns: C,
    rows: usize,
    bytes: usize,
}

/// Step rows not yet cut into a batch.
pub type StepRows = Pending<StepColumns>;

/// Trajectory rows not yet cut into a batch.
pub type TrajectoryRows = Pending<TrajectoryColumns>;

impl<C: Columns> Pending<C> {
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Whether the rows reach a row group's bounds, so are cut now.
    pub fn full(&self, bounds: &Bounds) -> bool {
        self.rows >= bounds.group_rows || self.bytes >= bounds.group_bytes
    }

    /// Starts a row of `id`: its identity columns are pushed, the caller pushes the table's
    /// own into the columns returned; `bytes` is the row's rough size.
    fn start_row(&mut self, id: &Identity, bytes: usize) -> &mut C {
        self.identity.push(id);
        self.rows += 1;
        self.bytes += bytes;
        &mut self.columns
    }

    pub fn cut(&mut self) -> Result<RecordBatch, ArrowError> {
        let mut columns = self.identity.finish();
        columns.extend(self.columns.finish());
        self.rows = 0;
        self.bytes = 0;
        RecordBatch::try_new(C::schema(), columns)
    }
}

/// The step table's own columns.
#[derive(Default)]
pub struct StepColumns {
    step: Int64Builder,
    kind: StringBuilder,
    executed: BooleanBuilder,
    failed: BooleanBuilder,
    tool: StringBuilder,
    tool_calls: ListBuilder<StringBuilder>,
    tool_call_count: Int64Builder,
    action: StringBuilder,
    thought: StringBuilder,
    response: StringBuilder,
    observation: StringBuilder,
    user: StringBuilder,
    exit_code: Int64Builder,
    tokens_in: Int64Builder,
    tokens_out: Int64Builder,
    cost: Float64Builder,
}

impl StepRows {
    /// Adds `step`, the `number`-th (1-based, in order) of its trajectory.
    pub fn push(&mut self, id: &Identity, number: usize, step: &Step) {
        let tool = Field::Tool.text(step);
        let bytes = tool.len()
            + step.action.len()
            + step.thought.len()
            + step.response.len()
            + step.observation.len()
            + step.user.len()
            + id.trajectory.len() * 2
            + 64;
        let c = self.start_row(id, bytes);
        c.step.append_value(int(number));
        c.kind.append_value(step.kind.as_str());
        c.executed.append_value(made_tool_call(step));
        c.failed.append_value(step.failed);
        c.tool.append_value(&tool);
        let calls = tool_calls_of(step);
        c.tool_call_count.append_value(int(calls.len()));
        for call in &calls {
            c.tool_calls.values().append_value(call);
        }
        c.tool_calls.append(true);
        c.action.append_value(&step.action);
        c.thought.append_value(&step.thought);
        c.response.append_value(&step.response);
        c.observation.append_value(&step.observation);
        c.user.append_value(&step.user);
        c.exit_code.append_option(step.exit_code);
        c.tokens_in.append_option(count(step.usage.tokens_in));
        c.tokens_out.append_option(count(step.usage.tokens_out));
        c.cost.append_option(step.usage.cost);
    }
}

impl Columns for StepColumns {
    fn schema() -> SchemaRef {
        Arc::clone(&STEP_SCHEMA)
    }

    fn finish(&mut self) -> Vec<ArrayRef> {
        vec![
            Arc::new(self.step.finish()) as ArrayRef,
            Arc::new(self.kind.finish()),
            Arc::new(self.executed.finish()),
            Arc::new(self.failed.finish()),
            Arc::new(self.tool.finish()),
            Arc::new(self.tool_calls.finish()),
            Arc::new(self.tool_call_count.finish()),
            Arc::new(self.action.finish()),
            Arc::new(self.thought.finish()),
            Arc::new(self.response.finish()),
            Arc::new(self.observation.finish()),
            Arc::new(self.user.finish()),
            Arc::new(self.exit_code.finish()),
            Arc::new(self.tokens_in.finish()),
            Arc::new(self.tokens_out.finish()),
            Arc::new(self.cost.finish()),
        ]
    }
}

/// The trajectory table's own columns.
#[derive(Default)]
pub struct TrajectoryColumns {
    format: StringBuilder,
    forced_exit: StringBuilder,
    steps: Int64Builder,
    cost: Float64Builder,
    logged_cost: Float64Builder,
    tokens_in: Int64Builder,
    tokens_out: Int64Builder,
    patch_lines: Int64Builder,
    submission: StringBuilder,
}

impl TrajectoryRows {
    pub fn push(&mut self, id: &Identity, trajectory: &Trajectory, forced_exit: Option<&str>) {
        let bytes = trajectory.submission.as_deref().map_or(0, str::len) + 256;
        let c = self.start_row(id, bytes);
        c.format.append_value(trajectory.format.name());
        c.forced_exit.append_option(forced_exit);
        c.steps.append_value(int(trajectory.steps.len()));
        let total = trajectory.total_usage();
        c.cost.append_option(total.cost);
        c.logged_cost.append_option(trajectory.usage.cost);
        c.tokens_in.append_option(count(total.tokens_in));
        c.tokens_out.append_option(count(total.tokens_out));
        c.patch_lines.append_value(int(trajectory.patch_lines()));
        c.submission.append_option(trajectory.submission.as_deref());
    }
}

impl Columns for TrajectoryColumns {
    fn schema() -> SchemaRef {
        Arc::clone(&TRAJECTORY_SCHEMA)
    }

    fn finish(&mut self) -> Vec<ArrayRef> {
        vec![
            Arc::new(self.format.finish()) as ArrayRef,
            Arc::new(self.forced_exit.finish()),
            Arc::new(self.steps.finish()),
            Arc::new(self.cost.finish()),
            Arc::new(self.logged_cost.finish()),
            Arc::new(self.tokens_in.finish()),
            Arc::new(self.tokens_out.finish()),
            Arc::new(self.patch_lines.finish()),
            Arc::new(self.submission.finish()),
        ]
    }
}
