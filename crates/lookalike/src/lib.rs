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

pub mod candidates;
pub mod cluster;
pub mod document;
pub mod engine;
pub mod fingerprint;
pub mod lexical;
pub mod method;
pub mod pipeline;
pub mod shingles;
pub mod sketch;
pub mod store;
#[cfg(test)]
mod testutil;
pub mod text;
pub mod verify;

pub use candidates::lsh::{CandidateStats, ErrorWeights, LshParams};
pub use cluster::Keep;
pub use document::Document;
pub use engine::{Sample, SimHashConfig};
pub use method::Method;
pub use pipeline::{
    Cluster, ClusterMember, Contained, Dedup, DedupBuilder, DedupConfig, DedupOutcome, DedupRun,
    DedupStats, DocStatus, Error, MatchKind, Measure, ScoredPair,
};
pub use shingles::{ShingleKind, Shingler};
pub use sketch::minhash::{MinHashScheme, MinHasher};
pub use text::normalize::Segmentation;
pub use verify::Verify;
