//! The whole pipeline. Contract: "give me documents in batches, in input order; at the end I push
//! every verified pair, every cluster and every document's fate into your sink".
//!
//! ```text
//! add(batch) ──► (parallel, per document) normalize ─► shingles ─► fingerprint ─► Method::doc
//!            └─► (sequential, in order)   exact-duplicate lookup; heads → Method::push_heads;
//!                                         shingle set → shingle store (exact verification only)
//! finish     ──► Method::prepare ─► Method::candidates ─► verification (verification.rs)
//!                ─► tail.rs: pairs listed, groups clustered, representatives, members scored, fates
//!                ─► sink: pairs, clusters, fates
//! ```
//!
//! The last steps ([`tail`]) are public: the Ray job's clustering task runs them over the edges
//! it is streamed, so that it decides as a run does.
//!
//! Exact duplicates (same normalized text) are found first with a fingerprint table and never
//! reach the method: only the first document of each exact group (its *head*) is sketched and
//! verified. Everything is deterministic: batches are processed in order, parallel maps preserve
//! order, and every sort is over a total order, so the thread count does not change the output.

mod outcome;
mod run;
mod sink;
pub mod tail;
mod verification;
pub use verification::exact_similarity;

pub use outcome::{
    Cluster, ClusterMember, Contained, DedupOutcome, DedupStats, DocStatus, MatchKind, RunReport,
    SAMPLE_BAND, SAMPLE_BANDS_BELOW, SAMPLE_PER_BAND, ScoredPair, SkipReason, UnknownSkipCode,
    VerificationStats, list_exact_group,
};
pub use run::DedupRun;
pub use sink::{Collect, Sink};
pub use verification::VerifyProgress;

use std::path::PathBuf;

use crate::cluster::{ClusterMode, Keep};
use crate::config::{DedupConfig, Measure, MethodConfig};
use crate::error::{ConfigError, Error};
use crate::shingles::{ShingleKind, Shingler};
use crate::text::normalize::Segmentation;
use crate::verify::Verify;

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
        /// Sets the shingle kind.
        shingle: ShingleKind,
        /// Sets the segmentation of space-less scripts.
        segmentation: Segmentation,
        /// Sets the seed.
        seed: u64,
        /// Sets the similarity threshold.
        threshold: f64,
        /// Sets the verification mode.
        verify: Verify,
        /// Sets the representative choice.
        keep: Keep,
        /// Sets how verified pairs become clusters.
        cluster: ClusterMode,
        /// Sets the measure (resemblance or containment).
        measure: Measure,
        /// Sets the spill directory.
        spill_dir: Option<PathBuf>,
        /// Sets the memory budget of the shingle sets before they spill to disk.
        memory: usize,
        /// Sets the most pairs one group (capped LSH bucket, exact-copy group) is expanded to.
        max_pairs_per_group: u64,
    }

    /// Sets the method and its settings: a [`MethodConfig`], or a [`crate::MethodKind`] for
    /// its defaults.
    pub fn method(mut self, method: impl Into<MethodConfig>) -> Self {
        self.config.method = method.into();
        self
    }

    /// Validates the settings.
    pub fn build(self) -> Result<Dedup, Error> {
        Dedup::new(self.config)
    }
}

/// A configured near-duplicate detector. Cheap to share; each run is a [`DedupRun`].
///
/// ```
/// use lookalike::{Dedup, DocId, DocStatus, Document};
///
/// let dedup = Dedup::builder().threshold(0.7).build().unwrap();
/// let mut run = dedup.start().unwrap();
/// run.add(vec![
///     Document::from_text("a", "the quick brown fox jumps over the lazy dog again and again"),
///     Document::from_text("b", "The quick brown fox jumps over the lazy dog again and again!"),
///     Document::from_text("c", "a completely different text about something else entirely"),
/// ]).unwrap();
/// let outcome = run.finish().unwrap();
/// assert!(matches!(outcome.statuses[1], DocStatus::Duplicate { of: DocId(0), .. }));
/// assert_eq!(outcome.statuses[2], DocStatus::Kept);
/// ```
#[derive(Debug, Clone)]
pub struct Dedup {
    config: DedupConfig,
    shingler: Shingler,
    description: String,
}

impl Dedup {
    /// A builder with the default settings.
    pub fn builder() -> DedupBuilder {
        DedupBuilder::default()
    }

    /// A detector with the given settings, validated.
    pub fn new(config: DedupConfig) -> Result<Dedup, Error> {
        if !(config.threshold > 0.0 && config.threshold <= 1.0) {
            return Err(ConfigError::Threshold(config.threshold).into());
        }
        // Building the method validates its own settings.
        let description = config.method.build(&config)?.method().describe();
        Ok(Dedup {
            shingler: Shingler::new(config.shingle, config.seed)
                .with_segmentation(config.segmentation),
            description,
            config,
        })
    }

    /// The same detector with its temporary files in `dir`. Nothing else changes, so nothing
    /// is validated (nor the method built) again: a caller may validate the settings before it
    /// makes the folder.
    pub fn with_spill_dir(mut self, dir: Option<PathBuf>) -> Dedup {
        self.config.spill_dir = dir;
        self
    }

    /// The settings.
    pub fn config(&self) -> &DedupConfig {
        &self.config
    }

    /// The shingler in use.
    pub fn shingler(&self) -> &Shingler {
        &self.shingler
    }

    /// One line describing the method and its settings, for summaries.
    pub fn describe(&self) -> String {
        self.description.clone()
    }

    /// Starts a run (creates the shingle store when verification is exact).
    pub fn start(&self) -> Result<DedupRun<'_>, Error> {
        DedupRun::new(self)
    }
}
