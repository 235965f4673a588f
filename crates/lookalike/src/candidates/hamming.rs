//! Hamming-distance candidates over 64-bit fingerprints. Contract: "give me fingerprints and a
//! distance k, I give you every pair within distance k, exactly".
//!
//! Manku, Jain & Das Sarma (2007): comparing every pair is quadratic; instead the 64 bits are cut
//! into b ≥ k+1 contiguous blocks and one table is built for every choice of b − k *key blocks*
//! (C(b, k) tables). Two fingerprints within Hamming distance k differ in at most k blocks, so by
//! pigeonhole they agree exactly on all key blocks of at least one table. Each table is a sorted
//! vector of compact `(key, doc)` pairs (the key is the fingerprint masked to its key blocks), as
//! [`crate::candidates::lsh`] does for LSH bands; every run of equal keys is a bucket whose pairs
//! get their full Hamming distance checked. [`hamming_candidates`] is exact: it returns precisely
//! the pairs within distance k, the same as an all-pairs scan. The fingerprints themselves are
//! [`crate::sketch::simhash`]'s.

use rayon::prelude::*;

use crate::sketch::simhash::{BITS, MAX_TABLES, hamming};

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

    /// The key mask of every table: every union of `blocks − k` of the blocks. Two fingerprints
    /// within distance k agree on `fp & mask` for at least one mask (public for the persistent
    /// index, which stores the masked keys).
    pub fn key_masks(&self, k: u32) -> Vec<u64> {
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

/// C(n, k) (0 when k > n), or `None` on overflow.
pub(crate) fn binomial(n: usize, k: usize) -> Option<usize> {
    if k > n {
        return Some(0);
    }
    let k = k.min(n - k);
    let mut c: usize = 1;
    for i in 0..k {
        c = c.checked_mul(n - i)? / (i + 1);
    }
    Some(c)
}

/// Calls `f` with every increasing `want`-subset of `start..n`, appended to `chosen` (none when
/// `want` is more than `n`).
pub(crate) fn combinations(
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
    for i in start..n {
        if n - i < want - chosen.len() {
            break;
        }
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

    /// The subsets and their count, shared with `method::DocKeyer`: every k-subset once, in
    /// increasing order, and none (count 0) when k is more than n.
    #[test]
    fn combinations_and_binomial_agree_at_the_edges() {
        for n in 0..8usize {
            for k in 0..10usize {
                let mut seen = Vec::new();
                combinations(n, k, 0, &mut Vec::new(), &mut |c| seen.push(c.to_vec()));
                assert_eq!(Some(seen.len()), binomial(n, k), "C({n}, {k})");
                assert!(seen.windows(2).all(|w| w[0] < w[1]), "C({n}, {k}) in order");
                assert!(seen.iter().all(|c| c.len() == k && c.windows(2).all(|p| p[0] < p[1])));
            }
        }
        assert_eq!(binomial(200, 100), None);
    }
    use crate::sketch::minhash::splitmix64;

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

    fn flip_bits(state: &mut u64, fp: u64, d: u32) -> u64 {
        let mut out = fp;
        while hamming(out, fp) < d {
            out ^= 1 << (splitmix64(state) % 64);
        }
        out
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
