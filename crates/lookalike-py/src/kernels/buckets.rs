//! Ray stage 3: buckets as edges. Contract: "give me a block in which every key's rows are
//! together, I give you each document's exact-group head, the candidate pairs of the heads
//! sharing a key, and the skipped documents".

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type, UInt8Type, UInt64Type};
use arrow_array::{Array, RecordBatch};
use arrow_pyarrow::PyArrowType;
use lookalike::candidates::lsh::group_pairs;
use lookalike::{DedupConfig, MethodConfig};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;

use super::sketch::{EXACT, SKIPPED};
use super::{CANDIDATE, Edge, MEMBER, SKIP, column, edges_batch, keyer_of, ray_config};
use crate::errors::{arrow_err, value_err};

/// One row of [`super::sketch_keys`]' output, borrowed.
struct Row {
    key: u64,
    band: i32,
    doc: i64,
    fp: u128,
    raw: u128,
    len: i64,
    reason: Option<u8>,
    /// The SimHash fingerprint (SimHash, combined; 0 otherwise).
    sim: u64,
}

/// bucket_edges(batch, threshold=0.8, keep=None, cluster=None, **options)
/// --
///
/// Ray kernel 2: a block of key rows in which every key's rows are together (after the hash
/// repartition on `key`) as edges: exact-group memberships, candidate pairs of heads, skipped
/// documents (see the module documentation). GIL released.
#[pyfunction]
#[pyo3(signature = (batch, threshold=0.8, keep=None, cluster=None, **options))]
pub fn bucket_edges(
    py: Python<'_>,
    batch: PyArrowType<RecordBatch>,
    threshold: f64,
    keep: Option<&str>,
    cluster: Option<&str>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyArrowType<RecordBatch>> {
    let c = ray_config(threshold, keep, cluster, options)?;
    let batch = batch.0;
    py.detach(|| bucket_batch(&c, &batch)).map(PyArrowType)
}

/// [`bucket_edges`] without Python: the edges of a block of key rows under a checked
/// configuration.
pub fn bucket_batch(c: &DedupConfig, batch: &RecordBatch) -> PyResult<RecordBatch> {
    let rows = rows_of(batch)?;
    // The library lists every pair of a super-shingle bucket and of shared keys; LSH buckets
    // (MinHash, combined) over the bound list anchors. SimHash and combined keep the pairs
    // within their Hamming distance.
    let (bound, keyer) = match c.method {
        MethodConfig::MinHash(_) => (c.max_pairs_per_group, None),
        MethodConfig::SuperShingles(_) | MethodConfig::Exact => (u64::MAX, None),
        _ => {
            let keyer = keyer_of(c, 2, None)?;
            let bound = if keyer.lists_anchors() { c.max_pairs_per_group } else { u64::MAX };
            (bound, Some(keyer))
        }
    };
    let close = |a: u64, b: u64| keyer.as_ref().is_none_or(|k| k.close(a, b));
    edges_of(rows, bound, &close).map_err(arrow_err)
}

/// The rows of a block of the sketch schema.
fn rows_of(batch: &RecordBatch) -> PyResult<Vec<Row>> {
    let key = column(batch, "key")?
        .as_primitive_opt::<UInt64Type>()
        .ok_or_else(|| value_err("key is not uint64"))?;
    let band = column(batch, "band")?
        .as_primitive_opt::<Int32Type>()
        .ok_or_else(|| value_err("band is not int32"))?;
    let doc = column(batch, "doc")?
        .as_primitive_opt::<Int64Type>()
        .ok_or_else(|| value_err("doc is not int64"))?;
    let u64s = |name: &str| -> PyResult<&arrow_array::UInt64Array> {
        column(batch, name)?
            .as_primitive_opt::<UInt64Type>()
            .ok_or_else(|| value_err(format!("{name} is not uint64")))
    };
    let (fp_hi, fp_lo, raw_hi, raw_lo) =
        (u64s("fp_hi")?, u64s("fp_lo")?, u64s("raw_hi")?, u64s("raw_lo")?);
    let len = column(batch, "len")?
        .as_primitive_opt::<Int64Type>()
        .ok_or_else(|| value_err("len is not int64"))?;
    let reason = column(batch, "reason")?
        .as_primitive_opt::<UInt8Type>()
        .ok_or_else(|| value_err("reason is not uint8"))?;
    let sim = u64s("sim")?;
    Ok((0..batch.num_rows())
        .map(|i| Row {
            key: key.value(i),
            band: band.value(i),
            doc: doc.value(i),
            fp: (u128::from(fp_hi.value(i)) << 64) | u128::from(fp_lo.value(i)),
            raw: (u128::from(raw_hi.value(i)) << 64) | u128::from(raw_lo.value(i)),
            len: len.value(i),
            reason: (!reason.is_null(i)).then(|| reason.value(i)),
            sim: sim.value(i),
        })
        .collect())
}

fn edges_of(
    mut rows: Vec<Row>,
    bound: u64,
    close: &(dyn Fn(u64, u64) -> bool + Sync),
) -> Result<RecordBatch, arrow_schema::ArrowError> {
    rows.par_sort_unstable_by_key(|r| (r.band, r.key, r.fp, r.doc));
    let buckets: Vec<&[Row]> = rows.chunk_by(|x, y| x.band == y.band && x.key == y.key).collect();
    let mut edges: Vec<Edge> =
        buckets.par_iter().flat_map_iter(|bucket| bucket_edges_of(bucket, bound, close)).collect();
    edges.par_sort_unstable_by_key(|e| (e.kind, e.a, e.b));
    edges.dedup_by_key(|e| (e.kind, e.a, e.b));
    edges_batch(&edges)
}

/// The edges of one bucket (rows sorted by text fingerprint, then document).
fn bucket_edges_of(
    bucket: &[Row],
    bound: u64,
    close: &(dyn Fn(u64, u64) -> bool + Sync),
) -> Vec<Edge> {
    match bucket[0].band {
        SKIPPED => bucket
            .iter()
            .map(|r| Edge { reason: r.reason, ..Edge::between(SKIP, r.doc, -1) })
            .collect(),
        EXACT => exact_edges(bucket),
        _ => candidate_edges(bucket, bound, close),
    }
}

/// An exact bucket: every document with its exact group's head (the first document with its
/// text), whether it has the head's bytes, and its length.
fn exact_edges(bucket: &[Row]) -> Vec<Edge> {
    let mut out = Vec::with_capacity(bucket.len());
    for group in bucket.chunk_by(|x, y| x.fp == y.fp) {
        let head = &group[0];
        out.extend(group.iter().map(|r| Edge {
            similarity: 1.0,
            bytes: r.raw == head.raw,
            len: r.len,
            ..Edge::between(MEMBER, head.doc, r.doc)
        }));
    }
    out
}

/// A key's bucket: the candidate pairs between the heads of its distinct texts, listed as the
/// library lists a group of `bound` pairs at most, kept when `close` holds for their SimHash
/// fingerprints.
fn candidate_edges(
    bucket: &[Row],
    bound: u64,
    close: &(dyn Fn(u64, u64) -> bool + Sync),
) -> Vec<Edge> {
    // One row per distinct text: its first document is its exact group's head (every copy has
    // the same keys), in input order.
    let mut heads: Vec<&Row> = bucket.chunk_by(|x, y| x.fp == y.fp).map(|g| &g[0]).collect();
    if heads.len() < 2 {
        return Vec::new();
    }
    heads.sort_unstable_by_key(|r| r.doc);
    let positions: Vec<u32> = (0..heads.len() as u32).collect();
    let mut out = Vec::new();
    let Ok(_) = group_pairs(&positions, bound, |i, j| {
        let (x, y) = (heads[i as usize], heads[j as usize]);
        if close(x.sim, y.sim) {
            out.push(Edge::between(CANDIDATE, x.doc, y.doc));
        }
        Ok::<(), std::convert::Infallible>(())
    });
    out
}

#[cfg(test)]
mod tests {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int64Type, UInt8Type};
    use lookalike::candidates::lsh::ANCHORS;
    use lookalike::{Dedup, MethodKind};

    use super::super::sketch::sketch_batch;
    use super::super::testutil::{INDEX, input};
    use super::*;

    /// (kind, a, b) of every edge.
    fn edges(batch: &RecordBatch) -> Vec<(u8, i64, i64)> {
        let kind = batch.column_by_name("kind").unwrap().as_primitive::<UInt8Type>();
        let a = batch.column_by_name("a").unwrap().as_primitive::<Int64Type>();
        let b = batch.column_by_name("b").unwrap().as_primitive::<Int64Type>();
        (0..batch.num_rows()).map(|i| (kind.value(i), a.value(i), b.value(i))).collect()
    }

    #[test]
    fn exact_buckets_give_heads_and_key_buckets_give_candidate_pairs_of_heads() {
        let c = Dedup::builder().method(MethodKind::MinHash).build().unwrap().config().clone();
        let t = "a b c d e f g h i j k l m n o p q r s t u v w x y z".to_owned();
        let texts = vec![t.clone(), t.replace('q', "Q z"), t.to_uppercase(), "".into(), t.clone()];
        let rows = sketch_batch(&c, 5, None, &input(&texts, 5)[0], "text", INDEX).unwrap();
        let got = edges(&bucket_batch(&c, &rows).unwrap());
        let members: Vec<_> = got.iter().filter(|e| e.0 == MEMBER).map(|e| (e.1, e.2)).collect();
        assert_eq!(members, [(0, 0), (0, 2), (0, 4), (1, 1)]);
        assert!(got.contains(&(SKIP, 3, -1)));
        // Candidates between heads only, each once.
        let candidates: Vec<_> = got.iter().filter(|e| e.0 == CANDIDATE).collect();
        assert!(candidates.iter().all(|e| (e.1, e.2) == (0, 1)));
    }

    #[test]
    fn a_bucket_over_the_bound_lists_anchors_and_predecessors() {
        let row = |doc: i64| Row {
            key: 9,
            band: 0,
            doc,
            fp: doc as u128,
            raw: 0,
            len: 1,
            reason: None,
            sim: doc as u64,
        };
        let n = 30usize;
        let bucket: Vec<Row> = (0..n as i64).map(row).collect();
        let all = bucket_edges_of(&bucket, u64::MAX, &|_, _| true);
        assert_eq!(all.len(), n * (n - 1) / 2);
        let capped = bucket_edges_of(&bucket, 10, &|_, _| true);
        let expected: usize = (1..n).map(|i| i.min(ANCHORS) + usize::from(i > ANCHORS)).sum();
        assert_eq!(capped.len(), expected);
        assert!(capped.iter().any(|e| (e.a, e.b) == (20, 21)));
        // The filter on SimHash fingerprints: only even pairs.
        let even = bucket_edges_of(&bucket, u64::MAX, &|a, b| (a + b) % 2 == 0);
        assert!(even.iter().all(|e| (e.a + e.b) % 2 == 0) && !even.is_empty());
    }
}
