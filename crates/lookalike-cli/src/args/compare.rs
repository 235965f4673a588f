//! The arguments of `lookalike compare`.

use std::path::PathBuf;

use clap::Args;
use lookalike::ShingleKind;

use super::input::InputArgs;
use super::method::SketchArgs;
use super::parse::parse_shingle;

/// The `--help` examples, methods and columns of `lookalike compare`.
pub const COMPARE_EXAMPLES: &str = "\
Examples:
  # Every method on a JSONL corpus, scored against the exact truth; markdown to stdout
  lookalike-bench truth --corpus corpus.jsonl --threshold 0.5 --out truth.tsv
  lookalike compare corpus.jsonl --gold truth.tsv

  # No gold standard: quality against the judged pool of all methods' pairs; files out
  lookalike compare ./pages/ --markdown compare.md --json compare.json

  # Two methods, one thread each, keeping their pairs and stats
  lookalike compare corpus.jsonl --methods minhash,exact --threads 1 --out-dir runs/

Methods: every method of `lookalike dedup --method` (today minhash and exact) and, for minhash,
each non-default verification and scheme: minhash-estimate (--verify estimate) and minhash-perm
(--minhash perm). Each runs as `lookalike dedup CORPUS... --method M [variant] --pairs --clusters --stats`
with the shingle, threshold, MinHash, seed, thread and input options given here, in a child
process, so its peak memory (resident set) is its own.

Columns: precision, recall and F1 over pairs (as `lookalike eval`: exact-duplicate groups
canonicalized for recall); docs/s and MB/s of input as the method's own --stats reports them;
peak memory in MB (10^6 bytes); the distinct pairs found; wall seconds of the child process.
With a gold standard, a second table scores each method's clusters by the pairs they imply (every
two documents of one cluster: what keeping one document per cluster assumes), with the adjusted
Rand index and the size of the largest cluster.

Quality: with --gold FILE, against that gold standard (the formats of `lookalike eval --gold`;
pairs with a similarity are duplicates at >= --threshold). Without it, against the pool of all
methods' pairs, each judged by comparing the two texts (as `lookalike eval pool`: shingle
Jaccard or character resemblance >= --threshold); recall is then relative to what the methods
found together. The output says which.

Markdown goes to stdout, or to --markdown FILE; --json FILE writes the figures as JSON (with
--json - and no --markdown, JSON alone goes to stdout). Progress lines go to stderr (-q: none).
Exit codes: 0 done, 1 failure (a method failed: its message is shown), 2 bad usage.";

/// `lookalike compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The corpus: files, directories (read recursively) or glob patterns (not -: each method
    /// reads it again).
    #[arg(required = true, value_name = "CORPUS")]
    pub inputs: Vec<String>,

    #[command(flatten)]
    pub sketch: SketchArgs,
    /// Shingles compared: words:N or chars:N (also those of the pool's shingle Jaccard).
    #[arg(long, default_value = "words:5", value_parser = parse_shingle)]
    pub shingle: ShingleKind,
    /// Seed of all hashes.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads of each method and of the pool's judging (default: all cores).
    #[arg(long, short = 'j')]
    pub threads: Option<usize>,

    #[command(flatten)]
    pub input: InputArgs,

    /// Gold standard: pairs TSV (label or similarity) or clusters JSONL, as for `eval --gold`.
    /// Without it, quality is measured against the judged pool of all methods' pairs.
    #[arg(long, value_name = "FILE")]
    pub gold: Option<PathBuf>,
    /// Methods to run, comma-separated (default: all; an unknown name lists them).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub methods: Vec<String>,
    /// Write the markdown table to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<String>,
    /// Write the figures as JSON to FILE (- for stdout).
    #[arg(long, value_name = "FILE")]
    pub json: Option<String>,
    /// Write the comparison as one self-contained HTML page to FILE: the method table and a
    /// precision-recall scatter.
    #[arg(long, value_name = "FILE")]
    pub html: Option<String>,
    /// Keep each method's pairs (METHOD.pairs.tsv) and stats (METHOD.stats.json) in DIR.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// No progress on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}
