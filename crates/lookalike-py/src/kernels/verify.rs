//! Ray stage 4: exact verification as a join of the candidate pairs with what each pair's
//! documents need: their shingle sets (exact verification), or their texts (estimate
//! verification, which asks the method). Contract: "give me candidate pairs, I route each to a
//! partition and ask for its documents; give me a block of documents and the requests for them,
//! I compute each requested document's shingle set once, where its text is, and send it to every
//! partition that asked for it; give me a partition's pairs and sets, I give you the pairs whose
//! exact Jaccard (or containment) reaches the threshold".
//!
//! A shingle set travels as a `large_list<uint64>` (the library's sorted, distinct shingle
//! hashes): the verification computes each requested document's set once, not once per
//! partition that needs it, and no text crosses the join.

use std::borrow::Cow;
use std::sync::Arc;

use arrow_array::builder::{Int64Builder, LargeListBuilder, LargeStringBuilder, UInt64Builder};
use arrow_array::cast::AsArray;
use arrow_array::types::{UInt8Type, UInt64Type};
use arrow_array::{Array, ArrayRef, LargeListArray, LargeStringArray, RecordBatch};
use arrow_pyarrow::PyArrowType;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use lookalike::DedupConfig;
use lookalike::method::{PartialStatistics, estimate_pairs};
use lookalike::pipeline::exact_similarity;
use lookalike::shingles::ShingleScratch;
use lookalike::text::normalize::NormalizedText;
use lookalike::verify::containment;
use lookalike::{Measure, Verify};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;

use super::{
    CANDIDATE, Edge, NEAR, TextColumn, column, contained_code, edges_batch, index_column, int64s,
    ray_config, shingler_of, texts_and_positions,
};
use crate::dedup::string_column;
use crate::errors::{arrow_err, value_err};
use crate::input::Batch;

/// splitmix64's finaliser: spreads document indices over the verification partitions.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The verification partition of a pair whose first document is `a`, among `partitions`.
pub fn pair_dest(a: i64, partitions: u64) -> i64 {
    (mix(a as u64) % partitions.max(1)) as i64
}

/// The `set` column: a document's shingle set, the library's sorted, distinct hashes.
fn set_field() -> Field {
    Field::new(
        "set",
        DataType::LargeList(Arc::new(Field::new_list_field(DataType::UInt64, true))),
        true,
    )
}

/// The schema of the verification join's rows: a pair (`a`, `b`, no text, no set) or a
/// document's payload (`a` its document, `b` = -1; its `set`, or with estimate verification its
/// `text`) bound for verification partition `dest`.
fn join_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("dest", DataType::Int64, false),
        Field::new("a", DataType::Int64, false),
        Field::new("b", DataType::Int64, false),
        Field::new("text", DataType::LargeUtf8, true),
        set_field(),
    ]))
}

/// The schema of the requests for documents, and of the documents' payloads themselves, before
/// a repartition by document: `doc`, `dest` (-1 on a payload row), and `text` or `set` (both
/// null on a request).
fn request_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("doc", DataType::Int64, false),
        Field::new("dest", DataType::Int64, false),
        Field::new("text", DataType::LargeUtf8, true),
        set_field(),
    ]))
}

/// What the verification needs of a document: its shingle set (exact verification) or its text
/// (estimate verification: the method estimates a pair from the two texts).
#[derive(Debug, Clone, PartialEq)]
pub enum Payload<'a> {
    /// The sorted, distinct shingle hashes.
    Set(Cow<'a, [u64]>),
    /// The text.
    Text(Cow<'a, str>),
}

/// The payload columns of a batch of the join or the request schema (`set` may be missing: a
/// batch of texts only).
struct Payloads<'a> {
    text: &'a LargeStringArray,
    set: Option<&'a LargeListArray>,
}

impl<'a> Payloads<'a> {
    fn of(batch: &'a RecordBatch) -> PyResult<Payloads<'a>> {
        let text = column(batch, "text")?
            .as_string_opt::<i64>()
            .ok_or_else(|| value_err("text is not a large string"))?;
        let set = match batch.column_by_name("set") {
            Some(s) => {
                let list =
                    s.as_list_opt::<i64>().ok_or_else(|| value_err("set is not a large list"))?;
                if list.values().as_primitive_opt::<UInt64Type>().is_none() {
                    return Err(value_err("set is not a list of uint64"));
                }
                Some(list)
            }
            None => None,
        };
        Ok(Payloads { text, set })
    }

    /// Row `i`'s payload, none on a pair or request row.
    fn get(&self, i: usize) -> Option<Payload<'a>> {
        if let Some(list) = self.set
            && !list.is_null(i)
        {
            let values = list.values().as_primitive::<UInt64Type>().values();
            let offsets = list.value_offsets();
            let range = offsets[i] as usize..offsets[i + 1] as usize;
            return Some(Payload::Set(Cow::Borrowed(&values[range])));
        }
        (!self.text.is_null(i)).then(|| Payload::Text(Cow::Borrowed(self.text.value(i))))
    }
}

/// Builders of the `text` and `set` columns.
struct PayloadBuilder {
    text: LargeStringBuilder,
    set: LargeListBuilder<UInt64Builder>,
}

impl PayloadBuilder {
    fn new() -> PayloadBuilder {
        PayloadBuilder {
            text: LargeStringBuilder::new(),
            set: LargeListBuilder::new(UInt64Builder::new()),
        }
    }

    fn append(&mut self, payload: Option<&Payload<'_>>) {
        match payload {
            Some(Payload::Set(s)) => {
                self.text.append_null();
                self.set.values().append_slice(s);
                self.set.append(true);
            }
            Some(Payload::Text(t)) => {
                self.text.append_value(t);
                self.set.append_null();
            }
            None => {
                self.text.append_null();
                self.set.append_null();
            }
        }
    }

    fn finish(mut self) -> [ArrayRef; 2] {
        [Arc::new(self.text.finish()), Arc::new(self.set.finish())]
    }
}

/// Rows of the join schema, built one at a time.
struct JoinRows {
    dest: Int64Builder,
    a: Int64Builder,
    b: Int64Builder,
    payload: PayloadBuilder,
}

impl JoinRows {
    fn new() -> JoinRows {
        JoinRows {
            dest: Int64Builder::new(),
            a: Int64Builder::new(),
            b: Int64Builder::new(),
            payload: PayloadBuilder::new(),
        }
    }

    /// A pair (`payload` none), or document `a`'s payload (`b` -1).
    fn push(&mut self, dest: i64, a: i64, b: i64, payload: Option<&Payload<'_>>) {
        self.dest.append_value(dest);
        self.a.append_value(a);
        self.b.append_value(b);
        self.payload.append(payload);
    }

    fn finish(mut self) -> Result<RecordBatch, arrow_schema::ArrowError> {
        let [text, set] = self.payload.finish();
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.dest.finish()),
            Arc::new(self.a.finish()),
            Arc::new(self.b.finish()),
            text,
            set,
        ];
        RecordBatch::try_new(join_schema(), columns)
    }
}

/// Rows of the request schema: `doc`, `dest` and a payload (none on a request).
fn request_batch<'p>(
    rows: impl Iterator<Item = (i64, i64, Option<&'p Payload<'p>>)>,
) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let (mut doc, mut dest) = (Int64Builder::new(), Int64Builder::new());
    let mut payload = PayloadBuilder::new();
    for (d, p, x) in rows {
        doc.append_value(d);
        dest.append_value(p);
        payload.append(x);
    }
    let [text, set] = payload.finish();
    let columns: Vec<ArrayRef> = vec![Arc::new(doc.finish()), Arc::new(dest.finish()), text, set];
    RecordBatch::try_new(request_schema(), columns)
}

/// The shingle sets of `texts`, as the library computes them (its normalization and shingles:
/// sorted, distinct hashes), in parallel.
fn shingle_sets(c: &DedupConfig, texts: &[&str]) -> Vec<Vec<u64>> {
    let shingler = shingler_of(c);
    texts
        .par_iter()
        .map_init(
            || (NormalizedText::default(), ShingleScratch::default()),
            |(norm, scratch), t| {
                shingler.normalize_into(t, norm);
                let mut set = Vec::new();
                shingler.shingles_into(norm, scratch, &mut set);
                set
            },
        )
        .collect()
}

/// What the verification under `c` needs of each of `texts`: their shingle sets, or with
/// estimate verification the texts themselves.
pub fn payloads_of<'a>(c: &DedupConfig, texts: &[&'a str]) -> Vec<Payload<'a>> {
    if c.verify == Verify::Estimate {
        return texts.iter().map(|&t| Payload::Text(Cow::Borrowed(t))).collect();
    }
    shingle_sets(c, texts).into_iter().map(|s| Payload::Set(Cow::Owned(s))).collect()
}

/// candidate_pairs(batch, partitions)
/// --
///
/// Verification step 1: the pairs of a batch (int64 columns `a` < `b`; with a `kind` column, the
/// candidate rows of [`super::bucket_edges`] only), distinct, each with its verification
/// partition `dest`; returns `(pairs, requests)`: the pairs as join rows, and one request per
/// distinct (document, `dest`) that needs the document's payload.
#[pyfunction]
pub fn candidate_pairs(
    py: Python<'_>,
    batch: Batch,
    partitions: u64,
) -> PyResult<(PyArrowType<RecordBatch>, PyArrowType<RecordBatch>)> {
    let batch = batch.0;
    let (pairs, requests) = py.detach(|| pairs_and_requests(&batch, partitions))?;
    Ok((PyArrowType(pairs), PyArrowType(requests)))
}

/// [`candidate_pairs`] without Python.
pub fn pairs_and_requests(
    batch: &RecordBatch,
    partitions: u64,
) -> PyResult<(RecordBatch, RecordBatch)> {
    let (a, b) = (int64s(batch, "a")?, int64s(batch, "b")?);
    let kind = match batch.column_by_name("kind") {
        Some(k) => {
            Some(k.as_primitive_opt::<UInt8Type>().ok_or_else(|| value_err("kind is not uint8"))?)
        }
        None => None,
    };
    let mut pairs: Vec<(i64, i64, i64)> = (0..batch.num_rows())
        .filter(|&i| kind.is_none_or(|k| k.value(i) == CANDIDATE))
        .map(|i| (pair_dest(a.value(i), partitions), a.value(i), b.value(i)))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    let mut requests: Vec<(i64, i64)> =
        pairs.iter().flat_map(|&(d, x, y)| [(x, d), (y, d)]).collect();
    requests.sort_unstable();
    requests.dedup();
    let mut rows = JoinRows::new();
    for &(d, x, y) in &pairs {
        rows.push(d, x, y, None);
    }
    let requests = request_batch(requests.iter().map(|&(x, d)| (x, d, None))).map_err(arrow_err)?;
    Ok((rows.finish().map_err(arrow_err)?, requests))
}

/// texts_for_requests(batch, text="text", index="__lookalike_index")
/// --
///
/// A batch of documents (text and int64 index) as text rows of the request schema (`dest` -1):
/// the payloads of [`route_texts`] as texts, whatever the verification.
#[pyfunction]
#[pyo3(signature = (batch, text="text", index="__lookalike_index"))]
pub fn texts_for_requests(
    batch: Batch,
    text: &str,
    index: &str,
) -> PyResult<PyArrowType<RecordBatch>> {
    text_rows(&batch.0, text, index).map(PyArrowType)
}

/// [`texts_for_requests`] without Python.
pub fn text_rows(batch: &RecordBatch, text: &str, index: &str) -> PyResult<RecordBatch> {
    let docs = index_column(batch, index)?;
    let texts = string_column(batch, text, "text")?;
    let payloads: Vec<Option<Payload<'_>>> =
        texts.iter().map(|t| t.as_deref().map(|t| Payload::Text(Cow::Borrowed(t)))).collect();
    request_batch(docs.iter().zip(&payloads).map(|(&d, p)| (d, -1, p.as_ref()))).map_err(arrow_err)
}

/// payloads_for_requests(batch, text="text", index="__lookalike_index", threshold=0.8, keep=None, cluster=None, **options)
/// --
///
/// A batch of documents (text and int64 index, no null text) as payload rows of the request
/// schema (`dest` -1), for [`route_texts`]: each document's shingle set as the library computes
/// it, or with `verify="estimate"` its text.
#[pyfunction]
#[pyo3(signature = (batch, text="text", index="__lookalike_index", threshold=0.8, keep=None, cluster=None, **options))]
#[allow(clippy::too_many_arguments)]
pub fn payloads_for_requests(
    py: Python<'_>,
    batch: Batch,
    text: &str,
    index: &str,
    threshold: f64,
    keep: Option<&str>,
    cluster: Option<&str>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyArrowType<RecordBatch>> {
    let c = ray_config(threshold, keep, cluster, options)?;
    let batch = batch.0;
    py.detach(|| payload_rows(&c, &batch, text, index)).map(PyArrowType)
}

/// [`payloads_for_requests`] without Python.
pub fn payload_rows(
    c: &DedupConfig,
    batch: &RecordBatch,
    text: &str,
    index: &str,
) -> PyResult<RecordBatch> {
    let column = TextColumn::of(batch, text)?;
    let (texts, docs) = texts_and_positions(&column, batch, text, index)?;
    let payloads = payloads_of(c, &texts);
    request_batch(docs.iter().zip(&payloads).map(|(&d, p)| (d, -1, Some(p)))).map_err(arrow_err)
}

/// route_payloads(batch, requests, partitions, text="text", index="__lookalike_index", threshold=0.8, keep=None, cluster=None, **options)
/// --
///
/// Verification step 2 where the texts are, without a shuffle by document: a batch of documents
/// (text and int64 index, no null text) and the requests for some of them (`doc`, `dest`:
/// [`candidate_pairs`]' requests, any order, repeats allowed). Computes each requested
/// document's payload once (its shingle set as the library computes it; with
/// `verify="estimate"` its text) and returns `partitions` batches of join rows: batch `p` holds
/// the payloads that partition `p` asked for, once each. A request for a document the batch
/// does not hold, or for a partition out of range, is a `ValueError`.
#[pyfunction]
#[pyo3(signature = (batch, requests, partitions, text="text", index="__lookalike_index", threshold=0.8, keep=None, cluster=None, **options))]
#[allow(clippy::too_many_arguments)]
pub fn route_payloads(
    py: Python<'_>,
    batch: Batch,
    requests: Batch,
    partitions: u64,
    text: &str,
    index: &str,
    threshold: f64,
    keep: Option<&str>,
    cluster: Option<&str>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<PyArrowType<RecordBatch>>> {
    let c = ray_config(threshold, keep, cluster, options)?;
    let (batch, requests) = (batch.0, requests.0);
    let parts = py.detach(|| routed_payloads(&c, &batch, &requests, partitions, text, index))?;
    Ok(parts.into_iter().map(PyArrowType).collect())
}

/// [`route_payloads`] without Python.
pub fn routed_payloads(
    c: &DedupConfig,
    batch: &RecordBatch,
    requests: &RecordBatch,
    partitions: u64,
    text: &str,
    index: &str,
) -> PyResult<Vec<RecordBatch>> {
    let column = TextColumn::of(batch, text)?;
    let (texts, docs) = texts_and_positions(&column, batch, text, index)?;
    let (doc, dest) = (int64s(requests, "doc")?, int64s(requests, "dest")?);
    let mut asked: Vec<(i64, i64)> =
        (0..requests.num_rows()).map(|i| (doc.value(i), dest.value(i))).collect();
    asked.sort_unstable();
    asked.dedup();
    if let Some(&(d, p)) = asked.iter().find(|r| !(0..partitions as i64).contains(&r.1)) {
        return Err(value_err(format!(
            "document {d} is asked for by partition {p}, not one of {partitions}"
        )));
    }
    let mut rows: Vec<(i64, usize)> = docs.iter().enumerate().map(|(i, &d)| (d, i)).collect();
    rows.sort_unstable();
    let mut wanted: Vec<i64> = asked.iter().map(|r| r.0).collect();
    wanted.dedup();
    let strs: Vec<&str> = wanted
        .iter()
        .map(|&d| {
            let i = rows.binary_search_by_key(&d, |r| r.0).map_err(|_| {
                value_err(format!("document {d} is a candidate but its text is missing"))
            })?;
            Ok(texts[rows[i].1])
        })
        .collect::<PyResult<_>>()?;
    let payloads = payloads_of(c, &strs);
    let mut parts: Vec<JoinRows> = (0..partitions).map(|_| JoinRows::new()).collect();
    let mut k = 0;
    for &(d, p) in &asked {
        while wanted[k] != d {
            k += 1;
        }
        parts[p as usize].push(p, d, -1, Some(&payloads[k]));
    }
    parts.into_iter().map(|p| p.finish().map_err(arrow_err)).collect()
}

/// route_texts(batch)
/// --
///
/// Verification step 2 after a shuffle, over a block in which every document's payload row
/// (`texts_for_requests`, `payloads_for_requests`) and requests are together (after a
/// repartition by `doc`): one join row per distinct (document, `dest`) requested, carrying the
/// payload. A request without its document's payload is a `ValueError`.
#[pyfunction]
pub fn route_texts(py: Python<'_>, batch: Batch) -> PyResult<PyArrowType<RecordBatch>> {
    let batch = batch.0;
    py.detach(|| routed(&batch)).map(PyArrowType)
}

/// [`route_texts`] without Python.
pub fn routed(batch: &RecordBatch) -> PyResult<RecordBatch> {
    let (doc, dest) = (int64s(batch, "doc")?, int64s(batch, "dest")?);
    let payloads = Payloads::of(batch)?;
    let mut rows: Vec<(i64, i64, usize)> =
        (0..batch.num_rows()).map(|i| (doc.value(i), dest.value(i), i)).collect();
    rows.sort_unstable();
    let mut out = JoinRows::new();
    for group in rows.chunk_by(|x, y| x.0 == y.0) {
        // The payload row (dest -1) sorts first.
        let d = group[0].0;
        let source = group.iter().filter(|r| r.1 < 0).find_map(|r| payloads.get(r.2));
        let mut last = -1;
        for r in group.iter().filter(|r| r.1 >= 0) {
            if r.1 == last {
                continue;
            }
            last = r.1;
            let p = source.as_ref().ok_or_else(|| {
                value_err(format!("document {d} is a candidate but its text is missing"))
            })?;
            out.push(r.1, d, -1, Some(p));
        }
    }
    out.finish().map_err(arrow_err)
}

/// verify_pairs(batches, all=False, threshold=0.8, keep=None, cluster=None, **options)
/// --
///
/// Verification step 3, over the batches of a block in which each pair's rows and the payloads
/// of its documents are together (after a repartition by `dest`, or [`route_payloads`]' pieces
/// of one partition), read where they are (not copied into one batch): the shingle sets (as
/// they came, or recomputed from texts as the library computes them), and the exact Jaccard of
/// every distinct pair (with containment the larger containment, its direction as the edge's
/// `reason` code 0 or 1; with `all=True` the containment of `b`, the member, in `a`, the
/// representative); returns the near edges at or above the threshold (every pair with
/// `all=True`, for the similarities a cluster mode asks for). With `verify="estimate"` the
/// payloads must be texts. A pair without one of its payloads is a `ValueError`.
#[pyfunction]
#[pyo3(signature = (batches, all=false, threshold=0.8, keep=None, cluster=None, statistics=None, **options))]
#[allow(clippy::too_many_arguments)]
pub fn verify_pairs(
    py: Python<'_>,
    batches: Vec<Batch>,
    all: bool,
    threshold: f64,
    keep: Option<&str>,
    cluster: Option<&str>,
    statistics: Option<&[u8]>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyArrowType<RecordBatch>> {
    let c = ray_config(threshold, keep, cluster, options)?;
    let statistics =
        statistics.map(PartialStatistics::from_bytes).transpose().map_err(value_err)?;
    let batches: Vec<RecordBatch> = batches.into_iter().map(|b| b.0).collect();
    py.detach(|| verified_with(&c, statistics.as_ref(), &batches, all)).map(PyArrowType)
}

/// [`verify_pairs`] without Python, under a checked configuration, without statistics.
pub fn verified(c: &DedupConfig, batches: &[RecordBatch], all: bool) -> PyResult<RecordBatch> {
    verified_with(c, None, batches, all)
}

/// [`verify_pairs`] without Python, under a checked configuration (with the statistics stage's
/// counts for the estimates of a method that has one).
pub fn verified_with(
    c: &DedupConfig,
    statistics: Option<&PartialStatistics>,
    batches: &[RecordBatch],
    all: bool,
) -> PyResult<RecordBatch> {
    let payloads: Vec<Payloads<'_>> = batches.iter().map(Payloads::of).collect::<PyResult<_>>()?;
    // Each document with the batch and row of its (first) payload.
    let mut docs: Vec<(i64, (usize, usize))> = Vec::new();
    let mut pairs: Vec<(i64, i64)> = Vec::new();
    for (k, batch) in batches.iter().enumerate() {
        let (a, b) = (int64s(batch, "a")?, int64s(batch, "b")?);
        for i in 0..batch.num_rows() {
            match payloads[k].get(i) {
                Some(_) => docs.push((a.value(i), (k, i))),
                None => pairs.push((a.value(i), b.value(i))),
            }
        }
    }
    docs.sort_unstable();
    docs.dedup_by_key(|t| t.0);
    pairs.sort_unstable();
    pairs.dedup();
    let got: Vec<Payload<'_>> =
        docs.iter().filter_map(|&(_, (k, row))| payloads[k].get(row)).collect();
    let docs: Vec<i64> = docs.into_iter().map(|t| t.0).collect();
    if c.verify == Verify::Estimate {
        let texts: Vec<&str> = got
            .iter()
            .map(|p| match p {
                Payload::Text(t) => Ok(t.as_ref()),
                Payload::Set(_) => Err(value_err(
                    "estimate verification needs the documents' texts, not their shingle sets",
                )),
            })
            .collect::<PyResult<_>>()?;
        return estimated(c, statistics, &docs, &texts, &pairs, all);
    }
    // Sets as they came; the texts' sets computed here (in parallel).
    let texts: Vec<&str> = got
        .iter()
        .filter_map(|p| match p {
            Payload::Text(t) => Some(t.as_ref()),
            Payload::Set(_) => None,
        })
        .collect();
    let mut computed = shingle_sets(c, &texts).into_iter();
    let sets: Vec<Cow<'_, [u64]>> = got
        .into_iter()
        .map(|p| match p {
            Payload::Set(s) => s,
            Payload::Text(_) => Cow::Owned(computed.next().unwrap_or_default()),
        })
        .collect();
    let set_of = |d: i64| -> PyResult<&[u64]> {
        docs.binary_search(&d)
            .map(|i| sets[i].as_ref())
            .map_err(|_| value_err(format!("pair with document {d}: its text did not arrive")))
    };
    let edges: Vec<Edge> = pairs
        .par_iter()
        .map(|&(x, y)| -> PyResult<Option<Edge>> {
            let (a, b) = (set_of(x)?, set_of(y)?);
            if all && c.measure == Measure::Containment {
                // Asked for by the clustering: (representative, member), the member's
                // containment in the representative.
                let s = containment(b, a);
                return Ok(Some(Edge { similarity: s, ..Edge::between(NEAR, x, y) }));
            }
            let (s, contained) = exact_similarity(c.measure, a, b);
            Ok((all || s >= c.threshold).then_some(Edge {
                similarity: s,
                reason: contained.map(contained_code),
                ..Edge::between(NEAR, x, y)
            }))
        })
        .filter_map(Result::transpose)
        .collect::<PyResult<_>>()?;
    edges_batch(&edges).map_err(arrow_err)
}

/// Estimate verification: the method's own estimates of the pairs, from the texts of their
/// documents (the library's [`estimate_pairs`]), kept when the method accepts them (every pair
/// with `all`, as the representative and member the clustering asked for). `docs`: the
/// documents, sorted, and `texts` their texts.
fn estimated(
    c: &DedupConfig,
    statistics: Option<&PartialStatistics>,
    docs: &[i64],
    texts: &[&str],
    pairs: &[(i64, i64)],
    all: bool,
) -> PyResult<RecordBatch> {
    let position = |d: i64| -> PyResult<u32> {
        docs.binary_search(&d)
            .map(|i| i as u32)
            .map_err(|_| value_err(format!("pair with document {d}: its text did not arrive")))
    };
    let at: Vec<(u32, u32)> =
        pairs.iter().map(|&(x, y)| Ok((position(x)?, position(y)?))).collect::<PyResult<_>>()?;
    let estimates =
        estimate_pairs(c, statistics, texts, &at).map_err(|e| value_err(e.to_string()))?;
    let edges: Vec<Edge> = pairs
        .iter()
        .zip(estimates)
        .filter(|(_, e)| all || e.accepted)
        .map(|(&(x, y), e)| Edge {
            similarity: e.estimate,
            reason: if all { None } else { e.contained.map(contained_code) },
            ..Edge::between(NEAR, x, y)
        })
        .collect();
    edges_batch(&edges).map_err(arrow_err)
}

#[cfg(test)]
mod tests {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float64Type, Int64Type};
    use lookalike::{Dedup, MethodKind};

    use super::super::testutil::{INDEX, input, verify_join};
    use super::*;
    use lookalike::verify::jaccard;

    fn pairs_batch(pairs: &[(i64, i64)]) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("a", DataType::Int64, false),
            Field::new("b", DataType::Int64, false),
        ]));
        let a = arrow_array::Int64Array::from_iter_values(pairs.iter().map(|p| p.0));
        let b = arrow_array::Int64Array::from_iter_values(pairs.iter().map(|p| p.1));
        RecordBatch::try_new(schema, vec![Arc::new(a), Arc::new(b)]).unwrap()
    }

    #[test]
    fn pairs_go_to_their_first_documents_partition_and_ask_for_each_text_once() {
        for a in 0..100 {
            assert!((0..7).contains(&pair_dest(a, 7)));
            assert_eq!(pair_dest(a, 0), 0);
        }
        let (pairs, requests) =
            pairs_and_requests(&pairs_batch(&[(1, 2), (1, 3), (1, 2)]), 5).unwrap();
        assert_eq!(pairs.num_rows(), 2);
        let doc = requests.column_by_name("doc").unwrap().as_primitive::<Int64Type>();
        assert_eq!(doc.values().to_vec(), [1, 2, 3]);
    }

    #[test]
    fn texts_reach_every_partition_that_asked_and_a_missing_text_is_an_error() {
        let texts = vec!["zero".to_owned(), "one".into()];
        let mut rows = text_rows(&input(&texts, 2)[0], "text", INDEX).unwrap();
        let asked = request_rows(&[(1, 4), (1, 2), (1, 4)]);
        rows = arrow_select::concat::concat_batches(&request_schema(), [&rows, &asked]).unwrap();
        let out = routed(&rows).unwrap();
        let dest = out.column_by_name("dest").unwrap().as_primitive::<Int64Type>();
        let text = out.column_by_name("text").unwrap().as_string::<i64>();
        assert_eq!(dest.values().to_vec(), [2, 4]);
        assert!((0..2).all(|i| text.value(i) == "one"));
        assert!(routed(&request_rows(&[(7, 0)])).is_err());
    }

    /// The requests (`doc`, `dest`) as a batch of the request schema.
    fn request_rows(r: &[(i64, i64)]) -> RecordBatch {
        request_batch(r.iter().map(|&(d, p)| (d, p, None))).unwrap()
    }

    /// The payload rows of a join batch: (`dest`, document, payload), in row order.
    fn payload_list(batch: &RecordBatch) -> Vec<(i64, i64, Payload<'static>)> {
        let payloads = Payloads::of(batch).unwrap();
        let dest = batch.column_by_name("dest").unwrap().as_primitive::<Int64Type>();
        let a = batch.column_by_name("a").unwrap().as_primitive::<Int64Type>();
        (0..batch.num_rows())
            .map(|i| {
                let p = match payloads.get(i).expect("a payload row") {
                    Payload::Set(s) => Payload::Set(Cow::Owned(s.into_owned())),
                    Payload::Text(t) => Payload::Text(Cow::Owned(t.into_owned())),
                };
                (dest.value(i), a.value(i), p)
            })
            .collect()
    }

    #[test]
    fn requested_sets_are_the_librarys_and_reach_each_partition_that_asked_once() {
        let c = Dedup::builder().method(MethodKind::MinHash).build().unwrap().config().clone();
        let texts: Vec<String> =
            (0..6).map(|i| format!("alpha beta gamma delta {i} epsilon zeta eta theta")).collect();
        // Documents 2..6 in one batch (the index starts at 2), asked for in any order, repeated.
        let batch = &input(&texts, 6)[0];
        let shifted = {
            let index = arrow_array::Int64Array::from_iter_values(2..8);
            let mut columns = batch.columns().to_vec();
            columns[1] = Arc::new(index);
            RecordBatch::try_new(batch.schema(), columns).unwrap()
        };
        let asked = request_rows(&[(5, 1), (3, 0), (5, 1), (5, 2), (7, 0), (3, 0)]);
        let parts = routed_payloads(&c, &shifted, &asked, 3, "text", INDEX).unwrap();
        assert_eq!(parts.len(), 3);
        let shingler = super::super::shingler_of(&c);
        let set = |d: i64| Payload::Set(Cow::Owned(shingler.shingle_set(&texts[d as usize - 2])));
        assert_eq!(payload_list(&parts[0]), [(0, 3, set(3)), (0, 7, set(7))]);
        assert_eq!(payload_list(&parts[1]), [(1, 5, set(5))]);
        assert_eq!(payload_list(&parts[2]), [(2, 5, set(5))]);
        // Estimate verification gets the texts.
        let estimate = DedupConfig { verify: Verify::Estimate, ..c.clone() };
        let parts = routed_payloads(&estimate, &shifted, &asked, 3, "text", INDEX).unwrap();
        let text = |d: i64| Payload::Text(Cow::Owned(texts[d as usize - 2].clone()));
        assert_eq!(payload_list(&parts[1]), [(1, 5, text(5))]);
        // A document the batch does not hold, a partition out of range.
        assert!(routed_payloads(&c, &shifted, &request_rows(&[(1, 0)]), 3, "text", INDEX).is_err());
        assert!(routed_payloads(&c, &shifted, &request_rows(&[(3, 3)]), 3, "text", INDEX).is_err());
        // Shuffled, the same sets reach the same partitions.
        let rows = payload_rows(&c, &shifted, "text", INDEX).unwrap();
        let all = arrow_select::concat::concat_batches(&request_schema(), [&rows, &asked]).unwrap();
        let mut routed_rows = payload_list(&routed(&all).unwrap());
        routed_rows.sort_by_key(|r| (r.0, r.1));
        assert_eq!(routed_rows, [(0, 3, set(3)), (0, 7, set(7)), (1, 5, set(5)), (2, 5, set(5))]);
    }

    #[test]
    fn sets_and_texts_verify_alike_and_estimates_need_texts() {
        let c = Dedup::builder().method(MethodKind::MinHash).build().unwrap().config().clone();
        let base: Vec<String> = (0..30).map(|i| format!("w{i}")).collect();
        let texts = [base.join(" "), base[2..].join(" "), base[15..].join(" ")];
        let pairs = [(0, 1), (0, 2), (1, 2)];
        let shingler = super::super::shingler_of(&c);
        let join = |payload: &dyn Fn(usize) -> Payload<'static>| {
            let mut rows = JoinRows::new();
            for &(x, y) in &pairs {
                rows.push(0, x, y, None);
            }
            for d in 0..3 {
                rows.push(0, d as i64, -1, Some(&payload(d)));
            }
            rows.finish().unwrap()
        };
        let by_set = join(&|d| Payload::Set(Cow::Owned(shingler.shingle_set(&texts[d]))));
        let by_text = join(&|d| Payload::Text(Cow::Owned(texts[d].clone())));
        for all in [false, true] {
            for measure in [Measure::Jaccard, Measure::Containment] {
                let c = DedupConfig { measure, ..c.clone() };
                let sets = verified(&c, std::slice::from_ref(&by_set), all).unwrap();
                assert_eq!(
                    sets,
                    verified(&c, std::slice::from_ref(&by_text), all).unwrap(),
                    "{measure:?} all={all}"
                );
                assert!(sets.num_rows() > 0);
            }
        }
        let estimate = DedupConfig { verify: Verify::Estimate, ..c.clone() };
        assert!(verified(&estimate, std::slice::from_ref(&by_set), true).is_err());
        assert_eq!(
            verified(&estimate, std::slice::from_ref(&by_text), true).unwrap().num_rows(),
            3
        );
    }

    #[test]
    fn verified_pairs_have_the_librarys_exact_jaccard() {
        let c = Dedup::builder().method(MethodKind::MinHash).build().unwrap().config().clone();
        let base: Vec<String> = (0..30).map(|i| format!("w{i}")).collect();
        let texts = vec![base.join(" "), base[2..].join(" "), base[15..].join(" ")];
        let inputs = input(&texts, 3);
        let shingler = super::super::shingler_of(&c);
        let set = |t: &str| shingler.shingle_set(t);
        let expect = |a: usize, b: usize| jaccard(&set(&texts[a]), &set(&texts[b]));
        let pairs = pairs_batch(&[(0, 1), (0, 2), (1, 2)]);
        let all = verify_join(&c, std::slice::from_ref(&pairs), &inputs, 3, true);
        let mut got: Vec<(i64, i64, f64)> = Vec::new();
        for batch in &all {
            let a = batch.column_by_name("a").unwrap().as_primitive::<Int64Type>();
            let b = batch.column_by_name("b").unwrap().as_primitive::<Int64Type>();
            let s = batch.column_by_name("similarity").unwrap().as_primitive::<Float64Type>();
            got.extend((0..batch.num_rows()).map(|i| (a.value(i), b.value(i), s.value(i))));
        }
        got.sort_by_key(|g| (g.0, g.1));
        let expected: Vec<_> =
            [(0, 1), (0, 2), (1, 2)].map(|(a, b)| (a as i64, b as i64, expect(a, b))).to_vec();
        assert_eq!(got, expected);
        let kept: usize =
            verify_join(&c, &[pairs], &inputs, 3, false).iter().map(|b| b.num_rows()).sum();
        assert_eq!(kept, expected.iter().filter(|e| e.2 >= c.threshold).count());
        assert!((1..3).contains(&kept));
    }
}
