//! The columns of the two tables (their Arrow schemas, documented in docs/parquet.md) and
//! the builders that collect rows until a batch is cut. A step row holds every fact a rule
//! can look at, as the rule language reads it: the `tool` text is what a rule on the `tool`
//! field searches, `tool_calls` what a `tool` condition tests, `executed` what
//! `after_tool_call` asks.

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

/// Step rows not yet cut into a batch.
#[derive(Default)]
pub struct StepRows {
    identity: IdentityBuilders,
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
    rows: usize,
    bytes: usize,
}

impl StepRows {
    /// Adds `step`, the `number`-th (1-based, in order) of its trajectory.
    pub fn push(&mut self, id: &Identity, number: usize, step: &Step) {
        self.identity.push(id);
        self.step.append_value(int(number));
        self.kind.append_value(step.kind.as_str());
        self.executed.append_value(made_tool_call(step));
        self.failed.append_value(step.failed);
        let tool = Field::Tool.text(step);
        self.tool.append_value(&tool);
        let calls = tool_calls_of(step);
        self.tool_call_count.append_value(int(calls.len()));
        for call in &calls {
            self.tool_calls.values().append_value(call);
        }
        self.tool_calls.append(true);
        self.action.append_value(&step.action);
        self.thought.append_value(&step.thought);
        self.response.append_value(&step.response);
        self.observation.append_value(&step.observation);
        self.user.append_value(&step.user);
        self.exit_code.append_option(step.exit_code);
        self.tokens_in.append_option(count(step.usage.tokens_in));
        self.tokens_out.append_option(count(step.usage.tokens_out));
        self.cost.append_option(step.usage.cost);
        self.rows += 1;
        self.bytes += tool.len()
            + step.action.len()
            + step.thought.len()
            + step.response.len()
            + step.observation.len()
            + step.user.len()
            + id.trajectory.len() * 2
            + 64;
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Roughly the bytes the rows hold: what bounds a batch.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    pub fn cut(&mut self) -> Result<RecordBatch, ArrowError> {
        let mut columns = self.identity.finish();
        columns.extend([
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
        ]);
        self.rows = 0;
        self.bytes = 0;
        RecordBatch::try_new(Arc::clone(&STEP_SCHEMA), columns)
    }
}

/// Trajectory rows not yet cut into a batch.
#[derive(Default)]
pub struct TrajectoryRows {
    identity: IdentityBuilders,
    format: StringBuilder,
    forced_exit: StringBuilder,
    steps: Int64Builder,
    cost: Float64Builder,
    logged_cost: Float64Builder,
    tokens_in: Int64Builder,
    tokens_out: Int64Builder,
    patch_lines: Int64Builder,
    submission: StringBuilder,
    rows: usize,
    bytes: usize,
}

impl TrajectoryRows {
    pub fn push(&mut self, id: &Identity, trajectory: &Trajectory, forced_exit: Option<&str>) {
        self.identity.push(id);
        self.format.append_value(trajectory.format.name());
        self.forced_exit.append_option(forced_exit);
        self.steps.append_value(int(trajectory.steps.len()));
        let total = trajectory.total_usage();
        self.cost.append_option(total.cost);
        self.logged_cost.append_option(trajectory.usage.cost);
        self.tokens_in.append_option(count(total.tokens_in));
        self.tokens_out.append_option(count(total.tokens_out));
        self.patch_lines.append_value(int(trajectory.patch_lines()));
        self.submission
            .append_option(trajectory.submission.as_deref());
        self.rows += 1;
        self.bytes += trajectory.submission.as_deref().map_or(0, str::len) + 256;
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }

    pub fn cut(&mut self) -> Result<RecordBatch, ArrowError> {
        let mut columns = self.identity.finish();
        columns.extend([
            Arc::new(self.format.finish()) as ArrayRef,
            Arc::new(self.forced_exit.finish()),
            Arc::new(self.steps.finish()),
            Arc::new(self.cost.finish()),
            Arc::new(self.logged_cost.finish()),
            Arc::new(self.tokens_in.finish()),
            Arc::new(self.tokens_out.finish()),
            Arc::new(self.patch_lines.finish()),
            Arc::new(self.submission.finish()),
        ]);
        self.rows = 0;
        self.bytes = 0;
        RecordBatch::try_new(Arc::clone(&TRAJECTORY_SCHEMA), columns)
    }
}
