//! Evaluation for lookalike: benchmark corpora with planted near-duplicates, the exact truth
//! (every pair above a Jaccard threshold), quality scores, and the speed baseline.
//!
//! The `lookalike-eval` binary runs these as subcommands (`gen-corpus`, `truth`, `score`,
//! `baseline`); `bench/e2e.sh` at the repository root chains them around `lookalike dedup`.
//!
//! - [`pool`] and [`extract`]: real text (Debian's multilingual manuals) split into paragraphs.
//! - [`corpus`] and [`edits`]: base documents and realistic planted variants, reproducible from a
//!   seed ([`rng`]).
//! - [`allpairs`] and [`truth`]: an exact, prefix-filtered set-similarity self-join.
//! - [`score`]: precision and recall of a run's pairs, with exact-duplicate groups canonicalized.
//! - [`baseline`]: read + tokenize throughput, the floor every method is measured against.
#![warn(missing_docs)]

pub mod allpairs;
pub mod baseline;
pub mod corpus;
pub mod edits;
pub mod extract;
pub mod files;
pub mod pool;
pub mod rng;
pub mod score;
pub mod truth;
