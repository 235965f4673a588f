//! Value parsers of the options: the error is the message clap shows.

use lookalike::sketch::simhash::SimFeatures;
use lookalike::{Sample, ShingleKind};
use lookalike_io::{Extract, Format};

use super::method::Distance;

/// `words:N` or `chars:N`.
pub fn parse_shingle(s: &str) -> Result<ShingleKind, String> {
    s.parse().map_err(|e: lookalike::shingles::ParseShingleKindError| e.to_string())
}

/// `1234`, `64K`, `256M`, `2G` (powers of 1024; a trailing `B` or `iB` is accepted).
pub fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim().trim_end_matches("iB").trim_end_matches(['B', 'b']);
    let (num, mult) = match t.chars().last() {
        Some('k' | 'K') => (&t[..t.len() - 1], 1usize << 10),
        Some('m' | 'M') => (&t[..t.len() - 1], 1 << 20),
        Some('g' | 'G') => (&t[..t.len() - 1], 1 << 30),
        Some('t' | 'T') => (&t[..t.len() - 1], 1 << 40),
        _ => (t, 1),
    };
    let n: f64 =
        num.trim().parse().map_err(|_| format!("invalid size {s:?}: expected e.g. 512M or 2G"))?;
    if !(n >= 0.0 && n.is_finite()) {
        return Err(format!("invalid size {s:?}"));
    }
    Ok((n * mult as f64) as usize)
}

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
