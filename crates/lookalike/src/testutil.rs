//! Random sets for the unit tests of the sketching modules.

use crate::sketch::splitmix64;

/// `n` random 64-bit values, sorted and deduplicated.
pub(crate) fn random_set(state: &mut u64, n: usize) -> Vec<u64> {
    let mut v: Vec<u64> = (0..n).map(|_| splitmix64(state)).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Two sorted sets sharing `common` random elements, with `only_a` and `only_b` private ones.
pub(crate) fn overlapping_pair(
    state: &mut u64,
    common: usize,
    only_a: usize,
    only_b: usize,
) -> (Vec<u64>, Vec<u64>) {
    let c = random_set(state, common);
    let mut a = c.clone();
    a.extend(random_set(state, only_a));
    let mut b = c;
    b.extend(random_set(state, only_b));
    a.sort_unstable();
    b.sort_unstable();
    (a, b)
}
