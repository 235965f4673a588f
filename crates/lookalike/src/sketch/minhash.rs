//! MinHash sketches. Contract: "give me a document's set of 64-bit shingle hashes, I give you N
//! 32-bit values such that two documents agree on each value with probability ≈ their Jaccard".
//!
//! Two schemes, both deriving every value from the one 64-bit shingle hash (no re-hashing of text):
//!
//! * [`MinHashScheme::OnePermutation`] (default): one-permutation hashing with optimal
//!   densification (Li, Owen & Zhang 2012; Shrivastava 2017). The hash range is cut into N bins by
//!   the high bits of the shingle hash; each bin keeps the minimum of the low 32 bits of the hashes
//!   that fall into it. Empty bins (short documents) borrow the value of a non-empty bin chosen by
//!   a per-bin pseudo-random probe sequence that does not depend on the document, so two
//!   documents with equal sets still get equal sketches and the estimator stays unbiased. Cost:
//!   one multiply and one compare per shingle, whatever N is.
//! * [`MinHashScheme::Permutations`]: the classic family of N hash functions
//!   h_i(x) = (a_i·x + b_i) >> 32 over 64-bit words with random odd a_i, each value the minimum
//!   over all shingles. Cost: N multiply-adds per shingle. Kept as the textbook reference and
//!   for comparison; `benches/stages.rs` measures both.
//!
//! Values are stored as `u32`: 32 bits make an accidental equality (2⁻³²) negligible next to
//! the sampling error of N ≤ 1024 coordinates, and halve the memory of 64-bit values.

use xxhash_rust::xxh3::xxh3_64_with_seed;

/// How MinHash values are derived from shingle hashes.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    clap::ValueEnum,
)]
pub enum MinHashScheme {
    /// One-permutation hashing with optimal densification (default; fastest).
    #[default]
    #[value(name = "oph")]
    #[serde(rename = "oph")]
    OnePermutation,
    /// N independent multiply-shift permutations (textbook MinHash).
    #[value(name = "perm")]
    #[serde(rename = "perm")]
    Permutations,
}

/// Computes MinHash signatures of shingle-hash sets.
#[derive(Debug, Clone)]
pub struct MinHasher {
    num_perm: usize,
    scheme: MinHashScheme,
    seed: u64,
    /// Multipliers and offsets of the permutation family (empty for one-permutation hashing).
    a: Vec<u64>,
    b: Vec<u64>,
}

/// Sentinel of an empty bin before densification.
const EMPTY: u32 = u32::MAX;

/// Shingles remixed at a time by one-permutation hashing, on the stack.
const MIX_BLOCK: usize = 256;

impl MinHasher {
    /// A hasher producing `num_perm` values (at least 1) with the given scheme and seed.
    pub fn new(num_perm: usize, scheme: MinHashScheme, seed: u64) -> Self {
        let num_perm = num_perm.max(1);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        if scheme == MinHashScheme::Permutations {
            let mut state = seed ^ 0x5DEE_CE66_D1CE_4E5B;
            for _ in 0..num_perm {
                a.push(splitmix64(&mut state) | 1);
                b.push(splitmix64(&mut state));
            }
        }
        MinHasher { num_perm, scheme, seed, a, b }
    }

    /// Number of values in a signature.
    pub fn num_perm(&self) -> usize {
        self.num_perm
    }

    /// The scheme in use.
    pub fn scheme(&self) -> MinHashScheme {
        self.scheme
    }

    /// Computes the signature of `shingles` (any order, duplicates allowed) into `out`, which must
    /// have length [`num_perm`](Self::num_perm). An empty set gives all-`u32::MAX` values.
    pub fn sketch_into(&self, shingles: &[u64], out: &mut [u32]) {
        assert_eq!(out.len(), self.num_perm, "signature buffer has the wrong length");
        out.fill(EMPTY);
        match self.scheme {
            MinHashScheme::OnePermutation => self.one_permutation(shingles, out),
            MinHashScheme::Permutations => self.permutations(shingles, out),
        }
    }

    /// Convenience wrapper around [`sketch_into`](Self::sketch_into).
    pub fn sketch(&self, shingles: &[u64]) -> Vec<u32> {
        let mut out = vec![0; self.num_perm];
        self.sketch_into(shingles, &mut out);
        out
    }

    fn one_permutation(&self, shingles: &[u64], out: &mut [u32]) {
        if shingles.is_empty() {
            return;
        }
        let n = self.num_perm as u64;
        // Two loops over each block of shingles: the remixed hashes first, then the bins. One
        // loop doing both was about three times slower (bench/results/textspeed-2026-11-25-s15.md),
        // most likely because each bin's store waited for its hash's multiplications while later
        // loads of the same bin ran ahead of it and had to be replayed.
        let mut mixed = [0u64; MIX_BLOCK];
        for block in shingles.chunks(MIX_BLOCK) {
            let mixed = &mut mixed[..block.len()];
            for (x, &h) in mixed.iter_mut().zip(block) {
                // Remix with the seed so that the bins do not depend on how the shingles were
                // hashed.
                *x = mix64(h ^ self.seed);
            }
            for &x in mixed.iter() {
                let bin = ((u128::from(x) * u128::from(n)) >> 64) as usize;
                // Without a branch: which shingle lowers a bin is a coin toss the CPU cannot
                // predict.
                out[bin] = out[bin].min(x as u32);
            }
        }
        // A bin is empty when no shingle fell into it. A shingle whose low 32 bits are all ones
        // leaves its bin at the sentinel too, and the bin is then filled like an empty one (the
        // old count of filled bins did the same unless every other bin was filled: once in 2^32
        // shingles).
        if !out.contains(&EMPTY) {
            return;
        }
        // Optimal densification: bin i probes bins j_1, j_2, ... (fixed per bin and seed) and takes
        // the value of the first one that was filled by a shingle.
        let original: Vec<bool> = out.iter().map(|&v| v != EMPTY).collect();
        for i in 0..self.num_perm {
            if original[i] {
                continue;
            }
            let mut attempt = 0u64;
            loop {
                let probe = xxh3_64_with_seed(&(i as u64).to_le_bytes(), self.seed ^ attempt);
                let j = ((u128::from(probe) * u128::from(n)) >> 64) as usize;
                if original[j] {
                    out[i] = out[j];
                    break;
                }
                attempt += 1;
            }
        }
    }

    fn permutations(&self, shingles: &[u64], out: &mut [u32]) {
        for &h in shingles {
            let x = mix64(h ^ self.seed);
            for ((slot, &a), &b) in out.iter_mut().zip(&self.a).zip(&self.b) {
                let v = (a.wrapping_mul(x).wrapping_add(b) >> 32) as u32;
                *slot = (*slot).min(v);
            }
        }
    }
}

/// Fraction of equal coordinates of two signatures: the MinHash estimate of Jaccard.
pub fn estimate_jaccard(a: &[u32], b: &[u32]) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    if a.is_empty() {
        return 0.0;
    }
    let equal = a.iter().zip(b).filter(|(x, y)| x == y).count();
    equal as f64 / a.len() as f64
}

/// The splitmix64 generator step (Steele et al.), used to derive parameters from a seed.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    mix64(*state)
}

/// The splitmix64 finalizer: a bijective 64-bit mixer.
pub(crate) fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{overlapping_pair, random_set};
    use crate::verify::jaccard;

    #[test]
    fn equal_sets_equal_signatures_for_both_schemes() {
        let mut st = 1;
        for scheme in [MinHashScheme::OnePermutation, MinHashScheme::Permutations] {
            let h = MinHasher::new(128, scheme, 42);
            for n in [1, 3, 50, 1000] {
                let s = random_set(&mut st, n);
                let mut rev = s.clone();
                rev.reverse();
                assert_eq!(h.sketch(&s), h.sketch(&rev));
                assert!(h.sketch(&s).iter().all(|&v| v != EMPTY || n == 0));
            }
        }
    }

    #[test]
    fn estimates_are_close_to_true_jaccard_on_average() {
        // Mean absolute error over many pairs is within what 256 samples allow (σ ≈ 0.03).
        let mut st = 7;
        for scheme in [MinHashScheme::OnePermutation, MinHashScheme::Permutations] {
            let h = MinHasher::new(256, scheme, 3);
            for (common, only) in [(300, 100), (100, 400), (40, 10), (900, 50)] {
                let mut err_sum = 0.0;
                let mut signed = 0.0;
                let trials = 40;
                for _ in 0..trials {
                    let (a, b) = overlapping_pair(&mut st, common, only, only);
                    let j = jaccard(&a, &b);
                    let e = estimate_jaccard(&h.sketch(&a), &h.sketch(&b));
                    err_sum += (e - j).abs();
                    signed += e - j;
                }
                let mae = err_sum / trials as f64;
                let bias = signed / trials as f64;
                assert!(mae < 0.05, "{scheme:?} {common}/{only}: mean abs error {mae}");
                assert!(bias.abs() < 0.02, "{scheme:?} {common}/{only}: bias {bias}");
            }
        }
    }

    #[test]
    fn densification_handles_sets_smaller_than_the_signature() {
        let h = MinHasher::new(128, MinHashScheme::OnePermutation, 9);
        let mut st = 11;
        let (a, b) = overlapping_pair(&mut st, 10, 10, 10); // J = 1/3, 30 elements for 128 bins
        let sa = h.sketch(&a);
        assert!(sa.iter().all(|&v| v != EMPTY));
        let e = estimate_jaccard(&sa, &h.sketch(&b));
        assert!((0.05..0.7).contains(&e), "estimate {e}");
        assert_eq!(h.sketch(&[5]), vec![h.sketch(&[5])[0]; 128]);
    }

    /// The bins of one-permutation hashing (two loops over blocks of shingles) against one plain
    /// loop over the shingles, on sets on both sides of the block's size and numbers of bins that
    /// are and are not powers of two: filled bins equal, empty ones densified from filled ones.
    #[test]
    fn one_permutation_bins_equal_a_plain_loop() {
        let mut st = 21;
        for num_perm in [1, 64, 100, 128, 256] {
            let h = MinHasher::new(num_perm, MinHashScheme::OnePermutation, 5);
            for n in [1, 2, MIX_BLOCK - 1, MIX_BLOCK, MIX_BLOCK + 1, 3 * MIX_BLOCK + 7, 5000] {
                let set = random_set(&mut st, n);
                let mut bins = vec![EMPTY; num_perm];
                for &x in &set {
                    let x = mix64(x ^ 5);
                    let bin = ((u128::from(x) * num_perm as u128) >> 64) as usize;
                    bins[bin] = bins[bin].min(x as u32);
                }
                let sketch = h.sketch(&set);
                for (i, (&got, &bin)) in sketch.iter().zip(&bins).enumerate() {
                    if bin == EMPTY {
                        assert!(bins.contains(&got), "{num_perm} bins, {n} shingles: bin {i}");
                    } else {
                        assert_eq!(got, bin, "{num_perm} bins, {n} shingles: bin {i}");
                    }
                }
            }
        }
    }

    #[test]
    fn seeds_change_signatures() {
        let s = [1u64, 2, 3, 4, 5, 6, 7, 8, 9];
        let a = MinHasher::new(64, MinHashScheme::OnePermutation, 1).sketch(&s);
        let b = MinHasher::new(64, MinHashScheme::OnePermutation, 2).sketch(&s);
        assert_ne!(a, b);
    }
}
