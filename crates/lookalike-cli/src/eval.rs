//! `lookalike eval`: score results against a gold standard, and `lookalike eval pool`: score
//! several runs against the pool of their pairs judged by text comparison. The measures, the
//! readers of pairs and clusters files and the reports live in `lookalike-metrics`; this is the
//! glue: arguments, messages and where the output goes.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow};
use clap::{Args, Subcommand};
use lookalike::ShingleKind;
use lookalike_io::ReadOptions;
use lookalike_metrics::{
    EvalReport, EvalRow, Gold, Ids, Judge, JudgedPool, MAX_POOL_RUNS, PairPool, PoolJson, Relation,
    render_pool,
};

use crate::UsageError;
use crate::args::{InputArgs, parse_shingle, set_threads};
use crate::output::Sink;

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

const POOL_EXAMPLES: &str = "\
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

pub fn run(args: EvalArgs) -> Result<ExitCode> {
    if let Some(EvalCommand::Pool(p)) = args.command {
        return run_pool(p);
    }
    check_threshold(args.threshold)?;
    let gold_path = args.gold.ok_or_else(|| UsageError("--gold is required".into()))?;
    let specs = parse_results(&args.results, false)?;
    let mut ids = Ids::default();
    let gold = read_gold(&gold_path, args.threshold, &mut ids)?;
    let mut rows = Vec::with_capacity(specs.len());
    for spec in &specs {
        check_exists(&spec.path, "--results")?;
        let found = lookalike_metrics::read_results(&spec.path, &mut ids).map_err(cli_error)?;
        let row = EvalRow::score(
            spec.name.clone(),
            spec.path.display().to_string(),
            &found,
            &gold,
            args.docs,
        );
        if let Some(d) = args.docs
            && row.ari_items > d
        {
            eprintln!(
                "lookalike: warning: --docs {d} is less than the {} ids the files name; the ARI \
                 is over those ids",
                row.ari_items
            );
        }
        rows.push(row);
    }
    let report = EvalReport::new(args.threshold, args.docs, &gold, rows);
    if !args.quiet {
        eprint!("{}", report.render());
    }
    if args.json {
        write_json_stdout(&report)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The CLI's error for an error of `lookalike-metrics`: those the user fixes with other
/// arguments are usage errors (exit code 2), in the words of the command line.
pub(crate) fn cli_error(e: lookalike_metrics::Error) -> anyhow::Error {
    match e {
        lookalike_metrics::Error::GoldAboveThreshold { path, file_threshold: t, threshold } => {
            UsageError(format!(
                "{} lists the pairs with similarity >= {t} only, so it cannot tell the \
                 duplicates at --threshold {threshold}: use a threshold >= {t}",
                path.display()
            ))
            .into()
        }
        lookalike_metrics::Error::ClustersNotPairs { path } => UsageError(format!(
            "{}: eval pool judges pairs, and this is a clusters file: give the pairs \
             (lookalike dedup --pairs)",
            path.display()
        ))
        .into(),
        e => e.into(),
    }
}

/// Reads the `--gold` file: pairs (labels or similarities, duplicates at `threshold`) or
/// clusters.
pub(crate) fn read_gold(path: &Path, threshold: f64, ids: &mut Ids) -> Result<Gold> {
    check_exists(path, "--gold")?;
    lookalike_metrics::read_gold(path, threshold, ids).map_err(cli_error)
}

/// A `[NAME=]FILE` argument.
#[derive(Debug, Clone)]
struct ResultsSpec {
    name: String,
    path: PathBuf,
}

/// Parses `NAME=FILE` (or, unless `need_name`, `FILE`, named after the file); names must differ.
fn parse_results(args: &[String], need_name: bool) -> Result<Vec<ResultsSpec>> {
    let mut specs: Vec<ResultsSpec> = Vec::new();
    for a in args {
        let named = a
            .split_once('=')
            .filter(|(n, _)| !n.is_empty() && !n.contains('/') && !Path::new(a).exists());
        let spec = match named {
            Some((name, file)) => ResultsSpec { name: name.to_owned(), path: PathBuf::from(file) },
            None if need_name => {
                return Err(UsageError(format!("--results {a}: expected NAME=FILE")).into());
            }
            None => {
                let path = PathBuf::from(a);
                let name = path.file_name().map_or(a.clone(), |n| n.to_string_lossy().into());
                ResultsSpec { name, path }
            }
        };
        if specs.iter().any(|s| s.name == spec.name) {
            return Err(UsageError(format!(
                "two --results are named {:?}: name them NAME=FILE",
                spec.name
            ))
            .into());
        }
        specs.push(spec);
    }
    Ok(specs)
}

fn check_exists(path: &Path, what: &str) -> Result<()> {
    if path.is_file() {
        Ok(())
    } else {
        Err(UsageError(format!("{what} {}: no such file", path.display())).into())
    }
}

pub(crate) fn check_threshold(t: f64) -> Result<()> {
    if t > 0.0 && t <= 1.0 {
        Ok(())
    } else {
        Err(UsageError(format!("--threshold must be in (0, 1], not {t}")).into())
    }
}

fn run_pool(a: PoolArgs) -> Result<ExitCode> {
    check_threshold(a.threshold)?;
    set_threads(a.threads)?;
    if a.json && a.pool_out.as_deref() == Some("-") {
        return Err(UsageError("--json and --pool-out - both write to stdout".into()).into());
    }
    let specs = parse_results(&a.results, true)?;
    if specs.len() > MAX_POOL_RUNS {
        return Err(UsageError(format!("at most {MAX_POOL_RUNS} --results")).into());
    }
    let mut ids = Ids::default();
    let mut runs = Vec::with_capacity(specs.len());
    for s in &specs {
        check_exists(&s.path, "--results")?;
        runs.push(lookalike_metrics::read_run_pairs(&s.path, &mut ids).map_err(cli_error)?);
    }
    let pool_out = a.pool_out.as_deref().map(Sink::open).transpose()?;
    let opts = a.input.read_options();
    let judge = Judge::new(a.shingle, a.seed, a.threshold);
    let names: Vec<String> = specs.iter().map(|s| s.name.clone()).collect();
    let judged = judge_pool(&runs, &judge, &a.corpus, &opts, &ids, a.quiet)?;
    if let Some(mut sink) = pool_out {
        judged
            .write_tsv(&mut sink, &names, &ids)
            .with_context(|| format!("cannot write {}", sink.name()))?;
        sink.commit()?;
    }
    let files: Vec<String> = specs.iter().map(|s| s.path.display().to_string()).collect();
    if !a.quiet {
        eprint!("{}", render_pool(&judged.report, &names));
    }
    if a.json {
        write_json_stdout(&PoolJson::new(&judged.report, &names, Some(&files)))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Pools the runs' pairs, reads the texts of the pooled documents from the corpus, judges every
/// pair and scores the runs.
pub(crate) fn judge_pool(
    runs: &[Relation],
    judge: &Judge,
    corpus: &[String],
    opts: &ReadOptions,
    ids: &Ids,
    quiet: bool,
) -> Result<JudgedPool> {
    let refs: Vec<&Relation> = runs.iter().collect();
    let pool = PairPool::new(&refs);
    let wanted = pool.ids();
    if !quiet {
        eprintln!(
            "lookalike: pool of {} pairs over {} documents; reading their texts",
            pool.pairs.len(),
            wanted.len()
        );
    }
    let expanded = lookalike_io::expand_inputs(corpus).map_err(|e| UsageError(e.to_string()))?;
    if expanded.inputs.is_empty() {
        return Err(UsageError(format!("no readable input files in {}", corpus.join(" "))).into());
    }
    let mut errors = 0u64;
    let texts = lookalike_metrics::load_texts(expanded.inputs, opts, ids, &wanted, |e| {
        errors += 1;
        if errors <= 5 && !quiet {
            eprintln!("lookalike: warning: {e}");
        }
    })?;
    if errors > 5 && !quiet {
        eprintln!("lookalike: warning: {errors} inputs could not be read");
    }
    JudgedPool::judge(pool, &refs, judge, &texts, ids).map_err(|e| match e {
        lookalike_metrics::Error::MissingText { id } => anyhow!(
            "no text for document {id:?} in {}: is it the corpus the runs read, with the same \
             --id-field, --text-field and --format?",
            corpus.join(" ")
        ),
        e => cli_error(e),
    })
}

/// Prints `v` as pretty JSON to stdout, with a final newline.
pub(crate) fn write_json_stdout(v: &impl serde::Serialize) -> Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, v)?;
    out.write_all(b"\n")?;
    out.flush().context("cannot write to stdout")
}
