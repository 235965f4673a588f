//! SimHash fingerprints and Hamming-distance candidates. Contract: "give me a document's weighted
//! features, I give you 64 bits whose Hamming distance to another document's estimates the angle
//! between their feature vectors; give me fingerprints, I give you every pair within distance k".
//!
//! **Fingerprint** (Charikar 2002). Every feature is a 64-bit hash with a weight. The hash is
//! re-mixed with the hasher's seed (so the bits do not depend on how the features were hashed) and
//! votes on each of the 64 output bits: V\[i\] += w if bit i of the re-mixed hash is set, else
//! V\[i\] −= w; bit i of the fingerprint is V\[i\] > 0 (a tie gives 0). Two documents whose weighted
//! feature vectors make an angle θ differ on each bit with probability θ/π, so a Hamming distance
//! h gives the estimate cos θ ≈ cos(π·h/64) ([`cosine_estimate`]).
//!
//! **Features** ([`SimFeatures`]) are the tokens of a [`NormalizedText`] or its word or character
//! shingles, hashed exactly as [`crate::features::Shingler`] hashes them (same seed, same hashes),
//! but kept as a multiset so that a feature occurring t times has term frequency t.
//! **Weights** ([`Weighting`]): 1 per distinct feature, the term frequency t, or t·idf with the
//! inverse document frequency of a [`DocFreq`] table.
//!
//! **Candidates** (Manku, Jain & Das Sarma 2007). Comparing every pair is quadratic; instead the 64
//! bits are cut into b ≥ k+1 contiguous blocks and one table is built for every choice of b − k
//! *key blocks* (C(b, k) tables). Two fingerprints within Hamming distance k differ in at most k
//! blocks, so by pigeonhole they agree exactly on all key blocks of at least one table. Each table
//! is a sorted vector of compact `(key, doc)` pairs (the key is the fingerprint masked to its key
//! blocks), as [`crate::candidates`] does for LSH bands; every run of equal keys is a bucket whose
//! pairs get their full Hamming distance checked. [`hamming_candidates`] is exact: it returns
//! precisely the pairs within distance k, the same as an all-pairs scan.
//!
//! ```
//! use lookalike::normalize::normalize;
//! use lookalike::simhash::{SimFeatures, SimHasher, TableConfig, Weighting, hamming_candidates};
//!
//! let h = SimHasher::new(7);
//! let fp = |text: &str| {
//!     h.fingerprint_text(&normalize(text), SimFeatures::Tokens, Weighting::Tf, None)
//! };
//! let a = fp("the quick brown fox jumps over the lazy dog near the river bank at dawn today");
//! let b = fp("the quick brown fox jumps over the lazy dog near the river bank at dusk today");
//! let c = fp("completely unrelated words about databases indexes and query planners");
//! let pairs = hamming_candidates(&[a, b, c], 12, TableConfig::for_distance(12).unwrap());
//! assert_eq!(pairs.len(), 1);
//! assert_eq!((pairs[0].0, pairs[0].1), (0, 1));
//! ```

use std::collections::HashMap;

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::features::ShingleKind;
use crate::normalize::NormalizedText;
use crate::sketch::mix64;

/// Fingerprint width in bits.
pub const BITS: u32 = 64;

/// Default Hamming distance for near-duplicates at 64 bits (Manku et al.: k = 3).
pub const DEFAULT_MAX_DISTANCE: u32 = 3;

/// Largest number of tables a [`TableConfig`] may ask for.
pub const MAX_TABLES: usize = 4096;

/// Salt of the re-mix of feature hashes, so that a SimHash seed equal to a shingle seed does not
/// cancel out.
const REMIX_SALT: u64 = 0xA076_1D64_78BD_642F;

/// How features are weighted before they vote.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Weighting {
    /// Every distinct feature weighs 1.
    None,
    /// A feature weighs its number of occurrences in the document (default).
    #[default]
    Tf,
    /// Occurrences times the inverse document frequency of a [`DocFreq`] table.
    #[cfg_attr(feature = "clap", value(name = "tfidf", alias = "tf-idf"))]
    TfIdf,
}

/// Which features of a normalized text vote.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum SimFeatures {
    /// Single tokens (default).
    #[default]
    Tokens,
    /// Word or character shingles (as [`crate::features::Shingler`] makes them).
    Shingles(ShingleKind),
}

/// Computes 64-bit SimHash fingerprints. The seed decides both the feature hashes and their
/// re-mix; fingerprints are comparable only when made with the same seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimHasher {
    seed: u64,
}

impl SimHasher {
    /// A hasher with the given seed.
    pub fn new(seed: u64) -> Self {
        SimHasher { seed }
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The fingerprint of `(feature hash, weight)` pairs: bit i is set when the weights of the
    /// features whose re-mixed hash has bit i set outweigh the others. Features are summed in the
    /// order given (give them in a fixed order, e.g. sorted by hash, for bit-exact
    /// reproducibility with non-integer weights). No features, or all weights zero, give 0.
    pub fn fingerprint(&self, features: &[(u64, f64)]) -> u64 {
        let mut v = [0f64; 64];
        let salt = self.seed ^ REMIX_SALT;
        for &(h, w) in features {
            let x = mix64(h ^ salt);
            let w = w.to_bits();
            // +w when the bit is set, −w otherwise: flip the sign bit of w where x has a 0. The
            // same arithmetic as an if/else, but branch-free, so the loop vectorizes.
            for (i, vi) in v.iter_mut().enumerate() {
                let flip = (!x >> i) << 63;
                *vi += f64::from_bits(w ^ flip);
            }
        }
        v.iter().enumerate().fold(0u64, |fp, (i, &vi)| fp | (u64::from(vi > 0.0) << i))
    }

    /// The feature hashes of `norm` with repetitions (one per token or shingle occurrence),
    /// sorted, written into `out` (cleared first). Shingle hashes equal those of a
    /// [`crate::features::Shingler`] with the same kind and seed; like it, a text shorter than one
    /// shingle has one shingle made of all of it.
    pub fn feature_hashes_into(
        &self,
        norm: &NormalizedText,
        kind: SimFeatures,
        out: &mut Vec<u64>,
    ) {
        out.clear();
        let text = norm.text.as_bytes();
        match kind {
            SimFeatures::Tokens => {
                out.extend(
                    norm.tokens
                        .iter()
                        .map(|&(s, e)| xxh3_64_with_seed(&text[s as usize..e as usize], self.seed)),
                );
            }
            SimFeatures::Shingles(ShingleKind::Words(w)) => {
                let n = norm.tokens.len();
                if n > 0 {
                    let mut bytes = Vec::with_capacity(n * 8);
                    for &(s, e) in &norm.tokens {
                        let h = xxh3_64_with_seed(&text[s as usize..e as usize], self.seed);
                        bytes.extend_from_slice(&h.to_le_bytes());
                    }
                    let w = w.clamp(1, n);
                    let seed = self.seed ^ 0x9E37_79B9_7F4A_7C15;
                    out.extend(bytes.windows(w * 8).step_by(8).map(|b| xxh3_64_with_seed(b, seed)));
                }
            }
            SimFeatures::Shingles(ShingleKind::Chars(k)) => {
                if !norm.text.is_empty() {
                    let mut bounds: Vec<usize> = norm.text.char_indices().map(|(i, _)| i).collect();
                    bounds.push(text.len());
                    let k = k.clamp(1, bounds.len() - 1);
                    let seed = self.seed ^ 0xC2B2_AE3D_27D4_EB4F;
                    out.extend(
                        bounds.windows(k + 1).map(|b| xxh3_64_with_seed(&text[b[0]..b[k]], seed)),
                    );
                }
            }
        }
        out.sort_unstable();
    }

    /// The distinct feature hashes of `norm`, sorted: what [`DocFreq`] counts per document.
    pub fn feature_set(&self, norm: &NormalizedText, kind: SimFeatures) -> Vec<u64> {
        let mut out = Vec::new();
        self.feature_hashes_into(norm, kind, &mut out);
        out.dedup();
        out
    }

    /// The weighted features of `norm`, sorted by hash, one per distinct feature, written into
    /// `out` (cleared first). With [`Weighting::TfIdf`], `df` gives the idf; without a table every
    /// idf is 1 (plain tf).
    pub fn weighted_features_into(
        &self,
        norm: &NormalizedText,
        kind: SimFeatures,
        weighting: Weighting,
        df: Option<&DocFreq>,
        out: &mut Vec<(u64, f64)>,
    ) {
        let mut hashes = Vec::new();
        self.feature_hashes_into(norm, kind, &mut hashes);
        weigh(&hashes, weighting, df, out);
    }

    /// Convenience: the fingerprint of `norm`'s weighted features.
    pub fn fingerprint_text(
        &self,
        norm: &NormalizedText,
        kind: SimFeatures,
        weighting: Weighting,
        df: Option<&DocFreq>,
    ) -> u64 {
        let mut features = Vec::new();
        self.weighted_features_into(norm, kind, weighting, df, &mut features);
        self.fingerprint(&features)
    }
}

/// Weighs a sorted multiset of feature hashes (as [`SimHasher::feature_hashes_into`] makes it):
/// one `(hash, weight)` per distinct hash, in hash order, written into `out` (cleared first).
/// With [`Weighting::TfIdf`] and no `df`, every idf is 1.
pub fn weigh(
    sorted: &[u64],
    weighting: Weighting,
    df: Option<&DocFreq>,
    out: &mut Vec<(u64, f64)>,
) {
    debug_assert!(sorted.is_sorted(), "feature hashes must be sorted");
    out.clear();
    for run in sorted.chunk_by(|a, b| a == b) {
        let (h, tf) = (run[0], run.len() as f64);
        let w = match weighting {
            Weighting::None => 1.0,
            Weighting::Tf => tf,
            Weighting::TfIdf => tf * df.map_or(1.0, |d| d.idf(h)),
        };
        out.push((h, w));
    }
}

/// Document frequencies of feature hashes over a collection, for tf·idf weights.
///
/// The idf is smoothed as in scikit-learn's default: idf(f) = ln((N + 1) / (df(f) + 1)) + 1, as
/// if one extra document contained every feature. It is never zero (a feature in every document
/// still weighs 1, so a text made only of common words keeps a fingerprint) and never infinite
/// (a feature never seen gets the largest value, ln(N + 1) + 1). Memory: one `u64 → u32` hash-map
/// entry per distinct feature of the collection (about 16–24 bytes each).
#[derive(Debug, Clone, Default)]
pub struct DocFreq {
    docs: u64,
    df: HashMap<u64, u32>,
}

impl DocFreq {
    /// An empty table (N = 0).
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts one document given its feature hashes; repeated hashes count once.
    pub fn add_document(&mut self, features: &[u64]) {
        self.docs += 1;
        let mut set = features.to_vec();
        set.sort_unstable();
        set.dedup();
        for h in set {
            let c = self.df.entry(h).or_insert(0);
            *c = c.saturating_add(1);
        }
    }

    /// A table counting every document of `docs` (each an iterator item of feature hashes).
    pub fn from_documents<I, S>(docs: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<[u64]>,
    {
        let mut t = Self::new();
        for d in docs {
            t.add_document(d.as_ref());
        }
        t
    }

    /// Number of documents N.
    pub fn num_docs(&self) -> u64 {
        self.docs
    }

    /// Number of documents that contain feature `h`.
    pub fn df(&self, h: u64) -> u32 {
        self.df.get(&h).copied().unwrap_or(0)
    }

    /// Number of distinct features seen.
    pub fn len(&self) -> usize {
        self.df.len()
    }

    /// True when no feature has been seen.
    pub fn is_empty(&self) -> bool {
        self.df.is_empty()
    }

    /// The smoothed inverse document frequency ln((N + 1) / (df + 1)) + 1.
    pub fn idf(&self, h: u64) -> f64 {
        ((self.docs as f64 + 1.0) / (f64::from(self.df(h)) + 1.0)).ln() + 1.0
    }
}

/// Number of differing bits.
pub fn hamming(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}

/// The fraction of agreeing bits, 1 − h/64.
pub fn similarity(h: u32) -> f64 {
    1.0 - f64::from(h) / f64::from(BITS)
}

/// The cosine similarity estimated from a Hamming distance: cos(π·h/64).
pub fn cosine_estimate(h: u32) -> f64 {
    (std::f64::consts::PI * f64::from(h) / f64::from(BITS)).cos()
}

/// How the 64 bits are cut for [`hamming_candidates`]: `blocks` contiguous blocks (widths differ
/// by at most one bit), one table per choice of `blocks − k` key blocks, `tables` = C(blocks, k).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TableConfig {
    blocks: usize,
    tables: usize,
}

impl TableConfig {
    /// `blocks` blocks for distance `k`: `None` unless k + 1 ≤ blocks ≤ 64 and C(blocks, k) ≤
    /// [`MAX_TABLES`].
    pub fn new(blocks: usize, k: u32) -> Option<TableConfig> {
        let k = k as usize;
        if blocks < k + 1 || blocks > BITS as usize {
            return None;
        }
        let tables = binomial(blocks, k)?;
        (tables <= MAX_TABLES).then_some(TableConfig { blocks, tables })
    }

    /// Manku's minimal configuration: k + 1 blocks, k + 1 tables keyed on 64·1/(k+1) bits. Best
    /// for collections up to about 2^(64/(k+1)) documents (65 536 at k = 3).
    pub fn for_distance(k: u32) -> Option<TableConfig> {
        TableConfig::new(k as usize + 1, k)
    }

    /// The block count minimising a rough cost model for `n` fingerprints: per table, a sort of
    /// n·log₂n and n²/2^(key bits) chance collisions to check (key bits counted for the narrowest
    /// key). More blocks mean longer keys (fewer chance collisions) but more tables.
    pub fn for_collection(k: u32, n: usize) -> Option<TableConfig> {
        let n = n.max(2) as f64;
        let mut best: Option<(f64, TableConfig)> = None;
        for blocks in k as usize + 1..=BITS as usize {
            let Some(cfg) = TableConfig::new(blocks, k) else { break };
            let widest = (BITS as usize).div_ceil(blocks);
            let key_bits = BITS as i32 - (k as usize * widest) as i32;
            let cost = cfg.tables as f64 * (n * n.log2() + n * n * 2f64.powi(-key_bits));
            if best.is_none_or(|(c, _)| cost < c) {
                best = Some((cost, cfg));
            }
        }
        best.map(|(_, cfg)| cfg)
    }

    /// Number of blocks b.
    pub fn blocks(&self) -> usize {
        self.blocks
    }

    /// Number of tables C(b, k).
    pub fn tables(&self) -> usize {
        self.tables
    }

    /// The key mask of every table: every union of `blocks − k` of the blocks.
    fn key_masks(&self, k: u32) -> Vec<u64> {
        let b = self.blocks;
        let block_mask = |i: usize| {
            let (lo, hi) = (i * BITS as usize / b, (i + 1) * BITS as usize / b);
            let ones = if hi - lo == 64 { u64::MAX } else { (1u64 << (hi - lo)) - 1 };
            ones << lo
        };
        let mut masks = Vec::with_capacity(self.tables);
        let mut chosen = Vec::new();
        combinations(b, b - k as usize, 0, &mut chosen, &mut |c| {
            masks.push(c.iter().fold(0u64, |m, &i| m | block_mask(i)));
        });
        masks
    }
}

/// C(n, k), or `None` on overflow.
fn binomial(n: usize, k: usize) -> Option<usize> {
    let k = k.min(n - k);
    let mut c: usize = 1;
    for i in 0..k {
        c = c.checked_mul(n - i)? / (i + 1);
    }
    Some(c)
}

/// Calls `f` with every increasing `want`-subset of `start..n`, appended to `chosen`.
fn combinations(
    n: usize,
    want: usize,
    start: usize,
    chosen: &mut Vec<usize>,
    f: &mut impl FnMut(&[usize]),
) {
    if chosen.len() == want {
        f(chosen);
        return;
    }
    for i in start..=n - (want - chosen.len()) {
        chosen.push(i);
        combinations(n, want, i + 1, chosen, f);
        chosen.pop();
    }
}

/// Every pair `(i, j, distance)` with `i < j` and `hamming(fps[i], fps[j]) ≤ k`, sorted and
/// deduplicated: the same answer as an all-pairs scan, found with Manku's tables.
///
/// Cost, for n fingerprints and T = `cfg.tables()` tables: T sorts of n `(key, doc)` pairs of 16
/// bytes (memory 16·n bytes at a time, tables are built one after the other), plus one popcount
/// per pair of documents sharing a key: the true near-duplicates (once per table they agree on)
/// and about n²/2^(key bits + 1) chance collisions per table. Identical fingerprints (e.g. many
/// empty documents) form one bucket whose m(m−1)/2 pairs are all genuine answers.
///
/// # Panics
/// If `cfg` was not made for this `k` (its table count is not C(blocks, k)), or if there are more
/// than `u32::MAX` fingerprints.
pub fn hamming_candidates(fps: &[u64], k: u32, cfg: TableConfig) -> Vec<(u32, u32, u32)> {
    assert_eq!(
        TableConfig::new(cfg.blocks, k),
        Some(cfg),
        "table configuration {cfg:?} was not made for distance {k}"
    );
    assert!(fps.len() <= u32::MAX as usize, "too many fingerprints for 32-bit indices");
    let mut pairs: Vec<(u32, u32, u32)> = Vec::new();
    let mut entries: Vec<(u64, u32)> = Vec::with_capacity(fps.len());
    for mask in cfg.key_masks(k) {
        entries.clear();
        entries.par_extend(fps.par_iter().enumerate().map(|(d, &fp)| (fp & mask, d as u32)));
        entries.par_sort_unstable();
        // Buckets are independent: scan them in parallel, each emitting its close pairs in order.
        let found: Vec<(u32, u32, u32)> = entries
            .par_chunk_by(|a, b| a.0 == b.0)
            .filter(|bucket| bucket.len() > 1)
            .flat_map_iter(|bucket| {
                bucket.iter().enumerate().flat_map(move |(x, &(_, i))| {
                    bucket[x + 1..].iter().filter_map(move |&(_, j)| {
                        let d = hamming(fps[i as usize], fps[j as usize]);
                        (d <= k).then_some((i, j, d))
                    })
                })
            })
            .collect();
        pairs.extend(found);
        // Keep memory bounded by the distinct pairs, not pairs × tables.
        if pairs.len() > 1 << 24 {
            pairs.par_sort_unstable();
            pairs.dedup();
        }
    }
    pairs.par_sort_unstable();
    pairs.dedup();
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::Shingler;
    use crate::normalize::normalize;
    use crate::sketch::splitmix64;

    /// Slow reference: the definition, one explicit ±w per bit.
    fn reference_fingerprint(seed: u64, features: &[(u64, f64)]) -> u64 {
        let mut v = [0f64; 64];
        for &(h, w) in features {
            let x = mix64(h ^ seed ^ REMIX_SALT);
            for (i, vi) in v.iter_mut().enumerate() {
                if x & (1 << i) != 0 {
                    *vi += w;
                } else {
                    *vi -= w;
                }
            }
        }
        let mut fp = 0;
        for (i, &vi) in v.iter().enumerate() {
            if vi > 0.0 {
                fp |= 1 << i;
            }
        }
        fp
    }

    /// Slow reference: every pair.
    fn all_pairs(fps: &[u64], k: u32) -> Vec<(u32, u32, u32)> {
        let mut out = Vec::new();
        for i in 0..fps.len() {
            for j in i + 1..fps.len() {
                let d = (0..64).filter(|&b| (fps[i] >> b) & 1 != (fps[j] >> b) & 1).count() as u32;
                if d <= k {
                    out.push((i as u32, j as u32, d));
                }
            }
        }
        out
    }

    const WORDS: &[&str] = &[
        "near",
        "duplicate",
        "detection",
        "finds",
        "documents",
        "that",
        "are",
        "almost",
        "the",
        "same",
        "search",
        "engine",
        "crawler",
        "page",
        "index",
        "query",
        "shingle",
        "hash",
        "river",
        "bank",
        "market",
        "price",
        "report",
        "weather",
        "city",
        "council",
        "meeting",
        "budget",
        "school",
        "library",
        "train",
        "station",
        "morning",
        "evening",
        "summer",
        "winter",
    ];

    fn words(state: &mut u64, n: usize) -> Vec<&'static str> {
        (0..n).map(|_| WORDS[(splitmix64(state) % WORDS.len() as u64) as usize]).collect()
    }

    fn flip_bits(state: &mut u64, fp: u64, d: u32) -> u64 {
        let mut out = fp;
        while hamming(out, fp) < d {
            out ^= 1 << (splitmix64(state) % 64);
        }
        out
    }

    #[test]
    fn fast_fingerprint_equals_the_reference() {
        let mut st = 5;
        for seed in [0, 1, 99] {
            let h = SimHasher::new(seed);
            for n in [0, 1, 2, 7, 100, 1000] {
                let feats: Vec<(u64, f64)> = (0..n)
                    .map(|_| {
                        let w = (splitmix64(&mut st) % 1000) as f64 / 37.0 - 5.0;
                        (splitmix64(&mut st), w)
                    })
                    .collect();
                assert_eq!(h.fingerprint(&feats), reference_fingerprint(seed, &feats), "{n}");
            }
        }
        assert_eq!(SimHasher::new(3).fingerprint(&[]), 0);
    }

    #[test]
    fn identical_feature_sets_give_equal_fingerprints_in_any_order() {
        let h = SimHasher::new(11);
        let mut st = 3;
        let mut feats: Vec<(u64, f64)> =
            (0..500).map(|i| (splitmix64(&mut st), f64::from(1 + i % 4))).collect();
        let fp = h.fingerprint(&feats);
        assert_eq!(fp, h.fingerprint(&feats.clone()));
        feats.reverse(); // integer weights: sums are exact in any order
        assert_eq!(fp, h.fingerprint(&feats));
        assert_ne!(fp, SimHasher::new(12).fingerprint(&feats));
    }

    #[test]
    fn small_edits_change_few_bits_and_unrelated_texts_many() {
        let h = SimHasher::new(1);
        let mut st = 17;
        let kinds = [
            SimFeatures::Tokens,
            SimFeatures::Shingles(ShingleKind::Words(3)),
            SimFeatures::Shingles(ShingleKind::Chars(5)),
        ];
        for kind in kinds {
            let (mut near, mut far) = (0, 0);
            let trials = 20;
            for _ in 0..trials {
                let base = words(&mut st, 400);
                let mut edited = base.clone();
                for _ in 0..4 {
                    let at = (splitmix64(&mut st) % 400) as usize;
                    edited[at] = "edited";
                }
                let other = words(&mut st, 400);
                let fp = |w: &[&str]| {
                    h.fingerprint_text(&normalize(&w.join(" ")), kind, Weighting::Tf, None)
                };
                near += hamming(fp(&base), fp(&edited));
                far += hamming(fp(&base), fp(&other));
            }
            let (near, far) = (near / trials, far / trials);
            assert!(near <= 8, "{kind:?}: mean distance after a small edit {near}");
            assert!(far >= 10 || matches!(kind, SimFeatures::Tokens), "{kind:?}: {far}");
            assert!(far > near, "{kind:?}: {far} vs {near}");
        }
    }

    #[test]
    fn a_heavy_feature_decides_every_bit() {
        let h = SimHasher::new(4);
        let mut st = 8;
        let light: Vec<(u64, f64)> = (0..200).map(|_| (splitmix64(&mut st), 1.0)).collect();
        let heavy = (123_456u64, 1000.0);
        let mut feats = light.clone();
        feats.push(heavy);
        let alone = h.fingerprint(&[heavy]);
        assert_eq!(h.fingerprint(&feats), alone);
        assert_eq!(alone, mix64(heavy.0 ^ 4 ^ REMIX_SALT));
        // With weight 1 it is one voice among 201.
        feats.last_mut().unwrap().1 = 1.0;
        assert!(hamming(h.fingerprint(&feats), alone) > 8);
    }

    #[test]
    fn shingle_features_match_the_shingler_and_count_repetitions() {
        let h = SimHasher::new(21);
        let text = "a rose is a rose is a rose, and a rose is red. Дубль重複文書";
        let norm = normalize(text);
        for kind in [ShingleKind::Words(1), ShingleKind::Words(3), ShingleKind::Chars(4)] {
            let expect = Shingler::new(kind, 21).shingle_set(text);
            assert_eq!(h.feature_set(&norm, SimFeatures::Shingles(kind)), expect, "{kind}");
        }
        // Short texts: one shingle of everything, as the shingler does.
        let short = normalize("two words");
        let kind = ShingleKind::Words(5);
        assert_eq!(
            h.feature_set(&short, SimFeatures::Shingles(kind)),
            Shingler::new(kind, 21).shingle_set("two words")
        );
        let mut feats = Vec::new();
        h.weighted_features_into(&norm, SimFeatures::Tokens, Weighting::Tf, None, &mut feats);
        let rose = xxh3_64_with_seed(b"rose", 21);
        assert_eq!(feats.iter().find(|f| f.0 == rose).unwrap().1, 4.0);
        h.weighted_features_into(&norm, SimFeatures::Tokens, Weighting::None, None, &mut feats);
        assert!(feats.iter().all(|f| f.1 == 1.0));
        assert!(feats.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn doc_freq_and_idf_by_hand() {
        // N = 4: a in all four, b in one (twice in it), c in two, d never.
        let df = DocFreq::from_documents([vec![1u64, 2, 2, 3], vec![1, 3], vec![1], vec![1]]);
        assert_eq!(df.num_docs(), 4);
        assert_eq!((df.df(1), df.df(2), df.df(3), df.df(4)), (4, 1, 2, 0));
        assert_eq!(df.len(), 3);
        assert!((df.idf(1) - 1.0).abs() < 1e-12); // ln(5/5) + 1
        assert!((df.idf(2) - ((5.0f64 / 2.0).ln() + 1.0)).abs() < 1e-12);
        assert!((df.idf(3) - ((5.0f64 / 3.0).ln() + 1.0)).abs() < 1e-12);
        assert!((df.idf(4) - (5.0f64.ln() + 1.0)).abs() < 1e-12);
        let mut out = Vec::new();
        weigh(&[1, 2, 2, 4], Weighting::TfIdf, Some(&df), &mut out);
        assert_eq!(out.len(), 3);
        assert!((out[1].1 - 2.0 * df.idf(2)).abs() < 1e-12);
        weigh(&[1, 2, 2, 4], Weighting::TfIdf, None, &mut out);
        assert_eq!(out, vec![(1, 1.0), (2, 2.0), (4, 1.0)]);
    }

    #[test]
    fn tf_idf_lets_rare_words_decide() {
        // Two texts sharing only words that every document of the collection has: under tf they
        // look alike, under tf·idf their rare words decide and they are far apart.
        let common = "the of and a to in is it that for on with as at by from";
        let texts = [
            format!("{common} quantum chromodynamics lattice gauge theory"),
            format!("{common} medieval tapestry weaving guilds flanders"),
        ];
        let norms: Vec<NormalizedText> = texts.iter().map(|t| normalize(t)).collect();
        let (mut tf, mut tfidf) = (0, 0);
        for seed in 0..16 {
            let h = SimHasher::new(seed);
            let mut corpus: Vec<Vec<u64>> =
                norms.iter().map(|n| h.feature_set(n, SimFeatures::Tokens)).collect();
            let filler = normalize(&format!("{common} filler"));
            corpus.extend((0..20).map(|_| h.feature_set(&filler, SimFeatures::Tokens)));
            let df = DocFreq::from_documents(&corpus);
            let fp =
                |n: &NormalizedText, w| h.fingerprint_text(n, SimFeatures::Tokens, w, Some(&df));
            tf += hamming(fp(&norms[0], Weighting::Tf), fp(&norms[1], Weighting::Tf));
            tfidf += hamming(fp(&norms[0], Weighting::TfIdf), fp(&norms[1], Weighting::TfIdf));
        }
        assert!(tfidf > tf + 16 * 4, "tf·idf {tfidf} vs tf {tf} (sums over 16 seeds)");
    }

    #[test]
    fn similarity_and_cosine_estimates() {
        assert_eq!(hamming(0b1011, 0b0110), 3);
        assert_eq!(hamming(0, u64::MAX), 64);
        assert_eq!(similarity(0), 1.0);
        assert_eq!(similarity(16), 0.75);
        assert_eq!(cosine_estimate(0), 1.0);
        assert!(cosine_estimate(32).abs() < 1e-12);
        assert!((cosine_estimate(64) + 1.0).abs() < 1e-12);
    }

    #[test]
    fn table_configs() {
        let c = TableConfig::for_distance(3).unwrap();
        assert_eq!((c.blocks(), c.tables()), (4, 4));
        assert_eq!(TableConfig::new(6, 3).unwrap().tables(), 20);
        assert_eq!(TableConfig::new(3, 3), None);
        assert_eq!(TableConfig::new(65, 0), None);
        assert_eq!(TableConfig::new(64, 0).unwrap().tables(), 1);
        assert_eq!(TableConfig::new(40, 20), None); // too many tables
        // Key masks: C(b, b−k) distinct masks, each covering b − k blocks.
        for (b, k) in [(4, 3), (6, 3), (7, 2), (5, 0), (64, 1)] {
            let cfg = TableConfig::new(b, k).unwrap();
            let masks = cfg.key_masks(k);
            assert_eq!(masks.len(), cfg.tables());
            let all: std::collections::BTreeSet<u64> = masks.iter().copied().collect();
            assert_eq!(all.len(), masks.len());
            let ones: u32 = masks.iter().map(|m| m.count_ones()).sum();
            assert_eq!(ones as usize, 64 * cfg.tables() * (b - k as usize) / b);
        }
        // Larger collections want longer keys.
        let small = TableConfig::for_collection(3, 1000).unwrap();
        let huge = TableConfig::for_collection(3, 1 << 33).unwrap();
        assert_eq!(small.blocks(), 4);
        assert!(huge.blocks() > 4, "{huge:?}");
    }

    #[test]
    fn hamming_candidates_equal_all_pairs() {
        let mut st = 41;
        for k in 0..=4u32 {
            // Random fingerprints with planted near-duplicates at every distance 0..=k+1, and a
            // low-entropy set (only 10 random bits) where many pairs are close by chance.
            let mut fps: Vec<u64> = (0..600).map(|_| splitmix64(&mut st)).collect();
            for d in 0..=k + 1 {
                for _ in 0..20 {
                    let src = fps[(splitmix64(&mut st) % 600) as usize];
                    fps.push(flip_bits(&mut st, src, d));
                }
            }
            fps.extend((0..300).map(|_| splitmix64(&mut st) & 0x8421_0000_0F00_1001));
            fps.extend([7, 7, 7]);
            let expect = all_pairs(&fps, k);
            assert!(expect.iter().any(|p| p.2 == k), "k={k}: no pair at exactly k");
            assert!(all_pairs(&fps, k + 1).iter().any(|p| p.2 == k + 1));
            let mut configs: Vec<TableConfig> = [k + 1, k + 2, k + 4, 16]
                .iter()
                .filter_map(|&b| TableConfig::new(b as usize, k))
                .collect();
            configs.extend(TableConfig::for_collection(k, fps.len()));
            for cfg in configs {
                let got = hamming_candidates(&fps, k, cfg);
                assert_eq!(got, expect, "k={k} {cfg:?}");
            }
        }
    }

    #[test]
    fn pairs_at_exactly_k_are_found_and_at_k_plus_one_not() {
        let mut st = 9;
        for k in 0..=4u32 {
            let a = splitmix64(&mut st);
            let fps = [a, flip_bits(&mut st, a, k), flip_bits(&mut st, a, k + 1)];
            let cfg = TableConfig::for_distance(k).unwrap();
            let got = hamming_candidates(&fps, k, cfg);
            assert!(got.contains(&(0, 1, k)), "k={k}: {got:?}");
            assert!(!got.iter().any(|p| (p.0, p.1) == (0, 2)), "k={k}: {got:?}");
        }
        assert!(hamming_candidates(&[], 3, TableConfig::for_distance(3).unwrap()).is_empty());
    }

    #[test]
    #[should_panic(expected = "not made for distance")]
    fn a_config_for_another_distance_is_rejected() {
        hamming_candidates(&[1, 2], 2, TableConfig::for_distance(3).unwrap());
    }
}
