//! Reading options shared by the reader and the decoder.

use crate::Format;

/// How records are read and decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOptions {
    /// The JSONL field that holds a record's id (default `id`). A string is used as is, a number
    /// or boolean as its JSON text; when absent or null the id is `source:line`.
    pub id_field: String,
    /// The JSONL field that holds a record's text (default `text`); it must be a string.
    pub text_field: String,
    /// Read every input in this format instead of detecting it (default `None`: detect by
    /// extension for files, by content for stdin).
    pub format: Option<Format>,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions { id_field: "id".to_owned(), text_field: "text".to_owned(), format: None }
    }
}
