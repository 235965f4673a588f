//! The arguments of `lookalike dedup`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use lookalike::{ClusterMode, Keep, MethodKind, Segmentation, ShingleKind, Verify};

use super::boilerplate::BoilerplateArgs;
use super::input::InputArgs;
use super::method::{MethodArgs, MethodFlags, MinHashRest, SketchArgs};
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

  # A crawl: WARC response records, main content of each page (menus and footers removed),
  # lines repeated across a host's pages (its template) removed before comparing
  lookalike dedup crawl.warc.gz --pairs pairs.tsv --output unique.jsonl
  # Each page as the extractor gives it, templates kept
  lookalike dedup crawl.warc.gz --boilerplate off --pairs pairs.tsv
  # A JSONL crawl export: its lines are blocks, its \"domain\" field the site
  lookalike dedup crawl.jsonl --boilerplate all --site-field domain --pairs -

  # A Parquet export with its own column names
  lookalike dedup part-0000.parquet --id-field url --text-field content --pairs -

  # Excerpts and quoted articles: containment of one document in another
  lookalike dedup ./pages/ --measure containment --pairs contained.tsv

  # Other methods: SimHash, Broder's algorithm in 2 GB, I-Match with a saved lexicon, SpotSigs
  lookalike dedup corpus.jsonl --method simhash --max-distance auto --pairs -
  lookalike dedup big.jsonl.gz --method broder --spill-memory 2G --spill-dir /scratch --pairs -
  lookalike dedup batch.jsonl --method i-match --lexicon lex.bin --report report.jsonl
  lookalike dedup news.warc.gz --method spotsigs --threshold 0.6 --pairs -
  # MinHash/LSH candidates whose SimHash fingerprints agree too, decided without exact sets
  lookalike dedup pages.jsonl --method combined --verify estimate --pairs -

Outputs:
  --pairs     TSV, one line per verified pair: id1<TAB>id2<TAB>similarity (id1 first in input
              order), every pair at or above the threshold among the candidates. Exact copies
              (same bytes or same normalized text) are lines with similarity 1.000000, every
              pair of copies; a near pair is listed for every copy of each side (up to
              --max-pairs-per-group per group). With --measure containment the contained document
              comes first and the similarity is its containment; SimHash adds the Hamming
              distance and the cosine estimate.
  --clusters  JSONL, one line per group of duplicates: {cluster, size, representative, members:
              [{id, similarity, match}]} (match: exact-bytes, exact-text or near).
  --output    JSONL, the deduplicated collection in input order: the kept documents (JSONL and
              Parquet inputs: the original record; files and WARC responses: {id, title, lang,
              text}) and, unless --skipped drop, the skipped records (as read; built lines get
              \"skipped\": reason). Duplicates are left out.
  --report    JSONL, one line per input record: {id, status: kept|duplicate|skipped, lang, of,
              similarity, match, reason, boilerplate: {source: main|visible, removed_bytes,
              before_bytes}}.
  A name ending in .gz or .zst is compressed (gzip, zstd). Outputs are committed together: each
  is written to a temporary file beside it (.lookalike-tmp-<pid>-<random>), synced, and renamed
  over the old file only when every output is complete; a failed or interrupted run (Ctrl-C,
  SIGTERM) leaves the old files as they were and removes its temporary files, and the next run
  writing into a folder removes those of a killed run. A new file gets 0666 less the umask; a
  replaced file keeps its mode. Two outputs naming one file, or an output naming an input (by
  any path: .., symbolic or hard links), are refused, except --output naming the only input: an
  in-place rewrite with the deduplicated version.
  A summary goes to stderr. Exit codes: 0 done, 1 failure (also: no document could be read, or
  --strict and a problem), 2 bad usage, 130/143 interrupted by SIGINT/SIGTERM.";

/// `lookalike dedup`.
#[derive(Debug, Args)]
pub struct DedupArgs {
    /// Files, directories (read recursively), glob patterns, or - for standard input.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,
    /// Fail (exit 1) if any input could not be read or any document was skipped. Without it, a
    /// run fails only when no document at all could be read.
    #[arg(long)]
    pub strict: bool,
    /// No summary and no progress on stderr (errors are still printed).
    #[arg(long, short = 'q')]
    pub quiet: bool,

    /// Method (default minhash; mod-m with --measure containment): every method, named from the
    /// value enum by `method_help`.
    #[arg(long, short = 'm', value_enum, help = method_help(), help_heading = METHOD)]
    pub method: Option<MethodKind>,

    #[command(flatten)]
    pub sketch: SketchArgs,

    /// Shingles compared: words:N (N consecutive words) or chars:N (N consecutive characters).
    /// In Chinese, Japanese, Thai and other scripts without spaces every character is a word.
    #[arg(long, default_value = "words:5", value_parser = parse_shingle, help_heading = METHOD)]
    pub shingle: ShingleKind,
    /// Tokens of Chinese, Japanese, Thai and other scripts written without spaces: chars (every
    /// character is a word) or dictionary (ICU dictionary word segmentation, built in).
    #[arg(long, value_enum, default_value = "chars", value_name = "MODE", help_heading = METHOD)]
    pub cjk: Segmentation,
    /// Seed of all hashes (same seed, same input, same options: byte-identical output).
    #[arg(long, default_value_t = 1, help_heading = METHOD)]
    pub seed: u64,
    /// How candidate pairs are checked: exact (Jaccard or containment of the shingle sets) or
    /// estimate (the method's own decision: fraction of equal MinHash values, the sample
    /// estimators, Broder's count over sketch size, SimHash distance ≤ K; combined: MinHash
    /// estimate ≥ threshold and SimHash distance ≤ K).
    #[arg(long, value_enum, default_value = "exact", help_heading = METHOD)]
    pub verify: Verify,
    /// Which document of a cluster is kept: the first in input order (default) or the longest
    /// (default with --measure containment).
    #[arg(long, value_enum, help_heading = METHOD)]
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
    #[arg(long, value_enum, default_value = "center", value_name = "MODE", help_heading = METHOD)]
    pub cluster: ClusterMode,
    /// `--minhash` and `--max-bucket`.
    #[command(flatten)]
    pub minhash: MethodFlags<MinHashRest>,
    /// Most pairs one group is expanded to: the documents of a large LSH bucket are all verified
    /// against each other, and the pairs file lists every pair of an exact-copy group and of the
    /// copies of two near-duplicates, up to this many pairs per group. Larger groups are compared with a
    /// few anchors and listed by their first document; the summary counts them.
    #[arg(long, value_name = "N", default_value_t = lookalike::candidates::lsh::DEFAULT_MAX_PAIRS_PER_GROUP, help_heading = METHOD)]
    pub max_pairs_per_group: u64,

    #[command(flatten)]
    pub methods: MethodArgs,

    #[command(flatten)]
    pub input: InputArgs,

    #[command(flatten)]
    pub boilerplate: BoilerplateArgs,

    /// Write verified pairs as TSV (id1, id2, similarity) to FILE (- for stdout).
    #[arg(long, value_name = "FILE", help_heading = OUTPUT)]
    pub pairs: Option<String>,
    /// Write clusters as JSONL to FILE (- for stdout).
    #[arg(long, value_name = "FILE", help_heading = OUTPUT)]
    pub clusters: Option<String>,
    /// Write the deduplicated collection as JSONL to FILE (- for stdout): the kept documents and,
    /// unless --skipped drop, the skipped records.
    #[arg(long, short = 'o', value_name = "FILE", help_heading = OUTPUT)]
    pub output: Option<String>,
    /// Write every input document's fate as JSONL to FILE (- for stdout).
    #[arg(long, value_name = "FILE", help_heading = OUTPUT)]
    pub report: Option<String>,
    /// Write the run's figures (counts, times, MB/s, peak memory, settings) as JSON to FILE.
    #[arg(long, value_name = "FILE", help_heading = OUTPUT)]
    pub stats: Option<String>,
    /// Write a self-contained HTML report of the run to FILE: run card, similarity histogram,
    /// clusters, side-by-side diffs of sampled pairs around the threshold, duplicate rates. The
    /// texts of the sampled pairs are read again from the inputs.
    #[arg(long, value_name = "FILE", help_heading = OUTPUT)]
    pub html: Option<String>,
    /// Largest size of the --html report (bytes, or with a K, M or G suffix): pairs and texts are
    /// sampled down to fit, and the page says so.
    #[arg(long, value_name = "SIZE", default_value = "4M", value_parser = parse_size, help_heading = OUTPUT)]
    pub html_max_size: usize,
    /// Write a run file (JSON: the command, the --stats figures, the paths of --pairs, --clusters
    /// and --report, which it needs) for `lookalike report --run FILE`.
    #[arg(long = "run", value_name = "FILE", help_heading = OUTPUT)]
    pub run_file: Option<String>,
    /// What --output does with the records that were skipped (unreadable, empty, no text): keep
    /// (write them as they were read, so that rewriting a file in place loses only the
    /// duplicates) or drop (the kept documents only).
    #[arg(long, value_enum, default_value = "keep", value_name = "MODE", help_heading = OUTPUT)]
    pub skipped: SkippedInOutput,

    /// Worker threads (default: all cores).
    #[arg(long, short = 'j', help_heading = PERFORMANCE)]
    pub threads: Option<usize>,
    /// Directory for the temporary files: the shingle sets of exact verification, the --output
    /// records until the fates are known, the sorted runs of Broder's algorithm (default: the
    /// system temporary directory).
    #[arg(long, value_name = "DIR", help_heading = PERFORMANCE)]
    pub spill_dir: Option<PathBuf>,
    /// Memory for the shingle sets of exact verification before they spill to --spill-dir (once
    /// spilled, for the sorted sets verification reads more than once), and for each sort of
    /// Broder's algorithm (mod-m, min-s, broder) before it spills sorted runs (bytes, or with a
    /// K, M or G suffix). Not a bound on the process: signatures, ids and the reading buffers
    /// come on top (bench/memory.sh measures it).
    #[arg(long, visible_alias = "memory", value_name = "SIZE", default_value = "256M", value_parser = parse_size, help_heading = PERFORMANCE)]
    pub spill_memory: usize,
}

/// The headings of `dedup --help`.
pub const METHOD: &str = "Method options";
pub const OUTPUT: &str = "Output options";
pub const PERFORMANCE: &str = "Performance options";

/// What `--output` does with skipped records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SkippedInOutput {
    /// Written as they were read (the original JSONL line or Parquet row; for files and WARC
    /// records `{id, ..., "skipped": reason}`).
    Keep,
    /// Left out: --output holds the kept documents only.
    Drop,
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
