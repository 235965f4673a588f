//! Command-line arguments: one file per subcommand, and the options several share (`input`,
//! `method`). This module is a leaf: it uses clap and the library crates, never the command
//! modules, which take their arguments from here.

mod boilerplate;
mod compare;
mod dedup;
mod eval;
mod extract;
mod index;
mod input;
mod lexicon;
mod method;
mod paragraphs;
mod params;
mod parse;
mod report;

use clap::{Parser, Subcommand};

pub use boilerplate::{BoilerplateArgs, BoilerplateMode};
pub use compare::CompareArgs;
pub use dedup::{DedupArgs, SkippedInOutput};
pub use eval::{EvalArgs, EvalCommand, PoolArgs};
pub use extract::ExtractArgs;
pub use index::{
    DurabilityArg, ExpectArgs, IndexAddArgs, IndexArgs, IndexCommand, IndexCreateArgs,
    IndexDirArgs, IndexExportArgs, IndexRemoveArgs, ServeArgs, TemplateArgs,
};
pub use input::InputArgs;
pub use lexicon::{BuildArgs, LexiconArgs, LexiconCommand};
pub use method::{SimHashArgs, SketchArgs, SuperShingleArgs};
pub use paragraphs::ParagraphsArgs;
pub use params::{CurveMethod, ParamsArgs};
pub use report::ReportArgs;

use compare::COMPARE_EXAMPLES;
use dedup::DEDUP_EXAMPLES;
use eval::EVAL_EXAMPLES;
use extract::EXTRACT_EXAMPLES;
use index::{INDEX_EXAMPLES, SERVE_EXAMPLES};
use paragraphs::PARAGRAPHS_EXAMPLES;
use params::PARAMS_EXAMPLES;
use report::REPORT_EXAMPLES;

/// Find duplicate and near-duplicate documents in large collections of web pages and text.
#[derive(Debug, Parser)]
#[command(name = "lookalike", version, about, propagate_version = true, max_term_width = 100)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Find exact and near-duplicate documents (MinHash + LSH + verification).
    #[command(after_help = DEDUP_EXAMPLES)]
    Dedup(Box<DedupArgs>),
    /// Build collection statistics (document and collection frequencies of every term) for the
    /// lexical methods, to sign later batches with `dedup --lexicon`.
    Lexicon(LexiconArgs),
    /// Print the text that `dedup` compares: HTML main content, WARC responses, charsets decoded.
    #[command(after_help = EXTRACT_EXAMPLES)]
    Extract(Box<ExtractArgs>),
    /// Remove the paragraphs (lines) seen earlier in the collection from every document, keeping
    /// the first occurrence and every other field (CCNet's paragraph dedup; exact, or a Bloom
    /// filter for collections that do not fit in memory).
    #[command(after_help = PARAGRAPHS_EXAMPLES)]
    Paragraphs(Box<ParagraphsArgs>),
    /// Show a method's candidate S-curve: LSH bands and rows for a threshold, super-shingles, or
    /// SimHash tables.
    #[command(after_help = PARAMS_EXAMPLES)]
    Params(ParamsArgs),
    /// Score found duplicates against a gold standard (pair precision, recall, F1, adjusted Rand
    /// index, cluster sizes), or several runs against a pool of their pairs judged by text
    /// comparison (`eval pool`).
    #[command(after_help = EVAL_EXAMPLES)]
    Eval(Box<EvalArgs>),
    /// Run every method on one corpus and compare precision, recall, F1, speed and peak memory.
    #[command(after_help = COMPARE_EXAMPLES)]
    Compare(Box<CompareArgs>),
    /// Write the HTML report of a finished run (`dedup --run FILE`): run card, similarity
    /// histogram, clusters, side-by-side diffs of sampled pairs, duplicate rates.
    #[command(after_help = REPORT_EXAMPLES)]
    Report(ReportArgs),
    /// A persistent index: create it, add documents (each checked against everything in it),
    /// query, remove, export its pairs and clusters, verify it.
    #[command(after_help = INDEX_EXAMPLES)]
    Index(IndexArgs),
    /// Serve an index over HTTP: check documents, add, look up and remove them (writes behind a
    /// bearer token), stats, metrics, OpenAPI.
    #[command(after_help = SERVE_EXAMPLES)]
    Serve(Box<ServeArgs>),
}
