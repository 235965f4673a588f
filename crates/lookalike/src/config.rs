//! One configuration type for the CLI, Python and the index. Contract: "tell me what to compare
//! and how; I tell you what is out of range".
//!
//! [`DedupConfig`] holds what every method shares (shingles, seed, threshold, verification,
//! representative choice, cluster mode, measure, memory) and one [`MethodConfig`]: an exhaustive
//! enum with one typed settings struct per method. The seed lives only in [`DedupConfig::seed`];
//! the method settings carry none, and the method is built from both ([`crate::method`]).

use std::path::PathBuf;
use std::sync::Arc;

use crate::candidates::lsh::{DEFAULT_MAX_BUCKET, ErrorWeights, LshParams};
use crate::candidates::sorted_pairs::{DEFAULT_MAX_DOCS_PER_SHINGLE, FrequentShingles};
use crate::cluster::{ClusterMode, Keep};
use crate::lexical::collection::Lexicon;
use crate::lexical::imatch::IMatchConfig;
use crate::lexical::lexsig::TfRidfConfig;
use crate::lexical::refwords::RefWordsConfig;
pub use crate::method::MethodConfig;
use crate::method::MethodKind;
use crate::shingles::ShingleKind;
use crate::sketch::minhash::MinHashScheme;
use crate::sketch::simhash::{self, SimFeatures, Weighting};
use crate::sketch::supershingles::SuperShingleConfig;
use crate::text::normalize::Segmentation;
use crate::verify::Verify;

/// What similarity means: resemblance of the two documents, or containment of one in the other.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
#[derive(clap::ValueEnum)]
pub enum Measure {
    /// Jaccard resemblance |A ∩ B| / |A ∪ B| (default).
    #[default]
    Jaccard,
    /// Containment of the smaller document in the other, |A ∩ B| / |A| (Broder 1997): finds
    /// partial copies (quoted articles, print versions, excerpts) whose resemblance is low.
    Containment,
}

impl Measure {
    /// The method a run uses when none is named: MinHash, or MOD-m for containment (the only
    /// default whose estimate reaches containment). The CLI, Python and the index share it.
    pub fn default_method(self) -> MethodKind {
        match self {
            Measure::Jaccard => MethodKind::default(),
            Measure::Containment => MethodKind::ModM,
        }
    }

    /// The representative kept when none is named: the first document, or for containment the
    /// longest (the document the others are contained in).
    pub fn default_keep(self) -> Keep {
        match self {
            Measure::Jaccard => Keep::default(),
            Measure::Containment => Keep::Longest,
        }
    }
}

/// Every setting of a dedup run. Build one with [`crate::Dedup::builder`], or fill it and pass it
/// to [`crate::Dedup::new`].
#[derive(Debug, Clone, serde::Serialize)]
pub struct DedupConfig {
    /// The method and its own settings (default MinHash).
    pub method: MethodConfig,
    /// Shingles compared (default word 5-shingles).
    pub shingle: ShingleKind,
    /// Tokens of space-less scripts: characters (default) or dictionary words.
    pub segmentation: Segmentation,
    /// Seed of every hash (default 1): shingles, sketches, signatures, samples.
    pub seed: u64,
    /// Similarity threshold in (0, 1] (default 0.8).
    pub threshold: f64,
    /// Verification mode (default exact Jaccard).
    pub verify: Verify,
    /// Representative choice (default the first in input order).
    pub keep: Keep,
    /// How verified pairs become clusters (default connected components).
    pub cluster: ClusterMode,
    /// Resemblance or containment.
    pub measure: Measure,
    /// Directory of the spill files (default the system temporary directory).
    pub spill_dir: Option<PathBuf>,
    /// Bytes of shingle sets kept in memory for exact verification before spilling to disk; also
    /// the cap of each external sort of Broder's algorithm.
    pub memory: usize,
    /// Most pairs one group is expanded to (default
    /// [`DEFAULT_MAX_PAIRS_PER_GROUP`](crate::candidates::lsh::DEFAULT_MAX_PAIRS_PER_GROUP)): the
    /// documents of a capped LSH bucket are all compared with each other up to this many pairs,
    /// and the pairs list holds every pair of an exact-copy group (and every pair of copies of two
    /// near-duplicates) up to this many; larger groups are compared with anchors and listed by
    /// their first documents, and counted.
    pub max_pairs_per_group: u64,
}

impl Default for DedupConfig {
    fn default() -> Self {
        DedupConfig {
            method: MethodConfig::default(),
            shingle: ShingleKind::default(),
            segmentation: Segmentation::default(),
            seed: 1,
            threshold: 0.8,
            verify: Verify::default(),
            keep: Keep::default(),
            cluster: ClusterMode::default(),
            measure: Measure::default(),
            spill_dir: None,
            memory: crate::store::DEFAULT_MEMORY_BUDGET,
            max_pairs_per_group: crate::candidates::lsh::DEFAULT_MAX_PAIRS_PER_GROUP,
        }
    }
}

impl Default for MethodConfig {
    fn default() -> Self {
        MethodConfig::MinHash(MinHashConfig::default())
    }
}

/// MinHash settings.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct MinHashConfig {
    /// Signature length (default 128).
    pub num_perm: usize,
    /// Scheme (default one-permutation hashing with densification).
    pub scheme: MinHashScheme,
    /// LSH bands and rows; `None` chooses them from the threshold: by `weights` when they are
    /// given ([`LshParams::optimal`]), else [`LshParams::complete`].
    pub lsh: Option<LshParams>,
    /// Weights of false positives and negatives for choosing bands and rows (default none: the
    /// banding that finds pairs just above the threshold with probability 0.999).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weights: Option<ErrorWeights>,
    /// Buckets larger than this are set aside as groups, expanded once however many bands they
    /// come back in (up to [`DedupConfig::max_pairs_per_group`] pairs).
    pub max_bucket: usize,
}

impl Default for MinHashConfig {
    fn default() -> Self {
        MinHashConfig {
            num_perm: 128,
            scheme: MinHashScheme::default(),
            lsh: None,
            weights: None,
            max_bucket: DEFAULT_MAX_BUCKET,
        }
    }
}

impl MinHashConfig {
    /// The bands and rows used at `threshold`: the configured ones, else the ones minimising the
    /// weighted error areas when weights are given, else [`LshParams::complete`].
    pub fn lsh_params(&self, threshold: f64) -> LshParams {
        self.lsh.unwrap_or_else(|| match self.weights {
            Some(w) => LshParams::optimal(threshold, self.num_perm, w),
            None => LshParams::complete(threshold, self.num_perm),
        })
    }
}

/// Super-shingle settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct SuperShinglesConfig {
    /// Shape of the super-shingles (min-hash values, groups, mode).
    pub shape: SuperShingleConfig,
    /// Scheme of the underlying MinHash values.
    pub scheme: MinHashScheme,
}

/// How MOD-m, MIN-s and Broder's algorithm sample a document's shingles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Sample {
    /// Keep the shingle hashes ≡ 0 (mod m) (variable size; estimates containment too).
    Mod(u64),
    /// Keep the s smallest shingle hashes (bottom-s sketch).
    Min(usize),
}

impl std::fmt::Display for Sample {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Sample::Mod(m) => write!(f, "mod:{m}"),
            Sample::Min(s) => write!(f, "min:{s}"),
        }
    }
}

impl std::str::FromStr for Sample {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || format!("`{s}` is not a sample: use mod:M (M ≥ 1) or min:S (S ≥ 1)");
        let (kind, n) = s.split_once(':').ok_or_else(bad)?;
        let n: u64 = n.trim().parse().map_err(|_| bad())?;
        match kind.trim() {
            "mod" if n >= 1 => Ok(Sample::Mod(n)),
            "min" if n >= 1 => Ok(Sample::Min(n as usize)),
            _ => Err(bad()),
        }
    }
}

/// Settings of the sampling methods (MOD-m, MIN-s, Broder's algorithm).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct SampleConfig {
    /// The sample; `None`: MOD-8 for `mod-m` and for containment, else MIN-128
    /// ([`SampleConfig::effective`]).
    pub sample: Option<Sample>,
    /// L of Broder's algorithm: shingles shared by more documents emit no pairs.
    pub max_docs_per_shingle: usize,
    /// Whether those shingles stay in the sketch sizes of the estimate (default: they do not).
    pub frequent: FrequentShingles,
}

impl Default for SampleConfig {
    fn default() -> Self {
        SampleConfig {
            sample: None,
            max_docs_per_shingle: DEFAULT_MAX_DOCS_PER_SHINGLE,
            frequent: FrequentShingles::default(),
        }
    }
}

impl SampleConfig {
    /// The sample actually used: the configured one, else MOD-8 for `mod-m` (`is_mod_m`) and for
    /// containment, else MIN-128.
    pub fn effective(&self, is_mod_m: bool, measure: Measure) -> Sample {
        match self.sample {
            Some(s) => s,
            None if is_mod_m || measure == Measure::Containment => Sample::Mod(8),
            None => Sample::Min(128),
        }
    }
}

/// SimHash settings of a run.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct SimHashConfig {
    /// Hamming distance k: fingerprints within k bits are near duplicates (default 3, Manku et
    /// al.). `None`: the distance expected at the Jaccard threshold
    /// ([`simhash::distance_for_jaccard`]).
    pub max_distance: Option<u32>,
    /// Feature weights (default tf).
    pub weights: Weighting,
    /// Features: tokens or shingles. `None`: the run's shingles (`DedupConfig::shingle`).
    pub features: Option<SimFeatures>,
    /// Blocks of the permuted tables (`None`: chosen from k and the collection size).
    pub blocks: Option<usize>,
}

impl Default for SimHashConfig {
    fn default() -> Self {
        SimHashConfig {
            max_distance: Some(simhash::DEFAULT_MAX_DISTANCE),
            weights: Weighting::Tf,
            features: None,
            blocks: None,
        }
    }
}

impl SimHashConfig {
    /// The Hamming distance used at `threshold`: the configured one, or with `max_distance:
    /// None` the one expected at the threshold.
    pub fn distance(&self, threshold: f64) -> u32 {
        self.max_distance.unwrap_or_else(|| simhash::distance_for_jaccard(threshold))
    }

    /// The features used: the configured ones, else the run's shingles.
    pub fn features_or(&self, shingle: ShingleKind) -> SimFeatures {
        self.features.unwrap_or(SimFeatures::Shingles(shingle))
    }
}

/// Settings of the combined method: MinHash/LSH candidates, kept when their SimHash fingerprints
/// are also within a Hamming distance (Henzinger 2006: Broder's and Charikar's algorithms
/// combined).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct CombinedConfig {
    /// The MinHash signature and its LSH bands: the candidates, and the estimate compared with
    /// the threshold.
    pub minhash: MinHashConfig,
    /// Hamming distance k a candidate's two 64-bit SimHash fingerprints must be within. `None`
    /// (default): the distance expected at the threshold ([`CombinedConfig::distance`]).
    pub max_distance: Option<u32>,
    /// SimHash feature weights (default tf).
    pub weights: Weighting,
    /// SimHash features: tokens or shingles. `None`: the run's shingles.
    pub features: Option<SimFeatures>,
}

impl Default for CombinedConfig {
    fn default() -> Self {
        CombinedConfig {
            minhash: MinHashConfig::default(),
            max_distance: None,
            weights: Weighting::Tf,
            features: None,
        }
    }
}

impl CombinedConfig {
    /// The Hamming distance used at `threshold`: the configured one, else the distance expected
    /// at the threshold ([`simhash::distance_for_jaccard`]: 10 at 0.8). That default had the
    /// best F1 in estimate mode on template-heavy documentation pages, where the two halves
    /// disagree most (bench/results/combined-2026-11-24.md).
    pub fn distance(&self, threshold: f64) -> u32 {
        self.max_distance.unwrap_or_else(|| simhash::distance_for_jaccard(threshold))
    }

    /// The settings of the SimHash half (its permuted tables are not used: the candidates come
    /// from LSH).
    pub fn simhash(&self, threshold: f64) -> SimHashConfig {
        SimHashConfig {
            max_distance: Some(self.distance(threshold)),
            weights: self.weights,
            features: self.features,
            blocks: None,
        }
    }
}

/// Settings of I-Match and I-Match with randomized lexicons.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct IMatchSettings {
    /// NIDF band, minimum terms, and for `i-match-rand` the extra lexicons K and the drop
    /// fraction p (method `i-match` always uses K = 0).
    pub imatch: IMatchConfig,
    /// Collection statistics saved by `lookalike lexicon build`: sign with them instead of the
    /// statistics of the input itself (so a new batch is signed as an old one was).
    #[serde(skip)]
    pub lexicon: Option<Arc<Lexicon>>,
}

/// Settings of TF*RIDF signatures.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct TfRidfSettings {
    /// Words per signature and the shortest document signed.
    pub tf_ridf: TfRidfConfig,
    /// Saved collection statistics to sign with (see [`IMatchSettings::lexicon`]).
    #[serde(skip)]
    pub lexicon: Option<Arc<Lexicon>>,
}

/// Settings of reference words.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RefWordsSettings {
    /// Selection settings.
    pub selection: RefWordsConfig,
    /// Signatures within this Hamming distance are candidates (0: equal).
    pub distance: u32,
    /// Fewest set bits a signature needs (documents with fewer are unsigned).
    pub min_bits: u32,
    /// A saved lexicon whose reference words are used instead of choosing them from the input.
    #[serde(skip)]
    pub lexicon: Option<Arc<Lexicon>>,
}

impl Default for RefWordsSettings {
    fn default() -> Self {
        RefWordsSettings {
            selection: RefWordsConfig::default(),
            distance: 0,
            min_bits: 3,
            lexicon: None,
        }
    }
}

/// SpotSigs settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct SpotSigsConfig {
    /// Chain length c (`None`: the language's default, 2; 4 for Chinese and Japanese).
    pub chain: Option<usize>,
}

/// Parses a size as the CLI and the Python options write it: `1234`, `64K`, `256M`, `2G`, `1T`
/// (powers of 1024; a trailing `B` or `iB` is accepted; fractions such as `1.5G` too).
pub fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim().trim_end_matches("iB").trim_end_matches(['B', 'b']);
    let (num, mult) = match t.chars().last() {
        Some('k' | 'K') => (&t[..t.len() - 1], 1usize << 10),
        Some('m' | 'M') => (&t[..t.len() - 1], 1 << 20),
        Some('g' | 'G') => (&t[..t.len() - 1], 1 << 30),
        Some('t' | 'T') => (&t[..t.len() - 1], 1 << 40),
        _ => (t, 1),
    };
    let n: f64 =
        num.trim().parse().map_err(|_| format!("invalid size {s:?}: expected e.g. 512M or 2G"))?;
    if !(n >= 0.0 && n.is_finite()) {
        return Err(format!("invalid size {s:?}"));
    }
    Ok((n * mult as f64) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_config_serializes_under_its_method_name() {
        for &kind in MethodKind::ALL {
            let config = MethodConfig::from(kind);
            assert_eq!(config.kind(), kind);
            let name = match serde_json::to_value(&config).unwrap() {
                serde_json::Value::String(s) => s,
                serde_json::Value::Object(m) => m.keys().next().cloned().unwrap_or_default(),
                other => panic!("{kind}: {other}"),
            };
            assert_eq!(name, kind.name());
        }
    }
}
