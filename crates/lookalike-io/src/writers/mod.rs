//! The output formats of `lookalike dedup` as [`lookalike::Sink`]s, one file per output. Contract:
//! "push me a run's pairs, clusters and document fates; I write them as TSV or JSON Lines as they
//! come".
//!
//! - [`PairsTsv`] (`pairs.rs`): `id1<TAB>id2<TAB>similarity` per verified pair (the output the
//!   course assignment of `formats/docreader/` asks for; containment pairs contained-first; SimHash
//!   adds the Hamming distance and the cosine estimate);
//! - [`ClustersJsonl`] (`clusters.rs`): one JSON line per cluster, the representative and every
//!   member with its similarity to it and how it matched;
//! - [`ReportJsonl`] (`report.rs`): one JSON line per input record, in input order, including the
//!   records the readers skipped ([`ReportEntry`]), each with its input and its line, row or WARC
//!   record number;
//! - [`KeptJsonl`] (`kept.rs`): the deduplicated collection: the kept documents' payloads (the
//!   original JSONL/Parquet record, or `{id, title, lang, text}`) and the skipped records, kept on
//!   disk by a [`PayloadStore`] until the fates are known.
//!
//! ```
//! use lookalike::{Dedup, Document, MethodKind};
//! use lookalike_io::PairsTsv;
//!
//! let dedup = Dedup::builder().method(MethodKind::MinHash).threshold(0.5).build()?;
//! let mut run = dedup.start()?;
//! run.add(vec![
//!     Document::from_text("a", "near duplicate detection finds documents that are almost the same"),
//!     Document::from_text("b", "Near-duplicate detection finds documents that are almost the same."),
//! ])?;
//! let mut pairs = PairsTsv::new(Vec::new());
//! run.finish_into(&mut pairs)?;
//! assert_eq!(String::from_utf8(pairs.into_inner()).unwrap(), "a\tb\t1.000000\n");
//! # Ok::<(), lookalike_io::SinkError>(())
//! ```

use std::io;

mod clusters;
mod kept;
mod pairs;
mod report;

pub use clusters::ClustersJsonl;
pub use kept::{KeptJsonl, PayloadStore};
pub use pairs::PairsTsv;
pub use report::{BoilerplateRemoved, ReportEntry, ReportJsonl};

/// An error of a sink: writing failed, or the run itself failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SinkError {
    /// Writing the output failed.
    #[error("{0}")]
    Write(#[from] io::Error),
    /// The run failed.
    #[error(transparent)]
    Run(#[from] lookalike::Error),
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}
