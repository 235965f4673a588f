//! The index's typed errors. Contract: "when I fail, I say which index, which setting or which
//! record".

use std::path::PathBuf;

/// What went wrong with an index.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The directory holds no index.
    #[error("{path}: no index here (create one with `lookalike index create`)")]
    NotAnIndex {
        /// The directory.
        path: PathBuf,
    },
    /// `create` on a directory that already holds an index.
    #[error("{path}: an index already exists here")]
    Exists {
        /// The directory.
        path: PathBuf,
    },
    /// The index was written in another format version.
    #[error(
        "{path}: index format version {found}, this lookalike reads versions 1 to {supported}; \
         rebuild the index from its inputs (or `lookalike index export` it with the lookalike \
         that wrote it)"
    )]
    Version {
        /// The index file.
        path: PathBuf,
        /// The version found.
        found: u32,
        /// The newest version this build reads.
        supported: u32,
    },
    /// Opening with settings other than those frozen at creation.
    #[error("{path}: the index was created with other settings: {differences}")]
    SettingsDiffer {
        /// The directory.
        path: PathBuf,
        /// Each difference, `name: index X, given Y`, joined with `; `.
        differences: String,
    },
    /// A method or option the index cannot serve, with the reason.
    #[error("{0}")]
    Unsupported(String),
    /// The core library refused the settings.
    #[error(transparent)]
    Config(#[from] lookalike::Error),
    /// The store failed.
    #[error("{path}: storage: {message}")]
    Storage {
        /// The index file.
        path: PathBuf,
        /// What the store said.
        message: String,
    },
    /// A stored record could not be decoded (torn or corrupt).
    #[error("corrupt record in table {table}: {message}")]
    Corrupt {
        /// The table.
        table: &'static str,
        /// What is wrong.
        message: String,
    },
    /// Filesystem error.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

/// The index's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
