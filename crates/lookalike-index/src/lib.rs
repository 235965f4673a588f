//! lookalike-index: a persistent, incremental near-duplicate index. "Have I seen this page?"
//!
//! A crawler, or anyone deduplicating today's crawl against last month's, asks one question per
//! document: is it a near duplicate of something already kept, and of what? [`Index`] answers it
//! with the core library's own normalization, shingling, signatures and exact verification
//! ([`sketch`]), over tables kept in an embedded transactional store ([`storage`]: redb behind a
//! small trait):
//!
//! - settings frozen at creation ([`IndexSettings`]: method, threshold, shingles, MinHash values
//!   and bands, seed, SimHash distance, partitions, and a fingerprint of the normalizer); opening
//!   with other settings is refused with a message naming each difference, and an index of
//!   another format version with a message saying what to do;
//! - band keys → documents, each document's signature, its text (zstd; exact verification
//!   re-shingles a candidate's text, `export` and `verify` re-run it), the caller's ids ↔
//!   internal numbers (format 1 indexes also store each head's sorted shingle set, and keep
//!   doing so: see [`FORMAT_VERSION`]);
//! - one transaction per batch (group commit), fsynced by default, or [`Durability::Fast`];
//! - the same answers as `lookalike dedup` over the whole collection, however it is cut into
//!   batches (see [`index`] for how, and what re-adding an id does).
//!
//! ```
//! use lookalike::{DedupConfig, Document};
//! use lookalike_index::{Fate, Index, IndexSettings};
//!
//! let dir = tempfile::tempdir()?;
//! let settings = IndexSettings::from_config(&DedupConfig { threshold: 0.5, ..DedupConfig::default() })?;
//! let index = Index::create(dir.path(), &settings)?;
//! index.add(&[Document::from_text("a", "near duplicate detection finds documents that are almost the same")])?;
//! let answer = index.query(&[Document::from_text(
//!     "b",
//!     "Near-duplicate detection finds documents that are almost the same!",
//! )])?;
//! assert_eq!(answer[0].matches[0].id, "a");
//! assert!(matches!(&answer[0].fate, Fate::Duplicate { of, .. } if of == "a"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

pub mod codec;
pub mod error;
pub mod index;
pub mod settings;
pub mod sketch;
pub mod storage;

pub use error::{Error, Result};
pub use index::{
    Checked, ExportError, Fate, Index, IndexStats, Match, TemplateFigures, VerifyReport,
};
pub use settings::{FORMAT_PLAIN, FORMAT_VERSION, IndexSettings};
pub use storage::{Durability, RedbStorage, Storage, Table};
