//! Parquet input. Contract: "give me a `.parquet` file and the id and text column names, I give
//! you one record per row, reading one batch of one row group at a time".
//!
//! Only the two columns are decoded (a projection), in batches of [`BATCH_ROWS`] rows, so a file
//! of any size is streamed. Each row becomes a one-line JSON record `{id_field: .., text_field: ..}`
//! handed to the JSONL decoder: ids, missing texts and `--output` then behave exactly as for JSON
//! Lines. A row's position is its 1-based row number in the file (reported as the "line").

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type, UInt32Type, UInt64Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};

use crate::error::InputError;
use crate::format::Format;
use crate::options::ReadOptions;
use crate::reader::RawRecord;

/// Rows decoded at a time.
pub const BATCH_ROWS: usize = 1024;

/// Rows of a Parquet file as JSONL records.
pub(crate) struct ParquetRows {
    source: Arc<str>,
    batches: ParquetRecordBatchReader,
    id_field: String,
    text_field: String,
    /// Position of the id and text columns in the projected batches.
    id_col: Option<usize>,
    text_col: usize,
    batch: Option<RecordBatch>,
    next_in_batch: usize,
    row: u64,
    failed: bool,
}

impl std::fmt::Debug for ParquetRows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetRows").field("source", &self.source).field("row", &self.row).finish()
    }
}

impl ParquetRows {
    /// Opens `path`; fails (naming the file) when it is not Parquet or lacks the text column.
    pub(crate) fn open(
        path: &Path,
        source: Arc<str>,
        opts: &ReadOptions,
    ) -> Result<Self, InputError> {
        let err = |message: String| InputError::new(&source, None, message).losing_input();
        let file = File::open(path).map_err(|e| err(format!("cannot open: {e}")))?;
        let builder = ParquetRecordBatchReaderBuilder::try_new(file)
            .map_err(|e| err(format!("not a readable Parquet file: {e}")))?;
        let fields: Vec<String> =
            builder.schema().fields().iter().map(|f| f.name().clone()).collect();
        let find = |name: &str| fields.iter().position(|f| f == name);
        let Some(text_root) = find(&opts.text_field) else {
            return Err(err(format!(
                "no column '{}' (columns: {}); choose one with --text-field",
                opts.text_field,
                fields.join(", ")
            )));
        };
        let id_root = find(&opts.id_field);
        let mut roots = vec![text_root];
        roots.extend(id_root);
        roots.sort_unstable();
        let mask = ProjectionMask::roots(builder.parquet_schema(), roots.iter().copied());
        let batches = builder
            .with_projection(mask)
            .with_batch_size(BATCH_ROWS)
            .build()
            .map_err(|e| err(format!("cannot read Parquet: {e}")))?;
        // In the projected batch, columns keep their file order.
        let pos = |root: usize| roots.iter().position(|&r| r == root).unwrap_or(0);
        Ok(ParquetRows {
            source,
            batches,
            id_field: opts.id_field.clone(),
            text_field: opts.text_field.clone(),
            id_col: id_root.map(pos),
            text_col: pos(text_root),
            batch: None,
            next_in_batch: 0,
            row: 0,
            failed: false,
        })
    }

    fn record(&self, batch: &RecordBatch, i: usize) -> RawRecord {
        let text = cell(batch.column(self.text_col), i);
        let id = self.id_col.and_then(|c| cell(batch.column(c), i));
        let mut obj = serde_json::Map::new();
        if let Some(id) = id {
            obj.insert(self.id_field.clone(), id);
        }
        obj.insert(self.text_field.clone(), text.unwrap_or(serde_json::Value::Null));
        RawRecord {
            source: self.source.clone(),
            line: Some(self.row),
            format: Format::Parquet,
            bytes: serde_json::to_vec(&serde_json::Value::Object(obj)).unwrap_or_default(),
            warc: None,
        }
    }
}

/// One cell as JSON: strings (any Arrow string or binary layout; binary decoded as UTF-8 when it
/// is) and integers; `None` for nulls and other types.
fn cell(col: &ArrayRef, i: usize) -> Option<serde_json::Value> {
    if col.is_null(i) {
        return None;
    }
    let s = |v: &str| Some(serde_json::Value::String(v.to_owned()));
    match col.data_type() {
        DataType::Utf8 => s(col.as_string::<i32>().value(i)),
        DataType::LargeUtf8 => s(col.as_string::<i64>().value(i)),
        DataType::Utf8View => s(col.as_string_view().value(i)),
        DataType::Binary => std::str::from_utf8(col.as_binary::<i32>().value(i)).ok().and_then(s),
        DataType::LargeBinary => {
            std::str::from_utf8(col.as_binary::<i64>().value(i)).ok().and_then(s)
        }
        DataType::Int32 => Some(col.as_primitive::<Int32Type>().value(i).into()),
        DataType::Int64 => Some(col.as_primitive::<Int64Type>().value(i).into()),
        DataType::UInt32 => Some(col.as_primitive::<UInt32Type>().value(i).into()),
        DataType::UInt64 => Some(col.as_primitive::<UInt64Type>().value(i).into()),
        _ => None,
    }
}

impl Iterator for ParquetRows {
    type Item = Result<RawRecord, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        loop {
            if let Some(batch) = &self.batch
                && self.next_in_batch < batch.num_rows()
            {
                let i = self.next_in_batch;
                self.next_in_batch += 1;
                self.row += 1;
                return Some(Ok(self.record(batch, i)));
            }
            match self.batches.next()? {
                Ok(batch) => {
                    self.batch = Some(batch);
                    self.next_in_batch = 0;
                }
                Err(e) => {
                    // A corrupt page or row group ends the file; rows before it are kept.
                    self.failed = true;
                    let message = format!("corrupt Parquet data: {e}; the rows from here are lost");
                    return Some(Err(InputError::new(&self.source, Some(self.row + 1), message)));
                }
            }
        }
    }
}
