//! Which column of a Parquet dataset holds what: the layouts of the published trajectory
//! datasets (SWE-agent, OpenHands, SWE-smith on the Hugging Face Hub) are recognised by their
//! column names, and `--columns trajectory=messages,resolved=target,…` names any other.
//! Owns the mapping and its checks against a file's schema; reads no rows.

use arrow_schema::{DataType, Schema};
use std::sync::OnceLock;

/// What a column can stand for, as named in `--columns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MappedField {
    /// The list of messages (or steps); a list column, or a string of JSON.
    Trajectory,
    InstanceId,
    Model,
    Resolved,
    ExitStatus,
    Patch,
}

impl MappedField {
    pub const ALL: [MappedField; 6] = [
        MappedField::Trajectory,
        MappedField::InstanceId,
        MappedField::Model,
        MappedField::Resolved,
        MappedField::ExitStatus,
        MappedField::Patch,
    ];

    pub fn name(self) -> &'static str {
        match self {
            MappedField::Trajectory => "trajectory",
            MappedField::InstanceId => "instance_id",
            MappedField::Model => "model",
            MappedField::Resolved => "resolved",
            MappedField::ExitStatus => "exit_status",
            MappedField::Patch => "patch",
        }
    }

    /// The column names the published datasets use, in the order tried.
    fn defaults(self) -> &'static [&'static str] {
        match self {
            MappedField::Trajectory => &[
                "trajectory",
                "messages",
                "history",
                "conversation",
                "conversations",
                "steps",
            ],
            MappedField::InstanceId => {
                &["instance_id", "task_id", "traj_id", "trajectory_id", "id"]
            }
            MappedField::Model => &["model_name", "model"],
            MappedField::Resolved => &["resolved", "target", "success", "is_resolved"],
            MappedField::ExitStatus => &["exit_status"],
            MappedField::Patch => &["generated_patch", "model_patch", "patch", "submission"],
        }
    }
}

/// The user's `--columns`: field → column, for the fields named.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColumnMap(Vec<(MappedField, String)>);

impl ColumnMap {
    /// Parses `trajectory=messages,resolved=target`: an error names what is wrong and the
    /// fields there are.
    pub fn parse(spec: &str) -> Result<ColumnMap, String> {
        let mut pairs = Vec::new();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((field, column)) = part.split_once('=') else {
                return Err(format!(
                    "--columns: `{part}` is not FIELD=COLUMN (fields: {})",
                    field_names()
                ));
            };
            let field = MappedField::ALL
                .into_iter()
                .find(|f| f.name() == field.trim())
                .ok_or_else(|| {
                    format!(
                        "--columns: no field `{}` (fields: {})",
                        field.trim(),
                        field_names()
                    )
                })?;
            let column = column.trim();
            if column.is_empty() {
                return Err(format!("--columns: `{part}` names no column"));
            }
            pairs.retain(|(f, _)| *f != field);
            pairs.push((field, column.to_string()));
        }
        Ok(ColumnMap(pairs))
    }

    fn named(&self, field: MappedField) -> Option<&str> {
        self.0
            .iter()
            .find(|(f, _)| *f == field)
            .map(|(_, c)| c.as_str())
    }
}

fn field_names() -> String {
    MappedField::ALL.map(MappedField::name).join(", ")
}

static ACTIVE: OnceLock<ColumnMap> = OnceLock::new();

/// Sets the mapping every Parquet file of this process is read with (the CLI's
/// `--columns`, once, before anything is opened). Set only once: a second, different
/// mapping is an error rather than a run read half one way, half the other.
pub fn use_columns(spec: &str) -> Result<(), String> {
    let map = ColumnMap::parse(spec)?;
    let set = ACTIVE.get_or_init(|| map.clone());
    if *set == map {
        Ok(())
    } else {
        Err("--columns was already set to another mapping".into())
    }
}

/// The mapping in use (empty: the published layouts only).
pub fn active() -> ColumnMap {
    ACTIVE.get().cloned().unwrap_or_default()
}

/// Where a file's fields are: the top-level column name of each field found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub trajectory: String,
    /// Whether the trajectory column is a string of JSON (SWE-smith) rather than a list.
    pub trajectory_is_text: bool,
    pub instance_id: Option<String>,
    pub model: Option<String>,
    pub resolved: Option<String>,
    pub exit_status: Option<String>,
    pub patch: Option<String>,
    /// Whether `--columns` named any column of this file.
    pub mapped: bool,
}

impl Layout {
    /// Finds each field's column in `schema`: the one `map` names, else the first published
    /// name present. The message the error carries names the missing columns, the columns
    /// the file has, and the `--columns` flag.
    pub fn resolve(schema: &Schema, map: &ColumnMap) -> Result<Layout, String> {
        let has = |name: &str| schema.fields().iter().any(|f| f.name() == name);
        let columns = || {
            schema
                .fields()
                .iter()
                .map(|f| f.name().as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut missing = Vec::new();
        let mut find = |field: MappedField| -> Option<String> {
            match map.named(field) {
                Some(column) if has(column) => Some(column.to_string()),
                Some(column) => {
                    missing.push(format!("`{column}` (--columns {}={column})", field.name()));
                    None
                }
                None => field
                    .defaults()
                    .iter()
                    .find(|c| has(c))
                    .map(|c| c.to_string()),
            }
        };
        let trajectory = find(MappedField::Trajectory);
        let layout = (
            find(MappedField::InstanceId),
            find(MappedField::Model),
            find(MappedField::Resolved),
            find(MappedField::ExitStatus),
            find(MappedField::Patch),
        );
        if !missing.is_empty() {
            return Err(format!(
                "no column {} in this file (its columns: {})",
                missing.join(", "),
                columns()
            ));
        }
        let Some(trajectory) = trajectory else {
            return Err(format!(
                "no messages column: none of {} is in this file (its columns: {}); name the \
                 list of messages with --columns trajectory=COLUMN (and resolved=, \
                 instance_id=, model=, exit_status=, patch= as needed)",
                MappedField::Trajectory.defaults().join(", "),
                columns()
            ));
        };
        let data_type = schema
            .fields()
            .iter()
            .find(|f| f.name() == &trajectory)
            .map(|f| f.data_type().clone())
            .unwrap_or(DataType::Null);
        let trajectory_is_text = match &data_type {
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => true,
            DataType::List(item) | DataType::LargeList(item)
                if matches!(item.data_type(), DataType::Struct(_)) =>
            {
                false
            }
            other => {
                return Err(format!(
                    "column `{trajectory}` holds {other}, not a list of messages (a list of \
                     structs with a `role`, or a JSON string); name the right one with \
                     --columns trajectory=COLUMN"
                ));
            }
        };
        let (instance_id, model, resolved, exit_status, patch) = layout;
        Ok(Layout {
            trajectory,
            trajectory_is_text,
            instance_id,
            model,
            resolved,
            exit_status,
            patch,
            mapped: !map.0.is_empty(),
        })
    }

    /// The columns a whole row is read from.
    pub fn columns(&self) -> Vec<&str> {
        let mut all = vec![self.trajectory.as_str()];
        all.extend(self.header_columns());
        all
    }

    /// The columns a listing shows, besides the steps.
    pub fn header_columns(&self) -> Vec<&str> {
        [
            &self.instance_id,
            &self.model,
            &self.resolved,
            &self.exit_status,
            &self.patch,
        ]
        .into_iter()
        .filter_map(|c| c.as_deref())
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_schema::Field as ArrowField;
    use std::sync::Arc;

    fn schema(fields: &[(&str, DataType)]) -> Schema {
        Schema::new(
            fields
                .iter()
                .map(|(n, t)| ArrowField::new(*n, t.clone(), true))
                .collect::<Vec<_>>(),
        )
    }

    fn messages() -> DataType {
        let role = ArrowField::new("role", DataType::Utf8, true);
        let item = ArrowField::new("element", DataType::Struct(vec![role].into()), true);
        DataType::List(Arc::new(item))
    }

    #[test]
    fn the_swe_agent_layout_is_recognised_by_its_names() {
        let s = schema(&[
            ("instance_id", DataType::Utf8),
            ("model_name", DataType::Utf8),
            ("target", DataType::Boolean),
            ("trajectory", messages()),
            ("generated_patch", DataType::Utf8),
        ]);
        let layout = Layout::resolve(&s, &ColumnMap::default()).unwrap();
        assert_eq!(layout.trajectory, "trajectory");
        assert_eq!(layout.resolved.as_deref(), Some("target"));
        assert_eq!(layout.model.as_deref(), Some("model_name"));
        assert_eq!(layout.patch.as_deref(), Some("generated_patch"));
        assert_eq!(layout.exit_status, None);
    }

    #[test]
    fn a_mapping_wins_and_a_missing_column_is_named_with_the_flag() {
        let s = schema(&[("convo", messages()), ("ok", DataType::Boolean)]);
        let err = Layout::resolve(&s, &ColumnMap::default()).unwrap_err();
        assert!(err.contains("--columns trajectory=COLUMN"), "{err}");
        assert!(err.contains("convo, ok"), "{err}");
        let map = ColumnMap::parse("trajectory=convo, resolved=ok").unwrap();
        let layout = Layout::resolve(&s, &map).unwrap();
        assert_eq!(layout.trajectory, "convo");
        assert_eq!(layout.resolved.as_deref(), Some("ok"));
        let map = ColumnMap::parse("trajectory=convo,resolved=passed").unwrap();
        let err = Layout::resolve(&s, &map).unwrap_err();
        assert!(
            err.contains("`passed` (--columns resolved=passed)"),
            "{err}"
        );
    }

    #[test]
    fn bad_mappings_say_what_is_wrong() {
        assert!(
            ColumnMap::parse("trajectory")
                .unwrap_err()
                .contains("FIELD=COLUMN")
        );
        let err = ColumnMap::parse("verdict=x").unwrap_err();
        assert!(
            err.contains("no field `verdict`") && err.contains("resolved"),
            "{err}"
        );
        let s = schema(&[("trajectory", DataType::Int64)]);
        let err = Layout::resolve(&s, &ColumnMap::default()).unwrap_err();
        assert!(err.contains("not a list of messages"), "{err}");
    }
}
