//! One relation's folder of Parquet files (`part-00000.parquet`, …): batches go into row
//! groups of bounded size, and a file that has grown past its bound is closed and the next
//! one started, so neither memory nor any one file grows with the run.

use super::error::TableError;
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use std::fs::File;
use std::path::{Path, PathBuf};

/// How big row groups and files may grow.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// Rows of a row group (each batch written is one row group).
    pub group_rows: usize,
    /// Bytes of text after which a batch is cut (and written as a row group).
    pub group_bytes: usize,
    /// Bytes after which a file is closed and the next begun.
    pub file_bytes: usize,
}

pub struct Parts {
    folder: PathBuf,
    /// Put before `part-NNNNN`: the shard's name, so that shards' files can share a folder.
    prefix: String,
    schema: SchemaRef,
    bounds: Bounds,
    current: Option<(PathBuf, ArrowWriter<File>)>,
    written: Vec<PathBuf>,
    rows: u64,
}

impl Parts {
    pub fn new(
        folder: &Path,
        prefix: &str,
        schema: SchemaRef,
        bounds: Bounds,
    ) -> Result<Parts, TableError> {
        std::fs::create_dir_all(folder).map_err(|e| TableError::io(folder, e))?;
        Ok(Parts {
            folder: folder.to_path_buf(),
            prefix: prefix.to_string(),
            schema,
            bounds,
            current: None,
            written: Vec::new(),
            rows: 0,
        })
    }

    fn properties(&self) -> WriterProperties {
        // zstd at level 1: most of snappy's speed, a third smaller on trajectory text.
        let compression = ZstdLevel::try_new(1).map_or(Compression::SNAPPY, Compression::ZSTD);
        WriterProperties::builder()
            .set_compression(compression)
            .set_max_row_group_row_count(Some(self.bounds.group_rows))
            .set_created_by(format!("trajscope {}", env!("CARGO_PKG_VERSION")))
            .build()
    }

    /// Writes `batch`, ending the row group or the file when they have grown past their bounds.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), TableError> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        if self.current.is_none() {
            self.open()?;
        }
        let Some((path, writer)) = self.current.as_mut() else {
            return Ok(());
        };
        let failed = |source| TableError::Parquet {
            path: path.clone(),
            source,
        };
        writer.write(batch).map_err(failed)?;
        self.rows += batch.num_rows() as u64;
        // A batch is cut at the row group's bounds: writing it out at once keeps one
        // batch's encoding in memory, never several.
        writer.flush().map_err(failed)?;
        if writer.bytes_written() + writer.in_progress_size() >= self.bounds.file_bytes {
            self.close_current()?;
        }
        Ok(())
    }

    fn open(&mut self) -> Result<(), TableError> {
        let path = self.folder.join(format!(
            "{}part-{:05}.parquet",
            self.prefix,
            self.written.len()
        ));
        let file = File::create(&path).map_err(|e| TableError::io(&path, e))?;
        let writer = ArrowWriter::try_new(file, self.schema.clone(), Some(self.properties()))
            .map_err(|source| TableError::Parquet {
                path: path.clone(),
                source,
            })?;
        self.written.push(path.clone());
        self.current = Some((path, writer));
        Ok(())
    }

    fn close_current(&mut self) -> Result<(), TableError> {
        if let Some((path, writer)) = self.current.take() {
            writer
                .close()
                .map_err(|source| TableError::Parquet { path, source })?;
        }
        Ok(())
    }

    /// Closes the last file; returns the files written and the rows they hold.
    pub fn finish(mut self) -> Result<(Vec<PathBuf>, u64), TableError> {
        // An empty relation is still one file with the schema: engines refuse a glob that
        // matches nothing.
        if self.written.is_empty() {
            self.open()?;
        }
        self.close_current()?;
        Ok((std::mem::take(&mut self.written), self.rows))
    }
}
