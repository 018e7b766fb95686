//! Trajectory datasets stored as Parquet, one trajectory per row, as the Hugging Face Hub
//! lays them out (a file, or `data/train-00000-of-00004.parquet` shards in a folder: each
//! shard is a file of the run). Read with Apache Arrow's `parquet` crate, never by hand.
//!
//! Rows are read lazily: a listing reads only the columns it shows (the header columns and
//! the messages' `role`, which gives the step count) once the file is too big to read whole
//! quickly; a tally walks the file one batch of rows at a time; opening one trajectory reads
//! its row alone, from its row group. The column names are recognised ([`columns`]) or
//! given with `--columns`. This module owns the Parquet side only: the messages become
//! steps in the chat readers ([`row`]).

mod columns;
mod row;
mod value;

pub use columns::{ColumnMap, Layout, MappedField, use_columns};

use super::LoadError;
use crate::model::{Format, Trajectory, TrajectorySummary};
use ::parquet::arrow::ProjectionMask;
use ::parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch};
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Rows decoded at a time: a tally holds this many trajectories' messages, not the file's.
const BATCH_ROWS: usize = 64;

/// Whether `path` is a Parquet file: it starts with the `PAR1` magic.
pub fn is_parquet(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok_and(|()| &magic == b"PAR1")
}

/// Whether a path found in a folder walk names a Parquet file (by its extension).
pub fn has_parquet_extension(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
}

fn damaged(path: &Path, err: impl std::fmt::Display) -> LoadError {
    LoadError::invalid(
        path,
        format!("cannot be read as Parquet (truncated or damaged?): {err}"),
    )
}

/// Opens the file's footer and finds its columns.
fn open(path: &Path) -> Result<(ParquetRecordBatchReaderBuilder<File>, Layout), LoadError> {
    let file = File::open(path).map_err(|err| LoadError::io(path, err))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| damaged(path, e))?;
    let layout = Layout::resolve(builder.schema(), &columns::active())
        .map_err(|message| LoadError::invalid(path, message))?;
    Ok((builder, layout))
}

/// The mask of the top-level columns named.
fn roots(builder: &ParquetRecordBatchReaderBuilder<File>, names: &[&str]) -> ProjectionMask {
    let indices = builder
        .schema()
        .fields()
        .iter()
        .enumerate()
        .filter(|(_, f)| names.contains(&f.name().as_str()))
        .map(|(i, _)| i);
    ProjectionMask::roots(builder.parquet_schema(), indices)
}

fn batches(
    path: &Path,
    reader: ParquetRecordBatchReader,
) -> impl Iterator<Item = Result<RecordBatch, LoadError>> {
    reader.map(move |batch| batch.map_err(|e| damaged(path, e)))
}

/// Calls `on` with each row's trajectory, in order, decoding [`BATCH_ROWS`] rows at a time:
/// what a tally or a search holds is one batch, whatever the file's size. Returns how many
/// rows there were. A damaged row group stops the walk with an error naming the file (rows
/// before it were already given).
pub fn visit(path: &Path, on: &mut dyn FnMut(Trajectory)) -> Result<usize, LoadError> {
    let (builder, layout) = open(path)?;
    let mask = roots(&builder, &layout.columns());
    let reader = builder
        .with_projection(mask)
        .with_batch_size(BATCH_ROWS)
        .build()
        .map_err(|e| damaged(path, e))?;
    let mut index = 0;
    for batch in batches(path, reader) {
        let batch = batch?;
        for r in 0..batch.num_rows() {
            on(row::Row::new(path, index, &layout, &batch, r).trajectory());
            index += 1;
        }
    }
    Ok(index)
}

/// Every row's trajectory (what `load_file` gives for a Parquet file).
pub fn load(path: &Path) -> Result<Vec<Trajectory>, LoadError> {
    let mut all = Vec::new();
    visit(path, &mut |t| all.push(t))?;
    Ok(all)
}

/// How many rows (trajectories) the file holds, from its footer.
pub fn row_count(path: &Path) -> Result<usize, LoadError> {
    let (builder, _) = open(path)?;
    let rows: i64 = builder
        .metadata()
        .row_groups()
        .iter()
        .map(|g| g.num_rows())
        .sum();
    Ok(usize::try_from(rows).unwrap_or(0))
}

/// Row `index` (0-based), read from its row group alone.
pub fn read_row(path: &Path, index: usize) -> Result<Trajectory, LoadError> {
    let (builder, layout) = open(path)?;
    let groups = builder.metadata().row_groups();
    let total: i64 = groups.iter().map(|g| g.num_rows()).sum();
    let mut start = 0usize;
    let mut found = None;
    for (g, group) in groups.iter().enumerate() {
        let rows = usize::try_from(group.num_rows()).unwrap_or(0);
        if index < start + rows {
            found = Some((g, index - start));
            break;
        }
        start += rows;
    }
    let Some((group, offset)) = found else {
        return Err(LoadError::invalid(
            path,
            format!(
                "no row {}; the file holds {total} (1 to {total})",
                index + 1
            ),
        ));
    };
    let mask = roots(&builder, &layout.columns());
    let reader = builder
        .with_projection(mask)
        .with_row_groups(vec![group])
        .with_offset(offset)
        .with_limit(1)
        .with_batch_size(1)
        .build()
        .map_err(|e| damaged(path, e))?;
    for batch in batches(path, reader) {
        let batch = batch?;
        if batch.num_rows() > 0 {
            return Ok(row::Row::new(path, index, &layout, &batch, 0).trajectory());
        }
    }
    Err(damaged(
        path,
        format!("row {} could not be read", index + 1),
    ))
}

/// Files of at least this many rows, or whose column chunks hold at least
/// [`super::LAZY_ABOVE`] bytes uncompressed, are listed from their header columns alone.
/// Rows, not bytes, decide first: dictionary encoding keeps the byte count of repetitive
/// messages far below what decoding them costs (100,000 generated rows: 8 MB on disk, under
/// 64 MiB "uncompressed", several minutes to read whole in a debug build).
pub const LIST_FROM_COLUMNS_ROWS: i64 = 10_000;

/// One summary per row. A file small enough is read whole, so its summaries are exact; a
/// bigger one is listed from the header columns and the messages' roles only (the step
/// count is its assistant turns; errors are counted when a trajectory is opened or tallied).
pub fn summaries(path: &Path) -> Result<Vec<TrajectorySummary>, LoadError> {
    let (builder, layout) = open(path)?;
    let groups = builder.metadata().row_groups();
    let decoded: i64 = groups.iter().map(|g| g.total_byte_size()).sum();
    let rows: i64 = groups.iter().map(|g| g.num_rows()).sum();
    let small =
        rows < LIST_FROM_COLUMNS_ROWS && u64::try_from(decoded).unwrap_or(0) < super::LAZY_ABOVE;
    if small || layout.trajectory_is_text {
        drop(builder);
        let mut all = Vec::new();
        visit(path, &mut |t| all.push(TrajectorySummary::of(&t)))?;
        return Ok(all);
    }
    list_from_columns(path, builder, &layout)
}

fn list_from_columns(
    path: &Path,
    builder: ParquetRecordBatchReaderBuilder<File>,
    layout: &Layout,
) -> Result<Vec<TrajectorySummary>, LoadError> {
    let schema = builder.parquet_schema();
    let header = layout.header_columns();
    // The header columns whole, and of the messages only their `role` leaf.
    let leaves: Vec<usize> = schema
        .columns()
        .iter()
        .enumerate()
        .filter(|(_, c)| {
            let parts = c.path().parts();
            let root = parts.first().map(String::as_str).unwrap_or_default();
            header.contains(&root)
                || (root == layout.trajectory
                    && parts.last().is_some_and(|l| l == "role" || l == "from"))
        })
        .map(|(i, _)| i)
        .collect();
    let mask = ProjectionMask::leaves(schema, leaves);
    let reader = builder
        .with_projection(mask)
        .with_batch_size(8192)
        .build()
        .map_err(|e| damaged(path, e))?;
    let mut all = Vec::new();
    for batch in batches(path, reader) {
        let batch = batch?;
        for r in 0..batch.num_rows() {
            let index = all.len();
            let t = row::Row::new(path, index, layout, &batch, r).header();
            let roles = roles_at(&batch, &layout.trajectory, r);
            let mut summary = TrajectorySummary::of(&t);
            summary.steps = step_count(&roles);
            summary.format = if roles.contains(&"tool") && !roles.contains(&"exit") {
                Format::ChatMessages
            } else {
                Format::MiniSweAgent
            };
            summary.format_detail = Some(row::detail(layout, summary.format));
            all.push(summary);
        }
    }
    Ok(all)
}

/// The chat roles of row `row`'s messages, read straight from the `role` (or ShareGPT
/// `from`) leaf: a listing of a million rows builds no message.
fn roles_at<'a>(batch: &'a RecordBatch, column: &str, row: usize) -> Vec<&'a str> {
    let Some(list) = batch.column_by_name(column) else {
        return Vec::new();
    };
    if row >= list.len() || list.is_null(row) {
        return Vec::new();
    }
    let (items, range) = if let Some(l) = list.as_list_opt::<i32>() {
        let o = l.value_offsets();
        (l.values(), o[row] as usize..o[row + 1] as usize)
    } else if let Some(l) = list.as_list_opt::<i64>() {
        let o = l.value_offsets();
        (l.values(), o[row] as usize..o[row + 1] as usize)
    } else {
        return Vec::new();
    };
    let Some(role) = items.as_struct_opt().and_then(|s| {
        s.column_by_name("role")
            .or_else(|| s.column_by_name("from"))
    }) else {
        return Vec::new();
    };
    let role: &'a dyn Array = role.as_ref();
    let text = |i: usize| -> Option<&'a str> {
        if role.is_null(i) {
            return None;
        }
        if let Some(a) = role.as_string_opt::<i32>() {
            Some(a.value(i))
        } else if let Some(a) = role.as_string_opt::<i64>() {
            Some(a.value(i))
        } else {
            role.as_string_view_opt().map(|a| a.value(i))
        }
    };
    range.filter_map(text).map(row::chat_role).collect()
}

/// Steps as the readers count them, from the roles alone: one per assistant turn; in text
/// mode a user turn after an answered step, and in mini-swe-agent's tool mode any later user
/// turn, is a rejected call, a step of its own.
fn step_count(roles: &[&str]) -> usize {
    let tools = roles.contains(&"tool");
    let mini = roles.contains(&"exit");
    let mut steps = 0;
    let mut open_step = false;
    let mut seen_task = false;
    for role in roles {
        match *role {
            "assistant" => {
                steps += 1;
                open_step = true;
            }
            "user" if !seen_task => seen_task = true,
            "user" if tools && mini => steps += 1,
            "user" if !tools => {
                if !open_step {
                    steps += 1;
                }
                open_step = false;
            }
            _ => {}
        }
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_counted_from_roles_as_the_readers_make_them() {
        let text = ["system", "user", "assistant", "user", "user", "assistant"];
        // The second user turn answers nothing: a rejected call, a step of its own.
        assert_eq!(step_count(&text), 3);
        let tools = ["user", "assistant", "tool", "tool", "user", "assistant"];
        assert_eq!(step_count(&tools), 2);
        let mini = ["user", "assistant", "tool", "user", "assistant", "exit"];
        assert_eq!(step_count(&mini), 3);
    }
}
