//! The arguments of `lookalike lexicon` and `lookalike lexicon build`.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use lookalike::Segmentation;
use lookalike::lexical::refwords::RefWordsConfig;

use super::input::InputArgs;

/// The `--help` examples of `lookalike lexicon build`.
pub const LEXICON_EXAMPLES: &str = "\
Examples:
  # Statistics of last month's crawl, then sign this month's batch with them
  lookalike lexicon build crawl-2026-10/ -o lex.bin
  lookalike dedup crawl-2026-11/ --method i-match --lexicon lex.bin --pairs pairs.tsv

  # The same for TF*RIDF signatures (RIDF needs document and collection frequencies)
  lookalike dedup batch.jsonl --method tf-ridf --lexicon lex.bin";

/// `lookalike lexicon`.
#[derive(Debug, Args)]
pub struct LexiconArgs {
    #[command(subcommand)]
    pub command: LexiconCommand,
}

/// What to do with a lexicon.
#[derive(Debug, Subcommand)]
pub enum LexiconCommand {
    /// Count document and collection frequencies of every term of a corpus and choose reference
    /// words, and save them: what I-Match (its mid-IDF lexicon), TF*RIDF (residual IDF) and
    /// reference words sign documents with.
    #[command(after_help = LEXICON_EXAMPLES)]
    Build(BuildArgs),
}

/// `lookalike lexicon build`.
#[derive(Debug, Args)]
pub struct BuildArgs {
    /// Files, directories, glob patterns, or - for standard input (as for `dedup`).
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,
    /// The lexicon file to write (written atomically).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: PathBuf,
    /// Seed of the term hashes: `dedup --lexicon` needs the same --seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Tokens of space-less scripts, as for `dedup --cjk`: `dedup --lexicon` needs the same.
    #[arg(long, value_enum, default_value = "chars", value_name = "MODE")]
    pub cjk: Segmentation,
    #[command(flatten)]
    pub input: InputArgs,
    /// Reference words to choose and store (0: none; `dedup --method refwords --lexicon` signs
    /// with them).
    #[arg(long, value_name = "N", default_value_t = RefWordsConfig::default().words)]
    pub refwords: usize,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j')]
    pub threads: Option<usize>,
    /// No summary on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}
