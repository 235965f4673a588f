//! Input formats: contract: "give me a path (or a format name), I tell you how its bytes become
//! records".

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How the bytes of one input become records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Plain text: the whole file is one document.
    Text,
    /// An HTML page: the whole file is one document, its visible text is extracted.
    Html,
    /// JSON Lines: one JSON object per line, each line one document.
    Jsonl,
    /// A WARC file (web archive, `.warc` or `.warc.gz`): one record per WARC record; `response`
    /// records hold documents, the others are skipped with a reason (see [`crate::WarcReader`]).
    Warc,
    /// An Apache Parquet file: one record per row, read from the `--id-field` and `--text-field`
    /// columns one row group batch at a time. Rows reach the decoder as JSON Lines records.
    Parquet,
    /// The docreader format of a course assignment (`zcat ... | docreader.py`): records of a 4-byte
    /// little-endian length and a protobuf `document { url = 1; body = 2; text = 3 }` message;
    /// the url is the id, the body (HTML) or else the text is the document (see
    /// [`crate::DocreaderReader`]). Known by its content, not by a file extension.
    Docreader,
}

impl Format {
    /// The name used on the command line and in messages: `text`, `html`, `jsonl`, `warc`,
    /// `parquet` or `docreader`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Html => "html",
            Format::Jsonl => "jsonl",
            Format::Warc => "warc",
            Format::Parquet => "parquet",
            Format::Docreader => "docreader",
        }
    }

    /// The format a file extension (without the dot, any case) stands for, if it is one this
    /// crate reads: `txt`/`text`/`md`, `html`/`htm`/`xhtml`, `jsonl`/`ndjson`/`json`, `warc`,
    /// `parquet`/`pq`.
    pub fn from_extension(ext: &str) -> Option<Format> {
        let ext = ext.to_ascii_lowercase();
        match ext.as_str() {
            "txt" | "text" | "md" => Some(Format::Text),
            "html" | "htm" | "xhtml" => Some(Format::Html),
            "jsonl" | "ndjson" | "json" => Some(Format::Jsonl),
            "warc" => Some(Format::Warc),
            "parquet" | "pq" => Some(Format::Parquet),
            _ => None,
        }
    }

    /// The format of a file by its name: the extension after stripping a trailing `.gz`
    /// (`pages.jsonl.gz` is JSONL, `crawl.warc.gz` is WARC). `None` for an extension this crate
    /// does not know; the reader then reads the file as [`Format::Warc`] if it starts with
    /// `WARC/`, as [`Format::Docreader`] if it starts with a docreader record, else as
    /// [`Format::Text`].
    pub fn from_path(path: &Path) -> Option<Format> {
        extension(path).as_deref().and_then(Format::from_extension)
    }
}

/// The lowercase extension of a path's file name after stripping one trailing `.gz`.
fn extension(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    let (stem, ext) = name.rsplit_once('.')?;
    // `.gz` alone and names like `.jsonl` (a hidden file without a stem) are not extensions.
    if stem.is_empty() || ext.is_empty() { None } else { Some(ext.to_owned()) }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing a [`Format`] name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown input format '{0}' (expected text, html, jsonl, warc, parquet or docreader)")]
pub struct ParseFormatError(pub String);

impl FromStr for Format {
    type Err = ParseFormatError;

    /// Parses `text`, `html`, `jsonl`, `warc`, `parquet` or `docreader` (any case); `txt`, `htm`,
    /// `ndjson` and `pq` are accepted too.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "text" | "txt" => Ok(Format::Text),
            "html" | "htm" => Ok(Format::Html),
            "jsonl" | "ndjson" => Ok(Format::Jsonl),
            "warc" => Ok(Format::Warc),
            "parquet" | "pq" => Ok(Format::Parquet),
            "docreader" => Ok(Format::Docreader),
            _ => Err(ParseFormatError(s.to_owned())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let all = [
            Format::Text,
            Format::Html,
            Format::Jsonl,
            Format::Warc,
            Format::Parquet,
            Format::Docreader,
        ];
        for f in all {
            assert_eq!(f.to_string().parse::<Format>().unwrap(), f);
        }
        assert_eq!("JSONL".parse::<Format>().unwrap(), Format::Jsonl);
        let err = "xml".parse::<Format>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown input format 'xml' (expected text, html, jsonl, warc, parquet or docreader)"
        );
    }

    #[test]
    fn format_from_path_strips_gz_and_ignores_case() {
        let f = |p: &str| Format::from_path(Path::new(p));
        assert_eq!(f("a/b.txt"), Some(Format::Text));
        assert_eq!(f("b.MD"), Some(Format::Text));
        assert_eq!(f("b.Html.GZ"), Some(Format::Html));
        assert_eq!(f("b.xhtml"), Some(Format::Html));
        assert_eq!(f("b.jsonl.gz"), Some(Format::Jsonl));
        assert_eq!(f("b.ndjson"), Some(Format::Jsonl));
        assert_eq!(f("b.json"), Some(Format::Jsonl));
        assert_eq!(f("CC-MAIN-1.warc.gz"), Some(Format::Warc));
        assert_eq!(f("clueweb.WARC"), Some(Format::Warc));
        assert_eq!(f("b.xml"), None);
        assert_eq!(f("b.gz"), None);
        assert_eq!(f("README"), None);
        assert_eq!(f(".jsonl"), None);
        assert_eq!(f("b.tar.gz"), None);
    }
}
