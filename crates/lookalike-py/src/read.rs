//! `lookalike.read(paths)`: the CLI's readers as a stream of Arrow batches.
//!
//! Paths, directories and globs are expanded as `lookalike dedup` expands its arguments; records
//! are read on one thread and decoded (charset detection, HTML main-content extraction, JSONL
//! fields, WARC responses, Parquet rows) in parallel, in input order ([`DecodedBatches`]). Every
//! record is one row, also when it holds no document: then `text` is null and `skipped` says why
//! (an unreadable line, a WARC request record, a binary payload, a file that could not be read).
//! Ids are made unique over the stream as the CLI makes them ([`UniqueIds`]).

use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{ArrayRef, RecordBatch, RecordBatchReader};
use arrow_pyarrow::IntoPyArrow;
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use lookalike_io::{
    BatchLimits, Decoded, DecodedBatches, Extract, Format, InputError, Origin, RawRecord,
    ReadOptions, SkipReason, UniqueIds, expand_inputs,
};
use pyo3::prelude::*;

use crate::errors::{io_err, value_err};

/// One record, decoded.
#[derive(Debug)]
struct Row {
    id: String,
    text: Option<String>,
    title: Option<String>,
    origin: Origin,
    charset: Option<&'static str>,
    warning: Option<String>,
    skipped: Option<SkipReason>,
}

fn to_row(rec: &RawRecord, decoded: Decoded) -> Row {
    let origin = rec.origin();
    match decoded {
        Decoded::Doc { doc, warning, charset, title, .. } => Row {
            id: doc.id,
            text: Some(doc.text),
            title,
            origin,
            charset: Some(charset),
            warning,
            skipped: None,
        },
        Decoded::Skip { id, reason } => Row {
            id,
            text: None,
            title: None,
            origin,
            charset: None,
            warning: None,
            skipped: Some(reason),
        },
    }
}

fn error_row(e: InputError) -> Row {
    let origin = e.origin();
    Row {
        id: e.lost.clone().unwrap_or_else(|| origin.to_string()),
        text: None,
        title: None,
        origin,
        charset: None,
        warning: None,
        skipped: Some(SkipReason::unreadable(e.message)),
    }
}

type Batches = DecodedBatches<fn(&RawRecord, Decoded) -> Row>;

/// The stream handed to pyarrow.
struct Stream {
    batches: Batches,
    ids: UniqueIds,
    schema: SchemaRef,
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream").finish_non_exhaustive()
    }
}

/// The schema of `read`'s batches.
fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Utf8, false),
        Field::new("text", DataType::Utf8, true),
        Field::new("title", DataType::Utf8, true),
        Field::new("origin", DataType::Utf8, false),
        Field::new("charset", DataType::Utf8, true),
        Field::new("warning", DataType::Utf8, true),
        Field::new("skipped", DataType::Utf8, true),
    ]))
}

impl Stream {
    fn batch(&mut self, rows: Vec<Row>) -> Result<RecordBatch, ArrowError> {
        let mut b: Vec<StringBuilder> = (0..7).map(|_| StringBuilder::new()).collect();
        for mut r in rows {
            if r.skipped.is_none()
                && let Some(new) = self.ids.make_unique(&r.id, &r.origin)
            {
                r.id = new;
            }
            b[0].append_value(&r.id);
            b[1].append_option(r.text.as_deref());
            b[2].append_option(r.title.as_deref());
            b[3].append_value(r.origin.to_string());
            b[4].append_option(r.charset);
            b[5].append_option(r.warning.as_deref());
            b[6].append_option(r.skipped.as_ref().map(SkipReason::as_str));
        }
        let columns: Vec<ArrayRef> =
            b.iter_mut().map(|b| Arc::new(b.finish()) as ArrayRef).collect();
        RecordBatch::try_new(self.schema.clone(), columns)
    }
}

impl Iterator for Stream {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        let batch = self.batches.next()?;
        let rows = batch.into_iter().map(|r| r.unwrap_or_else(error_row)).collect();
        Some(self.batch(rows))
    }
}

impl RecordBatchReader for Stream {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

/// read(paths, id_field="id", text_field="text", extract="main", format=None, batch_size=4096)
/// --
///
/// Reads files, directories and globs (text, HTML, JSONL, WARC, Parquet, gzip) as
/// `lookalike dedup` reads them; returns a `pyarrow.RecordBatchReader` of rows (id, text,
/// title, origin, charset, warning, skipped). Raises `OSError` when an argument names nothing
/// readable, `ValueError` for a bad option.
#[pyfunction]
#[pyo3(signature = (paths, id_field="id", text_field="text", extract="main", format=None, batch_size=4096))]
pub fn read<'py>(
    py: Python<'py>,
    paths: Vec<String>,
    id_field: &str,
    text_field: &str,
    extract: &str,
    format: Option<&str>,
    batch_size: usize,
) -> PyResult<Bound<'py, PyAny>> {
    if paths.is_empty() {
        return Err(value_err("no paths to read"));
    }
    let extract: Extract = extract.parse().map_err(value_err)?;
    let format: Option<Format> = match format {
        Some(f) => Some(f.parse().map_err(|_| {
            value_err(format!(
                "unknown format {f:?}: expected text, html, jsonl, warc, parquet or docreader"
            ))
        })?),
        None => None,
    };
    let opts = ReadOptions {
        id_field: id_field.to_owned(),
        text_field: text_field.to_owned(),
        format,
        extract,
        ..ReadOptions::default()
    };
    let expanded = py.detach(|| expand_inputs(&paths)).map_err(io_err)?;
    if expanded.inputs.is_empty() {
        return Err(io_err(format!("no readable input in {}", paths.join(", "))));
    }
    let map: fn(&RawRecord, Decoded) -> Row = to_row;
    let batches = DecodedBatches::spawn(
        expanded.inputs,
        opts,
        BatchLimits { records: batch_size.max(1), ..BatchLimits::default() },
        map,
    )
    .map_err(io_err)?;
    let stream = Stream { batches, ids: UniqueIds::default(), schema: schema() };
    let boxed: Box<dyn RecordBatchReader + Send> = Box::new(stream);
    boxed.into_pyarrow(py)
}
