//! How inputs are read and turned into documents: the options of every subcommand that reads a
//! corpus.

use clap::Args;
use lookalike_io::{Extract, Format, ReadOptions};

use super::parse::{parse_extract, parse_format};

/// How inputs are read and turned into documents; shared by every subcommand that reads a
/// corpus.
#[derive(Debug, Args, Clone)]
pub struct InputArgs {
    /// JSONL/Parquet field holding the document id [default: id]; without it: file:line (a
    /// warning when this option is given)
    #[arg(long, value_name = "ID_FIELD", help_heading = "Input options")]
    pub id_field: Option<String>,
    /// JSONL/Parquet field holding the text.
    #[arg(long, default_value = "text", help_heading = "Input options")]
    pub text_field: String,
    /// Input format: text, html, jsonl, warc, parquet or docreader (docreader: length-prefixed
    /// protobuf records of url, body and text, the format of Mail.ru's course collections); by default from the extension (.txt, .html,
    /// .jsonl, .warc, each optionally .gz; .parquet), and from the content for standard input and
    /// files without a known extension (`*.gz` included).
    #[arg(long, value_parser = parse_format, help_heading = "Input options")]
    pub format: Option<Format>,
    /// Text taken from HTML pages (files and WARC responses): main (the main content, menus,
    /// footers and related links removed, by lookalike's own linear-time extractor; all visible
    /// text when none is found), text (all visible text) or none (the markup as it is).
    #[arg(long, default_value = "main", value_parser = parse_extract, value_name = "MODE", help_heading = "Input options")]
    pub extract: Extract,
}

impl InputArgs {
    /// The reader's options.
    pub fn read_options(&self) -> ReadOptions {
        ReadOptions {
            id_field: self.id_field.clone().unwrap_or_else(|| ReadOptions::default().id_field),
            text_field: self.text_field.clone(),
            warn_missing_id: self.id_field.is_some(),
            format: self.format,
            extract: self.extract,
            visible_text: false,
            site_field: None,
        }
    }

    /// The same settings as `dedup` arguments, for child processes.
    pub fn to_cli_args(&self) -> Vec<String> {
        let mut v = Vec::new();
        if let Some(id) = &self.id_field {
            v.extend(["--id-field".to_owned(), id.clone()]);
        }
        v.extend([
            "--text-field".to_owned(),
            self.text_field.clone(),
            "--extract".to_owned(),
            self.extract.name().to_owned(),
        ]);
        if let Some(f) = self.format {
            v.extend(["--format".to_owned(), f.name().to_owned()]);
        }
        v
    }
}
