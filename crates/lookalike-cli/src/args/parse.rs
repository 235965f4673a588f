//! Value parsers of the options: the error is the message clap shows.

use lookalike::ShingleKind;
use lookalike_io::{Extract, Format};

/// `words:N` or `chars:N`.
pub fn parse_shingle(s: &str) -> Result<ShingleKind, String> {
    s.parse().map_err(|e: lookalike::shingles::ParseShingleKindError| e.to_string())
}

pub use lookalike::config::parse_size;

/// `main`, `text` or `none`.
pub fn parse_extract(s: &str) -> Result<Extract, String> {
    s.parse()
}

/// `text`, `html`, `jsonl`, `warc`, `parquet` or `docreader`.
pub fn parse_format(s: &str) -> Result<Format, String> {
    s.parse().map_err(|_| {
        format!("unknown format {s:?}: expected text, html, jsonl, warc, parquet or docreader")
    })
}
