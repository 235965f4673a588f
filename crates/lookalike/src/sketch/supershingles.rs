//! Super-shingles and mega-shingles. Contract: "give me a document's MinHash signature, I give you
//! a handful of 64-bit keys such that near-duplicates share at least one key".
//!
//! Broder, "On the resemblance and containment of documents" (1997); Fetterly, Manasse & Najork,
//! "On the evolution of clusters of near-duplicate web pages" (2003). A signature of 84 min-hash
//! values is cut into 6 groups of 14 consecutive values and each group is hashed to one
//! *super-shingle*. Two documents of resemblance p agree on a whole group with probability
//! q = p¹⁴ (treating the coordinates as independent). Fetterly et al. call two documents
//! near-duplicates when at least 2 of their 6 super-shingles agree; to find them by equality of one
//! key, each of the C(6,2) = 15 pairs of super-shingles is hashed again to a *mega-shingle*, and
//! two documents share a mega-shingle exactly when they share at least two super-shingles (up to
//! 64-bit hash collisions).
//!
//! [`match_probability`] gives the S-curve of either mode. Computed values with the defaults
//! (checked in the tests): p = 0.95 → q ≈ 0.488 and P(≥ 2 of 6) ≈ 0.879; p = 0.80 → q ≈ 0.044
//! and P(≥ 2 of 6) ≈ 0.026 (the pairs-mode match probability, not q). In single mode (any 1 of
//! 6 equal) the same p give ≈ 0.982 and ≈ 0.236.
//!
//! [`candidate_pairs`] groups documents by key the way [`crate::candidates::lsh`] does: compact
//! `(key, doc)` pairs are sorted and each run of equal keys is a bucket expanded to all its pairs.

use xxhash_rust::xxh3::xxh3_64_with_seed;

/// Which keys a document gets and what counts as a match.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
#[derive(clap::ValueEnum)]
pub enum SuperShingleMode {
    /// Mega-shingles: a match needs at least 2 equal super-shingles (Fetterly et al. 2003).
    #[default]
    Pairs,
    /// Super-shingles themselves: a match needs 1 equal super-shingle (Broder 1997).
    Single,
}

/// Shape of the super-shingles: `groups` groups of `per_group` consecutive values out of a
/// signature of `minhashes` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SuperShingleConfig {
    /// Signature length (number of min-hash values).
    pub minhashes: usize,
    /// Number of super-shingles per document.
    pub groups: usize,
    /// Min-hash values hashed into each super-shingle.
    pub per_group: usize,
    /// Whether documents are keyed by super-shingles or by pairs of them.
    pub mode: SuperShingleMode,
}

impl Default for SuperShingleConfig {
    /// Fetterly et al.'s 84 min-hashes, 6 groups of 14, pairs mode.
    fn default() -> Self {
        SuperShingleConfig {
            minhashes: 84,
            groups: 6,
            per_group: 14,
            mode: SuperShingleMode::Pairs,
        }
    }
}

/// Why a [`SuperShingleConfig`] is invalid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SuperShingleConfigError {
    /// `groups` or `per_group` is zero.
    #[error("super-shingle groups ({groups}) and values per group ({per_group}) must be positive")]
    Empty {
        /// The configured number of groups.
        groups: usize,
        /// The configured values per group.
        per_group: usize,
    },
    /// groups · per_group exceeds the signature length.
    #[error("{groups} groups × {per_group} values exceed the {minhashes} min-hashes")]
    TooLong {
        /// The configured number of groups.
        groups: usize,
        /// The configured values per group.
        per_group: usize,
        /// The configured signature length.
        minhashes: usize,
    },
    /// Pairs mode with fewer than 2 groups has no pairs.
    #[error("pairs mode needs at least 2 groups, got {0}")]
    TooFewGroupsForPairs(usize),
}

impl SuperShingleConfig {
    /// Checks that groups and per_group are positive, groups · per_group ≤ minhashes, and that
    /// pairs mode has at least 2 groups.
    pub fn validate(&self) -> Result<(), SuperShingleConfigError> {
        let (groups, per_group, minhashes) = (self.groups, self.per_group, self.minhashes);
        if groups == 0 || per_group == 0 {
            return Err(SuperShingleConfigError::Empty { groups, per_group });
        }
        if groups.checked_mul(per_group).is_none_or(|n| n > minhashes) {
            return Err(SuperShingleConfigError::TooLong { groups, per_group, minhashes });
        }
        if self.mode == SuperShingleMode::Pairs && groups < 2 {
            return Err(SuperShingleConfigError::TooFewGroupsForPairs(groups));
        }
        Ok(())
    }

    /// Number of keys per document: `groups` in single mode, C(groups, 2) in pairs mode.
    pub fn keys_per_doc(&self) -> usize {
        match self.mode {
            SuperShingleMode::Single => self.groups,
            SuperShingleMode::Pairs => self.groups * self.groups.saturating_sub(1) / 2,
        }
    }
}

/// The `cfg.groups` super-shingles of a signature: group g is the values
/// `signature[g·per_group .. (g+1)·per_group]`, hashed with the group index under `seed`.
///
/// Panics if `cfg` is invalid or `signature.len() != cfg.minhashes`.
pub fn super_shingles(signature: &[u32], cfg: &SuperShingleConfig, seed: u64) -> Vec<u64> {
    if let Err(e) = cfg.validate() {
        panic!("invalid super-shingle configuration: {e}");
    }
    assert_eq!(signature.len(), cfg.minhashes, "signature length differs from cfg.minhashes");
    let mut buf = Vec::with_capacity(4 * (cfg.per_group + 1));
    signature
        .chunks_exact(cfg.per_group)
        .take(cfg.groups)
        .enumerate()
        .map(|(g, values)| {
            buf.clear();
            // The group index makes equal values in different groups different super-shingles.
            buf.extend_from_slice(&(g as u32).to_le_bytes());
            for v in values {
                buf.extend_from_slice(&v.to_le_bytes());
            }
            xxh3_64_with_seed(&buf, seed)
        })
        .collect()
}

/// The C(n, 2) mega-shingles of n super-shingles: pair (i, j), i < j, in lexicographic order,
/// hashed with both indices under `seed`.
pub fn mega_shingles(supers: &[u64], seed: u64) -> Vec<u64> {
    let n = supers.len();
    let mut out = Vec::with_capacity(n * n.saturating_sub(1) / 2);
    let mut buf = [0u8; 24];
    for i in 0..n {
        for j in i + 1..n {
            // Indices in the key: (i, j) can only match (i, j) of another document.
            buf[..4].copy_from_slice(&(i as u32).to_le_bytes());
            buf[4..8].copy_from_slice(&(j as u32).to_le_bytes());
            buf[8..16].copy_from_slice(&supers[i].to_le_bytes());
            buf[16..].copy_from_slice(&supers[j].to_le_bytes());
            out.push(xxh3_64_with_seed(&buf, seed));
        }
    }
    out
}

/// A document's keys under `cfg.mode`: its super-shingles (single) or mega-shingles (pairs).
pub fn document_keys(signature: &[u32], cfg: &SuperShingleConfig, seed: u64) -> Vec<u64> {
    let supers = super_shingles(signature, cfg, seed);
    match cfg.mode {
        SuperShingleMode::Single => supers,
        SuperShingleMode::Pairs => mega_shingles(&supers, seed),
    }
}

/// Probability that two documents of resemblance `p` become candidates under `cfg`, with
/// q = p^per_group the probability that one super-shingle matches: 1 − (1 − q)^groups in single
/// mode; P(at least 2 of `groups` match) = 1 − (1 − q)^g − g·q·(1 − q)^(g−1) in pairs mode.
pub fn match_probability(p: f64, cfg: &SuperShingleConfig) -> f64 {
    let p = p.clamp(0.0, 1.0);
    let g = cfg.groups as i32;
    let q = p.powi(cfg.per_group as i32);
    let none = (1.0 - q).powi(g);
    match cfg.mode {
        SuperShingleMode::Single => 1.0 - none,
        SuperShingleMode::Pairs => {
            let one = f64::from(g) * q * (1.0 - q).powi(g - 1);
            (1.0 - none - one).max(0.0)
        }
    }
}

/// Pairs `(i, j)`, `i < j`, of documents sharing at least one key, sorted and deduplicated.
/// `keys_per_doc[d]` are document d's keys (any order). Every bucket is expanded to all its pairs,
/// so a key shared by m documents costs m(m − 1)/2.
pub fn candidate_pairs(keys_per_doc: &[Vec<u64>]) -> Vec<(u32, u32)> {
    crate::candidates::shared_keys::candidate_pairs(keys_per_doc, 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sketch::minhash::{MinHashScheme, MinHasher, splitmix64};

    fn random_signature(state: &mut u64, n: usize) -> Vec<u32> {
        (0..n).map(|_| splitmix64(state) as u32).collect()
    }

    #[test]
    fn validation() {
        let ok = SuperShingleConfig::default();
        assert_eq!(ok.validate(), Ok(()));
        assert_eq!(ok.keys_per_doc(), 15);
        let single = SuperShingleConfig { mode: SuperShingleMode::Single, ..ok };
        assert_eq!(single.keys_per_doc(), 6);
        assert!(matches!(
            SuperShingleConfig { groups: 7, ..ok }.validate(),
            Err(SuperShingleConfigError::TooLong { .. })
        ));
        assert!(matches!(
            SuperShingleConfig { per_group: 0, ..ok }.validate(),
            Err(SuperShingleConfigError::Empty { .. })
        ));
        assert!(matches!(
            SuperShingleConfig { groups: 1, ..ok }.validate(),
            Err(SuperShingleConfigError::TooFewGroupsForPairs(1))
        ));
        assert_eq!(SuperShingleConfig { groups: 1, ..single }.validate(), Ok(()));
        // groups · per_group < minhashes is allowed: the tail is unused.
        assert_eq!(SuperShingleConfig { minhashes: 100, ..ok }.validate(), Ok(()));
    }

    #[test]
    fn equal_documents_share_all_keys() {
        let cfg = SuperShingleConfig::default();
        let h = MinHasher::new(cfg.minhashes, MinHashScheme::OnePermutation, 5);
        let mut st = 3;
        let set: Vec<u64> = (0..300).map(|_| splitmix64(&mut st)).collect();
        let mut rev = set.clone();
        rev.reverse();
        let (a, b) = (h.sketch(&set), h.sketch(&rev));
        let (sa, sb) = (super_shingles(&a, &cfg, 1), super_shingles(&b, &cfg, 1));
        assert_eq!(sa.len(), 6);
        assert_eq!(sa, sb);
        let (ma, mb) = (mega_shingles(&sa, 1), mega_shingles(&sb, 1));
        assert_eq!(ma.len(), 15);
        assert_eq!(ma, mb);
        assert_eq!(document_keys(&a, &cfg, 1), ma);
        // Distinct keys within a document.
        let mut d = ma.clone();
        d.sort_unstable();
        d.dedup();
        assert_eq!(d.len(), 15);
        assert_eq!(candidate_pairs(&[ma, mb]), vec![(0, 1)]);
    }

    #[test]
    fn exactly_two_equal_groups_share_exactly_one_mega_shingle() {
        let cfg = SuperShingleConfig::default();
        let mut st = 9;
        let a = random_signature(&mut st, 84);
        for (g1, g2) in [(0, 1), (2, 5), (3, 4)] {
            // b agrees with a on groups g1 and g2 only; one value differs in every other group.
            let mut b = a.clone();
            for g in (0..6).filter(|&g| g != g1 && g != g2) {
                b[g * 14 + 7] ^= 1;
            }
            let (sa, sb) = (super_shingles(&a, &cfg, 2), super_shingles(&b, &cfg, 2));
            let equal: Vec<usize> = (0..6).filter(|&g| sa[g] == sb[g]).collect();
            assert_eq!(equal, vec![g1, g2]);
            let (ma, mb) = (mega_shingles(&sa, 2), mega_shingles(&sb, 2));
            let shared: Vec<usize> = (0..15).filter(|&k| ma.contains(&mb[k])).collect();
            assert_eq!(shared.len(), 1, "{g1},{g2}");
            assert_eq!(ma[shared[0]], mb[shared[0]]);
            // Only one group equal: no mega-shingle in common, one super-shingle in common.
            let mut c = b.clone();
            c[g2 * 14] ^= 1;
            let sc = super_shingles(&c, &cfg, 2);
            let mc = mega_shingles(&sc, 2);
            assert!(mc.iter().all(|k| !ma.contains(k)));
            assert_eq!(sc.iter().filter(|k| sa.contains(k)).count(), 1);
        }
    }

    #[test]
    fn same_values_in_different_groups_are_different_super_shingles() {
        let cfg =
            SuperShingleConfig { minhashes: 28, groups: 2, per_group: 14, ..Default::default() };
        let s = super_shingles(&[7; 28], &cfg, 0);
        assert_ne!(s[0], s[1]);
        assert_ne!(super_shingles(&[7; 28], &cfg, 1), s);
    }

    #[test]
    fn design_figures() {
        let pairs = SuperShingleConfig::default();
        let single = SuperShingleConfig { mode: SuperShingleMode::Single, ..pairs };
        let q95 = 0.95f64.powi(14);
        let q80 = 0.8f64.powi(14);
        assert!((q95 - 0.4877).abs() < 1e-3, "{q95}");
        assert!((q80 - 0.0440).abs() < 1e-3, "{q80}");
        let p95 = match_probability(0.95, &pairs);
        let p80 = match_probability(0.80, &pairs);
        assert!((p95 - 0.879).abs() < 2e-3, "{p95}");
        assert!((p80 - 0.0257).abs() < 1e-3, "{p80}");
        assert!((match_probability(0.95, &single) - 0.982).abs() < 2e-3);
        assert!((match_probability(0.80, &single) - 0.236).abs() < 2e-3);
        assert_eq!(match_probability(1.0, &pairs), 1.0);
        assert_eq!(match_probability(0.0, &pairs), 0.0);
        assert_eq!(match_probability(0.0, &single), 0.0);
    }

    /// Brute-force count of equal groups, straight from the signatures.
    fn equal_groups(a: &[u32], b: &[u32], cfg: &SuperShingleConfig) -> usize {
        (0..cfg.groups)
            .filter(|&g| {
                let r = g * cfg.per_group..(g + 1) * cfg.per_group;
                a[r.clone()] == b[r]
            })
            .count()
    }

    #[test]
    fn match_probability_agrees_with_monte_carlo() {
        // Coordinates agree independently with probability p: the model behind the formula.
        // 20 000 trials: σ ≤ 0.0036, tolerance 0.015.
        let trials = 20_000;
        let mut st = 17;
        for mode in [SuperShingleMode::Pairs, SuperShingleMode::Single] {
            let cfg = SuperShingleConfig { mode, ..Default::default() };
            for p in [0.8, 0.9, 0.95, 0.98] {
                let mut hits = 0;
                for _ in 0..trials {
                    let a = random_signature(&mut st, cfg.minhashes);
                    let b: Vec<u32> = a
                        .iter()
                        .map(|&v| {
                            let u = (splitmix64(&mut st) >> 11) as f64 / (1u64 << 53) as f64;
                            if u < p { v } else { v ^ 1 }
                        })
                        .collect();
                    let (ka, kb) = (document_keys(&a, &cfg, 4), document_keys(&b, &cfg, 4));
                    let hit = ka.iter().any(|k| kb.contains(k));
                    let need = if mode == SuperShingleMode::Pairs { 2 } else { 1 };
                    assert_eq!(hit, equal_groups(&a, &b, &cfg) >= need);
                    hits += usize::from(hit);
                }
                let freq = hits as f64 / trials as f64;
                let expect = match_probability(p, &cfg);
                assert!((freq - expect).abs() < 0.015, "{mode:?} p={p}: {freq} vs {expect}");
            }
        }
    }

    #[test]
    fn match_rate_with_real_minhash_is_near_the_curve() {
        // Sets of Jaccard 0.95 and 0.8 through MinHasher's permutation scheme. Coordinates are
        // not exactly independent, so the tolerance is loose (300 trials: σ ≈ 0.02).
        let cfg = SuperShingleConfig::default();
        let mut st = 23;
        for (common, only, j) in [(1900, 50, 0.95), (800, 100, 0.8)] {
            let trials = 300;
            let mut hits = 0;
            for t in 0..trials {
                let c: Vec<u64> = (0..common).map(|_| splitmix64(&mut st)).collect();
                let mut a = c.clone();
                a.extend((0..only).map(|_| splitmix64(&mut st)));
                let mut b = c;
                b.extend((0..only).map(|_| splitmix64(&mut st)));
                let h = MinHasher::new(cfg.minhashes, MinHashScheme::Permutations, t);
                let ka = document_keys(&h.sketch(&a), &cfg, t);
                let kb = document_keys(&h.sketch(&b), &cfg, t);
                hits += usize::from(ka.iter().any(|k| kb.contains(k)));
            }
            let freq = hits as f64 / trials as f64;
            let expect = match_probability(j, &cfg);
            assert!((freq - expect).abs() < 0.08, "J={j}: {freq} vs {expect}");
        }
    }

    #[test]
    fn candidate_pairs_match_brute_force() {
        let mut st = 29;
        for (n, alphabet) in [(0, 10), (1, 10), (40, 50), (80, 300), (30, 5)] {
            let docs: Vec<Vec<u64>> = (0..n)
                .map(|_| {
                    let len = (splitmix64(&mut st) % 6) as usize;
                    (0..len).map(|_| splitmix64(&mut st) % alphabet).collect()
                })
                .collect();
            let mut expect = Vec::new();
            for i in 0..n {
                for j in i + 1..n {
                    if docs[i].iter().any(|k| docs[j].contains(k)) {
                        expect.push((i as u32, j as u32));
                    }
                }
            }
            assert_eq!(candidate_pairs(&docs), expect, "n={n} alphabet={alphabet}");
        }
    }
}
