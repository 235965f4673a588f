//! [`MinHash`]: MinHash signatures and LSH banding (Broder et al. 1998; MMDS ch. 3).

use rayon::prelude::*;

use super::options::{InIndex, MethodOption, MethodSpec, OptionValues};
use super::{CandidateReport, Context, DocView, Head, Method, MethodKind, Slot};
use crate::candidates::lsh::{ErrorWeights, LshParams, band_candidates, decode_pair};
use crate::config::{MethodConfig, MinHashConfig};
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

/// `num_perm`: values per MinHash signature.
pub(super) static NUM_PERM: MethodOption =
    MethodOption::count("num_perm", "", "Number of MinHash values per document")
        .with_default(|| MinHashConfig::default().num_perm.to_string());

/// `bands`: LSH bands.
pub(super) static BANDS: MethodOption =
    MethodOption::count("bands", "", "LSH bands (with --rows; default: chosen from the threshold)")
        .with_requires("rows");

/// `rows`: rows per LSH band.
pub(super) static ROWS: MethodOption =
    MethodOption::count("rows", "", "LSH rows per band (with --bands)").with_requires("bands");

/// `fp_weight`: the false-positive weight of the banding choice.
pub(super) static FP_WEIGHT: MethodOption = MethodOption::number(
    "fp_weight",
    "W",
    "Choose bands and rows by weighing the false-positive area against the false-negative \
           area (with --fn-weight; either alone takes 0.1 / 0.9 for the other). Default: no \
           weights, the banding with the fewest false positives that finds a pair of Jaccard \
           threshold + 0.05 with probability 0.999 (18 bands × 7 rows at 0.8)",
);

/// `fn_weight`: the false-negative weight of the banding choice.
pub(super) static FN_WEIGHT: MethodOption = MethodOption::number(
    "fn_weight",
    "W",
    "Weight of the false-negative area when choosing bands and rows (see --fp-weight)",
);

/// `minhash`: the MinHash scheme.
pub(super) static SCHEME: MethodOption = MethodOption::choice::<MinHashScheme>(
    "minhash",
    "",
    "MinHash scheme: oph (one-permutation hashing with densification) or perm (one hash \
           function per value)",
    "oph or perm",
)
.with_default(|| "oph".to_owned());

/// `max_bucket`: the largest LSH bucket before it becomes a group.
pub(super) static MAX_BUCKET: MethodOption = MethodOption::count(
    "max_bucket",
    "",
    "MinHash: LSH buckets larger than this are set aside as groups (pages sharing a \
           template come back in many bands; each group is compared once)",
)
.with_default(|| crate::candidates::lsh::DEFAULT_MAX_BUCKET.to_string());

/// MinHash in the registry.
pub(super) static SPEC: MethodSpec = MethodSpec {
    kind: MethodKind::MinHash,
    options: &[&NUM_PERM, &BANDS, &ROWS, &FP_WEIGHT, &FN_WEIGHT, &MAX_BUCKET, &SCHEME],
    config: |v| Ok(MethodConfig::MinHash(config_of(v)?)),
    index: InIndex::Yes,
    document_keys: super::doc_keyer::own_keys,
};

/// MinHash's settings from the option values (shared with the combined method).
pub(super) fn config_of(v: &OptionValues) -> Result<MinHashConfig, String> {
    let d = MinHashConfig::default();
    let lsh = match (v.get::<usize>("bands"), v.get::<usize>("rows")) {
        (Some(bands), Some(rows)) => Some(LshParams { bands, rows }),
        (None, None) => None,
        _ => return Err("bands and rows go together: give both or neither".to_owned()),
    };
    // Either weight chooses the banding by the weighted error areas (the other takes its
    // default); neither: the library's default banding.
    let weights = match (v.get::<f64>("fp_weight"), v.get::<f64>("fn_weight")) {
        (None, None) => None,
        (fp, fn_) => {
            let w = ErrorWeights::default();
            Some(ErrorWeights {
                false_positive: fp.unwrap_or(w.false_positive),
                false_negative: fn_.unwrap_or(w.false_negative),
            })
        }
    };
    Ok(MinHashConfig {
        num_perm: v.get("num_perm").unwrap_or(d.num_perm),
        scheme: v.get("minhash").unwrap_or(d.scheme),
        lsh,
        weights,
        max_bucket: v.get("max_bucket").unwrap_or(d.max_bucket),
    })
}
