//! Command-line arguments.

use std::path::PathBuf;

use crate::UsageError;
use clap::{Args, Parser, Subcommand};
use lookalike::{Keep, MethodKind, MinHashScheme, Segmentation, ShingleKind, Verify};
use lookalike_io::{Extract, Format, ReadOptions};

const DEDUP_EXAMPLES: &str = "\
Examples:
  # A folder of pages: pairs, clusters and the deduplicated collection
  lookalike dedup ./pages/ --threshold 0.8 --pairs pairs.tsv --clusters clusters.jsonl --output unique.jsonl

  # A gzipped JSONL export whose text is in \"text\" and whose id is the \"url\" field
  lookalike dedup corpus.jsonl.gz --text-field text --id-field url --pairs -

  # From standard input (format detected from the content)
  cat corpus.jsonl | lookalike dedup - --pairs -

  # Globs, character shingles for short texts, every document's fate in a report
  lookalike dedup 'notes/**/*.txt' --shingle chars:5 --report report.jsonl

  # A crawl: WARC response records, main content of each page (menus and footers removed)
  lookalike dedup crawl.warc.gz --pairs pairs.tsv --output unique.jsonl

  # A Parquet export with its own column names
  lookalike dedup part-0000.parquet --id-field url --text-field content --pairs -

  # Excerpts and quoted articles: containment of one document in another
  lookalike dedup ./pages/ --measure containment --pairs contained.tsv

  # Other methods: SimHash, Broder's algorithm in 2 GB, I-Match with a saved lexicon, SpotSigs
  lookalike dedup corpus.jsonl --method simhash --max-distance auto --pairs -
  lookalike dedup big.jsonl.gz --method broder --memory 2G --spill-dir /scratch --pairs -
  lookalike dedup batch.jsonl --method i-match --lexicon lex.bin --report report.jsonl
  lookalike dedup news.warc.gz --method spotsigs --threshold 0.6 --pairs -

Outputs:
  --pairs     TSV, one line per verified pair: id1<TAB>id2<TAB>similarity (id1 first in input
              order). Exact copies appear as (first copy, later copy, 1.000000). With
              --measure containment the contained document comes first and the similarity is
              its containment; SimHash adds the Hamming distance and the cosine estimate.
  --clusters  JSONL, one line per group of duplicates: the representative and every member
              with its similarity to the representative and how it matched.
  --output    JSONL, the kept documents (JSONL and Parquet inputs: the original record; files and
              WARC responses: {id, title, lang, text}).
  --report    JSONL, one line per input document: kept, duplicate (of whom, how similar) or
              skipped (why).
  A summary goes to stderr. Exit codes: 0 done, 1 failure, 2 bad usage.";

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
    Lexicon(crate::lexicon::LexiconArgs),
    /// Print the text that `dedup` compares: HTML main content, WARC responses, charsets decoded.
    #[command(after_help = crate::extract::EXTRACT_EXAMPLES)]
    Extract(Box<crate::extract::ExtractArgs>),
    /// Show a method's candidate S-curve: LSH bands and rows for a threshold, super-shingles, or
    /// SimHash tables.
    #[command(after_help = crate::params::PARAMS_EXAMPLES)]
    Params(ParamsArgs),
    /// Score found duplicates against a gold standard (pair precision, recall, F1, adjusted Rand
    /// index, cluster sizes), or several runs against a pool of their pairs judged by text
    /// comparison (`eval pool`).
    #[command(after_help = crate::eval::EVAL_EXAMPLES)]
    Eval(Box<crate::eval::EvalArgs>),
    /// Run every method on one corpus and compare precision, recall, F1, speed and peak memory.
    #[command(after_help = crate::compare::COMPARE_EXAMPLES)]
    Compare(Box<crate::compare::CompareArgs>),
}

/// Options shared by `dedup` and `params` that decide the MinHash/LSH setting.
#[derive(Debug, Args, Clone)]
pub struct SketchArgs {
    /// Similarity threshold: pairs with Jaccard resemblance at or above it are duplicates.
    #[arg(long, short = 't', default_value_t = 0.8)]
    pub threshold: f64,
    /// Number of MinHash values per document.
    #[arg(long, default_value_t = 128)]
    pub num_perm: usize,
    /// LSH bands (with --rows; default: chosen from the threshold).
    #[arg(long, requires = "rows")]
    pub bands: Option<usize>,
    /// LSH rows per band (with --bands).
    #[arg(long, requires = "bands")]
    pub rows: Option<usize>,
    /// Weight of the false-positive area when choosing bands and rows.
    #[arg(long, default_value_t = lookalike::ErrorWeights::default().false_positive)]
    pub fp_weight: f64,
    /// Weight of the false-negative area when choosing bands and rows.
    #[arg(long, default_value_t = lookalike::ErrorWeights::default().false_negative)]
    pub fn_weight: f64,
}

/// `lookalike dedup`.
#[derive(Debug, Args)]
pub struct DedupArgs {
    /// Files, directories (read recursively), glob patterns, or - for standard input.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,

    /// Method (default minhash; mod-m with --measure containment). Syntactic family:
    /// minhash (MinHash signatures, LSH banding), supershingles (groups of min-hashes hashed to
    /// super-shingles, matched in pairs as mega-shingles), mod-m and min-s (shingle samples),
    /// broder (Broder's sort-based collection algorithm, in bounded memory), simhash (64-bit
    /// fingerprints, Hamming distance ≤ --max-distance); exact (exact copies only: same bytes or
    /// same normalized text). Every method's candidates are checked as --verify says.
    #[arg(long, short = 'm', value_enum)]
    pub method: Option<MethodKind>,

    #[command(flatten)]
    pub sketch: SketchArgs,

    #[command(flatten)]
    pub methods: crate::method_args::MethodArgs,

    /// Shingles compared: words:N (N consecutive words) or chars:N (N consecutive characters).
    /// In Chinese, Japanese, Thai and other scripts without spaces every character is a word.
    #[arg(long, default_value = "words:5", value_parser = parse_shingle)]
    pub shingle: ShingleKind,
    /// Tokens of Chinese, Japanese, Thai and other scripts written without spaces: chars (every
    /// character is a word) or dictionary (ICU dictionary word segmentation, built in).
    #[arg(long, value_enum, default_value = "chars", value_name = "MODE")]
    pub cjk: Segmentation,
    /// MinHash scheme: oph (one-permutation hashing with densification) or perm (one hash
    /// function per value).
    #[arg(long, value_enum, default_value = "oph")]
    pub minhash: MinHashScheme,
    /// Seed of all hashes (same seed, same input, same options: byte-identical output).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// How candidate pairs are checked: exact (Jaccard or containment of the shingle sets) or
    /// estimate (the method's own decision: fraction of equal MinHash values, the sample
    /// estimators, Broder's count over sketch size, SimHash distance ≤ K).
    #[arg(long, value_enum, default_value = "exact")]
    pub verify: Verify,
    /// Which document of a cluster is kept: the first in input order (default) or the longest
    /// (default with --measure containment).
    #[arg(long, value_enum)]
    pub keep: Option<Keep>,
    /// LSH buckets larger than this are compared against a few anchors instead of all pairs.
    #[arg(long, default_value_t = lookalike::candidates::lsh::DEFAULT_MAX_BUCKET)]
    pub max_bucket: usize,

    /// Write verified pairs as TSV (id1, id2, similarity) to FILE (- for stdout).
    #[arg(long, value_name = "FILE")]
    pub pairs: Option<String>,
    /// Write clusters as JSONL to FILE (- for stdout).
    #[arg(long, value_name = "FILE")]
    pub clusters: Option<String>,
    /// Write the kept documents as JSONL to FILE (- for stdout).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<String>,
    /// Write every input document's fate as JSONL to FILE (- for stdout).
    #[arg(long, value_name = "FILE")]
    pub report: Option<String>,
    /// Write the run's figures (counts, times, MB/s, peak memory, settings) as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub stats: Option<String>,

    #[command(flatten)]
    pub input: InputArgs,

    /// Worker threads (default: all cores).
    #[arg(long, short = 'j')]
    pub threads: Option<usize>,
    /// Directory for the temporary shingle file of exact verification.
    #[arg(long, value_name = "DIR")]
    pub spill_dir: Option<PathBuf>,
    /// Memory for the shingle sets of exact verification before they spill to disk (bytes, or
    /// with a K, M or G suffix).
    #[arg(long, value_name = "SIZE", default_value = "256M", value_parser = parse_size)]
    pub memory: usize,
    /// Fail (exit 1) if any input could not be read or any document was skipped.
    #[arg(long)]
    pub strict: bool,
    /// No summary and no progress on stderr (errors are still printed).
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// How inputs are read and turned into documents; shared by every subcommand that reads a
/// corpus.
#[derive(Debug, Args, Clone)]
pub struct InputArgs {
    /// JSONL/Parquet field holding the document id (absent: file:line).
    #[arg(long, default_value = "id")]
    pub id_field: String,
    /// JSONL/Parquet field holding the text.
    #[arg(long, default_value = "text")]
    pub text_field: String,
    /// Input format: text, html, jsonl, warc or parquet; by default from the extension (.txt,
    /// .html, .jsonl, .warc, each optionally .gz; .parquet), and from the content for standard
    /// input and files without a known extension.
    #[arg(long, value_parser = parse_format)]
    pub format: Option<Format>,
    /// Text taken from HTML pages (files and WARC responses): main (the main content, menus and
    /// footers removed; all visible text when none is found), text (all visible text) or none
    /// (the markup as it is).
    #[arg(long, default_value = "main", value_parser = parse_extract, value_name = "MODE")]
    pub extract: Extract,
}

impl InputArgs {
    /// The reader's options.
    pub fn read_options(&self) -> ReadOptions {
        ReadOptions {
            id_field: self.id_field.clone(),
            text_field: self.text_field.clone(),
            format: self.format,
            extract: self.extract,
        }
    }

    /// The same settings as `dedup` arguments, for child processes.
    pub fn to_cli_args(&self) -> Vec<String> {
        let mut v = vec![
            "--id-field".to_owned(),
            self.id_field.clone(),
            "--text-field".to_owned(),
            self.text_field.clone(),
            "--extract".to_owned(),
            self.extract.name().to_owned(),
        ];
        if let Some(f) = self.format {
            v.extend(["--format".to_owned(), f.name().to_owned()]);
        }
        v
    }
}

/// The files named by `inputs` (files, directories, globs, `-`); a usage error when there are
/// none, saying how many files were ignored for their extension.
pub fn expand_nonempty(inputs: &[String]) -> anyhow::Result<lookalike_io::Expanded> {
    let expanded = lookalike_io::expand_inputs(inputs).map_err(|e| UsageError(e.to_string()))?;
    if expanded.inputs.is_empty() {
        return Err(UsageError(format!(
            "no readable input files found in {} ({} files with other extensions ignored)",
            inputs.join(" "),
            expanded.ignored.len()
        ))
        .into());
    }
    Ok(expanded)
}

/// Sets the number of worker threads of the global pool (`--threads`).
pub fn set_threads(threads: Option<usize>) -> anyhow::Result<()> {
    if let Some(n) = threads {
        if n == 0 {
            return Err(crate::UsageError("--threads must be at least 1".into()).into());
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| anyhow::anyhow!("cannot start the worker threads: {e}"))?;
    }
    Ok(())
}

/// `lookalike params`.
#[derive(Debug, Args)]
pub struct ParamsArgs {
    #[command(flatten)]
    pub sketch: SketchArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub curve: crate::params::CurveArgs,
}

pub(crate) fn parse_shingle(s: &str) -> Result<ShingleKind, String> {
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

pub(crate) fn parse_extract(s: &str) -> Result<Extract, String> {
    s.parse()
}

pub(crate) fn parse_format(s: &str) -> Result<Format, String> {
    s.parse()
        .map_err(|_| format!("unknown format {s:?}: expected text, html, jsonl, warc or parquet"))
}
