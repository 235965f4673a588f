//! lookalike: find duplicate and near-duplicate documents in large collections.
//!
//! The crate is the pipeline of DESIGN.md as one module per stage (see `ARCHITECTURE.md`):
//! [`normalize`] (NFKC, case and punctuation folding, tokens, CJK characters as tokens) →
//! [`features`] (word or character shingles, hashed once to 64 bits) → [`exact`] (fingerprints
//! of raw bytes and normalized text) → [`sketch`] (MinHash) → [`candidates`] (LSH banding by
//! sorting) → [`verify`] (exact or estimated Jaccard) → [`cluster`] (union-find). [`pipeline`]
//! drives them: documents in, every document's fate, the verified pairs and the clusters out.
//! Readers for files, HTML and JSONL live in the `lookalike-io` crate; the `lookalike` binary in
//! `lookalike-cli`.
//!
//! ```
//! use lookalike::{Dedup, Document};
//!
//! let dedup = Dedup::builder().threshold(0.5).build()?;
//! let mut run = dedup.start()?;
//! run.add(vec![
//!     Document::from_text("x", "near duplicate detection finds documents that are almost the same"),
//!     Document::from_text("y", "Near-duplicate detection finds documents that are almost the same."),
//! ])?;
//! let outcome = run.finish()?;
//! assert_eq!(outcome.clusters.len(), 1);
//! # Ok::<(), lookalike::Error>(())
//! ```
#![warn(missing_docs)]

pub mod broder;
pub mod candidates;
pub mod cluster;
pub mod collection;
pub mod curve;
pub mod document;
pub mod engine;
pub mod exact;
pub mod features;
pub mod imatch;
pub mod lang;
pub mod lexsig;
pub mod method;
pub mod normalize;
pub mod partitioned;
pub mod pipeline;
pub mod refwords;
pub mod sampling;
pub mod simhash;
pub mod sketch;
pub mod spill;
pub mod spotsigs;
pub mod supershingles;
#[cfg(test)]
mod testutil;
pub mod verify;

pub use candidates::{CandidateStats, ErrorWeights, LshParams};
pub use cluster::Keep;
pub use document::Document;
pub use engine::{Sample, SimHashConfig};
pub use features::{ShingleKind, Shingler};
pub use method::Method;
pub use normalize::Segmentation;
pub use pipeline::{
    Cluster, ClusterMember, Contained, Dedup, DedupBuilder, DedupConfig, DedupOutcome, DedupRun,
    DedupStats, DocStatus, Error, MatchKind, Measure, ScoredPair,
};
pub use sketch::{MinHashScheme, MinHasher};
pub use verify::Verify;
