//! Partitioned fingerprints. Contract: "give me a document's term counts, I give you up to L
//! keys, one per list of its terms; documents sharing at least k keys are near-duplicate
//! candidates".
//!
//! Pugh, "Detecting duplicate and near-duplicate files", US patent 6,658,423 (Google, 2003), as
//! Zelenkov & Segalovich 2007 summarize it: a document's distinct terms are split into a fixed
//! number L of lists by a hash of the term modulo L, each list is fingerprinted, and two documents
//! are similar when they share a fingerprint. An edit of n distinct terms (added, removed; a
//! substitution is one of each) touches at most n lists, so the other lists keep their
//! fingerprints: with n < L at least one list always survives, and on average L·(1 − 1/L)ⁿ do.
//!
//! Details of this implementation:
//!
//! - the list of a term is chosen from a seeded remix of its hash (`mix64(hash ^ seed)`, mapped
//!   to `0..L` by multiply-high), not from the raw hash, so that the split is independent of the
//!   other uses of the term hash (hash tables, the I-Match lexicon randomization);
//! - a list's fingerprint is xxh3-64 of its term hashes in increasing order; the list index is
//!   written into the low ⌈log2 L⌉ bits of the key, so list 3 of one document can only meet list
//!   3 of another;
//! - an empty list gives no key, nor does a list with fewer than `min_list_terms` terms: a
//!   one-term list is just that term, and a common word alone in its list would put every short
//!   document containing it in one bucket;
//! - a document with fewer than `min_terms` distinct terms gets no keys and is reported
//!   ([`TooFewTerms`]).
//!
//! [`crate::candidates::shared_keys::candidate_pairs`] finds the pairs sharing at least k keys by sorting compact `(key, doc)`
//! pairs, as [`crate::candidates::lsh`] does.

use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::lexical::collection::TermCounts;
pub use crate::lexical::imatch::TooFewTerms;
use crate::sketch::minhash::mix64;

/// Settings of partitioned fingerprints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PartitionConfig {
    /// L, the number of lists. Default 8: any edit of up to 7 distinct terms leaves at least one
    /// list, hence one key, intact; on average 8·(7/8)ⁿ survive n edits (4.7 for n = 4, 2.1 for
    /// n = 10). More lists tolerate more edits but make each list shorter (less specific) and
    /// cost more keys per document. At most 256.
    pub lists: usize,
    /// k, the number of equal list fingerprints that makes two documents candidates. Default 1
    /// (the patent's "at least one common fingerprint").
    pub min_shared: usize,
    /// Fewest distinct terms a document must have. Default 16, two terms a list on average with
    /// the default L: below that, lists are single words and a shared key means little.
    pub min_terms: usize,
    /// Fewest terms a list needs to give a key. Default 2 (see the module docs).
    pub min_list_terms: usize,
}

impl Default for PartitionConfig {
    fn default() -> Self {
        PartitionConfig { lists: 8, min_shared: 1, min_terms: 16, min_list_terms: 2 }
    }
}

/// Most lists a configuration may ask for.
pub const MAX_LISTS: usize = 256;

/// Why a [`PartitionConfig`] is invalid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PartitionConfigError {
    /// `lists` is 0 or above [`MAX_LISTS`].
    #[error("the number of lists must be between 1 and {MAX_LISTS}, got {0}")]
    Lists(usize),
    /// `min_shared` is 0 or above `lists`.
    #[error(
        "the number of shared lists must be between 1 and the number of lists ({lists}), got {min_shared}"
    )]
    MinShared {
        /// The configured k.
        min_shared: usize,
        /// The configured L.
        lists: usize,
    },
    /// `min_terms` or `min_list_terms` is 0.
    #[error("the minimum numbers of terms per document and per list must be at least 1")]
    MinTerms,
}

impl PartitionConfig {
    /// Checks 1 ≤ lists ≤ [`MAX_LISTS`], 1 ≤ min_shared ≤ lists, min_terms ≥ 1 and
    /// min_list_terms ≥ 1.
    pub fn validate(&self) -> Result<(), PartitionConfigError> {
        if self.lists == 0 || self.lists > MAX_LISTS {
            return Err(PartitionConfigError::Lists(self.lists));
        }
        if self.min_shared == 0 || self.min_shared > self.lists {
            return Err(PartitionConfigError::MinShared {
                min_shared: self.min_shared,
                lists: self.lists,
            });
        }
        if self.min_terms == 0 || self.min_list_terms == 0 {
            return Err(PartitionConfigError::MinTerms);
        }
        Ok(())
    }
}

/// Reusable buffers for [`Partitioner::fingerprints_into`].
#[derive(Debug, Clone, Default)]
pub struct PartitionScratch {
    list_of: Vec<u8>,
    counts: Vec<usize>,
    next: Vec<usize>,
    bytes: Vec<u8>,
}

/// Computes partitioned fingerprints.
#[derive(Debug, Clone)]
pub struct Partitioner {
    config: PartitionConfig,
    index_bits: u32,
    assign_seed: u64,
    fp_seed: u64,
}

impl Partitioner {
    /// A partitioner with a validated configuration; `seed` seeds the term-to-list assignment and
    /// the fingerprints.
    pub fn new(config: PartitionConfig, seed: u64) -> Result<Partitioner, PartitionConfigError> {
        config.validate()?;
        let index_bits = (config.lists - 1).checked_ilog2().map_or(0, |b| b + 1);
        Ok(Partitioner {
            config,
            index_bits,
            assign_seed: mix64(seed ^ 0x5041_5254_4954_494F),
            fp_seed: mix64(seed ^ 0x4650_4C49_5354_0000),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &PartitionConfig {
        &self.config
    }

    /// The list (0..L) of a term.
    #[inline]
    pub fn list_of(&self, term: u64) -> usize {
        let r = mix64(term ^ self.assign_seed);
        ((u128::from(r) * self.config.lists as u128) >> 64) as usize
    }

    /// The list index a key was made from.
    pub fn list_of_key(&self, key: u64) -> usize {
        (key & ((1u64 << self.index_bits) - 1)) as usize
    }

    /// The document's keys, in list order: one for each list with at least `min_list_terms`
    /// terms. Fewer than `min_terms` distinct terms is an error.
    pub fn fingerprints(&self, doc: &TermCounts) -> Result<Vec<u64>, TooFewTerms> {
        let mut out = Vec::with_capacity(self.config.lists);
        self.fingerprints_into(doc, &mut PartitionScratch::default(), &mut out)?;
        Ok(out)
    }

    /// [`Partitioner::fingerprints`] into `out` (cleared first), reusing `scratch`.
    pub fn fingerprints_into(
        &self,
        doc: &TermCounts,
        scratch: &mut PartitionScratch,
        out: &mut Vec<u64>,
    ) -> Result<(), TooFewTerms> {
        out.clear();
        let distinct = doc.terms.len();
        if distinct < self.config.min_terms {
            return Err(TooFewTerms { found: distinct, needed: self.config.min_terms });
        }
        let lists = self.config.lists;
        let PartitionScratch { list_of, counts, next, bytes } = scratch;
        // Counting sort of the terms by list; the input is sorted by hash, so each list comes
        // out sorted too.
        list_of.clear();
        counts.clear();
        counts.resize(lists + 1, 0);
        for &(h, _) in &doc.terms {
            let j = self.list_of(h);
            list_of.push(j as u8);
            counts[j + 1] += 1;
        }
        for j in 0..lists {
            counts[j + 1] += counts[j];
        }
        bytes.clear();
        bytes.resize(distinct * 8, 0);
        next.clear();
        next.extend_from_slice(&counts[..lists]);
        for (&(h, _), &j) in doc.terms.iter().zip(list_of.iter()) {
            let at = next[j as usize];
            bytes[at * 8..at * 8 + 8].copy_from_slice(&h.to_le_bytes());
            next[j as usize] += 1;
        }
        let sorted = doc.terms.windows(2).all(|w| w[0].0 < w[1].0);
        for j in 0..lists {
            let (lo, hi) = (counts[j], counts[j + 1]);
            if hi - lo < self.config.min_list_terms {
                continue;
            }
            let list = &mut bytes[lo * 8..hi * 8];
            if !sorted {
                sort_le_u64s(list);
            }
            let fp = xxh3_64_with_seed(list, self.fp_seed);
            out.push((fp << self.index_bits) | j as u64);
        }
        Ok(())
    }
}

/// Sorts (and keeps) a run of little-endian u64s in place: only for hand-made, unsorted
/// [`TermCounts`].
fn sort_le_u64s(bytes: &mut [u8]) {
    let mut v: Vec<u64> = bytes
        .chunks_exact(8)
        .map(|c| {
            let mut a = [0u8; 8];
            a.copy_from_slice(c);
            u64::from_le_bytes(a)
        })
        .collect();
    v.sort_unstable();
    for (c, x) in bytes.chunks_exact_mut(8).zip(v) {
        c.copy_from_slice(&x.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::candidates::shared_keys::{candidate_pairs, candidate_pairs_capped};
    use crate::sketch::minhash::splitmix64;

    fn doc_of(terms: &[u64]) -> TermCounts {
        let mut t = terms.to_vec();
        t.sort_unstable();
        t.dedup();
        TermCounts { len: t.len() as u32, terms: t.into_iter().map(|h| (h, 1)).collect() }
    }

    fn random_terms(st: &mut u64, n: usize) -> Vec<u64> {
        crate::testutil::random_set(st, n)
    }

    #[test]
    fn validation() {
        let ok = PartitionConfig::default();
        assert_eq!(ok.validate(), Ok(()));
        for bad in [
            PartitionConfig { lists: 0, ..ok },
            PartitionConfig { lists: 257, ..ok },
            PartitionConfig { min_shared: 0, ..ok },
            PartitionConfig { min_shared: 9, ..ok },
            PartitionConfig { min_terms: 0, ..ok },
            PartitionConfig { min_list_terms: 0, ..ok },
        ] {
            assert!(bad.validate().is_err(), "{bad:?}");
            assert!(Partitioner::new(bad, 1).is_err());
        }
        for lists in [1, 2, 3, 8, 255, 256] {
            let p = Partitioner::new(PartitionConfig { lists, min_shared: 1, ..ok }, 1).unwrap();
            assert!(1usize << p.index_bits >= lists);
        }
    }

    /// Keys by the definition: group terms by list, sort each list, hash.
    fn brute_force_keys(p: &Partitioner, doc: &TermCounts) -> Vec<u64> {
        let c = p.config();
        (0..c.lists)
            .filter_map(|j| {
                let mut list: Vec<u64> =
                    doc.terms.iter().map(|t| t.0).filter(|&t| p.list_of(t) == j).collect();
                list.sort_unstable();
                (list.len() >= c.min_list_terms).then(|| {
                    let bytes: Vec<u8> = list.iter().flat_map(|t| t.to_le_bytes()).collect();
                    (xxh3_64_with_seed(&bytes, p.fp_seed) << p.index_bits) | j as u64
                })
            })
            .collect()
    }

    #[test]
    fn fingerprints_match_brute_force() {
        let mut st = 41;
        for lists in [1, 3, 8, 16] {
            let cfg = PartitionConfig { lists, min_terms: 4, ..Default::default() };
            let p = Partitioner::new(cfg, 1).unwrap();
            let (mut scratch, mut out) = (PartitionScratch::default(), Vec::new());
            for n in [4, 5, 20, 100, 500] {
                let doc = doc_of(&random_terms(&mut st, n));
                let keys = p.fingerprints(&doc).unwrap();
                assert_eq!(keys, brute_force_keys(&p, &doc));
                p.fingerprints_into(&doc, &mut scratch, &mut out).unwrap();
                assert_eq!(out, keys);
                for &k in &keys {
                    assert!(p.list_of_key(k) < lists);
                }
                // A hand-made, unsorted TermCounts gives the same keys.
                let mut shuffled = doc.clone();
                shuffled.terms.reverse();
                assert_eq!(p.fingerprints(&shuffled).unwrap(), keys);
            }
        }
    }

    #[test]
    fn short_documents_and_lists() {
        let p = Partitioner::new(PartitionConfig::default(), 1).unwrap();
        assert_eq!(p.fingerprints(&doc_of(&[1, 2, 3])), Err(TooFewTerms { found: 3, needed: 16 }));
        assert_eq!(
            p.fingerprints(&TermCounts::default()),
            Err(TooFewTerms { found: 0, needed: 16 })
        );
        // Lists with fewer than min_list_terms terms (in particular empty ones) give no key.
        let one = Partitioner::new(
            PartitionConfig { min_terms: 1, min_list_terms: 1, ..Default::default() },
            1,
        )
        .unwrap();
        let keys = one.fingerprints(&doc_of(&[42])).unwrap();
        assert_eq!(keys.len(), 1);
        assert_eq!(one.list_of_key(keys[0]), one.list_of(42));
    }

    #[test]
    fn one_changed_term_keeps_the_other_lists() {
        let mut st = 43;
        let p = Partitioner::new(PartitionConfig::default(), 1).unwrap();
        let l = p.config().lists;
        let mut substitutions_same_list = 0;
        for _ in 0..200 {
            let terms = random_terms(&mut st, 200);
            let a = p.fingerprints(&doc_of(&terms)).unwrap();
            assert_eq!(a.len(), l, "200 terms fill every list");
            let shared = |b: &[u64]| a.iter().filter(|k| b.contains(k)).count();
            // One term added, or one removed: exactly one list changes.
            let new = splitmix64(&mut st);
            let mut added = terms.clone();
            added.push(new);
            assert_eq!(shared(&p.fingerprints(&doc_of(&added)).unwrap()), l - 1);
            let removed = &terms[1..];
            assert_eq!(shared(&p.fingerprints(&doc_of(removed)).unwrap()), l - 1);
            // One substituted: the lists of the old and of the new term change.
            let mut subst = terms[1..].to_vec();
            subst.push(new);
            let same = p.list_of(terms[0]) == p.list_of(new);
            substitutions_same_list += usize::from(same);
            let expect = if same { l - 1 } else { l - 2 };
            assert_eq!(shared(&p.fingerprints(&doc_of(&subst)).unwrap()), expect);
        }
        assert!(substitutions_same_list > 0);
    }

    #[test]
    fn lists_are_balanced() {
        // Each term lands in each of the L lists with probability 1/L: 4 binomial errors.
        let p = Partitioner::new(PartitionConfig::default(), 1).unwrap();
        let n = 80_000usize;
        let mut counts = [0usize; 8];
        for i in 0..n as u64 {
            counts[p.list_of(i)] += 1;
        }
        let (mean, sd) = (n as f64 / 8.0, (n as f64 * (1.0 / 8.0) * (7.0 / 8.0)).sqrt());
        for c in counts {
            assert!((c as f64 - mean).abs() < 4.0 * sd, "{counts:?}");
        }
    }

    #[test]
    fn deterministic_and_seeded() {
        let terms = random_terms(&mut 47, 100);
        let doc = doc_of(&terms);
        let a = Partitioner::new(PartitionConfig::default(), 1).unwrap();
        assert_eq!(a.fingerprints(&doc), a.clone().fingerprints(&doc));
        let b = Partitioner::new(PartitionConfig::default(), 2).unwrap();
        let (ka, kb) = (a.fingerprints(&doc).unwrap(), b.fingerprints(&doc).unwrap());
        assert!(ka.iter().all(|k| !kb.contains(k)));
    }

    #[test]
    fn candidate_pairs_match_brute_force() {
        let mut st = 53;
        for (n, alphabet) in [(0, 10), (1, 10), (40, 12), (80, 40), (30, 4)] {
            let docs: Vec<Vec<u64>> = (0..n)
                .map(|_| {
                    let len = (splitmix64(&mut st) % 7) as usize;
                    (0..len).map(|_| splitmix64(&mut st) % alphabet).collect()
                })
                .collect();
            for min_shared in [0, 1, 2, 3] {
                let mut expect = Vec::new();
                for i in 0..n {
                    for j in i + 1..n {
                        let mut a = docs[i].clone();
                        a.sort_unstable();
                        a.dedup();
                        let shared = a.iter().filter(|k| docs[j].contains(k)).count();
                        if shared >= min_shared.max(1) {
                            expect.push((i as u32, j as u32));
                        }
                    }
                }
                assert_eq!(candidate_pairs(&docs, min_shared), expect, "n={n} k={min_shared}");
                if min_shared <= 1 {
                    assert_eq!(crate::sketch::supershingles::candidate_pairs(&docs), expect);
                }
            }
        }
    }

    #[test]
    fn capped_buckets_are_skipped() {
        // Key 7 is shared by 4 documents, key 9 by 2.
        let docs = vec![vec![7, 9], vec![7, 9], vec![7], vec![7]];
        assert_eq!(candidate_pairs(&docs, 1).len(), 6);
        assert_eq!(candidate_pairs_capped(&docs, 1, 3), vec![(0, 1)]);
        assert_eq!(candidate_pairs(&docs, 2), vec![(0, 1)]);
    }
}
