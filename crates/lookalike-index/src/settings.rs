//! The settings an index freezes at creation. Contract: "give me a dedup configuration, I tell you
//! whether an index can serve it and, later, how another configuration differs from it".
//!
//! An index answers each document as it arrives, so only what can be decided per document, in
//! arrival order, is accepted:
//! - methods whose keys depend on the document alone, as each method's registry entry says
//!   (`MethodSpec::index`): `minhash` (LSH bands), `simhash` with `none` or `tf` weights (Manku's
//!   permuted tables) and `partitioned` (list fingerprints). The methods that need collection
//!   statistics (`i-match`, `i-match-rand`, `tf-ridf`, `refwords`, SimHash with `tfidf` weights)
//!   are refused: their keys would change as documents arrive. The other methods are refused too
//!   (not built yet; the refusal says so);
//! - exact verification with the Jaccard measure;
//! - `center` clusters with `--keep first`: a document's cluster then depends only on the
//!   documents before it (it joins the earliest representative it matches, or becomes one), so
//!   the fate decided when it is added is the one `lookalike dedup` gives it in the whole
//!   collection.

use lookalike::lexical::partitioned::PartitionConfig;
use lookalike::method::options::{self, InIndex};
use lookalike::sketch::simhash::{SimFeatures, Weighting};
use lookalike::{
    ClusterMode, DedupConfig, Keep, LshParams, Measure, MethodConfig, MethodKind, MinHashConfig,
    MinHashScheme, Segmentation, ShingleKind, SimHashConfig, Verify,
};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The newest index format this build writes (it reads every version from 1 up to this one).
///
/// - 1: heads' records hold their sorted shingle set (varint deltas).
/// - 2: they do not; exact verification re-shingles a candidate's stored text (its shingles are
///   a function of that text and the frozen settings), which makes an index about half as big.
/// - 3: format 2 with a site template in its meta table, which pages are cleaned of before
///   they are compared (`Index::create_with_template`). Only an index created with a template
///   is written in format 3 ([`FORMAT_PLAIN`] otherwise), so that a build that knows nothing
///   of templates refuses it rather than compare its pages with their template.
///
/// An index keeps its version: a version 1 index goes on writing version 1 records.
pub const FORMAT_VERSION: u32 = 3;

/// The format of an index created without a site template.
pub const FORMAT_PLAIN: u32 = 2;

/// Everything an index freezes at creation: the shared settings, the method's own, and a
/// fingerprint of the normalizer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexSettings {
    /// The method.
    pub method: MethodKind,
    /// Similarity threshold (exact Jaccard of shingle sets).
    pub threshold: f64,
    /// Shingles compared.
    pub shingle: ShingleKind,
    /// Tokens of scripts written without spaces.
    pub segmentation: Segmentation,
    /// Seed of every hash.
    pub seed: u64,
    /// MinHash: values, scheme, LSH bands and rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minhash: Option<MinHashSettings>,
    /// SimHash: distance, weights and features.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simhash: Option<SimHashSettings>,
    /// Partitioned fingerprints: lists, keys shared, fewest terms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partitioned: Option<PartitionConfig>,
    /// Fingerprint of what the normalizer and shingler make of a fixed multilingual probe text
    /// (see [`normalizer_fingerprint`]): an index written by a lookalike whose normalization
    /// differs is refused, because its stored shingles would no longer match new documents'.
    pub normalizer: String,
}

/// MinHash's frozen settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MinHashSettings {
    /// Values per signature.
    pub num_perm: usize,
    /// One-permutation hashing or permutations.
    pub scheme: MinHashScheme,
    /// LSH bands.
    pub bands: usize,
    /// LSH rows per band.
    pub rows: usize,
    /// Largest LSH bucket before it is handled as a group (recorded for `export`).
    pub max_bucket: usize,
}

/// SimHash's frozen settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SimHashSettings {
    /// Largest Hamming distance of candidates.
    pub max_distance: u32,
    /// Feature weights (none or tf).
    pub weights: Weighting,
    /// Features hashed.
    pub features: SimFeatures,
}

/// A multilingual probe text (Latin with diacritics and ligatures, full-width forms, Cyrillic,
/// Greek final sigma, German sharp s, CJK, Thai, punctuation between letters and digits).
const PROBE: &str = "Ｔｈｅ ﬁrst Café, naïve STRASSE straße — ΟΔΟΣ οδός; Привет, мир! \
    3.14 and 1,000 don't end.Next README.md example.com 東京都の天気は晴れ ภาษาไทยง่าย";

/// xxh3 of the shingles (words:3 and chars:4) and normalized text of a fixed probe text under `seg`, as
/// hex: changes when a lookalike version normalizes or shingles differently.
pub fn normalizer_fingerprint(seg: Segmentation) -> String {
    let mut bytes = Vec::new();
    for kind in [ShingleKind::Words(3), ShingleKind::Chars(4)] {
        let shingler = lookalike::Shingler::new(kind, 1).with_segmentation(seg);
        let mut norm = lookalike::text::normalize::NormalizedText::default();
        shingler.normalize_into(PROBE, &mut norm);
        bytes.extend_from_slice(norm.text.as_bytes());
        for h in shingler.shingle_set(PROBE) {
            bytes.extend_from_slice(&h.to_le_bytes());
        }
    }
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes))
}

impl IndexSettings {
    /// The settings of `config`, or why an index cannot serve them.
    pub fn from_config(c: &DedupConfig) -> Result<IndexSettings> {
        let kind = c.method.kind();
        let refuse = |why: &str| Err(Error::Unsupported(why.to_owned()));
        if c.verify != Verify::Exact {
            return refuse(
                "the index verifies every match exactly (--verify exact); --verify estimate is not \
                 supported",
            );
        }
        if c.measure != Measure::Jaccard {
            return refuse(
                "the index compares by Jaccard resemblance; --measure containment is not supported",
            );
        }
        if c.cluster != ClusterMode::Center || c.keep != Keep::First {
            return refuse(
                "the index decides each document's fate when it arrives, which only --cluster \
                 center with --keep first allows (a document joins the earliest representative it \
                 matches); connected, clique and center-refine clusters and --keep longest depend \
                 on documents added later",
            );
        }
        // "an index supports minhash, simhash (tf or no weights) and partitioned".
        let supported = || {
            let names: Vec<String> = options::index_methods()
                .iter()
                .map(|&k| match k {
                    MethodKind::SimHash => format!("{k} (tf or no weights)"),
                    _ => k.to_string(),
                })
                .collect();
            let list = match names.split_last() {
                Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
                _ => names.concat(),
            };
            format!("an index supports {list}")
        };
        match kind.spec().index {
            InIndex::Yes => {}
            InIndex::CollectionStatistics => {
                return refuse(&format!(
                    "method {kind} signs documents with collection statistics (a lexicon chosen \
                     from the whole collection), which change as documents arrive; {}",
                    supported()
                ));
            }
            InIndex::NotYet => {
                return refuse(&format!(
                    "method {kind} is not available in an index yet; {}",
                    supported()
                ));
            }
        }
        let mut s = IndexSettings {
            method: kind,
            threshold: c.threshold,
            shingle: c.shingle,
            segmentation: c.segmentation,
            seed: c.seed,
            minhash: None,
            simhash: None,
            partitioned: None,
            normalizer: normalizer_fingerprint(c.segmentation),
        };
        match &c.method {
            MethodConfig::MinHash(m) => {
                let lsh = m.lsh_params(c.threshold);
                s.minhash = Some(MinHashSettings {
                    num_perm: m.num_perm,
                    scheme: m.scheme,
                    bands: lsh.bands,
                    rows: lsh.rows,
                    max_bucket: m.max_bucket,
                });
            }
            MethodConfig::SimHash(m) => {
                if m.weights == Weighting::TfIdf {
                    return refuse(
                        "simhash with --weights tfidf needs the collection's document \
                         frequencies, which change as documents arrive: use --weights tf or none",
                    );
                }
                s.simhash = Some(SimHashSettings {
                    max_distance: m.distance(c.threshold),
                    weights: m.weights,
                    features: m.features_or(c.shingle),
                });
            }
            MethodConfig::Partitioned(p) => s.partitioned = Some(*p),
            // The registry said the method is held (above): its settings are one of these.
            other => {
                return refuse(&format!(
                    "method {} is marked as held by an index but has no index settings",
                    other.kind()
                ));
            }
        }
        // The core validates the method's own settings.
        lookalike::Dedup::new(s.config())?;
        Ok(s)
    }

    /// The dedup configuration these settings stand for (what `export` runs and `lookalike dedup`
    /// would be given).
    pub fn config(&self) -> DedupConfig {
        let method = match self.method {
            MethodKind::SimHash => {
                let sim = self.simhash.unwrap_or(SimHashSettings {
                    max_distance: lookalike::sketch::simhash::DEFAULT_MAX_DISTANCE,
                    weights: Weighting::Tf,
                    features: SimFeatures::Shingles(self.shingle),
                });
                MethodConfig::SimHash(SimHashConfig {
                    max_distance: Some(sim.max_distance),
                    weights: sim.weights,
                    features: Some(sim.features),
                    blocks: None,
                })
            }
            MethodKind::Partitioned => {
                MethodConfig::Partitioned(self.partitioned.unwrap_or_default())
            }
            _ => {
                let mut m = MinHashConfig::default();
                if let Some(h) = self.minhash {
                    m.num_perm = h.num_perm;
                    m.scheme = h.scheme;
                    m.lsh = Some(LshParams { bands: h.bands, rows: h.rows });
                    m.max_bucket = h.max_bucket;
                }
                MethodConfig::MinHash(m)
            }
        };
        DedupConfig {
            method,
            shingle: self.shingle,
            segmentation: self.segmentation,
            seed: self.seed,
            threshold: self.threshold,
            ..DedupConfig::default()
        }
    }

    /// Every setting that differs from `given`, as `name: index X, given Y`.
    pub fn differences(&self, given: &IndexSettings) -> Vec<String> {
        let (a, b) = (flatten(self), flatten(given));
        let mut out = Vec::new();
        for (name, x) in &a {
            let y = b.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str()).unwrap_or("none");
            if x != y {
                out.push(format!("{name}: index {x}, given {y}"));
            }
        }
        for (name, y) in &b {
            if !a.iter().any(|(n, _)| n == name) {
                out.push(format!("{name}: index none, given {y}"));
            }
        }
        out
    }
}

/// `(dotted name, value)` of every leaf of the settings' JSON form.
fn flatten(s: &IndexSettings) -> Vec<(String, String)> {
    fn walk(prefix: &str, v: &serde_json::Value, out: &mut Vec<(String, String)>) {
        match v {
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    let name = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                    walk(&name, v, out);
                }
            }
            other => out.push((prefix.to_owned(), other.to_string())),
        }
    }
    let mut out = Vec::new();
    walk("", &serde_json::to_value(s).unwrap_or_default(), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collection_statistics_methods_are_refused_with_a_reason() {
        for kind in [MethodKind::IMatch, MethodKind::TfRidf, MethodKind::RefWords] {
            let c = DedupConfig { method: MethodConfig::from(kind), ..DedupConfig::default() };
            let e = IndexSettings::from_config(&c).unwrap_err().to_string();
            assert!(e.contains("collection statistics"), "{kind}: {e}");
        }
        // What the registry says an index holds, and the refusal of the others.
        assert_eq!(
            options::index_methods(),
            [MethodKind::MinHash, MethodKind::SimHash, MethodKind::Partitioned]
        );
        for &kind in MethodKind::ALL {
            let c = DedupConfig { method: MethodConfig::from(kind), ..DedupConfig::default() };
            match (kind.spec().index, IndexSettings::from_config(&c)) {
                (InIndex::Yes, Ok(s)) => assert_eq!(s.method, kind),
                (InIndex::CollectionStatistics | InIndex::NotYet, Err(e)) => assert!(
                    e.to_string().ends_with(
                        "an index supports minhash, simhash (tf or no weights) and partitioned"
                    ),
                    "{kind}: {e}"
                ),
                (held, other) => panic!("{kind}: {held:?} but {other:?}"),
            }
        }
        let c = DedupConfig { cluster: ClusterMode::Connected, ..DedupConfig::default() };
        assert!(IndexSettings::from_config(&c).unwrap_err().to_string().contains("center"));
    }

    #[test]
    fn settings_round_trip_through_the_config_and_name_their_differences() {
        let c = DedupConfig::default();
        let s = IndexSettings::from_config(&c).unwrap();
        assert_eq!(IndexSettings::from_config(&s.config()).unwrap(), s);
        let other = IndexSettings::from_config(&DedupConfig { threshold: 0.9, ..c }).unwrap();
        let d = s.differences(&other);
        assert!(d.iter().any(|l| l.starts_with("threshold: index 0.8, given 0.9")), "{d:?}");
        assert!(s.differences(&s).is_empty());
    }
}
