//! Value parsers of the options: the error is the message clap shows.

use lookalike::sketch::simhash::SimFeatures;
use lookalike::{Sample, ShingleKind};
use lookalike_io::{Extract, Format};

use super::method::Distance;

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

/// A Hamming distance or `auto`.
pub fn parse_distance(s: &str) -> Result<Distance, String> {
    if s == "auto" {
        return Ok(Distance(None));
    }
    s.parse::<u32>()
        .map(|k| Distance(Some(k)))
        .map_err(|_| format!("`{s}` is not a distance: a number or auto"))
}

/// `mod:M` or `min:S`.
pub fn parse_sample(s: &str) -> Result<Sample, String> {
    s.parse()
}

/// `tokens` or a shingle kind.
pub fn parse_features(s: &str) -> Result<SimFeatures, String> {
    if s == "tokens" {
        return Ok(SimFeatures::Tokens);
    }
    s.parse::<ShingleKind>().map(SimFeatures::Shingles).map_err(|e| format!("{e} (or `tokens`)"))
}
