//! SimHash fingerprints. Contract: "give me a document's weighted features, I give you 64 bits
//! whose Hamming distance to another document's estimates the angle between their feature
//! vectors".
//!
//! **Fingerprint** (Charikar 2002). Every feature is a 64-bit hash with a weight. The hash is
//! re-mixed with the hasher's seed (so the bits do not depend on how the features were hashed) and
//! votes on each of the 64 output bits: V\[i\] += w if bit i of the re-mixed hash is set, else
//! V\[i\] −= w; bit i of the fingerprint is V\[i\] > 0 (a tie gives 0). Two documents whose weighted
//! feature vectors make an angle θ differ on each bit with probability θ/π, so a Hamming distance
//! h gives the estimate cos θ ≈ cos(π·h/64) ([`cosine_estimate`]).
//!
//! **Features** ([`SimFeatures`]) are the tokens of a [`NormalizedText`] or its word or character
//! shingles, hashed exactly as [`crate::shingles::Shingler`] hashes them (same seed, same hashes),
//! but kept as a multiset so that a feature occurring t times has term frequency t.
//! **Weights** ([`Weighting`]): 1 per distinct feature, the term frequency t, or t·idf with the
//! inverse document frequency of a [`DocFreq`] table.
//!
//! Pairs within a Hamming distance are found by [`crate::candidates::hamming`].
//!
//! ```
//! use lookalike::text::normalize::normalize;
//! use lookalike::candidates::hamming::{TableConfig, hamming_candidates};
//! use lookalike::sketch::simhash::{SimFeatures, SimHasher, Weighting};
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

use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::shingles::ShingleKind;
use crate::sketch::minhash::mix64;
use crate::text::normalize::NormalizedText;

/// Fingerprint width in bits.
pub const BITS: u32 = 64;

/// Default Hamming distance for near-duplicates at 64 bits (Manku et al.: k = 3).
pub const DEFAULT_MAX_DISTANCE: u32 = 3;

/// Largest number of tables a [`crate::candidates::hamming::TableConfig`] may ask for.
pub const MAX_TABLES: usize = 4096;

/// Salt of the re-mix of feature hashes, so that a SimHash seed equal to a shingle seed does not
/// cancel out.
const REMIX_SALT: u64 = 0xA076_1D64_78BD_642F;

/// How features are weighted before they vote.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
#[derive(clap::ValueEnum)]
pub enum Weighting {
    /// Every distinct feature weighs 1.
    None,
    /// A feature weighs its number of occurrences in the document (default).
    #[default]
    Tf,
    /// Occurrences times the feature's inverse document frequency in the collection.
    #[value(name = "tfidf", alias = "tf-idf")]
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
    /// Word or character shingles (as [`crate::shingles::Shingler`] makes them).
    Shingles(ShingleKind),
}

impl std::str::FromStr for SimFeatures {
    type Err = String;

    /// `tokens` or a shingle kind (`words:N`, `chars:N`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "tokens" {
            return Ok(SimFeatures::Tokens);
        }
        s.parse::<ShingleKind>()
            .map(SimFeatures::Shingles)
            .map_err(|e| format!("{e} (or `tokens`)"))
    }
}

/// Parses a Hamming distance as the options write it: a number, or `auto` (`None`: the distance
/// expected at the threshold).
pub fn parse_distance(s: &str) -> Result<Option<u32>, String> {
    if s == "auto" {
        return Ok(None);
    }
    s.parse::<u32>().map(Some).map_err(|_| format!("`{s}` is not a distance: a number or auto"))
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
    /// [`crate::shingles::Shingler`] with the same kind and seed; like it, a text shorter than one
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

    /// A table of `docs` documents with these `(feature, df)` counts (a repeated feature adds
    /// up): document frequencies counted elsewhere, e.g. merged from partial counts.
    pub fn from_counts(docs: u64, df: impl IntoIterator<Item = (u64, u32)>) -> Self {
        let mut t = DocFreq { docs, df: HashMap::new() };
        for (h, n) in df {
            let c = t.df.entry(h).or_insert(0);
            *c = c.saturating_add(n);
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

/// The Hamming distance between the SimHash fingerprints of two documents of equal size whose
/// shingle sets have Jaccard resemblance `t`: their unit-weight vectors make the angle
/// θ = arccos(2t / (1 + t)) (|A∩B| / √(|A|·|B|) with |A∩B| = 2t/(1+t)·|A|), and each of the 64
/// bits differs with probability θ/π (Charikar 2002). 10 at t = 0.8, 3 at t = 0.97: Manku et al.'s
/// k = 3 is for near-identical pages.
pub fn distance_for_jaccard(t: f64) -> u32 {
    let cos = (2.0 * t / (1.0 + t)).clamp(-1.0, 1.0);
    (64.0 * cos.acos() / std::f64::consts::PI).round() as u32
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shingles::Shingler;
    use crate::sketch::minhash::splitmix64;
    use crate::text::normalize::normalize;

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
}
