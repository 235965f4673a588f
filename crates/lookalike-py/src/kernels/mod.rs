//! The Rust kernels of `lookalike.ray.dedup`, engine-neutral functions over Arrow batches, one
//! module per Ray stage:
//!
//! 0. [`statistics`] — for the methods that sign with statistics of the input itself (a
//!    [`StatisticsPass`]: I-Match, I-Match-rand and TF*RIDF without a lexicon file, SimHash and
//!    combined with tf-idf weights): [`statistics_partial`] counts a block's distinct texts
//!    (mergeable [`PartialStatistics`] and their text fingerprints), [`statistics_repeats`]
//!    finds the texts a block shares with an earlier one, whose counts (the same kernel over
//!    those documents) [`statistics_merge`] subtracts while merging: each distinct text counted
//!    once, as the library counts its heads. The merged counts go to [`sketch_keys`].
//! 1. [`sketch`] — [`sketch_keys`] (a `map_batches` task): each document of a batch, with its
//!    global input index, becomes *keys only*: one *exact* row keyed by its normalized-text
//!    fingerprint and one *bytes* row under the same key (its raw fingerprint and length, which
//!    travel once a document), one *band* row per key of the method (band, key, document, text
//!    fingerprint, and a value: the SimHash fingerprint, or a spot's count), or one *skipped*
//!    row with the reason (its `u8` code). 44 bytes a row (`sketch::sketch_schema`); no shingle
//!    set travels with the rows.
//! 2. The rows are partitioned by `key` (all rows of one key meet in one block): by plain Ray
//!    tasks that split each block by key hash, or by Ray Data's hash repartition for large inputs
//!    (`ray.py`'s size bounds).
//! 3. [`buckets`] — [`bucket_edges`] (a `map_batches` task per block): an exact bucket gives
//!    every document its exact group's head (the first document with that text) and its length;
//!    a band bucket gives the *candidate* pairs between the heads of its distinct texts, listed
//!    as the library lists a group ([`lookalike::candidates::lsh::group_pairs`]).
//!    MOD-m, MIN-s and Broder (the library's [`SampleRule`]): the keys are each head's sampled
//!    shingles; a bucket of at most L heads gives each pair of them one *shared* sample (summed
//!    per pair in the block), a larger one counts as *frequent* for its heads and keeps its
//!    *list* of heads; each exact bucket gives its head's *sample* size. [`sampled_split`] cuts
//!    each block's rows into the head rows and, per counting partition, the rows of its pairs
//!    (by first head) and of its frequent shingles (by key); a task per partition gathers the
//!    head rows of every block and its own rows ([`sampled_candidates`]) and applies the
//!    library's rule: together, the candidates of its Broder sort, with its frequent-shingle
//!    groups. MOD-m's short documents also key
//!    their short part ([`lookalike::method::SampleParts`]) in band 1: its buckets give the
//!    `*_SHORT` kinds of rows, counted apart from the samples' as the library's second sort
//!    counts them. SpotSigs likewise: the keys are each
//!    head's spots with their counts, a bucket gives each pair of its heads the smaller count,
//!    and [`sampled_candidates`] keeps the pairs whose summed Σmin gives a weighted Jaccard at
//!    or above the threshold (the pairs of the library's spot index, found exactly).
//! 4. [`verify`] — exact verification joins the candidates with the texts, partitioned by
//!    document: each candidate pair goes to the verification partition `dest` of its first
//!    document ([`candidate_pairs`]); each text goes, once, to every partition that holds a pair
//!    of it ([`route_texts`], after a repartition by document); [`verify_pairs`] (after a
//!    repartition by `dest`) recomputes the shingle sets of the texts it received and keeps the
//!    pairs whose exact Jaccard (or containment: the library's
//!    [`lookalike::pipeline::exact_similarity`], its direction in the near edge's `reason`
//!    code) reaches the threshold; with estimate verification the method's own estimate of
//!    each pair from its two texts, kept when the method accepts it
//!    ([`lookalike::method::estimate_pairs`]). Below `ray.py`'s bound on requested texts,
//!    one task gets every requested text and verifies every pair instead (the same functions).
//! 5. [`components`] — [`Components`] (on the driver, or one task for many edges): the streamed
//!    edges clustered by the library's own last steps ([`lookalike::pipeline::tail`]: the same
//!    exact groups, pair listing, visiting order, cluster modes, representatives and fates as
//!    [`lookalike::DedupRun`]).
//!    Cluster modes that put a member with a representative it has no verified pair with
//!    (`connected`, `center-refine`) ask for those similarities (`Components.cluster`), which
//!    the same verification join computes, before `Components.finish`.
//!
//! [`connected`] — [`connected_step`] is the per-partition step of the distributed connected
//! components (alternating large-star and small-star rounds over an edge list partitioned by
//! node), the fallback for graphs whose edges do not fit the one clustering task.
//!
//! The result equals `lookalike dedup --method M` on the same documents in the same order,
//! whatever the partitioning: candidates are the pairs sharing a key (MinHash's LSH band keys,
//! super- or mega-shingles, or the keys of [`DocKeyer`], SimHash and combined keeping the pairs
//! within Hamming distance k; every group listed as the library lists it), verification is exact
//! Jaccard (or containment) of the library's shingle sets, clustering runs the library's steps.
//!
//! Each stage is a function over a [`RecordBatch`] without Python (tested here against the
//! library's [`lookalike::DedupRun`]); the `#[pyfunction]`s parse the settings, release the GIL
//! and call it.

pub mod buckets;
pub mod components;
pub mod connected;
pub mod sketch;
pub mod statistics;
pub mod verify;

#[cfg(test)]
pub(crate) mod testutil;

pub use buckets::{bucket_edges, is_sampled, sampled_candidates, sampled_split};
pub use components::Components;
pub use connected::connected_step;
pub use sketch::{keys_need_count, sketch_keys};
pub use statistics::{needs_statistics, statistics_merge, statistics_partial, statistics_repeats};
pub use verify::{
    candidate_pairs, pair_dest, payloads_for_requests, route_payloads, route_texts,
    texts_for_requests, verify_pairs,
};

use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, Float64Builder, Int64Builder, UInt8Builder};
use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use lookalike::method::{
    DocKeyer, KeyerError, PartialStatistics, SampleRule, SpotSigs, StatisticsPass,
};
use lookalike::{Contained, DedupConfig, MethodConfig};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::config;
use crate::errors::value_err;

/// Edge kinds of [`bucket_edges`]' and [`verify_pairs`]' output: a verified pair of heads.
const NEAR: u8 = 0;
/// An exact-group membership (`a` the head, `b` the document).
const MEMBER: u8 = 1;
/// A skipped document (`a`), with the code of its reason (`u8::from(lookalike::SkipReason)`).
const SKIP: u8 = 2;
/// A candidate pair of heads, not yet verified.
const CANDIDATE: u8 = 3;
/// Sampled methods (MOD-m, MIN-s, Broder): two heads sharing `len` non-frequent sampled
/// shingles of one partition (summed over the partitions by [`sampled_candidates`]).
const SHARED: u8 = 4;
/// Sampled methods: a head (`a`) and its sample size (`len`; MOD-m's short part size in the high
/// 32 bits), from its exact bucket.
const SAMPLE: u8 = 5;
/// Sampled methods: a head (`a`) and how many frequent sampled shingles of one partition it
/// has (`len`).
const FREQUENT: u8 = 6;
/// Sampled methods: a head (`b`) of the frequent sampled shingle `a` (the shingle's list).
const LIST: u8 = 7;
/// [`SHARED`] of the short parts (MOD-m: `lookalike::method::SampleParts::short`).
const SHARED_SHORT: u8 = 8;
/// [`FREQUENT`] of the short parts.
const FREQUENT_SHORT: u8 = 9;
/// [`LIST`] of the short parts.
const LIST_SHORT: u8 = 10;

/// The configuration of a Ray run, checked: a method with per-document keys (MinHash,
/// super-shingles, exact, or one of [`DocKeyer`]'s) or counted ones (the sampled methods,
/// SpotSigs), Jaccard or containment, exact or estimate verification.
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
    check_ray_config(&c)?;
    Ok(c)
}

/// Whether the Ray job can run a configuration (see [`ray_config`]).
pub fn check_ray_config(c: &DedupConfig) -> PyResult<()> {
    let sampled = SampleRule::new(c).map_err(|e| value_err(e.to_string()))?.is_some()
        || SpotSigs::of(c).map_err(|e| value_err(e.to_string()))?.is_some();
    if !sampled
        && !matches!(
            c.method,
            MethodConfig::MinHash(_) | MethodConfig::SuperShingles(_) | MethodConfig::Exact
        )
    {
        // The other methods run when their candidates come from keys each document has alone.
        keyer_of(c, 2, None)?;
    }
    if matches!(c.method, MethodConfig::RefWords(_)) && c.verify == lookalike::Verify::Estimate {
        return Err(value_err(
            "lookalike.ray.dedup cannot run refwords with verify=\"estimate\": its estimate (1 - Hamming distance / words) needs the words chosen over the whole collection, which the verification of a pair from its two texts does not have (use verify=\"exact\", or lookalike.dedup)",
        ));
    }

    Ok(())
}

/// The code of a containment's direction on a near edge (its `reason` column): 0 the earlier
/// document in the later one, 1 the other way.
fn contained_code(c: Contained) -> u8 {
    match c {
        Contained::AInB => 0,
        Contained::BInA => 1,
    }
}

/// The direction of a near edge's containment from its `reason` code (none for Jaccard).
fn contained_of(code: Option<u8>) -> PyResult<Option<Contained>> {
    match code {
        None => Ok(None),
        Some(0) => Ok(Some(Contained::AInB)),
        Some(1) => Ok(Some(Contained::BInA)),
        Some(x) => Err(value_err(format!("unknown containment code {x}"))),
    }
}

/// The per-document keyer of a method other than MinHash, super-shingles and exact, for about
/// `documents` documents; a `ValueError` naming the reason for a method that has none. A method
/// with a [`StatisticsPass`] is keyed with `statistics` (the merged counts of the statistics
/// stage); without them (the stages that key no document: buckets, settings checks) with empty
/// ones, which give its settings and candidate rule but not its keys.
fn keyer_of(
    c: &DedupConfig,
    documents: usize,
    statistics: Option<&PartialStatistics>,
) -> PyResult<DocKeyer> {
    let keyer = if StatisticsPass::new(c).is_some() {
        let empty = PartialStatistics::new();
        DocKeyer::with_statistics(c, documents, statistics.unwrap_or(&empty))
    } else {
        DocKeyer::new(c, documents)
    };
    keyer.map_err(|e| match e {
        KeyerError::Config(e) => value_err(e.to_string()),
        KeyerError::NoDocumentKeys(why) => value_err(format!(
            "lookalike.ray.dedup cannot run {}: {why} (use lookalike.dedup)",
            c.method.kind().name()
        )),
    })
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

/// A batch's text column, read in place: string slices into the batch's own buffers (a
/// dictionary column is cast to strings first), where [`crate::dedup::string_column`] copies
/// every text.
struct TextColumn {
    array: ArrayRef,
}

impl TextColumn {
    /// Column `name` of `batch`; the errors of [`crate::dedup::string_column`] for a missing
    /// column or one of another type.
    fn of(batch: &RecordBatch, name: &str) -> PyResult<TextColumn> {
        let array = match batch.column_by_name(name).map(|c| (c, c.data_type())) {
            Some((col, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)) => col.clone(),
            Some((col, DataType::Dictionary(_, value)))
                if matches!(**value, DataType::Utf8 | DataType::LargeUtf8) =>
            {
                crate::dedup::arrow_cast_to_utf8(col.as_ref())?
            }
            _ => {
                // Missing, or not strings: string_column's error (on no rows: nothing copied).
                crate::dedup::string_column(&batch.slice(0, 0), name, "text")?;
                return Err(value_err(format!("the text column {name:?} does not hold strings")));
            }
        };
        match array.data_type() {
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => Ok(TextColumn { array }),
            other => Err(value_err(format!("the text column {name:?} holds {other}, not strings"))),
        }
    }

    /// The texts, none for a null.
    fn strs(&self) -> Vec<Option<&str>> {
        match self.array.data_type() {
            DataType::Utf8 => self.array.as_string::<i32>().iter().collect(),
            DataType::LargeUtf8 => self.array.as_string::<i64>().iter().collect(),
            _ => self.array.as_string_view().iter().collect(),
        }
    }
}

/// The texts of a batch (column `text`, none null, read in place) with their documents'
/// positions (column `index`).
fn texts_and_positions<'a>(
    column: &'a TextColumn,
    batch: &RecordBatch,
    text: &str,
    index: &str,
) -> PyResult<(Vec<&'a str>, Vec<i64>)> {
    let docs = index_column(batch, index)?;
    let texts = column.strs();
    let mut out = Vec::with_capacity(texts.len());
    for (t, d) in texts.into_iter().zip(&docs) {
        match t {
            Some(t) => out.push(t),
            None => {
                return Err(value_err(format!("document {d}: the text column {text:?} is null")));
            }
        }
    }
    Ok((out, docs))
}

fn column<'a>(batch: &'a RecordBatch, name: &str) -> PyResult<&'a ArrayRef> {
    batch
        .column_by_name(name)
        .ok_or_else(|| value_err(format!("not a lookalike band batch: no column {name:?}")))
}

fn int64s<'a>(batch: &'a RecordBatch, name: &str) -> PyResult<&'a arrow_array::Int64Array> {
    column(batch, name)?
        .as_primitive_opt::<Int64Type>()
        .ok_or_else(|| value_err(format!("{name} is not int64")))
}

fn edges_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("kind", DataType::UInt8, false),
        Field::new("a", DataType::Int64, false),
        Field::new("b", DataType::Int64, false),
        Field::new("similarity", DataType::Float64, false),
        Field::new("bytes", DataType::Boolean, false),
        Field::new("len", DataType::Int64, false),
        Field::new("reason", DataType::UInt8, true),
    ]))
}

/// An output edge.
#[derive(Debug, Clone, PartialEq)]
struct Edge {
    kind: u8,
    a: i64,
    b: i64,
    similarity: f64,
    bytes: bool,
    len: i64,
    /// The code of a skipped document's [`lookalike::SkipReason`].
    reason: Option<u8>,
}

impl Edge {
    /// An edge of `kind` between `a` and `b`, the other columns empty.
    fn between(kind: u8, a: i64, b: i64) -> Edge {
        Edge { kind, a, b, similarity: 0.0, bytes: false, len: 0, reason: None }
    }
}

/// Edges as a batch of the edges schema.
fn edges_batch(edges: &[Edge]) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let mut kind = UInt8Builder::new();
    let mut a = Int64Builder::new();
    let mut b = Int64Builder::new();
    let mut similarity = Float64Builder::new();
    let mut bytes = BooleanBuilder::new();
    let mut len = Int64Builder::new();
    let mut reason = UInt8Builder::new();
    for e in edges {
        kind.append_value(e.kind);
        a.append_value(e.a);
        b.append_value(e.b);
        similarity.append_value(e.similarity);
        bytes.append_value(e.bytes);
        len.append_value(e.len);
        reason.append_option(e.reason);
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
