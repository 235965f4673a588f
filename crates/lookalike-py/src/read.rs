//! `lookalike.read(paths)`: the CLI's readers as a stream of Arrow batches.
//!
//! Paths, directories and globs are expanded as `lookalike dedup` expands its arguments; records
//! are read on one thread and decoded (charset detection, HTML main-content extraction, JSONL
//! fields, WARC responses, Parquet rows) in parallel, in input order ([`DecodedBatches`]). Every
//! record is one row, also when it holds no document: then `text` is null and `skipped` says why
//! (an unreadable line, a WARC request record, a binary payload, a file that could not be read).
//! Ids are made unique over the stream as the CLI makes them ([`UniqueIds`]). Site boilerplate
//! removal runs as in `lookalike dedup` (`boilerplate="auto"`: web pages), in two passes over a
//! temporary file ([`lookalike_io::boilerplate`]), so that `lookalike.dedup(lookalike.read(...))`
//! compares the texts the CLI compares.

use std::sync::Arc;

use arrow_array::builder::{StringBuilder, UInt64Builder};
use arrow_array::{ArrayRef, RecordBatch, RecordBatchReader};
use arrow_pyarrow::IntoPyArrow;
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use lookalike::boilerplate::BoilerplateRule;
use lookalike_io::boilerplate::{BoilerplateMode, BoilerplateOptions, Cleaned, Second, SitePass};
use lookalike_io::{
    BatchLimits, BoilerplateRemoved, Decoded, DecodedBatches, Extract, Format, InputError, Origin,
    RawRecord, ReadOptions, SkipReason, UniqueIds, expand_inputs,
};
use pyo3::prelude::*;

use crate::errors::{io_err, value_err};

/// One record, decoded.
#[derive(Debug)]
pub(crate) struct Row {
    pub(crate) id: String,
    pub(crate) text: Option<String>,
    pub(crate) title: Option<String>,
    pub(crate) origin: Origin,
    pub(crate) charset: Option<&'static str>,
    pub(crate) warning: Option<String>,
    pub(crate) skipped: Option<SkipReason>,
    pub(crate) boilerplate: Option<BoilerplateRemoved>,
}

fn to_row(rec: &RawRecord, decoded: Decoded) -> Row {
    row(rec.origin(), decoded, None)
}

fn cleaned_row(second: Second) -> Row {
    row(second.origin, second.decoded, second.removed)
}

pub(crate) fn row(
    origin: Origin,
    decoded: Decoded,
    boilerplate: Option<BoilerplateRemoved>,
) -> Row {
    match decoded {
        Decoded::Doc { doc, warning, charset, title, .. } => Row {
            id: doc.id,
            text: Some(doc.text),
            title,
            origin,
            charset: Some(charset),
            warning,
            skipped: None,
            boilerplate,
        },
        Decoded::Skip { id, reason } => Row {
            id,
            text: None,
            title: None,
            origin,
            charset: None,
            warning: None,
            skipped: Some(reason),
            boilerplate,
        },
    }
}

pub(crate) fn error_row(e: InputError) -> Row {
    let origin = e.origin();
    Row {
        id: e.lost.clone().unwrap_or_else(|| origin.to_string()),
        text: None,
        title: None,
        origin,
        charset: None,
        warning: None,
        skipped: Some(SkipReason::unreadable(e.message)),
        boilerplate: None,
    }
}

type Batches = DecodedBatches<fn(&RawRecord, Decoded) -> Row>;

/// Where the rows come from: the reader, or the second pass of boilerplate removal.
enum Rows {
    Read(Batches),
    Cleaned(Box<Cleaned>),
}

/// The stream handed to pyarrow.
pub(crate) struct Stream {
    rows: Rows,
    ids: UniqueIds,
    schema: SchemaRef,
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream").finish_non_exhaustive()
    }
}

/// The schema of `read`'s batches.
pub(crate) fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Utf8, false),
        Field::new("text", DataType::Utf8, true),
        Field::new("title", DataType::Utf8, true),
        Field::new("origin", DataType::Utf8, false),
        Field::new("charset", DataType::Utf8, true),
        Field::new("warning", DataType::Utf8, true),
        Field::new("skipped", DataType::Utf8, true),
        Field::new("boilerplate_source", DataType::Utf8, true),
        Field::new("boilerplate_removed_bytes", DataType::UInt64, true),
        Field::new("boilerplate_before_bytes", DataType::UInt64, true),
    ]))
}

impl Stream {
    fn batch(&mut self, mut rows: Vec<Row>) -> Result<RecordBatch, ArrowError> {
        for r in &mut rows {
            if r.skipped.is_none()
                && let Some(new) = self.ids.make_unique(&r.id, &r.origin)
            {
                r.id = new;
            }
        }
        rows_batch(self.schema.clone(), &rows, Vec::new())
    }
}

/// The rows in [`schema`]'s columns, then `extra` columns (the schema must name them last).
pub(crate) fn rows_batch(
    schema: SchemaRef,
    rows: &[Row],
    extra: Vec<ArrayRef>,
) -> Result<RecordBatch, ArrowError> {
    let mut b: Vec<StringBuilder> = (0..8).map(|_| StringBuilder::new()).collect();
    let mut n: Vec<UInt64Builder> = (0..2).map(|_| UInt64Builder::new()).collect();
    for r in rows {
        b[0].append_value(&r.id);
        b[1].append_option(r.text.as_deref());
        b[2].append_option(r.title.as_deref());
        b[3].append_value(r.origin.to_string());
        b[4].append_option(r.charset);
        b[5].append_option(r.warning.as_deref());
        b[6].append_option(r.skipped.as_ref().map(SkipReason::as_str));
        b[7].append_option(r.boilerplate.map(|r| r.source));
        n[0].append_option(r.boilerplate.map(|r| r.removed_bytes));
        n[1].append_option(r.boilerplate.map(|r| r.before_bytes));
    }
    let mut columns: Vec<ArrayRef> =
        b.iter_mut().map(|b| Arc::new(b.finish()) as ArrayRef).collect();
    columns.extend(n.iter_mut().map(|n| Arc::new(n.finish()) as ArrayRef));
    columns.extend(extra);
    RecordBatch::try_new(schema, columns)
}

impl Iterator for Stream {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        let rows = match &mut self.rows {
            Rows::Read(batches) => {
                batches.next()?.into_iter().map(|r| r.unwrap_or_else(error_row)).collect()
            }
            Rows::Cleaned(cleaned) => match cleaned.next_batch() {
                Ok(batch) => {
                    batch?.into_iter().map(|r| r.map_or_else(error_row, cleaned_row)).collect()
                }
                Err(e) => {
                    let message = format!("cannot read the temporary file of boilerplate: {e}");
                    return Some(Err(ArrowError::IoError(message, e)));
                }
            },
        };
        Some(self.batch(rows))
    }
}

impl RecordBatchReader for Stream {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

/// read(paths, id_field="id", text_field="text", extract="main", format=None, batch_size=4096, boilerplate="auto", site_field=None, boilerplate_min_pages=4, boilerplate_min_share=0.02, temp_dir=None)
/// --
///
/// Reads files, directories and globs (text, HTML, JSONL, WARC, Parquet, gzip) as
/// `lookalike dedup` reads them; returns a `pyarrow.RecordBatchReader` of rows (id, text,
/// title, origin, charset, warning, skipped, boilerplate_source, boilerplate_removed_bytes,
/// boilerplate_before_bytes). Site boilerplate removal (`boilerplate`: "auto" for web pages,
/// "all", "off") reads every input before the first batch, holding the texts in a temporary
/// file in `temp_dir` (the system's by default). Raises `OSError` when an argument names nothing
/// readable, `ValueError` for a bad option.
#[pyfunction]
#[pyo3(signature = (
    paths, id_field="id", text_field="text", extract="main", format=None, batch_size=4096,
    boilerplate="auto", site_field=None, boilerplate_min_pages=None, boilerplate_min_share=None,
    temp_dir=None,
))]
#[allow(clippy::too_many_arguments)]
pub fn read<'py>(
    py: Python<'py>,
    paths: Vec<String>,
    id_field: &str,
    text_field: &str,
    extract: &str,
    format: Option<&str>,
    batch_size: usize,
    boilerplate: &str,
    site_field: Option<String>,
    boilerplate_min_pages: Option<u32>,
    boilerplate_min_share: Option<f64>,
    temp_dir: Option<std::path::PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    if paths.is_empty() {
        return Err(value_err("no paths to read"));
    }
    let (opts, boilerplate) = ReadSettings {
        id_field,
        text_field,
        extract,
        format,
        boilerplate,
        site_field,
        boilerplate_min_pages,
        boilerplate_min_share,
    }
    .parse()?;
    let limits = BatchLimits { records: batch_size.max(1), ..BatchLimits::default() };
    let dir = temp_dir.unwrap_or_else(std::env::temp_dir);
    let stream = py.detach(|| open(&paths, opts, &boilerplate, limits, &dir))?;
    let boxed: Box<dyn RecordBatchReader + Send> = Box::new(stream);
    boxed.into_pyarrow(py)
}

/// `read`'s stream over `paths`: with site boilerplate removal, its first pass is done when this
/// returns (the texts held in a temporary file in `dir`).
pub(crate) fn open(
    paths: &[String],
    opts: ReadOptions,
    boilerplate: &BoilerplateOptions,
    limits: BatchLimits,
    dir: &std::path::Path,
) -> PyResult<Stream> {
    let expanded = expand_inputs(paths).map_err(io_err)?;
    if expanded.inputs.is_empty() {
        return Err(io_err(format!("no readable input in {}", paths.join(", "))));
    }
    let rows = if boilerplate.enabled(&opts, &expanded.inputs) {
        Rows::Cleaned(Box::new(first_pass(expanded.inputs, opts, boilerplate, dir, limits)?))
    } else {
        let map: fn(&RawRecord, Decoded) -> Row = to_row;
        Rows::Read(DecodedBatches::spawn(expanded.inputs, opts, limits, map).map_err(io_err)?)
    };
    Ok(Stream { rows, ids: UniqueIds::default(), schema: schema() })
}

/// The reading options `read` and the Ray reader take, as Python gives them.
#[derive(Debug)]
pub struct ReadSettings<'a> {
    pub id_field: &'a str,
    pub text_field: &'a str,
    pub extract: &'a str,
    pub format: Option<&'a str>,
    pub boilerplate: &'a str,
    pub site_field: Option<String>,
    pub boilerplate_min_pages: Option<u32>,
    pub boilerplate_min_share: Option<f64>,
}

impl ReadSettings<'_> {
    /// The reader's options and boilerplate removal's, checked.
    pub fn parse(self) -> PyResult<(ReadOptions, BoilerplateOptions)> {
        let extract: Extract = self.extract.parse().map_err(value_err)?;
        let format: Option<Format> = match self.format {
            Some(f) => Some(f.parse().map_err(|_| {
                value_err(format!(
                    "unknown format {f:?}: expected text, html, jsonl, warc, parquet or docreader"
                ))
            })?),
            None => None,
        };
        let defaults = BoilerplateRule::default();
        let rule = BoilerplateRule {
            min_pages: self.boilerplate_min_pages.unwrap_or(defaults.min_pages),
            min_share: self.boilerplate_min_share.unwrap_or(defaults.min_share),
        };
        BoilerplateRule::share(rule.min_share)
            .map_err(|e| value_err(format!("boilerplate_min_share {e}")))?;
        let mode: BoilerplateMode = self.boilerplate.parse().map_err(value_err)?;
        let opts = ReadOptions {
            id_field: self.id_field.to_owned(),
            text_field: self.text_field.to_owned(),
            format,
            extract,
            ..ReadOptions::default()
        };
        Ok((opts, BoilerplateOptions { mode, rule, site_field: self.site_field }))
    }
}

/// Boilerplate removal's first pass over every input: the site statistics counted, the texts
/// held in a temporary file in `dir`; gives the second pass.
fn first_pass(
    inputs: Vec<lookalike_io::Input>,
    opts: ReadOptions,
    boilerplate: &BoilerplateOptions,
    dir: &std::path::Path,
    limits: BatchLimits,
) -> PyResult<Cleaned> {
    let temp = |what: &str, e: std::io::Error| {
        io_err(format!(
            "cannot {what} the temporary file of boilerplate removal in {}: {e}",
            dir.display()
        ))
    };
    let mut pass = SitePass::new(boilerplate, dir).map_err(|e| temp("create", e))?;
    let mode = pass.mode();
    let first = move |rec: &RawRecord, decoded: Decoded| {
        lookalike_io::boilerplate::first(mode, rec, decoded, None)
    };
    let batches = DecodedBatches::spawn(inputs, boilerplate.read_options(opts), limits, first)
        .map_err(io_err)?;
    for batch in batches {
        for item in batch {
            pass.hold(item).map_err(|e| temp("write", e))?;
        }
    }
    pass.finish(limits.records).map_err(|e| temp("read", e))
}
