//! The arguments of `lookalike extract`.

use clap::Args;

use super::boilerplate::BoilerplateArgs;
use super::input::InputArgs;

/// The `--help` examples of `lookalike extract`.
pub const EXTRACT_EXAMPLES: &str = "\
Examples:
  # The main content of a saved page, as dedup compares it
  lookalike extract page.html

  # Every response of a crawl file, one JSON line each (id, title, lang, charset, text)
  lookalike extract crawl.warc.gz --jsonl > pages.jsonl

  # All visible text instead of the main content
  lookalike extract page.html --extract text

  # What dedup compares on a documentation mirror: each folder's repeated lines (its template)
  # removed; --jsonl says per page how much was removed
  lookalike extract ./docs/ --jsonl | jq -c '{id, boilerplate}'

Exit codes: 0 done, 1 failure (also: no document could be read), 2 bad usage.";

/// `lookalike extract`.
#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// Files, directories, glob patterns, or - for standard input (as for `dedup`).
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,
    /// One JSON line per document: id, title, lang, charset, extraction, text (skipped records
    /// too, with their reason).
    #[arg(long)]
    pub jsonl: bool,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub boilerplate: BoilerplateArgs,
    /// Write to FILE instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<String>,
}
