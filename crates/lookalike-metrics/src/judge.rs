//! The pool method (Zelenkov & Segalovich 2007, the comparative study of RCDL 2007): when no gold
//! standard exists, pool the pairs that several methods found, judge every pooled pair by direct
//! comparison of the two texts, and measure each method against the judged pool: precision over its
//! own pairs, recall against all pooled pairs judged duplicates (the pool as "the largest set of
//! found and verified duplicates"). Recall is relative: a duplicate no method found is in no pool.
//!
//! **Judging.** Both texts are normalized as `lookalike dedup` normalizes them
//! ([`lookalike::text::normalize`]: NFKC, case folding, punctuation and whitespace folded). Two
//! similarities are computed:
//!
//! - *shingle resemblance*: the exact Jaccard of the two sets of shingles (word 5-shingles by
//!   default, [`lookalike::Shingler`], [`lookalike::verify::jaccard`]);
//! - *character resemblance*: LCS / (|a| + |b| − LCS) over the characters of the normalized
//!   texts, where LCS is the length of their longest common subsequence: the Jaccard of the
//!   characters the best alignment matches, so that one threshold means the same on both scales
//!   (the normalized Indel similarity 2·LCS/(|a|+|b|) would be the Dice form, always higher).
//!   Word shingles punish scattered edits hard (one changed word breaks five shingles); the
//!   character measure sees a text with a word changed every ten words as 90 % the same.
//!
//! A pair is a duplicate when **either** similarity reaches the threshold: a pair that shares
//! long passages verbatim, or that differs only by scattered small edits, is what a person calls
//! a near-duplicate; a method is not blamed for finding either kind.
//!
//! LCS is computed with Hyyrö's bit-parallel algorithm (2004): one pass over the longer text,
//! ⌈m/64⌉ word operations per character for a shorter text of m characters, about 0.5 ms for
//! two 6,000-character texts.

use std::collections::HashMap;

use lookalike::shingles::{ShingleKind, ShingleScratch, Shingler};
use lookalike::text::normalize::{NormalizedText, normalize_into};
use lookalike::verify::jaccard;
use rayon::prelude::*;
use serde::Serialize;

use crate::relation::{EPS, Relation};
use crate::scores::{Overlap, PairScore, overlaps, pair_score};

/// Length of the longest common subsequence of the characters of `a` and `b`.
pub fn lcs_len(a: &str, b: &str) -> usize {
    // The shorter text goes into the bit vectors (fewer words per step).
    let (a, b) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let m = a.chars().count();
    if m == 0 || b.is_empty() {
        return 0;
    }
    let words = m.div_ceil(64);
    // Match masks: for each distinct character of `a`, the positions where it occurs.
    let mut ascii = [u32::MAX; 128];
    let mut other: HashMap<char, u32> = HashMap::new();
    let mut masks: Vec<u64> = Vec::new();
    for (i, c) in a.chars().enumerate() {
        let slot = match slot_of(c, &ascii, &other) {
            Some(s) => s,
            None => {
                let s = (masks.len() / words) as u32;
                masks.resize(masks.len() + words, 0);
                if (c as u32) < 128 {
                    ascii[c as usize] = s;
                } else {
                    other.insert(c, s);
                }
                s
            }
        };
        masks[slot as usize * words + i / 64] |= 1 << (i % 64);
    }
    // V starts all ones; for each character of b with match mask M:
    // V ← (V + (V & M)) | (V & !M), the addition carrying across words. Zeros of V count the LCS.
    // Bits past m stay ones: M is zero there, and the OR restores any carry that reached them.
    let mut v = vec![u64::MAX; words];
    for c in b.chars() {
        let Some(slot) = slot_of(c, &ascii, &other) else { continue };
        let pm = &masks[slot as usize * words..(slot as usize + 1) * words];
        let mut carry = false;
        for (vw, &mw) in v.iter_mut().zip(pm) {
            let x = *vw;
            let (s1, c1) = x.overflowing_add(x & mw);
            let (s2, c2) = s1.overflowing_add(u64::from(carry));
            carry = c1 | c2;
            *vw = s2 | (x & !mw);
        }
    }
    v.iter().map(|w| w.count_zeros() as usize).sum()
}

fn slot_of(c: char, ascii: &[u32; 128], other: &HashMap<char, u32>) -> Option<u32> {
    if (c as u32) < 128 {
        let s = ascii[c as usize];
        (s != u32::MAX).then_some(s)
    } else {
        other.get(&c).copied()
    }
}

/// LCS / (|a| + |b| − LCS) over characters: 1 for equal texts, 0 when nothing is common (or
/// both are empty).
pub fn char_resemblance(a: &str, b: &str) -> f64 {
    let (la, lb) = (a.chars().count(), b.chars().count());
    let lcs = lcs_len(a, b);
    let union = la + lb - lcs;
    if union == 0 { 0.0 } else { lcs as f64 / union as f64 }
}

/// A text ready to be judged: its normalized form and its shingle set.
#[derive(Debug, Clone, Default)]
pub struct Prepared {
    text: String,
    shingles: Vec<u64>,
}

/// The verdict on one pair.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Judgement {
    /// Exact Jaccard of the shingle sets.
    pub jaccard: f64,
    /// Character resemblance of the normalized texts (see the module docs).
    pub chars: f64,
    /// Whether either reaches the threshold.
    pub duplicate: bool,
}

/// Judges pairs of texts by direct comparison.
#[derive(Debug, Clone)]
pub struct Judge {
    shingler: Shingler,
    threshold: f64,
}

impl Judge {
    /// A judge with the given shingles (hash seed `seed`) and threshold.
    pub fn new(shingle: ShingleKind, seed: u64, threshold: f64) -> Judge {
        Judge { shingler: Shingler::new(shingle, seed), threshold }
    }

    /// The threshold.
    pub fn threshold(&self) -> f64 {
        self.threshold
    }

    /// The shingles compared.
    pub fn shingle(&self) -> ShingleKind {
        self.shingler.kind()
    }

    /// Normalizes and shingles a text.
    pub fn prepare(&self, text: &str) -> Prepared {
        let mut norm = NormalizedText::default();
        normalize_into(text, &mut norm);
        let mut shingles = Vec::new();
        self.shingler.shingles_into(&norm, &mut ShingleScratch::default(), &mut shingles);
        Prepared { text: norm.text, shingles }
    }

    /// Compares two prepared texts.
    pub fn judge(&self, a: &Prepared, b: &Prepared) -> Judgement {
        let jaccard = jaccard(&a.shingles, &b.shingles);
        let chars = char_resemblance(&a.text, &b.text);
        let t = self.threshold - EPS;
        Judgement { jaccard, chars, duplicate: jaccard >= t || chars >= t }
    }
}

/// The pool: the union of the pairs several runs found, with which runs found each.
#[derive(Debug, Clone)]
pub struct PairPool {
    /// The pooled pairs, sorted, smaller id first.
    pub pairs: Vec<(u32, u32)>,
    /// Per pair, a bit per run (bit i: run i wrote the pair).
    pub found_by: Vec<u64>,
    runs: usize,
}

/// How many runs a pool can hold (one bit each).
pub const MAX_POOL_RUNS: usize = 64;

/// One run measured against the judged pool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PoolRunScore {
    /// Precision, recall and F1 against the pool's duplicates.
    #[serde(flatten)]
    pub score: PairScore,
    /// Pairs no other run found.
    pub only_this: u64,
    /// Of those, judged duplicates.
    pub only_this_duplicates: u64,
}

/// The judged pool and every run's score against it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PoolReport {
    /// The threshold of both similarities.
    pub threshold: f64,
    /// Shingles of the shingle resemblance.
    pub shingle: String,
    /// Pooled pairs.
    pub pairs: u64,
    /// Of those, judged duplicates.
    pub duplicates: u64,
    /// Pairs whose shingle resemblance reaches the threshold.
    pub by_shingles: u64,
    /// Pairs whose character resemblance reaches the threshold.
    pub by_chars: u64,
    /// Per run, in the order given.
    pub runs: Vec<PoolRunScore>,
    /// Overlap of every two runs' pairs.
    pub overlaps: Vec<Overlap>,
}

impl PairPool {
    /// Pools the pairs the runs wrote (each a pairs relation, see
    /// [`Relation::from_found_pairs`]). At most [`MAX_POOL_RUNS`] runs.
    pub fn new(runs: &[&Relation]) -> PairPool {
        assert!(runs.len() <= MAX_POOL_RUNS, "at most {MAX_POOL_RUNS} runs in a pool");
        let mut all: Vec<((u32, u32), u64)> = Vec::new();
        for (i, r) in runs.iter().enumerate() {
            all.extend(r.pairs().unwrap_or_default().iter().map(|&p| (p, 1u64 << i)));
        }
        all.sort_unstable_by_key(|&(p, _)| p);
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        let mut found_by: Vec<u64> = Vec::new();
        for (p, bit) in all {
            if pairs.last() == Some(&p) {
                *found_by.last_mut().expect("parallel vectors") |= bit;
            } else {
                pairs.push(p);
                found_by.push(bit);
            }
        }
        PairPool { pairs, found_by, runs: runs.len() }
    }

    /// The ids in pooled pairs, sorted.
    pub fn ids(&self) -> Vec<u32> {
        let mut ids: Vec<u32> = self.pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// Judges every pooled pair (in parallel). `texts` must hold the text of every id of
    /// [`PairPool::ids`]; `Err` names an id whose text is missing.
    pub fn judge_all(
        &self,
        judge: &Judge,
        texts: &HashMap<u32, String>,
    ) -> Result<Vec<Judgement>, u32> {
        let ids = self.ids();
        if let Some(&missing) = ids.iter().find(|id| !texts.contains_key(id)) {
            return Err(missing);
        }
        let prepared: HashMap<u32, Prepared> =
            ids.par_iter().map(|id| (*id, judge.prepare(&texts[id]))).collect();
        Ok(self.pairs.par_iter().map(|(a, b)| judge.judge(&prepared[a], &prepared[b])).collect())
    }

    /// Scores each run (the same runs, in the same order, as given to [`PairPool::new`])
    /// against the pooled pairs judged duplicates.
    pub fn report(&self, runs: &[&Relation], judge: &Judge, judged: &[Judgement]) -> PoolReport {
        assert_eq!(runs.len(), self.runs);
        assert_eq!(judged.len(), self.pairs.len());
        let t = judge.threshold() - EPS;
        let duplicates =
            self.pairs.iter().zip(judged).filter(|(_, j)| j.duplicate).map(|(p, _)| *p);
        let reference = Relation::from_pairs(duplicates, self.ids());
        let runs_scores = runs
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let only: Vec<usize> =
                    (0..self.pairs.len()).filter(|&k| self.found_by[k] == 1u64 << i).collect();
                PoolRunScore {
                    score: pair_score(r, &reference),
                    only_this: only.len() as u64,
                    only_this_duplicates: only.iter().filter(|&&k| judged[k].duplicate).count()
                        as u64,
                }
            })
            .collect();
        let sets: Vec<&[(u32, u32)]> = runs.iter().map(|r| r.pairs().unwrap_or_default()).collect();
        PoolReport {
            threshold: judge.threshold(),
            shingle: judge.shingle().to_string(),
            pairs: self.pairs.len() as u64,
            duplicates: judged.iter().filter(|j| j.duplicate).count() as u64,
            by_shingles: judged.iter().filter(|j| j.jaccard >= t).count() as u64,
            by_chars: judged.iter().filter(|j| j.chars >= t).count() as u64,
            runs: runs_scores,
            overlaps: overlaps(&sets),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;

    /// The textbook dynamic program, O(|a|·|b|).
    fn lcs_slow(a: &str, b: &str) -> usize {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let mut row = vec![0usize; b.len() + 1];
        for &x in &a {
            let mut diag = 0;
            for j in 0..b.len() {
                let up = row[j + 1];
                row[j + 1] = if x == b[j] { diag + 1 } else { up.max(row[j]) };
                diag = up;
            }
        }
        row[b.len()]
    }

    #[test]
    fn lcs_by_hand() {
        // "abcbdab" / "bdcaba": the classic CLRS example, LCS "bcba" = 4.
        assert_eq!(lcs_len("abcbdab", "bdcaba"), 4);
        assert_eq!(lcs_len("", "abc"), 0);
        assert_eq!(lcs_len("abc", "abc"), 3);
        assert_eq!(lcs_len("привет мир", "привет, мир!"), 10);
        // Character resemblance: LCS 4, lengths 7 and 6: 4 / (13 − 4) = 4/9.
        assert!((char_resemblance("abcbdab", "bdcaba") - 4.0 / 9.0).abs() < 1e-12);
        assert_eq!(char_resemblance("", ""), 0.0);
        assert_eq!(char_resemblance("same", "same"), 1.0);
    }

    #[test]
    fn bit_parallel_lcs_matches_the_dynamic_program() {
        let mut rng = Rng::new(11);
        let alphabets: [&[char]; 3] =
            [&['a', 'b'], &['a', 'b', 'c', 'd', ' ', 'e'], &['x', 'я', '字', '🙂', 'é', ' ']];
        for round in 0..300 {
            let alpha = alphabets[round % 3];
            // Lengths across word boundaries (63, 64, 65, 128, ...).
            let la = rng.range_incl(0, 200);
            let lb = rng.range_incl(0, 200);
            let a: String = (0..la).map(|_| alpha[rng.index(alpha.len())]).collect();
            let mut b: String = (0..lb).map(|_| alpha[rng.index(alpha.len())]).collect();
            if round % 4 == 0 {
                // A near copy: a with a few characters dropped.
                b = a.chars().filter(|_| rng.index(10) != 0).collect();
            }
            assert_eq!(lcs_len(&a, &b), lcs_slow(&a, &b), "round {round}: {a:?} {b:?}");
        }
        let a = "a".repeat(64);
        assert_eq!(lcs_len(&a, &a), 64);
        assert_eq!(lcs_len(&"ab".repeat(100), &"ba".repeat(100)), 199);
    }

    const BASE: &str = "the quick brown fox jumps over the lazy dog while the cat sleeps on \
                        the warm mat near the old kitchen door every single afternoon";

    #[test]
    fn judging_by_hand() {
        let judge = Judge::new(ShingleKind::Words(5), 1, 0.8);
        let p = |t: &str| judge.prepare(t);
        // Case and punctuation only: both similarities 1.
        let j = judge.judge(&p(BASE), &p(&BASE.to_uppercase().replace(' ', ", ")));
        assert_eq!((j.jaccard, j.chars, j.duplicate), (1.0, 1.0, true));
        // Every fifth word gets an "s" appended: 25 words, 21 shingles, every shingle touches a
        // changed word, so Jaccard 0; the characters: 5 inserted into 129, so LCS = 129 and the
        // resemblance 129 / 134: a duplicate by characters.
        let edited: String = BASE
            .split(' ')
            .enumerate()
            .map(|(i, w)| if i % 5 == 4 { format!("{w}s") } else { w.to_owned() })
            .collect::<Vec<_>>()
            .join(" ");
        let j = judge.judge(&p(BASE), &p(&edited));
        assert_eq!(BASE.chars().count(), 129);
        assert_eq!(j.jaccard, 0.0);
        assert!((j.chars - 129.0 / 134.0).abs() < 1e-12 && j.duplicate, "{j:?}");
        // Unrelated texts: neither.
        let j = judge.judge(&p(BASE), &p("entirely different words about nothing in particular"));
        assert!(!j.duplicate && j.chars < 0.5);
    }

    #[test]
    fn pool_scores_by_hand() {
        // Texts: 0 and 1 equal, 2 = 0 with a word changed (duplicate by chars), 3 unrelated.
        let texts: HashMap<u32, String> = [
            (0, BASE.to_owned()),
            (1, BASE.to_owned()),
            (2, BASE.replacen("lazy", "sleepy", 1)),
            (3, "nothing like the others at all, not a single shared passage here".to_owned()),
        ]
        .into_iter()
        .collect();
        // Run A: 0-1 (exact), 0-2. Run B: 0-1, 1-3 (wrong). Pool: 0-1, 0-2, 1-3; duplicates
        // 0-1 and 0-2 (pool duplicates: 2).
        // A: precision 2/2, recall 2/2; B: precision 1/2, recall 1/2 (0-2 missed).
        // Only-this: A has 0-2 (a duplicate), B has 1-3 (not). Overlap: shared 1 (0-1), union 3.
        let a = Relation::from_found_pairs([(0, 1, 1.0), (0, 2, 0.85)]);
        let b = Relation::from_found_pairs([(0, 1, 1.0), (1, 3, 0.81)]);
        let pool = PairPool::new(&[&a, &b]);
        assert_eq!(pool.pairs, vec![(0, 1), (0, 2), (1, 3)]);
        assert_eq!(pool.found_by, vec![0b11, 0b01, 0b10]);
        let judge = Judge::new(ShingleKind::Words(5), 1, 0.8);
        let judged = pool.judge_all(&judge, &texts).unwrap();
        assert_eq!(judged.iter().map(|j| j.duplicate).collect::<Vec<_>>(), [true, true, false]);
        let r = pool.report(&[&a, &b], &judge, &judged);
        assert_eq!((r.pairs, r.duplicates), (3, 2));
        let (sa, sb) = (&r.runs[0], &r.runs[1]);
        assert_eq!((sa.score.precision, sa.score.recall), (Some(1.0), Some(1.0)));
        assert_eq!((sb.score.precision, sb.score.recall), (Some(0.5), Some(0.5)));
        assert_eq!((sa.only_this, sa.only_this_duplicates), (1, 1));
        assert_eq!((sb.only_this, sb.only_this_duplicates), (1, 0));
        assert_eq!((r.overlaps[0].shared, r.overlaps[0].union), (1, 3));
        // A text missing: the id is named.
        let mut partial = texts.clone();
        partial.remove(&3);
        assert_eq!(pool.judge_all(&judge, &partial), Err(3));
    }
}
