//! Candidate generation by LSH banding. Contract: "give me MinHash signatures, I give you the
//! sorted, deduplicated pairs of documents that agree on at least one whole band".
//!
//! A signature of N values is cut into b bands of r rows (b·r ≤ N). Two documents of Jaccard s
//! share a band with probability s^r, and at least one of b bands with
//! P(s) = 1 − (1 − s^r)^b, the S-curve. [`LshParams::optimal`] picks (b, r) for a threshold t by
//! minimising w_fp·∫₀ᵗ P(s) ds + w_fn·∫ₜ¹ (1 − P(s)) ds (MMDS ch. 3; the same criterion as
//! datasketch's `_optimal_param`).
//!
//! Grouping is done by sorting, not by hash maps of vectors: for each band, every document
//! contributes one compact `(band key, doc)` pair of 12 bytes; the pairs are sorted and each run of
//! equal keys is a bucket. A bucket of m documents yields m(m−1)/2 pairs, which explodes for the
//! huge buckets real collections have (thousands of pages sharing one template). Buckets larger
//! than `max_bucket` are therefore set aside as *groups*: the same group usually comes back in many
//! bands (pages that share a template share most bands), so the distinct groups are collected
//! first and each is expanded once, to all its m(m−1)/2 pairs when that is at most
//! `max_pairs_per_group`. Only a group above that bound is not expanded: each member is then paired
//! with the group's first [`ANCHORS`] members and with its predecessor, which keeps the group
//! connected for clustering at a cost linear in m; the groups over the bound and the pairs not
//! generated are counted in [`CandidateStats`].

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// Members of an over-sized bucket that every other member is compared with.
pub const ANCHORS: usize = 8;

/// Default bucket size beyond which a bucket is set aside as a group (expanded once, however many
/// bands it comes back in).
pub const DEFAULT_MAX_BUCKET: usize = 200;

/// Default bound on the pairs one group of candidates is expanded to (a group of about 3,160
/// documents): a capped LSH bucket, an exact-copy group in the pairs list, or the copies of two
/// near-duplicate documents.
pub const DEFAULT_MAX_PAIRS_PER_GROUP: u64 = 5_000_000;

/// Banding parameters: `bands` bands of `rows` rows each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LshParams {
    /// Number of bands b.
    pub bands: usize,
    /// Rows per band r.
    pub rows: usize,
}

/// How far above the threshold the default banding promises to find a pair (see
/// [`LshParams::complete`]).
pub const COMPLETE_MARGIN: f64 = 0.05;

/// The probability with which the default banding makes a pair of similarity
/// [`LshParams::complete_at`] a candidate.
pub const COMPLETE_PROBABILITY: f64 = 0.999;

/// Weights of the false-positive and false-negative areas in [`LshParams::optimal`].
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ErrorWeights {
    /// Weight of the false-positive area ∫₀ᵗ P(s) ds.
    pub false_positive: f64,
    /// Weight of the false-negative area ∫ₜ¹ (1 − P(s)) ds.
    pub false_negative: f64,
}

impl Default for ErrorWeights {
    /// Misses weigh much higher than false positives (0.1 / 0.9): at t = 0.8 and 128 values
    /// this gives 14 bands of 9 rows, which catches a pair of Jaccard 0.85 with probability
    /// 0.975 (0.5 / 0.5 would give 9 × 13 and 0.69). Used when weights are given; the default
    /// banding is [`LshParams::complete`].
    fn default() -> Self {
        ErrorWeights { false_positive: 0.1, false_negative: 0.9 }
    }
}

impl LshParams {
    /// Probability that two documents of Jaccard `s` share at least one band.
    pub fn probability(&self, s: f64) -> f64 {
        1.0 - (1.0 - s.powi(self.rows as i32)).powi(self.bands as i32)
    }

    /// The false-positive area ∫₀ᵗ P(s) ds.
    pub fn false_positive_area(&self, t: f64) -> f64 {
        integrate(|s| self.probability(s), 0.0, t)
    }

    /// The false-negative area ∫ₜ¹ (1 − P(s)) ds.
    pub fn false_negative_area(&self, t: f64) -> f64 {
        integrate(|s| 1.0 - self.probability(s), t, 1.0)
    }

    /// The similarity at which the default banding ([`LshParams::complete`]) finds a pair with
    /// probability [`COMPLETE_PROBABILITY`]: the threshold plus [`COMPLETE_MARGIN`], or half way
    /// from the threshold to 1 when that is closer (above 0.9: at 1 every banding finds every
    /// pair, and the promise would say nothing).
    pub fn complete_at(threshold: f64) -> f64 {
        (threshold + COMPLETE_MARGIN).min((threshold + 1.0) / 2.0)
    }

    /// The default bands and rows: among the (b, r) with b·r ≤ `num_perm` whose probability of
    /// making a pair of similarity [`LshParams::complete_at`]`(threshold)` a candidate is at
    /// least [`COMPLETE_PROBABILITY`], the one with the smallest false-positive area (the fewest
    /// candidates below the threshold, each an exact verification); when none reaches it (a
    /// short signature), the one with the highest probability there.
    ///
    /// Every candidate is verified, so a more sensitive banding costs only verifications, and a
    /// pair it misses is lost for good: at t = 0.8 and 128 values this gives 18 bands of 7 rows
    /// (P = 0.9991 at 0.85, 0.986 at 0.8), where the error-weighted choice
    /// ([`LshParams::optimal`] with [`ErrorWeights::default`]) gives 14 × 9 (0.975 at 0.85, 0.87
    /// at 0.8), which missed pairs at or above 0.8 (bench/results/banding-2026-11-28.md).
    pub fn complete(threshold: f64, num_perm: usize) -> LshParams {
        let at = Self::complete_at(threshold);
        let n = num_perm.max(1);
        let mut best: Option<(bool, f64, f64, LshParams)> = None;
        for bands in 1..=n {
            for rows in 1..=n / bands {
                let p = LshParams { bands, rows };
                let sure = p.probability(at);
                let reaches = sure >= COMPLETE_PROBABILITY;
                let fp = p.false_positive_area(threshold);
                let better = match best {
                    None => true,
                    Some((b_reaches, b_sure, b_fp, _)) => match (reaches, b_reaches) {
                        (true, false) => true,
                        (false, true) => false,
                        (true, true) => fp < b_fp - 1e-15,
                        (false, false) => {
                            sure > b_sure + 1e-15 || (sure >= b_sure - 1e-15 && fp < b_fp - 1e-15)
                        }
                    },
                };
                if better {
                    best = Some((reaches, sure, fp, p));
                }
            }
        }
        best.map_or(LshParams { bands: 1, rows: n }, |b| b.3)
    }

    /// The (b, r) with b·r ≤ `num_perm` minimising the weighted error areas at `threshold`.
    pub fn optimal(threshold: f64, num_perm: usize, weights: ErrorWeights) -> LshParams {
        let mut best = LshParams { bands: 1, rows: num_perm.max(1) };
        let mut best_err = f64::INFINITY;
        for bands in 1..=num_perm.max(1) {
            for rows in 1..=num_perm / bands {
                let p = LshParams { bands, rows };
                let err = weights.false_positive * p.false_positive_area(threshold)
                    + weights.false_negative * p.false_negative_area(threshold);
                if err < best_err - 1e-15 {
                    best_err = err;
                    best = p;
                }
            }
        }
        best
    }
}

/// Simpson's rule with enough steps for these smooth curves.
fn integrate(f: impl Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    const STEPS: usize = 256;
    if b <= a {
        return 0.0;
    }
    let h = (b - a) / STEPS as f64;
    let mut sum = f(a) + f(b);
    for i in 1..STEPS {
        let w = if i % 2 == 1 { 4.0 } else { 2.0 };
        sum += w * f(a + i as f64 * h);
    }
    sum * h / 3.0
}

/// What candidate generation did, for the summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CandidateStats {
    /// Distinct candidate pairs produced.
    pub pairs: u64,
    /// Buckets larger than `max_bucket` (over all bands).
    pub capped_buckets: u64,
    /// Distinct groups among the capped buckets (a group coming back in several bands counts
    /// once).
    pub groups: u64,
    /// Groups of more than `max_pairs_per_group` pairs, compared with anchors only.
    pub groups_over_bound: u64,
    /// Pairs of groups over the bound that were not generated.
    pub capped_pairs_skipped: u64,
    /// Size of the largest bucket seen.
    pub largest_bucket: u64,
}

/// Band key of band `band` of a signature: the band's values (little-endian) hashed with the
/// band number as the seed; `buf` is scratch space. Two documents are candidates when one of
/// their band keys is equal. Public so that the Python package's Ray kernels bucket documents
/// and the persistent index stores keys exactly as [`band_candidates`] does.
pub fn band_key(values: &[u32], band: usize, buf: &mut Vec<u8>) -> u64 {
    buf.clear();
    for v in values {
        buf.extend_from_slice(&v.to_le_bytes());
    }
    xxh3_64_with_seed(buf, band as u64)
}

/// Memory for the band keys computed in one pass over the signatures (64 MiB: all bands at once
/// up to about 600,000 documents at 14 bands).
const KEY_BUDGET: usize = 64 << 20;

/// Candidate pairs among `n` documents whose signatures (`num_perm` values each) are stored one
/// after the other in `signatures`. Pairs are `(i, j)` with `i < j`, encoded as `i << 32 | j`,
/// sorted and deduplicated. Buckets of more than `max_bucket` documents become groups, expanded
/// to all pairs up to `max_pairs_per_group` pairs each (see the module documentation).
pub fn band_candidates(
    signatures: &[u32],
    num_perm: usize,
    params: LshParams,
    max_bucket: usize,
    max_pairs_per_group: u64,
) -> (Vec<u64>, CandidateStats) {
    band_candidates_in(signatures, num_perm, params, max_bucket, max_pairs_per_group, KEY_BUDGET)
}

/// [`band_candidates`] with `key_budget` bytes for the band keys of one pass.
fn band_candidates_in(
    signatures: &[u32],
    num_perm: usize,
    params: LshParams,
    max_bucket: usize,
    max_pairs_per_group: u64,
    key_budget: usize,
) -> (Vec<u64>, CandidateStats) {
    assert!(params.bands * params.rows <= num_perm, "bands × rows exceeds the signature length");
    let n = signatures.len() / num_perm.max(1);
    assert!(n <= u32::MAX as usize, "too many documents for 32-bit indices");
    let max_bucket = max_bucket.max(2);
    let mut stats = CandidateStats::default();
    let mut pairs: Vec<u64> = Vec::new();
    let mut entries: Vec<(u64, u32)> = Vec::with_capacity(n);
    // Members of the capped buckets (sorted, as the entries are), keyed by a hash of the members
    // so that a group coming back in another band is kept once.
    let mut groups: Vec<(u64, Vec<u32>)> = Vec::new();
    // The band keys of several bands are computed in one pass over the signatures, document by
    // document: reading one band of every signature in turn touched a new cache line and, every
    // few documents, a new page, per document and band (most of the keys' cost). As many bands
    // at a time as fit in `key_budget` bytes of keys.
    let per_pass = (key_budget / (8 * n.max(1))).clamp(1, params.bands.max(1));
    let mut keys: Vec<u64> = Vec::new();
    for band in 0..params.bands {
        let first = band - band % per_pass;
        let k = per_pass.min(params.bands - first);
        if band == first {
            keys.clear();
            keys.resize(n * k, 0);
            keys.par_chunks_mut(k).enumerate().for_each_init(Vec::new, |buf, (d, out)| {
                let sig = &signatures[d * num_perm..(d + 1) * num_perm];
                for (j, key) in out.iter_mut().enumerate() {
                    let lo = (first + j) * params.rows;
                    *key = band_key(&sig[lo..lo + params.rows], first + j, buf);
                }
            });
        }
        let j = band - first;
        entries.clear();
        entries.par_extend((0..n).into_par_iter().map(|d| (keys[d * k + j], d as u32)));
        entries.par_sort_unstable();
        for bucket in entries.chunk_by(|x, y| x.0 == y.0).filter(|b| b.len() > 1) {
            let m = bucket.len();
            stats.largest_bucket = stats.largest_bucket.max(m as u64);
            if m <= max_bucket {
                push_all_pairs(bucket.iter().map(|e| e.1), m, &mut pairs);
            } else {
                stats.capped_buckets += 1;
                let members: Vec<u32> = bucket.iter().map(|e| e.1).collect();
                groups.push((members_key(&members), members));
            }
        }
        // Keep memory bounded by the distinct pairs, not pairs × bands.
        if pairs.len() > 1 << 24 {
            pairs.par_sort_unstable();
            pairs.dedup();
        }
    }
    groups.sort_unstable();
    groups.dedup();
    stats.groups = groups.len() as u64;
    for (_, members) in &groups {
        let push = |a, b| {
            pairs.push(pair(a, b));
            Ok::<(), std::convert::Infallible>(())
        };
        let Ok((_, over)) = group_pairs(members, max_pairs_per_group, push);
        if let Some(skipped) = over {
            stats.groups_over_bound += 1;
            stats.capped_pairs_skipped += skipped;
        }
        if pairs.len() > 1 << 24 {
            pairs.par_sort_unstable();
            pairs.dedup();
        }
    }
    pairs.par_sort_unstable();
    pairs.dedup();
    stats.pairs = pairs.len() as u64;
    (pairs, stats)
}

/// A hash of a group's members, so that equal groups sort next to each other.
pub(crate) fn members_key(members: &[u32]) -> u64 {
    let bytes: Vec<u8> = members.iter().flat_map(|m| m.to_le_bytes()).collect();
    xxh3_64_with_seed(&bytes, members.len() as u64)
}

fn pair(a: u32, b: u32) -> u64 {
    (u64::from(a) << 32) | u64::from(b)
}

/// Every pair of `m` members given in increasing order.
fn push_all_pairs(members: impl Iterator<Item = u32> + Clone, m: usize, pairs: &mut Vec<u64>) {
    pairs.reserve(m * (m - 1) / 2);
    for (i, a) in members.clone().enumerate() {
        pairs.extend(members.clone().skip(i + 1).map(|b| pair(a, b)));
    }
}

/// Each member with the group's first [`ANCHORS`] members and with its predecessor, into
/// `emit`; returns the number of pairs emitted.
fn anchor_pairs<E>(
    members: &[u32],
    mut emit: impl FnMut(u32, u32) -> Result<(), E>,
) -> Result<u64, E> {
    let mut emitted = 0u64;
    for (i, &d) in members.iter().enumerate().skip(1) {
        let anchors = i.min(ANCHORS);
        for &a in &members[..anchors] {
            emit(a, d)?;
        }
        emitted += anchors as u64;
        if i > anchors {
            emit(members[i - 1], d)?;
            emitted += 1;
        }
    }
    Ok(emitted)
}

/// The pairs of a group of `members` (increasing) as the capped buckets get them: all of them up
/// to `max_pairs` pairs, else each member with the first [`ANCHORS`] members and with its
/// predecessor. Returns the pairs emitted and, for a group over the bound, those left out. The
/// one listing rule of the LSH buckets, the sort-based candidates and the Ray job's buckets.
pub fn group_pairs<E>(
    members: &[u32],
    max_pairs: u64,
    mut emit: impl FnMut(u32, u32) -> Result<(), E>,
) -> Result<(u64, Option<u64>), E> {
    let m = members.len() as u64;
    let all = m * m.saturating_sub(1) / 2;
    if all <= max_pairs {
        for (i, &a) in members.iter().enumerate() {
            for &b in &members[i + 1..] {
                emit(a, b)?;
            }
        }
        return Ok((all, None));
    }
    let emitted = anchor_pairs(members, emit)?;
    Ok((emitted, Some(all - emitted)))
}

/// Splits an encoded pair into `(i, j)`.
pub fn decode_pair(p: u64) -> (u32, u32) {
    ((p >> 32) as u32, p as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The default banding against every banding, enumerated again here: it reaches the promised
    /// probability just above the threshold, and no banding that reaches it makes fewer false
    /// positives; with too few values it is the most sensitive there.
    #[test]
    fn the_default_banding_is_the_cheapest_that_finds_pairs_above_the_threshold() {
        assert_eq!(LshParams::complete(0.8, 128), LshParams { bands: 18, rows: 7 });
        for (t, n) in [(0.5, 128), (0.7, 64), (0.8, 128), (0.85, 256), (0.9, 128), (0.95, 128)] {
            let p = LshParams::complete(t, n);
            let at = LshParams::complete_at(t);
            assert!(at > t && at <= (t + 1.0) / 2.0 + 1e-12);
            assert!(p.bands * p.rows <= n);
            assert!(p.probability(at) >= COMPLETE_PROBABILITY, "{t} {n}: {p:?}");
            for bands in 1..=n {
                for rows in 1..=n / bands {
                    let q = LshParams { bands, rows };
                    if q.probability(at) >= COMPLETE_PROBABILITY {
                        assert!(q.false_positive_area(t) >= p.false_positive_area(t) - 1e-12);
                    }
                }
            }
        }
        // Four values cannot reach 0.999 at 0.85: the most sensitive banding, one row a band.
        let p = LshParams::complete(0.8, 4);
        assert_eq!(p, LshParams { bands: 4, rows: 1 });
        // Near 1 the promise is made half way: t = 0.95 is not one band of all the values.
        let p = LshParams::complete(0.95, 128);
        assert!(p.probability(0.975) >= COMPLETE_PROBABILITY && p.bands > 1, "{p:?}");
    }

    #[test]
    fn s_curve_values() {
        let p = LshParams { bands: 20, rows: 5 };
        assert!((p.probability(0.8) - 0.99964).abs() < 1e-4);
        assert!((p.probability(0.2) - 0.00638).abs() < 1e-4);
        assert_eq!(p.probability(0.0), 0.0);
        assert_eq!(p.probability(1.0), 1.0);
    }

    #[test]
    fn optimal_params_fit_and_put_the_threshold_on_the_slope() {
        for (t, n) in [(0.8, 128), (0.5, 128), (0.9, 256), (0.3, 64)] {
            let p = LshParams::optimal(t, n, ErrorWeights::default());
            assert!(p.bands * p.rows <= n);
            assert!(p.probability(t + 0.05) > 0.9, "{t} {n} {p:?}");
            assert!(p.probability(t - 0.3) < 0.2, "{t} {n} {p:?}");
        }
    }

    #[test]
    fn brute_force_band_equality_matches_sorted_candidates() {
        // Signatures over a tiny alphabet so that many bands collide.
        let (n, num_perm) = (60, 12);
        let mut state = 3u64;
        let sigs: Vec<u32> = (0..n * num_perm)
            .map(|_| (crate::sketch::minhash::splitmix64(&mut state) % 3) as u32)
            .collect();
        let params = LshParams { bands: 4, rows: 3 };
        let (pairs, stats) = band_candidates(&sigs, num_perm, params, usize::MAX, u64::MAX);
        // The keys of one band per pass, of three then one, of all four: the same pairs, also
        // with capped buckets.
        for budget in [0, 8 * n * 3, usize::MAX] {
            let run = |cap, bound| band_candidates_in(&sigs, num_perm, params, cap, bound, budget);
            assert_eq!(run(usize::MAX, u64::MAX).0, pairs, "key budget {budget}");
            let capped = band_candidates(&sigs, num_perm, params, 4, 6);
            assert_eq!(run(4, 6), capped, "key budget {budget}");
            assert!(capped.1.capped_buckets > 0 && capped.1.groups_over_bound > 0);
        }
        let mut expect = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                let si = &sigs[i * num_perm..(i + 1) * num_perm];
                let sj = &sigs[j * num_perm..(j + 1) * num_perm];
                if (0..4).any(|b| si[b * 3..b * 3 + 3] == sj[b * 3..b * 3 + 3]) {
                    expect.push(((i as u64) << 32) | j as u64);
                }
            }
        }
        assert_eq!(pairs, expect);
        assert_eq!(stats.capped_buckets, 0);
    }

    #[test]
    fn groups_over_the_bound_are_compared_with_anchors_and_stay_connected() {
        let (n, num_perm) = (1000, 4);
        let sigs = vec![7u32; n * num_perm];
        let params = LshParams { bands: 1, rows: 4 };
        let (pairs, stats) = band_candidates(&sigs, num_perm, params, 100, 10_000);
        assert_eq!(stats.capped_buckets, 1);
        assert_eq!((stats.groups, stats.groups_over_bound), (1, 1));
        assert_eq!(stats.largest_bucket, 1000);
        assert!(pairs.len() < n * (ANCHORS + 1));
        assert_eq!(stats.capped_pairs_skipped, (n * (n - 1) / 2 - pairs.len()) as u64);
        // Every member is linked to the first one.
        let linked: std::collections::BTreeSet<u32> =
            pairs.iter().map(|&p| decode_pair(p)).filter(|p| p.0 == 0).map(|p| p.1).collect();
        assert_eq!(linked.len(), n - 1);
    }

    #[test]
    fn capped_buckets_within_the_bound_give_every_pair_once() {
        // 300 documents share every band (one template), 50 others are alone; 4 bands, so the
        // group comes back 4 times and is expanded once.
        let (num_perm, params) = (8, LshParams { bands: 4, rows: 2 });
        let mut sigs = vec![7u32; 300 * num_perm];
        sigs.extend((0..50 * num_perm as u32).map(|v| v + 100));
        let (pairs, stats) = band_candidates(&sigs, num_perm, params, 100, 300 * 299 / 2);
        assert_eq!((stats.capped_buckets, stats.groups, stats.groups_over_bound), (4, 1, 0));
        assert_eq!(stats.capped_pairs_skipped, 0);
        assert_eq!(pairs.len(), 300 * 299 / 2);
        assert!(pairs.iter().map(|&p| decode_pair(p)).all(|(a, b)| a < b && b < 300));
        // The same candidates as with no cap at all.
        assert_eq!(band_candidates(&sigs, num_perm, params, usize::MAX, 0).0, pairs);
    }
}
