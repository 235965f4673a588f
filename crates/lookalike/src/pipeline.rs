//! The whole pipeline. Contract: "give me documents in batches, in input order; at the end I give
//! you every document's fate, the verified pairs and the clusters".
//!
//! ```text
//! add(batch) ──► (parallel, per document) normalize ─► shingles ─► fingerprint ─► MinHash
//!            └─► (sequential, in order)   exact-duplicate lookup; signature → flat array;
//!                                         shingle set → spill file (exact verification only)
//! finish()   ──► LSH banding by sorting ─► verification ─► union-find clusters ─► outcome
//! ```
//!
//! Exact duplicates (same normalized text) are found first with a fingerprint table and never
//! enter the sketches: only the first document of each exact group (its *head*) is banded and
//! verified. Everything is deterministic: batches are processed in order, parallel maps preserve
//! order, and every sort is over a total order, so the thread count does not change the output.

use std::collections::HashMap;
use std::path::PathBuf;

use rayon::prelude::*;

use crate::candidates::lsh::{
    CandidateStats, DEFAULT_MAX_BUCKET, ErrorWeights, LshParams, decode_pair,
};
use crate::candidates::sorted_pairs::DEFAULT_MAX_DOCS_PER_SHINGLE;
use crate::cluster::{Keep, UnionFind};
use crate::document::Document;
use crate::engine::{
    Candidate, DocFeatures, Engine, EngineStats, LexicalConfig, Sample, SimHashConfig,
};
use crate::fingerprint::text_fingerprint;
use crate::method::Method;
use crate::shingles::{ShingleKind, ShingleScratch, Shingler};
use crate::sketch::minhash::MinHashScheme;
use crate::sketch::supershingles::SuperShingleConfig;
use crate::store::ShingleStore;
use crate::text::normalize::{NormalizedText, Segmentation};
use crate::verify::{Verify, intersection_size, jaccard};

/// What similarity means: resemblance of the two documents, or containment of one in the other.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Measure {
    /// Jaccard resemblance |A ∩ B| / |A ∪ B| (default).
    #[default]
    Jaccard,
    /// Containment of the smaller document in the other, |A ∩ B| / |A| (Broder 1997): finds
    /// partial copies (quoted articles, print versions, excerpts) whose resemblance is low.
    Containment,
}

/// Errors of the pipeline.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A setting is out of range or settings contradict each other.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// Reading or writing the spill file failed.
    #[error("spill file I/O failed: {0}")]
    Io(#[from] std::io::Error),
}

/// Every setting of a dedup run. Build one with [`Dedup::builder`].
#[derive(Debug, Clone, serde::Serialize)]
pub struct DedupConfig {
    /// The method (default MinHash).
    pub method: Method,
    /// Shingles compared (default word 5-shingles).
    pub shingle: ShingleKind,
    /// Tokens of space-less scripts: characters (default) or dictionary words.
    pub segmentation: Segmentation,
    /// MinHash signature length (default 128).
    pub num_perm: usize,
    /// MinHash scheme (default one-permutation hashing with densification).
    pub scheme: MinHashScheme,
    /// Seed of every hash (default 1).
    pub seed: u64,
    /// Similarity threshold in (0, 1] (default 0.8).
    pub threshold: f64,
    /// LSH bands and rows; `None` chooses them from the threshold.
    pub lsh: Option<LshParams>,
    /// Weights used when choosing bands and rows.
    pub weights: ErrorWeights,
    /// Verification mode (default exact Jaccard).
    pub verify: Verify,
    /// Representative choice (default the first in input order).
    pub keep: Keep,
    /// Buckets larger than this are not expanded to all pairs.
    pub max_bucket: usize,
    /// Directory of the spill file (default the system temporary directory).
    pub spill_dir: Option<PathBuf>,
    /// Bytes of shingle sets kept in memory for exact verification before spilling to disk; also
    /// the cap of each external sort of Broder's algorithm.
    pub memory: usize,
    /// Resemblance or containment.
    pub measure: Measure,
    /// Sample of MOD-m, MIN-s and Broder's algorithm (`None`: the method's default, see
    /// [`DedupConfig::effective_sample`]).
    pub sample: Option<Sample>,
    /// Shape of super-shingles (method `supershingles`).
    pub supershingles: SuperShingleConfig,
    /// L of Broder's algorithm: shingles shared by more documents are skipped.
    pub max_docs_per_shingle: usize,
    /// SimHash settings.
    pub simhash: SimHashConfig,
    /// Settings of the lexical methods.
    pub lexical: LexicalConfig,
}

impl DedupConfig {
    /// SimHash's Hamming distance: the configured one (default 3, Manku et al.), or with
    /// `max_distance: None` the one expected at the threshold
    /// ([`crate::engine::simhash_distance_for`]).
    pub fn simhash_distance(&self) -> u32 {
        self.simhash
            .max_distance
            .unwrap_or_else(|| crate::engine::simhash_distance_for(self.threshold))
    }

    /// SimHash's features: the configured ones, else the run's shingles.
    pub fn simhash_features(&self) -> crate::sketch::simhash::SimFeatures {
        self.simhash.features.unwrap_or(crate::sketch::simhash::SimFeatures::Shingles(self.shingle))
    }

    /// The sample actually used: the configured one, else MOD-8 for `mod-m` and for containment,
    /// else MIN-128.
    pub fn effective_sample(&self) -> Sample {
        match (self.sample, self.method, self.measure) {
            (Some(s), _, _) => s,
            (None, Method::ModM, _) | (None, _, Measure::Containment) => Sample::Mod(8),
            _ => Sample::Min(128),
        }
    }
}

impl Default for DedupConfig {
    fn default() -> Self {
        DedupConfig {
            method: Method::default(),
            shingle: ShingleKind::default(),
            segmentation: Segmentation::default(),
            num_perm: 128,
            scheme: MinHashScheme::default(),
            seed: 1,
            threshold: 0.8,
            lsh: None,
            weights: ErrorWeights::default(),
            verify: Verify::default(),
            keep: Keep::default(),
            max_bucket: DEFAULT_MAX_BUCKET,
            spill_dir: None,
            memory: crate::store::DEFAULT_MEMORY_BUDGET,
            measure: Measure::default(),
            sample: None,
            supershingles: SuperShingleConfig::default(),
            max_docs_per_shingle: DEFAULT_MAX_DOCS_PER_SHINGLE,
            simhash: SimHashConfig::default(),
            lexical: LexicalConfig::default(),
        }
    }
}

/// Builder of a [`Dedup`].
#[derive(Debug, Clone, Default)]
pub struct DedupBuilder {
    config: DedupConfig,
}

macro_rules! setter {
    ($(#[$doc:meta] $name:ident: $ty:ty),* $(,)?) => {
        $(#[$doc] pub fn $name(mut self, value: $ty) -> Self {
            self.config.$name = value;
            self
        })*
    };
}

impl DedupBuilder {
    setter! {
        /// Sets the method.
        method: Method,
        /// Sets the shingle kind.
        shingle: ShingleKind,
        /// Sets the segmentation of space-less scripts.
        segmentation: Segmentation,
        /// Sets the MinHash signature length.
        num_perm: usize,
        /// Sets the MinHash scheme.
        scheme: MinHashScheme,
        /// Sets the seed.
        seed: u64,
        /// Sets the similarity threshold.
        threshold: f64,
        /// Forces LSH bands and rows.
        lsh: Option<LshParams>,
        /// Sets the error weights used to choose bands and rows.
        weights: ErrorWeights,
        /// Sets the verification mode.
        verify: Verify,
        /// Sets the representative choice.
        keep: Keep,
        /// Sets the bucket cap.
        max_bucket: usize,
        /// Sets the spill directory.
        spill_dir: Option<PathBuf>,
        /// Sets the memory budget of the shingle sets before they spill to disk.
        memory: usize,
        /// Sets the measure (resemblance or containment).
        measure: Measure,
        /// Sets the sample of MOD-m, MIN-s and Broder's algorithm.
        sample: Option<Sample>,
        /// Sets the shape of super-shingles.
        supershingles: SuperShingleConfig,
        /// Sets L of Broder's algorithm.
        max_docs_per_shingle: usize,
        /// Sets the SimHash settings.
        simhash: SimHashConfig,
        /// Sets the settings of the lexical methods.
        lexical: LexicalConfig,
    }

    /// Validates the settings.
    pub fn build(self) -> Result<Dedup, Error> {
        let c = self.config;
        if !(c.threshold > 0.0 && c.threshold <= 1.0) {
            return Err(Error::Config(format!("threshold {} is not in (0, 1]", c.threshold)));
        }
        if !(1..=8192).contains(&c.num_perm) {
            return Err(Error::Config(format!("num-perm {} is not in 1..=8192", c.num_perm)));
        }
        let lsh = match c.lsh {
            Some(p) if p.bands == 0 || p.rows == 0 => {
                return Err(Error::Config("bands and rows must be at least 1".into()));
            }
            Some(p) if p.bands * p.rows > c.num_perm => {
                return Err(Error::Config(format!(
                    "bands × rows = {} × {} = {} exceeds num-perm {}",
                    p.bands,
                    p.rows,
                    p.bands * p.rows,
                    c.num_perm
                )));
            }
            Some(p) => p,
            None => LshParams::optimal(c.threshold, c.num_perm, c.weights),
        };
        c.supershingles.validate().map_err(|e| Error::Config(e.to_string()))?;
        if c.max_docs_per_shingle < 2 {
            return Err(Error::Config("max docs per shingle must be at least 2".into()));
        }
        if c.simhash_distance() >= crate::sketch::simhash::BITS {
            return Err(Error::Config(format!(
                "Hamming distance {} must be below 64",
                c.simhash_distance()
            )));
        }
        let sample = c.effective_sample();
        match (c.method, sample) {
            (Method::ModM, Sample::Min(_)) => {
                return Err(Error::Config(
                    "method mod-m samples with mod:M; use --method min-s or broder for min:S"
                        .into(),
                ));
            }
            (Method::MinS, Sample::Mod(_)) => {
                return Err(Error::Config(
                    "method min-s samples with min:S; use --method mod-m or broder for mod:M"
                        .into(),
                ));
            }
            _ => {}
        }
        if c.measure == Measure::Containment {
            let ok = matches!(c.method, Method::ModM | Method::Broder | Method::Exact)
                && matches!(sample, Sample::Mod(_));
            if !ok {
                return Err(Error::Config(format!(
                    "containment needs candidates that reach low-resemblance pairs: use --method \
                     mod-m or --method broder with a mod:M sample (got {} with {sample})",
                    c.method
                )));
            }
        }
        Ok(Dedup {
            shingler: Shingler::new(c.shingle, c.seed).with_segmentation(c.segmentation),
            lsh,
            config: c,
        })
    }
}

/// A configured near-duplicate detector. Cheap to share; each run is a [`DedupRun`].
///
/// ```
/// use lookalike::{Dedup, Document, DocStatus};
///
/// let dedup = Dedup::builder().threshold(0.7).build().unwrap();
/// let mut run = dedup.start().unwrap();
/// run.add(vec![
///     Document::from_text("a", "the quick brown fox jumps over the lazy dog again and again"),
///     Document::from_text("b", "The quick brown fox jumps over the lazy dog again and again!"),
///     Document::from_text("c", "a completely different text about something else entirely"),
/// ]).unwrap();
/// let outcome = run.finish().unwrap();
/// assert!(matches!(outcome.statuses[1], DocStatus::Duplicate { of: 0, .. }));
/// assert_eq!(outcome.statuses[2], DocStatus::Kept);
/// ```
#[derive(Debug, Clone)]
pub struct Dedup {
    config: DedupConfig,
    shingler: Shingler,
    lsh: LshParams,
}

impl Dedup {
    /// A builder with the default settings.
    pub fn builder() -> DedupBuilder {
        DedupBuilder::default()
    }

    /// The settings.
    pub fn config(&self) -> &DedupConfig {
        &self.config
    }

    /// The LSH bands and rows in use (given or chosen).
    pub fn lsh_params(&self) -> LshParams {
        self.lsh
    }

    /// The shingler in use.
    pub fn shingler(&self) -> &Shingler {
        &self.shingler
    }

    /// One line describing the method and its settings, for summaries.
    pub fn describe(&self) -> String {
        let c = &self.config;
        let verify = match c.verify {
            Verify::Exact => "verify exact",
            Verify::Estimate => "verify estimate",
        };
        let measure = match c.measure {
            Measure::Jaccard => format!("jaccard ≥ {}", c.threshold),
            Measure::Containment => format!("containment ≥ {}", c.threshold),
        };
        let scheme = match c.scheme {
            MinHashScheme::OnePermutation => "oph",
            MinHashScheme::Permutations => "perm",
        };
        let sh = c.shingle;
        match c.method {
            Method::Exact => "method exact: same raw bytes or same normalized text".into(),
            Method::MinHash => format!(
                "method minhash: {sh} shingles, {} values ({scheme}), {} bands × {} rows, {measure}, {verify}",
                c.num_perm, self.lsh.bands, self.lsh.rows
            ),
            Method::SuperShingles => {
                let s = &c.supershingles;
                format!(
                    "method supershingles: {sh} shingles, {} min-hashes ({scheme}) in {} groups of {}, {}, {measure}, {verify}",
                    s.minhashes,
                    s.groups,
                    s.per_group,
                    match s.mode {
                        crate::sketch::supershingles::SuperShingleMode::Pairs =>
                            "mega-shingles (2 of the groups)",
                        crate::sketch::supershingles::SuperShingleMode::Single =>
                            "single super-shingles",
                    }
                )
            }
            Method::ModM | Method::MinS | Method::Broder => format!(
                "method {}: {sh} shingles, sample {}, L = {} documents per shingle, {measure}, {verify}",
                c.method,
                c.effective_sample(),
                c.max_docs_per_shingle
            ),
            Method::SpotSigs => format!(
                "method spotsigs: spot signatures (antecedent stopword + {} content words, per detected language), weighted Jaccard ≥ {}, {}",
                c.lexical
                    .spot_chain
                    .map_or("2 (Chinese, Japanese: 4)".to_owned(), |n| n.to_string()),
                c.threshold,
                match c.verify {
                    Verify::Exact => format!("verify exact ({measure} of {sh} shingles)"),
                    Verify::Estimate => "verify estimate (the spot similarity)".to_owned(),
                }
            ),
            Method::IMatch
            | Method::IMatchRand
            | Method::TfRidf
            | Method::Partitioned
            | Method::LongSentences
            | Method::RefWords => {
                let l = &c.lexical;
                let source = match &l.lexicon {
                    Some(lex) => format!("lexicon file ({} documents)", lex.stats.docs()),
                    None => "statistics of the input".to_owned(),
                };
                let what = match c.method {
                    Method::IMatch => format!(
                        "mid-IDF terms (NIDF in [{}, {}]) from the {source}, at least {} per document",
                        l.imatch.nidf_low, l.imatch.nidf_high, l.imatch.min_terms
                    ),
                    Method::IMatchRand => format!(
                        "mid-IDF terms (NIDF in [{}, {}]) from the {source}, {} extra lexicons dropping {} of them",
                        l.imatch.nidf_low,
                        l.imatch.nidf_high,
                        l.imatch.extra_lexicons,
                        l.imatch.drop_fraction
                    ),
                    Method::TfRidf => format!(
                        "the {} words of highest tf·RIDF, RIDF from the {source}",
                        l.tf_ridf.words
                    ),
                    Method::Partitioned => format!(
                        "terms in {} lists, at least {} equal list fingerprints",
                        l.partition.lists, l.partition.min_shared
                    ),
                    Method::RefWords => format!(
                        "up to {} reference words chosen from the {}, Hamming distance ≤ {}",
                        l.refwords.words,
                        match l.lexicon.as_ref().and_then(|x| x.reference_words.as_ref()) {
                            Some(_) => "lexicon file",
                            None => "input",
                        },
                        l.refwords_distance
                    ),
                    _ => format!("the {} longest sentences", l.long_sentences.sentences),
                };
                let verify = match c.verify {
                    Verify::Exact => format!("verify exact ({measure} of {sh} shingles)"),
                    Verify::Estimate => "verify estimate (equal signatures)".to_owned(),
                };
                format!("method {}: signature of {what}, {verify}", c.method)
            }
            Method::SimHash => format!(
                "method simhash: 64-bit fingerprints of {} weighted {}, Hamming distance ≤ {}, {}",
                match c.simhash_features() {
                    crate::sketch::simhash::SimFeatures::Tokens => "tokens".to_owned(),
                    crate::sketch::simhash::SimFeatures::Shingles(k) => format!("{k} shingles"),
                },
                match c.simhash.weights {
                    crate::sketch::simhash::Weighting::None => "uniformly",
                    crate::sketch::simhash::Weighting::Tf => "by tf",
                    crate::sketch::simhash::Weighting::TfIdf => "by tf·idf",
                },
                c.simhash_distance(),
                match c.verify {
                    Verify::Exact => format!("verify exact ({measure} of {sh} shingles)"),
                    Verify::Estimate => "verify estimate".to_owned(),
                }
            ),
        }
    }

    /// Starts a run (creates the spill file when verification is exact).
    pub fn start(&self) -> Result<DedupRun<'_>, Error> {
        let store = match (self.config.method != Method::Exact, self.config.verify) {
            (true, Verify::Exact) => {
                Some(ShingleStore::new(self.config.spill_dir.as_deref(), self.config.memory)?)
            }
            _ => None,
        };
        Ok(DedupRun {
            dedup: self,
            docs: Vec::new(),
            exact: HashMap::new(),
            heads: Vec::new(),
            engine: Engine::new(&self.config)?,
            store,
            bytes: 0,
        })
    }
}

/// How two documents matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MatchKind {
    /// The same raw bytes (full-layout copy).
    ExactBytes,
    /// The same normalized text (full-content copy).
    ExactText,
    /// Similar at or above the threshold.
    Near,
}

impl MatchKind {
    /// The name used in outputs.
    pub fn as_str(self) -> &'static str {
        match self {
            MatchKind::ExactBytes => "exact-bytes",
            MatchKind::ExactText => "exact-text",
            MatchKind::Near => "near",
        }
    }
}

/// A verified pair of documents (indices in input order, `a < b`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ScoredPair {
    /// The earlier document.
    pub a: u32,
    /// The later document.
    pub b: u32,
    /// Their similarity (1.0 for exact copies); with [`Measure::Containment`] the containment of
    /// the contained document in the other.
    pub similarity: f64,
    /// How they matched.
    pub kind: MatchKind,
    /// With [`Measure::Containment`]: which document is (mostly) contained in the other.
    pub contained: Option<Contained>,
    /// SimHash: the Hamming distance h of the two fingerprints (the similarity estimate is
    /// 1 − h/64 and the cosine estimate cos(π·h/64), [`crate::sketch::simhash::cosine_estimate`]).
    pub hamming: Option<u32>,
}

/// Direction of a containment pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Contained {
    /// `a ⊂ b`: the earlier document is contained in the later one.
    AInB,
    /// `b ⊂ a`: the later document is contained in the earlier one.
    BInA,
}

/// A member of a cluster other than its representative.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ClusterMember {
    /// The document.
    pub doc: u32,
    /// Its similarity to the representative (may be below the threshold when it joined through
    /// another member: clusters are the transitive closure of the pairs).
    pub similarity: f64,
    /// Exact copy of the representative, or near duplicate.
    pub kind: MatchKind,
}

/// A group of duplicates.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Cluster {
    /// The document kept.
    pub representative: u32,
    /// The others, in input order.
    pub members: Vec<ClusterMember>,
}

/// What happened to one input document.
#[derive(Debug, Clone, PartialEq)]
pub enum DocStatus {
    /// Kept: unique, or the representative of its cluster.
    Kept,
    /// Dropped as a duplicate of the representative `of`.
    Duplicate {
        /// The representative.
        of: u32,
        /// Similarity to the representative.
        similarity: f64,
        /// Exact or near.
        kind: MatchKind,
    },
    /// Not compared, with the reason.
    Skipped {
        /// Why.
        reason: String,
    },
}

/// Counts for the summary.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct DedupStats {
    /// Documents given to the pipeline.
    pub documents: u64,
    /// Documents skipped (no tokens).
    pub skipped: u64,
    /// Documents that are exact copies of an earlier one.
    pub exact_duplicates: u64,
    /// Documents that went through sketching and LSH (heads of exact groups).
    pub sketched: u64,
    /// Candidate generation figures.
    pub candidates: CandidateStats,
    /// Verified near-duplicate pairs.
    pub near_pairs: u64,
    /// Clusters of two or more documents.
    pub clusters: u64,
    /// Documents dropped as duplicates (exact or near).
    pub duplicates: u64,
    /// Bytes of text read (sum of the documents' raw sizes).
    pub bytes: u64,
    /// Bytes written to the spill file.
    pub spill_bytes: u64,
    /// The LSH parameters used.
    pub lsh: Option<LshParams>,
    /// Figures of the method's candidate generation (Broder's algorithm, SimHash tables).
    pub method: EngineStats,
}

/// The result of a run.
#[derive(Debug, Clone)]
pub struct DedupOutcome {
    /// Document ids, by input index.
    pub ids: Vec<String>,
    /// Every document's fate, by input index.
    pub statuses: Vec<DocStatus>,
    /// Verified pairs: exact copies (head, copy) and near duplicates, sorted by `(a, b)`.
    pub pairs: Vec<ScoredPair>,
    /// Clusters ordered by their smallest member.
    pub clusters: Vec<Cluster>,
    /// Counts.
    pub stats: DedupStats,
    /// Documents the method could not sign (lexical methods: too few lexicon terms, too short),
    /// with the reason, in input order. They are kept and compared by nothing but the exact stage.
    pub unsigned: Vec<(u32, String)>,
}

#[derive(Debug, Clone)]
enum DocKind {
    Skipped(&'static str),
    /// Head of an exact group; `slot` indexes `heads`, `sigs` and the store.
    Head {
        slot: u32,
    },
    /// Exact copy of head document `of`.
    Copy {
        of: u32,
        bytes: bool,
    },
}

#[derive(Debug)]
struct DocMeta {
    id: String,
    text_len: u64,
    kind: DocKind,
}

/// A run in progress: add batches, then [`finish`](DedupRun::finish).
#[derive(Debug)]
pub struct DedupRun<'a> {
    dedup: &'a Dedup,
    docs: Vec<DocMeta>,
    /// Text fingerprint → (head document, its raw fingerprint).
    exact: HashMap<u128, (u32, Option<u128>)>,
    /// Document index of every head, by slot.
    heads: Vec<u32>,
    /// The method's per-head data.
    engine: Engine,
    store: Option<ShingleStore>,
    bytes: u64,
}

struct Processed {
    fingerprint: u128,
    shingles: Vec<u64>,
    empty_text: bool,
    features: DocFeatures,
}

#[derive(Default)]
struct Scratch {
    norm: NormalizedText,
    shingle: ShingleScratch,
}

impl DedupRun<'_> {
    /// Documents added so far.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// True before the first document.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// Adds a batch of documents (in input order); they get the next input indices. Documents are
    /// processed in parallel on the current rayon pool.
    pub fn add(&mut self, batch: Vec<Document>) -> Result<(), Error> {
        let d = self.dedup;
        let c = &d.config;
        let engine = &self.engine;
        let mut processed: Vec<Processed> = batch
            .par_iter()
            .map_init(Scratch::default, |s, doc| {
                d.shingler.normalize_into(&doc.text, &mut s.norm);
                let mut shingles = Vec::new();
                d.shingler.shingles_into(&s.norm, &mut s.shingle, &mut shingles);
                let features = if shingles.is_empty() {
                    DocFeatures::None
                } else {
                    engine.features(c, &doc.text, &s.norm, &shingles)
                };
                Processed {
                    fingerprint: text_fingerprint(&s.norm.text),
                    shingles,
                    empty_text: doc.text.trim().is_empty(),
                    features,
                }
            })
            .collect();
        // Sketch only the documents that will be heads: find them first (sequential, cheap).
        let mut kinds = Vec::with_capacity(batch.len());
        let mut new_heads = Vec::new();
        for (doc, p) in batch.iter().zip(&processed) {
            let index = (self.docs.len() + kinds.len()) as u32;
            let kind = if p.shingles.is_empty() {
                DocKind::Skipped(if p.empty_text {
                    "empty text"
                } else {
                    "no tokens after normalization"
                })
            } else if let Some(&(of, raw)) = self.exact.get(&p.fingerprint) {
                let bytes = raw.is_some() && raw == doc.raw_fingerprint;
                DocKind::Copy { of, bytes }
            } else {
                self.exact.insert(p.fingerprint, (index, doc.raw_fingerprint));
                let slot = (self.heads.len() + new_heads.len()) as u32;
                new_heads.push(kinds.len());
                DocKind::Head { slot }
            };
            kinds.push(kind);
        }
        let features: Vec<DocFeatures> =
            new_heads.iter().map(|&i| std::mem::take(&mut processed[i].features)).collect();
        self.engine.push_heads(
            new_heads.iter().zip(features).map(|(&i, f)| (&processed[i].shingles[..], f)).collect(),
        );
        for &i in &new_heads {
            self.heads.push((self.docs.len() + i) as u32);
            if let Some(store) = &mut self.store {
                store.push(&processed[i].shingles)?;
            }
        }
        for (doc, kind) in batch.into_iter().zip(kinds) {
            self.bytes += doc.raw_len;
            self.docs.push(DocMeta { id: doc.id, text_len: doc.text.len() as u64, kind });
        }
        Ok(())
    }

    /// Runs candidates, verification and clustering.
    pub fn finish(self) -> Result<DedupOutcome, Error> {
        self.finish_with(&mut |_| {})
    }

    /// Like [`finish`](Self::finish), calling `phase` with a short description before each phase.
    pub fn finish_with(mut self, phase: &mut dyn FnMut(&str)) -> Result<DedupOutcome, Error> {
        let d = self.dedup;
        let c = &d.config;
        if let Some(store) = &mut self.store {
            store.seal()?;
        }

        phase(match c.method {
            Method::MinHash => "finding candidates (LSH banding)",
            Method::SuperShingles => "finding candidates (shared super-shingles)",
            Method::ModM | Method::MinS | Method::Broder => {
                "finding candidates (Broder's sort of shared samples)"
            }
            Method::SimHash => "finding candidates (permuted tables)",
            _ => "finding candidates",
        });
        let (candidates, cand_stats, method_stats) = if c.method == Method::Exact {
            (Vec::new(), CandidateStats::default(), EngineStats::default())
        } else {
            self.engine.candidates(c, d.lsh)?
        };

        phase("verifying candidate pairs");
        let similarity = Similarity { engine: &self.engine, config: c, store: self.store.as_ref() };
        let near: Vec<Verified> = similarity.verify_pairs(&candidates)?;

        phase("clustering");
        let n = self.docs.len();
        let mut uf = UnionFind::new(n);
        let mut pairs = Vec::new();
        for (i, m) in self.docs.iter().enumerate() {
            if let DocKind::Copy { of, bytes } = m.kind {
                uf.union(of, i as u32);
                let kind = if bytes { MatchKind::ExactBytes } else { MatchKind::ExactText };
                pairs.push(ScoredPair {
                    a: of,
                    b: i as u32,
                    similarity: 1.0,
                    kind,
                    contained: None,
                    hamming: None,
                });
            }
        }
        for &(sa, sb, sim, contained) in &near {
            let (a, b) = (self.heads[sa as usize], self.heads[sb as usize]);
            uf.union(a, b);
            let hamming = self.engine.hamming(sa, sb);
            pairs.push(ScoredPair {
                a,
                b,
                similarity: sim,
                kind: MatchKind::Near,
                contained,
                hamming,
            });
        }
        pairs.sort_unstable_by_key(|p| (p.a, p.b));

        let groups = uf.groups();
        let docs = &self.docs;
        let head_slot = |doc: u32| -> u32 {
            match docs[doc as usize].kind {
                DocKind::Head { slot } => slot,
                DocKind::Copy { of, .. } => match docs[of as usize].kind {
                    DocKind::Head { slot } => slot,
                    _ => unreachable!("an exact copy points at a head"),
                },
                DocKind::Skipped(_) => unreachable!("skipped documents are never paired"),
            }
        };
        let clusters: Vec<Cluster> = groups
            .par_iter()
            .map_init(SetBuffers::default, |buf, group| -> Result<Cluster, Error> {
                let rep = match d.config.keep {
                    Keep::First => group[0],
                    Keep::Longest => *group
                        .iter()
                        .max_by_key(|&&m| (docs[m as usize].text_len, std::cmp::Reverse(m)))
                        .unwrap_or(&group[0]),
                };
                let rep_slot = head_slot(rep);
                let mut members = Vec::with_capacity(group.len() - 1);
                for &m in group.iter().filter(|&&m| m != rep) {
                    let slot = head_slot(m);
                    let (similarity, kind) = if slot == rep_slot {
                        (1.0, exact_kind(docs, rep, m))
                    } else {
                        (similarity.to_representative(rep_slot, slot, buf)?, MatchKind::Near)
                    };
                    members.push(ClusterMember { doc: m, similarity, kind });
                }
                Ok(Cluster { representative: rep, members })
            })
            .collect::<Result<_, _>>()?;

        let mut statuses: Vec<DocStatus> = self
            .docs
            .iter()
            .map(|m| match m.kind {
                DocKind::Skipped(reason) => DocStatus::Skipped { reason: reason.to_owned() },
                _ => DocStatus::Kept,
            })
            .collect();
        let mut duplicates = 0;
        for c in &clusters {
            for m in &c.members {
                duplicates += 1;
                statuses[m.doc as usize] = DocStatus::Duplicate {
                    of: c.representative,
                    similarity: m.similarity,
                    kind: m.kind,
                };
            }
        }

        let stats = DedupStats {
            documents: n as u64,
            skipped: self.docs.iter().filter(|m| matches!(m.kind, DocKind::Skipped(_))).count()
                as u64,
            exact_duplicates: self
                .docs
                .iter()
                .filter(|m| matches!(m.kind, DocKind::Copy { .. }))
                .count() as u64,
            sketched: self.heads.len() as u64,
            candidates: cand_stats,
            near_pairs: near.len() as u64,
            clusters: clusters.len() as u64,
            duplicates,
            bytes: self.bytes,
            spill_bytes: self.store.as_ref().map_or(0, ShingleStore::disk_bytes),
            lsh: (c.method == Method::MinHash).then_some(d.lsh),
            method: method_stats,
        };
        let unsigned = self
            .engine
            .unsigned()
            .iter()
            .map(|(slot, reason)| (self.heads[*slot as usize], reason.clone()))
            .collect();
        let ids = self.docs.into_iter().map(|m| m.id).collect();
        Ok(DedupOutcome { ids, statuses, pairs, clusters, stats, unsigned })
    }
}

fn exact_kind(docs: &[DocMeta], rep: u32, member: u32) -> MatchKind {
    let bytes_of = |d: u32| match docs[d as usize].kind {
        DocKind::Copy { bytes, .. } => bytes,
        _ => true,
    };
    if bytes_of(rep) && bytes_of(member) { MatchKind::ExactBytes } else { MatchKind::ExactText }
}

#[derive(Default)]
struct SetBuffers {
    a: Vec<u64>,
    b: Vec<u64>,
    raw: Vec<u8>,
}

/// A verified pair of slots: `(a, b, similarity, containment direction)`.
type Verified = (u32, u32, f64, Option<Contained>);

/// Similarity between heads: exact from the shingle store, or the method's own estimate.
struct Similarity<'a> {
    engine: &'a Engine,
    config: &'a DedupConfig,
    store: Option<&'a ShingleStore>,
}

impl Similarity<'_> {
    /// Exact similarity of two sets under the configured measure, with the direction of a
    /// containment.
    fn exact(&self, a: &[u64], b: &[u64]) -> (f64, Option<Contained>) {
        match self.config.measure {
            Measure::Jaccard => (jaccard(a, b), None),
            Measure::Containment => {
                let inter = intersection_size(a, b) as f64;
                let ca = if a.is_empty() { 0.0 } else { inter / a.len() as f64 };
                let cb = if b.is_empty() { 0.0 } else { inter / b.len() as f64 };
                // Ties (equal sizes) read as the earlier document contained in the later one.
                if ca >= cb { (ca, Some(Contained::AInB)) } else { (cb, Some(Contained::BInA)) }
            }
        }
    }

    /// Similarity of a cluster member to its representative: resemblance, or with containment the
    /// containment of the member in the representative.
    fn to_representative(&self, rep: u32, member: u32, buf: &mut SetBuffers) -> Result<f64, Error> {
        match self.store {
            None => Ok(self.engine.estimate(self.config, rep, member)),
            Some(store) => {
                store.read(rep as usize, &mut buf.a, &mut buf.raw)?;
                store.read(member as usize, &mut buf.b, &mut buf.raw)?;
                Ok(match self.config.measure {
                    Measure::Jaccard => jaccard(&buf.a, &buf.b),
                    Measure::Containment if buf.b.is_empty() => 0.0,
                    Measure::Containment => {
                        intersection_size(&buf.a, &buf.b) as f64 / buf.b.len() as f64
                    }
                })
            }
        }
    }

    /// Verifies sorted candidate pairs of slots; returns those at or above the threshold (exact
    /// verification) or those the method accepts (estimate).
    fn verify_pairs(&self, candidates: &[Candidate]) -> Result<Vec<Verified>, Error> {
        let threshold = self.config.threshold;
        let Some(store) = self.store else {
            let contained = |a: u32, b: u32| {
                (self.config.measure == Measure::Containment).then(|| {
                    // The estimate is the containment of the smaller sample.
                    if self.engine.sample_len(a) <= self.engine.sample_len(b) {
                        Contained::AInB
                    } else {
                        Contained::BInA
                    }
                })
            };
            return Ok(candidates
                .iter()
                .filter(|cand| cand.accepted)
                .map(|cand| {
                    let (a, b) = decode_pair(cand.pair);
                    (a, b, cand.estimate, contained(a, b))
                })
                .collect());
        };
        // Group by the first slot so each of its sets is read once.
        let groups: Vec<&[Candidate]> =
            candidates.chunk_by(|x, y| decode_pair(x.pair).0 == decode_pair(y.pair).0).collect();
        let verified: Vec<Vec<_>> = groups
            .par_iter()
            .map_init(SetBuffers::default, |buf, group| -> Result<_, Error> {
                let a = decode_pair(group[0].pair).0;
                let mut out = Vec::new();
                store.read(a as usize, &mut buf.a, &mut buf.raw)?;
                for cand in group.iter() {
                    let b = decode_pair(cand.pair).1;
                    store.read(b as usize, &mut buf.b, &mut buf.raw)?;
                    let (sim, contained) = self.exact(&buf.a, &buf.b);
                    if sim >= threshold {
                        out.push((a, b, sim, contained));
                    }
                }
                Ok(out)
            })
            .collect::<Result<_, _>>()?;
        Ok(verified.into_iter().flatten().collect())
    }
}
