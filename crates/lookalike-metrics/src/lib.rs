//! Quality measures for near-duplicate detection: what `lookalike eval` and `lookalike compare`
//! measure.
//!
//! Results and gold standards come as pairs files (TSV `id1<TAB>id2<TAB>value`, the value a
//! similarity or a label) or clusters files (JSONL, one group per line). Both are read into one
//! form, a [`Relation`] over interned ids ([`relation`]), so that every measure works on either:
//!
//! - [`scores`]: pair precision, recall and F1 ([`pair_score`]), with exact-duplicate groups
//!   canonicalized for recall (`lookalike dedup` writes an exact group as pairs from its first
//!   document only); the adjusted Rand index of two clusterings ([`relation_ari`]); cluster-size
//!   statistics ([`ClusterStats`]); the overlap of several runs' pairs ([`overlaps`]).
//! - [`gold`]: a gold standard (labels, similarities at a threshold, or clusters) and results
//!   files read into relations, with what they held.
//! - [`judge`], [`texts`] and [`pool`]: the pool method (Zelenkov & Segalovich 2007) for when
//!   there is no gold standard: the union of several runs' pairs, each judged by comparing the
//!   two texts (shingle Jaccard or character resemblance), and each run scored against it.
//! - [`report`] and [`compare`]: the reports of `lookalike eval` and `lookalike compare`, as
//!   JSON (every report is a `serde::Serialize` value whose fields come out in a fixed order) and
//!   as plain or markdown tables.
//!
//! Reading never prints: errors are [`Error`]s naming the file and line, and the unreadable
//! parts of a corpus are handed to a callback.
//!
//! # Example
//!
//! A run's pairs scored against a gold clustering:
//!
//! ```
//! use lookalike_metrics::relation::Ids;
//! use lookalike_metrics::{pair_score, read_gold, read_results, relation_ari};
//!
//! let dir = tempfile::tempdir()?;
//! let gold = dir.path().join("gold.jsonl");
//! std::fs::write(&gold, "{\"ids\": [\"a\", \"b\", \"c\"]}\n{\"ids\": [\"d\", \"e\"]}\n")?;
//! // As `lookalike dedup --pairs` writes them: a-b and a-c are exact copies, d-f a near pair.
//! let run = dir.path().join("pairs.tsv");
//! std::fs::write(&run, "a\tb\t1.000000\na\tc\t1.000000\nd\tf\t0.850000\n")?;
//!
//! let mut ids = Ids::default();
//! let gold = read_gold(&gold, 0.8, &mut ids)?;
//! let found = read_results(&run, &mut ids)?;
//! let score = pair_score(&found.relation, &gold.relation);
//! // Two of the three pairs written are gold pairs; a-b, a-c and b-c (through the exact group)
//! // are three of the four gold pairs.
//! assert_eq!((score.precision, score.recall), (Some(2.0 / 3.0), Some(0.75)));
//! let ari = relation_ari(&found.relation, &gold.relation, None);
//! assert_eq!(ari.items, 6);
//! assert!(ari.value > 0.5 && ari.value < 1.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

pub mod compare;
mod error;
pub mod gold;
pub mod judge;
pub mod pool;
pub mod relation;
pub mod report;
pub mod scores;
#[cfg(test)]
mod test_rng;
pub mod texts;

pub use error::Error;
pub use gold::{Found, Gold, GoldInfo, found_pairs, read_gold, read_results, read_run_pairs};
pub use judge::{Judge, Judgement, MAX_POOL_RUNS, PairPool, PoolReport};
pub use pool::{JudgedPool, PoolJson, render_pool};
pub use relation::{Ids, Relation};
pub use report::{EvalReport, EvalRow};
pub use scores::{ClusterStats, Overlap, PairScore, overlaps, pair_score, relation_ari};
pub use texts::load_texts;
