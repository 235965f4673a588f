//! `lookalike-bench`: corpus generation, exact truth, scoring and the speed baseline.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use lookalike::shingles::ShingleKind;
use lookalike_bench::baseline;
use lookalike_bench::corpus::{self, CorpusOptions};
use lookalike_bench::extraction;
use lookalike_bench::files::{AtomicFile, Fields};
use lookalike_bench::homework::{self, HomeworkOptions};
use lookalike_bench::langbench;
use lookalike_bench::pool::{Pool, PoolOptions, Source, default_sources};
use lookalike_bench::score::{self, ScoreOptions};
use lookalike_bench::truth::{self, TruthOptions};
use lookalike_bench::warcpack;

#[derive(Debug, Parser)]
#[command(
    name = "lookalike-bench",
    version,
    about = "Benchmark corpora, exact truth and scores for lookalike"
)]
struct Cli {
    /// Worker threads (default: all cores).
    #[arg(long, global = true)]
    threads: Option<usize>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Build a JSONL corpus of real text with planted near-duplicates.
    GenCorpus(GenArgs),
    /// Add planted near-duplicates to a JSONL of whole pages (template and all).
    Plant(PlantArgs),
    /// Find every pair of documents with Jaccard ≥ a threshold, exactly.
    Truth(TruthArgs),
    /// Score found pairs (TSV id1 id2 similarity) against a truth file.
    Score(ScoreArgs),
    /// Measure the read + tokenize floor on a corpus (single thread).
    Baseline(BaselineArgs),
    /// Build a collection in the lecture's homework format (docreader records in .gz files) from
    /// real HTML pages, with planted near-duplicates.
    HomeworkGen(HomeworkArgs),
    /// Score main-content extractors on the article-extraction benchmark (quality and MB/s).
    ExtractionBench(extraction::BenchArgs),
    /// Pack folders of HTML pages into gzipped WARC files of response records (web pages at scale).
    PackWarc(warcpack::PackArgs),
    /// Language detection against whatlang alone: accuracy per language and time per document.
    LangBench(langbench::LangBenchArgs),
    /// Bounded HTTP load on `lookalike serve`: checks, batch checks or inserts over N keep-alive
    /// connections; one JSON line of requests/s and latency percentiles.
    Load(lookalike_bench::load::LoadArgs),
    /// Where one core's time goes on the text path, per language: normalize, shingles, MinHash,
    /// fingerprint, against `unicode_words` on the same texts (fastest of N passes).
    TextStages(lookalike_bench::stages::StagesArgs),
    /// The persistent index's workload on one embedded store (batched adds, single checks,
    /// single durable inserts, bytes on disk, peak RSS); one JSON line. fjall, lmdb and sqlite
    /// need the feature index-engines.
    IndexStorage(lookalike_bench::index_storage::IndexStorageArgs),
}

#[derive(Debug, Args)]
struct GenArgs {
    /// Directories (or files) of HTML/text, as LANG=DIR or DIR (language guessed from the path).
    /// Default: the installed Debian manuals (gimp-help-*, debian-handbook, libreoffice-help-*,
    /// doublecmd-help-uk, ubuntu-packaging-guide-html-uk).
    #[arg(long, num_args = 1.., value_name = "[LANG=]DIR")]
    source: Vec<String>,
    /// Use the default sources as well as those given with --source.
    #[arg(long)]
    with_defaults: bool,
    /// Number of documents.
    #[arg(long, default_value_t = 20_000)]
    docs: u64,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output corpus (JSONL: id, lang, text).
    #[arg(long)]
    out: PathBuf,
    /// Output planted pairs (TSV: id1 id2 jaccard kind).
    #[arg(long)]
    planted: Option<PathBuf>,
    /// Fraction of documents that are planted variants.
    #[arg(long, default_value_t = 0.3)]
    variant_fraction: f64,
    /// Fraction of variants made from another variant.
    #[arg(long, default_value_t = 0.2)]
    chain_fraction: f64,
    /// Smallest base document, in words.
    #[arg(long, default_value_t = 150)]
    min_words: usize,
    /// Largest base document, in words.
    #[arg(long, default_value_t = 2000)]
    max_words: usize,
    /// Shorter source paragraphs are not used.
    #[arg(long, default_value_t = 8)]
    min_paragraph_words: usize,
    /// Shingles for the planted pairs' Jaccard.
    #[arg(long, default_value = "words:5")]
    shingle: ShingleKind,
    /// Seed of the shingle hashes (use the `--seed` of the `lookalike dedup` run).
    #[arg(long, default_value_t = 1)]
    shingle_seed: u64,
}

#[derive(Debug, Args)]
struct HomeworkArgs {
    /// A file listing the HTML pages to use, one path a line.
    #[arg(long)]
    pages: PathBuf,
    /// Records to write in all (originals, composites and planted variants).
    #[arg(long, default_value_t = 200_000)]
    docs: u64,
    /// Number of .gz files.
    #[arg(long, default_value_t = 8)]
    parts: usize,
    /// Fraction of records that are planted variants.
    #[arg(long, default_value_t = 0.3)]
    variant_fraction: f64,
    /// Pages larger than this many bytes are left out.
    #[arg(long, default_value_t = 65536)]
    max_page_bytes: u64,
    /// Pages with fewer words in their body (outside tags) are left out.
    #[arg(long, default_value_t = 100)]
    min_words: usize,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output directory (part-NNN.gz files).
    #[arg(long)]
    out: PathBuf,
    /// Output planted pairs (TSV: parent url, variant url, kind).
    #[arg(long)]
    planted: PathBuf,
}

#[derive(Debug, Args)]
struct PlantArgs {
    /// Pages (JSONL with id and text, e.g. from `lookalike extract --jsonl`).
    #[arg(long)]
    corpus: PathBuf,
    /// Output corpus (JSONL: id, text): the pages, then the variants (ids PARENT~vN).
    #[arg(long)]
    out: PathBuf,
    /// Variants to add, as a fraction of the pages.
    #[arg(long, default_value_t = 0.3)]
    variant_fraction: f64,
    /// Fraction of variants made from an earlier variant.
    #[arg(long, default_value_t = 0.2)]
    chain_fraction: f64,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Language of the pages (word edits and dates).
    #[arg(long, default_value = "en")]
    lang: String,
    #[command(flatten)]
    fields: FieldArgs,
}

#[derive(Debug, Args)]
struct FieldArgs {
    /// JSON field with the document id.
    #[arg(long, default_value = "id")]
    id_field: String,
    /// JSON field with the document text.
    #[arg(long, default_value = "text")]
    text_field: String,
}

impl FieldArgs {
    fn fields(&self) -> Fields {
        Fields { id: self.id_field.clone(), text: self.text_field.clone() }
    }
}

#[derive(Debug, Args)]
struct TruthArgs {
    /// Corpus (JSONL).
    #[arg(long)]
    corpus: PathBuf,
    /// Report pairs with Jaccard at least this.
    #[arg(long, default_value_t = 0.5)]
    threshold: f64,
    /// Shingles compared (as in `lookalike dedup`).
    #[arg(long, default_value = "words:5")]
    shingle: ShingleKind,
    /// Seed of the shingle hashes (use the `--seed` of the `lookalike dedup` run).
    #[arg(long, default_value_t = 1)]
    shingle_seed: u64,
    #[command(flatten)]
    fields: FieldArgs,
    /// Output (TSV: id1 id2 jaccard, after one '#' settings line).
    #[arg(long)]
    out: PathBuf,
}

#[derive(Debug, Args)]
struct ScoreArgs {
    /// Pairs found by a run (TSV: id1 id2 similarity).
    #[arg(long)]
    pairs: PathBuf,
    /// Truth file from `lookalike-bench truth`.
    #[arg(long)]
    truth: PathBuf,
    /// The threshold the run was asked for.
    #[arg(long, default_value_t = 0.8)]
    threshold: f64,
    /// Also report recall for pairs with Jaccard ≥ threshold + margin.
    #[arg(long, default_value_t = 0.05)]
    margin: f64,
    /// The truth file's threshold, if its header line is missing.
    #[arg(long)]
    truth_threshold: Option<f64>,
    /// Planted pairs from `gen-corpus`, for recall per edit kind.
    #[arg(long)]
    planted: Option<PathBuf>,
    /// How many of the most similar missed pairs to list.
    #[arg(long, default_value_t = 10)]
    worst: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct BaselineArgs {
    /// Corpus (JSONL).
    #[arg(long)]
    corpus: PathBuf,
    #[command(flatten)]
    fields: FieldArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

fn main() {
    let cli = Cli::parse();
    if let Err(e) = run(cli) {
        eprintln!("lookalike-bench: error: {e:#}");
        std::process::exit(1);
    }
}

fn run(cli: Cli) -> Result<()> {
    if let Some(n) = cli.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .context("setting up the thread pool")?;
    }
    match cli.command {
        Command::GenCorpus(a) => gen_corpus(a),
        Command::Plant(a) => run_plant(a),
        Command::HomeworkGen(a) => run_homework(a),
        Command::Truth(a) => run_truth(a),
        Command::Score(a) => run_score(a),
        Command::Baseline(a) => run_baseline(a),
        Command::ExtractionBench(a) => {
            stdout_write(&extraction::run_cli(&a, extraction::builtin_extractors())?)
        }
        Command::PackWarc(a) => run_pack_warc(&a),
        Command::LangBench(a) => stdout_write(&langbench::run(&a)?),
        Command::Load(a) => {
            let report = lookalike_bench::load::run(&a)?;
            stdout_write(&format!("{}\n", serde_json::to_string(&report)?))
        }
        Command::TextStages(a) => stdout_write(&lookalike_bench::stages::run(&a)?),
        Command::IndexStorage(a) => {
            let report = lookalike_bench::index_storage::run(&a)?;
            stdout_write(&format!("{}\n", serde_json::to_string(&report)?))
        }
    }
}

fn run_pack_warc(a: &warcpack::PackArgs) -> Result<()> {
    let start = Instant::now();
    let packed = warcpack::pack(a)?;
    for (path, why) in &packed.skipped {
        eprintln!("skipped {}: {why}", path.display());
    }
    eprintln!(
        "packed {} pages ({:.1} MB of HTML) into {} WARC files in {} ({} skipped) in {:.1} s",
        packed.pages,
        packed.html_bytes as f64 / 1e6,
        packed.files,
        a.out.display(),
        packed.skipped.len(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

fn stdout_write(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

fn run_homework(a: HomeworkArgs) -> Result<()> {
    let start = Instant::now();
    let opts = HomeworkOptions {
        docs: a.docs,
        parts: a.parts,
        variant_fraction: a.variant_fraction,
        max_page_bytes: a.max_page_bytes,
        min_words: a.min_words,
        seed: a.seed,
    };
    let stats = homework::generate(&a.pages, &a.out, &a.planted, &opts)?;
    let kinds: Vec<String> = stats.variants.iter().map(|(k, n)| format!("{k} {n}")).collect();
    eprintln!(
        "wrote {} records ({} originals of {} pages, {} composites; variants: {}) in {} files, \
         {:.1} MB of HTML, in {:.1} s",
        stats.records,
        stats.originals,
        stats.pages,
        stats.composites,
        kinds.join(", "),
        stats.files.len(),
        stats.html_bytes as f64 / 1e6,
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

fn gen_corpus(a: GenArgs) -> Result<()> {
    let mut sources: Vec<Source> = a.source.iter().map(|s| s.parse()).collect::<Result<_>>()?;
    if a.source.is_empty() || a.with_defaults {
        let d = default_sources();
        if d.is_empty() && sources.is_empty() {
            bail!(
                "no --source given and no default source installed: apt-get install gimp-help-en \
                 gimp-help-ru gimp-help-uk gimp-help-ja gimp-help-zh-cn debian-handbook \
                 libreoffice-help-en-us libreoffice-help-ru libreoffice-help-ja \
                 libreoffice-help-zh-cn doublecmd-help-uk ubuntu-packaging-guide-html-uk"
            );
        }
        sources.splice(0..0, d);
    }
    if !(0.0..=1.0).contains(&a.variant_fraction) || !(0.0..=1.0).contains(&a.chain_fraction) {
        bail!("--variant-fraction and --chain-fraction must be between 0 and 1");
    }
    if a.min_words == 0 || a.min_words > a.max_words {
        bail!("need 0 < --min-words ≤ --max-words");
    }
    let start = Instant::now();
    let pool = Pool::build(
        &sources,
        PoolOptions { min_words: a.min_paragraph_words, ..PoolOptions::default() },
    )?;
    for l in &pool.langs {
        eprintln!("pool {}: {} paragraphs, {} words", l.lang, l.paragraphs.len(), l.total_words);
    }
    eprintln!("pool built in {:.1} s", start.elapsed().as_secs_f64());
    let opts = CorpusOptions {
        docs: a.docs,
        seed: a.seed,
        variant_fraction: a.variant_fraction,
        chain_fraction: a.chain_fraction,
        min_words: a.min_words,
        max_words: a.max_words,
        shingle: a.shingle,
        shingle_seed: a.shingle_seed,
        ..CorpusOptions::default()
    };
    let start = Instant::now();
    let mut out = AtomicFile::create(&a.out)?;
    let mut planted = a.planted.as_deref().map(AtomicFile::create).transpose()?;
    let step = (a.docs / 10).max(10_000);
    let mut next_report = step;
    let mut progress = |done: u64| {
        if done >= next_report && done < a.docs {
            eprintln!("{done} documents ({:.1} s)", start.elapsed().as_secs_f64());
            next_report += step;
        }
    };
    let stats = corpus::generate(
        &pool,
        &opts,
        &mut out,
        planted.as_mut().map(|p| p as &mut dyn Write),
        &mut progress,
    )?;
    out.commit()?;
    if let Some(p) = planted {
        p.commit()?;
    }
    eprintln!(
        "wrote {} documents ({} base, {:.1} MB of text, {} planted pairs) in {:.1} s",
        stats.docs,
        stats.base_docs,
        stats.text_bytes as f64 / 1e6,
        stats.planted_pairs,
        start.elapsed().as_secs_f64()
    );
    let langs: Vec<String> = stats.docs_per_lang.iter().map(|(l, c)| format!("{l} {c}")).collect();
    eprintln!("languages: {}", langs.join(", "));
    let kinds: Vec<String> =
        stats.variants_per_kind.iter().map(|(k, c)| format!("{k} {c}")).collect();
    eprintln!("variants: {}", kinds.join(", "));
    Ok(())
}

fn run_truth(a: TruthArgs) -> Result<()> {
    let opts = TruthOptions {
        threshold: a.threshold,
        shingle: a.shingle,
        shingle_seed: a.shingle_seed,
        fields: a.fields.fields(),
    };
    let t = truth::compute(&a.corpus, &opts)?;
    let mut out = AtomicFile::create(&a.out)?;
    truth::write_tsv(&t, &opts, &mut out)?;
    out.commit()?;
    let s = &t.stats;
    eprintln!(
        "truth: {} docs ({} without shingles), {} shingles; {} pairs with J ≥ {}; \
         shingling {:.1} s, join {:.1} s",
        s.docs, s.empty_docs, s.shingles, s.pairs, a.threshold, s.shingle_secs, s.join_secs
    );
    Ok(())
}

fn run_score(a: ScoreArgs) -> Result<()> {
    let opts = ScoreOptions {
        threshold: a.threshold,
        margin: a.margin,
        truth_threshold: a.truth_threshold,
        worst: a.worst,
    };
    let s = score::score(&a.pairs, &a.truth, a.planted.as_deref(), &opts)?;
    if a.json {
        stdout_write(&(serde_json::to_string(&s)? + "\n"))
    } else {
        stdout_write(&score::render_text(&s))
    }
}

fn run_plant(a: PlantArgs) -> Result<()> {
    if !(0.0..=10.0).contains(&a.variant_fraction) || !(0.0..=1.0).contains(&a.chain_fraction) {
        bail!("need 0 ≤ --variant-fraction ≤ 10 and 0 ≤ --chain-fraction ≤ 1");
    }
    let input = std::fs::File::open(&a.corpus)
        .with_context(|| format!("opening {}", a.corpus.display()))?;
    let opts = lookalike_bench::plant::PlantOptions {
        variant_fraction: a.variant_fraction,
        chain_fraction: a.chain_fraction,
        seed: a.seed,
        lang: a.lang.clone(),
    };
    let mut out = AtomicFile::create(&a.out)?;
    let stats = lookalike_bench::plant::plant(
        std::io::BufReader::new(input),
        &a.fields.fields(),
        &opts,
        &mut out,
    )?;
    out.commit()?;
    let kinds: Vec<String> = stats.variants.iter().map(|(k, n)| format!("{k} {n}")).collect();
    eprintln!("{} pages, variants: {}", stats.pages, kinds.join(", "));
    Ok(())
}

fn run_baseline(a: BaselineArgs) -> Result<()> {
    let b = baseline::run(&a.corpus, &a.fields.fields())?;
    if a.json {
        stdout_write(&(serde_json::to_string(&b)? + "\n"))
    } else {
        stdout_write(&format!(
            "baseline (read JSONL + unicode_words, 1 thread): {} docs, {:.1} MB text, {} words\n\
             {:.2} s wall: {:.1} MB/s, {:.0} docs/s (segmentation alone: {:.2} s, {:.1} MB/s)\n",
            b.docs,
            b.text_mb,
            b.words,
            b.seconds,
            b.mb_per_s,
            b.docs_per_s,
            b.tokenize_seconds,
            b.tokenize_mb_per_s
        ))
    }
}
