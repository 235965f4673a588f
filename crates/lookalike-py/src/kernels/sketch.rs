//! Ray stage 1: documents as rows keyed for the shuffle. Contract: "give me a batch of texts with
//! their global input indices, I give you an exact row, a bytes row and one row per key, or one
//! skipped row per document; keys only, no shingle set".

use std::sync::{Arc, Mutex};

use arrow_array::builder::{Int32Builder, Int64Builder, UInt64Builder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_pyarrow::PyArrowType;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use lookalike::candidates::lsh::band_key;
use lookalike::fingerprint::{raw_fingerprint, text_fingerprint};
use lookalike::method::{
    DocKeyer, DocView, PartialStatistics, SampleRule, SpotSigs, StatisticsPass,
};
use lookalike::shingles::ShingleScratch;
use lookalike::sketch::supershingles;
use lookalike::text::normalize::NormalizedText;
use lookalike::{DedupConfig, MethodConfig, MinHasher, SkipReason};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;

use super::{TextColumn, keyer_of, ray_config, shingler_of, texts_and_positions};
use crate::errors::{arrow_err, value_err};
use crate::input::Batch;

/// The `band` of an exact row (keyed by the text fingerprint).
pub(super) const EXACT: i32 = -1;
/// The `band` of a skipped row (keyed by the document).
pub(super) const SKIPPED: i32 = -2;
/// The `band` of a document's bytes row: keyed as its exact row (so in the same partition), with
/// its raw-bytes fingerprint in `fp_hi`/`fp_lo` and its text length in `value`.
pub(super) const BYTES: i32 = -3;
/// The `band` of a short part's key (MOD-m: `lookalike::method::SampleParts::short`); a
/// sample's keys are in band 0.
pub(super) const SHORT_BAND: i32 = 1;

/// The rows' schema: 44 bytes a row. What `fp_hi`/`fp_lo` and `value` hold depends on the row's
/// `band`:
///
/// - [`EXACT`] (keyed by the folded text fingerprint): the normalized text's fingerprint, and the
///   document's `sim` (below);
/// - [`BYTES`] (the same key): the raw bytes' fingerprint, and the text length;
/// - [`SKIPPED`] (keyed by the document): zeros, and the reason's `u8` code;
/// - a key (band 0 and up): the text fingerprint, and the document's `sim`; on a SpotSigs key row
///   the spots' multiset size in the high 32 bits and the spot's count in the document in the
///   low 32.
///
/// `sim`: the SimHash fingerprint (SimHash, combined), the sample size (MOD-m, MIN-s, Broder;
/// MOD-m's short part size in the high 32 bits), the multiset size of the spots (SpotSigs), or 0.
/// (The raw fingerprint and the length travel once a document, not on each of its key rows.)
pub(super) fn sketch_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("key", DataType::UInt64, false),
        Field::new("band", DataType::Int32, false),
        Field::new("doc", DataType::Int64, false),
        Field::new("fp_hi", DataType::UInt64, false),
        Field::new("fp_lo", DataType::UInt64, false),
        Field::new("value", DataType::UInt64, false),
    ]))
}

/// What one document becomes.
enum Sketched {
    Skipped(SkipReason),
    /// `counts`: SpotSigs, each key's count in the document (empty for the other methods).
    Doc {
        fp: u128,
        raw: u128,
        len: usize,
        keys: Vec<(i32, u64)>,
        counts: Vec<u32>,
        sim: u64,
    },
}

/// How [`sketch_keys`] keys a document.
enum Keying {
    /// MinHash: one key per LSH band (the band is part of the bucket).
    Bands(MinHasher, lookalike::LshParams),
    /// Super-shingles: the document's distinct super- or mega-shingles (one key space).
    Super(MinHasher, supershingles::SuperShingleConfig),
    /// The methods of [`DocKeyer`]: its keys, by key space, and the SimHash fingerprint.
    Keyed(DocKeyer),
    /// MOD-m, MIN-s, Broder: the document's sampled shingles (one key space); its sample size
    /// in `sim`.
    Sampled(SampleRule),
    /// SpotSigs: the document's distinct spots (one key space), each with its count (`len` of
    /// its row); the multiset size in `sim`.
    Spots(Box<SpotSigs>),
    /// Exact: no keys (the exact rows do the work).
    Exact,
}

impl Keying {
    /// The keying of a checked Ray configuration, for a collection of about `documents`.
    fn of(
        c: &DedupConfig,
        documents: usize,
        statistics: Option<&PartialStatistics>,
    ) -> PyResult<Keying> {
        Ok(match &c.method {
            MethodConfig::MinHash(mh) => Keying::Bands(
                MinHasher::new(mh.num_perm, mh.scheme, c.seed),
                mh.lsh_params(c.threshold),
            ),
            MethodConfig::SuperShingles(s) => {
                Keying::Super(MinHasher::new(s.shape.minhashes, s.scheme, c.seed), s.shape)
            }
            MethodConfig::Exact => Keying::Exact,
            MethodConfig::SpotSigs(_) => Keying::Spots(Box::new(
                SpotSigs::of(c)
                    .map_err(|e| value_err(e.to_string()))?
                    .ok_or_else(|| value_err("not spotsigs"))?,
            )),
            MethodConfig::ModM(_) | MethodConfig::MinS(_) | MethodConfig::Broder(_) => {
                Keying::Sampled(
                    SampleRule::new(c)
                        .map_err(|e| value_err(e.to_string()))?
                        .ok_or_else(|| value_err(format!("{} has no sample", c.method.kind())))?,
                )
            }
            _ => Keying::Keyed(keyer_of(c, documents, statistics)?),
        })
    }

    /// The keys of one document (by key space), each key's count in the document (SpotSigs;
    /// empty for the other methods), and its SimHash fingerprint, sample size or spot multiset
    /// size (0 without one).
    fn keys(
        &self,
        seed: u64,
        view: &DocView<'_>,
        buf: &mut Vec<u8>,
    ) -> (Vec<(i32, u64)>, Vec<u32>, u64) {
        let (keys, sim) = match self {
            Keying::Spots(method) => {
                let spots = method.spots(view);
                let keys = spots.spots().iter().map(|&(h, _)| (0, h)).collect();
                let counts = spots.spots().iter().map(|&(_, n)| n).collect();
                return (keys, counts, spots.len());
            }
            _ => self.unweighted_keys(seed, view, buf),
        };
        (keys, Vec::new(), sim)
    }

    /// The keys and the `sim` value of the methods without per-key counts.
    fn unweighted_keys(
        &self,
        seed: u64,
        view: &DocView<'_>,
        buf: &mut Vec<u8>,
    ) -> (Vec<(i32, u64)>, u64) {
        match self {
            Keying::Bands(hasher, p) => {
                let sig = hasher.sketch(view.shingles);
                let keys = (0..p.bands)
                    .map(|b| {
                        let rows = &sig[b * p.rows..(b + 1) * p.rows];
                        (b as i32, band_key(rows, b, buf))
                    })
                    .collect();
                (keys, 0)
            }
            Keying::Super(hasher, shape) => {
                let sig = hasher.sketch(view.shingles);
                let mut keys = supershingles::document_keys(&sig, shape, seed);
                keys.sort_unstable();
                keys.dedup();
                (keys.into_iter().map(|k| (0, k)).collect(), 0)
            }
            Keying::Keyed(keyer) => {
                let k = keyer.keys(view);
                (k.keys.into_iter().map(|(s, k)| (s as i32, k)).collect(), k.fingerprint)
            }
            Keying::Sampled(rule) => {
                // The sample's keys in band 0, the short part's in band 1 (counted apart); `sim`
                // the two sizes, the short part's in the high half.
                let parts = rule.sample(view);
                let sim = parts.sample.len() as u64 | (parts.short.len() as u64) << 32;
                let sample = parts.sample.into_iter().map(|k| (0, k));
                (sample.chain(parts.short.into_iter().map(|k| (SHORT_BAND, k))).collect(), sim)
            }
            Keying::Spots(_) | Keying::Exact => (Vec::new(), 0),
        }
    }
}

/// sketch_keys(batch, text="text", index="__lookalike_index", threshold=0.8, keep=None, cluster=None, documents=0, statistics=None, **options)
/// --
///
/// Ray kernel 1: a batch of documents (a text column and an int64 global input index) as rows
/// keyed for the shuffle, keys only (see the module documentation). `documents`: the collection
/// size (SimHash's table layout, as the library chooses it). `statistics`: the merged counts of
/// the statistics stage (`statistics_merge`), required by the methods that have one
/// (`needs_statistics`). Runs in parallel, GIL released.
#[pyfunction]
#[pyo3(signature = (batch, text="text", index="__lookalike_index", threshold=0.8, keep=None, cluster=None, documents=0, statistics=None, **options))]
#[allow(clippy::too_many_arguments)]
pub fn sketch_keys(
    py: Python<'_>,
    batch: Batch,
    text: &str,
    index: &str,
    threshold: f64,
    keep: Option<&str>,
    cluster: Option<&str>,
    documents: usize,
    statistics: Option<&[u8]>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyArrowType<RecordBatch>> {
    let c = ray_config(threshold, keep, cluster, options)?;
    let batch = batch.0;
    py.detach(|| {
        let keying = cached_keying(&c, documents, statistics, batch.num_rows())?;
        sketch_with(&c, &keying, &batch, text, index)
    })
    .map(PyArrowType)
}

/// keys_need_count(threshold=0.8, keep=None, cluster=None, **options)
/// --
///
/// Whether [`sketch_keys`] needs the collection's size (`documents`) to key as the library
/// does: SimHash without a fixed block count, whose permuted tables are laid out for the
/// collection's size. The other keyings do not read it, so a job that reads its input as a
/// stream can sketch before it knows how many documents there are.
#[pyfunction]
#[pyo3(signature = (threshold=0.8, keep=None, cluster=None, **options))]
pub fn keys_need_count(
    threshold: f64,
    keep: Option<&str>,
    cluster: Option<&str>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<bool> {
    let c = ray_config(threshold, keep, cluster, options)?;
    Ok(matches!(&c.method, MethodConfig::SimHash(m) if m.blocks.is_none()))
}

/// The last keying built in this process, by a hash of what it was built from: a Ray worker
/// sketches many blocks of one job, and with collection statistics (megabytes of counts) building
/// the keying cost more than sketching a small block (debug build, 4,000 documents' tf-idf
/// statistics: 0.64 s a call for a block of one document).
static KEYING: Mutex<Option<(u128, Arc<Keying>)>> = Mutex::new(None);

/// [`Keying::of`] for `c`, `documents` and the statistics' bytes, from [`KEYING`] when the last
/// call built the same.
fn cached_keying(
    c: &DedupConfig,
    documents: usize,
    statistics: Option<&[u8]>,
    rows: usize,
) -> PyResult<Arc<Keying>> {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(format!("{c:?}").as_bytes());
    h.update(&documents.to_le_bytes());
    if let Some(bytes) = statistics {
        h.update(&[1]);
        h.update(bytes);
    }
    let key = h.digest128();
    check_statistics(c, statistics.is_some(), rows)?;
    let mut cached = KEYING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((k, keying)) = &*cached
        && *k == key
    {
        return Ok(keying.clone());
    }
    let statistics =
        statistics.map(PartialStatistics::from_bytes).transpose().map_err(value_err)?;
    let keying = Arc::new(Keying::of(c, documents, statistics.as_ref())?);
    *cached = Some((key, keying.clone()));
    Ok(keying)
}

/// A method with a statistics pass needs its statistics (to sketch any document).
fn check_statistics(c: &DedupConfig, given: bool, rows: usize) -> PyResult<()> {
    if !given && rows > 0 && StatisticsPass::new(c).is_some() {
        return Err(value_err(format!(
            "{} signs with statistics of the input: sketch_keys needs statistics= (statistics_merge)",
            c.method.kind()
        )));
    }
    Ok(())
}

/// [`sketch_keys`] without Python: the rows of a batch's documents under a checked configuration
/// (with the merged `statistics` when its method has a statistics pass).
pub fn sketch_batch(
    c: &DedupConfig,
    documents: usize,
    statistics: Option<&PartialStatistics>,
    batch: &RecordBatch,
    text: &str,
    index: &str,
) -> PyResult<RecordBatch> {
    check_statistics(c, statistics.is_some(), batch.num_rows())?;
    let keying = Keying::of(c, documents, statistics)?;
    sketch_with(c, &keying, batch, text, index)
}

/// The rows of a batch's documents under `keying`.
fn sketch_with(
    c: &DedupConfig,
    keying: &Keying,
    batch: &RecordBatch,
    text: &str,
    index: &str,
) -> PyResult<RecordBatch> {
    let column = TextColumn::of(batch, text)?;
    let (texts, docs) = texts_and_positions(&column, batch, text, index)?;
    let shingler = shingler_of(c);
    // MinHash and super-shingles take a minimum over each hash: the hashes in text order with
    // repeats give the sketch of the sorted set without its sort, as the library's pipeline
    // gives them to every method (`DocView`). The other keyings get the sorted set.
    let unsorted = matches!(keying, Keying::Bands(..) | Keying::Super(..));
    let sketched: Vec<Sketched> = texts
        .par_iter()
        .map_init(
            || (NormalizedText::default(), ShingleScratch::default(), Vec::new()),
            |(norm, scratch, buf), &t| {
                shingler.normalize_into(t, norm);
                let mut shingles = Vec::new();
                if unsorted {
                    shingler.shingle_hashes_into(norm, scratch, &mut shingles);
                } else {
                    shingler.shingles_into(norm, scratch, &mut shingles);
                }
                if shingles.is_empty() {
                    let reason = if t.trim().is_empty() {
                        SkipReason::EmptyText
                    } else {
                        SkipReason::NoTokens
                    };
                    return Sketched::Skipped(reason);
                }
                let view = DocView { text: t, norm, shingles: &shingles };
                let (keys, counts, sim) = keying.keys(c.seed, &view, buf);
                Sketched::Doc {
                    counts,
                    fp: text_fingerprint(&norm.text),
                    raw: raw_fingerprint(t.as_bytes()),
                    len: t.len(),
                    keys,
                    sim,
                }
            },
        )
        .collect();
    sketch_rows(&docs, &sketched).map_err(arrow_err)
}

/// The rows of sketched documents, in the sketch schema.
fn sketch_rows(
    docs: &[i64],
    sketched: &[Sketched],
) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let mut key = UInt64Builder::new();
    let mut band = Int32Builder::new();
    let mut doc = Int64Builder::new();
    let (mut fp_hi, mut fp_lo, mut value) =
        (UInt64Builder::new(), UInt64Builder::new(), UInt64Builder::new());
    let mut row = |k: u64, b: i32, d: i64, fp: u128, v: u64| {
        key.append_value(k);
        band.append_value(b);
        doc.append_value(d);
        fp_hi.append_value((fp >> 64) as u64);
        fp_lo.append_value(fp as u64);
        value.append_value(v);
    };
    for (&d, s) in docs.iter().zip(sketched) {
        match s {
            Sketched::Skipped(r) => row(d as u64, SKIPPED, d, 0, u64::from(u8::from(*r))),
            Sketched::Doc { fp, raw, len, keys, counts, sim } => {
                let exact = (*fp as u64) ^ ((*fp >> 64) as u64);
                row(exact, EXACT, d, *fp, *sim);
                row(exact, BYTES, d, *raw, *len as u64);
                // SpotSigs: the multiset size beside each spot's count.
                let size = if counts.is_empty() {
                    0
                } else {
                    u32::try_from(*sim).map_err(|_| {
                        arrow_schema::ArrowError::ComputeError(format!(
                            "document {d} has {sim} spots, more than a key row holds (2^32 - 1)"
                        ))
                    })?
                };
                for (i, &(b, k)) in keys.iter().enumerate() {
                    let v = match counts.get(i) {
                        Some(&n) => u64::from(size) << 32 | u64::from(n),
                        None => *sim,
                    };
                    row(k, b, d, *fp, v);
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
        Arc::new(value.finish()),
    ];
    RecordBatch::try_new(sketch_schema(), columns)
}

#[cfg(test)]
mod tests {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int32Type, Int64Type, UInt64Type};
    use lookalike::{Dedup, MethodKind};

    use super::super::testutil::{INDEX, input};
    use super::*;

    fn config(method: MethodKind) -> DedupConfig {
        Dedup::builder().method(method).build().unwrap().config().clone()
    }

    /// (band, key, doc) of every row.
    fn rows(batch: &RecordBatch) -> Vec<(i32, u64, i64)> {
        let band = batch.column_by_name("band").unwrap().as_primitive::<Int32Type>();
        let key = batch.column_by_name("key").unwrap().as_primitive::<UInt64Type>();
        let doc = batch.column_by_name("doc").unwrap().as_primitive::<Int64Type>();
        (0..batch.num_rows()).map(|i| (band.value(i), key.value(i), doc.value(i))).collect()
    }

    #[test]
    fn a_document_is_an_exact_row_a_bytes_row_and_one_row_per_band_or_a_skipped_row() {
        let c = config(MethodKind::MinHash);
        let bands = match &c.method {
            MethodConfig::MinHash(mh) => mh.lsh_params(c.threshold).bands,
            _ => unreachable!(),
        };
        let text = "the quick brown fox jumps over the lazy dog near the river bank".to_owned();
        let texts = vec![text.clone(), "  ".into(), "?!".into(), text.to_uppercase(), text];
        let batch = sketch_batch(&c, 5, None, &input(&texts, 5)[0], "text", INDEX).unwrap();
        let rows = rows(&batch);
        let of = |d: i64| rows.iter().filter(|r| r.2 == d).copied().collect::<Vec<_>>();
        let value = batch.column_by_name("value").unwrap().as_primitive::<UInt64Type>();
        let fp = |row: usize| {
            let hi = batch.column_by_name("fp_hi").unwrap().as_primitive::<UInt64Type>();
            let lo = batch.column_by_name("fp_lo").unwrap().as_primitive::<UInt64Type>();
            u128::from(hi.value(row)) << 64 | u128::from(lo.value(row))
        };
        let row_of = |d: i64, b: i32| rows.iter().position(|r| r.2 == d && r.0 == b).unwrap();
        for d in [0, 3, 4] {
            assert_eq!(of(d).len(), 2 + bands);
            assert_eq!(of(d).iter().filter(|r| r.0 == EXACT).count(), 1);
            assert_eq!(of(d).iter().filter(|r| r.0 == BYTES).count(), 1);
            // The bytes row: the exact row's key, the raw fingerprint, the text's length.
            let (exact, bytes) = (row_of(d, EXACT), row_of(d, BYTES));
            assert_eq!(rows[exact].1, rows[bytes].1);
            assert_eq!(value.value(bytes), texts[d as usize].len() as u64);
            assert_eq!(fp(bytes), raw_fingerprint(texts[d as usize].as_bytes()));
            assert_eq!(value.value(exact), 0, "MinHash has no sim");
            // The same normalized text: the same keys.
            let keys = |d| of(d).iter().map(|r| (r.0, r.1)).collect::<Vec<_>>();
            assert_eq!(keys(d), keys(0));
        }
        // The same normalized text, other bytes: the same exact row, another bytes row.
        assert_eq!(fp(row_of(3, EXACT)), fp(row_of(0, EXACT)));
        assert_ne!(fp(row_of(3, BYTES)), fp(row_of(0, BYTES)));
        assert_eq!(fp(row_of(4, BYTES)), fp(row_of(0, BYTES)));
        for (d, why) in [(1, SkipReason::EmptyText), (2, SkipReason::NoTokens)] {
            assert_eq!(of(d), [(SKIPPED, d as u64, d)]);
            let row = rows.iter().position(|r| r.2 == d).unwrap();
            assert_eq!(SkipReason::try_from(value.value(row) as u8), Ok(why));
        }
    }

    #[test]
    fn exact_gives_only_exact_and_bytes_rows_and_a_null_text_is_refused() {
        let c = config(MethodKind::Exact);
        let texts = vec!["one two three four five six".to_owned(), "seven eight nine ten".into()];
        let batch = sketch_batch(&c, 2, None, &input(&texts, 2)[0], "text", INDEX).unwrap();
        assert!(rows(&batch).iter().all(|r| r.0 == EXACT || r.0 == BYTES));
        assert_eq!(batch.num_rows(), 4);

        let schema = Arc::new(Schema::new(vec![
            Field::new("text", DataType::Utf8, true),
            Field::new(INDEX, DataType::Int64, false),
        ]));
        let columns: Vec<ArrayRef> = vec![
            Arc::new(arrow_array::StringArray::from(vec![None::<&str>])),
            Arc::new(arrow_array::Int64Array::from(vec![0])),
        ];
        let null = RecordBatch::try_new(schema, columns).unwrap();
        assert!(sketch_batch(&c, 1, None, &null, "text", INDEX).is_err());
    }
}

#[cfg(test)]
mod keying_cache {
    use std::sync::Arc;

    use lookalike::{Dedup, MethodKind};

    use super::super::testutil::{Rng, corpus, input, statistics};
    use super::cached_keying;

    /// The cache gives the keying built from the same configuration, size and statistics, and a
    /// new one when any of them differs; the missing-statistics refusal is never skipped.
    #[test]
    fn the_keying_is_reused_only_for_the_same_inputs() {
        let c = Dedup::builder().method(MethodKind::IMatch).build().unwrap().config().clone();
        let mut rng = Rng::new(3);
        let (a, b) = (corpus(&mut rng, 30), corpus(&mut rng, 30));
        let bytes = |texts: &[String]| statistics(&c, &input(texts, 7)).unwrap().to_bytes();
        let (sa, sb) = (bytes(&a), bytes(&b));
        assert_ne!(sa, sb);
        let first = cached_keying(&c, 30, Some(&sa), 5).unwrap();
        assert!(Arc::ptr_eq(&first, &cached_keying(&c, 30, Some(&sa), 5).unwrap()));
        let other = cached_keying(&c, 30, Some(&sb), 5).unwrap();
        assert!(!Arc::ptr_eq(&first, &other));
        assert!(!Arc::ptr_eq(&other, &cached_keying(&c, 31, Some(&sb), 5).unwrap()));
        // Built without statistics for an empty batch, then asked for a batch with documents.
        cached_keying(&c, 30, None, 0).unwrap();
        assert!(cached_keying(&c, 30, None, 5).is_err());
    }
}
