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
    /// The index file is damaged: the store found a page whose checksum or structure does not
    /// hold (every page is checked when an index is opened), or failed on it.
    #[error(
        "{path}: the index file is damaged ({message}); it cannot be used: rebuild the index \
         from its documents (`lookalike index create`, then `index add`) or restore a copy \
         (`lookalike index verify` checks an index without changing it)"
    )]
    Damaged {
        /// The index file.
        path: PathBuf,
        /// What the store said.
        message: String,
    },
    /// Another process has the index file open in a way that excludes this open: a writer
    /// (`serve`, `add`, `remove`) excludes every other open; readers share the file with each
    /// other and exclude a writer.
    #[error(
        "{path}: the index is in use by another process: a writer (a running `lookalike serve`, \
         `index add` or `index remove`) holds it, or, for a command that writes, a reader \
         (`index query`, `stats`, `export`, `verify`) does. Wait for it or stop it; a served \
         index can be inspected through the service (`GET /v1/index/stats`, `POST /v1/check`): \
         the index's store (redb, in the exclusive-writer mode the index uses) cannot open it \
         read-only while a writer holds it"
    )]
    Locked {
        /// The index file.
        path: PathBuf,
    },
    /// A write on an index opened read-only.
    #[error("{path}: the index was opened read-only")]
    ReadOnly {
        /// The index file.
        path: PathBuf,
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
