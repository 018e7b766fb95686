//! Writing trajectory datasets as Parquet the way the Hugging Face Hub lays them out, from
//! rows given as JSON: each column typed by an Arrow schema (lists of structs for messages),
//! written with the `parquet` crate's `ArrowWriter`, snappy-compressed, in row groups.
//!
//! Include with `#[path = "support/hub_parquet.rs"] mod hub_parquet;` (the generator
//! example includes it too). The data is ours, generated; the layouts are the published
//! datasets' (their cards' `dataset_info.features`).

#![allow(dead_code)]

use arrow_array::builder::{NullBufferBuilder, OffsetBufferBuilder};
use arrow_array::{
    ArrayRef, BooleanArray, Float64Array, Int64Array, ListArray, RecordBatch, StringArray,
    StructArray,
};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

pub fn text() -> DataType {
    DataType::Utf8
}

/// A nullable field.
pub fn field(name: &str, data_type: DataType) -> Field {
    Field::new(name, data_type, true)
}

/// `list<struct<fields>>`, items named `element` as pyarrow writes them.
pub fn list_of(fields: Vec<Field>) -> DataType {
    DataType::List(Arc::new(field("element", DataType::Struct(fields.into()))))
}

/// nebius/SWE-agent-trajectories: `trajectory` turns with `role` (system, user, ai) and
/// `text`, the verdict in `target`.
pub fn swe_agent_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        field("instance_id", text()),
        field("model_name", text()),
        field("target", DataType::Boolean),
        field(
            "trajectory",
            list_of(vec![
                field("cutoff_date", text()),
                field("mask", DataType::Boolean),
                field("role", text()),
                field("system_prompt", text()),
                field("text", text()),
            ]),
        ),
        field("exit_status", text()),
        field("generated_patch", text()),
        field("eval_logs", text()),
    ]))
}

/// nebius/SWE-rebench-openhands-trajectories: OpenAI-style messages with `tool_calls` in
/// `trajectory`, `resolved` as an integer.
pub fn openhands_schema() -> SchemaRef {
    let function = DataType::Struct(Fields::from(vec![
        field("arguments", text()),
        field("name", text()),
    ]));
    Arc::new(Schema::new(vec![
        field("trajectory_id", text()),
        field("instance_id", text()),
        field("repo", text()),
        field(
            "trajectory",
            list_of(vec![
                field("content", text()),
                field("name", text()),
                field("role", text()),
                field("tool_call_id", text()),
                field(
                    "tool_calls",
                    list_of(vec![
                        field("function", function),
                        field("id", text()),
                        field("type", text()),
                    ]),
                ),
            ]),
        ),
        field("model_patch", text()),
        field("exit_status", text()),
        field("resolved", DataType::Int64),
    ]))
}

/// SWE-bench/SWE-smith-trajectories: the messages as one JSON string per row.
pub fn swe_smith_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        field("messages", text()),
        field("instance_id", text()),
        field("resolved", DataType::Boolean),
        field("model", text()),
        field("traj_id", text()),
        field("patch", text()),
    ]))
}

/// The column of `values` typed `data_type` (missing or mistyped values are null).
pub fn array(data_type: &DataType, values: &[&Value]) -> ArrayRef {
    match data_type {
        DataType::Utf8 => Arc::new(StringArray::from(
            values
                .iter()
                .map(|v| match v {
                    Value::Null => None,
                    Value::String(s) => Some(s.clone()),
                    other => Some(other.to_string()),
                })
                .collect::<Vec<_>>(),
        )),
        DataType::Boolean => Arc::new(BooleanArray::from(
            values.iter().map(|v| v.as_bool()).collect::<Vec<_>>(),
        )),
        DataType::Int64 => Arc::new(Int64Array::from(
            values.iter().map(|v| v.as_i64()).collect::<Vec<_>>(),
        )),
        DataType::Float64 => Arc::new(Float64Array::from(
            values.iter().map(|v| v.as_f64()).collect::<Vec<_>>(),
        )),
        DataType::List(item) => {
            let mut offsets = OffsetBufferBuilder::<i32>::new(values.len());
            let mut nulls = NullBufferBuilder::new(values.len());
            let mut children: Vec<&Value> = Vec::new();
            for v in values {
                match v {
                    Value::Array(items) => {
                        offsets.push_length(items.len());
                        children.extend(items.iter());
                        nulls.append_non_null();
                    }
                    _ => {
                        offsets.push_length(0);
                        nulls.append_null();
                    }
                }
            }
            let child = array(item.data_type(), &children);
            Arc::new(ListArray::new(
                item.clone(),
                offsets.finish(),
                child,
                nulls.finish(),
            ))
        }
        DataType::Struct(fields) => {
            let mut nulls = NullBufferBuilder::new(values.len());
            for v in values {
                if v.is_object() {
                    nulls.append_non_null();
                } else {
                    nulls.append_null();
                }
            }
            let columns: Vec<ArrayRef> = fields
                .iter()
                .map(|f| {
                    let column: Vec<&Value> = values
                        .iter()
                        .map(|v| v.get(f.name()).unwrap_or(&Value::Null))
                        .collect();
                    array(f.data_type(), &column)
                })
                .collect();
            Arc::new(StructArray::new(fields.clone(), columns, nulls.finish()))
        }
        other => panic!("no test writer for {other}"),
    }
}

/// Writes `rows` (JSON objects keyed by column) to `path` with `schema`, `group_rows` rows
/// per row group.
pub fn write(path: &Path, schema: &SchemaRef, rows: &[Value], group_rows: usize) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).unwrap();
    }
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(group_rows))
        .build();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = ArrowWriter::try_new(file, schema.clone(), Some(props)).unwrap();
    for chunk in rows.chunks(group_rows.max(1)) {
        writer.write(&batch(schema, chunk)).unwrap();
    }
    writer.close().unwrap();
}

/// One record batch of `rows`.
pub fn batch(schema: &SchemaRef, rows: &[Value]) -> RecordBatch {
    let columns: Vec<ArrayRef> = schema
        .fields()
        .iter()
        .map(|f| {
            let column: Vec<&Value> = rows
                .iter()
                .map(|r| r.get(f.name()).unwrap_or(&Value::Null))
                .collect();
            array(f.data_type(), &column)
        })
        .collect();
    RecordBatch::try_new(schema.clone(), columns).unwrap()
}
