//! MOD-m and MIN-s shingle sampling. Contract: "give me a document's set of 64-bit shingle
//! hashes, I give you a small sorted sample of them from which the resemblance and containment of
//! two documents can be estimated".
//!
//! Broder, "On the resemblance and containment of documents" (1997), §3. Every shingle hash is
//! first remixed with the seed by a bijective 64-bit mixer (so samples do not depend on how the
//! shingles were hashed, and a new seed draws a new sample), then:
//!
//! * [`ModSketch`] keeps the remixed hashes divisible by m: MOD_m(A). The sample grows with the
//!   document (about |A|/m values), which is what makes containment estimable:
//!   r̂(A,B) = |MOD_m(A) ∩ MOD_m(B)| / |MOD_m(A) ∪ MOD_m(B)| and
//!   ĉ(A,B) = |MOD_m(A) ∩ MOD_m(B)| / |MOD_m(A)|.
//! * [`MinSketch`] keeps the s smallest remixed hashes: MIN_s(A), a bottom-s sketch of fixed size.
//!   With U = MIN_s(MIN_s(A) ∪ MIN_s(B)), the s smallest of the union,
//!   r̂(A,B) = |U ∩ MIN_s(A) ∩ MIN_s(B)| / |U|, an unbiased estimate of the resemblance.
//!
//! Sketches are sorted `Vec<u64>` of remixed values; since the mixer is a bijection, equal
//! remixed values mean equal shingles. Both are deterministic functions of the shingle set and the
//! seed.

use crate::sketch::minhash::mix64;
use crate::verify::intersection_size;

/// The remixed value of a shingle hash under `seed`.
fn remix(h: u64, seed: u64) -> u64 {
    mix64(h ^ seed)
}

/// MOD-m sampling: keeps the remixed shingle hashes that are ≡ 0 (mod m).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModSketch {
    m: u64,
    seed: u64,
}

impl ModSketch {
    /// A sampler keeping about one shingle in `m` (at least 1; m = 1 keeps every shingle).
    pub fn new(m: u64, seed: u64) -> Self {
        ModSketch { m: m.max(1), seed }
    }

    /// The modulus m.
    pub fn modulus(&self) -> u64 {
        self.m
    }

    /// The seed of the remixing.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// MOD_m(A) of the shingle hashes `shingles` (any order, duplicates allowed): the sorted,
    /// deduplicated remixed hashes divisible by m.
    pub fn sketch(&self, shingles: &[u64]) -> Vec<u64> {
        let mut out: Vec<u64> =
            shingles.iter().map(|&h| remix(h, self.seed)).filter(|&x| x % self.m == 0).collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// [`ModSketch::sketch`], or for a document too short to have one (no shingle hash ≡ 0 mod
    /// m) its `k` smallest remixed hashes: none of them is ≡ 0 mod m, so such a sample meets only
    /// the samples of other short documents, and two near-identical short documents (stubs, a
    /// one-line notice under two names), which no MOD-m sample can pair, become candidates.
    pub fn sketch_or_smallest(&self, shingles: &[u64], k: usize) -> Vec<u64> {
        let out = self.sketch(shingles);
        if !out.is_empty() {
            return out;
        }
        // No remixed hash is ≡ 0 mod m: the smallest of those left out are the smallest of all.
        self.smallest_unsampled(shingles, k)
    }

    /// The `k` smallest remixed hashes that are *not* ≡ 0 mod m (sorted, distinct; fewer when
    /// the document has fewer): a bottom-k sample of the shingles MOD_m(A) leaves out, which
    /// never meets a MOD-m sample. A short document's few MOD-m elements say little of its
    /// resemblance (a stub's one sampled shingle may be its own name); these say more.
    pub fn smallest_unsampled(&self, shingles: &[u64], k: usize) -> Vec<u64> {
        let mut out: Vec<u64> =
            shingles.iter().map(|&h| remix(h, self.seed)).filter(|&x| x % self.m != 0).collect();
        out.sort_unstable();
        out.dedup();
        out.truncate(k);
        out
    }

    /// Whether `sample` is a short document's smallest hashes ([`ModSketch::sketch_or_smallest`])
    /// rather than a MOD-m sample.
    pub fn is_smallest(&self, sample: &[u64]) -> bool {
        sample.first().is_some_and(|&x| x % self.m != 0)
    }

    /// Estimated resemblance |MOD(A) ∩ MOD(B)| / |MOD(A) ∪ MOD(B)| of two MOD-m sketches taken
    /// with the same m and seed (0 when both are empty).
    pub fn resemblance(a: &[u64], b: &[u64]) -> f64 {
        let inter = intersection_size(a, b);
        let union = a.len() + b.len() - inter;
        if union == 0 { 0.0 } else { inter as f64 / union as f64 }
    }

    /// Estimated containment of A in B, |MOD(A) ∩ MOD(B)| / |MOD(A)|, of two MOD-m sketches
    /// taken with the same m and seed (0 when `a` is empty).
    pub fn containment(a: &[u64], b: &[u64]) -> f64 {
        if a.is_empty() { 0.0 } else { intersection_size(a, b) as f64 / a.len() as f64 }
    }
}

/// MIN-s sampling: keeps the s smallest remixed shingle hashes (a bottom-s sketch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MinSketch {
    s: usize,
    seed: u64,
}

impl MinSketch {
    /// A sampler keeping the `s` smallest remixed hashes (at least 1).
    pub fn new(s: usize, seed: u64) -> Self {
        MinSketch { s: s.max(1), seed }
    }

    /// The sample size s.
    pub fn size(&self) -> usize {
        self.s
    }

    /// The seed of the remixing.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// MIN_s(A) of the shingle hashes `shingles` (any order, duplicates allowed): the s smallest
    /// distinct remixed hashes, sorted (all of them when the set has fewer than s).
    pub fn sketch(&self, shingles: &[u64]) -> Vec<u64> {
        let mut out: Vec<u64> = shingles.iter().map(|&h| remix(h, self.seed)).collect();
        out.sort_unstable();
        out.dedup();
        out.truncate(self.s);
        out
    }

    /// Estimated resemblance |MIN_s(MIN_s(A) ∪ MIN_s(B)) ∩ MIN_s(A) ∩ MIN_s(B)| /
    /// |MIN_s(MIN_s(A) ∪ MIN_s(B))| of two sketches taken by this sampler (0 when both are empty).
    pub fn resemblance(&self, a: &[u64], b: &[u64]) -> f64 {
        // Merge the two sorted sketches; the first s distinct values of the merge are
        // U = MIN_s(MIN_s(A) ∪ MIN_s(B)), and a value is in both sketches exactly when it occurs
        // in both inputs.
        let (mut i, mut j) = (0, 0);
        let (mut taken, mut both) = (0usize, 0usize);
        while taken < self.s && (i < a.len() || j < b.len()) {
            match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) if x == y => {
                    both += 1;
                    i += 1;
                    j += 1;
                }
                (Some(x), Some(y)) if x < y => i += 1,
                (Some(_), None) => i += 1,
                _ => j += 1,
            }
            taken += 1;
        }
        if taken == 0 { 0.0 } else { both as f64 / taken as f64 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sketch::minhash::splitmix64;
    use crate::testutil::{overlapping_pair, random_set};
    use crate::verify::{containment, jaccard};
    use std::collections::BTreeSet;

    /// The paper's MIN-s estimator spelled out with sets.
    fn min_s_reference(a: &[u64], b: &[u64], s: usize) -> f64 {
        let sa: BTreeSet<u64> = a.iter().copied().collect();
        let sb: BTreeSet<u64> = b.iter().copied().collect();
        let u: BTreeSet<u64> = sa.union(&sb).copied().take(s).collect();
        if u.is_empty() {
            return 0.0;
        }
        u.iter().filter(|x| sa.contains(x) && sb.contains(x)).count() as f64 / u.len() as f64
    }

    /// The sketch by definition: remix every element, filter or sort, no shortcuts.
    #[test]
    fn sketches_match_their_definitions() {
        let mut st = 5;
        let set = random_set(&mut st, 500);
        let seed = 77;
        let all: BTreeSet<u64> = set.iter().map(|&h| mix64(h ^ seed)).collect();
        let m = ModSketch::new(7, seed);
        let expect: Vec<u64> = all.iter().copied().filter(|x| x % 7 == 0).collect();
        assert_eq!(m.sketch(&set), expect);
        let s = MinSketch::new(40, seed);
        let expect: Vec<u64> = all.iter().copied().take(40).collect();
        assert_eq!(s.sketch(&set), expect);
        // Order and duplicates of the input do not matter.
        let mut shuffled = set.clone();
        shuffled.reverse();
        shuffled.extend_from_slice(&set[..10]);
        assert_eq!(m.sketch(&shuffled), m.sketch(&set));
        assert_eq!(s.sketch(&shuffled), s.sketch(&set));
    }

    /// A set without an element ≡ 0 mod m is sampled by its k smallest remixed hashes, none of
    /// them ≡ 0 mod m; a set with one keeps its MOD-m sample.
    #[test]
    fn short_sets_are_sampled_by_their_smallest_hashes() {
        let seed = 3;
        let m = ModSketch::new(1 << 20, seed);
        let mut st = 11;
        let set = random_set(&mut st, 12);
        let all: BTreeSet<u64> = set.iter().map(|&h| mix64(h ^ seed)).collect();
        assert!(m.sketch(&set).is_empty());
        let short = m.sketch_or_smallest(&set, 4);
        assert_eq!(short, all.iter().copied().take(4).collect::<Vec<_>>());
        assert!(m.is_smallest(&short) && short.iter().all(|x| x % (1 << 20) != 0));
        let every = ModSketch::new(1, seed);
        assert_eq!(every.sketch_or_smallest(&set, 4), every.sketch(&set));
        assert!(!every.is_smallest(&every.sketch(&set)));
        assert!(m.sketch_or_smallest(&[], 4).is_empty());
    }

    #[test]
    fn hand_computed_estimators() {
        // MOD-m estimators on sketches given directly.
        assert_eq!(ModSketch::resemblance(&[1, 2, 3], &[2, 3, 4]), 0.5);
        assert_eq!(ModSketch::containment(&[2, 3], &[1, 2, 3, 4]), 1.0);
        assert_eq!(ModSketch::containment(&[1, 2, 3, 4], &[2, 3]), 0.5);
        assert_eq!(ModSketch::resemblance(&[], &[]), 0.0);
        assert_eq!(ModSketch::containment(&[], &[1]), 0.0);
        // MIN-s: A = {1,2,5}, B = {1,3,5}, s = 3: U = {1,2,3}, U ∩ A ∩ B = {1} → 1/3.
        let s3 = MinSketch::new(3, 0);
        assert_eq!(s3.resemblance(&[1, 2, 5], &[1, 3, 5]), 1.0 / 3.0);
        // s = 4: U = {1,2,3,5}, both = {1,5} → 1/2 (the exact Jaccard 2/4).
        let s4 = MinSketch::new(4, 0);
        assert_eq!(s4.resemblance(&[1, 2, 5], &[1, 3, 5]), 0.5);
        assert_eq!(s4.resemblance(&[], &[]), 0.0);
        assert_eq!(s4.resemblance(&[9], &[9]), 1.0);
        assert_eq!(s4.resemblance(&[8], &[]), 0.0);
    }

    #[test]
    fn min_s_merge_matches_the_set_definition() {
        let mut st = 13;
        for s in [1, 2, 5, 17, 64] {
            for _ in 0..50 {
                // Small alphabet so that the sketches overlap often.
                let mut a: Vec<u64> = (0..30).map(|_| splitmix64(&mut st) % 60).collect();
                let mut b: Vec<u64> = (0..30).map(|_| splitmix64(&mut st) % 60).collect();
                a.sort_unstable();
                a.dedup();
                b.sort_unstable();
                b.dedup();
                a.truncate(s);
                b.truncate(s);
                let got = MinSketch::new(s, 0).resemblance(&a, &b);
                assert_eq!(got, min_s_reference(&a, &b, s), "s={s} {a:?} {b:?}");
            }
        }
    }

    #[test]
    fn mod_1_is_exact() {
        let mut st = 21;
        let m = ModSketch::new(1, 9);
        for (c, oa, ob) in [(100, 50, 20), (0, 10, 10), (30, 0, 70), (5, 5, 5)] {
            let (a, b) = overlapping_pair(&mut st, c, oa, ob);
            let (ma, mb) = (m.sketch(&a), m.sketch(&b));
            assert_eq!(ma.len(), a.len());
            assert_eq!(ModSketch::resemblance(&ma, &mb), jaccard(&a, &b));
            assert_eq!(ModSketch::containment(&ma, &mb), containment(&a, &b));
            assert_eq!(ModSketch::containment(&mb, &ma), containment(&b, &a));
        }
    }

    #[test]
    fn min_s_is_exact_when_s_covers_the_union() {
        let mut st = 22;
        for (c, oa, ob) in [(100, 50, 20), (0, 10, 10), (30, 0, 70), (5, 5, 5)] {
            let (a, b) = overlapping_pair(&mut st, c, oa, ob);
            let union = c + oa + ob;
            for s in [union, union + 1, 4 * union] {
                let m = MinSketch::new(s, 3);
                let r = m.resemblance(&m.sketch(&a), &m.sketch(&b));
                assert!((r - jaccard(&a, &b)).abs() < 1e-12, "s={s}: {r}");
            }
        }
    }

    #[test]
    fn estimates_are_close_and_unbiased() {
        // MOD-16 of ~1000 shingles keeps ~60; MIN-100 keeps 100: σ of either ≈ 0.05 per pair, so
        // the mean over 60 pairs should be within ~0.02 of the truth.
        let mut st = 31;
        let trials = 60;
        for (c, oa, ob) in [(600, 200, 200), (300, 600, 100), (900, 50, 50), (200, 400, 400)] {
            let (mut mod_r, mut mod_c, mut min_r, mut abs_min) = (0.0, 0.0, 0.0, 0.0);
            for t in 0..trials {
                let (a, b) = overlapping_pair(&mut st, c, oa, ob);
                let (j, cont) = (jaccard(&a, &b), containment(&a, &b));
                let ms = ModSketch::new(16, t);
                let (ma, mb) = (ms.sketch(&a), ms.sketch(&b));
                mod_r += ModSketch::resemblance(&ma, &mb) - j;
                mod_c += ModSketch::containment(&ma, &mb) - cont;
                let ns = MinSketch::new(100, t);
                let e = ns.resemblance(&ns.sketch(&a), &ns.sketch(&b)) - j;
                min_r += e;
                abs_min += e.abs();
            }
            let n = trials as f64;
            let (mod_r, mod_c, min_r, abs_min) = (mod_r / n, mod_c / n, min_r / n, abs_min / n);
            assert!(mod_r.abs() < 0.025, "{c}/{oa}/{ob}: MOD-m resemblance bias {mod_r}");
            assert!(mod_c.abs() < 0.025, "{c}/{oa}/{ob}: MOD-m containment bias {mod_c}");
            assert!(min_r.abs() < 0.025, "{c}/{oa}/{ob}: MIN-s bias {min_r}");
            assert!(abs_min < 0.07, "{c}/{oa}/{ob}: MIN-s mean abs error {abs_min}");
        }
    }

    #[test]
    fn deterministic_and_seeded() {
        let mut st = 41;
        let set = random_set(&mut st, 2000);
        assert_eq!(ModSketch::new(8, 1).sketch(&set), ModSketch::new(8, 1).sketch(&set));
        assert_eq!(MinSketch::new(50, 1).sketch(&set), MinSketch::new(50, 1).sketch(&set));
        assert_ne!(ModSketch::new(8, 1).sketch(&set), ModSketch::new(8, 2).sketch(&set));
        assert_ne!(MinSketch::new(50, 1).sketch(&set), MinSketch::new(50, 2).sketch(&set));
        // MOD-m keeps about |A|/m shingles.
        let k = ModSketch::new(8, 1).sketch(&set).len();
        assert!((150..350).contains(&k), "{k}");
        assert_eq!(ModSketch::new(0, 1).modulus(), 1);
        assert_eq!(MinSketch::new(0, 1).size(), 1);
    }
}
