//! What MOD-m, MIN-s and Broder's algorithm share: a sorted sample of each head's shingle hashes,
//! candidates from Broder's sort of ⟨sampled shingle, document⟩ records, and one [`Method`]
//! implementation, [`Sampled`], that each of them completes with its own [`Estimator`].

use std::fmt;
use std::sync::Arc;

use super::minhash::verify_short;
use super::options::{MethodOption, OptionValues, Value};
use super::{CandidateReport, Context, DocView, Head, Method, MethodStats, Slot, flat_slice};
use crate::candidates::sorted_pairs::{self, BroderConfig, FrequentShingles};
use crate::config::{Sample, SampleConfig};
use crate::error::{ConfigError, Error};
use crate::sketch::sample::{MinSketch, ModSketch};
use crate::verify::intersection_size;

/// Smallest hashes kept for a document too short for a MOD-m sample
/// ([`ModSketch::sketch_or_smallest`]).
pub const SHORT_SAMPLE: usize = 4;

/// What makes a sampling method: its name and its estimate from two samples.
pub trait Estimator: fmt::Debug + Send + Sync {
    /// The method's name.
    const NAME: &'static str;

    /// The similarity estimate of two heads from their samples.
    fn estimate(&self, samples: &Samples, a: Slot, b: Slot) -> f64;

    /// Whether the candidates reach pairs of low resemblance (containment needs MOD-m samples).
    fn reaches_containment(&self, samples: &Samples) -> bool {
        let _ = samples;
        false
    }
}

/// The samples of every head, one after the other, with the run's settings.
#[derive(Debug)]
pub struct Samples {
    config: SampleConfig,
    sample: Sample,
    cx: Context,
    values: Vec<u64>,
    ends: Vec<usize>,
}

impl Samples {
    /// Validates L; `sample` is the effective sample.
    pub(super) fn new(config: SampleConfig, sample: Sample, cx: Context) -> Result<Samples, Error> {
        if config.max_docs_per_shingle < 2 {
            return Err(ConfigError::MaxDocsPerShingle.into());
        }
        Ok(Samples { config, sample, cx, values: Vec::new(), ends: Vec::new() })
    }

    /// The sample in use.
    pub fn sample(&self) -> Sample {
        self.sample
    }

    /// The run's settings.
    pub fn context(&self) -> &Context {
        &self.cx
    }

    /// A head's sample.
    pub fn of(&self, slot: Slot) -> &[u64] {
        flat_slice(&self.values, &self.ends, slot)
    }

    /// |X ∩ Y| / min(|X|, |Y|) of two heads' samples (0 when one is empty): containment of the
    /// smaller sample, which is also the estimate of the `broder` method (shared sketch elements
    /// over the sketch size).
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
}

/// A sampling method: [`Samples`] and the method's [`Estimator`].
#[derive(Debug)]
pub struct Sampled<E> {
    samples: Samples,
    estimator: E,
}

impl<E: Estimator> Sampled<E> {
    pub(super) fn with(samples: Samples, estimator: E) -> Self {
        Sampled { samples, estimator }
    }
}

impl<E: Estimator> Method for Sampled<E> {
    type Doc = Vec<u64>;

    fn doc(&self, doc: &DocView<'_>) -> Vec<u64> {
        let seed = self.samples.cx.seed;
        match self.samples.sample {
            Sample::Mod(m) => {
                ModSketch::new(m, seed).sketch_or_smallest(doc.shingles, SHORT_SAMPLE)
            }
            Sample::Min(s) => MinSketch::new(s, seed).sketch(doc.shingles),
        }
    }

    fn push_heads(&mut self, heads: Vec<Head<'_, Vec<u64>>>) {
        let s = &mut self.samples;
        for head in heads {
            s.values.extend_from_slice(&head.doc);
            s.ends.push(s.values.len());
        }
    }

    /// Pairs sharing a sampled shingle, by Broder's sort, with its counters.
    fn candidates(&self, emit: &mut dyn FnMut(Slot, Slot)) -> Result<CandidateReport, Error> {
        let s = &self.samples;
        let slots = s.ends.len() as u32;
        let empty_samples = (0..slots).filter(|&i| s.of(Slot(i)).is_empty()).count() as u64;
        let short_samples = match s.sample {
            Sample::Mod(m) => {
                let sketch = ModSketch::new(m, s.cx.seed);
                (0..slots).filter(|&i| sketch.is_smallest(s.of(Slot(i)))).count() as u64
            }
            Sample::Min(_) => 0,
        };
        let config = BroderConfig {
            memory_bytes: s.cx.memory,
            max_docs_per_shingle: s.config.max_docs_per_shingle,
            frequent: s.config.frequent,
            threshold: s.threshold(),
            tmp_dir: s.cx.spill_dir.clone(),
            max_pairs_per_group: Some(s.cx.max_pairs_per_group),
        };
        let sketches = (0..slots).map(|i| (i, s.of(Slot(i))));
        let stats = sorted_pairs::collect(sketches, &config, |p| {
            emit(Slot(p.a), Slot(p.b));
            true
        })?;
        Ok(CandidateReport {
            method: MethodStats {
                broder: Some(stats),
                empty_samples,
                short_samples,
                ..MethodStats::default()
            },
            ..CandidateReport::default()
        })
    }

    fn estimate(&self, a: Slot, b: Slot) -> f64 {
        self.estimator.estimate(&self.samples, a, b)
    }

    fn accepts(&self, estimate: f64) -> bool {
        estimate >= self.samples.cx.threshold
    }

    /// "method NAME: words:5 shingles, sample min:128, L = 100 documents per shingle, ...".
    fn describe(&self) -> String {
        let s = &self.samples;
        format!(
            "method {}: {} shingles, sample {}, L = {} documents per shingle ({}), {}, {}",
            E::NAME,
            s.cx.shingle,
            s.sample,
            s.config.max_docs_per_shingle,
            match s.config.frequent {
                FrequentShingles::Discount => "frequent shingles discounted",
                FrequentShingles::Skip => "frequent shingles skipped",
            },
            s.cx.measure_text(),
            verify_short(&s.cx)
        )
    }

    fn phase(&self) -> &'static str {
        "finding candidates (Broder's sort of shared samples)"
    }

    fn sample_len(&self, slot: Slot) -> usize {
        self.samples.of(slot).len()
    }

    fn reaches_containment(&self) -> bool {
        self.estimator.reaches_containment(&self.samples)
    }

    fn sample(&self) -> Option<Sample> {
        Some(self.samples.sample)
    }
}

/// `sample`: the shingle sample of MOD-m, MIN-s and Broder's algorithm.
pub(super) static SAMPLE: MethodOption = MethodOption::parsed(
    "sample",
    "SAMPLE",
    "Shingle sample of mod-m, min-s and broder: mod:M keeps the shingles whose hash is ≡ 0 \
           mod M (about 1 in M, variable size), min:S keeps the S smallest hashes (bottom-S \
           sketch). Default: mod:8 for mod-m and containment, min:128 otherwise",
    "mod:M or min:S",
    |s| s.parse::<Sample>().map(|v| Arc::new(v) as Value),
);

/// `max_docs_per_shingle`: L of Broder's algorithm.
pub(super) static MAX_DOCS_PER_SHINGLE: MethodOption = MethodOption::count(
    "max_docs_per_shingle",
    "L",
    "Broder's algorithm (mod-m, min-s, broder): shingles shared by more than L documents \
           (boilerplate) emit no pairs; they are counted in the summary",
)
.with_default(|| sorted_pairs::DEFAULT_MAX_DOCS_PER_SHINGLE.to_string());

/// `frequent_shingles`: what a frequent shingle does to the estimate.
pub(super) static FREQUENT_SHINGLES: MethodOption = MethodOption::choice::<FrequentShingles>(
    "frequent_shingles",
    "RULE",
    "What a shingle shared by more than L documents does to the estimate of mod-m, min-s \
           and broder candidates: discount (default) leaves it out of the shared count and of \
           both sketch sizes, so the estimate is over the rest of the sketches and recall holds \
           as the collection grows; skip counts it as not shared (the rule of Mail.ru's 2016 \
           course lecture on duplicates: large collections lose near-duplicates whose shingles \
           are common)",
    "discount or skip",
)
.with_default(|| "discount".to_owned());

/// The options of the sampling methods.
pub(super) static OPTIONS: &[&MethodOption] = &[&SAMPLE, &MAX_DOCS_PER_SHINGLE, &FREQUENT_SHINGLES];

/// The sampling settings from the option values.
pub(super) fn config_of(v: &OptionValues) -> SampleConfig {
    let d = SampleConfig::default();
    SampleConfig {
        sample: v.get("sample"),
        max_docs_per_shingle: v.get("max_docs_per_shingle").unwrap_or(d.max_docs_per_shingle),
        frequent: v.get("frequent_shingles").unwrap_or(d.frequent),
    }
}
