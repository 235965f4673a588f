//! The Rust kernels of `lookalike.ray.dedup`, engine-neutral functions over Arrow batches.
//!
//! 1. [`sketch_keys`] (a `map_batches` task): each document of a batch, with its global input
//!    index, becomes *keys only*: one *exact* row keyed by its normalized-text fingerprint, one
//!    *band* row per LSH band keyed by [`band_key`] (band, key, document, text fingerprint), or
//!    one *skipped* row with the reason. No shingle set travels with the rows.
//! 2. Ray repartitions the rows by `key` (a hash shuffle: all rows of one key meet in one block).
//! 3. [`bucket_edges`] (a `map_batches` task per block): an exact bucket gives every document its
//!    exact group's head (the first document with that text) and its length; a band bucket gives
//!    the *candidate* pairs between the heads of its distinct texts, listed as the library's
//!    `band_candidates` lists them (every pair of the bucket, or anchors beyond
//!    `max_pairs_per_group`).
//! 4. Exact verification joins the candidates with the texts, partitioned by document: each
//!    candidate pair goes to the verification partition `dest` of its first document
//!    ([`pair_dest`]); each text goes, once, to every partition that holds a pair of it
//!    ([`route_texts`], after a repartition by document); [`verify_pairs`] (after a repartition by
//!    `dest`) recomputes the shingle sets of the texts it received and keeps the pairs whose exact
//!    Jaccard reaches the threshold.
//! 5. [`Components`] (one task): the streamed edges (head per document: 4 bytes; length when
//!    `keep="longest"`: 4 more; the near edges) clustered exactly as [`lookalike::DedupRun`]
//!    clusters them (same graph of exact groups, same visiting order, same
//!    [`lookalike::ClusterMode::cluster`]), with the same pair listing and fates. Cluster modes that put a
//!    member with a representative it has no verified pair with (`connected`, `center-refine`)
//!    ask for those similarities (`Components.cluster`), which the same verification join
//!    computes, before `Components.finish`.
//!
//! The result equals `lookalike dedup --method M` on the same documents in the same order,
//! whatever the partitioning: candidates are the pairs sharing a band (the band keys are the
//! library's; with super-shingles, a super- or mega-shingle from
//! [`supershingles::document_keys`]; with SimHash, combined, long sentences, partitioned
//! fingerprints, and I-Match and TF*RIDF signed with a lexicon file, a key of [`DocKeyer`], SimHash and combined keeping the pairs within Hamming
//! distance k; every pair of a bucket listed as the library lists them),
//! verification is exact Jaccard of the library's shingle sets, clustering sees the same graph.
//!
//! [`connected_step`] is the per-partition step of the distributed connected components
//! (alternating large-star and small-star rounds over an edge list partitioned by node), the
//! fallback for graphs whose edges do not fit the one clustering task.

use std::cmp::Reverse;
use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Float64Builder, Int32Builder, Int64Builder, LargeStringBuilder, StringBuilder,
    UInt8Builder, UInt64Builder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type, Int64Type, UInt8Type, UInt64Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_pyarrow::{PyArrowType, Table};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use lookalike::candidates::lsh::{ANCHORS, band_key};
use lookalike::cluster::Graph;
use lookalike::fingerprint::{raw_fingerprint, text_fingerprint};
use lookalike::method::{DocKeyer, DocView, KeyerError};
use lookalike::pipeline::list_exact_group;
use lookalike::shingles::ShingleScratch;
use lookalike::sketch::supershingles;
use lookalike::text::normalize::NormalizedText;
use lookalike::verify::jaccard;
use lookalike::{
    Cluster, ClusterMember, DedupConfig, DocId, DocStatus, Keep, MatchKind, Measure, MethodConfig,
    MinHasher, ScoredPair, SkipReason, Verify,
};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;

use crate::config;
use crate::dedup::string_column;
use crate::errors::{arrow_err, value_err};
use crate::tables::{documents_batch, documents_schema, pairs_batch, pairs_schema};

/// Row kinds of [`sketch_bands`]' output.
const EXACT: i32 = -1;
const SKIPPED: i32 = -2;

/// Edge kinds of [`bucket_edges`]' output.
const NEAR: u8 = 0;
const MEMBER: u8 = 1;
const SKIP: u8 = 2;
/// A candidate pair of heads, not yet verified.
const CANDIDATE: u8 = 3;

/// The configuration of a Ray run, checked: a method with per-document keys (MinHash,
/// super-shingles, exact, or one of [`DocKeyer`]'s), Jaccard, exact verification.
pub fn ray_config(
    threshold: f64,
    keep: Option<&str>,
    cluster: Option<&str>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<DedupConfig> {
    // `method` travels among the options of the kernels.
    let (method, options) = match options {
        Some(o) => {
            let o = o.copy()?;
            let method: Option<String> = match o.get_item("method")? {
                Some(m) if !m.is_none() => Some(m.extract()?),
                _ => None,
            };
            if o.contains("method")? {
                o.del_item("method")?;
            }
            (method, Some(o))
        }
        None => (None, None),
    };
    let dedup = config::build(method.as_deref(), threshold, keep, cluster, options.as_ref())?;
    let c = dedup.config().clone();
    if !matches!(
        c.method,
        MethodConfig::MinHash(_) | MethodConfig::SuperShingles(_) | MethodConfig::Exact
    ) {
        // The other methods run when their candidates come from keys each document has alone.
        keyer_of(&c, 2)?;
    }
    if c.measure != Measure::Jaccard || c.verify != Verify::Exact {
        return Err(value_err(
            "lookalike.ray.dedup verifies exact Jaccard only (measure=\"jaccard\", verify=\"exact\")",
        ));
    }
    Ok(c)
}

/// The per-document keyer of a method other than MinHash, super-shingles and exact, for about
/// `documents` documents; a `ValueError` naming the reason for a method that has none.
fn keyer_of(c: &DedupConfig, documents: usize) -> PyResult<DocKeyer> {
    DocKeyer::new(c, documents).map_err(|e| match e {
        KeyerError::Config(e) => value_err(e.to_string()),
        KeyerError::NoDocumentKeys(why) => value_err(format!(
            "lookalike.ray.dedup cannot run {}: {why} (use lookalike.dedup)",
            c.method.kind().name()
        )),
    })
}

fn sketch_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("key", DataType::UInt64, false),
        Field::new("band", DataType::Int32, false),
        Field::new("doc", DataType::Int64, false),
        Field::new("fp_hi", DataType::UInt64, false),
        Field::new("fp_lo", DataType::UInt64, false),
        Field::new("raw_hi", DataType::UInt64, false),
        Field::new("raw_lo", DataType::UInt64, false),
        Field::new("len", DataType::Int64, false),
        Field::new("reason", DataType::Utf8, true),
        Field::new("sim", DataType::UInt64, false),
    ]))
}

fn edges_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("kind", DataType::UInt8, false),
        Field::new("a", DataType::Int64, false),
        Field::new("b", DataType::Int64, false),
        Field::new("similarity", DataType::Float64, false),
        Field::new("bytes", DataType::Boolean, false),
        Field::new("len", DataType::Int64, false),
        Field::new("reason", DataType::Utf8, true),
    ]))
}

/// What one document becomes.
enum Sketched {
    Skipped(SkipReason),
    Doc { fp: u128, raw: u128, len: usize, keys: Vec<(i32, u64)>, sim: u64 },
}

/// The shingler of a run: the same normalization and shingles as the library's.
fn shingler_of(c: &DedupConfig) -> lookalike::Shingler {
    lookalike::Shingler::new(c.shingle, c.seed).with_segmentation(c.segmentation)
}

/// An int64 column without nulls.
fn index_column(batch: &RecordBatch, index: &str) -> PyResult<Vec<i64>> {
    match batch.column_by_name(index) {
        Some(col) if col.data_type() == &DataType::Int64 && col.null_count() == 0 => {
            Ok(col.as_primitive::<Int64Type>().values().to_vec())
        }
        _ => Err(value_err(format!("no non-null int64 index column {index:?}"))),
    }
}

/// How [`sketch_keys`] keys a document.
enum Keying {
    /// MinHash: one key per LSH band (the band is part of the bucket).
    Bands(MinHasher, lookalike::LshParams),
    /// Super-shingles: the document's distinct super- or mega-shingles (one key space).
    Super(MinHasher, supershingles::SuperShingleConfig),
    /// The methods of [`DocKeyer`]: its keys, by key space, and the SimHash fingerprint.
    Keyed(DocKeyer),
    /// Exact: no keys (the exact rows do the work).
    Exact,
}

/// sketch_keys(batch, text="text", index="__lookalike_index", threshold=0.8, keep=None, cluster=None, documents=0, **options)
/// --
///
/// Ray kernel 1: a batch of documents (a text column and an int64 global input index) as rows
/// keyed for the shuffle, keys only (see the module documentation). `documents`: the collection
/// size (SimHash's table layout, as the library chooses it). Runs in parallel, GIL released.
#[pyfunction]
#[pyo3(signature = (batch, text="text", index="__lookalike_index", threshold=0.8, keep=None, cluster=None, documents=0, **options))]
#[allow(clippy::too_many_arguments)]
pub fn sketch_keys(
    py: Python<'_>,
    batch: PyArrowType<RecordBatch>,
    text: &str,
    index: &str,
    threshold: f64,
    keep: Option<&str>,
    cluster: Option<&str>,
    documents: usize,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyArrowType<RecordBatch>> {
    let c = ray_config(threshold, keep, cluster, options)?;
    let keying = match &c.method {
        MethodConfig::MinHash(mh) => Keying::Bands(
            MinHasher::new(mh.num_perm, mh.scheme, c.seed),
            mh.lsh_params(c.threshold),
        ),
        MethodConfig::SuperShingles(s) => {
            Keying::Super(MinHasher::new(s.shape.minhashes, s.scheme, c.seed), s.shape)
        }
        MethodConfig::Exact => Keying::Exact,
        _ => Keying::Keyed(keyer_of(&c, documents)?),
    };
    let batch = batch.0;
    let texts = string_column(&batch, text, "text")?;
    let docs = index_column(&batch, index)?;
    for (t, d) in texts.iter().zip(&docs) {
        if t.is_none() {
            return Err(value_err(format!("document {d}: the text column {text:?} is null")));
        }
    }
    let out = py.detach(|| {
        let shingler = shingler_of(&c);
        let sketched: Vec<Sketched> = texts
            .par_iter()
            .map_init(
                || (NormalizedText::default(), ShingleScratch::default(), Vec::new()),
                |(norm, scratch, buf), t| {
                    let t = t.as_deref().unwrap_or_default();
                    shingler.normalize_into(t, norm);
                    let mut shingles = Vec::new();
                    shingler.shingles_into(norm, scratch, &mut shingles);
                    if shingles.is_empty() {
                        let reason = if t.trim().is_empty() {
                            SkipReason::EmptyText
                        } else {
                            SkipReason::NoTokens
                        };
                        return Sketched::Skipped(reason);
                    }
                    let (keys, sim) = match &keying {
                        Keying::Bands(hasher, p) => {
                            let sig = hasher.sketch(&shingles);
                            let keys = (0..p.bands)
                                .map(|b| {
                                    let rows = &sig[b * p.rows..(b + 1) * p.rows];
                                    (b as i32, band_key(rows, b, buf))
                                })
                                .collect();
                            (keys, 0)
                        }
                        Keying::Super(hasher, shape) => {
                            let sig = hasher.sketch(&shingles);
                            let mut keys = supershingles::document_keys(&sig, shape, c.seed);
                            keys.sort_unstable();
                            keys.dedup();
                            (keys.into_iter().map(|k| (0, k)).collect(), 0)
                        }
                        Keying::Keyed(keyer) => {
                            let view = DocView { text: t, norm, shingles: &shingles };
                            let k = keyer.keys(&view);
                            (
                                k.keys.into_iter().map(|(s, k)| (s as i32, k)).collect(),
                                k.fingerprint,
                            )
                        }
                        Keying::Exact => (Vec::new(), 0),
                    };
                    Sketched::Doc {
                        fp: text_fingerprint(&norm.text),
                        raw: raw_fingerprint(t.as_bytes()),
                        len: t.len(),
                        keys,
                        sim,
                    }
                },
            )
            .collect();
        build_sketch_batch(&docs, &sketched)
    });
    out.map(PyArrowType).map_err(arrow_err)
}

fn build_sketch_batch(
    docs: &[i64],
    sketched: &[Sketched],
) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let mut key = UInt64Builder::new();
    let mut band = Int32Builder::new();
    let mut doc = Int64Builder::new();
    let (mut fp_hi, mut fp_lo, mut raw_hi, mut raw_lo) =
        (UInt64Builder::new(), UInt64Builder::new(), UInt64Builder::new(), UInt64Builder::new());
    let mut len = Int64Builder::new();
    let mut reason = StringBuilder::new();
    let mut sims = UInt64Builder::new();
    for (&d, s) in docs.iter().zip(sketched) {
        match s {
            Sketched::Skipped(r) => {
                key.append_value(d as u64);
                band.append_value(SKIPPED);
                doc.append_value(d);
                for b in [&mut fp_hi, &mut fp_lo, &mut raw_hi, &mut raw_lo] {
                    b.append_value(0);
                }
                len.append_value(0);
                reason.append_value(r.as_str());
                sims.append_value(0);
            }
            Sketched::Doc { fp, raw, len: l, keys, sim } => {
                let rows = std::iter::once((EXACT, (*fp as u64) ^ ((*fp >> 64) as u64)))
                    .chain(keys.iter().copied());
                for (b, k) in rows {
                    key.append_value(k);
                    band.append_value(b);
                    doc.append_value(d);
                    fp_hi.append_value((*fp >> 64) as u64);
                    fp_lo.append_value(*fp as u64);
                    raw_hi.append_value((*raw >> 64) as u64);
                    raw_lo.append_value(*raw as u64);
                    len.append_value(*l as i64);
                    reason.append_null();
                    sims.append_value(*sim);
                }
            }
        }
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(key.finish()),
        Arc::new(band.finish()),
        Arc::new(doc.finish()),
        Arc::new(fp_hi.finish()),
        Arc::new(fp_lo.finish()),
        Arc::new(raw_hi.finish()),
        Arc::new(raw_lo.finish()),
        Arc::new(len.finish()),
        Arc::new(reason.finish()),
        Arc::new(sims.finish()),
    ];
    RecordBatch::try_new(sketch_schema(), columns)
}

/// One row of [`sketch_bands`]' output, borrowed.
struct Row<'a> {
    key: u64,
    band: i32,
    doc: i64,
    fp: u128,
    raw: u128,
    len: i64,
    reason: Option<&'a str>,
    /// The SimHash fingerprint (SimHash, combined; 0 otherwise).
    sim: u64,
}

/// An output edge.
struct Edge {
    kind: u8,
    a: i64,
    b: i64,
    similarity: f64,
    bytes: bool,
    len: i64,
    reason: Option<String>,
}

fn column<'a>(batch: &'a RecordBatch, name: &str) -> PyResult<&'a ArrayRef> {
    batch
        .column_by_name(name)
        .ok_or_else(|| value_err(format!("not a lookalike band batch: no column {name:?}")))
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
    let key = column(&batch, "key")?
        .as_primitive_opt::<UInt64Type>()
        .ok_or_else(|| value_err("key is not uint64"))?;
    let band = column(&batch, "band")?
        .as_primitive_opt::<Int32Type>()
        .ok_or_else(|| value_err("band is not int32"))?;
    let doc = column(&batch, "doc")?
        .as_primitive_opt::<Int64Type>()
        .ok_or_else(|| value_err("doc is not int64"))?;
    let u64s = |name: &str| -> PyResult<&arrow_array::UInt64Array> {
        column(&batch, name)?
            .as_primitive_opt::<UInt64Type>()
            .ok_or_else(|| value_err(format!("{name} is not uint64")))
    };
    let (fp_hi, fp_lo, raw_hi, raw_lo) =
        (u64s("fp_hi")?, u64s("fp_lo")?, u64s("raw_hi")?, u64s("raw_lo")?);
    let len = column(&batch, "len")?
        .as_primitive_opt::<Int64Type>()
        .ok_or_else(|| value_err("len is not int64"))?;
    let reason = column(&batch, "reason")?
        .as_string_opt::<i32>()
        .ok_or_else(|| value_err("reason is not a string"))?;
    let sim = u64s("sim")?;
    let rows: Vec<Row<'_>> = (0..batch.num_rows())
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
        .collect();
    // The library lists every pair of a super-shingle bucket and of shared keys; LSH buckets
    // (MinHash, combined) over the bound list anchors. SimHash and combined keep the pairs
    // within their Hamming distance.
    let (bound, keyer) = match c.method {
        MethodConfig::MinHash(_) => (c.max_pairs_per_group, None),
        MethodConfig::SuperShingles(_) | MethodConfig::Exact => (u64::MAX, None),
        _ => {
            let keyer = keyer_of(&c, 2)?;
            let bound = if keyer.lists_anchors() { c.max_pairs_per_group } else { u64::MAX };
            (bound, Some(keyer))
        }
    };
    let close = |a: u64, b: u64| keyer.as_ref().is_none_or(|k| k.close(a, b));
    let out = py.detach(|| edges_of(rows, bound, &close));
    out.map(PyArrowType).map_err(arrow_err)
}

fn edges_of(
    mut rows: Vec<Row<'_>>,
    bound: u64,
    close: &(dyn Fn(u64, u64) -> bool + Sync),
) -> Result<RecordBatch, arrow_schema::ArrowError> {
    rows.par_sort_unstable_by_key(|r| (r.band, r.key, r.fp, r.doc));
    let buckets: Vec<&[Row<'_>]> =
        rows.chunk_by(|x, y| x.band == y.band && x.key == y.key).collect();
    let mut edges: Vec<Edge> =
        buckets.par_iter().flat_map_iter(|bucket| bucket_edges_of(bucket, bound, close)).collect();
    edges.par_sort_unstable_by_key(|e| (e.kind, e.a, e.b));
    edges.dedup_by_key(|e| (e.kind, e.a, e.b));
    edges_batch(&edges)
}

/// Edges as a batch of the edges schema.
fn edges_batch(edges: &[Edge]) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let mut kind = UInt8Builder::new();
    let mut a = Int64Builder::new();
    let mut b = Int64Builder::new();
    let mut similarity = Float64Builder::new();
    let mut bytes = BooleanBuilder::new();
    let mut len = Int64Builder::new();
    let mut reason = StringBuilder::new();
    for e in edges {
        kind.append_value(e.kind);
        a.append_value(e.a);
        b.append_value(e.b);
        similarity.append_value(e.similarity);
        bytes.append_value(e.bytes);
        len.append_value(e.len);
        reason.append_option(e.reason.as_deref());
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(kind.finish()),
        Arc::new(a.finish()),
        Arc::new(b.finish()),
        Arc::new(similarity.finish()),
        Arc::new(bytes.finish()),
        Arc::new(len.finish()),
        Arc::new(reason.finish()),
    ];
    RecordBatch::try_new(edges_schema(), columns)
}

/// The edges of one bucket (rows sorted by text fingerprint, then document); candidate pairs are
/// kept when `close` holds for their SimHash fingerprints.
fn bucket_edges_of(
    bucket: &[Row<'_>],
    bound: u64,
    close: &(dyn Fn(u64, u64) -> bool + Sync),
) -> Vec<Edge> {
    let first = &bucket[0];
    match first.band {
        SKIPPED => bucket
            .iter()
            .map(|r| Edge {
                kind: SKIP,
                a: r.doc,
                b: -1,
                similarity: 0.0,
                bytes: false,
                len: 0,
                reason: r.reason.map(str::to_owned),
            })
            .collect(),
        EXACT => {
            let mut out = Vec::with_capacity(bucket.len());
            for group in bucket.chunk_by(|x, y| x.fp == y.fp) {
                let head = &group[0];
                for r in group {
                    out.push(Edge {
                        kind: MEMBER,
                        a: head.doc,
                        b: r.doc,
                        similarity: 1.0,
                        bytes: r.raw == head.raw,
                        len: r.len,
                        reason: None,
                    });
                }
            }
            out
        }
        _ => {
            // One row per distinct text: its first document is its exact group's head (every copy
            // has the same bands), in input order.
            let mut heads: Vec<&Row<'_>> =
                bucket.chunk_by(|x, y| x.fp == y.fp).map(|g| &g[0]).collect();
            if heads.len() < 2 {
                return Vec::new();
            }
            heads.sort_unstable_by_key(|r| r.doc);
            let m = heads.len() as u64;
            let mut pairs: Vec<(usize, usize)> = Vec::new();
            if m * (m - 1) / 2 <= bound {
                for i in 0..heads.len() {
                    pairs.extend((i + 1..heads.len()).map(|j| (i, j)));
                }
            } else {
                // The library's rule for a group over the bound: each member with the first
                // ANCHORS members and with its predecessor.
                for i in 1..heads.len() {
                    let anchors = i.min(ANCHORS);
                    pairs.extend((0..anchors).map(|a| (a, i)));
                    if i > anchors {
                        pairs.push((i - 1, i));
                    }
                }
            }
            pairs
                .into_iter()
                .filter(|&(i, j)| close(heads[i].sim, heads[j].sim))
                .map(|(i, j)| Edge {
                    kind: CANDIDATE,
                    a: heads[i].doc,
                    b: heads[j].doc,
                    similarity: 0.0,
                    bytes: false,
                    len: 0,
                    reason: None,
                })
                .collect()
        }
    }
}

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

fn int64s<'a>(batch: &'a RecordBatch, name: &str) -> PyResult<&'a arrow_array::Int64Array> {
    column(batch, name)?
        .as_primitive_opt::<Int64Type>()
        .ok_or_else(|| value_err(format!("{name} is not int64")))
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
/// candidate rows of [`bucket_edges`] only), distinct, each with its verification partition
/// `dest`; returns `(pairs, requests)`: the pairs as join rows, and one request per distinct
/// (document, `dest`) that needs the document's text.
#[pyfunction]
pub fn candidate_pairs(
    py: Python<'_>,
    batch: PyArrowType<RecordBatch>,
    partitions: u64,
) -> PyResult<(PyArrowType<RecordBatch>, PyArrowType<RecordBatch>)> {
    let batch = batch.0;
    let (a, b) = (int64s(&batch, "a")?, int64s(&batch, "b")?);
    let kind = match batch.column_by_name("kind") {
        Some(k) => {
            Some(k.as_primitive_opt::<UInt8Type>().ok_or_else(|| value_err("kind is not uint8"))?)
        }
        None => None,
    };
    let (pairs, requests) = py
        .detach(|| {
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
            Ok::<_, arrow_schema::ArrowError>((
                join_batch(&rows)?,
                RecordBatch::try_new(request_schema(), columns)?,
            ))
        })
        .map_err(arrow_err)?;
    Ok((PyArrowType(pairs), PyArrowType(requests)))
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
    let batch = batch.0;
    let docs = index_column(&batch, index)?;
    let texts = string_column(&batch, text, "text")?;
    let mut out = LargeStringBuilder::new();
    for t in &texts {
        out.append_option(t.as_deref());
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(arrow_array::Int64Array::from(docs)),
        Arc::new(arrow_array::Int64Array::from(vec![-1i64; texts.len()])),
        Arc::new(out.finish()),
    ];
    RecordBatch::try_new(request_schema(), columns).map(PyArrowType).map_err(arrow_err)
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
    let (doc, dest) = (int64s(&batch, "doc")?, int64s(&batch, "dest")?);
    let text = column(&batch, "text")?
        .as_string_opt::<i64>()
        .ok_or_else(|| value_err("text is not a large string"))?;
    py.detach(|| {
        let mut rows: Vec<(i64, i64, usize)> =
            (0..batch.num_rows()).map(|i| (doc.value(i), dest.value(i), i)).collect();
        rows.sort_unstable();
        let mut out: Vec<(i64, i64, i64, Option<&str>)> = Vec::new();
        for group in rows.chunk_by(|x, y| x.0 == y.0) {
            // The text row (dest -1) sorts first.
            let d = group[0].0;
            let source =
                group.iter().find(|r| r.1 < 0 && !text.is_null(r.2)).map(|r| text.value(r.2));
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
    })
    .map(PyArrowType)
}

/// verify_pairs(batch, text="text", all=False, threshold=0.8, keep=None, cluster=None, **options)
/// --
///
/// Verification step 3, over a block in which each pair's rows and the texts of its documents are
/// together (after a repartition by `dest`): the shingle sets of the texts, recomputed as the
/// library computes them, and the exact Jaccard of every distinct pair; returns the near edges
/// at or above the threshold (every pair with `all=True`, for the similarities a cluster mode
/// asks for). A pair without one of its texts is a `ValueError`.
#[pyfunction]
#[pyo3(signature = (batch, all=false, threshold=0.8, keep=None, cluster=None, **options))]
pub fn verify_pairs(
    py: Python<'_>,
    batch: PyArrowType<RecordBatch>,
    all: bool,
    threshold: f64,
    keep: Option<&str>,
    cluster: Option<&str>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyArrowType<RecordBatch>> {
    let c = ray_config(threshold, keep, cluster, options)?;
    let batch = batch.0;
    let (a, b) = (int64s(&batch, "a")?, int64s(&batch, "b")?);
    let text = column(&batch, "text")?
        .as_string_opt::<i64>()
        .ok_or_else(|| value_err("text is not a large string"))?;
    py.detach(|| {
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
        let shingler = shingler_of(&c);
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
                let s = jaccard(set_of(x)?, set_of(y)?);
                Ok((all || s >= c.threshold).then_some(Edge {
                    kind: NEAR,
                    a: x,
                    b: y,
                    similarity: s,
                    bytes: false,
                    len: 0,
                    reason: None,
                }))
            })
            .filter_map(Result::transpose)
            .collect::<PyResult<_>>()?;
        edges_batch(&edges).map_err(arrow_err)
    })
    .map(PyArrowType)
}

/// Ray stage 5: the streamed edges, clustered as the library clusters them.
///
/// Components(n, threshold=0.8, keep=None, cluster=None, **options)
#[pyclass(module = "lookalike._lookalike")]
#[derive(Debug)]
pub struct Components {
    config: DedupConfig,
    /// Head of each document's exact group (`u32::MAX`: not seen, or skipped).
    head: Vec<u32>,
    /// Whether a document's raw bytes equal its head's.
    bytes: Vec<bool>,
    /// Text length (only with `keep="longest"`).
    len: Vec<u32>,
    skipped: HashMap<u32, SkipReason>,
    near: Vec<(u32, u32, f64)>,
    ids: Vec<Option<String>>,
    /// Similarities of pairs of heads asked for by [`Components::cluster`].
    asked: HashMap<(u32, u32), f64>,
    /// Component of each head (its smallest head), from the distributed connected components;
    /// with `cluster="connected"` these replace the union-find.
    components: Option<HashMap<u32, u32>>,
    state: Option<Clustered>,
}

const NONE: u32 = u32::MAX;

fn skip_reason(s: &str) -> SkipReason {
    if s == SkipReason::EmptyText.as_str() { SkipReason::EmptyText } else { SkipReason::NoTokens }
}

#[pymethods]
impl Components {
    #[new]
    #[pyo3(signature = (n, threshold=0.8, keep=None, cluster=None, **options))]
    fn new(
        n: usize,
        threshold: f64,
        keep: Option<&str>,
        cluster: Option<&str>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Components> {
        if n >= NONE as usize {
            return Err(value_err(format!("{n} documents: at most {} in one run", NONE - 1)));
        }
        let config = ray_config(threshold, keep, cluster, options)?;
        let longest = config.keep == Keep::Longest;
        Ok(Components {
            config,
            head: vec![NONE; n],
            bytes: vec![false; n],
            len: if longest { vec![0; n] } else { Vec::new() },
            skipped: HashMap::new(),
            near: Vec::new(),
            ids: vec![None; n],
            asked: HashMap::new(),
            components: None,
            state: None,
        })
    }

    /// Adds a batch of [`bucket_edges`]' output.
    fn add_edges(&mut self, py: Python<'_>, batch: PyArrowType<RecordBatch>) -> PyResult<()> {
        if self.state.is_some() {
            return Err(value_err("edges added after Components.cluster"));
        }
        let batch = batch.0;
        let kind = column(&batch, "kind")?
            .as_primitive_opt::<UInt8Type>()
            .ok_or_else(|| value_err("kind is not uint8"))?;
        let a = column(&batch, "a")?
            .as_primitive_opt::<Int64Type>()
            .ok_or_else(|| value_err("a is not int64"))?;
        let b = column(&batch, "b")?
            .as_primitive_opt::<Int64Type>()
            .ok_or_else(|| value_err("b is not int64"))?;
        let sim = column(&batch, "similarity")?
            .as_primitive_opt::<Float64Type>()
            .ok_or_else(|| value_err("similarity is not float64"))?;
        let bytes = column(&batch, "bytes")?
            .as_boolean_opt()
            .ok_or_else(|| value_err("bytes is not boolean"))?;
        let len = column(&batch, "len")?
            .as_primitive_opt::<Int64Type>()
            .ok_or_else(|| value_err("len is not int64"))?;
        let reason = column(&batch, "reason")?
            .as_string_opt::<i32>()
            .ok_or_else(|| value_err("reason is not a string"))?;
        let n = self.head.len() as i64;
        py.detach(|| {
            for i in 0..batch.num_rows() {
                let (x, y) = (a.value(i), b.value(i));
                let in_range = |d: i64| (0..n).contains(&d);
                match kind.value(i) {
                    MEMBER if in_range(x) && in_range(y) => {
                        self.head[y as usize] = x as u32;
                        self.bytes[y as usize] = bytes.value(i);
                        if !self.len.is_empty() {
                            self.len[y as usize] = u32::try_from(len.value(i)).unwrap_or(u32::MAX);
                        }
                    }
                    NEAR if in_range(x) && in_range(y) => {
                        self.near.push((x as u32, y as u32, sim.value(i)))
                    }
                    // Candidates reach the clustering through verification, as near edges.
                    CANDIDATE => {}
                    SKIP if in_range(x) => {
                        self.skipped.insert(
                            x as u32,
                            skip_reason(if reason.is_null(i) { "" } else { reason.value(i) }),
                        );
                    }
                    k => {
                        return Err(value_err(format!(
                            "edge {i}: kind {k} with documents {x}, {y} out of 0..{n}"
                        )));
                    }
                }
            }
            Ok(())
        })
    }

    /// Adds the ids of a batch: an int64 index column and a string id column.
    #[pyo3(signature = (batch, id="id", index="__lookalike_index"))]
    fn add_ids(&mut self, batch: PyArrowType<RecordBatch>, id: &str, index: &str) -> PyResult<()> {
        let batch = batch.0;
        let ids = crate::dedup::id_column(&batch, id)?;
        let docs = match batch.column_by_name(index) {
            Some(col) if col.data_type() == &DataType::Int64 => {
                col.as_primitive::<Int64Type>().clone()
            }
            _ => return Err(value_err(format!("no int64 index column {index:?}"))),
        };
        for (i, d) in docs.iter().enumerate() {
            let d = d
                .filter(|&d| (0..self.ids.len() as i64).contains(&d))
                .ok_or_else(|| value_err(format!("row {i}: index out of range")))?;
            let id = ids[i]
                .clone()
                .ok_or_else(|| value_err(format!("document {d}: the id column {id:?} is null")))?;
            self.ids[d as usize] = Some(id);
        }
        Ok(())
    }

    /// Adds connected components computed elsewhere (`lookalike.ray.connected_components` over
    /// the near edges): int64 `node` and `component`, heads both. Only with `cluster="connected"`,
    /// whose clusters they then are (heads without a row are alone).
    fn add_components(&mut self, batch: PyArrowType<RecordBatch>) -> PyResult<()> {
        if self.config.cluster != lookalike::ClusterMode::Connected {
            return Err(value_err("components computed elsewhere need cluster=\"connected\""));
        }
        if self.state.is_some() {
            return Err(value_err("components added after Components.cluster"));
        }
        let batch = batch.0;
        let (node, comp) = (int64s(&batch, "node")?, int64s(&batch, "component")?);
        let n = self.head.len() as i64;
        let map = self.components.get_or_insert_with(HashMap::new);
        for i in 0..batch.num_rows() {
            let (x, c) = (node.value(i), comp.value(i));
            if !(0..n).contains(&x) || !(0..n).contains(&c) {
                return Err(value_err(format!("component row {i}: {x}, {c} out of 0..{n}")));
            }
            map.insert(x as u32, c as u32);
        }
        Ok(())
    }

    /// Clusters the graph (once) and returns the pairs whose similarity the clusters need but no
    /// verified edge gives: `(a, b)` int64 columns, the heads of a member's and of its
    /// representative's exact groups (smaller first). Empty with `center` and `clique`, whose
    /// members all have a verified pair with their representative; the similarities of these
    /// pairs go to [`add_similarities`](Components::add_similarities) before
    /// [`finish`](Components::finish).
    fn cluster(&mut self, py: Python<'_>) -> PyResult<PyArrowType<RecordBatch>> {
        py.detach(|| self.clustered())?;
        let wanted = self.wanted();
        let a = arrow_array::Int64Array::from_iter_values(wanted.iter().map(|p| i64::from(p.0)));
        let b = arrow_array::Int64Array::from_iter_values(wanted.iter().map(|p| i64::from(p.1)));
        let schema = Arc::new(Schema::new(vec![
            Field::new("a", DataType::Int64, false),
            Field::new("b", DataType::Int64, false),
        ]));
        RecordBatch::try_new(schema, vec![Arc::new(a), Arc::new(b)])
            .map(PyArrowType)
            .map_err(arrow_err)
    }

    /// Adds similarities of pairs of heads ([`verify_pairs`] with `all=True` over the pairs
    /// [`cluster`](Components::cluster) asked for): int64 `a`, `b` and float64 `similarity`.
    fn add_similarities(&mut self, batch: PyArrowType<RecordBatch>) -> PyResult<()> {
        let batch = batch.0;
        let (a, b) = (int64s(&batch, "a")?, int64s(&batch, "b")?);
        let sim = column(&batch, "similarity")?
            .as_primitive_opt::<Float64Type>()
            .ok_or_else(|| value_err("similarity is not float64"))?;
        let n = self.head.len() as i64;
        for i in 0..batch.num_rows() {
            let (x, y) = (a.value(i), b.value(i));
            if !(0..n).contains(&x) || !(0..n).contains(&y) {
                return Err(value_err(format!("similarity {i}: documents {x}, {y} out of 0..{n}")));
            }
            self.asked.insert((x.min(y) as u32, x.max(y) as u32), sim.value(i));
        }
        Ok(())
    }

    /// Clusters, lists the pairs and the fates; returns (documents table, pairs table, stats
    /// JSON) as `lookalike.dedup` does.
    fn finish(
        &mut self,
        py: Python<'_>,
    ) -> PyResult<(PyArrowType<Table>, PyArrowType<Table>, String)> {
        let (documents, pairs, stats) = py.detach(|| {
            self.clustered()?;
            self.assemble()
        })?;
        let documents = Table::try_new(vec![documents], documents_schema()).map_err(arrow_err)?;
        let pairs = Table::try_new(vec![pairs], pairs_schema()).map_err(arrow_err)?;
        Ok((PyArrowType(documents), PyArrowType(pairs), stats))
    }
}

/// What [`Components`] knows once it has clustered the graph.
#[derive(Debug)]
struct Clustered {
    ids: Vec<String>,
    /// Slot (exact group) of every document, `NONE` when skipped.
    slot: Vec<u32>,
    /// The head (first document) of every slot.
    heads: Vec<u32>,
    /// Every listed pair, sorted.
    pairs: Vec<ScoredPair>,
    /// Distinct near edges between slots, with their similarities.
    edge_sim: HashMap<(u32, u32), f64>,
    over_bound: u64,
    not_listed: u64,
    /// The clusters of at least two documents (input indices, in input order), ordered by their
    /// first document, and each one's representative.
    groups: Vec<(Vec<u32>, u32)>,
}

impl Components {
    fn text_len(&self, d: u32) -> u64 {
        self.len.get(d as usize).copied().map_or(0, u64::from)
    }

    /// The library's finishing steps (`DedupRun::finish_into`) over the streamed edges, up to the
    /// clusters; kept in `self.state`.
    fn clustered(&mut self) -> PyResult<()> {
        if self.state.is_some() {
            return Ok(());
        }
        let n = self.head.len();
        let ids: Vec<String> = self
            .ids
            .iter()
            .enumerate()
            .map(|(d, id)| id.clone().ok_or_else(|| value_err(format!("document {d} has no id"))))
            .collect::<PyResult<_>>()?;
        for (d, id) in ids.iter().enumerate() {
            if self.head[d] == NONE && !self.skipped.contains_key(&(d as u32)) {
                return Err(value_err(format!(
                    "document {d} ({id}) reached no bucket: an edge batch is missing"
                )));
            }
        }
        // Slots: the heads in input order; each head's exact group in input order.
        let mut slot_of = vec![NONE; n];
        let mut heads: Vec<u32> = Vec::new();
        for (d, slot) in slot_of.iter_mut().enumerate() {
            if self.head[d] == d as u32 {
                *slot = heads.len() as u32;
                heads.push(d as u32);
            }
        }
        let slot: Vec<u32> = (0..n)
            .map(|d| {
                let h = self.head[d];
                if h == NONE { NONE } else { slot_of[h as usize] }
            })
            .collect();
        let mut groups: Vec<Vec<DocId>> = vec![Vec::new(); heads.len()];
        for d in 0..n as u32 {
            let s = slot[d as usize];
            if s != NONE {
                groups[s as usize].push(DocId(d));
            }
        }
        let bytes_of = |d: DocId| self.head[d.index()] == d.0 || self.bytes[d.index()];
        let exact_kind = |a: DocId, b: DocId| {
            if bytes_of(a) && bytes_of(b) { MatchKind::ExactBytes } else { MatchKind::ExactText }
        };
        let bound = self.config.max_pairs_per_group;
        let mut pairs: Vec<ScoredPair> = Vec::new();
        let (mut over_bound, mut not_listed) = (0u64, 0u64);
        for group in groups.iter().filter(|g| g.len() > 1) {
            if let Some(left_out) = list_exact_group(group, bound, exact_kind, &mut pairs) {
                over_bound += 1;
                not_listed += left_out;
            }
        }
        // Near edges between heads (the buckets already gave heads), distinct.
        let mut near: Vec<(u32, u32, f64)> = self
            .near
            .iter()
            .map(|&(a, b, s)| {
                let (sa, sb) = (slot[a as usize], slot[b as usize]);
                (sa.min(sb), sa.max(sb), s)
            })
            .filter(|&(a, b, _)| a != b && a != NONE && b != NONE)
            .collect();
        near.sort_unstable_by_key(|e| (e.0, e.1));
        near.dedup_by_key(|e| (e.0, e.1));
        let mut edge_sim: HashMap<(u32, u32), f64> = HashMap::with_capacity(near.len());
        let mut edges = Vec::with_capacity(near.len());
        for &(sa, sb, sim) in &near {
            edges.push((sa, sb));
            edge_sim.insert((sa, sb), sim);
            let (ga, gb) = (&groups[sa as usize], &groups[sb as usize]);
            let all = ga.len() as u64 * gb.len() as u64;
            let near_pair = |a: DocId, b: DocId| {
                let (a, b) = if a < b { (a, b) } else { (b, a) };
                ScoredPair {
                    a,
                    b,
                    similarity: sim,
                    kind: MatchKind::Near,
                    contained: None,
                    hamming: None,
                }
            };
            if all <= bound {
                for &a in ga {
                    pairs.extend(gb.iter().map(|&b| near_pair(a, b)));
                }
            } else {
                pairs.push(near_pair(ga[0], gb[0]));
                over_bound += 1;
                not_listed += all - 1;
            }
        }
        pairs.sort_unstable_by_key(|p| (p.a, p.b));

        // Clustering: nodes are exact groups, visited in the order `keep` implies.
        let h = heads.len();
        let graph = Graph::new(h, &edges);
        let weight: Vec<u32> = groups.iter().map(|g| g.len() as u32).collect();
        let best: Vec<(u64, Reverse<u32>)> = groups
            .iter()
            .map(|g| {
                g.iter()
                    .map(|&d| (self.text_len(d.0), Reverse(d.0)))
                    .max()
                    .unwrap_or((0, Reverse(0)))
            })
            .collect();
        let mut order: Vec<u32> = (0..h as u32).collect();
        if self.config.keep == Keep::Longest {
            order.sort_unstable_by_key(|&s| Reverse(best[s as usize]));
        }
        let label = match &self.components {
            // Each head joins its component's smallest head: the same partition of the nodes as
            // the union-find of `connected`.
            Some(components) => heads
                .iter()
                .map(|&d| {
                    let root = components.get(&d).copied().unwrap_or(d);
                    match slot.get(root as usize) {
                        Some(&s) if s != NONE => Ok(s),
                        _ => Err(value_err(format!("component {root} of {d} is not a head"))),
                    }
                })
                .collect::<PyResult<Vec<u32>>>()?,
            None => self.config.cluster.cluster(&graph, &order, &weight),
        };
        let k = label.iter().copied().max().map_or(0, |m| m as usize + 1);
        let mut by_label: Vec<Vec<u32>> = vec![Vec::new(); k];
        for d in 0..n as u32 {
            let s = slot[d as usize];
            if s != NONE {
                by_label[label[s as usize] as usize].push(d);
            }
        }
        let mut members_of: Vec<Vec<u32>> = by_label.into_iter().filter(|g| g.len() > 1).collect();
        members_of.sort_unstable_by_key(|g| g[0]);
        let groups = members_of
            .into_iter()
            .map(|group| {
                let rep = match self.config.keep {
                    Keep::First => group[0],
                    Keep::Longest => *group
                        .iter()
                        .max_by_key(|&&m| (self.text_len(m), Reverse(m)))
                        .unwrap_or(&group[0]),
                };
                (group, rep)
            })
            .collect();
        self.state =
            Some(Clustered { ids, slot, heads, pairs, edge_sim, over_bound, not_listed, groups });
        Ok(())
    }

    /// Pairs of heads (smaller first) whose similarity a member needs to its representative and
    /// that no verified edge gives, distinct, sorted.
    fn wanted(&self) -> Vec<(u32, u32)> {
        let Some(st) = &self.state else { return Vec::new() };
        let mut out = Vec::new();
        for (group, rep) in &st.groups {
            let rs = st.slot[*rep as usize];
            for &m in group {
                let ms = st.slot[m as usize];
                if ms != rs && !st.edge_sim.contains_key(&(ms.min(rs), ms.max(rs))) {
                    let (x, y) = (st.heads[ms as usize], st.heads[rs as usize]);
                    out.push((x.min(y), x.max(y)));
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The clusters, fates and stats, from the clustered state and the similarities asked for.
    fn assemble(&self) -> PyResult<(RecordBatch, RecordBatch, String)> {
        let st = self.state.as_ref().ok_or_else(|| value_err("not clustered yet"))?;
        let n = self.head.len();
        let bytes_of = |d: DocId| self.head[d.index()] == d.0 || self.bytes[d.index()];
        let exact_kind = |a: DocId, b: DocId| {
            if bytes_of(a) && bytes_of(b) { MatchKind::ExactBytes } else { MatchKind::ExactText }
        };
        let mut clusters = Vec::with_capacity(st.groups.len());
        for (group, rep) in &st.groups {
            let rep = DocId(*rep);
            let rep_slot = st.slot[rep.index()];
            let mut members = Vec::with_capacity(group.len() - 1);
            for m in group.iter().map(|&m| DocId(m)).filter(|&m| m != rep) {
                let s = st.slot[m.index()];
                let (similarity, kind) = if s == rep_slot {
                    (1.0, exact_kind(rep, m))
                } else {
                    let key = (s.min(rep_slot), s.max(rep_slot));
                    let (hx, hy) = (st.heads[key.0 as usize], st.heads[key.1 as usize]);
                    let sim = st
                        .edge_sim
                        .get(&key)
                        .or_else(|| self.asked.get(&(hx.min(hy), hx.max(hy))))
                        .copied()
                        .ok_or_else(|| {
                            value_err(format!(
                                "{} joined the cluster of {} without a verified pair or a similarity asked for (Components.cluster)",
                                st.ids[m.index()],
                                st.ids[rep.index()]
                            ))
                        })?;
                    (sim, MatchKind::Near)
                };
                members.push(ClusterMember { doc: m, similarity, kind });
            }
            clusters.push(Cluster { representative: rep, members });
        }
        let mut statuses: Vec<DocStatus> = (0..n)
            .map(|d| match self.skipped.get(&(d as u32)) {
                Some(&reason) if self.head[d] == NONE => DocStatus::Skipped { reason },
                _ => DocStatus::Kept,
            })
            .collect();
        let mut duplicates = 0u64;
        for c in &clusters {
            for m in &c.members {
                duplicates += 1;
                statuses[m.doc.index()] = DocStatus::Duplicate {
                    of: c.representative,
                    similarity: m.similarity,
                    kind: m.kind,
                };
            }
        }
        let h = st.heads.len();
        let stats = serde_json::json!({
            "method": format!("{} (lookalike.ray)", self.config.method.kind().name()),
            "config": self.config,
            "stats": {
                "documents": n,
                "skipped": self.skipped.len(),
                "exact_duplicates": n - self.skipped.len() - h,
                "sketched": h,
                "near_pairs": st.edge_sim.len(),
                "pairs": st.pairs.len(),
                "pair_groups_over_bound": st.over_bound,
                "pairs_not_listed": st.not_listed,
                "clusters": clusters.len(),
                "duplicates": duplicates,
                "similarities_asked": self.asked.len(),
            },
        });
        let documents = documents_batch(&st.ids, &statuses, &clusters).map_err(arrow_err)?;
        let pairs = pairs_batch(&st.ids, &st.pairs).map_err(arrow_err)?;
        Ok((documents, pairs, stats.to_string()))
    }
}

/// The steps of the distributed connected components.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StarStep {
    Large,
    Small,
    Label,
}

/// connected_step(batch, step)
/// --
///
/// The per-partition step of the distributed connected components (alternating large-star and
/// small-star rounds, Kiveris et al. 2014), over a block in which every node's edges are
/// together: int64 columns `u` and `v`, each undirected edge present in both orientations, the
/// block repartitioned by `u`. Per node `u` with neighbours `N` (self-loops and repeats ignored)
/// and `m` the smallest of `N` and `u`:
///
/// - `step="large"`: every neighbour `v > u` is linked to `m`;
/// - `step="small"`: every neighbour `v < u`, and `u`, are linked to `m`;
///
/// returning the new edges (`a` < `b`) with `changed` (false for an edge the step kept), so that
/// a round that changes nothing ends the iteration: the graph is then a star per component
/// centred on its smallest node. `step="label"` (after that) returns `node` and `component`
/// (the smallest node of its component) for every node.
#[pyfunction]
pub fn connected_step(
    py: Python<'_>,
    batch: PyArrowType<RecordBatch>,
    step: &str,
) -> PyResult<PyArrowType<RecordBatch>> {
    let step = match step {
        "large" => StarStep::Large,
        "small" => StarStep::Small,
        "label" => StarStep::Label,
        other => {
            return Err(value_err(format!(
                "step {other:?}: expected \"large\", \"small\" or \"label\""
            )));
        }
    };
    let batch = batch.0;
    let (u, v) = (int64s(&batch, "u")?, int64s(&batch, "v")?);
    py.detach(|| {
        let mut rows: Vec<(i64, i64)> = (0..batch.num_rows())
            .map(|i| (u.value(i), v.value(i)))
            .filter(|(x, y)| x != y)
            .collect();
        rows.par_sort_unstable();
        rows.dedup();
        let groups: Vec<&[(i64, i64)]> = rows.chunk_by(|x, y| x.0 == y.0).collect();
        let out: Vec<(i64, i64, bool)> = groups
            .par_iter()
            .flat_map_iter(|group| {
                let u = group[0].0;
                // Neighbours are sorted: the first is the smallest.
                let m = group[0].1.min(u);
                let mut out = Vec::new();
                match step {
                    StarStep::Large => {
                        out.extend(group.iter().filter(|r| r.1 > u).map(|r| (m, r.1, m != u)))
                    }
                    StarStep::Small => {
                        for r in group.iter().filter(|r| r.1 < u) {
                            if r.1 != m {
                                out.push((m, r.1, true));
                            }
                        }
                        if m != u {
                            out.push((m, u, false));
                        }
                    }
                    StarStep::Label => out.push((u, m, false)),
                }
                out
            })
            .collect();
        if step == StarStep::Label {
            let schema = Arc::new(Schema::new(vec![
                Field::new("node", DataType::Int64, false),
                Field::new("component", DataType::Int64, false),
            ]));
            let node = arrow_array::Int64Array::from_iter_values(out.iter().map(|r| r.0));
            let comp = arrow_array::Int64Array::from_iter_values(out.iter().map(|r| r.1));
            return RecordBatch::try_new(schema, vec![Arc::new(node), Arc::new(comp)]);
        }
        let schema = Arc::new(Schema::new(vec![
            Field::new("a", DataType::Int64, false),
            Field::new("b", DataType::Int64, false),
            Field::new("changed", DataType::Boolean, false),
        ]));
        let a = arrow_array::Int64Array::from_iter_values(out.iter().map(|r| r.0));
        let b = arrow_array::Int64Array::from_iter_values(out.iter().map(|r| r.1));
        let changed = arrow_array::BooleanArray::from(out.iter().map(|r| r.2).collect::<Vec<_>>());
        RecordBatch::try_new(schema, vec![Arc::new(a), Arc::new(b), Arc::new(changed)])
    })
    .map(PyArrowType)
    .map_err(arrow_err)
}
