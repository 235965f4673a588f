//! Ray stage 0, for the methods that sign with statistics of the input itself (the library's
//! [`StatisticsPass`]): the collection statistics counted block by block. Contract: "give me a
//! block of texts with their global input indices, I give you the counts of its documents and
//! their text fingerprints; give me every block's fingerprints, I tell you which documents repeat
//! a text counted before; give me the counts and those of the repeats, I give you the counts of
//! the distinct texts", which is what the library counts: its heads, one per distinct normalized
//! text among the documents with shingles.
//!
//! [`statistics_partial`] counts every document of a block that has shingles (one normalization
//! per document, in parallel). [`statistics_repeats`] walks the fingerprints in input order and
//! names every document whose text was counted before (in its block or an earlier one); the same
//! [`statistics_partial`] over those documents gives the counts to take away, which
//! [`statistics_merge`] subtracts (a repeated text has the terms of its first copy). The result,
//! as bytes, goes to every [`super::sketch_keys`] call.

use std::collections::HashSet;
use std::sync::Arc;

use arrow_array::builder::{Int64Builder, UInt64Builder};
use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, UInt64Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_pyarrow::PyArrowType;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use lookalike::DedupConfig;
use lookalike::fingerprint::text_fingerprint;
use lookalike::method::{DocView, PartialStatistics, StatisticsPass};
use lookalike::shingles::ShingleScratch;
use lookalike::text::normalize::NormalizedText;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use rayon::prelude::*;

use super::{TextColumn, column, ray_config, shingler_of, texts_and_positions};
use crate::errors::{arrow_err, value_err};
use crate::input::Batch;

/// The fingerprints of the documents a block counted: `fp_hi`, `fp_lo` (the 128-bit text
/// fingerprint) and `doc` (the global input index).
fn fingerprints_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("fp_hi", DataType::UInt64, false),
        Field::new("fp_lo", DataType::UInt64, false),
        Field::new("doc", DataType::Int64, false),
    ]))
}

/// needs_statistics(threshold=0.8, keep=None, cluster=None, **options)
/// --
///
/// Whether the method signs with statistics of the input itself, counted by the statistics
/// stage (I-Match, I-Match-rand and TF*RIDF without a lexicon file, SimHash and combined with
/// tf-idf weights).
#[pyfunction]
#[pyo3(signature = (threshold=0.8, keep=None, cluster=None, **options))]
pub fn needs_statistics(
    threshold: f64,
    keep: Option<&str>,
    cluster: Option<&str>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<bool> {
    Ok(StatisticsPass::new(&ray_config(threshold, keep, cluster, options)?).is_some())
}

/// statistics_partial(batch, text="text", index="__lookalike_index", threshold=0.8, keep=None, cluster=None, **options)
/// --
///
/// Ray kernel 0: the statistics of a batch's documents that have shingles, each counted (as
/// bytes for `statistics_merge`), and their text fingerprints (`fp_hi`, `fp_lo`, `doc`: for
/// `statistics_repeats`). Runs in parallel, GIL released.
#[pyfunction]
#[pyo3(signature = (batch, text="text", index="__lookalike_index", threshold=0.8, keep=None, cluster=None, **options))]
#[allow(clippy::too_many_arguments)]
pub fn statistics_partial<'py>(
    py: Python<'py>,
    batch: Batch,
    text: &str,
    index: &str,
    threshold: f64,
    keep: Option<&str>,
    cluster: Option<&str>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<(Bound<'py, PyBytes>, PyArrowType<RecordBatch>)> {
    let c = ray_config(threshold, keep, cluster, options)?;
    let batch = batch.0;
    let (partial, fps) = py.detach(|| partial_of(&c, &batch, text, index))?;
    Ok((PyBytes::new(py, &partial.to_bytes()), PyArrowType(fps)))
}

/// [`statistics_partial`] without Python.
pub fn partial_of(
    c: &DedupConfig,
    batch: &RecordBatch,
    text: &str,
    index: &str,
) -> PyResult<(PartialStatistics, RecordBatch)> {
    let pass = StatisticsPass::new(c)
        .ok_or_else(|| value_err(format!("{} has no statistics pass", c.method.kind())))?;
    let column = TextColumn::of(batch, text)?;
    let (texts, docs) = texts_and_positions(&column, batch, text, index)?;
    let shingler = shingler_of(c);
    // Each thread counts its documents; the counts are sums, merged in any order.
    let (partial, fps) = texts
        .par_iter()
        .zip(&docs)
        .fold(
            || {
                let scratch = (NormalizedText::default(), ShingleScratch::default(), Vec::new());
                (PartialStatistics::new(), Vec::new(), scratch)
            },
            |(mut partial, mut fps, (mut norm, mut scratch, mut shingles)), (&t, &d)| {
                shingler.normalize_into(t, &mut norm);
                shingler.shingles_into(&norm, &mut scratch, &mut shingles);
                if !shingles.is_empty() {
                    pass.add(&mut partial, &DocView { text: t, norm: &norm, shingles: &shingles });
                    fps.push((text_fingerprint(&norm.text), d));
                }
                (partial, fps, (norm, scratch, shingles))
            },
        )
        .map(|(partial, fps, _)| (partial, fps))
        .reduce(
            || (PartialStatistics::new(), Vec::new()),
            |(mut a, mut fa), (b, fb)| {
                a.merge(b);
                fa.extend(fb);
                (a, fa)
            },
        );
    let mut fps: Vec<(u128, i64)> = fps;
    fps.sort_unstable_by_key(|&(_, d)| d);
    let (mut hi, mut lo, mut doc) =
        (UInt64Builder::new(), UInt64Builder::new(), Int64Builder::new());
    for (fp, d) in fps {
        hi.append_value((fp >> 64) as u64);
        lo.append_value(fp as u64);
        doc.append_value(d);
    }
    let columns: Vec<ArrayRef> =
        vec![Arc::new(hi.finish()), Arc::new(lo.finish()), Arc::new(doc.finish())];
    let fps = RecordBatch::try_new(fingerprints_schema(), columns).map_err(arrow_err)?;
    Ok((partial, fps))
}

/// statistics_repeats(fingerprints)
/// --
///
/// The documents of each block (a list of `statistics_partial`'s fingerprint batches, in input
/// order) whose text was counted before, in the block or an earlier one: a batch of `doc` per
/// block. Their counts are to be subtracted (`statistics_merge`).
#[pyfunction]
pub fn statistics_repeats(
    py: Python<'_>,
    fingerprints: Vec<Batch>,
) -> PyResult<Vec<PyArrowType<RecordBatch>>> {
    let batches: Vec<RecordBatch> = fingerprints.into_iter().map(|b| b.0).collect();
    let repeats = py.detach(|| repeats_of(&batches))?;
    Ok(repeats.into_iter().map(PyArrowType).collect())
}

/// [`statistics_repeats`] without Python.
pub fn repeats_of(batches: &[RecordBatch]) -> PyResult<Vec<RecordBatch>> {
    let schema = Arc::new(Schema::new(vec![Field::new("doc", DataType::Int64, false)]));
    let mut seen: HashSet<u128> = HashSet::new();
    let u64s = |b: &RecordBatch, name: &str| -> PyResult<Vec<u64>> {
        let col = column(b, name)?;
        match col.as_primitive_opt::<UInt64Type>() {
            Some(a) if a.null_count() == 0 => Ok(a.values().to_vec()),
            _ => Err(value_err(format!("{name} is not a non-null uint64 column"))),
        }
    };
    let mut out = Vec::with_capacity(batches.len());
    for b in batches {
        let (hi, lo) = (u64s(b, "fp_hi")?, u64s(b, "fp_lo")?);
        let docs = column(b, "doc")?
            .as_primitive_opt::<Int64Type>()
            .ok_or_else(|| value_err("doc is not int64"))?;
        let mut repeats = Int64Builder::new();
        for i in 0..b.num_rows() {
            if !seen.insert((u128::from(hi[i]) << 64) | u128::from(lo[i])) {
                repeats.append_value(docs.value(i));
            }
        }
        let columns: Vec<ArrayRef> = vec![Arc::new(repeats.finish())];
        out.push(RecordBatch::try_new(schema.clone(), columns).map_err(arrow_err)?);
    }
    Ok(out)
}

/// statistics_merge(partials, repeats)
/// --
///
/// The statistics of the collection: the counts of every block (`statistics_partial`'s bytes)
/// merged, minus those of the repeated documents (`statistics_partial` over the documents
/// `statistics_repeats` named), as bytes for `sketch_keys(statistics=...)`.
#[pyfunction]
pub fn statistics_merge<'py>(
    py: Python<'py>,
    partials: Vec<Vec<u8>>,
    repeats: Vec<Vec<u8>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let merged = py.detach(|| merge_of(&partials, &repeats))?;
    Ok(PyBytes::new(py, &merged.to_bytes()))
}

/// [`statistics_merge`] without Python.
pub fn merge_of(partials: &[Vec<u8>], repeats: &[Vec<u8>]) -> PyResult<PartialStatistics> {
    let mut merged = PartialStatistics::new();
    for p in partials {
        merged.merge(PartialStatistics::from_bytes(p).map_err(value_err)?);
    }
    for r in repeats {
        merged.subtract(&PartialStatistics::from_bytes(r).map_err(value_err)?);
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use lookalike::method::StatisticsPass;
    use lookalike::{Dedup, MethodKind};

    use super::super::testutil::{INDEX, Rng, corpus, input};
    use super::*;

    /// Counted block by block with repeats subtracted, the statistics (term counts; reference
    /// words' relative frequencies) equal those of the distinct texts with shingles counted once
    /// (the library's heads), whatever the blocks.
    #[test]
    fn block_counts_minus_repeats_are_the_counts_of_the_distinct_texts() {
        for kind in [MethodKind::IMatch, MethodKind::RefWords] {
            block_counts_of(kind);
        }
    }

    fn block_counts_of(kind: MethodKind) {
        let c = Dedup::builder().method(kind).build().unwrap().config().clone();
        let mut rng = Rng::new(3);
        let texts = corpus(&mut rng, 120);
        let shingler = shingler_of(&c);
        // The heads, counted directly.
        let pass = StatisticsPass::new(&c).unwrap();
        let mut want = PartialStatistics::new();
        let mut seen = HashSet::new();
        let (mut norm, mut scratch) = (NormalizedText::default(), ShingleScratch::default());
        for t in &texts {
            shingler.normalize_into(t, &mut norm);
            let mut shingles = Vec::new();
            shingler.shingles_into(&norm, &mut scratch, &mut shingles);
            if !shingles.is_empty() && seen.insert(text_fingerprint(&norm.text)) {
                pass.add(&mut want, &DocView { text: t, norm: &norm, shingles: &shingles });
            }
        }
        assert!(want.docs() < texts.len() as u64 - 10, "the corpus repeats texts");
        for chunk in [1, 7, 120] {
            let blocks = input(&texts, chunk);
            let (partials, fps): (Vec<_>, Vec<_>) =
                blocks.iter().map(|b| partial_of(&c, b, "text", INDEX).unwrap()).unzip();
            let repeats = repeats_of(&fps).unwrap();
            let corrections: Vec<Vec<u8>> = blocks
                .iter()
                .zip(&repeats)
                .map(|(b, r)| {
                    let docs = r.column(0).as_primitive::<Int64Type>().values().to_vec();
                    let idx = b.column_by_name(INDEX).unwrap().as_primitive::<Int64Type>();
                    let keep: arrow_array::BooleanArray =
                        idx.values().iter().map(|d| Some(docs.contains(d))).collect();
                    let only = arrow_select::filter::filter_record_batch(b, &keep).unwrap();
                    partial_of(&c, &only, "text", INDEX).unwrap().0.to_bytes()
                })
                .collect();
            let partials: Vec<Vec<u8>> = partials.iter().map(PartialStatistics::to_bytes).collect();
            let got = merge_of(&partials, &corrections).unwrap();
            assert_eq!(got.to_bytes(), want.to_bytes(), "{kind:?}, blocks of {chunk}");
        }
    }
}
