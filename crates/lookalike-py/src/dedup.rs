//! `lookalike.dedup(...)`: the library's pipeline over Python strings or an Arrow stream.
//!
//! Documents are built as the CLI builds a JSONL record's ([`Document::from_text`]: the raw
//! fingerprint is the text's, so exact-bytes and exact-text copies are told apart the same way),
//! fed to a [`lookalike::DedupRun`] in batches as they arrive (an Arrow stream is read one batch
//! at a time), and the results collected into Arrow tables ([`crate::tables`]). The GIL is
//! released for the whole run; the Arrow stream's batches are pulled with it released too.

use arrow_array::ffi_stream::RecordBatchStreamReader;
use arrow_array::{Array, RecordBatch, RecordBatchReader};
use arrow_pyarrow::{PyArrowType, Table};
use arrow_schema::DataType;
use lookalike::{Collect, Dedup, Document};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::config;
use crate::errors::{arrow_err, lib_err, value_err};
use crate::tables::{documents_batch, documents_schema, pairs_batch, pairs_schema};

/// Documents per batch handed to the run.
const BATCH: usize = 4096;

/// What a run returns to Python: the documents table, the pairs table, the stats as JSON.
type Output = (PyArrowType<Table>, PyArrowType<Table>, String);

/// A column's strings, whatever Arrow string type holds them; `None` for nulls.
pub fn string_column(batch: &RecordBatch, name: &str, what: &str) -> PyResult<Vec<Option<String>>> {
    let Some(col) = batch.column_by_name(name) else {
        let names: Vec<String> = batch.schema().fields().iter().map(|f| f.name().clone()).collect();
        return Err(value_err(format!(
            "no {what} column {name:?}: the columns are {}",
            if names.is_empty() { "none".to_owned() } else { names.join(", ") }
        )));
    };
    use arrow_array::cast::AsArray;
    let out: Vec<Option<String>> = match col.data_type() {
        DataType::Utf8 => col.as_string::<i32>().iter().map(|v| v.map(str::to_owned)).collect(),
        DataType::LargeUtf8 => {
            col.as_string::<i64>().iter().map(|v| v.map(str::to_owned)).collect()
        }
        DataType::Utf8View => col.as_string_view().iter().map(|v| v.map(str::to_owned)).collect(),
        DataType::Dictionary(_, value)
            if matches!(**value, DataType::Utf8 | DataType::LargeUtf8) =>
        {
            let cast = arrow_cast_to_utf8(col.as_ref())?;
            cast.as_string::<i32>().iter().map(|v| v.map(str::to_owned)).collect()
        }
        other => {
            return Err(PyTypeError::new_err(format!(
                "the {what} column {name:?} holds {other}, not strings"
            )));
        }
    };
    Ok(out)
}

/// A column's ids as the CLI makes them: strings as they are, integers, floats, booleans and
/// decimals as their JSON text (`lookalike_io::arrow_ids`); `None` for nulls.
pub fn id_column(batch: &RecordBatch, name: &str) -> PyResult<Vec<Option<String>>> {
    let Some(col) = batch.column_by_name(name) else {
        // The error that names the columns.
        return string_column(batch, name, "id");
    };
    lookalike_io::arrow_ids(col)
        .map_err(|e| PyTypeError::new_err(format!("the id column {name:?} {e}")))
}

/// A dictionary of strings decoded into plain strings.
pub(crate) fn arrow_cast_to_utf8(col: &dyn Array) -> PyResult<arrow_array::ArrayRef> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::*;
    let dict = match col.data_type() {
        DataType::Dictionary(k, _) => match **k {
            DataType::Int8 => col
                .as_dictionary::<Int8Type>()
                .downcast_dict::<arrow_array::StringArray>()
                .map(|d| d.into_iter().collect::<arrow_array::StringArray>()),
            DataType::Int16 => col
                .as_dictionary::<Int16Type>()
                .downcast_dict::<arrow_array::StringArray>()
                .map(|d| d.into_iter().collect::<arrow_array::StringArray>()),
            DataType::Int32 => col
                .as_dictionary::<Int32Type>()
                .downcast_dict::<arrow_array::StringArray>()
                .map(|d| d.into_iter().collect::<arrow_array::StringArray>()),
            DataType::Int64 => col
                .as_dictionary::<Int64Type>()
                .downcast_dict::<arrow_array::StringArray>()
                .map(|d| d.into_iter().collect::<arrow_array::StringArray>()),
            _ => None,
        },
        _ => None,
    };
    dict.map(|a| std::sync::Arc::new(a) as arrow_array::ArrayRef).ok_or_else(|| {
        PyTypeError::new_err(format!("unsupported dictionary column {}", col.data_type()))
    })
}

/// Documents of one batch: `text` and `id` columns (ids as [`id_column`] makes them); rows
/// without an id column are numbered from `first`. A null text or id is an error naming the row.
pub fn batch_documents(
    batch: &RecordBatch,
    text: &str,
    id: Option<&str>,
    first: usize,
) -> PyResult<Vec<Document>> {
    let texts = string_column(batch, text, "text")?;
    let ids = match id {
        Some(name) => Some(id_column(batch, name)?),
        None => None,
    };
    let mut docs = Vec::with_capacity(texts.len());
    for (i, t) in texts.into_iter().enumerate() {
        let row = first + i;
        let id = match &ids {
            Some(ids) => ids[i].clone().ok_or_else(|| {
                value_err(format!("row {row}: the id column {:?} is null", id.unwrap_or_default()))
            })?,
            None => row.to_string(),
        };
        let t = t.ok_or_else(|| {
            value_err(format!("row {row} (id {id:?}): the text column {text:?} is null"))
        })?;
        docs.push(Document::from_text(id, t));
    }
    Ok(docs)
}

/// Runs `dedup` over batches of documents and builds the output tables.
fn run(
    dedup: &Dedup,
    batches: impl Iterator<Item = PyResult<Vec<Document>>>,
) -> PyResult<(RecordBatch, RecordBatch, String)> {
    let mut run = dedup.start().map_err(lib_err)?;
    for docs in batches {
        run.add(docs?).map_err(lib_err)?;
    }
    let mut collect = Collect::default();
    let report = run.finish_into(&mut collect).map_err(lib_err)?;
    let documents =
        documents_batch(&report.ids, &collect.statuses, &collect.clusters).map_err(arrow_err)?;
    let pairs = pairs_batch(&report.ids, &collect.pairs).map_err(arrow_err)?;
    let stats = serde_json::json!({
        "method": dedup.describe(),
        "config": dedup.config(),
        "stats": report.stats,
    });
    Ok((documents, pairs, stats.to_string()))
}

fn output((documents, pairs, stats): (RecordBatch, RecordBatch, String)) -> PyResult<Output> {
    let documents = Table::try_new(vec![documents], documents_schema()).map_err(arrow_err)?;
    let pairs = Table::try_new(vec![pairs], pairs_schema()).map_err(arrow_err)?;
    Ok((PyArrowType(documents), PyArrowType(pairs), stats))
}

/// dedup_texts(texts, ids=None, method=None, threshold=0.8, keep=None, cluster=None, **options)
/// --
///
/// Deduplicates a list of strings (ids: their positions, or `ids`); returns (documents table,
/// pairs table, stats JSON). Use `lookalike.dedup`.
#[pyfunction]
#[pyo3(signature = (texts, ids=None, method=None, threshold=0.8, keep=None, cluster=None, **options))]
#[allow(clippy::too_many_arguments)]
pub fn dedup_texts(
    py: Python<'_>,
    texts: Vec<Option<String>>,
    ids: Option<Vec<Option<String>>>,
    method: Option<&str>,
    threshold: f64,
    keep: Option<&str>,
    cluster: Option<&str>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Output> {
    let dedup = config::build(method, threshold, keep, cluster, options)?;
    if let Some(ids) = &ids
        && ids.len() != texts.len()
    {
        return Err(value_err(format!("{} ids for {} texts", ids.len(), texts.len())));
    }
    let mut docs = Vec::with_capacity(texts.len());
    for (i, t) in texts.into_iter().enumerate() {
        let id = match &ids {
            Some(ids) => {
                ids[i].clone().ok_or_else(|| value_err(format!("text {i}: its id is None")))?
            }
            None => i.to_string(),
        };
        let t =
            t.ok_or_else(|| value_err(format!("text {i} (id {id:?}) is None, not a string")))?;
        docs.push(Document::from_text(id, t));
    }
    let result = py.detach(|| {
        let mut chunks = Vec::new();
        let mut rest = docs;
        while rest.len() > BATCH {
            let tail = rest.split_off(BATCH);
            chunks.push(rest);
            rest = tail;
        }
        chunks.push(rest);
        run(&dedup, chunks.into_iter().map(Ok))
    })?;
    output(result)
}

/// dedup_arrow(data, text="text", id=None, method=None, threshold=0.8, keep=None, cluster=None, **options)
/// --
///
/// Deduplicates the rows of anything with `__arrow_c_stream__` (a pyarrow Table or
/// RecordBatchReader, a polars DataFrame, a DuckDB relation), read one batch at a time; returns
/// (documents table, pairs table, stats JSON). Use `lookalike.dedup`.
#[pyfunction]
#[pyo3(signature = (data, text="text", id=None, method=None, threshold=0.8, keep=None, cluster=None, **options))]
#[allow(clippy::too_many_arguments)]
pub fn dedup_arrow(
    py: Python<'_>,
    data: PyArrowType<RecordBatchStreamReader>,
    text: &str,
    id: Option<&str>,
    method: Option<&str>,
    threshold: f64,
    keep: Option<&str>,
    cluster: Option<&str>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Output> {
    let dedup = config::build(method, threshold, keep, cluster, options)?;
    let reader = data.0;
    // Check the columns before any work, also for an empty stream.
    let schema = reader.schema();
    let empty = RecordBatch::new_empty(schema);
    string_column(&empty, text, "text")?;
    if let Some(id) = id {
        id_column(&empty, id)?;
    }
    let result = py.detach(|| {
        let mut first = 0usize;
        let batches = reader.map(|batch| {
            let batch = batch.map_err(arrow_err)?;
            let docs = batch_documents(&batch, text, id, first)?;
            first += batch.num_rows();
            Ok(docs)
        });
        run(&dedup, batches)
    })?;
    output(result)
}
