//! The near-duplicate methods. Contract: "give me each document's text, tokens and shingles, I
//! keep what I need per document and give you candidate pairs, my own similarity estimate of any
//! two documents and my own decision".
//!
//! Every method shares the pipeline's inputs, text handling, exact-duplicate stage, verification,
//! clustering and outputs ([`crate::pipeline`]); a method is one type implementing [`Method`],
//! in one file of this folder named after it. The same file declares the method in the registry
//! ([`options`]): its options (name, help, default, parser) and how its settings are built from
//! them, which the CLI's flags and Python's keyword options are made from.
//!
//! | method | kept per head | candidates | own estimate |
//! |---|---|---|---|
//! | [`MinHash`] | `num_perm` u32 values | LSH banding | equal values / `num_perm` |
//! | [`SuperShingles`] | `minhashes` u32 values | shared super- or mega-shingle | equal values / `minhashes` |
//! | [`ModM`], [`MinS`], [`Broder`] | sorted sample of shingle hashes | Broder's sort of ⟨shingle, doc⟩ | the method's estimator |
//! | [`SimHash`] | 64-bit fingerprint (tf-idf: the weighted bag until [`Method::prepare`]) | Manku's tables, distance ≤ k | 1 − h/64 |
//! | [`Combined`] | `num_perm` u32 values and a 64-bit SimHash fingerprint | LSH banding, then SimHash distance ≤ k | equal values / `num_perm` |
//! | [`IMatch`], [`TfRidf`] | term counts until [`Method::prepare`] signs them (or keys at once with a lexicon file) | equal signature | shared keys / most keys |
//! | [`Partitioned`], [`LongSentences`] | signature keys | ≥ k shared keys | shared keys / most keys |
//! | [`RefWords`] | term counts, then an N-bit signature | equal (or close) signatures | 1 − h/N |
//! | [`SpotSigs`] | multiset of spots | size partitions and an inverted index | weighted Jaccard |
//! | [`Exact`] | nothing | none (the exact stage does the work) | — |
//!
//! [`DocKeyer`] computes, outside the pipeline, the candidate keys of one document for the methods
//! whose candidates come from keys each document has by itself (SimHash, combined, long
//! sentences, partitioned fingerprints, I-Match and TF*RIDF with a lexicon file): what the Ray
//! job shuffles. With a [`StatisticsPass`] (I-Match and TF*RIDF without a lexicon file, tf-idf
//! SimHash and combined), the statistics [`Method::prepare`] counts over the heads are counted
//! outside the pipeline as mergeable [`PartialStatistics`], and
//! [`DocKeyer::with_statistics`] keys each document with them.
//!
//! Adding a method: a file here with a type implementing [`Method`] and its registry entry (a
//! `MethodSpec`: the options it owns, its settings from them, whether an index holds it, its
//! per-document keys or why it has none), one line in the `methods!` list below (its variant,
//! name, settings type and spec: [`MethodKind`], [`MethodConfig`] and [`METHODS`] are made from
//! it), and an arm in `MethodConfig::build` (and in `StatisticsPass::new` if it signs with
//! statistics of the collection); the compiler points at that arm (no `_ =>` arm), and a registry
//! test at a spec filed under another method. The CLI, Python and the Ray job need no change.

use std::fmt;
use std::path::PathBuf;

use rayon::prelude::*;

use crate::candidates::lsh::{CandidateStats, LshParams};
use crate::config::{
    CombinedConfig, DedupConfig, IMatchSettings, Measure, MinHashConfig, RefWordsSettings,
    SampleConfig, SimHashConfig, SpotSigsConfig, SuperShinglesConfig, TfRidfSettings,
};
use crate::document::Document;
use crate::error::Error;
use crate::fingerprint::text_fingerprint;
use crate::lexical::lexsig::LongSentenceConfig;
use crate::lexical::partitioned::PartitionConfig;
use crate::shingles::{ShingleKind, ShingleScratch, Shingler};
use crate::text::normalize::NormalizedText;
use crate::verify::Verify;

mod broder;
mod combined;
mod doc_keyer;
mod exact;
mod i_match;
mod keys;
mod long_sentences;
mod min_s;
mod minhash;
mod mod_m;
pub mod options;
mod partitioned;
mod ref_words;
mod samples;
mod simhash;
mod spot_sigs;
mod statistics;
mod super_shingles;
mod tf_ridf;

pub use broder::{Broder, BroderEstimate};
pub use combined::{Combined, CombinedStats};
pub use doc_keyer::{DocKeyer, DocKeys, KeyerError, MAX_SUBSET_KEYS};
pub use exact::Exact;
pub use i_match::{IMatch, IMatchSigning};
pub use keys::{DocSigned, DocSigner, LexDoc, Signer, StatSigned};
pub use long_sentences::{LongSentences, SentenceSigner};
pub use min_s::{MinS, MinSEstimate};
pub use minhash::MinHash;
pub use mod_m::{ModM, ModMEstimate};
pub use partitioned::{PartitionSigner, Partitioned};
pub use ref_words::RefWords;
pub use samples::{
    Estimator, PartCounts, SHORT_PART, SHORT_PART_BELOW, SHORT_SAMPLE, SampleParts, SampleRule,
    Sampled, Samples,
};
pub use simhash::{SimDoc, SimHash};
pub use spot_sigs::SpotSigs;
pub use statistics::{PartialStatistics, StatisticsPass};
pub use super_shingles::SuperShingles;
pub use tf_ridf::{RidfSigner, TfRidf};

/// Declares the methods once: each line gives a method's variant, its name (what `--method`
/// takes, and its name in every output and in serialized settings), its settings type and its
/// registry entry. [`MethodKind`], [`MethodConfig`] (with `ALL`, `name()`, `kind()` and the
/// default settings) and [`METHODS`] are made from that list, so a method is listed in one place.
macro_rules! methods {
    (@pattern $variant:ident) => { MethodConfig::$variant };
    (@pattern $variant:ident $settings:ty) => { MethodConfig::$variant(_) };
    (@default $variant:ident) => { MethodConfig::$variant };
    (@default $variant:ident $settings:ty) => { MethodConfig::$variant(<$settings>::default()) };
    ($(
        $(#[$attr:meta])*
        $variant:ident = $name:literal $(($settings:ty))? => $spec:path,
    )*) => {
        /// The name of a near-duplicate detection method (what `--method` takes); its settings
        /// are a [`MethodConfig`].
        #[derive(
            Debug,
            Clone,
            Copy,
            Default,
            PartialEq,
            Eq,
            Hash,
            serde::Serialize,
            serde::Deserialize,
            clap::ValueEnum,
        )]
        pub enum MethodKind {
            $(
                $(#[$attr])*
                #[value(name = $name)]
                #[serde(rename = $name)]
                $variant,
            )*
        }

        impl MethodKind {
            /// Every method, in the order `lookalike compare` runs them.
            pub const ALL: &'static [MethodKind] = &[$(MethodKind::$variant),*];

            /// The name used on the command line and in outputs.
            pub const fn name(self) -> &'static str {
                match self {
                    $(MethodKind::$variant => $name,)*
                }
            }
        }

        /// A method with its settings. Each variant's settings are those of that method alone;
        /// the settings every method shares are in [`DedupConfig`]. Serialized (in `--stats`) as
        /// `{"NAME": {settings}}` with the method's `--method` name (a method without settings:
        /// `"NAME"`).
        #[derive(Debug, Clone, serde::Serialize)]
        pub enum MethodConfig {
            $(
                #[doc = concat!("[`MethodKind::", stringify!($variant), "`] with its settings.")]
                #[serde(rename = $name)]
                $variant $(($settings))?,
            )*
        }

        impl MethodConfig {
            /// The method's name and kind.
            pub fn kind(&self) -> MethodKind {
                match self {
                    $(methods!(@pattern $variant $($settings)?) => MethodKind::$variant,)*
                }
            }
        }

        /// Every method's spec (its options, settings, capabilities: [`options`]), once, in
        /// [`MethodKind::ALL`] order; [`MethodKind::spec`] finds one.
        pub static METHODS: &[&options::MethodSpec] = &[$(&$spec),*];

        impl From<MethodKind> for MethodConfig {
            /// The method with its default settings.
            fn from(kind: MethodKind) -> MethodConfig {
                match kind {
                    $(MethodKind::$variant => methods!(@default $variant $($settings)?),)*
                }
            }
        }
    };
}

methods! {
    /// MinHash signatures, LSH banding, verification (Broder et al. 1998; MMDS ch. 3).
    #[default]
    MinHash = "minhash" (MinHashConfig) => minhash::SPEC,
    /// Super-shingles and mega-shingles: min-hashes in groups, each group hashed to one
    /// super-shingle; candidates share a mega-shingle (2 super-shingles) or a super-shingle
    /// (Broder 1997; Fetterly, Manasse & Najork 2003).
    SuperShingles = "supershingles" (SuperShinglesConfig) => super_shingles::SPEC,
    /// MOD-m sampling: shingle hashes ≡ 0 mod m; candidates share a sampled shingle (found by
    /// Broder's sort); resemblance and containment estimated from the samples (Broder 1997).
    ModM = "mod-m" (SampleConfig) => mod_m::SPEC,
    /// MIN-s sampling: the s smallest shingle hashes; candidates share a sampled shingle;
    /// resemblance estimated as |MIN_s(A ∪ B) ∩ MIN_s(A) ∩ MIN_s(B)| / s (Broder 1997).
    MinS = "min-s" (SampleConfig) => min_s::SPEC,
    /// Broder's collection algorithm: ⟨shingle, doc⟩ records sorted by shingle, pairs emitted per
    /// shingle and counted in bounded memory; estimate = count / sketch size (Broder, Glassman,
    /// Manasse & Zweig 1997).
    Broder = "broder" (SampleConfig) => broder::SPEC,
    /// SimHash: 64-bit fingerprints of weighted features, pairs within Hamming distance k found
    /// with Manku's permuted tables (Charikar 2002; Manku, Jain & Das Sarma 2007).
    SimHash = "simhash" (SimHashConfig) => simhash::SPEC,
    /// MinHash/LSH candidates kept only when their SimHash fingerprints are also within Hamming
    /// distance k; own decision: MinHash estimate ≥ threshold (Henzinger 2006: Broder's and
    /// Charikar's algorithms combined).
    Combined = "combined" (CombinedConfig) => combined::SPEC,
    /// I-Match: hash of the document's distinct terms of mid IDF (the lexicon, from the
    /// collection's statistics or `--lexicon`); candidates have equal signatures (Chowdhury,
    /// Frieder, Grossman & McCabe 2002).
    IMatch = "i-match" (IMatchSettings) => i_match::SPEC,
    /// I-Match with K extra randomized lexicons, each dropping a fraction p of the base lexicon:
    /// K + 1 signatures, a match on any (Kołcz, Chowdhury & Alspector 2004).
    IMatchRand = "i-match-rand" (IMatchSettings) => i_match::SPEC_RAND,
    /// Partitioned fingerprints: the document's terms split into L lists by hash, each list
    /// fingerprinted; candidates share at least k fingerprints (Pugh, US patent 6,658,423).
    Partitioned = "partitioned" (PartitionConfig) => partitioned::SPEC,
    /// TF*RIDF signature: hash of the 6 words of highest tf × residual IDF (Zelenkov &
    /// Segalovich 2007).
    TfRidf = "tf-ridf" (TfRidfSettings) => tf_ridf::SPEC,
    /// Long sentences: hash of the two longest sentences (Zelenkov & Segalovich 2007).
    LongSentences = "long-sentences" (LongSentenceConfig) => long_sentences::SPEC,
    /// Reference words: N words chosen from the collection, each with a relative-frequency
    /// threshold; signature = which words exceed it; candidates have equal signatures (or
    /// within a Hamming distance) (Ilyinsky, Kuzmin, Melkov & Segalovich 2002).
    RefWords = "refwords" (RefWordsSettings) => ref_words::SPEC,
    /// SpotSigs: spots (a stopword and the next content words) as a multiset; pairs with
    /// weighted Jaccard ≥ the threshold, found exactly with size partitions and an inverted index
    /// (Theobald, Siddharth & Paepcke 2008).
    SpotSigs = "spotsigs" (SpotSigsConfig) => spot_sigs::SPEC,
    /// Exact copies only: equal raw bytes or equal normalized text (128-bit fingerprints).
    Exact = "exact" => exact::SPEC,
}

impl fmt::Display for MethodKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A head document's position among the documents a method keeps (the heads of exact groups, in
/// input order): index into a method's per-head arrays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Slot(pub u32);

impl Slot {
    /// The slot as an index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// What the pipeline gives a method for one document: its text, its normalized tokens and its
/// shingle hashes (never empty).
///
/// The shingle hashes are in text order, a shingle that occurs twice twice: every method folds
/// them into a sketch that depends on neither (MinHash, the samples, super-shingles), and sorting
/// each document's set cost a tenth of the text path. Exact verification sorts the sets of the
/// documents it compares (see [`crate::store::ShingleStore`]); [`Shingler::shingles_into`] gives a
/// sorted set where one is needed.
#[derive(Debug, Clone, Copy)]
pub struct DocView<'a> {
    /// The document's text as read.
    pub text: &'a str,
    /// Its normalized text and tokens.
    pub norm: &'a NormalizedText,
    /// Its shingle hashes, in text order with repeats.
    pub shingles: &'a [u64],
}

/// A new head handed to [`Method::push_heads`]: its shingles and what [`Method::doc`] computed.
#[derive(Debug)]
pub struct Head<'a, D> {
    /// The head's shingle hashes, in text order with repeats (see [`DocView`]).
    pub shingles: &'a [u64],
    /// The method's per-document result.
    pub doc: D,
}

/// The settings of a run every method may read: fixed when the method is built.
#[derive(Debug, Clone)]
pub struct Context {
    /// Seed of every hash.
    pub seed: u64,
    /// Similarity threshold.
    pub threshold: f64,
    /// Resemblance or containment.
    pub measure: Measure,
    /// Exact verification or the method's own decision.
    pub verify: Verify,
    /// The run's shingles.
    pub shingle: ShingleKind,
    /// Where spill files go.
    pub spill_dir: Option<PathBuf>,
    /// Memory budget of external sorts.
    pub memory: usize,
    /// Most pairs a group of candidates is expanded to.
    pub max_pairs_per_group: u64,
}

impl Context {
    /// The context of a configuration.
    pub fn of(c: &DedupConfig) -> Context {
        Context {
            seed: c.seed,
            threshold: c.threshold,
            measure: c.measure,
            verify: c.verify,
            shingle: c.shingle,
            spill_dir: c.spill_dir.clone(),
            memory: c.memory,
            max_pairs_per_group: c.max_pairs_per_group,
        }
    }

    /// "jaccard ≥ t" or "containment ≥ t", for descriptions.
    pub fn measure_text(&self) -> String {
        match self.measure {
            Measure::Jaccard => format!("jaccard ≥ {}", self.threshold),
            Measure::Containment => format!("containment ≥ {}", self.threshold),
        }
    }

    /// "verify exact (jaccard ≥ t of words:5 shingles)", or `estimate` when verification is the
    /// method's own decision.
    pub fn verify_text(&self, estimate: &str) -> String {
        match self.verify {
            Verify::Exact => {
                format!("verify exact ({} of {} shingles)", self.measure_text(), self.shingle)
            }
            Verify::Estimate => format!("verify estimate{estimate}"),
        }
    }
}

/// Figures of candidate generation, for the summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct MethodStats {
    /// Broder's algorithm: its counters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub broder: Option<crate::candidates::sorted_pairs::BroderStats>,
    /// MOD-m: the Broder sort of the short documents' short parts
    /// ([`SampleParts`]), when some document has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub short_parts: Option<crate::candidates::sorted_pairs::BroderStats>,
    /// Documents whose sample was empty (MOD-m on very short documents): they cannot meet any
    /// other document.
    pub empty_samples: u64,
    /// MOD-m: documents too short for a MOD-m sample, sampled by their smallest shingle hashes
    /// instead (they meet other short documents only).
    pub short_samples: u64,
    /// SimHash: blocks and tables of the permuted tables.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub simhash_tables: Option<(usize, usize)>,
    /// The combined method: LSH candidates and those its SimHash filter dropped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub combined: Option<CombinedStats>,
    /// Lexical methods: documents without a signature (too few lexicon terms, too short).
    pub unsigned: u64,
    /// Lexical methods: terms in the lexicon (I-Match's base lexicon), in the statistics, or
    /// reference words chosen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lexicon_terms: Option<u64>,
    /// SpotSigs: what the index did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spotsigs: Option<crate::lexical::spotsigs::SpotStats>,
}

/// What candidate generation reports: LSH bucket figures (MinHash) and the method's own.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CandidateReport {
    /// Bucket figures (LSH banding; default for other methods).
    pub candidates: CandidateStats,
    /// The LSH bands and rows used (MinHash).
    pub lsh: Option<LshParams>,
    /// The method's own figures.
    pub method: MethodStats,
}

/// A near-duplicate detection method.
///
/// The pipeline calls, in this order: [`doc`](Method::doc) for every document with shingles (in
/// parallel), [`push_heads`](Method::push_heads) with the heads of each batch (in input order),
/// [`prepare`](Method::prepare) once when every document is in (collection statistics), then
/// [`candidates`](Method::candidates), [`estimate`](Method::estimate) and
/// [`accepts`](Method::accepts). Slots are the heads' positions in the order they were pushed.
pub trait Method: fmt::Debug + Send + Sync {
    /// What the method computes for one document, in parallel.
    type Doc: Send + Sync + Default;

    /// Per-document work (runs in parallel for every document with shingles, heads or not).
    fn doc(&self, doc: &DocView<'_>) -> Self::Doc;

    /// Keeps the heads of a batch, in slot order.
    fn push_heads(&mut self, heads: Vec<Head<'_, Self::Doc>>);

    /// The collection-statistics pass, once every document is in (default: nothing to do).
    fn prepare(&mut self) -> Result<(), Error> {
        Ok(())
    }

    /// Emits candidate pairs of slots `(a, b)` with `a < b`, each once.
    fn candidates(&self, emit: &mut dyn FnMut(Slot, Slot)) -> Result<CandidateReport, Error>;

    /// The method's own similarity estimate of two heads.
    fn estimate(&self, a: Slot, b: Slot) -> f64;

    /// Whether the method itself calls a pair with this estimate a duplicate (used when
    /// verification is `estimate`).
    fn accepts(&self, estimate: f64) -> bool;

    /// One line describing the method and its settings, for summaries.
    fn describe(&self) -> String;

    /// What candidate generation is called in progress messages.
    fn phase(&self) -> &'static str {
        "finding candidates"
    }

    /// Heads the method could not sign, by slot, with the reason (default: none).
    fn unsigned(&self) -> &[(Slot, String)] {
        &[]
    }

    /// SimHash: the Hamming distance of two heads' fingerprints (default: none).
    fn hamming(&self, _a: Slot, _b: Slot) -> Option<u32> {
        None
    }

    /// Size of a head's sample, for the direction of an estimated containment (default 0).
    fn sample_len(&self, _slot: Slot) -> usize {
        0
    }

    /// Whether the method's candidates reach pairs of low resemblance, as containment needs
    /// (default false).
    fn reaches_containment(&self) -> bool {
        false
    }

    /// Whether the method compares documents at all (false: only the exact stage runs, and no
    /// shingle sets are stored for verification).
    fn compares(&self) -> bool {
        true
    }

    /// The shingle sample of the sampling methods (default: none).
    fn sample(&self) -> Option<crate::config::Sample> {
        None
    }
}

/// The method's own estimate of a pair of documents and its decision, computed by
/// [`estimate_pairs`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairEstimate {
    /// The method's similarity estimate ([`Method::estimate`]).
    pub estimate: f64,
    /// Whether the method calls the pair a duplicate ([`Method::accepts`]).
    pub accepted: bool,
    /// With containment, which document the estimate reads as contained in the other (the one
    /// of the smaller sample, as verification reads it).
    pub contained: Option<crate::verify::Contained>,
}

/// The method's own estimates of pairs of documents, outside the pipeline (the Ray job's
/// estimate verification): `texts` become the heads `0..n` in this order (each must have
/// shingles; a pair `(a, b)` with `a` < `b` reads `a` as the earlier document), with the
/// collection `statistics` of a method that has a [`StatisticsPass`]. The estimates of
/// [`Method::estimate`] after the pipeline's own steps, which depend on the two documents
/// only (and the statistics); reference words (a selection over the collection) are refused.
pub fn estimate_pairs(
    c: &DedupConfig,
    statistics: Option<&PartialStatistics>,
    texts: &[&str],
    pairs: &[(u32, u32)],
) -> Result<Vec<PairEstimate>, Error> {
    if matches!(c.method, MethodConfig::RefWords(_)) {
        return Err(crate::error::ConfigError::RefWords(0).into());
    }
    let mut engine = c.method.build_with(c, statistics)?;
    let shingler = Shingler::new(c.shingle, c.seed).with_segmentation(c.segmentation);
    let docs: Vec<Document> =
        texts.iter().enumerate().map(|(i, t)| Document::from_text(i.to_string(), *t)).collect();
    let processed = engine.process(&shingler, &docs.iter().collect::<Vec<_>>());
    let heads: Vec<usize> = (0..docs.len()).collect();
    engine.push_heads(&heads, &processed);
    engine.method_mut().prepare()?;
    let m = engine.method();
    let containment = c.measure == Measure::Containment;
    Ok(pairs
        .iter()
        .map(|&(a, b)| {
            let (a, b) = (Slot(a), Slot(b));
            let estimate = m.estimate(a, b);
            let contained = containment.then(|| {
                if m.sample_len(a) <= m.sample_len(b) {
                    crate::verify::Contained::AInB
                } else {
                    crate::verify::Contained::BInA
                }
            });
            PairEstimate { estimate, accepted: m.accepts(estimate), contained }
        })
        .collect())
}

impl MethodConfig {
    /// Builds the method with the run's settings, validating its own.
    pub(crate) fn build(&self, c: &DedupConfig) -> Result<Box<dyn Engine>, Error> {
        self.build_with(c, None)
    }

    /// [`MethodConfig::build`], a method with a [`StatisticsPass`] signing with `statistics`
    /// when given (as [`DocKeyer::with_statistics`] does).
    fn build_with(
        &self,
        c: &DedupConfig,
        statistics: Option<&PartialStatistics>,
    ) -> Result<Box<dyn Engine>, Error> {
        let cx = Context::of(c);
        if let Some(s) = statistics.filter(|_| StatisticsPass::new(c).is_some()) {
            let lexicon = Some(s.lexicon(c.seed));
            let engine: Box<dyn Engine> = match self {
                MethodConfig::IMatch(m) | MethodConfig::IMatchRand(m) => {
                    let randomized = matches!(self, MethodConfig::IMatchRand(_));
                    let m = crate::config::IMatchSettings { lexicon, ..m.clone() };
                    Runner::boxed(IMatch::new(&m, randomized, cx)?)
                }
                MethodConfig::TfRidf(m) => {
                    let m = crate::config::TfRidfSettings { lexicon, ..m.clone() };
                    Runner::boxed(TfRidf::new(&m, cx)?)
                }
                MethodConfig::SimHash(m) => {
                    Runner::boxed(SimHash::new(*m, cx)?.with_doc_freq(s.doc_freq()))
                }
                MethodConfig::Combined(m) => {
                    Runner::boxed(Combined::new(*m, cx)?.with_doc_freq(s.doc_freq()))
                }
                _ => return self.build_with(c, None),
            };
            return Ok(engine);
        }
        let engine: Box<dyn Engine> = match self {
            MethodConfig::MinHash(m) => Runner::boxed(MinHash::new(*m, cx)?),
            MethodConfig::SuperShingles(m) => Runner::boxed(SuperShingles::new(*m, cx)?),
            MethodConfig::ModM(m) => Runner::boxed(ModM::new(*m, cx)?),
            MethodConfig::MinS(m) => Runner::boxed(MinS::new(*m, cx)?),
            MethodConfig::Broder(m) => Runner::boxed(Broder::new(*m, cx)?),
            MethodConfig::SimHash(m) => Runner::boxed(SimHash::new(*m, cx)?),
            MethodConfig::Combined(m) => Runner::boxed(Combined::new(*m, cx)?),
            MethodConfig::IMatch(m) => Runner::boxed(IMatch::new(m, false, cx)?),
            MethodConfig::IMatchRand(m) => Runner::boxed(IMatch::new(m, true, cx)?),
            MethodConfig::Partitioned(m) => Runner::boxed(Partitioned::new(*m, cx)?),
            MethodConfig::TfRidf(m) => Runner::boxed(TfRidf::new(m, cx)?),
            MethodConfig::LongSentences(m) => Runner::boxed(LongSentences::new(*m, cx)?),
            MethodConfig::RefWords(m) => Runner::boxed(RefWords::new(m, cx)?),
            MethodConfig::SpotSigs(m) => Runner::boxed(SpotSigs::new(*m, cx)?),
            MethodConfig::Exact => Runner::boxed(Exact),
        };
        if c.measure == Measure::Containment && !engine.method().reaches_containment() {
            return Err(crate::error::ConfigError::Containment {
                method: self.kind(),
                sample: engine.method().sample(),
            }
            .into());
        }
        Ok(engine)
    }
}

/// The common per-document results of a batch.
#[derive(Debug)]
pub(crate) struct Processed {
    pub fingerprint: u128,
    pub shingles: Vec<u64>,
    pub empty_text: bool,
}

#[derive(Default)]
struct Scratch {
    norm: NormalizedText,
    shingle: ShingleScratch,
}

/// A method behind a trait object: what the pipeline holds.
pub(crate) trait Engine: fmt::Debug + Send + Sync {
    /// Normalizes and shingles the documents of a batch that need it (byte copies do not), in
    /// parallel, computing the method's per-document results in the same pass (kept until
    /// [`Engine::push_heads`]).
    fn process(&mut self, shingler: &Shingler, batch: &[&Document]) -> Vec<Processed>;
    /// Hands the heads of the last processed batch (indices into it) to the method.
    fn push_heads(&mut self, heads: &[usize], processed: &[Processed]);
    /// Takes back a processed batch once it has been used, to reuse its shingle buffers in the
    /// next [`Engine::process`].
    fn recycle(&mut self, processed: Vec<Processed>);
    /// The method.
    fn method(&self) -> &dyn MethodObject;
    /// The method, mutable.
    fn method_mut(&mut self) -> &mut dyn MethodObject;
}

/// The object-safe part of [`Method`] (everything but the per-document type).
pub(crate) trait MethodObject: fmt::Debug + Send + Sync {
    fn prepare(&mut self) -> Result<(), Error>;
    fn candidates(&self, emit: &mut dyn FnMut(Slot, Slot)) -> Result<CandidateReport, Error>;
    fn estimate(&self, a: Slot, b: Slot) -> f64;
    fn accepts(&self, estimate: f64) -> bool;
    fn describe(&self) -> String;
    fn phase(&self) -> &'static str;
    fn unsigned(&self) -> &[(Slot, String)];
    fn hamming(&self, a: Slot, b: Slot) -> Option<u32>;
    fn sample_len(&self, slot: Slot) -> usize;
    fn reaches_containment(&self) -> bool;
    fn compares(&self) -> bool;
    fn sample(&self) -> Option<crate::config::Sample>;
}

impl<M: Method> MethodObject for M {
    fn prepare(&mut self) -> Result<(), Error> {
        Method::prepare(self)
    }
    fn candidates(&self, emit: &mut dyn FnMut(Slot, Slot)) -> Result<CandidateReport, Error> {
        Method::candidates(self, emit)
    }
    fn estimate(&self, a: Slot, b: Slot) -> f64 {
        Method::estimate(self, a, b)
    }
    fn accepts(&self, estimate: f64) -> bool {
        Method::accepts(self, estimate)
    }
    fn describe(&self) -> String {
        Method::describe(self)
    }
    fn phase(&self) -> &'static str {
        Method::phase(self)
    }
    fn unsigned(&self) -> &[(Slot, String)] {
        Method::unsigned(self)
    }
    fn hamming(&self, a: Slot, b: Slot) -> Option<u32> {
        Method::hamming(self, a, b)
    }
    fn sample_len(&self, slot: Slot) -> usize {
        Method::sample_len(self, slot)
    }
    fn reaches_containment(&self) -> bool {
        Method::reaches_containment(self)
    }
    fn compares(&self) -> bool {
        Method::compares(self)
    }
    fn sample(&self) -> Option<crate::config::Sample> {
        Method::sample(self)
    }
}

/// Largest shingle buffer (in hashes) [`Runner`] keeps for the next batch: a few huge documents
/// must not hold their memory for the rest of the run.
const SPARE_MAX: usize = 1 << 16;

/// Capacity (in hashes) a kept buffer may have whatever the size of the set it last held.
const SPARE_MIN: usize = 256;

/// A method with its per-document results of the batch in progress.
struct Runner<M: Method> {
    method: M,
    pending: Vec<M::Doc>,
    /// Shingle buffers of the last batch, emptied, for the next one. A batch's sets are freed
    /// together once they are stored, and the allocator gave that memory back to the system,
    /// so each batch faulted its sets' pages in anew (a third of the run's page faults).
    spare: Vec<Vec<u64>>,
}

impl<M: Method + 'static> Runner<M> {
    fn boxed(method: M) -> Box<dyn Engine> {
        Box::new(Runner { method, pending: Vec::new(), spare: Vec::new() })
    }
}

impl<M: Method> fmt::Debug for Runner<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runner").field("method", &self.method).finish_non_exhaustive()
    }
}

impl<M: Method> Engine for Runner<M> {
    fn process(&mut self, shingler: &Shingler, batch: &[&Document]) -> Vec<Processed> {
        let buffers: Vec<Vec<u64>> =
            batch.iter().map(|_| self.spare.pop().unwrap_or_default()).collect();
        self.spare.clear();
        let method = &self.method;
        let (processed, docs): (Vec<Processed>, Vec<M::Doc>) = batch
            .par_iter()
            .zip(buffers)
            .map_init(Scratch::default, |s, (doc, mut shingles)| {
                shingler.normalize_into(&doc.text, &mut s.norm);
                shingler.shingle_hashes_into(&s.norm, &mut s.shingle, &mut shingles);
                let features = if shingles.is_empty() {
                    M::Doc::default()
                } else {
                    method.doc(&DocView { text: &doc.text, norm: &s.norm, shingles: &shingles })
                };
                let processed = Processed {
                    fingerprint: text_fingerprint(&s.norm.text),
                    shingles,
                    empty_text: doc.text.trim().is_empty(),
                };
                (processed, features)
            })
            .unzip();
        self.pending = docs;
        processed
    }

    fn push_heads(&mut self, heads: &[usize], processed: &[Processed]) {
        let heads = heads
            .iter()
            .map(|&i| Head {
                shingles: &processed[i].shingles[..],
                doc: std::mem::take(&mut self.pending[i]),
            })
            .collect();
        self.method.push_heads(heads);
        self.pending.clear();
    }

    fn recycle(&mut self, processed: Vec<Processed>) {
        // A buffer much larger than the set it last held is dropped, so that the buffers do not
        // grow, batch after batch, to the largest sets ever seen at their position.
        self.spare.extend(
            processed.into_iter().map(|p| p.shingles).filter(|s| {
                s.capacity() <= SPARE_MAX && s.capacity() <= 2 * s.len().max(SPARE_MIN)
            }),
        );
    }

    fn method(&self) -> &dyn MethodObject {
        &self.method
    }

    fn method_mut(&mut self) -> &mut dyn MethodObject {
        &mut self.method
    }
}

/// Item `slot` of lists stored one after the other in `values`, list i ending at `ends[i]`.
pub(crate) fn flat_slice<'a>(values: &'a [u64], ends: &[usize], slot: Slot) -> &'a [u64] {
    let end = ends[slot.index()];
    let start = if slot.0 == 0 { 0 } else { ends[slot.index() - 1] };
    &values[start..end]
}
