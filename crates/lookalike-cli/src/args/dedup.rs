//! The arguments of `lookalike dedup`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use lookalike::{ClusterMode, Keep, MethodKind, MinHashScheme, Segmentation, ShingleKind, Verify};

use super::input::InputArgs;
use super::method::{MethodArgs, SketchArgs};
use super::parse::{parse_shingle, parse_size};

/// The `--help` examples and output formats of `lookalike dedup`.
pub const DEDUP_EXAMPLES: &str = "\
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
  # MinHash/LSH candidates whose SimHash fingerprints agree too, decided without exact sets
  lookalike dedup pages.jsonl --method combined --verify estimate --pairs -

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

/// `lookalike dedup`.
#[derive(Debug, Args)]
pub struct DedupArgs {
    /// Files, directories (read recursively), glob patterns, or - for standard input.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,

    /// Method (default minhash; mod-m with --measure containment): every method, named from the
    /// value enum by `method_help`.
    #[arg(long, short = 'm', value_enum, help = method_help())]
    pub method: Option<MethodKind>,

    #[command(flatten)]
    pub sketch: SketchArgs,

    #[command(flatten)]
    pub methods: MethodArgs,

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
    /// estimators, Broder's count over sketch size, SimHash distance ≤ K; combined: MinHash
    /// estimate ≥ threshold and SimHash distance ≤ K).
    #[arg(long, value_enum, default_value = "exact")]
    pub verify: Verify,
    /// Which document of a cluster is kept: the first in input order (default) or the longest
    /// (default with --measure containment).
    #[arg(long, value_enum)]
    pub keep: Option<Keep>,
    /// How verified pairs become clusters: center (default: every member verified >= threshold
    /// against its representative, so two members are >= 2t-1 to each other), clique (every
    /// member verified against every member), center-refine (center, then moves that agree with
    /// more verified pairs; no per-member guarantee) or connected (transitive closure: chains of
    /// pairs join documents that share little).
    ///
    /// The verified pairs (--pairs) are the same in every mode, and exact copies always share a
    /// cluster. Documents are visited in --keep order (first: input order; longest: longest
    /// first), so the representative is the document --keep picks. Center is the default because
    /// on template-heavy documentation pages its clusters stay 0.98-0.99 precise where connected
    /// ones fall to 0.15 (bench/RESULTS.md, "Clusters").
    #[arg(long, value_enum, default_value = "center", value_name = "MODE")]
    pub cluster: ClusterMode,
    /// LSH buckets larger than this are set aside as groups (pages sharing a template come back
    /// in many bands; each group is compared once).
    #[arg(long, default_value_t = lookalike::candidates::lsh::DEFAULT_MAX_BUCKET)]
    pub max_bucket: usize,
    /// Most pairs one group is expanded to: the documents of a large LSH bucket are all verified
    /// against each other, and --pairs lists every pair of an exact-copy group and of the copies
    /// of two near-duplicates, up to this many pairs per group. Larger groups are compared with a
    /// few anchors and listed by their first document; the summary counts them.
    #[arg(long, value_name = "N", default_value_t = lookalike::candidates::lsh::DEFAULT_MAX_PAIRS_PER_GROUP)]
    pub max_pairs_per_group: u64,

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

/// The help of `--method`: the names of all the methods clap accepts, so that it cannot go stale
/// (each is described under "Possible values" in `--help`).
fn method_help() -> String {
    let names: Vec<String> = MethodKind::value_variants()
        .iter()
        .filter_map(ValueEnum::to_possible_value)
        .filter(|v| !v.is_hide_set())
        .map(|v| v.get_name().to_owned())
        .collect();
    let list = match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    };
    format!(
        "Method (default minhash; mod-m with --measure containment), one of the {}: {list}. \
         Every method's candidates are checked as --verify says",
        names.len()
    )
}
