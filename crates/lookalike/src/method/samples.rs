//! What MOD-m, MIN-s and Broder's algorithm share: a sorted sample of each head's shingle hashes,
//! and candidates from Broder's sort of ⟨sampled shingle, document⟩ records.

use super::minhash::verify_short;
use super::{CandidateReport, Context, DocView, Head, MethodStats, Slot, flat_slice};
use crate::candidates::sorted_pairs::{self, BroderConfig};
use crate::config::{Sample, SampleConfig};
use crate::error::{ConfigError, Error};
use crate::sketch::sample::{MinSketch, ModSketch};
use crate::verify::intersection_size;

/// The samples of every head, one after the other.
#[derive(Debug)]
pub(super) struct Samples {
    pub config: SampleConfig,
    pub sample: Sample,
    pub cx: Context,
    values: Vec<u64>,
    ends: Vec<usize>,
}

impl Samples {
    /// Validates L; `sample` is the effective sample.
    pub fn new(config: SampleConfig, sample: Sample, cx: Context) -> Result<Samples, Error> {
        if config.max_docs_per_shingle < 2 {
            return Err(ConfigError::MaxDocsPerShingle.into());
        }
        Ok(Samples { config, sample, cx, values: Vec::new(), ends: Vec::new() })
    }

    /// One document's sample.
    pub fn doc(&self, doc: &DocView<'_>) -> Vec<u64> {
        match self.sample {
            Sample::Mod(m) => ModSketch::new(m, self.cx.seed).sketch(doc.shingles),
            Sample::Min(s) => MinSketch::new(s, self.cx.seed).sketch(doc.shingles),
        }
    }

    pub fn push_heads(&mut self, heads: Vec<Head<'_, Vec<u64>>>) {
        for head in heads {
            self.values.extend_from_slice(&head.doc);
            self.ends.push(self.values.len());
        }
    }

    pub fn of(&self, slot: Slot) -> &[u64] {
        flat_slice(&self.values, &self.ends, slot)
    }

    /// Pairs sharing a sampled shingle, by Broder's sort, with its counters.
    pub fn candidates(&self, emit: &mut dyn FnMut(Slot, Slot)) -> Result<CandidateReport, Error> {
        let slots = self.ends.len() as u32;
        let empty_samples = (0..slots).filter(|&s| self.of(Slot(s)).is_empty()).count() as u64;
        let config = BroderConfig {
            memory_bytes: self.cx.memory,
            max_docs_per_shingle: self.config.max_docs_per_shingle,
            threshold: self.threshold(),
            tmp_dir: self.cx.spill_dir.clone(),
        };
        let sketches = (0..slots).map(|s| (s, self.of(Slot(s))));
        let stats = sorted_pairs::collect(sketches, &config, |p| {
            emit(Slot(p.a), Slot(p.b));
            true
        })?;
        Ok(CandidateReport {
            method: MethodStats { broder: Some(stats), empty_samples, ..MethodStats::default() },
            ..CandidateReport::default()
        })
    }

    /// |X ∩ Y| / min(|X|, |Y|) of two heads' samples (0 when one is empty): containment of the
    /// smaller sample, which is also Broder's homework estimate (shared sketch elements over the
    /// sketch size).
    pub fn shared_over_smaller(&self, a: Slot, b: Slot) -> f64 {
        let (x, y) = (self.of(a), self.of(b));
        let smaller = x.len().min(y.len());
        if smaller == 0 { 0.0 } else { intersection_size(x, y) as f64 / smaller as f64 }
    }

    /// The threshold on Broder's `shared / min(sizes)` below which a pair cannot be a candidate.
    ///
    /// With `estimate` verification the method's own decision follows, so nothing below the
    /// threshold is needed when the estimate is the same quantity (containment, Broder's count
    /// over the sketch size). Otherwise `shared / min` is an upper bound of the resemblance
    /// estimators and of the true resemblance's estimate, and the bound is lowered by three
    /// standard deviations of a sample of the expected size so that exact verification sees the
    /// pairs the sample under-estimates.
    fn threshold(&self) -> f64 {
        let t = self.cx.threshold;
        let s = match self.sample {
            Sample::Min(s) => s as f64,
            // A MOD-m sample of a typical document (a few hundred shingles) has tens of elements;
            // 32 is a deliberately small size, so the margin is generous.
            Sample::Mod(_) => 32.0,
        };
        let margin = 3.0 * (t * (1.0 - t) / s).sqrt();
        (t - margin).max(0.0)
    }

    /// "method NAME: words:5 shingles, sample min:128, L = 100 documents per shingle, ...".
    pub fn describe(&self, name: &str) -> String {
        format!(
            "method {name}: {} shingles, sample {}, L = {} documents per shingle, {}, {}",
            self.cx.shingle,
            self.sample,
            self.config.max_docs_per_shingle,
            self.cx.measure_text(),
            verify_short(&self.cx)
        )
    }
}

/// The progress message of the sampling methods.
pub(super) const PHASE: &str = "finding candidates (Broder's sort of shared samples)";
