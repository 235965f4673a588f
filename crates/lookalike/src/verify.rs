//! Verification. Contract: "give me two candidate documents' sketches or shingle sets, I give you
//! their similarity"; the pipeline keeps a candidate pair only when it reaches the threshold.
//!
//! Two modes ([`Verify`]): `Exact` computes the exact Jaccard resemblance of the two sets of
//! 64-bit shingle hashes (the sets are read back from the on-disk [`crate::store::ShingleStore`],
//! so they never all sit in memory); `Estimate` uses the fraction of equal MinHash coordinates,
//! which needs nothing but the signatures.

/// How candidate pairs are verified.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
#[derive(clap::ValueEnum)]
pub enum Verify {
    /// Exact Jaccard of the shingle-hash sets (default).
    #[default]
    Exact,
    /// Fraction of agreeing MinHash coordinates (an unbiased estimate of Jaccard).
    Estimate,
}

/// Number of common elements of two sorted, deduplicated slices.
pub fn intersection_size(a: &[u64], b: &[u64]) -> usize {
    // Gallop through the longer slice when the sizes are very different.
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if small.is_empty() {
        return 0;
    }
    if large.len() / small.len() >= 32 {
        let mut count = 0;
        let mut rest = large;
        for x in small {
            match rest.binary_search(x) {
                Ok(i) => {
                    count += 1;
                    rest = &rest[i + 1..];
                }
                Err(i) => rest = &rest[i..],
            }
        }
        return count;
    }
    let (mut i, mut j, mut count) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        count += usize::from(x == y);
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    count
}

/// Exact Jaccard resemblance |A∩B| / |A∪B| of two sorted, deduplicated slices (0 when both are
/// empty).
pub fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    let inter = intersection_size(a, b);
    let union = a.len() + b.len() - inter;
    if union == 0 { 0.0 } else { inter as f64 / union as f64 }
}

/// Containment |A∩B| / |A| of `a` in `b` (0 when `a` is empty).
pub fn containment(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() { 0.0 } else { intersection_size(a, b) as f64 / a.len() as f64 }
}

/// Direction of a containment pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Contained {
    /// `a ⊂ b`: the earlier document is contained in the later one.
    AInB,
    /// `b ⊂ a`: the later document is contained in the earlier one.
    BInA,
}

impl Contained {
    /// The direction with the two documents swapped.
    pub fn flipped(self) -> Contained {
        match self {
            Contained::AInB => Contained::BInA,
            Contained::BInA => Contained::AInB,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    #[test]
    fn hand_computed_cases() {
        assert_eq!(jaccard(&[1, 2, 3], &[2, 3, 4]), 0.5);
        assert_eq!(jaccard(&[], &[]), 0.0);
        assert_eq!(jaccard(&[5], &[5]), 1.0);
        assert_eq!(containment(&[1, 2], &[1, 2, 3, 4]), 1.0);
        assert_eq!(containment(&[1, 2, 3, 4], &[1, 2]), 0.5);
    }

    proptest! {
        #[test]
        fn intersection_matches_btreeset(a in proptest::collection::btree_set(0u64..200, 0..80),
                                         b in proptest::collection::btree_set(0u64..200, 0..2000)) {
            let va: Vec<u64> = a.iter().copied().collect();
            let vb: Vec<u64> = b.iter().copied().collect();
            let expect = a.intersection(&b).count();
            prop_assert_eq!(intersection_size(&va, &vb), expect);
            prop_assert_eq!(intersection_size(&vb, &va), expect);
            let union: BTreeSet<_> = a.union(&b).collect();
            if !union.is_empty() {
                prop_assert!((jaccard(&va, &vb) - expect as f64 / union.len() as f64).abs() < 1e-12);
            }
        }
    }
}
