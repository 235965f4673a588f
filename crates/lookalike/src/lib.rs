//! lookalike: find duplicate and near-duplicate documents in large collections.
//!
//! The crate is the deduplication pipeline, one module (or folder) per stage, in the order a
//! document meets them (the repository's `ARCHITECTURE.md` is the map):
//!
//! - [`text`]: normalization (NFKC, case and punctuation folding, tokens; CJK characters or
//!   dictionary words as tokens) and language detection;
//! - [`shingles`]: word or character shingles, hashed once to 64 bits;
//! - [`fingerprint`]: 128-bit fingerprints of raw bytes and normalized text (exact copies);
//! - [`sketch`]: MinHash, super-shingles, MOD-m / MIN-s samples, SimHash;
//! - [`lexical`]: collection statistics and the lexical signatures (I-Match, partitioned
//!   fingerprints, TF*RIDF, long sentences, reference words, SpotSigs);
//! - [`candidates`]: LSH banding, shared keys, Broder's sorted pairs, Hamming tables;
//! - [`verify`]: exact Jaccard or containment of shingle sets; [`store`]: the shingle sets,
//!   spilled to disk beyond a memory budget;
//! - [`cluster`]: the verified pairs as clusters ([`ClusterMode`]: connected components,
//!   centers, cliques, refined centers), each with the representative [`Keep`] picks;
//! - [`method`]: the [`Method`] trait and the 15 methods, one file each, built from a
//!   [`MethodConfig`];
//! - [`pipeline`]: [`Dedup`] and [`DedupRun`], documents in, results pushed into a [`Sink`].
//!
//! [`config`] holds the one configuration type ([`DedupConfig`]) shared by the CLI, Python and the
//! index; [`error`] the typed errors. Readers for files, HTML, WARC, JSONL and Parquet live in the
//! `lookalike-io` crate; the `lookalike` binary in `lookalike-cli`.
//!
//! ```
//! use lookalike::{Dedup, Document, MethodKind};
//!
//! let dedup = Dedup::builder().method(MethodKind::MinHash).threshold(0.5).build()?;
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

pub mod boilerplate;
pub mod candidates;
pub mod cluster;
pub mod config;
pub mod curve;
pub mod document;
pub mod error;
pub mod fingerprint;
pub mod lexical;
pub mod method;
pub mod paragraphs;
pub mod pipeline;
pub mod shingles;
pub mod sketch;
pub mod store;
#[cfg(test)]
mod testutil;
pub mod text;
pub mod verify;

pub use candidates::lsh::{CandidateStats, ErrorWeights, LshParams};
pub use cluster::{ClusterMode, Keep};
pub use config::{
    CombinedConfig, DedupConfig, IMatchSettings, Measure, MethodConfig, MinHashConfig,
    RefWordsSettings, Sample, SampleConfig, SimHashConfig, SpotSigsConfig, SuperShinglesConfig,
    TfRidfSettings,
};
pub use document::{DocId, Document};
pub use error::{ConfigError, Error};
pub use method::{Method, MethodKind, MethodStats, Slot};
pub use pipeline::{
    Cluster, ClusterMember, Collect, Contained, Dedup, DedupBuilder, DedupOutcome, DedupRun,
    DedupStats, DocStatus, MatchKind, RunReport, ScoredPair, Sink, SkipReason, UnknownSkipCode,
    VerificationStats, VerifyProgress,
};
pub use shingles::{ShingleKind, Shingler};
pub use sketch::minhash::{MinHashScheme, MinHasher};
pub use text::normalize::Segmentation;
pub use verify::Verify;
