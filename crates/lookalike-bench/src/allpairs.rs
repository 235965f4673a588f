//! Exact set-similarity self-join: every pair of token sets with Jaccard ≥ t.
//!
//! Not sampled and not estimated: an exact set-similarity self-join in the style of AllPairs
//! (Bayardo et al. 2007) with PPJoin's positional filter (Xiao et al. 2008):
//!
//! 1. Every 64-bit shingle hash becomes a 32-bit token ranked by global document frequency, rarest
//!    first (ties by hash), and every document becomes its sorted token list.
//! 2. Documents are ordered by size. Two sets x, y (|y| ≤ |x|) with J ≥ t have an overlap
//!    o ≥ ⌈t·|x|⌉ and o ≥ ⌈2t/(1+t)·|y|⌉, so (prefix principle) the first |x| − ⌈t·|x|⌉ + 1 tokens
//!    of x (its *probe prefix*) share a token with the first |y| − ⌈2t/(1+t)·|y|⌉ + 1 tokens of
//!    y (its *index prefix*). Only index prefixes go into the inverted index, and rare tokens
//!    come first, so the lists that probes scan are short.
//! 3. Size filter: y is skipped unless |y| ≥ ⌈t·|x|⌉. Positional filter: when x's token at
//!    position i meets y's at position j, at most `seen + 1 + min(|x|−i−1, |y|−j−1)` tokens can
//!    be common; a candidate that cannot reach ⌈t/(1+t)·(|x|+|y|)⌉ is dropped.
//! 4. Surviving candidates are verified by merging the two token lists: the Jaccard written is
//!    exact.
//!
//! The index is built once over all documents; probes then run in parallel (each document probes
//! only documents before it in size order), with per-thread counters and no locks. The output is
//! sorted, so it is the same for any thread count.

use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

/// One similar pair: documents `a < b` (input order) with `inter` common shingles out of `union`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct SimilarPair {
    /// The earlier document.
    pub a: u32,
    /// The later document.
    pub b: u32,
    /// |A ∩ B|.
    pub inter: u32,
    /// |A ∪ B|.
    pub union: u32,
}

impl SimilarPair {
    /// The pair's Jaccard similarity.
    pub fn jaccard(&self) -> f64 {
        f64::from(self.inter) / f64::from(self.union)
    }
}

/// Floating-point slack for the prefix bounds: a bound computed a hair too high would make a
/// prefix one token too short and lose pairs; one a hair too low only costs a little time.
const EPS: f64 = 1e-9;

fn ceil_bound(x: f64) -> usize {
    (x - EPS).ceil().max(0.0) as usize
}

/// Documents as sorted lists of frequency-ranked tokens, in one flat array.
#[derive(Debug, Default)]
pub struct TokenSets {
    offsets: Vec<usize>,
    tokens: Vec<u32>,
}

impl TokenSets {
    /// Number of documents.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// True when there are no documents.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Tokens of document `i`, sorted (rarest first).
    pub fn get(&self, i: usize) -> &[u32] {
        &self.tokens[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Ranks the hashes of all documents by document frequency (rarest first, ties by hash) and
    /// converts each document's sorted, deduplicated hash set into its sorted token list.
    /// `hashes` is a flat array of all documents' hashes, `offsets` its document boundaries
    /// (`offsets.len()` = documents + 1).
    pub fn from_hash_sets(offsets: Vec<usize>, hashes: Vec<u64>) -> TokenSets {
        let mut sorted = hashes.clone();
        sorted.par_sort_unstable();
        let mut uniq: Vec<u64> = Vec::new();
        let mut df: Vec<u32> = Vec::new();
        for h in sorted {
            if uniq.last() == Some(&h) {
                *df.last_mut().expect("df follows uniq") += 1;
            } else {
                uniq.push(h);
                df.push(1);
            }
        }
        let mut order: Vec<u32> = (0..uniq.len() as u32).collect();
        order.par_sort_unstable_by_key(|&u| (df[u as usize], uniq[u as usize]));
        drop(df);
        let mut rank = vec![0u32; uniq.len()];
        for (r, &u) in order.iter().enumerate() {
            rank[u as usize] = r as u32;
        }
        drop(order);
        let n = offsets.len().saturating_sub(1);
        let mut tokens = vec![0u32; hashes.len()];
        let mut chunks: Vec<&mut [u32]> = Vec::with_capacity(n);
        let mut rest = tokens.as_mut_slice();
        for d in 0..n {
            let (head, tail) = rest.split_at_mut(offsets[d + 1] - offsets[d]);
            chunks.push(head);
            rest = tail;
        }
        let directory = Directory::new(&uniq);
        chunks.into_par_iter().enumerate().for_each(|(d, out)| {
            let doc = &hashes[offsets[d]..offsets[d + 1]];
            for (o, &h) in out.iter_mut().zip(doc) {
                *o = rank[directory.position(&uniq, h)];
            }
            out.sort_unstable();
        });
        TokenSets { offsets, tokens }
    }
}

/// Finds hashes in a sorted array of distinct 64-bit hashes quickly. Shingle hashes are uniform,
/// so their top bits say almost exactly where each one sits: a table indexed by the top bits gives
/// a range of about eight entries to search, instead of a binary search over the whole array
/// with a cache miss at every step.
struct Directory {
    shift: u32,
    starts: Vec<u32>,
}

impl Directory {
    fn new(uniq: &[u64]) -> Directory {
        let bits = (usize::BITS - uniq.len().leading_zeros()).saturating_sub(3).clamp(1, 28);
        let shift = 64 - bits;
        let mut starts = vec![0u32; (1usize << bits) + 1];
        for &h in uniq {
            starts[(h >> shift) as usize + 1] += 1;
        }
        for k in 1..starts.len() {
            starts[k] += starts[k - 1];
        }
        Directory { shift, starts }
    }

    /// Index of `h` in `uniq`, which must contain it.
    fn position(&self, uniq: &[u64], h: u64) -> usize {
        let b = (h >> self.shift) as usize;
        let (lo, hi) = (self.starts[b] as usize, self.starts[b + 1] as usize);
        lo + uniq[lo..hi].binary_search(&h).expect("every hash is in uniq")
    }
}

/// Number of common tokens of two sorted lists.
fn overlap(a: &[u32], b: &[u32]) -> u32 {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        n += u32::from(x == y);
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    n
}

/// Like [`overlap`], but gives up (returning `None`) as soon as `need` common tokens can no longer
/// be reached: most candidates share a paragraph or two with the probing document, not most of
/// it, and are rejected after a fraction of the merge.
fn overlap_at_least(a: &[u32], b: &[u32], need: u32) -> Option<u32> {
    let (mut i, mut j, mut n) = (0, 0, 0u32);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        n += u32::from(x == y);
        i += usize::from(x <= y);
        j += usize::from(y <= x);
        if (i & 63) == 0 && n as usize + (a.len() - i).min(b.len() - j) < need as usize {
            return None;
        }
    }
    (n >= need).then_some(n)
}

/// A posting: a document (by its position in size order) and the token's position in it.
#[derive(Debug, Clone, Copy)]
struct Posting {
    pos: u32,
    at: u32,
}

/// Per-thread probe state.
struct Scratch {
    /// Common prefix tokens seen so far per document position; `PRUNED` once filtered out.
    count: Vec<u32>,
    touched: Vec<u32>,
}

const PRUNED: u32 = u32::MAX;

/// All pairs of documents whose token sets have Jaccard ≥ `threshold` (in `(0, 1]`), sorted by
/// `(a, b)`. Documents with no tokens are never paired.
pub fn all_pairs(sets: &TokenSets, threshold: f64) -> Vec<SimilarPair> {
    assert!(threshold > 0.0 && threshold <= 1.0, "threshold must be in (0, 1]");
    let t = threshold;
    let n = sets.len();
    // Size order: position → document.
    let mut by_size: Vec<u32> =
        (0..n as u32).filter(|&d| !sets.get(d as usize).is_empty()).collect();
    by_size.sort_by_key(|&d| (sets.get(d as usize).len(), d));
    let sizes: Vec<u32> = by_size.iter().map(|&d| sets.get(d as usize).len() as u32).collect();
    let index_prefix = |len: usize| len - ceil_bound(2.0 * t / (1.0 + t) * len as f64) + 1;
    let probe_prefix = |len: usize| len - ceil_bound(t * len as f64) + 1;

    // Inverted index over index prefixes, as one flat array of postings per token, each list
    // sorted by position (so by size).
    let max_token = by_size
        .iter()
        .filter_map(|&d| {
            let s = sets.get(d as usize);
            s[..index_prefix(s.len()).min(s.len())].iter().max().copied()
        })
        .max()
        .map_or(0, |m| m as usize + 1);
    let mut starts = vec![0usize; max_token + 1];
    for &d in &by_size {
        let s = sets.get(d as usize);
        for &tok in &s[..index_prefix(s.len()).min(s.len())] {
            starts[tok as usize + 1] += 1;
        }
    }
    for k in 1..starts.len() {
        starts[k] += starts[k - 1];
    }
    let mut fill = starts.clone();
    let mut postings = vec![Posting { pos: 0, at: 0 }; starts[max_token]];
    for (pos, &d) in by_size.iter().enumerate() {
        let s = sets.get(d as usize);
        for (at, &tok) in s[..index_prefix(s.len()).min(s.len())].iter().enumerate() {
            let slot = &mut fill[tok as usize];
            postings[*slot] = Posting { pos: pos as u32, at: at as u32 };
            *slot += 1;
        }
    }
    drop(fill);

    let probe = |scratch: &mut Scratch, px: usize, out: &mut Vec<SimilarPair>| {
        let dx = by_size[px];
        let x = sets.get(dx as usize);
        let lx = x.len();
        let min_size = ceil_bound(t * lx as f64) as u32;
        let mut candidates: Vec<u32> = Vec::new();
        for (i, &tok) in x[..probe_prefix(lx).min(lx)].iter().enumerate() {
            let tok = tok as usize;
            if tok >= max_token {
                continue;
            }
            let list = &postings[starts[tok]..starts[tok + 1]];
            let first = list.partition_point(|p| sizes[p.pos as usize] < min_size);
            for p in &list[first..] {
                if p.pos as usize >= px {
                    break;
                }
                let c = &mut scratch.count[p.pos as usize];
                if *c == PRUNED {
                    continue;
                }
                let ly = sizes[p.pos as usize] as usize;
                let need = ceil_bound(t / (1.0 + t) * (lx + ly) as f64) as u32;
                let bound = *c + 1 + (lx - i - 1).min(ly - p.at as usize - 1) as u32;
                if *c == 0 {
                    scratch.touched.push(p.pos);
                }
                if bound < need {
                    *c = PRUNED;
                } else {
                    if *c == 0 {
                        candidates.push(p.pos);
                    }
                    *c += 1;
                }
            }
        }
        for &py in &candidates {
            if scratch.count[py as usize] == PRUNED {
                continue;
            }
            let dy = by_size[py as usize];
            let y = sets.get(dy as usize);
            let need = ceil_bound(t / (1.0 + t) * (lx + y.len()) as f64) as u32;
            let Some(inter) = overlap_at_least(x, y, need) else { continue };
            let union = (lx + y.len()) as u32 - inter;
            if f64::from(inter) / f64::from(union) >= t {
                let (a, b) = if dx < dy { (dx, dy) } else { (dy, dx) };
                out.push(SimilarPair { a, b, inter, union });
            }
        }
        for &py in &scratch.touched {
            scratch.count[py as usize] = 0;
        }
        scratch.touched.clear();
    };

    // Workers take blocks of positions from a shared counter (later positions have longer
    // lists to scan, so static splitting would balance badly); one scratch per worker.
    const BLOCK: usize = 256;
    let next = AtomicUsize::new(0);
    let workers = rayon::current_num_threads().max(1);
    let blocks: Vec<Vec<SimilarPair>> = (0..workers)
        .into_par_iter()
        .map(|_| {
            let mut scratch = Scratch { count: vec![0; by_size.len()], touched: Vec::new() };
            let mut out = Vec::new();
            loop {
                let start = next.fetch_add(BLOCK, Ordering::Relaxed);
                if start >= by_size.len() {
                    break;
                }
                for px in start..(start + BLOCK).min(by_size.len()) {
                    probe(&mut scratch, px, &mut out);
                }
            }
            out
        })
        .collect();
    let mut pairs: Vec<SimilarPair> = blocks.into_iter().flatten().collect();
    pairs.par_sort_unstable();
    pairs
}

/// The slow reference: every pair compared directly. For tests.
pub fn all_pairs_brute_force(sets: &TokenSets, threshold: f64) -> Vec<SimilarPair> {
    let mut out = Vec::new();
    for a in 0..sets.len() {
        for b in a + 1..sets.len() {
            let (x, y) = (sets.get(a), sets.get(b));
            if x.is_empty() || y.is_empty() {
                continue;
            }
            let inter = overlap(x, y);
            let union = (x.len() + y.len()) as u32 - inter;
            if f64::from(inter) / f64::from(union) >= threshold {
                out.push(SimilarPair { a: a as u32, b: b as u32, inter, union });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn token_sets(docs: &[Vec<u64>]) -> TokenSets {
        let mut offsets = vec![0];
        let mut hashes = Vec::new();
        for d in docs {
            let mut d = d.clone();
            d.sort_unstable();
            d.dedup();
            hashes.extend_from_slice(&d);
            offsets.push(hashes.len());
        }
        TokenSets::from_hash_sets(offsets, hashes)
    }

    /// Random collections with planted overlaps: sets drawn from a small universe, some copied
    /// from earlier ones with a few elements changed, some empty, some identical.
    fn random_collection(rng: &mut Rng, n: usize) -> Vec<Vec<u64>> {
        let universe = rng.range_incl(20, 400) as u64;
        let mut docs: Vec<Vec<u64>> = Vec::new();
        for _ in 0..n {
            let doc = if !docs.is_empty() && rng.chance(0.5) {
                let mut d = docs[rng.index(docs.len())].clone();
                for _ in 0..rng.range_incl(0, 4) {
                    if !d.is_empty() && rng.chance(0.5) {
                        d.remove(rng.index(d.len()));
                    } else {
                        d.push(rng.below(universe));
                    }
                }
                d
            } else if rng.chance(0.05) {
                Vec::new()
            } else {
                let len = rng.range_incl(1, 30);
                (0..len).map(|_| rng.below(universe)).collect()
            };
            docs.push(doc);
        }
        docs
    }

    #[test]
    fn matches_brute_force_on_random_collections() {
        let mut rng = Rng::new(2024);
        for round in 0..300 {
            let n = rng.range_incl(0, 60);
            let docs = random_collection(&mut rng, n);
            let sets = token_sets(&docs);
            for t in [0.1, 0.3, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.0] {
                assert_eq!(
                    all_pairs(&sets, t),
                    all_pairs_brute_force(&sets, t),
                    "round {round}, threshold {t}"
                );
            }
        }
    }

    #[test]
    fn hand_computed_example() {
        // {1,2,3,4} vs {1,2,3,5}: 3/5; vs {1,2,3,4}: 1; {9} alone; {} never paired.
        let sets =
            token_sets(&[vec![1, 2, 3, 4], vec![1, 2, 3, 5], vec![4, 3, 2, 1], vec![9], vec![]]);
        let pairs = all_pairs(&sets, 0.6);
        let got: Vec<(u32, u32, f64)> = pairs.iter().map(|p| (p.a, p.b, p.jaccard())).collect();
        assert_eq!(got, vec![(0, 1, 0.6), (0, 2, 1.0), (1, 2, 0.6)]);
        assert_eq!(all_pairs(&sets, 0.61).len(), 1);
    }

    #[test]
    fn ranks_put_rare_tokens_first() {
        let sets = token_sets(&[vec![10, 20], vec![10, 30], vec![10, 20]]);
        // 30 appears once, 20 twice, 10 three times.
        assert_eq!(sets.get(1), &[0, 2]);
        assert_eq!(sets.get(0), &[1, 2]);
    }
}
