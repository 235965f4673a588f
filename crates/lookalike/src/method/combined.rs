//! [`Combined`]: MinHash/LSH candidates that SimHash agrees with (Henzinger 2006, "Finding
//! near-duplicate web pages: a large-scale evaluation of algorithms": Broder's and Charikar's
//! algorithms combined reached precision 0.79, against 0.38 and 0.50 alone).
//!
//! Each head keeps both halves: the MinHash signature of [`MinHash`] and the 64-bit fingerprint
//! of [`SimHash`], with their own settings (`--num-perm`, `--bands`/`--rows`, `--minhash`;
//! `--weights`, `--features`). Candidates are the LSH candidates whose fingerprints are within
//! Hamming distance k (`--max-distance`, default [`CombinedConfig::distance`]: 10 at 0.8): a pair
//! is kept only when both estimators call it close.
//!
//! - `--verify estimate` (the method alone): a pair is a duplicate when its MinHash estimate is
//!   at least the threshold *and* its fingerprints are within k bits.
//! - `--verify exact` (the default): the same filtered candidates are verified by exact Jaccard.
//!   The filter only removes work (fewer sets read and intersected) and can only lose pairs: a
//!   true pair whose fingerprints differ in more than k bits is not verified.
//!
//! On template-heavy documentation pages, where MinHash's estimate accepts crowds of pages just
//! below the threshold, the combination raises estimate-mode precision and F1 over either half;
//! on planted edits of distinct documents MinHash alone is already precise and the filter costs
//! more recall than it gains; with exact verification it saves most verifications but loses
//! about half the recall, so with exact verification use [`MinHash`]
//! (bench/results/combined-2026-11-24.md).

use super::doc_keyer::{DocKeys, DocumentKeys, Keying, KeyingInput, fingerprint_of};
use super::minhash::{self, MinHash, verify_short};
use super::options::{InIndex, MethodSpec};
use super::simhash::{self, SimDoc, SimHash};
use super::{CandidateReport, Context, DocView, Head, Method, MethodKind, MethodStats, Slot};
use crate::config::{CombinedConfig, MethodConfig};
use crate::error::Error;

/// What the combined method's SimHash filter did, for the summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct CombinedStats {
    /// Distinct LSH candidate pairs.
    pub lsh_pairs: u64,
    /// Of those, the pairs whose fingerprints differ in more than k bits (dropped).
    pub simhash_rejected: u64,
}

/// The combined method: LSH candidates kept when their SimHash distance is at most k; estimate =
/// the MinHash estimate; its own decision: estimate ≥ threshold (on candidates within k).
#[derive(Debug)]
pub struct Combined {
    minhash: MinHash,
    simhash: SimHash,
    cx: Context,
}

impl Combined {
    /// The method with validated settings (those of [`MinHash::new`] and [`SimHash::new`]).
    pub fn new(config: CombinedConfig, cx: Context) -> Result<Combined, Error> {
        let minhash = MinHash::new(config.minhash, cx.clone())?;
        let simhash = SimHash::new(config.simhash(cx.threshold), cx.clone())?;
        Ok(Combined { minhash, simhash, cx })
    }

    /// The Hamming distance k.
    pub fn max_distance(&self) -> u32 {
        self.simhash.max_distance()
    }

    /// The method with its SimHash half fingerprinting each document at once with these
    /// document frequencies ([`SimHash::with_doc_freq`]; tf-idf weights).
    pub(super) fn with_doc_freq(
        mut self,
        df: std::sync::Arc<crate::sketch::simhash::DocFreq>,
    ) -> Combined {
        self.simhash = self.simhash.with_doc_freq(df);
        self
    }

    /// The MinHash half (for [`super::DocKeyer`]).
    pub(super) fn minhash(&self) -> &MinHash {
        &self.minhash
    }

    fn distance(&self, a: Slot, b: Slot) -> u32 {
        Method::hamming(&self.simhash, a, b).unwrap_or(u32::MAX)
    }
}

impl Method for Combined {
    type Doc = SimDoc;

    fn doc(&self, doc: &DocView<'_>) -> SimDoc {
        self.simhash.doc(doc)
    }

    fn push_heads(&mut self, heads: Vec<Head<'_, SimDoc>>) {
        let signatures = heads.iter().map(|h| Head { shingles: h.shingles, doc: () }).collect();
        self.minhash.push_heads(signatures);
        self.simhash.push_heads(heads);
    }

    /// tf-idf weights: the fingerprints, once the document frequencies are known.
    fn prepare(&mut self) -> Result<(), Error> {
        self.simhash.prepare()
    }

    fn candidates(&self, emit: &mut dyn FnMut(Slot, Slot)) -> Result<CandidateReport, Error> {
        let k = self.max_distance();
        let mut stats = CombinedStats::default();
        let report = self.minhash.candidates(&mut |a, b| {
            stats.lsh_pairs += 1;
            if self.distance(a, b) <= k {
                emit(a, b);
            } else {
                stats.simhash_rejected += 1;
            }
        })?;
        Ok(CandidateReport {
            method: MethodStats { combined: Some(stats), ..report.method },
            ..report
        })
    }

    fn estimate(&self, a: Slot, b: Slot) -> f64 {
        self.minhash.estimate(a, b)
    }

    /// MinHash estimate ≥ threshold; the SimHash half of the decision was taken by the
    /// candidates, which are all within k.
    fn accepts(&self, estimate: f64) -> bool {
        self.minhash.accepts(estimate)
    }

    fn describe(&self) -> String {
        format!(
            "method combined: {}, kept when SimHash distance ≤ {} ({}), {}, {}",
            self.minhash.signature_text(),
            self.max_distance(),
            self.simhash.fingerprints_text(),
            self.cx.measure_text(),
            verify_short(&self.cx)
        )
    }

    fn phase(&self) -> &'static str {
        "finding candidates (LSH banding, SimHash filter)"
    }

    fn hamming(&self, a: Slot, b: Slot) -> Option<u32> {
        Method::hamming(&self.simhash, a, b)
    }
}

/// The combined method in the registry: MinHash's options and SimHash's distance, weights and
/// features.
pub(super) static SPEC: MethodSpec = MethodSpec {
    kind: MethodKind::Combined,
    options: &[
        &minhash::NUM_PERM,
        &minhash::BANDS,
        &minhash::ROWS,
        &minhash::FP_WEIGHT,
        &minhash::FN_WEIGHT,
        &minhash::SCHEME,
        &minhash::MAX_BUCKET,
        &simhash::MAX_DISTANCE,
        &simhash::WEIGHTS,
        &simhash::FEATURES,
    ],
    config: |v| {
        Ok(MethodConfig::Combined(CombinedConfig {
            minhash: minhash::config_of(v)?,
            // Absent: auto (the distance expected at the threshold), unlike SimHash's default.
            max_distance: v.get::<Option<u32>>("max_distance").flatten(),
            weights: v.get("weights").unwrap_or(CombinedConfig::default().weights),
            features: v.get("features"),
        }))
    },
    index: InIndex::NotYet,
    document_keys: keys_of,
};

/// The combined method's keys of a document: its MinHash half's band keys, with its SimHash
/// fingerprint (pairs sharing a band are candidates within the SimHash distance).
#[derive(Debug)]
struct CombinedKeys {
    method: Combined,
    k: u32,
}

impl DocumentKeys for CombinedKeys {
    fn keys(&self, doc: &DocView<'_>) -> DocKeys {
        DocKeys {
            keys: self.method.minhash().band_keys(doc.shingles),
            fingerprint: fingerprint_of(self.method.doc(doc)),
            unsigned: None,
        }
    }

    fn max_distance(&self) -> Option<u32> {
        Some(self.k)
    }

    fn lists_anchors(&self) -> bool {
        true
    }
}

/// The combined method's per-document keys ([`DocumentKeys`]).
fn keys_of(input: KeyingInput<'_>) -> Keying {
    let MethodConfig::Combined(m) = &input.config.method else {
        unreachable!("the combined method's spec keys a combined configuration")
    };
    let doc_freq = input.doc_freq_for(m.weights)?;
    let mut method = Combined::new(*m, input.context())?;
    if let Some(df) = doc_freq {
        method = method.with_doc_freq(df);
    }
    Ok(Box::new(CombinedKeys { k: method.max_distance(), method }))
}
