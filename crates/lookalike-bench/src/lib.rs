//! Benchmarks for lookalike: benchmark corpora with planted near-duplicates, the exact truth
//! (every pair above a Jaccard threshold), quality scores, and the speed baseline.
//!
//! The `lookalike-bench` binary runs these as subcommands (`gen-corpus`, `truth`, `score`,
//! `baseline`, `extraction-bench`); `bench/e2e.sh` at the repository root chains them around
//! `lookalike dedup`.
//!
//! - [`pool`] and [`extract`]: real text (Debian's multilingual manuals) split into paragraphs.
//! - [`corpus`] and [`edits`]: base documents and realistic planted variants, reproducible from a
//!   seed ([`rng`]).
//! - [`allpairs`] and [`truth`]: an exact, prefix-filtered set-similarity self-join.
//! - [`score`]: precision and recall of a run's pairs, with exact-duplicate groups canonicalized.
//! - What `lookalike eval` and `lookalike compare` measure (pairs and clusters files read as one
//!   relation, pair precision/recall/F1, adjusted Rand index, the pool method) is the published
//!   crate `lookalike-metrics`; [`score`] builds on its relations.
//! - [`baseline`]: read + tokenize throughput, the floor every method is measured against.
//! - [`extraction`]: main-content extraction quality and speed on the article-extraction
//!   benchmark, with the benchmark's own metric.
//! - [`files`]: atomic output files and batched JSONL reading.
//! - [`homework`]: a collection in the docreader format of a course assignment (gzip files of
//!   length-prefixed protobuf records) from real pages, with planted near-duplicates.
//!
//! Every random choice comes from [`rng`], seeded from the command line, and every parallel step
//! writes its results in a fixed order: the same arguments give byte-identical files whatever
//! the thread count.
//!
//! # Example
//!
//! The exact truth on three tiny documents, shingled as `lookalike dedup` shingles them:
//!
//! ```
//! use lookalike::shingles::{ShingleKind, Shingler};
//! use lookalike_bench::allpairs::{TokenSets, all_pairs};
//!
//! let docs = [
//!     "the quick brown fox jumps over the lazy dog",
//!     "The quick brown fox jumps over the lazy dog!",
//!     "the quick brown fox jumps over the lazy cat",
//! ];
//! let shingler = Shingler::new(ShingleKind::Words(3), 1);
//! let (mut offsets, mut hashes) = (vec![0], Vec::new());
//! for d in docs {
//!     hashes.extend(shingler.shingle_set(d));
//!     offsets.push(hashes.len());
//! }
//! let pairs = all_pairs(&TokenSets::from_hash_sets(offsets, hashes), 0.7);
//! let found: Vec<(u32, u32, f64)> = pairs.iter().map(|p| (p.a, p.b, p.jaccard())).collect();
//! // Documents 0 and 1 are equal after normalization; 2 differs in its last shingle (6 of 8).
//! assert_eq!(found, vec![(0, 1, 1.0), (0, 2, 0.75), (1, 2, 0.75)]);
//! ```
#![warn(missing_docs)]

pub mod allpairs;
pub mod baseline;
pub mod corpus;
pub mod edits;
pub mod extract;
pub mod extraction;
pub mod files;
pub mod homework;
pub mod index_storage;
pub mod langbench;
pub mod load;
pub mod plant;
pub mod pool;
pub mod rng;
pub mod score;
pub mod stages;
pub mod trafilatura_baseline;
pub mod truth;
pub mod warcpack;
