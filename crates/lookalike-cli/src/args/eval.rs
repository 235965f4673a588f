//! The arguments of `lookalike eval` and `lookalike eval pool`.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use lookalike::ShingleKind;

use super::input::InputArgs;
use super::parse::parse_shingle;

/// The `--help` examples, file formats and measures of `lookalike eval`.
pub const EVAL_EXAMPLES: &str = "\
Examples:
  # A run's pairs against the exact truth of lookalike-bench (gold duplicates: Jaccard >= 0.8)
  lookalike dedup corpus.jsonl --pairs pairs.tsv
  lookalike eval --results pairs.tsv --gold truth.tsv --threshold 0.8

  # Clusters against a gold clustering, the ARI over a collection of 10000 documents, as JSON
  lookalike dedup articles.jsonl --clusters clusters.jsonl
  lookalike eval --results clusters.jsonl --gold gold-clusters.jsonl --docs 10000 --json

  # Two runs against hand labels (id1<TAB>id2<TAB>dup or nondup)
  lookalike eval -r oph=a.tsv -r perm=b.tsv --gold labels.tsv

  # No gold standard: judge the pool of the runs' pairs by comparing the texts
  lookalike eval pool --corpus corpus.jsonl --results oph=a.tsv --results perm=b.tsv

Files:
  results  Pairs TSV (id1<TAB>id2<TAB>similarity, as dedup --pairs writes; every line is a found
           pair, except lines labelled false or nondup), or clusters JSONL (as dedup --clusters
           writes, or {\"members\": [id, ...]} or {\"ids\": [id, ...]} per line). Told apart by
           content: a first line starting with { is JSONL.
  gold     Pairs TSV whose third column is a label (1/0, true/false, dup/nondup) or a similarity
           (a duplicate when >= --threshold; a '# ... threshold=T' line, as lookalike-bench
           truth writes, must not exceed --threshold), or clusters JSONL. A pair the gold does
           not list is not a duplicate.

Measures:
  precision  found pairs the gold calls duplicates / found pairs (the pairs as written).
  recall     gold duplicate pairs found / gold duplicate pairs. Found pairs with similarity 1.0
             form exact-duplicate groups, and a pair counts as found when it is inside a group
             or a found pair links its two groups (dedup writes an exact group as pairs from its
             first document only). A clustering finds every pair inside its clusters.
  ARI        adjusted Rand index of the two clusterings (pairs become connected components),
             the measure of the NEWS-COPY benchmark: 1 identical, ~0 chance. Over the union of
             the ids either file names; an id one file does not name is a singleton there.
             --docs N adds the rest of an N-document collection as singletons on both sides
             (they are pairs both agree to keep apart, so they raise the index).
  clusters   groups of two or more documents (connected components): count, size min, median,
             mean, max and histogram; singletons are the named ids in no group (with --docs, all
             other documents).

A table goes to stderr (-q: none); --json prints the figures as JSON to stdout.
Exit codes: 0 done, 1 failure (an unreadable or malformed file: the message names the file and
line), 2 bad usage.";

/// The `--help` examples and measures of `lookalike eval pool`.
pub const POOL_EXAMPLES: &str = "\
Example:
  lookalike dedup corpus.jsonl --pairs oph.tsv
  lookalike dedup corpus.jsonl --verify estimate --pairs est.tsv
  lookalike eval pool --corpus corpus.jsonl --results oph=oph.tsv --results est=est.tsv \\
      --pool-out pool.tsv

The pool method (Zelenkov & Segalovich 2007): the pool is the union of the pairs the runs wrote
(a pair an exact-duplicate group only implies is not pooled); each pooled pair is judged by comparing its two texts directly, after normalizing them as dedup
does (NFKC, case, punctuation):
  shingle Jaccard    exact Jaccard of the shingle sets (--shingle, default words:5);
  char resemblance   LCS / (|a| + |b| - LCS) over characters, LCS the longest common
                     subsequence: the Jaccard of the characters the best alignment matches, on
                     the same scale as the shingle Jaccard. It forgives scattered small edits
                     that break many word shingles.
A pair is a duplicate when either reaches --threshold.
  precision  a run's pairs judged duplicates / its pairs.
  recall     pooled duplicates the run found (exact groups canonicalized, as in eval) / all
             pooled duplicates: relative to what the runs found together, not to all
             duplicates in the corpus.
  overlap    for every two runs: pairs both found, and the Jaccard of their pair sets.
The corpus is read once, streaming; only the texts of documents in pooled pairs are kept.
--pool-out writes every pooled pair: id1, id2, shingle Jaccard, char resemblance, duplicate
(1/0) and the runs that found it (comma-separated).";

/// `lookalike eval`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct EvalArgs {
    #[command(subcommand)]
    pub command: Option<EvalCommand>,

    /// Results to score: [NAME=]FILE, a pairs TSV or clusters JSONL (repeat to score several).
    #[arg(long, short = 'r', required = true, value_name = "[NAME=]FILE")]
    pub results: Vec<String>,
    /// The gold standard: pairs TSV (id1, id2, label or similarity) or clusters JSONL.
    #[arg(long, short = 'g', required = true, value_name = "FILE")]
    pub gold: Option<PathBuf>,
    /// A gold pair with a similarity is a duplicate when the similarity is at least this.
    #[arg(long, short = 't', default_value_t = 0.8)]
    pub threshold: f64,
    /// Documents in the collection: those neither file names count as singletons in the
    /// adjusted Rand index and the cluster statistics.
    #[arg(long, value_name = "N")]
    pub docs: Option<u64>,
    /// Print the figures as JSON to stdout.
    #[arg(long)]
    pub json: bool,
    /// No table on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// Subcommands of `lookalike eval`.
#[derive(Debug, Subcommand)]
pub enum EvalCommand {
    /// Judge the pool of several runs' pairs by direct text comparison and score each run
    /// against it (precision, recall relative to the pool, F1, overlap between runs).
    #[command(after_help = POOL_EXAMPLES)]
    Pool(PoolArgs),
}

/// `lookalike eval pool`.
#[derive(Debug, Args)]
pub struct PoolArgs {
    /// The corpus the runs read (files, directories, globs, or -), for the texts of pooled pairs.
    #[arg(long, required = true, num_args = 1.., value_name = "INPUT")]
    pub corpus: Vec<String>,
    /// A run's pairs: NAME=FILE (pairs TSV, as dedup --pairs writes); repeat for each run.
    #[arg(long, short = 'r', required = true, value_name = "NAME=FILE")]
    pub results: Vec<String>,
    /// A pooled pair is a duplicate when its shingle Jaccard or char resemblance reaches this.
    #[arg(long, short = 't', default_value_t = 0.8)]
    pub threshold: f64,
    /// Shingles of the shingle Jaccard: words:N or chars:N.
    #[arg(long, default_value = "words:5", value_parser = parse_shingle)]
    pub shingle: ShingleKind,
    /// Seed of the shingle hashes.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub input: InputArgs,
    /// Write every pooled pair with its judgement as TSV to FILE (- for stdout).
    #[arg(long, value_name = "FILE")]
    pub pool_out: Option<String>,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j')]
    pub threads: Option<usize>,
    /// Print the figures as JSON to stdout.
    #[arg(long)]
    pub json: bool,
    /// No table and no progress on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}
