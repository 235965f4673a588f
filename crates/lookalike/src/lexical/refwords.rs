//! Reference words ("опорные слова"): an N-bit lexical signature over words chosen from the
//! collection. Contract: "give me the collection's term counts, I choose N reference words with a
//! relative-frequency threshold each; give me a document, I give you its N-bit signature or tell
//! you it has none; give me signatures, I give you the pairs that are equal or within Hamming
//! distance d".
//!
//! **Source.** Ilyinsky, Kuzmin, Melkov & Segalovich (Yandex), *An efficient method to detect
//! duplicates of Web documents with the use of inverted index*, WWW 2002, as described in
//! Zelenkov & Segalovich's comparative study (RCDL 2007). What the study says, and what is taken
//! from it literally:
//!
//! - N words are chosen from the index; a document's signature is an N-bit vector whose bit i is
//!   set when word i's *relative frequency* in the document (tf / the tf of the document's most
//!   frequent word, in 0…1) exceeds a threshold chosen separately for each word. Documents with
//!   equal signatures are similar.
//! - The set should (1) cover as many documents as possible, (2) consist of words of the highest
//!   "quality", (3) be as small as possible.
//! - For every word the distribution of documents over its relative frequency is built once.
//! - Several iterations of two phases: (1) maximise coverage at fixed, bounded-below precision;
//!   (2) maximise precision at fixed coverage. After each iteration the worst words are dropped;
//!   after the last one enough words remain for good coverage (3–5 thousand out of hundreds of
//!   thousands, on Yandex's index).
//! - A word's *precision* at a threshold is the higher, the fewer documents have the word's
//!   relative frequency within ±Δ of the threshold; the threshold is the value of best precision.
//!
//! **What the study leaves open, and the choices made here:**
//!
//! - *Coverage* is the share of documents with a non-zero signature (a document with an all-zero
//!   signature is *unsignable*: [`DocSignature::Unsignable`]).
//! - *Precision* is the study's own word-level definition, made a number:
//!   p(w, t) = 1 − |{d : |rtf_w(d) − t| ≤ Δ}| / df(w), the share of the word's documents that a
//!   small edit cannot move across the threshold. No labels are needed; the set's precision
//!   "bounded below" in phase 1 means every word's precision is at least `min_precision`. (A
//!   set-level precision, the share of signature-equal pairs that really are near-duplicates,
//!   needs a verification pass; the caller measures it on the candidates, as the study
//!   does with its pool of verified pairs.)
//! - *Thresholds* are searched on a grid t = k / `threshold_steps`, k = 0 … steps − 1; a bit is
//!   set when rtf > t (t = 0 means "the word occurs").
//! - *Phase 1* gives every word the lowest grid threshold whose precision reaches
//!   `min_precision` (lowest threshold = most documents covered). Words for which no threshold
//!   reaches it are *infeasible* and never take part.
//! - *Phase 2* visits the words from the least to the most precise and moves each one's
//!   threshold to its most precise grid value (the lowest one on ties) among those that keep
//!   every document covered: a threshold may not rise to or above the relative frequency of a
//!   document in which this word sets the only bit. Coverage is therefore never lower after
//!   phase 2 than after phase 1.
//! - *The worst words* are those with the smallest expected number of stably set bits,
//!   covered(w) · p(w): coverage (principle 1) weighted by quality (principle 2). Each round
//!   drops `drop_per_round` of the remaining words (at least one) until `words` remain; after
//!   `rounds` rounds the rest is dropped at once (principle 3). Both phases run again after the
//!   last drop, so the final thresholds are those of the final set.
//! - *Candidate words* are the terms with `min_df ≤ df ≤ max_df_fraction · documents`: a word
//!   in a single document cannot make two documents agree, and the most frequent words (nearly
//!   always a document's most frequent term, rtf = 1) carry a bit of almost no information.
//!
//! **Defaults**: `words` = 3000 (the study's 3–5 thousand, at its lower end; for small
//! collections pass fewer — all candidates are kept when there are fewer than `words`);
//! Δ = 0.05 (one occurrence more or less moves the rtf of a document whose most frequent word
//! occurs 20 times by 0.05, so Δ covers the commonest edit of a web page of a few hundred
//! words); `min_precision` = 0.9 (at most one document in ten within ±Δ of the threshold);
//! 200 threshold steps (0.005, a tenth of 2Δ); `rounds` = 8 and `drop_per_round` = 0.5 (halving
//! 200 000 candidates reaches 3 000 in 6–7 rounds); `min_df` = 2; `max_df_fraction` = 0.5 (as
//! I-Match drops the most frequent terms). The seed gives no number for any of them but N.
//!
//! **Candidates** ([`signature_candidates`]): equal signatures (sorting by a hash of the bits,
//! then by the bits themselves) or, for d > 0, signatures within Hamming distance d, found
//! without comparing all pairs by a pigeonhole (prefix) filter on the sparse sets of set bits: if
//! |A Δ B| ≤ d then any d + 1 bits of A include one of B's, so every document looks up only its
//! d + 1 rarest bits in an inverted index over bits; pairs of documents with at most d bits in
//! total that share no bit are enumerated directly. Every candidate is checked exactly, so the
//! result is the all-pairs result.
//!
//! ```
//! use lookalike::lexical::collection::TermCounts;
//! use lookalike::text::normalize::normalize;
//! use lookalike::lexical::refwords::{RefWords, RefWordsConfig, signature_candidates};
//!
//! let texts = [
//!     "apple apple apple banana cherry", "apple apple apple banana cherry grape",
//!     "banana banana banana cherry date", "cherry cherry date date date fig",
//! ];
//! let docs: Vec<TermCounts> =
//!     texts.iter().map(|t| TermCounts::from_normalized(&normalize(t), 0)).collect();
//! let config = RefWordsConfig { words: 10, max_df_fraction: 1.0, ..RefWordsConfig::default() };
//! let (refs, report) = RefWords::select(&docs, &config);
//! assert!(!refs.is_empty() && report.rounds.len() >= 1);
//! let sigs = refs.sign_all(&docs);
//! let pairs = signature_candidates(&sigs, 0);
//! // "grape" occurs once in the collection, so it is no reference word: 0 and 1 agree.
//! assert_eq!(pairs, [(0, 1, 0)]);
//! ```

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use crate::lexical::collection::TermCounts;

/// Default number of reference words N (Zelenkov & Segalovich 2007: 3–5 thousand).
pub const DEFAULT_WORDS: usize = 3000;
/// Default half-width Δ of the relative-frequency window around a threshold.
pub const DEFAULT_DELTA: f32 = 0.05;
/// Default lower bound on a word's precision in phase 1.
pub const DEFAULT_MIN_PRECISION: f64 = 0.9;
/// Default number of rounds that drop words.
pub const DEFAULT_ROUNDS: usize = 8;
/// Default share of the words dropped per round.
pub const DEFAULT_DROP_PER_ROUND: f64 = 0.5;
/// Default minimum document frequency of a candidate word.
pub const DEFAULT_MIN_DF: u32 = 2;
/// Default maximum document frequency of a candidate word, as a share of the documents.
pub const DEFAULT_MAX_DF_FRACTION: f64 = 0.5;
/// Default number of grid steps for thresholds in [0, 1).
pub const DEFAULT_THRESHOLD_STEPS: u32 = 200;

/// Settings of the reference-word selection (see the module docs for the defaults' sources).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct RefWordsConfig {
    /// Number of reference words N to keep (fewer when fewer candidates are feasible).
    pub words: usize,
    /// Half-width Δ of the window around a threshold in which documents count against its
    /// precision (negative or NaN is treated as 0).
    pub delta: f32,
    /// Lower bound on every word's precision in phase 1.
    pub min_precision: f64,
    /// Rounds that drop words; after the last one the selection is cut to `words`.
    pub rounds: usize,
    /// Share of the remaining words dropped per round (at least one word while above `words`).
    pub drop_per_round: f64,
    /// Minimum document frequency of a candidate word.
    pub min_df: u32,
    /// Maximum document frequency of a candidate word, as a share of the documents.
    pub max_df_fraction: f64,
    /// Thresholds are k / steps for k in 0..steps (0 is treated as 1).
    pub threshold_steps: u32,
}

impl Default for RefWordsConfig {
    fn default() -> RefWordsConfig {
        RefWordsConfig {
            words: DEFAULT_WORDS,
            delta: DEFAULT_DELTA,
            min_precision: DEFAULT_MIN_PRECISION,
            rounds: DEFAULT_ROUNDS,
            drop_per_round: DEFAULT_DROP_PER_ROUND,
            min_df: DEFAULT_MIN_DF,
            max_df_fraction: DEFAULT_MAX_DF_FRACTION,
            threshold_steps: DEFAULT_THRESHOLD_STEPS,
        }
    }
}

/// One reference word: a term hash (as in [`TermCounts`]) and its relative-frequency threshold.
/// A list of them ([`RefWords::words`], [`RefWords::from_words`]) is the lexicon to save.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RefWord {
    /// The term's hash ([`crate::lexical::collection::term_hash`]).
    pub term: u64,
    /// The bit is set when the term's relative frequency in a document exceeds this.
    pub threshold: f32,
}

/// What one round of the selection did.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct RoundReport {
    /// Words taking part in the round.
    pub words: usize,
    /// Share of documents with a non-zero signature after phase 1.
    pub coverage_phase1: f64,
    /// Share of documents with a non-zero signature after phase 2 (never lower).
    pub coverage: f64,
    /// Mean precision of the words after phase 2.
    pub mean_precision: f64,
    /// Words dropped at the end of the round.
    pub dropped: usize,
}

/// What the selection did, round by round.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct SelectionReport {
    /// Documents in the collection.
    pub docs: usize,
    /// Terms within the document-frequency bounds.
    pub candidates: usize,
    /// Candidates for which no threshold reaches `min_precision`.
    pub infeasible: usize,
    /// One entry per round; the last one describes the selected set.
    pub rounds: Vec<RoundReport>,
}

impl SelectionReport {
    /// Share of documents with a non-zero signature under the selected words (0 when nothing was
    /// selected).
    pub fn coverage(&self) -> f64 {
        self.rounds.last().map_or(0.0, |r| r.coverage)
    }
}

/// A document's relative frequency of a term: `count / max_tf` (0 for an empty document). The
/// selection and [`RefWords::sign`] both use exactly this value.
pub fn relative_tf(count: u32, max_tf: u32) -> f32 {
    if max_tf == 0 { 0.0 } else { count as f32 / max_tf as f32 }
}

/// Grid threshold number `k` of `steps`.
fn grid(k: u32, steps: u32) -> f32 {
    k as f32 / steps as f32
}

/// The window `[t − Δ, t + Δ]` around a threshold.
fn window(t: f32, delta: f32) -> (f32, f32) {
    (t - delta, t + delta)
}

/// A word's precision when `in_window` of its `df` documents lie within ±Δ of the threshold.
fn precision(in_window: usize, df: usize) -> f64 {
    if df == 0 { 0.0 } else { 1.0 - in_window as f64 / df as f64 }
}

/// For every grid threshold k, how many of the (ascending) values lie within ±Δ of it: one sweep
/// with two pointers, O(values + steps).
fn window_counts(values: &[f32], steps: u32, delta: f32, out: &mut Vec<u32>) {
    out.clear();
    let (mut lo_i, mut hi_i) = (0usize, 0usize);
    for k in 0..steps {
        let (lo, hi) = window(grid(k, steps), delta);
        while lo_i < values.len() && values[lo_i] < lo {
            lo_i += 1;
        }
        while hi_i < values.len() && values[hi_i] <= hi {
            hi_i += 1;
        }
        out.push(hi_i.saturating_sub(lo_i) as u32);
    }
}

/// Phase 1: the lowest grid threshold whose precision reaches `min_precision`.
fn phase1_threshold(counts: &[u32], df: usize, min_precision: f64) -> Option<u32> {
    counts.iter().position(|&c| precision(c as usize, df) >= min_precision).map(|k| k as u32)
}

/// Phase 2: the most precise grid threshold below `bound` (the lowest on ties); `None` when no
/// grid value is below it.
fn phase2_threshold(counts: &[u32], steps: u32, bound: f32) -> Option<u32> {
    let mut best: Option<(u32, u32)> = None;
    for (k, &c) in counts.iter().enumerate() {
        let k = k as u32;
        if grid(k, steps) >= bound {
            break;
        }
        if best.is_none_or(|(_, bc)| c < bc) {
            best = Some((k, c));
        }
    }
    best.map(|(k, _)| k)
}

/// Every candidate word's distribution of documents over relative frequency, built once.
struct Distributions {
    /// Candidate → term hash, ascending.
    terms: Vec<u64>,
    /// Candidate → start in `values`/`docs`; one more entry than candidates.
    starts: Vec<usize>,
    /// Relative frequencies, ascending within each candidate.
    values: Vec<f32>,
    /// The document of each value.
    docs: Vec<u32>,
}

impl Distributions {
    /// The distributions of `(term, relative frequency as f32 bits, document)` entries (the
    /// bits of non-negative floats order as the floats do), in any order.
    fn build(mut entries: Vec<(u64, u32, u32)>, min_df: usize, max_df: usize) -> Distributions {
        entries.par_sort_unstable();
        let mut out = Distributions {
            terms: Vec::new(),
            starts: vec![0],
            values: Vec::new(),
            docs: Vec::new(),
        };
        for run in entries.chunk_by(|a, b| a.0 == b.0) {
            if run.len() < min_df || run.len() > max_df {
                continue;
            }
            out.terms.push(run[0].0);
            out.values.extend(run.iter().map(|e| f32::from_bits(e.1)));
            out.docs.extend(run.iter().map(|e| e.2));
            out.starts.push(out.values.len());
        }
        out
    }

    fn len(&self) -> usize {
        self.terms.len()
    }

    fn range(&self, w: usize) -> std::ops::Range<usize> {
        self.starts[w]..self.starts[w + 1]
    }

    /// Index (within word `w`'s values) of the first value above `t`.
    fn first_above(&self, w: usize, t: f32) -> usize {
        self.values[self.range(w)].partition_point(|&v| v <= t)
    }
}

/// The selected reference words; bit i of a signature belongs to `words()[i]`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RefWords {
    /// Sorted by term, one entry per term.
    words: Vec<RefWord>,
    /// Open-addressing table term → position in `words` (`u32::MAX` = empty slot), a power of
    /// two at least twice as long as `words`; empty when there are no words.
    table: Vec<u32>,
}

impl RefWords {
    /// Reference words given directly (e.g. loaded from a file); sorted by term, and of two
    /// entries for one term the first is kept.
    pub fn from_words<I: IntoIterator<Item = RefWord>>(words: I) -> RefWords {
        let mut words: Vec<RefWord> = words.into_iter().collect();
        words.sort_by_key(|w| w.term);
        words.dedup_by_key(|w| w.term);
        RefWords::with_table(words)
    }

    /// Builds the lookup table over words sorted by term without duplicates.
    fn with_table(words: Vec<RefWord>) -> RefWords {
        if words.is_empty() {
            return RefWords::default();
        }
        let size = (words.len() * 2).next_power_of_two();
        let mut table = vec![u32::MAX; size];
        for (i, w) in words.iter().enumerate() {
            let mut slot = Self::slot(w.term, size);
            while table[slot] != u32::MAX {
                slot = (slot + 1) & (size - 1);
            }
            table[slot] = i as u32;
        }
        RefWords { words, table }
    }

    /// The home slot of a term in a table of `size` (a power of two) slots.
    fn slot(term: u64, size: usize) -> usize {
        (term.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & (size - 1)
    }

    /// The position of a term among the words.
    fn position(&self, term: u64) -> Option<usize> {
        let size = self.table.len();
        if size == 0 {
            return None;
        }
        let mut slot = Self::slot(term, size);
        loop {
            let i = self.table[slot];
            if i == u32::MAX {
                return None;
            }
            if self.words[i as usize].term == term {
                return Some(i as usize);
            }
            slot = (slot + 1) & (size - 1);
        }
    }

    /// The words, sorted by term: bit i of a signature is `words()[i]`.
    pub fn words(&self) -> &[RefWord] {
        &self.words
    }

    /// Number of words N.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// True when no word was selected (every document is then unsignable).
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Chooses reference words and their thresholds from a collection by the study's two-phase
    /// iterative procedure (see the module docs). Deterministic: no random step, the same result
    /// for any thread count.
    pub fn select(docs: &[TermCounts], config: &RefWordsConfig) -> (RefWords, SelectionReport) {
        let total: usize = docs.iter().map(|d| d.terms.len()).sum();
        let mut entries: Vec<(u64, u32, u32)> = Vec::with_capacity(total);
        for (d, doc) in docs.iter().enumerate() {
            entries.extend(profile(doc).map(|(term, rtf)| (term, rtf, d as u32)));
        }
        RefWords::select_entries(docs.len(), entries, config)
    }

    /// [`select`](Self::select) over documents given by their relative frequencies (each
    /// profile as many times as it was counted): the same words and report as `select` over
    /// the documents they were counted from. The selection looks at the documents only through
    /// their relative frequencies, and at no document's position.
    pub fn select_counted(
        freqs: &RelativeFrequencies,
        config: &RefWordsConfig,
    ) -> (RefWords, SelectionReport) {
        let total: usize = freqs.profiles.iter().map(|(p, &m)| p.len() * m as usize).sum();
        let mut entries: Vec<(u64, u32, u32)> = Vec::with_capacity(total);
        let mut d = 0u32;
        for (profile, &m) in &freqs.profiles {
            for _ in 0..m {
                entries.extend(profile.iter().map(|&(term, rtf)| (term, rtf, d)));
                d += 1;
            }
        }
        RefWords::select_entries(d as usize, entries, config)
    }

    /// The selection over `n` documents whose `(term, relative frequency bits, document)`
    /// entries are given.
    fn select_entries(
        n: usize,
        entries: Vec<(u64, u32, u32)>,
        config: &RefWordsConfig,
    ) -> (RefWords, SelectionReport) {
        let steps = config.threshold_steps.max(1);
        let delta = if config.delta >= 0.0 { config.delta } else { 0.0 };
        let min_df = config.min_df.max(1) as usize;
        let max_df = if config.max_df_fraction.is_nan() {
            0
        } else {
            (config.max_df_fraction.clamp(0.0, 1.0) * n as f64).floor() as usize
        };
        let dist = Distributions::build(entries, min_df, max_df);
        let mut report =
            SelectionReport { docs: n, candidates: dist.len(), ..SelectionReport::default() };

        // Phase-1 thresholds depend on the word's distribution only: computed once.
        let phase1: Vec<Option<u32>> = (0..dist.len())
            .into_par_iter()
            .map_init(Vec::new, |counts, w| {
                let values = &dist.values[dist.range(w)];
                window_counts(values, steps, delta, counts);
                phase1_threshold(counts, values.len(), config.min_precision)
            })
            .collect();
        let mut active: Vec<usize> = (0..dist.len()).filter(|&w| phase1[w].is_some()).collect();
        report.infeasible = dist.len() - active.len();
        if active.is_empty() || n == 0 {
            return (RefWords::default(), report);
        }

        let target = config.words;
        let mut thr: Vec<u32> = vec![0; dist.len()];
        let mut cnt: Vec<u32> = vec![0; n];
        let mut counts: Vec<u32> = Vec::with_capacity(steps as usize);
        let mut round = 0usize;
        loop {
            // Phase 1: maximal coverage at bounded precision.
            cnt.iter_mut().for_each(|c| *c = 0);
            for &w in &active {
                thr[w] = phase1[w].unwrap_or(0);
                let r = dist.range(w);
                let above = dist.first_above(w, grid(thr[w], steps));
                for &d in &dist.docs[r.start + above..r.end] {
                    cnt[d as usize] += 1;
                }
            }
            let coverage_phase1 = covered_share(&cnt);

            // Phase 2: maximal precision at fixed coverage, least precise words first.
            let prec = |w: usize, k: u32| {
                let values = &dist.values[dist.range(w)];
                let (lo, hi) = window(grid(k, steps), delta);
                let inside =
                    values.partition_point(|&v| v <= hi) - values.partition_point(|&v| v < lo);
                precision(inside, values.len())
            };
            let mut order: Vec<(f64, usize)> =
                active.iter().map(|&w| (prec(w, thr[w]), w)).collect();
            order.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            for &(_, w) in &order {
                let r = dist.range(w);
                let values = &dist.values[r.clone()];
                let wdocs = &dist.docs[r];
                let above = dist.first_above(w, grid(thr[w], steps));
                // The lowest rtf among documents in which this word sets the only bit.
                let bound = (above..values.len())
                    .find(|&i| cnt[wdocs[i] as usize] == 1)
                    .map_or(f32::INFINITY, |i| values[i]);
                window_counts(values, steps, delta, &mut counts);
                let Some(k) = phase2_threshold(&counts, steps, bound) else { continue };
                if k == thr[w] {
                    continue;
                }
                let new_above = dist.first_above(w, grid(k, steps));
                if new_above < above {
                    wdocs[new_above..above].iter().for_each(|&d| cnt[d as usize] += 1);
                } else {
                    wdocs[above..new_above].iter().for_each(|&d| cnt[d as usize] -= 1);
                }
                thr[w] = k;
            }
            let coverage = covered_share(&cnt);
            let mean_precision = if active.is_empty() {
                0.0
            } else {
                active.iter().map(|&w| prec(w, thr[w])).sum::<f64>() / active.len() as f64
            };
            report.rounds.push(RoundReport {
                words: active.len(),
                coverage_phase1,
                coverage,
                mean_precision,
                dropped: 0,
            });
            if active.len() <= target {
                break;
            }

            // Drop the worst words: fewest expected stable bits, covered(w) · precision(w).
            round += 1;
            let keep = if round >= config.rounds {
                target
            } else {
                let share = if config.drop_per_round.is_nan() {
                    0.0
                } else {
                    config.drop_per_round.clamp(0.0, 1.0)
                };
                let drop = ((active.len() as f64 * share).floor() as usize).max(1);
                active.len().saturating_sub(drop).max(target)
            };
            let mut scored: Vec<(f64, usize)> = active
                .iter()
                .map(|&w| {
                    let covered = dist.range(w).len() - dist.first_above(w, grid(thr[w], steps));
                    (covered as f64 * prec(w, thr[w]), w)
                })
                .collect();
            scored.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let dropped = active.len() - keep;
            active = scored[..keep].iter().map(|&(_, w)| w).collect();
            active.sort_unstable();
            if let Some(last) = report.rounds.last_mut() {
                last.dropped = dropped;
            }
        }
        let words = active
            .iter()
            .map(|&w| RefWord { term: dist.terms[w], threshold: grid(thr[w], steps) })
            .collect();
        (RefWords::with_table(words), report)
    }

    /// The signature of a document: bit i is set when `words()[i]`'s relative frequency in it
    /// exceeds the word's threshold; [`DocSignature::Unsignable`] when no bit is set.
    pub fn sign(&self, doc: &TermCounts) -> DocSignature {
        let max_tf = doc.max_tf();
        let mut bits = vec![0u64; self.words.len().div_ceil(64)];
        let mut any = false;
        for &(term, count) in &doc.terms {
            if let Some(i) = self.position(term)
                && relative_tf(count, max_tf) > self.words[i].threshold
            {
                bits[i / 64] |= 1u64 << (i % 64);
                any = true;
            }
        }
        if any { DocSignature::Signed(Signature { bits }) } else { DocSignature::Unsignable }
    }

    /// The signatures of many documents, in parallel.
    pub fn sign_all(&self, docs: &[TermCounts]) -> Vec<DocSignature> {
        docs.par_iter().map(|d| self.sign(d)).collect()
    }
}

/// What the selection reads of a collection: each document's relative frequency of each of its
/// terms (its *profile*: `(term, relative_tf as f32 bits)` in term order), as a multiset of
/// profiles. The study builds, for every word, the distribution of documents over its relative
/// frequency; phase 2 and the coverage also need which words a document shares (a word may not
/// leave a document it alone covers), so the documents' profiles are kept whole. Counted piece
/// by piece: [`merge`](Self::merge) adds multiplicities, [`subtract`](Self::subtract) removes a
/// document counted twice (a repeated text has the profile of its first copy), so the merged
/// result does not depend on the pieces or the order of merges.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RelativeFrequencies {
    /// Profile → how many documents have it.
    profiles: std::collections::BTreeMap<Vec<(u64, u32)>, u64>,
}

impl RelativeFrequencies {
    /// No document counted.
    pub fn new() -> RelativeFrequencies {
        RelativeFrequencies::default()
    }

    /// Counts one document.
    pub fn add(&mut self, doc: &TermCounts) {
        self.add_profile(profile(doc).collect(), 1);
    }

    fn add_profile(&mut self, profile: Vec<(u64, u32)>, times: u64) {
        if times > 0 {
            *self.profiles.entry(profile).or_insert(0) += times;
        }
    }

    /// Documents counted.
    pub fn docs(&self) -> u64 {
        self.profiles.values().sum()
    }

    /// Adds another piece's documents.
    pub fn merge(&mut self, other: RelativeFrequencies) {
        for (p, m) in other.profiles {
            self.add_profile(p, m);
        }
    }

    /// Removes documents counted twice (those another piece also counted); a profile never
    /// counted is ignored.
    pub fn subtract(&mut self, other: &RelativeFrequencies) {
        for (p, &m) in &other.profiles {
            if let Some(have) = self.profiles.get_mut(p) {
                *have = have.saturating_sub(m);
                if *have == 0 {
                    self.profiles.remove(p);
                }
            }
        }
    }

    /// The distinct profiles in order, each with its multiplicity.
    pub fn profiles(&self) -> impl Iterator<Item = (&[(u64, u32)], u64)> + '_ {
        self.profiles.iter().map(|(p, &m)| (p.as_slice(), m))
    }

    /// Profiles with their multiplicities (as [`profiles`](Self::profiles) gives them); equal
    /// profiles add up.
    pub fn from_profiles<I: IntoIterator<Item = (Vec<(u64, u32)>, u64)>>(
        profiles: I,
    ) -> RelativeFrequencies {
        let mut out = RelativeFrequencies::new();
        for (p, m) in profiles {
            out.add_profile(p, m);
        }
        out
    }
}

/// A document's profile: `(term, relative frequency as f32 bits)` in term order (the bits of
/// non-negative floats order as the floats do).
fn profile(doc: &TermCounts) -> impl Iterator<Item = (u64, u32)> + '_ {
    let max_tf = doc.max_tf();
    doc.terms.iter().map(move |&(term, count)| (term, relative_tf(count, max_tf).to_bits()))
}

/// Share of documents with at least one bit.
fn covered_share(cnt: &[u32]) -> f64 {
    if cnt.is_empty() {
        0.0
    } else {
        cnt.iter().filter(|&&c| c > 0).count() as f64 / cnt.len() as f64
    }
}

/// An N-bit document signature (bit i in word i / 64, position i % 64).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Signature {
    bits: Vec<u64>,
}

impl Signature {
    /// A signature from its 64-bit words.
    pub fn from_words(bits: Vec<u64>) -> Signature {
        Signature { bits }
    }

    /// The 64-bit words.
    pub fn words(&self) -> &[u64] {
        &self.bits
    }

    /// Whether bit `i` is set (false beyond the end).
    pub fn get(&self, i: usize) -> bool {
        self.bits.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
    }

    /// Number of set bits.
    pub fn count_ones(&self) -> u32 {
        self.bits.iter().map(|w| w.count_ones()).sum()
    }

    /// The positions of the set bits, ascending.
    pub fn ones(&self) -> impl Iterator<Item = u32> + '_ {
        self.bits.iter().enumerate().flat_map(|(i, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros();
                w &= w - 1;
                Some(i as u32 * 64 + b)
            })
        })
    }

    /// Hamming distance (a missing word counts as zeros).
    pub fn hamming(&self, other: &Signature) -> u32 {
        let n = self.bits.len().max(other.bits.len());
        (0..n)
            .map(|i| {
                let a = self.bits.get(i).copied().unwrap_or(0);
                let b = other.bits.get(i).copied().unwrap_or(0);
                (a ^ b).count_ones()
            })
            .sum()
    }

    /// A 64-bit key of the bits (xxh3), for grouping equal signatures.
    pub fn key(&self) -> u64 {
        let bytes: Vec<u8> = self.bits.iter().flat_map(|w| w.to_le_bytes()).collect();
        xxh3_64(&bytes)
    }
}

/// The outcome of signing a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DocSignature {
    /// At least one bit is set.
    Signed(Signature),
    /// No reference word exceeds its threshold in the document: it has no signature and is
    /// nobody's candidate by this method.
    Unsignable,
}

impl DocSignature {
    /// The signature, if the document has one.
    pub fn signature(&self) -> Option<&Signature> {
        match self {
            DocSignature::Signed(s) => Some(s),
            DocSignature::Unsignable => None,
        }
    }
}

/// The signature of a document if it has a set bit (a `Signed` value without one, which
/// [`RefWords::sign`] never makes, counts as unsignable).
fn nonzero(s: &DocSignature) -> Option<&Signature> {
    s.signature().filter(|s| s.bits.iter().any(|&w| w != 0))
}

/// Groups of at least two documents with equal signatures (unsignable documents are in none):
/// each group ascending, groups ordered by their first document.
pub fn equal_groups(sigs: &[DocSignature]) -> Vec<Vec<u32>> {
    let mut keyed: Vec<(u64, &Signature, u32)> =
        sigs.iter().enumerate().filter_map(|(i, s)| Some((0, nonzero(s)?, i as u32))).collect();
    keyed.par_iter_mut().for_each(|e| e.0 = e.1.key());
    keyed.par_sort_unstable_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)));
    let mut groups: Vec<Vec<u32>> = keyed
        .chunk_by(|a, b| a.0 == b.0 && a.1 == b.1)
        .filter(|run| run.len() > 1)
        .map(|run| run.iter().map(|e| e.2).collect())
        .collect();
    groups.sort_unstable();
    groups
}

/// Every pair `(a, b, distance)` with `a < b`, both signed, and Hamming distance ≤
/// `max_distance`, sorted; the same as comparing all pairs (see the module docs for how it
/// avoids that).
pub fn signature_candidates(sigs: &[DocSignature], max_distance: u32) -> Vec<(u32, u32, u32)> {
    if max_distance == 0 {
        let mut out: Vec<(u32, u32, u32)> = Vec::new();
        for g in equal_groups(sigs) {
            for (i, &a) in g.iter().enumerate() {
                out.extend(g[i + 1..].iter().map(|&b| (a, b, 0)));
            }
        }
        out.sort_unstable();
        return out;
    }
    let d = max_distance as usize;
    let ones: Vec<Vec<u32>> = sigs
        .par_iter()
        .map(|s| nonzero(s).map(|s| s.ones().collect()).unwrap_or_default())
        .collect();
    let nbits = ones.iter().filter_map(|o| o.last()).max().map_or(0, |&b| b as usize + 1);
    // Inverted index over bits: documents in ascending order.
    let mut starts = vec![0usize; nbits + 1];
    for o in &ones {
        for &b in o {
            starts[b as usize + 1] += 1;
        }
    }
    for i in 0..nbits {
        starts[i + 1] += starts[i];
    }
    let mut fill = starts.clone();
    let mut lists = vec![0u32; starts[nbits]];
    for (doc, o) in ones.iter().enumerate() {
        for &b in o {
            lists[fill[b as usize]] = doc as u32;
            fill[b as usize] += 1;
        }
    }
    let df = |b: u32| starts[b as usize + 1] - starts[b as usize];
    let n = sigs.len();
    // A few strided slices of the documents per thread, each with one stamp array.
    let slices = (rayon::current_num_threads() * 4).max(1);
    let mut out: Vec<(u32, u32, u32)> = (0..slices)
        .into_par_iter()
        .map(|slice| {
            let mut out = Vec::new();
            let mut stamp = vec![0u32; n];
            let mut prefix: Vec<u32> = Vec::new();
            for (generation, a) in (slice..n).step_by(slices).enumerate() {
                if ones[a].is_empty() {
                    continue;
                }
                // Distinct per probe: at most n / slices + 1 probes, far below u32::MAX.
                let generation = generation as u32 + 1;
                // The d + 1 rarest bits of A: any B within distance d has one of them.
                prefix.clear();
                prefix.extend_from_slice(&ones[a]);
                prefix.sort_unstable_by_key(|&b| (df(b), b));
                prefix.truncate(d.saturating_add(1));
                for &bit in &prefix {
                    let list = &lists[starts[bit as usize]..starts[bit as usize + 1]];
                    let from = list.partition_point(|&b| b as usize <= a);
                    for &b in &list[from..] {
                        if stamp[b as usize] == generation {
                            continue;
                        }
                        stamp[b as usize] = generation;
                        let ob = &ones[b as usize];
                        // |A Δ B| ≥ ||A| − |B||: most far pairs stop here.
                        if ones[a].len().abs_diff(ob.len()) > d {
                            continue;
                        }
                        let h = sorted_symmetric_difference(&ones[a], ob);
                        if h <= d {
                            out.push((a as u32, b, h as u32));
                        }
                    }
                }
            }
            out
        })
        .reduce(Vec::new, |mut a, b| {
            a.extend(b);
            a
        });
    // Disjoint pairs within distance d: both have fewer than d bits and d bits in total.
    let small: Vec<u32> = (0..n as u32)
        .filter(|&i| {
            let k = ones[i as usize].len();
            k > 0 && k < d
        })
        .collect();
    for (i, &a) in small.iter().enumerate() {
        for &b in &small[i + 1..] {
            let (oa, ob) = (&ones[a as usize], &ones[b as usize]);
            if oa.len() + ob.len() <= d && !sorted_intersect(oa, ob) {
                out.push((a, b, (oa.len() + ob.len()) as u32));
            }
        }
    }
    out.sort_unstable();
    out
}

/// |a Δ b| of two ascending lists.
fn sorted_symmetric_difference(a: &[u32], b: &[u32]) -> usize {
    let (mut i, mut j, mut common) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
        }
    }
    a.len() + b.len() - 2 * common
}

/// Whether two ascending lists share an element.
fn sorted_intersect(a: &[u32], b: &[u32]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Equal => return true,
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexical::collection::term_hash;
    use crate::sketch::minhash::splitmix64;
    use crate::text::normalize::normalize;

    fn brute_counts(values: &[f32], steps: u32, delta: f32) -> Vec<u32> {
        (0..steps)
            .map(|k| {
                let (lo, hi) = window(grid(k, steps), delta);
                values.iter().filter(|&&v| lo <= v && v <= hi).count() as u32
            })
            .collect()
    }

    fn random_values(state: &mut u64) -> Vec<f32> {
        let n = (splitmix64(state) % 60) as usize;
        let mut v: Vec<f32> = (0..n)
            .map(|_| {
                // Relative frequencies are fractions count / max_tf.
                let max = 1 + (splitmix64(state) % 40) as u32;
                let c = 1 + (splitmix64(state) % u64::from(max)) as u32;
                relative_tf(c, max)
            })
            .collect();
        v.sort_by(f32::total_cmp);
        v
    }

    #[test]
    fn threshold_placement_matches_a_brute_force_scan() {
        let mut state = 5u64;
        let mut counts = Vec::new();
        for _ in 0..500 {
            let values = random_values(&mut state);
            let steps = 1 + (splitmix64(&mut state) % 250) as u32;
            let delta = [0.0, 0.01, 0.05, 0.2][(splitmix64(&mut state) % 4) as usize];
            window_counts(&values, steps, delta, &mut counts);
            let brute = brute_counts(&values, steps, delta);
            assert_eq!(counts, brute);
            let df = values.len();
            // Phase 1: the lowest threshold with precision ≥ the bound, by scanning.
            for minp in [0.5, 0.9, 1.0] {
                let want = (0..steps).find(|&k| {
                    let (lo, hi) = window(grid(k, steps), delta);
                    let inside = values.iter().filter(|&&v| lo <= v && v <= hi).count();
                    precision(inside, df) >= minp
                });
                assert_eq!(phase1_threshold(&counts, df, minp), want);
            }
            // Phase 2: the fewest documents in the window among thresholds below the bound.
            for bound in [0.0f32, 0.1, 0.5, 1.0, f32::INFINITY] {
                let allowed: Vec<u32> = (0..steps).filter(|&k| grid(k, steps) < bound).collect();
                let want = allowed.iter().copied().min_by_key(|&k| (brute[k as usize], k));
                assert_eq!(phase2_threshold(&counts, steps, bound), want);
            }
        }
    }

    fn random_docs(state: &mut u64, n: usize, vocab: u64) -> Vec<TermCounts> {
        (0..n)
            .map(|_| {
                let len = (splitmix64(state) % 80) as usize;
                let mut hashes: Vec<u64> = (0..len)
                    .map(|_| {
                        // Skewed: small term ids are frequent.
                        let r = splitmix64(state) % vocab;
                        r * (splitmix64(state) % vocab) / vocab
                    })
                    .collect();
                hashes.sort_unstable();
                let terms: Vec<(u64, u32)> =
                    hashes.chunk_by(|a, b| a == b).map(|r| (r[0], r.len() as u32)).collect();
                TermCounts { terms, len: len as u32 }
            })
            .collect()
    }

    #[test]
    fn signature_bits_match_a_naive_computation() {
        let mut state = 11u64;
        let docs = random_docs(&mut state, 300, 200);
        let config = RefWordsConfig { words: 40, ..RefWordsConfig::default() };
        let (refs, _) = RefWords::select(&docs, &config);
        assert!(!refs.is_empty());
        for doc in &docs {
            let max_tf = doc.terms.iter().map(|t| t.1).max().unwrap_or(0);
            let naive: Vec<bool> = refs
                .words()
                .iter()
                .map(|w| {
                    let c = doc.terms.iter().find(|t| t.0 == w.term).map_or(0, |t| t.1);
                    c > 0 && (c as f32 / max_tf as f32) > w.threshold
                })
                .collect();
            match refs.sign(doc) {
                DocSignature::Signed(s) => {
                    for (i, &b) in naive.iter().enumerate() {
                        assert_eq!(s.get(i), b);
                    }
                    assert_eq!(s.count_ones() as usize, naive.iter().filter(|&&b| b).count());
                    assert_eq!(s.ones().count(), s.count_ones() as usize);
                }
                DocSignature::Unsignable => assert!(naive.iter().all(|&b| !b)),
            }
        }
        assert_eq!(refs.sign(&TermCounts::default()), DocSignature::Unsignable);
    }

    #[test]
    fn selection_invariants_and_determinism() {
        let mut state = 21u64;
        let docs = random_docs(&mut state, 800, 500);
        let config = RefWordsConfig { words: 60, ..RefWordsConfig::default() };
        let run = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| RefWords::select(&docs, &config))
        };
        let (a, ra) = run(1);
        let (b, rb) = run(4);
        assert_eq!(a, b);
        assert_eq!(ra, rb);
        assert_eq!(a.len(), 60);
        assert!(a.words().windows(2).all(|w| w[0].term < w[1].term));
        assert!(ra.rounds.len() > 1, "{ra:?}");
        for r in &ra.rounds {
            // Phase 2 never loses coverage; every word keeps its precision bound or better.
            assert!(r.coverage >= r.coverage_phase1, "{r:?}");
            assert!(r.mean_precision >= config.min_precision, "{r:?}");
        }
        // The reported coverage is the signed share.
        let sigs = a.sign_all(&docs);
        let signed = sigs.iter().filter(|s| s.signature().is_some()).count();
        assert_eq!(signed as f64 / docs.len() as f64, ra.coverage());
        // Every threshold's precision really is at least the bound.
        for w in a.words() {
            let mut values: Vec<f32> = docs
                .iter()
                .filter_map(|d| {
                    let c = d.terms.iter().find(|t| t.0 == w.term)?.1;
                    Some(relative_tf(c, d.max_tf()))
                })
                .collect();
            values.sort_by(f32::total_cmp);
            let (lo, hi) = window(w.threshold, DEFAULT_DELTA);
            let inside = values.iter().filter(|&&v| lo <= v && v <= hi).count();
            assert!(precision(inside, values.len()) >= config.min_precision);
        }
        // Degenerate input does not panic.
        assert!(RefWords::select(&[], &config).0.is_empty());
        let odd = RefWordsConfig {
            delta: f32::NAN,
            threshold_steps: 0,
            drop_per_round: f64::NAN,
            max_df_fraction: f64::NAN,
            rounds: 0,
            ..config.clone()
        };
        let _ = RefWords::select(&docs, &odd);
        let odd = RefWordsConfig { max_df_fraction: 1.0, words: 0, ..odd };
        assert!(RefWords::select(&docs, &odd).0.is_empty());
    }

    /// The relative frequencies counted piece by piece (random pieces, texts repeated within a
    /// piece and across pieces, each repeat subtracted as a piecewise engine subtracts it, some
    /// pieces carried through bytes of their profiles) select the words and report of the
    /// pipeline's own selection over the distinct documents.
    #[test]
    fn merged_relative_frequencies_select_as_the_whole_collection() {
        let mut state = 41u64;
        let mut selected = 0;
        for round in 0..12 {
            let n = 20 + (splitmix64(&mut state) % 400) as usize;
            let mut distinct = random_docs(&mut state, n, 60 + (round as u64) * 40);
            // Other documents with the same relative frequencies (every count doubled): one
            // profile counted several times.
            for d in 0..n / 10 {
                let mut twice = distinct[d * 7 % n].clone();
                twice.terms.iter_mut().for_each(|t| t.1 *= 2);
                twice.len *= 2;
                distinct.push(twice);
            }
            let n = distinct.len();
            // The input: distinct documents in order, some of them again at random places.
            let mut input: Vec<usize> = (0..n).collect();
            for _ in 0..n / 3 {
                let at = (splitmix64(&mut state) % (input.len() as u64 + 1)) as usize;
                input.insert(at, (splitmix64(&mut state) % n as u64) as usize);
            }
            // The heads: first copies, in input order (the pipeline's order).
            let mut seen = vec![false; n];
            let heads: Vec<TermCounts> = input
                .iter()
                .filter(|&&d| !std::mem::replace(&mut seen[d], true))
                .map(|&d| distinct[d].clone())
                .collect();
            let config = RefWordsConfig {
                words: 5 + (splitmix64(&mut state) % 40) as usize,
                max_df_fraction: [0.5, 0.8, 1.0][round % 3],
                ..RefWordsConfig::default()
            };
            let want = RefWords::select(&heads, &config);
            // Pieces of random sizes; every document counted, repeats subtracted.
            let mut merged = RelativeFrequencies::new();
            let mut repeats = RelativeFrequencies::new();
            let mut seen = vec![false; n];
            let mut at = 0;
            while at < input.len() {
                let len = 1 + (splitmix64(&mut state) % 50) as usize;
                let piece = &input[at..(at + len).min(input.len())];
                let mut part = RelativeFrequencies::new();
                for &d in piece {
                    part.add(&distinct[d]);
                    if std::mem::replace(&mut seen[d], true) {
                        repeats.add(&distinct[d]);
                    }
                }
                if splitmix64(&mut state).is_multiple_of(2) {
                    let profiles: Vec<(Vec<(u64, u32)>, u64)> =
                        part.profiles().map(|(p, m)| (p.to_vec(), m)).collect();
                    part = RelativeFrequencies::from_profiles(profiles);
                }
                merged.merge(part);
                at += len;
            }
            assert_eq!(merged.docs(), input.len() as u64);
            merged.subtract(&repeats);
            assert_eq!(merged.docs(), heads.len() as u64);
            let got = RefWords::select_counted(&merged, &config);
            selected += usize::from(want.0.len() >= 5);
            assert_eq!(got.0, want.0, "round {round}");
            assert_eq!(got.1, want.1, "round {round}");
            // And the signatures are the pipeline's.
            assert_eq!(got.0.sign_all(&heads), want.0.sign_all(&heads));
        }
        assert!(selected >= 10, "{selected} rounds selected words");
    }

    fn random_signatures(state: &mut u64, n: usize, bits: u32) -> Vec<DocSignature> {
        (0..n)
            .map(|_| {
                let k = splitmix64(state) % 6;
                if k == 0 {
                    return DocSignature::Unsignable;
                }
                if k == 1 && splitmix64(state).is_multiple_of(4) {
                    // Not made by `sign`, but must not break the candidates: no bit = unsignable.
                    return DocSignature::Signed(Signature::from_words(vec![0; 3]));
                }
                // Few distinct patterns so that close pairs are common.
                let mut w = vec![0u64; bits.div_ceil(64) as usize];
                for _ in 0..k {
                    let b = (splitmix64(state) % u64::from(bits)) as usize;
                    w[b / 64] |= 1u64 << (b % 64);
                }
                DocSignature::Signed(Signature::from_words(w))
            })
            .collect()
    }

    #[test]
    fn hamming_candidates_equal_all_pairs() {
        let mut state = 77u64;
        for round in 0..40 {
            let n = 1 + (splitmix64(&mut state) % 150) as usize;
            let bits = [3u32, 8, 70, 130][round % 4];
            let sigs = random_signatures(&mut state, n, bits);
            for d in 0..5u32 {
                let mut want = Vec::new();
                for a in 0..n {
                    for b in a + 1..n {
                        if let (Some(x), Some(y)) = (nonzero(&sigs[a]), nonzero(&sigs[b])) {
                            let h = x.hamming(y);
                            if h <= d {
                                want.push((a as u32, b as u32, h));
                            }
                        }
                    }
                }
                assert_eq!(signature_candidates(&sigs, d), want, "round {round}, d {d}");
            }
            // Equal groups are the equivalence classes of equal signed signatures.
            let groups = equal_groups(&sigs);
            for g in &groups {
                assert!(g.len() > 1);
                assert!(g.iter().all(|&i| sigs[i as usize] == sigs[g[0] as usize]));
            }
            let in_groups: usize = groups.iter().map(|g| g.len() * (g.len() - 1) / 2).sum();
            assert_eq!(in_groups, signature_candidates(&sigs, 0).len());
        }
    }

    /// Real article bodies (shared data).
    fn articles() -> Vec<String> {
        crate::testutil::shared_articles(150).into_iter().map(|(_, t)| t).collect()
    }

    /// Changes about `percent` % of the words.
    fn few_words_changed(text: &str, state: &mut u64, percent: u64) -> String {
        text.split_whitespace()
            .map(|w| {
                if splitmix64(state) % 100 < percent {
                    format!("changed{}", splitmix64(state) % 1000)
                } else {
                    w.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    #[ignore = "needs ../shared/data"]
    fn near_copies_of_real_articles_keep_their_signatures() {
        let arts = articles();
        let mut state = 1u64;
        let tc = |t: &str| TermCounts::from_normalized(&normalize(t), 9);
        let mut docs: Vec<TermCounts> = arts.iter().map(|t| tc(t)).collect();
        let n = docs.len();
        for t in &arts {
            docs.push(tc(&few_words_changed(t, &mut state, 3)));
        }
        let config = RefWordsConfig { words: 400, ..RefWordsConfig::default() };
        let (refs, report) = RefWords::select(&docs, &config);
        assert_eq!(refs.len(), 400, "{report:?}");
        let sigs = refs.sign_all(&docs);
        // The rate at which signed originals keep their signature in the copy.
        let keep_rate = |sigs: &[DocSignature]| {
            let signed: Vec<usize> = (0..n).filter(|&i| sigs[i].signature().is_some()).collect();
            signed.iter().filter(|&&i| sigs[i] == sigs[n + i]).count() as f64
                / signed.len().max(1) as f64
        };
        let kept = keep_rate(&sigs);
        // Baseline computed from the same data: the same words with the threshold at the median
        // relative frequency of the word's documents, a placement that ignores the ±Δ density.
        let median = RefWords::from_words(refs.words().iter().map(|w| {
            let mut v: Vec<f32> = docs
                .iter()
                .filter_map(|d| {
                    let c = d.terms.iter().find(|t| t.0 == w.term)?.1;
                    Some(relative_tf(c, d.max_tf()))
                })
                .collect();
            v.sort_by(f32::total_cmp);
            RefWord { term: w.term, threshold: v[v.len() / 2] - f32::EPSILON }
        }));
        let baseline = keep_rate(&median.sign_all(&docs));
        eprintln!(
            "coverage {:.3}, kept {kept:.3}, median-threshold baseline {baseline:.3}; {report:?}",
            report.coverage()
        );
        assert!(kept > 0.5 && kept > baseline, "kept {kept}, baseline {baseline}");
        // Different articles rarely share a signature: fewer colliding pairs among originals
        // than among the original/copy pairs that do.
        let collisions = signature_candidates(&sigs[..n], 0).len();
        let same =
            (0..n).filter(|&i| sigs[i].signature().is_some() && sigs[i] == sigs[n + i]).count();
        assert!(collisions < same, "{collisions} collisions, {same} kept");
        // The words are real terms of the collection.
        let the = term_hash("the", 9);
        assert!(refs.words().iter().all(|w| w.term != the), "'the' is too frequent to be chosen");
    }
}
