//! `lookalike.paragraphs(...)`: paragraph-level dedup ([`lookalike::paragraphs`]) over Python
//! strings or an Arrow stream, the same decisions as `lookalike paragraphs` on the same texts in
//! the same order.
//!
//! An Arrow stream is read one batch at a time: each batch's texts are hashed in parallel and
//! decided in order, and the batch comes back with its text column cleaned, every other column
//! as it was, and (unless turned off) a column of the removed spans. The GIL is released for the
//! work and while the stream is read.

use std::sync::Arc;

use arrow_array::builder::{
    Int64Builder, LargeStringBuilder, ListBuilder, StringBuilder, StructBuilder,
};
use arrow_array::ffi_stream::RecordBatchStreamReader;
use arrow_array::{ArrayRef, RecordBatch, RecordBatchReader};
use arrow_pyarrow::{PyArrowType, Table};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use lookalike::paragraphs::{BloomConfig, DocOutcome, ParagraphConfig, ParagraphDedup};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::dedup::string_column;
use crate::errors::{arrow_err, lib_err, value_err};

/// The schema metadata key holding the run's counts (JSON).
const STATS_KEY: &str = "lookalike.paragraphs";

/// The settings from the Python arguments; `bloom_bytes` is a number of bytes or a size such as
/// `"512M"`.
fn config(
    min_chars: usize,
    bloom_bytes: Option<&Bound<'_, PyAny>>,
    bloom_items: Option<u64>,
) -> PyResult<ParagraphConfig> {
    let bytes = match bloom_bytes {
        None => None,
        Some(v) if v.is_none() => None,
        Some(v) => Some(match v.extract::<usize>() {
            Ok(n) => n,
            Err(_) => {
                let s: String = v.extract().map_err(|_| {
                    PyTypeError::new_err("bloom_bytes is a number of bytes or a size like '512M'")
                })?;
                lookalike::config::parse_size(&s).map_err(value_err)?
            }
        }),
    };
    if bytes.is_some_and(|b| b < 8) {
        return Err(value_err("bloom_bytes must be at least 8"));
    }
    if bloom_items == Some(0) {
        return Err(value_err("bloom_items must be at least 1"));
    }
    if bloom_items.is_some() && bytes.is_none() {
        return Err(value_err("bloom_items is the Bloom filter's: give bloom_bytes too"));
    }
    Ok(ParagraphConfig {
        min_chars,
        bloom: bytes.map(|bytes| BloomConfig { bytes, expected_items: bloom_items }),
    })
}

/// The counts of a run as JSON, with the Bloom filter's estimated false-positive rate.
fn stats_json(dedup: &ParagraphDedup) -> String {
    let mut v = serde_json::json!({"config": dedup.config(), "stats": dedup.stats()});
    if let Some(f) = dedup.bloom() {
        v["bloom"] = serde_json::json!({
            "bits": f.bits(),
            "hashes": f.hashes(),
            "items": f.items(),
            "fill": f.fill(),
            "false_positive_rate": f.false_positive_rate(),
        });
    }
    v.to_string()
}

/// paragraphs_texts(texts, min_chars=0, bloom_bytes=None, bloom_items=None)
/// --
///
/// The texts with the paragraphs seen earlier removed (None stays None), and the run's counts
/// as JSON. Use `lookalike.paragraphs`.
#[pyfunction]
#[pyo3(signature = (texts, min_chars=0, bloom_bytes=None, bloom_items=None))]
pub fn paragraphs_texts(
    py: Python<'_>,
    texts: Vec<Option<String>>,
    min_chars: usize,
    bloom_bytes: Option<&Bound<'_, PyAny>>,
    bloom_items: Option<u64>,
) -> PyResult<(Vec<Option<String>>, String)> {
    let config = config(min_chars, bloom_bytes, bloom_items)?;
    py.detach(|| {
        let mut dedup = ParagraphDedup::new(&config).map_err(lib_err)?;
        let present: Vec<&str> = texts.iter().flatten().map(String::as_str).collect();
        let mut outcomes = dedup.add_batch(&present).into_iter();
        let cleaned = texts
            .iter()
            .map(|t| {
                let t = t.as_deref()?;
                let outcome = outcomes.next().unwrap_or_default();
                Some(outcome.kept_text(t).into_owned())
            })
            .collect();
        Ok((cleaned, stats_json(&dedup)))
    })
}

/// paragraphs_arrow(data, text="text", min_chars=0, bloom_bytes=None, bloom_items=None, spans="removed_spans")
/// --
///
/// The rows of anything with `__arrow_c_stream__`, with the paragraphs seen earlier removed from
/// the text column, as a pyarrow Table (the counts in its schema metadata). Use
/// `lookalike.paragraphs`.
#[pyfunction]
#[pyo3(signature = (data, text="text", min_chars=0, bloom_bytes=None, bloom_items=None, spans=Some("removed_spans")))]
pub fn paragraphs_arrow(
    py: Python<'_>,
    data: PyArrowType<RecordBatchStreamReader>,
    text: &str,
    min_chars: usize,
    bloom_bytes: Option<&Bound<'_, PyAny>>,
    bloom_items: Option<u64>,
    spans: Option<&str>,
) -> PyResult<PyArrowType<Table>> {
    let config = config(min_chars, bloom_bytes, bloom_items)?;
    let reader = data.0;
    let input = reader.schema();
    // Check the columns before any work, also for an empty stream.
    string_column(&RecordBatch::new_empty(input.clone()), text, "text")?;
    if let Some(name) = spans
        && input.column_with_name(name).is_some()
    {
        return Err(value_err(format!(
            "the table has a column {name:?} already: name the spans column otherwise \
             (spans_column=...) or pass spans_column=None"
        )));
    }
    let text_at = input.index_of(text).map_err(arrow_err)?;
    let large = matches!(input.field(text_at).data_type(), DataType::LargeUtf8);
    let text_field = Field::new(
        text,
        if large { DataType::LargeUtf8 } else { DataType::Utf8 },
        input.field(text_at).is_nullable(),
    );
    let mut fields: Vec<Field> = input.fields().iter().map(|f| f.as_ref().clone()).collect();
    fields[text_at] = text_field.with_metadata(input.field(text_at).metadata().clone());
    if let Some(name) = spans {
        fields.push(Field::new(name, spans_type(), false));
    }
    let (batches, stats) = py.detach(|| -> PyResult<(Vec<RecordBatch>, String)> {
        let mut dedup = ParagraphDedup::new(&config).map_err(lib_err)?;
        let schema: SchemaRef = Arc::new(Schema::new(fields.clone()));
        // Document number → row, for `first_seen` (rows with a null text are no documents).
        let mut doc_rows: Vec<i64> = Vec::new();
        let mut rows = 0i64;
        let mut out = Vec::new();
        for batch in reader {
            let batch = batch.map_err(arrow_err)?;
            let texts = string_column(&batch, text, "text")?;
            let present: Vec<&str> = texts.iter().flatten().map(String::as_str).collect();
            let mut outcomes = dedup.add_batch(&present).into_iter();
            let mut per_row: Vec<Option<DocOutcome>> = Vec::with_capacity(texts.len());
            for (i, t) in texts.iter().enumerate() {
                per_row.push(t.as_ref().map(|_| {
                    doc_rows.push(rows + i as i64);
                    outcomes.next().unwrap_or_default()
                }));
            }
            rows += texts.len() as i64;
            let mut columns: Vec<ArrayRef> = batch.columns().to_vec();
            columns[text_at] = cleaned_column(&texts, &per_row, large);
            if spans.is_some() {
                columns.push(spans_column(&per_row, &doc_rows)?);
            }
            out.push(RecordBatch::try_new(schema.clone(), columns).map_err(arrow_err)?);
        }
        Ok((out, stats_json(&dedup)))
    })?;
    let mut metadata = input.metadata().clone();
    metadata.extend([(STATS_KEY, stats)]);
    let schema = Arc::new(Schema::new(fields).with_metadata(metadata));
    let batches = batches
        .into_iter()
        .map(|b| b.with_schema(schema.clone()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(arrow_err)?;
    let table = Table::try_new(batches, schema).map_err(arrow_err)?;
    Ok(PyArrowType(table))
}

/// The text column with the removed paragraphs cut out (nulls stay null).
fn cleaned_column(
    texts: &[Option<String>],
    outcomes: &[Option<DocOutcome>],
    large: bool,
) -> ArrayRef {
    let cleaned = texts.iter().zip(outcomes).map(|(t, o)| match (t, o) {
        (Some(t), Some(o)) => Some(o.kept_text(t)),
        _ => None,
    });
    if large {
        let mut b = LargeStringBuilder::new();
        for c in cleaned {
            b.append_option(c);
        }
        Arc::new(b.finish())
    } else {
        let mut b = StringBuilder::new();
        for c in cleaned {
            b.append_option(c);
        }
        Arc::new(b.finish())
    }
}

/// The fields of one removed span: byte offsets in the text and the row where the paragraph
/// was first seen (null in the Bloom mode).
fn span_fields() -> Fields {
    Fields::from(vec![
        Field::new("start", DataType::Int64, false),
        Field::new("end", DataType::Int64, false),
        Field::new("first_seen", DataType::Int64, true),
    ])
}

fn spans_type() -> DataType {
    DataType::List(Arc::new(Field::new("item", DataType::Struct(span_fields()), true)))
}

/// The removed spans of each row (an empty list for a null text).
fn spans_column(outcomes: &[Option<DocOutcome>], doc_rows: &[i64]) -> PyResult<ArrayRef> {
    let values = StructBuilder::from_fields(span_fields(), 0);
    let mut list = ListBuilder::new(values);
    let missing = || value_err("internal error: the spans column has no such field");
    for o in outcomes {
        for r in o.iter().flat_map(|o| &o.removed) {
            let s = list.values();
            s.field_builder::<Int64Builder>(0).ok_or_else(missing)?.append_value(r.start as i64);
            s.field_builder::<Int64Builder>(1).ok_or_else(missing)?.append_value(r.end as i64);
            let first = r.first_seen.and_then(|d| doc_rows.get(d as usize).copied());
            s.field_builder::<Int64Builder>(2).ok_or_else(missing)?.append_option(first);
            s.append(true);
        }
        list.append(true);
    }
    Ok(Arc::new(list.finish()))
}
