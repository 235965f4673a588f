//! Verification of the candidate pairs. Contract: "give me candidate pairs of heads, I give you
//! the verified ones with their similarities and what verification saw; later I am the oracle
//! that scores a cluster member against its representative".

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::outcome::{
    Contained, SAMPLE_BAND, SAMPLE_BANDS_BELOW, SAMPLE_PER_BAND, VerificationStats,
};
use super::tail::{NearPair, SimilarityOracle};
use crate::candidates::lsh::decode_pair;
use crate::config::{DedupConfig, Measure};
use crate::document::DocId;
use crate::error::Error;
use crate::method::{MethodObject, Slot};
use crate::store::{ReadBuffers, ShingleStore};
use crate::verify::{intersection_size, jaccard};

/// A candidate pair of slots (`a < b`, encoded `a << 32 | b`) with the method's estimate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Candidate {
    pub(super) pair: u64,
    pub(super) estimate: f64,
    /// Whether the method itself calls the pair a duplicate (its own decision, used when
    /// verification is `estimate`).
    pub(super) accepted: bool,
}

/// Two shingle sets read from the store, and the store's read buffers.
#[derive(Debug, Default)]
pub(super) struct SetBuffers {
    a: Vec<u64>,
    b: Vec<u64>,
    read: ReadBuffers,
}

/// splitmix64's finaliser: a well-spread rank for drawing a sample.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The exact similarity with which verification scores a candidate pair of heads `a` < `b`
/// (their sorted shingle sets): Jaccard, or with containment the larger of |A∩B|/|A| and
/// |A∩B|/|B| with its direction (ties read as the earlier document contained in the later one).
/// A cluster member's similarity to its representative under containment is
/// [`crate::verify::containment`] of the member in the representative.
pub fn exact_similarity(measure: Measure, a: &[u64], b: &[u64]) -> (f64, Option<Contained>) {
    match measure {
        Measure::Jaccard => (jaccard(a, b), None),
        Measure::Containment => {
            let inter = intersection_size(a, b) as f64;
            let ca = if a.is_empty() { 0.0 } else { inter / a.len() as f64 };
            let cb = if b.is_empty() { 0.0 } else { inter / b.len() as f64 };
            if ca >= cb { (ca, Some(Contained::AInB)) } else { (cb, Some(Contained::BInA)) }
        }
    }
}

/// Similarity between heads: exact from the shingle store, or the method's own estimate.
pub(super) struct Similarity<'a> {
    pub(super) method: &'a dyn MethodObject,
    pub(super) config: &'a DedupConfig,
    pub(super) store: Option<&'a ShingleStore>,
}

impl Similarity<'_> {
    /// Exact similarity of two sets under the configured measure, with the direction of a
    /// containment.
    fn exact(&self, a: &[u64], b: &[u64]) -> (f64, Option<Contained>) {
        exact_similarity(self.config.measure, a, b)
    }

    /// Verifies sorted candidate pairs of slots; returns those at or above the threshold (exact
    /// verification) or those the method accepts (estimate), with what verification saw (the
    /// sample's pairs are slots here).
    pub(super) fn verify_pairs(
        &self,
        candidates: &[Candidate],
        progress: &VerifyProgress,
    ) -> Result<(Vec<NearPair>, VerificationStats), Error> {
        let threshold = self.config.threshold;
        let Some(store) = self.store else {
            let contained = |a: u32, b: u32| {
                (self.config.measure == Measure::Containment).then(|| {
                    // The estimate is the containment of the smaller sample.
                    if self.method.sample_len(Slot(a)) <= self.method.sample_len(Slot(b)) {
                        Contained::AInB
                    } else {
                        Contained::BInA
                    }
                })
            };
            let seen = candidates.iter().map(|c| (c.pair, c.estimate, c.accepted));
            let stats = self.verification_stats(seen);
            let near = candidates
                .iter()
                .filter(|cand| cand.accepted)
                .map(|cand| {
                    let (a, b) = decode_pair(cand.pair);
                    NearPair {
                        a: Slot(a),
                        b: Slot(b),
                        similarity: cand.estimate,
                        contained: contained(a, b),
                    }
                })
                .collect();
            progress.add(candidates.len() as u64);
            return Ok((near, stats));
        };
        // Group by the first slot so each of its sets is read once.
        let groups: Vec<&[Candidate]> =
            candidates.chunk_by(|x, y| decode_pair(x.pair).0 == decode_pair(y.pair).0).collect();
        let verified: Vec<Vec<_>> = groups
            .par_iter()
            .map_init(SetBuffers::default, |buf, group| -> Result<_, Error> {
                let a = decode_pair(group[0].pair).0;
                let mut out = Vec::with_capacity(group.len());
                store.read(a as usize, &mut buf.a, &mut buf.read)?;
                for cand in group.iter() {
                    let b = decode_pair(cand.pair).1;
                    store.read(b as usize, &mut buf.b, &mut buf.read)?;
                    let (sim, contained) = self.exact(&buf.a, &buf.b);
                    out.push(NearPair { a: Slot(a), b: Slot(b), similarity: sim, contained });
                }
                progress.add(group.len() as u64);
                Ok(out)
            })
            .collect::<Result<_, _>>()?;
        let all = verified.iter().flatten();
        let seen = all.map(|p| {
            ((u64::from(p.a.0) << 32) | u64::from(p.b.0), p.similarity, p.similarity >= threshold)
        });
        let stats = self.verification_stats(seen);
        let near = verified.into_iter().flatten().filter(|p| p.similarity >= threshold).collect();
        Ok((near, stats))
    }

    /// The histogram, the rejected count and the rejected sample of verified candidates, given
    /// as `(pair, similarity, accepted)`.
    fn verification_stats(
        &self,
        seen: impl Iterator<Item = (u64, f64, bool)>,
    ) -> VerificationStats {
        let t = self.config.threshold;
        let mut stats = VerificationStats { histogram: vec![0; 101], ..Default::default() };
        // (band below the threshold, rank, pair, similarity) of rejected pairs near it.
        let mut near_misses: Vec<(usize, u64, u64, f64)> = Vec::new();
        for (pair, sim, accepted) in seen {
            stats.verified += 1;
            stats.histogram[VerificationStats::bin(sim)] += 1;
            if accepted {
                continue;
            }
            stats.rejected += 1;
            // Band 0 is [t − 0.05, t) (a hair of slack for floating point: 0.75 is in it at 0.8).
            let below = ((t - sim) / SAMPLE_BAND - 1e-9).ceil() - 1.0;
            if sim < t && below < SAMPLE_BANDS_BELOW as f64 {
                near_misses.push((
                    below.max(0.0) as usize,
                    mix(pair ^ self.config.seed),
                    pair,
                    sim,
                ));
            }
        }
        if stats.verified == 0 {
            stats.histogram.clear();
        }
        near_misses.sort_unstable_by_key(|x| (x.0, x.1, x.2));
        let mut sample: Vec<(usize, u64, f64)> = Vec::new();
        for band in near_misses.chunk_by(|x, y| x.0 == y.0) {
            sample.extend(band.iter().take(SAMPLE_PER_BAND).map(|&(b, _, p, s)| (b, p, s)));
        }
        sample.sort_unstable_by_key(|&(band, pair, _)| (band, pair));
        stats.rejected_sample = sample
            .into_iter()
            .map(|(_, pair, sim)| {
                let (a, b) = decode_pair(pair);
                (DocId(a), DocId(b), sim)
            })
            .collect();
        stats
    }
}

impl SimilarityOracle for Similarity<'_> {
    type Scratch = SetBuffers;
    type Error = Error;

    /// Similarity of a cluster member to its representative: resemblance, or with containment the
    /// containment of the member in the representative.
    fn similarity(&self, rep: Slot, member: Slot, buf: &mut SetBuffers) -> Result<f64, Error> {
        match self.store {
            None => Ok(self.method.estimate(rep, member)),
            Some(store) => {
                store.read(rep.index(), &mut buf.a, &mut buf.read)?;
                store.read(member.index(), &mut buf.b, &mut buf.read)?;
                Ok(match self.config.measure {
                    Measure::Jaccard => jaccard(&buf.a, &buf.b),
                    // The member's containment in the representative.
                    Measure::Containment => crate::verify::containment(&buf.b, &buf.a),
                })
            }
        }
    }
}

/// How far verification is, readable from another thread while a run finishes: the candidate
/// pairs verified so far and the candidate pairs to verify. Clones share the counts.
#[derive(Debug, Clone, Default)]
pub struct VerifyProgress(Arc<[AtomicU64; 2]>);

impl VerifyProgress {
    /// `(verified, to_verify)`: `(0, 0)` until verification starts, then pairs verified so far of
    /// the run's candidate pairs.
    pub fn get(&self) -> (u64, u64) {
        let to_verify = self.0[1].load(Ordering::Relaxed);
        (self.0[0].load(Ordering::Relaxed).min(to_verify), to_verify)
    }

    pub(super) fn start(&self, to_verify: u64) {
        self.0[0].store(0, Ordering::Relaxed);
        self.0[1].store(to_verify, Ordering::Relaxed);
    }

    pub(super) fn add(&self, verified: u64) {
        self.0[0].fetch_add(verified, Ordering::Relaxed);
    }
}
