//! The error type: every error about a file names it, and the line when one applies.

use std::path::PathBuf;

/// What can go wrong reading pairs, clusters and corpora, or judging a pool.
///
/// Messages name the file and line (`pairs.tsv:2: ...`); the cause, when there is one, is the
/// [`std::error::Error::source`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file cannot be opened (the message names it).
    #[error(transparent)]
    Open(std::io::Error),
    /// A line of a file cannot be read.
    #[error("{}:{line}: cannot read the line", path.display())]
    ReadLine {
        /// The file.
        path: PathBuf,
        /// The 1-based line.
        line: u64,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The start of a file cannot be read (to tell pairs from clusters).
    #[error("{}: cannot read the file", path.display())]
    ReadStart {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A line of a pairs or clusters file is malformed.
    #[error("{}:{line}: {message}", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// The 1-based line.
        line: u64,
        /// What is wrong with it.
        message: String,
    },
    /// A line of a clusters file is not JSON.
    #[error("{}:{line}: invalid JSON", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The 1-based line.
        line: u64,
        /// The parser's error.
        #[source]
        source: serde_json::Error,
    },
    /// The `threshold=` setting of a pairs file's `#` line is not a number.
    #[error("{}: bad threshold {value:?}", path.display())]
    BadHeaderThreshold {
        /// The file.
        path: PathBuf,
        /// The setting as written.
        value: String,
        /// The parser's error.
        #[source]
        source: std::num::ParseFloatError,
    },
    /// A gold pairs file with similarities lists only the pairs at or above its own threshold,
    /// which is above the one asked for: the duplicates below it are unknown.
    #[error(
        "{} lists the pairs with similarity >= {file_threshold} only, so it cannot tell the \
         duplicates at threshold {threshold}",
        path.display()
    )]
    GoldAboveThreshold {
        /// The gold file.
        path: PathBuf,
        /// The `threshold=` of its `#` line.
        file_threshold: f64,
        /// The threshold asked for.
        threshold: f64,
    },
    /// The pool method judges pairs, and a run's file is a clustering.
    #[error("{}: the pool method judges pairs, and this is a clusters file", path.display())]
    ClustersNotPairs {
        /// The run's file.
        path: PathBuf,
    },
    /// The corpus holds no text for a document of a pooled pair.
    #[error("no text for document {id:?} in the corpus")]
    MissingText {
        /// The document's id.
        id: String,
    },
    /// The thread that reads the corpus cannot be started.
    #[error("cannot start the reader thread")]
    ReaderThread(#[source] std::io::Error),
}
