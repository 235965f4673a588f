//! Error types: one for arguments that name no input, one for inputs that cannot be read.

use std::fmt;

/// An input argument that [`crate::expand_inputs`] cannot turn into inputs. Every variant names
/// the argument as given; the message includes the cause.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The argument is neither `-`, an existing path, nor a glob pattern.
    #[error("{arg}: no such file or directory")]
    NotFound {
        /// The argument as given.
        arg: String,
    },
    /// The argument is a glob pattern that matches nothing.
    #[error("{arg}: no file matches this pattern")]
    NoMatch {
        /// The argument as given.
        arg: String,
    },
    /// The argument looks like a glob pattern but is not a valid one.
    #[error("{arg}: invalid glob pattern: {error}")]
    Pattern {
        /// The argument as given.
        arg: String,
        /// What is wrong with the pattern.
        error: glob::PatternError,
    },
    /// The argument's path exists but cannot be inspected (permissions, I/O error).
    #[error("{arg}: {error}")]
    Io {
        /// The argument as given.
        arg: String,
        /// The underlying error.
        error: std::io::Error,
    },
}

impl Error {
    /// The argument the error is about.
    pub fn arg(&self) -> &str {
        match self {
            Error::NotFound { arg }
            | Error::NoMatch { arg }
            | Error::Pattern { arg, .. }
            | Error::Io { arg, .. } => arg,
        }
    }
}

/// An input (or a part of one) that could not be read: an unreadable file, a truncated or
/// corrupt gzip stream, an over-long JSONL line. The reader reports it and goes on with the next
/// line or input.
///
/// Displays as `source:line: message` (`source:row: message` for a Parquet row), or
/// `source: message` when no line or row applies.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct InputError {
    /// Display name of the input (its path, or `-` for stdin).
    pub source: String,
    /// The 1-based JSONL line (or Parquet row) the error is about (for a read error: the line
    /// being read).
    pub line: Option<u64>,
    /// What went wrong.
    pub message: String,
    /// The 1-based number of the record the error is about, in formats of numbered records
    /// (docreader); its message says it too.
    pub record: Option<u64>,
    /// The 1-based row of a Parquet file the error is about (the first, for several rows).
    pub row: Option<u64>,
    /// When a record (or a whole input) is lost with the error: the id the report lists it
    /// under, `source:line` for a JSONL line, the input's name for a file that is one document or
    /// that could not be read at all; `None` when no record was lost (bytes between WARC
    /// records, a corrupt gzip member between two lines).
    pub lost: Option<String>,
}

impl InputError {
    /// An error about `source` (and `line`, if given) that loses no record.
    pub fn new(source: &str, line: Option<u64>, message: impl Into<String>) -> InputError {
        InputError {
            source: source.to_owned(),
            line,
            message: message.into(),
            record: None,
            row: None,
            lost: None,
        }
    }

    /// The same error, about record `number` of its input.
    pub fn at_record(mut self, number: u64) -> InputError {
        self.record = Some(number);
        self
    }

    /// The same error, about row `number` of a Parquet file.
    pub fn at_row(mut self, number: u64) -> InputError {
        self.row = Some(number);
        self
    }

    /// The same error, losing the record (or input) listed as `id`.
    pub fn losing(mut self, id: impl Into<String>) -> InputError {
        self.lost = Some(id.into());
        self
    }

    /// The same error, losing the input itself (listed under its name).
    pub fn losing_input(self) -> InputError {
        let id = self.source.clone();
        self.losing(id)
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line.or(self.row) {
            Some(line) => write!(f, "{}:{}: {}", self.source, line, self.message),
            None => write!(f, "{}: {}", self.source, self.message),
        }
    }
}

impl std::error::Error for InputError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_error_display() {
        let e = InputError::new("a.jsonl", Some(3), "boom");
        assert_eq!(e.to_string(), "a.jsonl:3: boom");
        assert_eq!(e.clone().losing("a.jsonl:3").lost.as_deref(), Some("a.jsonl:3"));
        let e = InputError { line: None, ..e };
        assert_eq!(e.to_string(), "a.jsonl: boom");
        assert_eq!(e.losing_input().lost.as_deref(), Some("a.jsonl"));
    }

    #[test]
    fn error_names_the_argument() {
        let e = Error::NoMatch { arg: "*.txt".into() };
        assert_eq!(e.arg(), "*.txt");
        assert!(e.to_string().starts_with("*.txt: "));
    }
}
