//! Ray stage 3: buckets as edges. Contract: "give me a block in which every key's rows are
//! together, I give you each document's exact-group head, the candidate pairs of the heads
//! sharing a key, and the skipped documents".

use arrow_array::RecordBatch;
use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type, UInt8Type, UInt64Type};
use arrow_pyarrow::PyArrowType;
use lookalike::candidates::lsh::group_pairs;
use lookalike::method::{PartCounts, SampleRule, SpotSigs};
use lookalike::{DedupConfig, MethodConfig};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;

use super::sketch::{BYTES, EXACT, SHORT_BAND, SKIPPED};
use super::{
    CANDIDATE, Edge, FREQUENT, FREQUENT_SHORT, LIST, LIST_SHORT, MEMBER, SAMPLE, SHARED,
    SHARED_SHORT, SKIP, column, edges_batch, int64s, keyer_of, ray_config,
};
use crate::errors::{arrow_err, value_err};
use crate::input::Batch;

/// One row of [`super::sketch_keys`]' output (see `sketch_schema` for what `fp` and `value`
/// hold in each kind of row).
#[derive(Clone)]
struct Row {
    key: u64,
    band: i32,
    doc: i64,
    fp: u128,
    value: u64,
}

impl Row {
    /// A skipped row's reason code.
    fn reason(&self) -> u8 {
        self.value as u8
    }

    /// A SpotSigs key row's (multiset size of the document's spots, the spot's count in it).
    fn spot(&self) -> (u64, i64) {
        (self.value >> 32, (self.value & 0xffff_ffff) as i64)
    }
}

/// The bytes rows of a block ([`BYTES`]: each document's raw fingerprint and text length), by
/// document, for its exact buckets.
struct Bytes(Vec<(i64, u128, i64)>);

impl Bytes {
    fn of(rows: &[Row]) -> Bytes {
        let mut bytes: Vec<(i64, u128, i64)> = rows
            .iter()
            .filter(|r| r.band == BYTES)
            .map(|r| (r.doc, r.fp, r.value as i64))
            .collect();
        bytes.par_sort_unstable_by_key(|b| b.0);
        Bytes(bytes)
    }

    /// A document's (raw fingerprint, text length).
    fn get(&self, doc: i64) -> Result<(u128, i64), arrow_schema::ArrowError> {
        let i = self.0.binary_search_by_key(&doc, |b| b.0).map_err(|_| {
            arrow_schema::ArrowError::InvalidArgumentError(format!(
                "the exact row of document {doc} came without its bytes row"
            ))
        })?;
        Ok((self.0[i].1, self.0[i].2))
    }
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
    batch: Batch,
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
    if let Some(rule) = SampleRule::new(c).map_err(|e| value_err(e.to_string()))? {
        return sampled_edges(rows, &Counting::Samples(&rule)).map_err(arrow_err);
    }
    if let Some(spots) = SpotSigs::of(c).map_err(|e| value_err(e.to_string()))? {
        return sampled_edges(rows, &Counting::Spots(&spots)).map_err(arrow_err);
    }
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
    let (fp_hi, fp_lo, value) = (u64s("fp_hi")?, u64s("fp_lo")?, u64s("value")?);
    Ok((0..batch.num_rows())
        .map(|i| Row {
            key: key.value(i),
            band: band.value(i),
            doc: doc.value(i),
            fp: (u128::from(fp_hi.value(i)) << 64) | u128::from(fp_lo.value(i)),
            value: value.value(i),
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
    // Exact-group memberships and skipped documents, as listed.
    let bytes = Bytes::of(&rows);
    let mut edges: Vec<Edge> = special_edges(&buckets, &bytes)?;
    // The heads of the key buckets. The same heads come back in many bands (pages that share a
    // template share most bands: at 10^6 documents, groups of thousands in each of 18 bands), so
    // each distinct group is listed once, as the library's banding expands each distinct group
    // once, and the pairs are deduplicated in 16 bytes each before they become edges.
    let mut groups: Vec<Vec<&Row>> = buckets
        .par_iter()
        .filter(|bucket| bucket[0].band >= 0)
        .map(|bucket| heads_of(bucket))
        .filter(|heads| heads.len() >= 2)
        .collect();
    groups.par_sort_unstable_by(|x, y| {
        x.len().cmp(&y.len()).then_with(|| x.iter().map(|r| r.doc).cmp(y.iter().map(|r| r.doc)))
    });
    groups
        .dedup_by(|x, y| x.len() == y.len() && x.iter().zip(y.iter()).all(|(a, b)| a.doc == b.doc));
    let mut pairs: Vec<(i64, i64)> =
        groups.par_iter().flat_map_iter(|heads| candidate_pairs(heads, bound, close)).collect();
    pairs.par_sort_unstable();
    pairs.dedup();
    edges.extend(pairs.into_iter().map(|(a, b)| Edge::between(CANDIDATE, a, b)));
    edges.par_sort_unstable_by_key(|e| (e.kind, e.a, e.b));
    edges.dedup_by_key(|e| (e.kind, e.a, e.b));
    edges_batch(&edges)
}

/// What the buckets of a counting method count per pair of heads.
enum Counting<'a> {
    /// MOD-m, MIN-s, Broder: shared samples, frequent shingles past L heads.
    Samples(&'a SampleRule),
    /// SpotSigs: Σmin of the shared spots' counts.
    Spots(&'a SpotSigs),
}

/// The edges of a block of a counting method (MOD-m, MIN-s, Broder; SpotSigs): exact-group
/// memberships and skipped documents as for the other methods, each head's sample size or spot
/// multiset size (from its exact bucket), and per key either one shared sample per pair of its
/// heads (SpotSigs: the smaller of their counts of the spot) or, for a frequent shingle, a
/// frequent count per head and the shingle's list of heads. Shared counts and frequent counts
/// are summed over the block.
fn sampled_edges(
    mut rows: Vec<Row>,
    counting: &Counting<'_>,
) -> Result<RecordBatch, arrow_schema::ArrowError> {
    rows.par_sort_unstable_by_key(|r| (r.band, r.key, r.fp, r.doc));
    let buckets: Vec<&[Row]> = rows.chunk_by(|x, y| x.band == y.band && x.key == y.key).collect();
    let bytes = Bytes::of(&rows);
    let mut edges: Vec<Edge> = special_edges(&buckets, &bytes)?;
    // Each head's sample size (the spots' multiset size), from its exact bucket.
    edges.extend(buckets.iter().filter(|bucket| bucket[0].band == EXACT).flat_map(|bucket| {
        bucket.chunk_by(|x, y| x.fp == y.fp).map(|group| {
            let head = &group[0];
            Edge { len: head.value as i64, ..Edge::between(SAMPLE, head.doc, -1) }
        })
    }));
    edges.par_extend(buckets.par_iter().filter(|bucket| bucket[0].band >= 0).flat_map_iter(
        |bucket| match counting {
            Counting::Samples(rule) => shingle_edges(bucket, rule),
            Counting::Spots(spots) => spot_edges(bucket, spots),
        },
    ));
    edges.par_sort_unstable_by_key(|e| (e.kind, e.a, e.b));
    // Equal (kind, a, b): shared samples and frequent counts add up; other edges are repeats.
    edges.dedup_by(|next, kept| {
        let same = (next.kind, next.a, next.b) == (kept.kind, kept.a, kept.b);
        if same && matches!(kept.kind, SHARED | FREQUENT | SHARED_SHORT | FREQUENT_SHORT) {
            kept.len += next.len;
        }
        same
    });
    edges_batch(&edges)
}

/// A sampled shingle's bucket (rows sorted by text fingerprint, then document): its heads (one
/// per distinct text, in input order) share one sample per pair, or, past L heads, the shingle
/// is frequent for each of them and keeps their list. A short part's shingle (band
/// [`SHORT_BAND`]) gives the short parts' kinds of edges.
fn shingle_edges(bucket: &[Row], rule: &SampleRule) -> Vec<Edge> {
    let (shared, frequent, list) = if bucket[0].band == SHORT_BAND {
        (SHARED_SHORT, FREQUENT_SHORT, LIST_SHORT)
    } else {
        (SHARED, FREQUENT, LIST)
    };
    let mut heads: Vec<i64> = bucket.chunk_by(|x, y| x.fp == y.fp).map(|g| g[0].doc).collect();
    heads.sort_unstable();
    if rule.is_frequent(heads.len()) {
        let counts = heads.iter().map(|&d| Edge { len: 1, ..Edge::between(frequent, d, -1) });
        let lists = heads.iter().map(|&d| Edge::between(list, bucket[0].key as i64, d));
        return counts.chain(lists).collect();
    }
    let mut out = Vec::with_capacity(heads.len() * heads.len().saturating_sub(1) / 2);
    for (i, &a) in heads.iter().enumerate() {
        for &b in &heads[i + 1..] {
            out.push(Edge { len: 1, ..Edge::between(shared, a, b) });
        }
    }
    out
}

/// is_sampled(threshold=0.8, keep=None, cluster=None, **options)
/// --
///
/// Whether the method counts shared keys per pair (MOD-m, MIN-s, Broder: sampled shingles;
/// SpotSigs: spots): its bucket blocks then go to `sampled_candidates`.
#[pyfunction]
#[pyo3(signature = (threshold=0.8, keep=None, cluster=None, **options))]
pub fn is_sampled(
    threshold: f64,
    keep: Option<&str>,
    cluster: Option<&str>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<bool> {
    let c = ray_config(threshold, keep, cluster, options)?;
    let sampled = SampleRule::new(&c).map_err(|e| value_err(e.to_string()))?.is_some();
    Ok(sampled || matches!(c.method, MethodConfig::SpotSigs(_)))
}

/// A spot's bucket (rows sorted by text fingerprint, then document; `len` the spot's count in
/// the document, `sim` its multiset size): each pair of its heads whose sizes allow the
/// threshold ([`SpotSigs::may_pair`], as the library's index partitions by size) shares the
/// smaller of their counts; the other pairs could not be candidates whatever they share.
fn spot_edges(bucket: &[Row], spots: &SpotSigs) -> Vec<Edge> {
    // (size, doc, count), by size: the heads a head may pair with follow it.
    let mut heads: Vec<(u64, i64, i64)> = bucket
        .chunk_by(|x, y| x.fp == y.fp)
        .map(|g| {
            let (size, count) = g[0].spot();
            (size, g[0].doc, count)
        })
        .collect();
    heads.sort_unstable();
    let mut out = Vec::new();
    for (i, &(size, a, x)) in heads.iter().enumerate() {
        for &(other, b, y) in &heads[i + 1..] {
            if !spots.may_pair(size, other) {
                break;
            }
            let edge = Edge::between(SHARED, a.min(b), a.max(b));
            out.push(Edge { len: x.min(y), ..edge });
        }
    }
    out
}

/// sampled_split(batch, partitions)
/// --
///
/// Ray kernel 2a of the counting methods (MOD-m, MIN-s, Broder, SpotSigs): a bucket block's rows
/// for `sampled_candidates`, split so that `partitions` tasks share its work: first the rows
/// every task needs (each head's sample size, its frequent counts), then one batch per partition
/// with the rows of the pairs whose first head falls to it (shared samples) and of the frequent
/// shingles whose key falls to it (their lists of heads). The other rows (exact groups, skipped
/// documents) are left out. Every pair's rows from every block meet in one partition, as do
/// every frequent shingle's: `sampled_candidates` over the head rows of every block and one
/// partition's rows gives that partition's share of the candidates, and the partitions' shares
/// together are the candidates of all the rows. GIL released.
#[pyfunction]
pub fn sampled_split(
    py: Python<'_>,
    batch: Batch,
    partitions: usize,
) -> PyResult<Vec<PyArrowType<RecordBatch>>> {
    let batch = batch.0;
    py.detach(|| sampled_split_of(&batch, partitions))
        .map(|parts| parts.into_iter().map(PyArrowType).collect())
}

/// [`sampled_split`] without Python.
pub fn sampled_split_of(batch: &RecordBatch, partitions: usize) -> PyResult<Vec<RecordBatch>> {
    if partitions == 0 {
        return Err(value_err("partitions must be at least 1"));
    }
    let kind = column(batch, "kind")?
        .as_primitive_opt::<UInt8Type>()
        .ok_or_else(|| value_err("kind is not uint8"))?;
    let a = int64s(batch, "a")?;
    // Index 0: the head rows; 1 + p: partition p's rows.
    let mut rows: Vec<Vec<u32>> = vec![Vec::new(); partitions + 1];
    for i in 0..batch.num_rows() {
        let to = match kind.value(i) {
            SAMPLE | FREQUENT | FREQUENT_SHORT => 0,
            SHARED | SHARED_SHORT | LIST | LIST_SHORT => {
                // A doc index or a shingle key, spread evenly whatever its low bits.
                let h = (a.value(i) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                1 + ((h >> 32) % partitions as u64) as usize
            }
            _ => continue,
        };
        rows[to].push(i as u32);
    }
    rows.into_iter()
        .map(|r| {
            arrow_select::take::take_record_batch(batch, &arrow_array::UInt32Array::from(r))
                .map_err(arrow_err)
        })
        .collect()
}

/// sampled_candidates(batches, threshold=0.8, keep=None, cluster=None, **options)
/// --
///
/// Ray kernel 2b, MOD-m, MIN-s and Broder: the candidate pairs (`kind` 3) from the sampled rows
/// of every bucket block (shared samples, frequent counts, lists of frequent shingles, sample
/// sizes; or the head rows of every block and one partition's rows of `sampled_split`), by the
/// library's rule (`lookalike::method::SampleRule`): the candidates of its Broder
/// sort. SpotSigs: the pairs whose summed Σmin over their multiset sizes gives a weighted
/// Jaccard at or above the threshold (`SpotSigs::is_candidate`: the pairs of its index). GIL
/// released.
#[pyfunction]
#[pyo3(signature = (batches, threshold=0.8, keep=None, cluster=None, **options))]
pub fn sampled_candidates(
    py: Python<'_>,
    batches: Vec<Batch>,
    threshold: f64,
    keep: Option<&str>,
    cluster: Option<&str>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyArrowType<RecordBatch>> {
    let c = ray_config(threshold, keep, cluster, options)?;
    let batches: Vec<RecordBatch> = batches.into_iter().map(|b| b.0).collect();
    py.detach(|| sampled_candidates_of(&c, &batches)).map(PyArrowType)
}

/// [`sampled_candidates`] without Python.
pub fn sampled_candidates_of(c: &DedupConfig, batches: &[RecordBatch]) -> PyResult<RecordBatch> {
    let spots = SpotSigs::of(c).map_err(|e| value_err(e.to_string()))?;
    let rule = match spots {
        Some(_) => None,
        None => Some(
            SampleRule::new(c)
                .map_err(|e| value_err(e.to_string()))?
                .ok_or_else(|| value_err(format!("{} counts no keys", c.method.kind())))?,
        ),
    };
    // Index 0: the samples (SpotSigs: the spots); 1: MOD-m's short parts.
    let (mut sizes, mut frequent, mut shared, mut lists) =
        (Vec::new(), [Vec::new(), Vec::new()], [Vec::new(), Vec::new()], [Vec::new(), Vec::new()]);
    for batch in batches {
        let kind = column(batch, "kind")?
            .as_primitive_opt::<UInt8Type>()
            .ok_or_else(|| value_err("kind is not uint8"))?;
        let (a, b, len) = (int64s(batch, "a")?, int64s(batch, "b")?, int64s(batch, "len")?);
        for i in 0..batch.num_rows() {
            let (x, y, n) = (a.value(i), b.value(i), len.value(i));
            match kind.value(i) {
                SAMPLE => sizes.push((x, n)),
                FREQUENT => frequent[0].push((x, n)),
                SHARED => shared[0].push((x, y, n)),
                LIST => lists[0].push((x, y)),
                FREQUENT_SHORT => frequent[1].push((x, n)),
                SHARED_SHORT => shared[1].push((x, y, n)),
                LIST_SHORT => lists[1].push((x, y)),
                _ => {}
            }
        }
    }
    // Heads by input order: dense ids in the same order (the library's slots).
    sizes.sort_unstable();
    let heads: Vec<i64> = sizes.iter().map(|s| s.0).collect();
    if heads.windows(2).any(|w| w[0] == w[1]) {
        return Err(value_err("a head with two sample sizes"));
    }
    // A key bucket in which a document's exact group head is missing lists the first copy
    // instead, whose keys need not be its head's (SpotSigs: the language is detected on the
    // document's own text): rows of documents that are not heads are left out, as the library
    // keys heads only.
    let position = |d: i64| heads.binary_search(&d).ok().map(|i| i as u32);
    let count = |n: i64| u32::try_from(n).map_err(|_| value_err(format!("bad count {n}")));
    if let Some(spots) = spots {
        // Σmin of the shared spots per pair, against the multiset sizes.
        let sample_len: Vec<u32> = sizes.iter().map(|s| count(s.1)).collect::<PyResult<_>>()?;
        let shared = &mut shared[0];
        shared.sort_unstable_by_key(|s| (s.0, s.1));
        let mut edges = Vec::new();
        for run in shared.chunk_by(|x, y| (x.0, x.1) == (y.0, y.1)) {
            let sum = run.iter().try_fold(0u64, |acc, s| {
                u64::try_from(s.2).map(|n| acc + n).map_err(|_| value_err("bad count"))
            })?;
            let (Some(a), Some(b)) = (position(run[0].0), position(run[0].1)) else { continue };
            let (la, lb) = (u64::from(sample_len[a as usize]), u64::from(sample_len[b as usize]));
            if spots.is_candidate(sum, la, lb) {
                edges.push(Edge::between(CANDIDATE, run[0].0, run[0].1));
            }
        }
        return edges_batch(&edges).map_err(arrow_err);
    }
    let rule = rule.expect("a sampled method");
    // Each part's sizes, frequent counts, summed shared counts and lists of frequent shingles.
    let size = |n: i64, part: usize| {
        u64::try_from(n).map(|n| (n >> (32 * part)) as u32).map_err(|_| value_err("bad size"))
    };
    let mut parts: [PartCounts; 2] = Default::default();
    for (part, counted) in parts.iter_mut().enumerate() {
        counted.sample_len = sizes.iter().map(|s| size(s.1, part)).collect::<PyResult<_>>()?;
        counted.frequent = vec![0u32; heads.len()];
        for &(d, n) in &frequent[part] {
            if let Some(i) = position(d) {
                let f = &mut counted.frequent[i as usize];
                *f = f.saturating_add(count(n)?);
            }
        }
        let shared = &mut shared[part];
        shared.sort_unstable_by_key(|s| (s.0, s.1));
        for run in shared.chunk_by(|x, y| (x.0, x.1) == (y.0, y.1)) {
            let n =
                run.iter().try_fold(0u32, |acc, s| count(s.2).map(|n| acc.saturating_add(n)))?;
            if let (Some(a), Some(b)) = (position(run[0].0), position(run[0].1)) {
                counted.shared.push((a, b, n));
            }
        }
        let lists = &mut lists[part];
        lists.sort_unstable();
        counted.lists = lists
            .chunk_by(|x, y| x.0 == y.0)
            .map(|run| run.iter().filter_map(|&(_, d)| position(d)).collect())
            .collect();
    }
    let edges: Vec<Edge> = rule
        .candidates(&parts[0], &parts[1])
        .into_iter()
        .map(|(a, b)| Edge::between(CANDIDATE, heads[a as usize], heads[b as usize]))
        .collect();
    edges_batch(&edges).map_err(arrow_err)
}

/// The edges of a block's exact and skipped buckets (rows sorted by text fingerprint, then
/// document): exact-group memberships ([`exact_edges`]) and skipped documents, as listed.
fn special_edges(buckets: &[&[Row]], bytes: &Bytes) -> Result<Vec<Edge>, arrow_schema::ArrowError> {
    let exact: Vec<Vec<Edge>> = buckets
        .par_iter()
        .filter(|bucket| bucket[0].band == EXACT)
        .map(|bucket| exact_edges(bucket, bytes))
        .collect::<Result<_, _>>()?;
    let skipped = buckets.iter().filter(|bucket| bucket[0].band == SKIPPED).flat_map(|bucket| {
        bucket.iter().map(|r| Edge { reason: Some(r.reason()), ..Edge::between(SKIP, r.doc, -1) })
    });
    Ok(exact.into_iter().flatten().chain(skipped).collect())
}

/// An exact bucket: every document with its exact group's head (the first document with its
/// text), whether it has the head's bytes, and its length (both from its bytes row).
fn exact_edges(bucket: &[Row], bytes: &Bytes) -> Result<Vec<Edge>, arrow_schema::ArrowError> {
    let mut out = Vec::with_capacity(bucket.len());
    for group in bucket.chunk_by(|x, y| x.fp == y.fp) {
        let head = &group[0];
        let (raw, _) = bytes.get(head.doc)?;
        for r in group {
            let (own, len) = bytes.get(r.doc)?;
            out.push(Edge {
                similarity: 1.0,
                bytes: own == raw,
                len,
                ..Edge::between(MEMBER, head.doc, r.doc)
            });
        }
    }
    Ok(out)
}

/// A key bucket's heads: one row per distinct text, its first document (its exact group's
/// head: every copy has the same keys), in input order.
fn heads_of(bucket: &[Row]) -> Vec<&Row> {
    let mut heads: Vec<&Row> = bucket.chunk_by(|x, y| x.fp == y.fp).map(|g| &g[0]).collect();
    heads.sort_unstable_by_key(|r| r.doc);
    heads
}

/// The candidate pairs `(a, b)` of a group of heads (in input order), listed as the library
/// lists a group of `bound` pairs at most, kept when `close` holds for their SimHash
/// fingerprints.
fn candidate_pairs(
    heads: &[&Row],
    bound: u64,
    close: &(dyn Fn(u64, u64) -> bool + Sync),
) -> Vec<(i64, i64)> {
    if heads.len() < 2 {
        return Vec::new();
    }
    let positions: Vec<u32> = (0..heads.len() as u32).collect();
    let mut out = Vec::new();
    let Ok(_) = group_pairs(&positions, bound, |i, j| {
        let (x, y) = (heads[i as usize], heads[j as usize]);
        if close(x.value, y.value) {
            out.push((x.doc, y.doc));
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

    /// A key bucket listed on its own: the candidate pairs between the heads of its distinct
    /// texts (the reference the grouped listing of `edges_of` is compared with).
    fn candidate_edges(
        bucket: &[Row],
        bound: u64,
        close: &(dyn Fn(u64, u64) -> bool + Sync),
    ) -> Vec<Edge> {
        let heads = heads_of(bucket);
        candidate_pairs(&heads, bound, close)
            .into_iter()
            .map(|(a, b)| Edge::between(CANDIDATE, a, b))
            .collect()
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
        // Document 2 (upper case) has the head's text, not its bytes; 4 both.
        let block = bucket_batch(&c, &rows).unwrap();
        let (kind, b) = (block.column_by_name("kind").unwrap(), block.column_by_name("b").unwrap());
        let bytes = block.column_by_name("bytes").unwrap().as_boolean();
        let member = |d: i64| {
            (0..block.num_rows())
                .find(|&i| {
                    kind.as_primitive::<UInt8Type>().value(i) == MEMBER
                        && b.as_primitive::<Int64Type>().value(i) == d
                })
                .unwrap()
        };
        assert!(bytes.value(member(0)) && !bytes.value(member(2)) && bytes.value(member(4)));
        // An exact row without its bytes row (the same key, so the same block) is refused.
        let band =
            rows.column_by_name("band").unwrap().as_primitive::<arrow_array::types::Int32Type>();
        let keep: arrow_array::BooleanArray =
            (0..rows.num_rows()).map(|i| Some(!(band.value(i) == BYTES && i % 2 == 0))).collect();
        let broken = arrow_select::filter::filter_record_batch(&rows, &keep).unwrap();
        assert!(broken.num_rows() < rows.num_rows());
        assert!(bucket_batch(&c, &broken).is_err());
        let rows = rows_of(&broken).unwrap();
        let err = edges_of(rows, u64::MAX, &|_, _| true).unwrap_err().to_string();
        assert!(err.contains("without its bytes row"), "{err}");
    }

    #[test]
    fn a_bucket_over_the_bound_lists_anchors_and_predecessors() {
        let row = |doc: i64| Row { key: 9, band: 0, doc, fp: doc as u128, value: doc as u64 };
        let n = 30usize;
        let bucket: Vec<Row> = (0..n as i64).map(row).collect();
        let all = candidate_edges(&bucket, u64::MAX, &|_, _| true);
        assert_eq!(all.len(), n * (n - 1) / 2);
        let capped = candidate_edges(&bucket, 10, &|_, _| true);
        let expected: usize = (1..n).map(|i| i.min(ANCHORS) + usize::from(i > ANCHORS)).sum();
        assert_eq!(capped.len(), expected);
        assert!(capped.iter().any(|e| (e.a, e.b) == (20, 21)));
        // The filter on SimHash fingerprints: only even pairs.
        let even = candidate_edges(&bucket, u64::MAX, &|a, b| (a + b) % 2 == 0);
        assert!(even.iter().all(|e| (e.a + e.b) % 2 == 0) && !even.is_empty());
    }

    /// A block's counting rows split: the head rows first, each pair's and each frequent
    /// shingle's rows in one partition, spread over several, the other rows left out.
    #[test]
    fn the_counting_rows_split_by_pair_and_by_frequent_shingle() {
        use lookalike::MethodConfig;
        use lookalike::config::{Sample, SampleConfig};
        let sample = SampleConfig {
            sample: Some(Sample::Mod(2)),
            max_docs_per_shingle: 3,
            ..SampleConfig::default()
        };
        let c =
            Dedup::builder().method(MethodConfig::ModM(sample)).build().unwrap().config().clone();
        let mut rng = super::super::testutil::Rng::new(5);
        let texts = super::super::testutil::corpus(&mut rng, 60);
        let rows = sketch_batch(&c, 60, None, &input(&texts, 60)[0], "text", INDEX).unwrap();
        let block = bucket_batch(&c, &rows).unwrap();
        let all = edges(&block);
        let parts = sampled_split_of(&block, 4).unwrap();
        assert_eq!(parts.len(), 5);
        let heads = edges(&parts[0]);
        assert!(heads.iter().all(|e| matches!(e.0, SAMPLE | FREQUENT | FREQUENT_SHORT)));
        let sizes = all.iter().filter(|e| e.0 == SAMPLE).count();
        assert_eq!(heads.iter().filter(|e| e.0 == SAMPLE).count(), sizes);
        let counted = |e: &(u8, i64, i64)| matches!(e.0, SHARED | SHARED_SHORT | LIST | LIST_SHORT);
        let mut split: Vec<_> = parts[1..].iter().flat_map(edges).collect();
        assert!(split.iter().all(counted));
        let mut want: Vec<_> = all.iter().copied().filter(counted).collect();
        split.sort_unstable();
        want.sort_unstable();
        assert_eq!(split, want);
        assert!(want.iter().any(|e| e.0 == LIST) && want.iter().any(|e| e.0 == SHARED));
        // By first head (pairs), and by shingle key (lists): each in one partition.
        for (i, part) in parts[1..].iter().enumerate() {
            for (j, other) in parts[1..].iter().enumerate() {
                if i != j {
                    let firsts: Vec<i64> = edges(other).iter().map(|e| e.1).collect();
                    assert!(edges(part).iter().all(|e| !firsts.contains(&e.1)));
                }
            }
        }
        assert!(parts[1..].iter().filter(|p| p.num_rows() > 0).count() >= 3);
        assert!(sampled_split_of(&block, 0).is_err());
    }

    /// A spot's bucket lists only the pairs whose multiset sizes allow the threshold: those with
    /// every spot of the smaller shared reaching it, the size bound of the library's index.
    #[test]
    fn a_spot_bucket_pairs_only_the_sizes_that_can_reach_the_threshold() {
        let c = Dedup::builder()
            .method(MethodKind::SpotSigs)
            .threshold(0.8)
            .build()
            .unwrap()
            .config()
            .clone();
        let spots = SpotSigs::of(&c).unwrap().unwrap();
        let sizes = [10u64, 11, 12, 20, 30, 8, 25, 10];
        let bucket: Vec<Row> = sizes
            .iter()
            .enumerate()
            .map(|(d, &size)| Row {
                key: 9,
                band: 0,
                doc: d as i64,
                fp: d as u128,
                value: size << 32 | (1 + d as u64 % 3),
            })
            .collect();
        let mut got: Vec<(i64, i64, i64)> =
            spot_edges(&bucket, &spots).iter().map(|e| (e.a, e.b, e.len)).collect();
        got.sort_unstable();
        let mut want = Vec::new();
        for a in 0..sizes.len() {
            for b in a + 1..sizes.len() {
                let (x, y) = (sizes[a], sizes[b]);
                if x.min(y) as f64 / x.max(y) as f64 >= 0.8 {
                    let count = (1 + a as i64 % 3).min(1 + b as i64 % 3);
                    want.push((a as i64, b as i64, count));
                }
            }
        }
        assert_eq!(got, want);
        assert!(want.contains(&(0, 5, 1)) && want.contains(&(4, 6, 1)), "8/10 and 25/30 kept");
        assert_eq!(want.len(), 10);
    }

    /// A group of heads that comes back in every band is listed once; the pairs are those of
    /// every bucket listed on its own, for a bound over and under the group's pairs and with a
    /// filter on the fingerprints.
    #[test]
    fn a_group_in_many_bands_gives_the_pairs_of_its_buckets_once() {
        let row = |band: i32, key: u64, doc: i64| Row {
            key,
            band,
            doc,
            fp: doc as u128 / 2, // pairs of copies: one head each
            value: doc as u64 % 5,
        };
        let mut rows = Vec::new();
        for band in 0..18 {
            rows.extend((0..300).map(|d| row(band, 7, d)));
            // Buckets of their own in some bands: overlapping groups.
            rows.extend((band as i64 * 10..band as i64 * 10 + 40).map(|d| row(band, 9, d)));
        }
        for (bound, filter) in [(u64::MAX, false), (2_000, false), (u64::MAX, true)] {
            let close = move |a: u64, b: u64| !filter || (a + b).is_multiple_of(2);
            let got = edges(&edges_of(rows.clone(), bound, &close).unwrap());
            let mut sorted = rows.clone();
            sorted.sort_unstable_by_key(|r| (r.band, r.key, r.fp, r.doc));
            let mut want: Vec<(u8, i64, i64)> = sorted
                .chunk_by(|x, y| x.band == y.band && x.key == y.key)
                .flat_map(|b| candidate_edges(b, bound, &close))
                .map(|e| (e.kind, e.a, e.b))
                .collect();
            want.sort_unstable();
            want.dedup();
            assert_eq!(got, want, "bound {bound}, filter {filter}");
            assert!(want.len() > 1_000);
        }
    }
}
