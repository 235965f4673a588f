//! The arguments of `lookalike paragraphs`.

use clap::Args;

use super::dedup::SkippedInOutput;
use super::input::InputArgs;
use super::parse::parse_size;

/// The `--help` examples and output formats of `lookalike paragraphs`.
pub const PARAGRAPHS_EXAMPLES: &str = "\
Examples:
  # Every record with the paragraphs seen earlier in the collection removed, other fields kept
  lookalike paragraphs corpus.jsonl --output cleaned.jsonl

  # Several inputs are one collection, in the order given; the removed spans in a report
  lookalike paragraphs 'shards/*.jsonl.gz' --output cleaned.jsonl.gz --report removed.jsonl

  # Lines of fewer than 20 characters (headings, \"Share\", \"Home\") are left alone
  lookalike paragraphs corpus.jsonl --min-chars 20 --output cleaned.jsonl

  # More paragraphs than memory holds: a Bloom filter of 4 GiB sized for 3 billion paragraphs
  lookalike paragraphs 'crawl/*.jsonl.zst' --bloom 4G --bloom-items 3000000000 -o cleaned.jsonl

  # A Parquet export (every column kept, rows written as JSON lines); standard input
  lookalike paragraphs part-0000.parquet --text-field content -o cleaned.jsonl
  cat corpus.jsonl | lookalike paragraphs - > cleaned.jsonl

Paragraphs:
  A paragraph is a line of a document's text, compared after normalization (case, punctuation
  and spacing folded, as dedup compares texts). Documents are taken in input order; a paragraph
  seen before, in an earlier document or earlier in the same one, is removed with its line
  ending, and its first occurrence is kept (CCNet's rule). Lines without a letter or digit are
  never removed.

Outputs:
  --output  JSONL, every input record in input order: a JSONL line or Parquet row with its text
            field replaced by the cleaned text and every other field kept as it was (a record
            that loses nothing is written byte for byte as read); for HTML, WARC and text inputs
            {id, title, lang, text}. Records without a text are written as read (--skipped).
  --report  JSONL, one line per input record: {id, status (cleaned, unchanged or skipped),
            paragraphs, removed: [{start, end, first_seen}], reason, source, line|row|record}.
            start and end are byte offsets in the text (UTF-8) of a removed line, its line ending
            included; first_seen is the id of the document where the paragraph was first seen
            (null with --bloom).

Exact or Bloom:
  By default every distinct paragraph is remembered exactly (about 40 bytes each in memory).
  --bloom SIZE remembers them in a Bloom filter of SIZE bytes (m bits) instead: every repeat is
  still removed, but a paragraph never seen before can be taken for a repeat and removed too,
  with probability p = (1 - e^(-kn/m))^k after n distinct paragraphs, k bits each. k is 7
  (p = 0.8% at 10 bits per paragraph, 1.2 bytes) unless --bloom-items gives n, which chooses
  k = round(m/n * ln 2). The summary prints the estimated p at the end of the run.";

/// `lookalike paragraphs`.
#[derive(Debug, Args)]
pub struct ParagraphsArgs {
    /// Files, directories, glob patterns, or - for standard input (as for `dedup`), read as one
    /// collection in this order.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,
    #[command(flatten)]
    pub input: InputArgs,

    /// Write the cleaned collection to FILE (JSONL; .gz or .zst compressed by its name; - for
    /// standard output).
    #[arg(long, short = 'o', value_name = "FILE", default_value = "-")]
    pub output: String,
    /// One JSON line per input record with the removed spans and where each paragraph was
    /// first seen.
    #[arg(long, value_name = "FILE")]
    pub report: Option<String>,
    /// Lines shorter than N characters (white space trimmed) are neither removed nor
    /// remembered. 0: every line with a letter or digit, as CCNet does.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub min_chars: usize,
    /// Remember paragraphs in a Bloom filter of SIZE bytes (K, M, G suffixes) instead of
    /// exactly: bounded memory, but a false positive removes a unique paragraph (see below).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub bloom: Option<usize>,
    /// The number of distinct paragraphs expected, which chooses how many bits of the Bloom
    /// filter each paragraph sets, k = round(m/n ln 2) (default 7).
    #[arg(long, value_name = "N", requires = "bloom")]
    pub bloom_items: Option<u64>,
    /// What --output does with records that have no text (no text field, not JSON, a binary
    /// file): keep (write them as they were read) or drop.
    #[arg(long, value_enum, default_value = "keep", value_name = "MODE")]
    pub skipped: SkippedInOutput,

    /// Worker threads (default: all cores).
    #[arg(long, short = 'j')]
    pub threads: Option<usize>,
    /// No summary on stderr (errors are still printed).
    #[arg(long, short = 'q')]
    pub quiet: bool,
}
