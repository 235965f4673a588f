//! What MOD-m, MIN-s and Broder's algorithm share: a sorted sample of each head's shingle hashes,
//! candidates from Broder's sort of ⟨sampled shingle, document⟩ records, and one [`Method`]
//! implementation, [`Sampled`], that each of them completes with its own [`Estimator`].

use std::fmt;
use std::sync::Arc;

use super::doc_keyer::{KeyerError, Keying, KeyingInput};
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

/// A document whose MOD-m sample has fewer elements than this also has a short part
/// ([`SampleParts::short`]). With [`SHORT_PART`], stated in the `sample` option's help.
pub const SHORT_PART_BELOW: usize = 4;

/// The size of a short document's short part: its smallest shingle hashes that are not ≡ 0 mod m
/// ([`ModSketch::smallest_unsampled`]).
pub const SHORT_PART: usize = 8;

/// A head's samples: the method's sample, and with a MOD-m sample of fewer than
/// [`SHORT_PART_BELOW`] elements a short part.
///
/// A stub of a dozen words has one or two MOD-8 elements, often its own name: two near-identical
/// stubs under two names share no MOD-m element, and the pair is lost. The short part, the
/// document's [`SHORT_PART`] smallest hashes that MOD-m leaves out, is counted apart from the
/// samples (its own Broder sort, its own sizes): a short document meets other short documents
/// there, and its pairs with long documents are still counted over the MOD-m samples alone, so
/// neither estimate is diluted by the other. MIN-s and Broder's bottom-s samples have no short
/// part.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SampleParts {
    /// The sample (sorted, distinct): MOD_m(A) (or a short document's smallest hashes when it is
    /// empty, [`ModSketch::sketch_or_smallest`]), or MIN_s(A).
    pub sample: Vec<u64>,
    /// The short part (sorted, distinct), empty for the other documents.
    pub short: Vec<u64>,
}

/// Which of a head's [`SampleParts`] a count is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SamplePart {
    /// The samples.
    Sample,
    /// The short parts.
    Short,
}

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
    short_values: Vec<u64>,
    short_ends: Vec<usize>,
}

impl Samples {
    /// Validates L; `sample` is the effective sample.
    pub(super) fn new(config: SampleConfig, sample: Sample, cx: Context) -> Result<Samples, Error> {
        if config.max_docs_per_shingle < 2 {
            return Err(ConfigError::MaxDocsPerShingle.into());
        }
        Ok(Samples {
            config,
            sample,
            cx,
            values: Vec::new(),
            ends: Vec::new(),
            short_values: Vec::new(),
            short_ends: Vec::new(),
        })
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

    /// A head's short part (empty unless its MOD-m sample is small: [`SampleParts`]).
    pub fn short_of(&self, slot: Slot) -> &[u64] {
        flat_slice(&self.short_values, &self.short_ends, slot)
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
    ///
    /// The short parts ([`SamplePart::Short`]) are bottom-[`SHORT_PART`] samples: their margin
    /// is that of a sample of that size.
    fn threshold(&self, part: SamplePart) -> f64 {
        let t = self.cx.threshold;
        let s = match (part, self.sample) {
            (SamplePart::Short, _) => SHORT_PART as f64,
            (SamplePart::Sample, Sample::Min(s)) => s as f64,
            // A MOD-m sample of a typical document (a few hundred shingles) has tens of elements;
            // 32 is a deliberately small size, so the margin is generous.
            (SamplePart::Sample, Sample::Mod(_)) => 32.0,
        };
        let margin = 3.0 * (t * (1.0 - t) / s).sqrt();
        (t - margin).max(0.0)
    }

    /// The configuration of Broder's sort over one part of the samples.
    fn broder_config(&self, part: SamplePart) -> BroderConfig {
        BroderConfig {
            memory_bytes: self.cx.memory,
            max_docs_per_shingle: self.config.max_docs_per_shingle,
            frequent: self.config.frequent,
            threshold: self.threshold(part),
            tmp_dir: self.cx.spill_dir.clone(),
            max_pairs_per_group: Some(self.cx.max_pairs_per_group),
        }
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

/// The samples of a document's shingle hashes.
fn sample_of(sample: Sample, seed: u64, shingles: &[u64]) -> SampleParts {
    match sample {
        Sample::Mod(m) => {
            let sketch = ModSketch::new(m, seed);
            let sample = sketch.sketch_or_smallest(shingles, SHORT_SAMPLE);
            let short = if sample.len() < SHORT_PART_BELOW || sketch.is_smallest(&sample) {
                sketch.smallest_unsampled(shingles, SHORT_PART)
            } else {
                Vec::new()
            };
            SampleParts { sample, short }
        }
        Sample::Min(s) => {
            SampleParts { sample: MinSketch::new(s, seed).sketch(shingles), short: Vec::new() }
        }
    }
}

/// The candidate rule of MOD-m, MIN-s and Broder's algorithm, for an engine that groups the
/// sampled shingles and counts the pairs itself (the Ray job: a shuffle by sampled shingle, then
/// the counts of every shingle gathered). With each head's [`sample`](SampleRule::sample), the
/// engine groups the heads by sampled shingle, each part of the samples apart
/// ([`SampleParts`]); a shingle of at most
/// [`max_docs_per_shingle`](SampleRule::max_docs_per_shingle) heads gives each pair of them one
/// shared sample, a larger one ([`is_frequent`](SampleRule::is_frequent)) counts as frequent for
/// each of its heads and keeps its list of heads. [`candidates`](SampleRule::candidates) then
/// gives, from those counts, the pairs [`sorted_pairs::collect`] gives the pipeline: pairs whose
/// shared count reaches the threshold over the smaller (discounted) sample, and the pairs of the
/// groups of saturated heads sharing a frequent shingle, in either part.
#[derive(Debug, Clone)]
pub struct SampleRule {
    sample: Sample,
    seed: u64,
    max_docs: usize,
    frequent: FrequentShingles,
    threshold: f64,
    short_threshold: f64,
    bound: u64,
}

/// What an engine counted over one part of the heads' samples, for
/// [`SampleRule::candidates`]: heads are numbered `0..n` in input order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PartCounts {
    /// Each head's size of the part (`n` values).
    pub sample_len: Vec<u32>,
    /// Each head's frequent shingles in the part (`n` values).
    pub frequent: Vec<u32>,
    /// `(a, b, count)`: the pairs of heads sharing non-frequent shingles of the part, each pair
    /// once with its count.
    pub shared: Vec<(u32, u32, u32)>,
    /// Each frequent shingle's heads, in increasing order.
    pub lists: Vec<Vec<u32>>,
}

impl SampleRule {
    /// The rule of a sampling method's configuration (its settings validated as the method
    /// validates them); `None` for the other methods.
    pub fn new(c: &crate::config::DedupConfig) -> Result<Option<SampleRule>, Error> {
        use crate::config::MethodConfig;
        let cx = Context::of(c);
        let samples = match &c.method {
            MethodConfig::ModM(m) => super::ModM::new(*m, cx)?.samples,
            MethodConfig::MinS(m) => super::MinS::new(*m, cx)?.samples,
            MethodConfig::Broder(m) => super::Broder::new(*m, cx)?.samples,
            _ => return Ok(None),
        };
        Ok(Some(SampleRule {
            sample: samples.sample,
            seed: samples.cx.seed,
            max_docs: samples.config.max_docs_per_shingle,
            frequent: samples.config.frequent,
            threshold: samples.threshold(SamplePart::Sample),
            short_threshold: samples.threshold(SamplePart::Short),
            bound: samples.cx.max_pairs_per_group,
        }))
    }

    /// A document's samples, from its view as the pipeline makes it.
    pub fn sample(&self, doc: &DocView<'_>) -> SampleParts {
        sample_of(self.sample, self.seed, doc.shingles)
    }

    /// L: a sampled shingle of more heads than this is frequent.
    pub fn max_docs_per_shingle(&self) -> usize {
        self.max_docs
    }

    /// Whether a sampled shingle of `heads` heads is frequent (gives no pairs of its own).
    pub fn is_frequent(&self, heads: usize) -> bool {
        heads > self.max_docs
    }

    /// The candidate pairs `(a, b)`, `a < b`, in order, of heads `0..n` from what the engine
    /// counted over the samples and over the short parts: the pairs of
    /// [`sorted_pairs::collect`] over each part, together.
    pub fn candidates(&self, samples: &PartCounts, short: &PartCounts) -> Vec<(u32, u32)> {
        let mut out = self.part_candidates(samples, self.threshold);
        out.extend(self.part_candidates(short, self.short_threshold));
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The candidates of one part.
    fn part_candidates(&self, counts: &PartCounts, threshold: f64) -> Vec<(u32, u32)> {
        let PartCounts { sample_len, frequent, shared, lists } = counts;
        let discount = self.frequent == FrequentShingles::Discount;
        let size = |d: u32| {
            let d = d as usize;
            if discount { sample_len[d].saturating_sub(frequent[d]) } else { sample_len[d] }
        };
        // Saturated: half or more of the sample frequent (as `collect` judges it).
        let saturated = |d: u32| {
            let (f, n) = (frequent[d as usize], sample_len[d as usize]);
            f > 0 && 2 * f >= n
        };
        let mut out: Vec<(u32, u32)> = Vec::new();
        for &(a, b, count) in shared {
            let smaller = size(a).min(size(b));
            let estimate = if smaller == 0 { 0.0 } else { f64::from(count) / f64::from(smaller) };
            if count > 0 && estimate >= threshold {
                out.push((a, b));
            }
        }
        let mut members: Vec<u32> = Vec::new();
        for list in lists {
            members.clear();
            members.extend(list.iter().copied().filter(|&d| saturated(d)));
            if members.len() >= 2 {
                let _ = crate::candidates::lsh::group_pairs(&members, self.bound, |a, b| {
                    out.push((a, b));
                    Ok::<(), std::convert::Infallible>(())
                });
            }
        }
        out
    }
}

impl<E: Estimator> Method for Sampled<E> {
    type Doc = SampleParts;

    fn doc(&self, doc: &DocView<'_>) -> SampleParts {
        sample_of(self.samples.sample, self.samples.cx.seed, doc.shingles)
    }

    fn push_heads(&mut self, heads: Vec<Head<'_, SampleParts>>) {
        let s = &mut self.samples;
        for head in heads {
            s.values.extend_from_slice(&head.doc.sample);
            s.ends.push(s.values.len());
            s.short_values.extend_from_slice(&head.doc.short);
            s.short_ends.push(s.short_values.len());
        }
    }

    /// Pairs sharing a sampled shingle, by Broder's sort, with its counters; then the pairs of
    /// short documents sharing their short parts, by a Broder sort of their own.
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
        // The short parts' pairs first (few: short documents only), then merged in order into
        // the samples' pairs as they come, each pair emitted once.
        let shorts = (0..slots).filter(|&i| !s.short_of(Slot(i)).is_empty());
        let mut short_pairs = Vec::new();
        let short_stats = if shorts.clone().next().is_some() {
            let parts = shorts.map(|i| (i, s.short_of(Slot(i))));
            let config = s.broder_config(SamplePart::Short);
            Some(sorted_pairs::collect(parts, &config, |p| {
                short_pairs.push((p.a, p.b));
                true
            })?)
        } else {
            None
        };
        let mut pending = short_pairs.into_iter().peekable();
        let sketches = (0..slots).map(|i| (i, s.of(Slot(i))));
        let stats = sorted_pairs::collect(sketches, &s.broder_config(SamplePart::Sample), |p| {
            while let Some(q) = pending.next_if(|&q| q <= (p.a, p.b)) {
                if q != (p.a, p.b) {
                    emit(Slot(q.0), Slot(q.1));
                }
            }
            emit(Slot(p.a), Slot(p.b));
            true
        })?;
        for (a, b) in pending {
            emit(Slot(a), Slot(b));
        }
        Ok(CandidateReport {
            method: MethodStats {
                broder: Some(stats),
                short_parts: short_stats,
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
           mod M (about 1 in M, variable size; a document with fewer than 4 of them is also \
           sampled by its 8 smallest other hashes, counted apart, so near-identical stubs meet), \
           min:S keeps the S smallest hashes (bottom-S sketch). Default: mod:8 for mod-m and \
           containment, min:128 otherwise",
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

/// The sampled methods have no per-document keys: what their [`MethodSpec`]s say
/// ([`DocumentKeys`](super::DocumentKeys)).
///
/// [`MethodSpec`]: super::options::MethodSpec
pub(super) fn no_document_keys(input: KeyingInput<'_>) -> Keying {
    Err(KeyerError::NoDocumentKeys(format!(
        "{} counts the samples each pair shares over the whole collection (Broder's sort, frequent shingles discounted)",
        input.config.method.kind()
    )))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::config::{DedupConfig, MethodConfig};
    use crate::method::MethodKind;
    use crate::testutil::each_view;

    /// Texts of a few templates (boilerplate shared by many pages: frequent shingles) with a
    /// page-specific part, some pages nearly all template (saturated: groups), and near copies.
    fn texts() -> Vec<String> {
        let mut state = 17u64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let words: Vec<String> = (0..400).map(|i| format!("w{i}")).collect();
        let templates: Vec<String> = (0..3)
            .map(|t| (0..80).map(|i| words[t * 90 + i].as_str()).collect::<Vec<_>>().join(" "))
            .collect();
        let mut out = Vec::new();
        for i in 0..90 {
            let own = 3 + if i % 3 == 0 { 2 } else { 60 };
            let own: Vec<&str> = (0..own).map(|_| words[next(words.len())].as_str()).collect();
            let t = &templates[i % 3];
            out.push(format!("{} page {i} {}", t, own.join(" ")));
            if i % 4 == 0 {
                let last = out.last().unwrap().clone();
                out.push(format!("{last} one more"));
            }
        }
        out
    }

    /// One part's counts as an engine that groups the samples by shingle makes them.
    fn counted(rule: &SampleRule, samples: &[&[u64]]) -> PartCounts {
        let mut by_shingle: HashMap<u64, Vec<u32>> = HashMap::new();
        for (d, s) in samples.iter().enumerate() {
            for &x in s.iter() {
                by_shingle.entry(x).or_default().push(d as u32);
            }
        }
        let mut frequent = vec![0u32; samples.len()];
        let mut shared: HashMap<(u32, u32), u32> = HashMap::new();
        let mut lists = Vec::new();
        for docs in by_shingle.values() {
            if rule.is_frequent(docs.len()) {
                for &d in docs {
                    frequent[d as usize] += 1;
                }
                lists.push(docs.clone());
            } else {
                for (i, &a) in docs.iter().enumerate() {
                    for &b in &docs[i + 1..] {
                        *shared.entry((a, b)).or_default() += 1;
                    }
                }
            }
        }
        let mut shared: Vec<(u32, u32, u32)> =
            shared.into_iter().map(|((a, b), n)| (a, b, n)).collect();
        shared.sort_unstable();
        let sample_len = samples.iter().map(|s| s.len() as u32).collect();
        PartCounts { sample_len, frequent, shared, lists }
    }

    /// The samples of `texts` under `c`'s rule.
    fn parts_of(c: &DedupConfig, texts: &[String]) -> Vec<SampleParts> {
        let rule = SampleRule::new(c).unwrap().unwrap();
        each_view(c, texts, |view| rule.sample(view))
    }

    /// The candidates as an engine that groups the samples by shingle, each part apart, finds
    /// them with the rule.
    fn rule_pairs(c: &DedupConfig, texts: &[String]) -> Vec<(u32, u32)> {
        let rule = SampleRule::new(c).unwrap().unwrap();
        let parts = parts_of(c, texts);
        let samples: Vec<&[u64]> = parts.iter().map(|p| p.sample.as_slice()).collect();
        let shorts: Vec<&[u64]> = parts.iter().map(|p| p.short.as_slice()).collect();
        rule.candidates(&counted(&rule, &samples), &counted(&rule, &shorts))
    }

    #[test]
    fn the_rule_over_counted_samples_gives_the_methods_own_candidates() {
        let texts = texts();
        let sampled = |max_docs_per_shingle, frequent, sample| SampleConfig {
            sample,
            max_docs_per_shingle,
            frequent,
        };
        let mut grouped = 0;
        for (method, config) in [
            (MethodKind::ModM, sampled(100, FrequentShingles::Discount, None)),
            (MethodKind::ModM, sampled(8, FrequentShingles::Discount, Some(Sample::Mod(4)))),
            (MethodKind::MinS, sampled(8, FrequentShingles::Discount, None)),
            (MethodKind::MinS, sampled(8, FrequentShingles::Skip, Some(Sample::Min(16)))),
            (MethodKind::Broder, sampled(5, FrequentShingles::Discount, Some(Sample::Min(32)))),
            (MethodKind::Broder, sampled(100, FrequentShingles::Skip, None)),
        ] {
            let method = match method {
                MethodKind::ModM => MethodConfig::ModM(config),
                MethodKind::MinS => MethodConfig::MinS(config),
                _ => MethodConfig::Broder(config),
            };
            for bound in [5_000_000, 20] {
                let c = DedupConfig {
                    method: method.clone(),
                    threshold: 0.6,
                    max_pairs_per_group: bound,
                    ..DedupConfig::default()
                };
                let want = crate::testutil::library_pairs(&c, &texts);
                assert!(want.len() >= 10, "{:?}: {} pairs", c.method.kind(), want.len());
                assert_eq!(
                    rule_pairs(&c, &texts),
                    want,
                    "{:?} {config:?} bound {bound}",
                    method.kind()
                );
                if config.max_docs_per_shingle < 10 {
                    grouped += 1;
                }
            }
        }
        assert!(grouped > 0);
        let minhash = DedupConfig::default();
        assert!(SampleRule::new(&minhash).unwrap().is_none());
    }

    /// Stubs: a short text shared by a few pages, each with its own name at the end, and long
    /// pages. Their exact Jaccard, brute force, over the pipeline's shingles.
    fn stubs() -> Vec<String> {
        let mut rng = crate::testutil::Rng::new(29);
        let mut out = Vec::new();
        for t in 0..80 {
            let words = 14 + rng.below(18) as usize;
            let stub: Vec<String> = (0..words).map(|_| format!("w{}", rng.below(600))).collect();
            for j in 0..5 {
                out.push(format!("{} name{t}x{j}", stub.join(" ")));
            }
            let page: Vec<String> = (0..150).map(|_| format!("w{}", rng.below(600))).collect();
            out.push(page.join(" "));
        }
        out
    }

    #[test]
    fn near_identical_stubs_under_other_names_are_candidates() {
        let texts = stubs();
        let c = DedupConfig {
            method: MethodConfig::ModM(SampleConfig::default()),
            threshold: 0.8,
            ..DedupConfig::default()
        };
        let sets: Vec<Vec<u64>> = each_view(&c, &texts, |view| view.shingles.to_vec());
        let mut close = Vec::new();
        for a in 0..sets.len() {
            for b in a + 1..sets.len() {
                let shared = intersection_size(&sets[a], &sets[b]);
                let jaccard = shared as f64 / (sets[a].len() + sets[b].len() - shared) as f64;
                if jaccard >= c.threshold + 0.05 {
                    close.push((a as u32, b as u32));
                }
            }
        }
        // Pairs MOD-m's samples alone cannot find: no shared sampled shingle.
        let parts = parts_of(&c, &texts);
        let unsampled = close
            .iter()
            .filter(|&&(a, b)| {
                intersection_size(&parts[a as usize].sample, &parts[b as usize].sample) == 0
            })
            .count();
        assert!(close.len() >= 400 && unsampled >= 10, "{} close, {unsampled}", close.len());

        // The pipeline emits each candidate once, in order, and every close pair is one.
        let engine = crate::testutil::prepared_engine(&c, &texts);
        let mut emitted = Vec::new();
        engine.method().candidates(&mut |a, b| emitted.push((a.0, b.0))).unwrap();
        assert!(emitted.windows(2).all(|w| w[0] < w[1]), "not sorted and distinct");
        let missed: Vec<_> = close.iter().filter(|p| emitted.binary_search(p).is_err()).collect();
        assert!(missed.is_empty(), "{} of {} missed: {missed:?}", missed.len(), close.len());
        assert_eq!(rule_pairs(&c, &texts), emitted);
    }
}
