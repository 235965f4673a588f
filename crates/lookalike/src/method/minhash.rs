//! [`MinHash`]: MinHash signatures and LSH banding (Broder et al. 1998; MMDS ch. 3).

use rayon::prelude::*;

use super::{CandidateReport, Context, DocView, Head, Method, Slot};
use crate::candidates::lsh::{LshParams, band_candidates, decode_pair};
use crate::config::MinHashConfig;
use crate::error::{ConfigError, Error};
use crate::sketch::minhash::{MinHashScheme, MinHasher, estimate_jaccard};

/// MinHash: `num_perm` min-hash values per head, candidates from LSH bands, estimate = share of
/// equal values.
#[derive(Debug)]
pub struct MinHash {
    config: MinHashConfig,
    lsh: LshParams,
    hasher: MinHasher,
    cx: Context,
    /// Signatures of every head, one after the other.
    sigs: Vec<u32>,
}

impl MinHash {
    /// The method with validated settings.
    pub fn new(config: MinHashConfig, cx: Context) -> Result<MinHash, Error> {
        if !(1..=8192).contains(&config.num_perm) {
            return Err(ConfigError::NumPerm(config.num_perm).into());
        }
        let lsh = match config.lsh {
            Some(p) if p.bands == 0 || p.rows == 0 => return Err(ConfigError::EmptyBands.into()),
            Some(p) if p.bands * p.rows > config.num_perm => {
                return Err(ConfigError::BandsExceedSignature {
                    bands: p.bands,
                    rows: p.rows,
                    num_perm: config.num_perm,
                }
                .into());
            }
            _ => config.lsh_params(cx.threshold),
        };
        let hasher = MinHasher::new(config.num_perm, config.scheme, cx.seed);
        Ok(MinHash { config, lsh, hasher, cx, sigs: Vec::new() })
    }

    /// "words:5 shingles, 128 values (oph), 18 bands × 7 rows", for descriptions.
    pub(super) fn signature_text(&self) -> String {
        format!(
            "{} shingles, {} values ({}), {} bands × {} rows",
            self.cx.shingle,
            self.config.num_perm,
            scheme_name(self.config.scheme),
            self.lsh.bands,
            self.lsh.rows,
        )
    }

    /// The `(band, key)` pairs of one document's shingles, keyed as [`band_candidates`] keys
    /// them (for [`super::DocKeyer`]).
    pub(super) fn band_keys(&self, shingles: &[u64]) -> Vec<(u32, u64)> {
        let sig = self.hasher.sketch(shingles);
        let mut buf = Vec::new();
        let r = self.lsh.rows;
        (0..self.lsh.bands)
            .map(|b| {
                (b as u32, crate::candidates::lsh::band_key(&sig[b * r..(b + 1) * r], b, &mut buf))
            })
            .collect()
    }

    fn sig(&self, slot: Slot) -> &[u32] {
        let n = self.config.num_perm;
        &self.sigs[slot.index() * n..(slot.index() + 1) * n]
    }
}

/// Pushes the MinHash signatures of new heads (in parallel) onto a flat array.
pub(super) fn sketch_heads<D>(hasher: &MinHasher, sigs: &mut Vec<u32>, heads: &[Head<'_, D>])
where
    D: Sync,
{
    let n = hasher.num_perm();
    let start = sigs.len();
    sigs.resize(start + heads.len() * n, 0);
    sigs[start..].par_chunks_mut(n).zip(heads).for_each(|(out, head)| {
        hasher.sketch_into(head.shingles, out);
    });
}

/// "oph" or "perm", for descriptions.
pub(super) fn scheme_name(scheme: MinHashScheme) -> &'static str {
    match scheme {
        MinHashScheme::OnePermutation => "oph",
        MinHashScheme::Permutations => "perm",
    }
}

impl Method for MinHash {
    type Doc = ();

    fn doc(&self, _doc: &DocView<'_>) {}

    fn push_heads(&mut self, heads: Vec<Head<'_, ()>>) {
        sketch_heads(&self.hasher, &mut self.sigs, &heads);
    }

    fn candidates(&self, emit: &mut dyn FnMut(Slot, Slot)) -> Result<CandidateReport, Error> {
        let (pairs, stats) = band_candidates(
            &self.sigs,
            self.config.num_perm,
            self.lsh,
            self.config.max_bucket,
            self.cx.max_pairs_per_group,
        );
        for p in pairs {
            let (a, b) = decode_pair(p);
            emit(Slot(a), Slot(b));
        }
        Ok(CandidateReport { candidates: stats, lsh: Some(self.lsh), ..CandidateReport::default() })
    }

    fn estimate(&self, a: Slot, b: Slot) -> f64 {
        estimate_jaccard(self.sig(a), self.sig(b))
    }

    fn accepts(&self, estimate: f64) -> bool {
        estimate >= self.cx.threshold
    }

    fn describe(&self) -> String {
        format!(
            "method minhash: {}, {}, {}",
            self.signature_text(),
            self.cx.measure_text(),
            verify_short(&self.cx)
        )
    }

    fn phase(&self) -> &'static str {
        "finding candidates (LSH banding)"
    }
}

/// "verify exact" or "verify estimate" (the MinHash-family descriptions).
pub(super) fn verify_short(cx: &Context) -> &'static str {
    match cx.verify {
        crate::verify::Verify::Exact => "verify exact",
        crate::verify::Verify::Estimate => "verify estimate",
    }
}
