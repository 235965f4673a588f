//! Ray stage 4: exact verification as a join of the candidate pairs with the texts. Contract:
//! "give me candidate pairs, I route each to a partition and ask for its texts; give me the
//! texts, I send each once where it was asked for; give me a partition's pairs and texts, I give
//! you the pairs whose exact Jaccard (or containment) reaches the threshold".

use std::sync::Arc;

use arrow_array::builder::{Int64Builder, LargeStringBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::UInt8Type;
use arrow_array::{Array, ArrayRef, RecordBatch};
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
    CANDIDATE, Edge, NEAR, column, contained_code, edges_batch, index_column, int64s, ray_config,
    shingler_of,
};
use crate::dedup::string_column;
use crate::errors::{arrow_err, value_err};

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

/// The schema of the verification join's rows: a pair (`a`, `b`, no text) or a text (`a` its
/// document, `b` = -1) bound for verification partition `dest`.
fn join_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("dest", DataType::Int64, false),
        Field::new("a", DataType::Int64, false),
        Field::new("b", DataType::Int64, false),
        Field::new("text", DataType::LargeUtf8, true),
    ]))
}

/// The schema of the requests for texts, and of the texts themselves, before the repartition by
/// document: `doc`, `dest` (-1 on a text row) and `text` (null on a request).
fn request_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("doc", DataType::Int64, false),
        Field::new("dest", DataType::Int64, false),
        Field::new("text", DataType::LargeUtf8, true),
    ]))
}

fn join_batch(
    rows: &[(i64, i64, i64, Option<&str>)],
) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let (mut dest, mut a, mut b) = (Int64Builder::new(), Int64Builder::new(), Int64Builder::new());
    let mut text = LargeStringBuilder::new();
    for &(d, x, y, t) in rows {
        dest.append_value(d);
        a.append_value(x);
        b.append_value(y);
        text.append_option(t);
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(dest.finish()),
        Arc::new(a.finish()),
        Arc::new(b.finish()),
        Arc::new(text.finish()),
    ];
    RecordBatch::try_new(join_schema(), columns)
}

/// candidate_pairs(batch, partitions)
/// --
///
/// Verification step 1: the pairs of a batch (int64 columns `a` < `b`; with a `kind` column, the
/// candidate rows of [`super::bucket_edges`] only), distinct, each with its verification
/// partition `dest`; returns `(pairs, requests)`: the pairs as join rows, and one request per
/// distinct (document, `dest`) that needs the document's text.
#[pyfunction]
pub fn candidate_pairs(
    py: Python<'_>,
    batch: PyArrowType<RecordBatch>,
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
    let rows: Vec<_> = pairs.iter().map(|&(d, x, y)| (d, x, y, None)).collect();
    let (mut doc, mut dest) = (Int64Builder::new(), Int64Builder::new());
    let mut text = LargeStringBuilder::new();
    for &(x, d) in &requests {
        doc.append_value(x);
        dest.append_value(d);
        text.append_null();
    }
    let columns: Vec<ArrayRef> =
        vec![Arc::new(doc.finish()), Arc::new(dest.finish()), Arc::new(text.finish())];
    let requests = RecordBatch::try_new(request_schema(), columns).map_err(arrow_err)?;
    Ok((join_batch(&rows).map_err(arrow_err)?, requests))
}

/// texts_for_requests(batch, text="text", index="__lookalike_index")
/// --
///
/// A batch of documents (text and int64 index) as text rows of the request schema (`dest` -1).
#[pyfunction]
#[pyo3(signature = (batch, text="text", index="__lookalike_index"))]
pub fn texts_for_requests(
    batch: PyArrowType<RecordBatch>,
    text: &str,
    index: &str,
) -> PyResult<PyArrowType<RecordBatch>> {
    text_rows(&batch.0, text, index).map(PyArrowType)
}

/// [`texts_for_requests`] without Python.
pub fn text_rows(batch: &RecordBatch, text: &str, index: &str) -> PyResult<RecordBatch> {
    let docs = index_column(batch, index)?;
    let texts = string_column(batch, text, "text")?;
    let mut out = LargeStringBuilder::new();
    for t in &texts {
        out.append_option(t.as_deref());
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(arrow_array::Int64Array::from(docs)),
        Arc::new(arrow_array::Int64Array::from(vec![-1i64; texts.len()])),
        Arc::new(out.finish()),
    ];
    RecordBatch::try_new(request_schema(), columns).map_err(arrow_err)
}

/// route_texts(batch)
/// --
///
/// Verification step 2, over a block in which every document's text row and requests are
/// together (after a repartition by `doc`): one join row per distinct (document, `dest`)
/// requested, carrying the text. A request without its document's text is a `ValueError`.
#[pyfunction]
pub fn route_texts(
    py: Python<'_>,
    batch: PyArrowType<RecordBatch>,
) -> PyResult<PyArrowType<RecordBatch>> {
    let batch = batch.0;
    py.detach(|| routed(&batch)).map(PyArrowType)
}

/// [`route_texts`] without Python.
pub fn routed(batch: &RecordBatch) -> PyResult<RecordBatch> {
    let (doc, dest) = (int64s(batch, "doc")?, int64s(batch, "dest")?);
    let text = column(batch, "text")?
        .as_string_opt::<i64>()
        .ok_or_else(|| value_err("text is not a large string"))?;
    let mut rows: Vec<(i64, i64, usize)> =
        (0..batch.num_rows()).map(|i| (doc.value(i), dest.value(i), i)).collect();
    rows.sort_unstable();
    let mut out: Vec<(i64, i64, i64, Option<&str>)> = Vec::new();
    for group in rows.chunk_by(|x, y| x.0 == y.0) {
        // The text row (dest -1) sorts first.
        let d = group[0].0;
        let source = group.iter().find(|r| r.1 < 0 && !text.is_null(r.2)).map(|r| text.value(r.2));
        let mut last = -1;
        for r in group.iter().filter(|r| r.1 >= 0) {
            if r.1 == last {
                continue;
            }
            last = r.1;
            let t = source.ok_or_else(|| {
                value_err(format!("document {d} is a candidate but its text is missing"))
            })?;
            out.push((r.1, d, -1, Some(t)));
        }
    }
    join_batch(&out).map_err(arrow_err)
}

/// verify_pairs(batch, all=False, threshold=0.8, keep=None, cluster=None, **options)
/// --
///
/// Verification step 3, over a block in which each pair's rows and the texts of its documents are
/// together (after a repartition by `dest`): the shingle sets of the texts, recomputed as the
/// library computes them, and the exact Jaccard of every distinct pair (with containment the
/// larger containment, its direction as the edge's `reason` code 0 or 1; with `all=True` the
/// containment of `b`, the member, in `a`, the representative); returns the near edges
/// at or above the threshold (every pair with `all=True`, for the similarities a cluster mode
/// asks for). A pair without one of its texts is a `ValueError`.
#[pyfunction]
#[pyo3(signature = (batch, all=false, threshold=0.8, keep=None, cluster=None, statistics=None, **options))]
#[allow(clippy::too_many_arguments)]
pub fn verify_pairs(
    py: Python<'_>,
    batch: PyArrowType<RecordBatch>,
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
    let batch = batch.0;
    py.detach(|| verified_with(&c, statistics.as_ref(), &batch, all)).map(PyArrowType)
}

/// [`verify_pairs`] without Python, under a checked configuration, without statistics.
pub fn verified(c: &DedupConfig, batch: &RecordBatch, all: bool) -> PyResult<RecordBatch> {
    verified_with(c, None, batch, all)
}

/// [`verify_pairs`] without Python, under a checked configuration (with the statistics stage's
/// counts for the estimates of a method that has one).
pub fn verified_with(
    c: &DedupConfig,
    statistics: Option<&PartialStatistics>,
    batch: &RecordBatch,
    all: bool,
) -> PyResult<RecordBatch> {
    let (a, b) = (int64s(batch, "a")?, int64s(batch, "b")?);
    let text = column(batch, "text")?
        .as_string_opt::<i64>()
        .ok_or_else(|| value_err("text is not a large string"))?;
    let mut texts: Vec<(i64, usize)> = Vec::new();
    let mut pairs: Vec<(i64, i64)> = Vec::new();
    for i in 0..batch.num_rows() {
        if text.is_null(i) {
            pairs.push((a.value(i), b.value(i)));
        } else {
            texts.push((a.value(i), i));
        }
    }
    texts.sort_unstable();
    texts.dedup_by_key(|t| t.0);
    pairs.sort_unstable();
    pairs.dedup();
    if c.verify == Verify::Estimate {
        return estimated(c, statistics, &texts, text, &pairs, all);
    }
    let shingler = shingler_of(c);
    let sets: Vec<Vec<u64>> = texts
        .par_iter()
        .map_init(
            || (NormalizedText::default(), ShingleScratch::default()),
            |(norm, scratch), &(_, row)| {
                shingler.normalize_into(text.value(row), norm);
                let mut set = Vec::new();
                shingler.shingles_into(norm, scratch, &mut set);
                set
            },
        )
        .collect();
    let set_of = |d: i64| -> PyResult<&[u64]> {
        texts
            .binary_search_by_key(&d, |t| t.0)
            .map(|i| sets[i].as_slice())
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
/// with `all`, as the representative and member the clustering asked for).
fn estimated(
    c: &DedupConfig,
    statistics: Option<&PartialStatistics>,
    texts: &[(i64, usize)],
    text: &arrow_array::LargeStringArray,
    pairs: &[(i64, i64)],
    all: bool,
) -> PyResult<RecordBatch> {
    let position = |d: i64| -> PyResult<u32> {
        texts
            .binary_search_by_key(&d, |t| t.0)
            .map(|i| i as u32)
            .map_err(|_| value_err(format!("pair with document {d}: its text did not arrive")))
    };
    let at: Vec<(u32, u32)> =
        pairs.iter().map(|&(x, y)| Ok((position(x)?, position(y)?))).collect::<PyResult<_>>()?;
    let strs: Vec<&str> = texts.iter().map(|&(_, row)| text.value(row)).collect();
    let estimates =
        estimate_pairs(c, statistics, &strs, &at).map_err(|e| value_err(e.to_string()))?;
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
        let requests = |r: &[(i64, i64)]| {
            let doc = arrow_array::Int64Array::from_iter_values(r.iter().map(|x| x.0));
            let dest = arrow_array::Int64Array::from_iter_values(r.iter().map(|x| x.1));
            let text = arrow_array::LargeStringArray::from(vec![None::<&str>; r.len()]);
            let columns: Vec<ArrayRef> = vec![Arc::new(doc), Arc::new(dest), Arc::new(text)];
            RecordBatch::try_new(request_schema(), columns).unwrap()
        };
        let asked = requests(&[(1, 4), (1, 2), (1, 4)]);
        rows = arrow_select::concat::concat_batches(&request_schema(), [&rows, &asked]).unwrap();
        let out = routed(&rows).unwrap();
        let dest = out.column_by_name("dest").unwrap().as_primitive::<Int64Type>();
        let text = out.column_by_name("text").unwrap().as_string::<i64>();
        assert_eq!(dest.values().to_vec(), [2, 4]);
        assert!((0..2).all(|i| text.value(i) == "one"));
        assert!(routed(&requests(&[(7, 0)])).is_err());
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
