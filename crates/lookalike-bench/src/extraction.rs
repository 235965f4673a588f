//! The `extraction-bench` command: contract: "give me main-content extractors, I give you their
//! precision, recall, F1 and speed on real article pages, scored as the benchmark's authors score
//! them".
//!
//! The data is the article-extraction benchmark (181 real pages, `html/<sha256>.html.gz`, and
//! `ground-truth.json`: `{sha256: {"articleBody", "url"}}`). The metric is the benchmark's own,
//! re-implemented from its description and checked against its published evaluation script:
//!
//! - tokens are runs of word characters, Python's `\w+`: letters (any `L*` category), numbers
//!   (any `N*` category) and `_`; combining marks are *not* word characters there, so they split
//!   tokens here too;
//! - each text becomes the multiset of its 4-token shingles; a text of 1 to 3 tokens is one
//!   shingle of all its tokens, a text of none has none;
//! - per page, TP = Σ min(gold, predicted), FP = Σ max(0, predicted − gold), FN = Σ max(0, gold −
//!   predicted) over shingles, then "normalised to sum to 1": each divided by TP + FP + FN (so
//!   that long pages weigh no more than short ones; the ratios below do not change);
//! - per page, precision = TP / (TP + FP), defined when TP + FP > 0 (something was predicted), and
//!   recall = TP / (TP + FN), defined when TP + FN > 0 (the gold is not empty); the averages skip
//!   pages where they are undefined, and F1 = 2PR / (P + R) of the two averages.
//!
//! Speed is MB of HTML (10^6 bytes, the decompressed page) per second of one thread, timing only
//! the extractor's call: reading and gunzip are not timed. Each page is extracted `repeat` times
//! and its fastest run counts, which keeps the figure steady on a busy machine; the text of the
//! first run is scored.
//!
//! Extractors are values ([`Extractor`]): the built-in ones are the all-visible-text baseline
//! and lookalike's main-content extractor; the comparison of third-party crates that led to the
//! choice lives in `crates/lookalike-bench/candidates/`, a separate package (so that their
//! dependencies and version pins stay out of the workspace) that runs this same code with more
//! extractors.

use std::collections::{BTreeMap, HashMap};
use std::fmt::{self, Write as _};
use std::io::Read;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use flate2::read::GzDecoder;
use serde::{Deserialize, Serialize};
use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};

/// Where the benchmark is looked for when `--data` is not given: beside the repository, as the
/// shared data folder is laid out (relative to the working directory, the repository root).
pub const DEFAULT_DATA: &str = "../shared/data/article-extraction-benchmark";

/// Words per shingle in the benchmark's metric.
pub const SHINGLE: usize = 4;

/// Command-line arguments of `extraction-bench`.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchArgs {
    /// The benchmark folder (with `html/` and `ground-truth.json`).
    #[arg(long, default_value = DEFAULT_DATA)]
    pub data: PathBuf,
    /// Extractors to run, in this order (repeatable; default: all). `--list` names them.
    #[arg(long = "extractor", value_name = "NAME")]
    pub extractors: Vec<String>,
    /// List the available extractors and exit.
    #[arg(long)]
    pub list: bool,
    /// Extract each page this many times and time its fastest run.
    #[arg(long, default_value_t = 3)]
    pub repeat: usize,
    /// For each extractor, list this many pages with the lowest F1.
    #[arg(long, default_value_t = 0)]
    pub worst: usize,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Compare every extractor with this one page by page: list each page where an extractor's
    /// F1 is more than 0.05 below the baseline's, with both scores (the baseline is run even when
    /// not selected).
    #[arg(long, value_name = "NAME")]
    pub baseline: Option<String>,
    /// Speed mode: instead of the benchmark, extract every `*.html` file under DIR (UTF-8, bad
    /// bytes replaced) and report MB/s per extractor (one thread, the fastest of `--repeat`
    /// passes over all files) and the ratio to the all-visible-text extractor `text`, which is
    /// always run too.
    #[arg(long, value_name = "DIR")]
    pub html_dir: Option<PathBuf>,
    /// Print how lookalike's extractor decided on the benchmark page whose key starts with
    /// PREFIX (its best candidates and chosen subtrees), then exit.
    #[arg(long, value_name = "PREFIX")]
    pub explain: Option<String>,
    /// Write each extractor's texts to DIR/NAME.json, in the benchmark's own output format
    /// (`{sha256: {"articleBody": text}}`), for its evaluation script.
    #[arg(long, value_name = "DIR")]
    pub dump: Option<PathBuf>,
}

/// One benchmark page: its HTML and the gold article body.
#[derive(Debug, Clone)]
pub struct Page {
    /// The page's key in `ground-truth.json` (the SHA-256 of the page).
    pub id: String,
    /// The page's address, when the ground truth gives one.
    pub url: Option<String>,
    /// The page, decompressed (UTF-8; invalid bytes replaced with U+FFFD).
    pub html: String,
    /// The gold article body.
    pub gold: String,
}

#[derive(Deserialize)]
struct GoldEntry {
    #[serde(rename = "articleBody", default)]
    article_body: Option<String>,
    #[serde(default)]
    url: Option<String>,
}

/// Reads the benchmark in `dir`, in the order of the pages' keys.
pub fn load_pages(dir: &Path) -> Result<Vec<Page>> {
    let truth_path = dir.join("ground-truth.json");
    let truth = fs_err::read(&truth_path).with_context(|| {
        format!("the article-extraction benchmark is not at {} (see --data)", dir.display())
    })?;
    let truth: BTreeMap<String, GoldEntry> = serde_json::from_slice(&truth)
        .with_context(|| format!("reading {}", truth_path.display()))?;
    let mut pages = Vec::with_capacity(truth.len());
    for (id, entry) in truth {
        let path = dir.join("html").join(format!("{id}.html.gz"));
        let mut bytes = Vec::new();
        GzDecoder::new(fs_err::File::open(&path)?)
            .read_to_end(&mut bytes)
            .with_context(|| format!("decompressing {}", path.display()))?;
        let html = match String::from_utf8(bytes) {
            Ok(html) => html,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        pages.push(Page { id, url: entry.url, html, gold: entry.article_body.unwrap_or_default() });
    }
    Ok(pages)
}

/// What an extractor's function returns: the main text, or why there is none.
pub type ExtractResult = std::result::Result<String, String>;

type ExtractFn = dyn Fn(&str, Option<&str>) -> ExtractResult + Send + Sync;

/// A named main-content extractor: HTML (already decoded) and the page's URL in, text out.
pub struct Extractor {
    name: String,
    about: String,
    run: Box<ExtractFn>,
}

impl Extractor {
    /// An extractor named `name` (what `--extractor` selects), described by `about`.
    pub fn new(
        name: impl Into<String>,
        about: impl Into<String>,
        run: impl Fn(&str, Option<&str>) -> ExtractResult + Send + Sync + 'static,
    ) -> Extractor {
        Extractor { name: name.into(), about: about.into(), run: Box::new(run) }
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What it is (crate, version, options).
    pub fn about(&self) -> &str {
        &self.about
    }

    /// Extracts the main text of `html`.
    pub fn extract(&self, html: &str, url: Option<&str>) -> ExtractResult {
        (self.run)(html, url)
    }
}

impl fmt::Debug for Extractor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Extractor").field("name", &self.name).field("about", &self.about).finish()
    }
}

/// The extractors built in: lookalike's main content, the `trafilatura` crate as lookalike used
/// it before, and all visible text (the baseline of the speed mode).
pub fn builtin_extractors() -> Vec<Extractor> {
    vec![
        Extractor::new(
            "main",
            "lookalike_io::extract_main (lookalike's own main-content extractor, falling back to all visible text)",
            |html, url| Ok(lookalike_io::extract_main(html, url).text),
        ),
        Extractor::new(
            "trafilatura",
            "the trafilatura crate 0.6 as lookalike used it before its own extractor (fallback on, FavorPrecision)",
            |html, url| Ok(crate::trafilatura_baseline::extract(html, url)),
        ),
        Extractor::new(
            "text",
            "lookalike_io::html_to_text (all visible text, title first)",
            |html, _| Ok(lookalike_io::html_to_text(html.as_bytes())),
        ),
    ]
}

/// Whether `c` matches Python's `\w` in a `str` pattern: `str.isalnum()` or `_`.
fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    matches!(
        c.general_category_group(),
        GeneralCategoryGroup::Letter | GeneralCategoryGroup::Number
    )
}

/// The benchmark's tokens: maximal runs of word characters (Python's `\w+`).
pub fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (is_word_char(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(&text[s..i]);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(&text[s..]);
    }
    out
}

/// The multiset of a token list's shingles of [`SHINGLE`] tokens (one shingle of all the tokens
/// when there are fewer, none when there are none).
fn shingles<'a, 't>(tokens: &'a [&'t str]) -> HashMap<&'a [&'t str], u32> {
    let mut counts = HashMap::new();
    if tokens.is_empty() {
        return counts;
    }
    if tokens.len() < SHINGLE {
        counts.insert(tokens, 1);
    } else {
        for w in tokens.windows(SHINGLE) {
            *counts.entry(w).or_insert(0) += 1;
        }
    }
    counts
}

/// One page's shingle overlap, normalised so that `tp + fp + fn_ == 1` (all zero when neither
/// text has a token).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Overlap {
    /// Shingles both in the gold and in the prediction (multiset intersection).
    pub tp: f64,
    /// Predicted shingles not in the gold.
    pub fp: f64,
    /// Gold shingles not predicted.
    #[serde(rename = "fn")]
    pub fn_: f64,
}

impl Overlap {
    /// Precision, when something was predicted.
    pub fn precision(&self) -> Option<f64> {
        (self.tp + self.fp > 0.0).then(|| self.tp / (self.tp + self.fp))
    }

    /// Recall, when the gold is not empty.
    pub fn recall(&self) -> Option<f64> {
        (self.tp + self.fn_ > 0.0).then(|| self.tp / (self.tp + self.fn_))
    }

    /// The page's own F1 (for listing the worst pages; the benchmark's F1 is not their mean).
    pub fn f1(&self) -> f64 {
        let (p, r) = (self.precision().unwrap_or(0.0), self.recall().unwrap_or(0.0));
        if p + r > 0.0 { 2.0 * p * r / (p + r) } else { 0.0 }
    }
}

/// The benchmark's per-page comparison of a predicted text with the gold one.
pub fn shingle_overlap(gold: &str, predicted: &str) -> Overlap {
    let (gold_tokens, pred_tokens) = (tokens(gold), tokens(predicted));
    let (gold, pred) = (shingles(&gold_tokens), shingles(&pred_tokens));
    let (mut tp, mut fp, mut fn_) = (0u64, 0u64, 0u64);
    for (shingle, &g) in &gold {
        let p = pred.get(shingle).copied().unwrap_or(0);
        tp += u64::from(g.min(p));
        fn_ += u64::from(g.saturating_sub(p));
    }
    for (shingle, &p) in &pred {
        let g = gold.get(shingle).copied().unwrap_or(0);
        fp += u64::from(p.saturating_sub(g));
    }
    let sum = (tp + fp + fn_) as f64;
    if sum == 0.0 {
        return Overlap::default();
    }
    Overlap { tp: tp as f64 / sum, fp: fp as f64 / sum, fn_: fn_ as f64 / sum }
}

/// Precision and recall averaged over the pages where each is defined, and F1 of the averages.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Scores {
    /// Mean precision (`None` when no page has one).
    pub precision: Option<f64>,
    /// Mean recall (`None` when no page has one).
    pub recall: Option<f64>,
    /// 2PR / (P + R) of the two means.
    pub f1: Option<f64>,
    /// Pages averaged for precision.
    pub precision_pages: usize,
    /// Pages averaged for recall.
    pub recall_pages: usize,
}

/// The benchmark's scores over pages.
pub fn scores(pages: &[Overlap]) -> Scores {
    let mean = |values: Vec<f64>| {
        let n = values.len();
        ((n > 0).then(|| values.iter().sum::<f64>() / n as f64), n)
    };
    let (precision, precision_pages) = mean(pages.iter().filter_map(Overlap::precision).collect());
    let (recall, recall_pages) = mean(pages.iter().filter_map(Overlap::recall).collect());
    let f1 = match (precision, recall) {
        (Some(p), Some(r)) if p + r > 0.0 => Some(2.0 * p * r / (p + r)),
        (Some(_), Some(_)) => Some(0.0),
        _ => None,
    };
    Scores { precision, recall, f1, precision_pages, recall_pages }
}

/// A page an extractor did worst on.
#[derive(Debug, Clone, Serialize)]
pub struct PageResult {
    /// The page's key.
    pub id: String,
    /// The page's address.
    pub url: Option<String>,
    /// Its overlap with the gold.
    pub overlap: Overlap,
    /// The page's own F1.
    pub f1: f64,
    /// Characters extracted.
    pub chars: usize,
}

/// One extractor's results on the benchmark.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The extractor's name.
    pub extractor: String,
    /// What it is.
    pub about: String,
    /// Pages run.
    pub pages: usize,
    /// The benchmark's scores.
    pub scores: Scores,
    /// Pages where the extractor gave no text (counting errors and panics).
    pub empty: usize,
    /// Pages where it returned an error.
    pub errors: usize,
    /// Pages where it panicked.
    pub panics: usize,
    /// MB (10^6 bytes) of HTML extracted per pass.
    pub html_mb: f64,
    /// Seconds of extraction per pass (each page's fastest run).
    pub seconds: f64,
    /// html_mb / seconds, one thread.
    pub mb_per_s: f64,
    /// Its slowest page, in milliseconds (fastest run).
    pub slowest_page_ms: f64,
    /// The pages with the lowest F1, lowest first.
    pub worst: Vec<PageResult>,
    /// Every page's F1, in the order of [`BenchOutput::page_ids`].
    pub page_f1: Vec<f64>,
    /// Pages more than [`BASELINE_MARGIN`] F1 below the baseline (`--baseline`), by page order.
    pub below_baseline: Vec<BaselineDiff>,
}

/// How much worse than the baseline a page may be before `--baseline` lists it.
pub const BASELINE_MARGIN: f64 = 0.05;

/// A page where an extractor is more than [`BASELINE_MARGIN`] F1 below the baseline.
#[derive(Debug, Clone, Serialize)]
pub struct BaselineDiff {
    /// The page's key.
    pub id: String,
    /// The page's address.
    pub url: Option<String>,
    /// The extractor's F1 on the page.
    pub f1: f64,
    /// The baseline's F1 on the page.
    pub baseline_f1: f64,
}

/// The pages where `report` is more than [`BASELINE_MARGIN`] F1 below `baseline` (both run over
/// `pages`).
pub fn below_baseline(pages: &[Page], report: &Report, baseline: &Report) -> Vec<BaselineDiff> {
    pages
        .iter()
        .zip(report.page_f1.iter().zip(&baseline.page_f1))
        .filter(|(_, (f1, b))| **f1 < **b - BASELINE_MARGIN)
        .map(|(p, (&f1, &baseline_f1))| BaselineDiff {
            id: p.id.clone(),
            url: p.url.clone(),
            f1,
            baseline_f1,
        })
        .collect()
}

/// Runs `extractor` over `pages`: `repeat` runs per page (at least one), the fastest timed.
pub fn bench(pages: &[Page], extractor: &Extractor, repeat: usize, worst: usize) -> Report {
    bench_with_texts(pages, extractor, repeat, worst).0
}

/// [`bench()`], also returning the text extracted from each page (empty after an error or panic).
pub fn bench_with_texts(
    pages: &[Page],
    extractor: &Extractor,
    repeat: usize,
    worst: usize,
) -> (Report, Vec<String>) {
    let (mut empty, mut errors, mut panics) = (0, 0, 0);
    let mut total = Duration::ZERO;
    let mut slowest = Duration::ZERO;
    let mut html_bytes = 0usize;
    let mut results = Vec::with_capacity(pages.len());
    let mut texts = Vec::with_capacity(pages.len());
    for page in pages {
        let url = page.url.as_deref();
        let mut fastest = Duration::MAX;
        let mut text = None;
        for _ in 0..repeat.max(1) {
            let start = Instant::now();
            let out = catch_unwind(AssertUnwindSafe(|| extractor.extract(&page.html, url)));
            fastest = fastest.min(start.elapsed());
            text.get_or_insert(out);
        }
        total += fastest;
        slowest = slowest.max(fastest);
        html_bytes += page.html.len();
        let text = match text.expect("ran at least once") {
            Ok(Ok(text)) => text,
            Ok(Err(_)) => {
                errors += 1;
                String::new()
            }
            Err(_) => {
                panics += 1;
                String::new()
            }
        };
        if text.trim().is_empty() {
            empty += 1;
        }
        let overlap = shingle_overlap(&page.gold, &text);
        results.push(PageResult {
            id: page.id.clone(),
            url: page.url.clone(),
            overlap,
            f1: overlap.f1(),
            chars: text.chars().count(),
        });
        texts.push(text);
    }
    let overlaps: Vec<Overlap> = results.iter().map(|r| r.overlap).collect();
    let page_f1: Vec<f64> = results.iter().map(|r| r.f1).collect();
    let seconds = total.as_secs_f64();
    let html_mb = html_bytes as f64 / 1e6;
    results.sort_by(|a, b| a.f1.total_cmp(&b.f1).then_with(|| a.id.cmp(&b.id)));
    results.truncate(worst);
    let report = Report {
        extractor: extractor.name.clone(),
        about: extractor.about.clone(),
        pages: pages.len(),
        scores: scores(&overlaps),
        empty,
        errors,
        panics,
        html_mb,
        seconds,
        mb_per_s: if seconds > 0.0 { html_mb / seconds } else { f64::INFINITY },
        slowest_page_ms: slowest.as_secs_f64() * 1e3,
        worst: results,
        page_f1,
        below_baseline: Vec::new(),
    };
    (report, texts)
}

/// Everything `extraction-bench` prints as JSON.
#[derive(Debug, Clone, Serialize)]
pub struct BenchOutput {
    /// The benchmark folder.
    pub data: String,
    /// Pages in it.
    pub pages: usize,
    /// Runs per page (the fastest is timed).
    pub repeat: usize,
    /// The `--baseline` extractor, if any.
    pub baseline: Option<String>,
    /// The pages' keys, in the order of each report's `page_f1`.
    pub page_ids: Vec<String>,
    /// One report per extractor, in the order run.
    pub reports: Vec<Report>,
}

/// One extractor's speed on a folder of HTML files (`--html-dir`).
#[derive(Debug, Clone, Serialize)]
pub struct SpeedReport {
    /// The extractor's name.
    pub extractor: String,
    /// Seconds of the fastest pass over all files.
    pub seconds: f64,
    /// MB (10^6 bytes) of HTML per second, one thread.
    pub mb_per_s: f64,
    /// `mb_per_s` of `text` divided by this one's (how many times slower than visible text).
    pub times_slower_than_text: f64,
    /// Its slowest file, in milliseconds (in the fastest pass).
    pub slowest_file_ms: f64,
    /// The slowest file's path.
    pub slowest_file: String,
    /// Files where the extractor gave no text.
    pub empty: usize,
}

/// Everything the speed mode prints.
#[derive(Debug, Clone, Serialize)]
pub struct SpeedOutput {
    /// The folder.
    pub dir: String,
    /// HTML files found.
    pub files: usize,
    /// MB of HTML (10^6 bytes).
    pub html_mb: f64,
    /// Passes per extractor (the fastest counts).
    pub repeat: usize,
    /// One report per extractor.
    pub reports: Vec<SpeedReport>,
}

/// Runs `extractors` over every `*.html` file under `dir`, `repeat` passes each.
pub fn speed_run(dir: &Path, extractors: &[&Extractor], repeat: usize) -> Result<SpeedOutput> {
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.with_context(|| format!("listing {}", dir.display()))?;
        if entry.file_type().is_file()
            && entry.path().extension().is_some_and(|e| e.eq_ignore_ascii_case("html"))
        {
            let bytes = fs_err::read(entry.path())?;
            let html = match String::from_utf8(bytes) {
                Ok(html) => html,
                Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
            };
            files.push((entry.path().display().to_string(), html));
        }
    }
    if files.is_empty() {
        bail!("no *.html file under {}", dir.display());
    }
    let bytes: usize = files.iter().map(|(_, h)| h.len()).sum();
    let html_mb = bytes as f64 / 1e6;
    eprintln!("{} files, {html_mb:.1} MB of HTML", files.len());
    let mut reports = Vec::new();
    for e in extractors {
        let mut best: Option<(Duration, Duration, usize, usize)> = None;
        for _ in 0..repeat.max(1) {
            let (mut total, mut slowest, mut slowest_at, mut empty) =
                (Duration::ZERO, Duration::ZERO, 0, 0);
            for (i, (_, html)) in files.iter().enumerate() {
                let start = Instant::now();
                let out = catch_unwind(AssertUnwindSafe(|| e.extract(html, None)));
                let took = start.elapsed();
                total += took;
                if took > slowest {
                    (slowest, slowest_at) = (took, i);
                }
                if !matches!(&out, Ok(Ok(t)) if !t.trim().is_empty()) {
                    empty += 1;
                }
            }
            if best.is_none_or(|b| total < b.0) {
                best = Some((total, slowest, slowest_at, empty));
            }
        }
        let (total, slowest, slowest_at, empty) = best.expect("ran at least once");
        let seconds = total.as_secs_f64();
        eprintln!("{:<32} {:.1} MB/s", e.name, html_mb / seconds);
        reports.push(SpeedReport {
            extractor: e.name.clone(),
            seconds,
            mb_per_s: html_mb / seconds,
            times_slower_than_text: 0.0,
            slowest_file_ms: slowest.as_secs_f64() * 1e3,
            slowest_file: files[slowest_at].0.clone(),
            empty,
        });
    }
    if let Some(text) = reports.iter().find(|r| r.extractor == "text").map(|r| r.mb_per_s) {
        for r in &mut reports {
            r.times_slower_than_text = text / r.mb_per_s;
        }
    }
    Ok(SpeedOutput {
        dir: dir.display().to_string(),
        files: files.len(),
        html_mb,
        repeat: repeat.max(1),
        reports,
    })
}

/// The speed mode's table.
pub fn render_speed(out: &SpeedOutput) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}: {} HTML files, {:.1} MB; one thread, fastest of {} passes",
        out.dir, out.files, out.html_mb, out.repeat
    );
    let _ = writeln!(
        s,
        "{:<32} {:>8} {:>8} {:>9} {:>6}  {:>9}  slowest file",
        "extractor", "seconds", "MB/s", "vs text", "empty", "max ms"
    );
    for r in &out.reports {
        let _ = writeln!(
            s,
            "{:<32} {:>8.2} {:>8.1} {:>8.1}x {:>6}  {:>9.1}  {}",
            r.extractor,
            r.seconds,
            r.mb_per_s,
            r.times_slower_than_text,
            r.empty,
            r.slowest_file_ms,
            r.slowest_file
        );
    }
    s
}

/// The whole command: selects extractors from `available` by `args`, runs them, and returns the
/// text to print on stdout (progress goes to stderr).
pub fn run_cli(args: &BenchArgs, available: Vec<Extractor>) -> Result<String> {
    if args.list {
        let mut out = String::new();
        for e in &available {
            writeln!(out, "{:<32} {}", e.name, e.about)?;
        }
        return Ok(out);
    }
    let mut chosen = Vec::new();
    if args.extractors.is_empty() {
        chosen.extend(available.iter());
    } else {
        for name in &args.extractors {
            match available.iter().find(|e| &e.name == name) {
                Some(e) => chosen.push(e),
                None => {
                    let names: Vec<&str> = available.iter().map(|e| e.name.as_str()).collect();
                    bail!("unknown extractor '{name}' (available: {})", names.join(", "));
                }
            }
        }
    }
    if let Some(base) = &args.baseline
        && !chosen.iter().any(|e| &e.name == base)
    {
        match available.iter().find(|e| &e.name == base) {
            Some(e) => chosen.push(e),
            None => bail!("unknown baseline extractor '{base}'"),
        }
    }
    if let Some(dir) = &args.html_dir {
        if !chosen.iter().any(|e| e.name == "text")
            && let Some(e) = available.iter().find(|e| e.name == "text")
        {
            chosen.push(e);
        }
        let speed = speed_run(dir, &chosen, args.repeat)?;
        return if args.json {
            Ok(serde_json::to_string_pretty(&speed)? + "\n")
        } else {
            Ok(render_speed(&speed))
        };
    }
    let pages = load_pages(&args.data)?;
    if let Some(prefix) = &args.explain {
        let Some(page) = pages.iter().find(|p| p.id.starts_with(prefix.as_str())) else {
            bail!("no benchmark page's key starts with '{prefix}'");
        };
        return Ok(lookalike_io::explain_main_content(&page.html));
    }
    eprintln!("{} pages, {:.1} MB of HTML", pages.len(), html_mb(&pages));
    if let Some(dir) = &args.dump {
        fs_err::create_dir_all(dir)?;
    }
    let mut reports = Vec::new();
    for e in chosen {
        let (r, texts) = bench_with_texts(&pages, e, args.repeat, args.worst);
        if let Some(dir) = &args.dump {
            let out: BTreeMap<&str, serde_json::Value> = pages
                .iter()
                .zip(&texts)
                .map(|(p, t)| (p.id.as_str(), serde_json::json!({ "articleBody": t })))
                .collect();
            fs_err::write(dir.join(format!("{}.json", e.name)), serde_json::to_vec(&out)?)?;
        }
        eprintln!("{:<32} F1 {}  {:.1} MB/s", r.extractor, fmt_score(r.scores.f1), r.mb_per_s);
        reports.push(r);
    }
    if let Some(base) = &args.baseline
        && let Some(b) = reports.iter().position(|r| &r.extractor == base)
    {
        let baseline = reports[b].clone();
        for r in reports.iter_mut().filter(|r| &r.extractor != base) {
            r.below_baseline = below_baseline(&pages, r, &baseline);
        }
    }
    let output = BenchOutput {
        data: args.data.display().to_string(),
        baseline: args.baseline.clone(),
        page_ids: pages.iter().map(|p| p.id.clone()).collect(),
        pages: pages.len(),
        repeat: args.repeat.max(1),
        reports,
    };
    if args.json {
        Ok(serde_json::to_string_pretty(&output)? + "\n")
    } else {
        Ok(render_table(&output))
    }
}

fn html_mb(pages: &[Page]) -> f64 {
    pages.iter().map(|p| p.html.len()).sum::<usize>() as f64 / 1e6
}

fn fmt_score(s: Option<f64>) -> String {
    s.map_or_else(|| "  -  ".to_owned(), |s| format!("{s:.3}"))
}

/// The reports as a text table, with each extractor's worst pages after it.
pub fn render_table(out: &BenchOutput) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "article-extraction benchmark: {} pages, {:.1} MB of HTML; MB/s on one thread, fastest of {}",
        out.pages,
        out.reports.first().map_or(0.0, |r| r.html_mb),
        out.repeat
    );
    let _ = writeln!(
        s,
        "{:<32} {:>9} {:>7} {:>6} {:>7} {:>6} {:>6} {:>6}  {:>8}",
        "extractor", "precision", "recall", "F1", "MB/s", "empty", "errors", "panics", "max ms"
    );
    for r in &out.reports {
        let _ = writeln!(
            s,
            "{:<32} {:>9} {:>7} {:>6} {:>7.1} {:>6} {:>6} {:>6}  {:>8.1}",
            r.extractor,
            fmt_score(r.scores.precision),
            fmt_score(r.scores.recall),
            fmt_score(r.scores.f1),
            r.mb_per_s,
            r.empty,
            r.errors,
            r.panics,
            r.slowest_page_ms
        );
    }
    if let Some(base) = &out.baseline {
        for r in out.reports.iter().filter(|r| &r.extractor != base) {
            let _ = writeln!(
                s,
                "\n{}: {} pages more than {BASELINE_MARGIN} F1 below {base}",
                r.extractor,
                r.below_baseline.len()
            );
            for d in &r.below_baseline {
                let _ = writeln!(
                    s,
                    "  F1 {:.3}  {base} {:.3}  {}  {}",
                    d.f1,
                    d.baseline_f1,
                    &d.id[..d.id.len().min(12)],
                    d.url.as_deref().unwrap_or("")
                );
            }
        }
    }
    for r in out.reports.iter().filter(|r| !r.worst.is_empty()) {
        let _ = writeln!(s, "\nworst pages for {}:", r.extractor);
        for p in &r.worst {
            let _ = writeln!(
                s,
                "  F1 {:.3}  P {}  R {}  {:>6} chars  {}  {}",
                p.f1,
                fmt_score(p.overlap.precision()),
                fmt_score(p.overlap.recall()),
                p.chars,
                &p.id[..p.id.len().min(12)],
                p.url.as_deref().unwrap_or("")
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn tokens_are_python_word_runs() {
        assert_eq!(tokens("Hello, world! it's 3.14_x"), ["Hello", "world", "it", "s", "3", "14_x"]);
        assert_eq!(tokens("Привет—мир №5 ½"), ["Привет", "мир", "5", "½"]);
        // CJK has no spaces: a run of ideographs and kana is one token, as in Python.
        assert_eq!(tokens("日本語のテキスト。次"), ["日本語のテキスト", "次"]);
        // A combining mark is not a word character in Python's `re`.
        assert_eq!(tokens("e\u{301}t\u{e9}"), ["e", "t\u{e9}"]);
        assert!(tokens("  ... ").is_empty());
    }

    #[test]
    fn short_texts_are_one_shingle() {
        let t = tokens("a b");
        let s = shingles(&t);
        assert_eq!(s.len(), 1);
        assert_eq!(s[&t[..]], 1);
        assert!(shingles(&[]).is_empty());
        let t = tokens("a b c d a b c d");
        // abcd, bcda, cdab, dabc, abcd: 4 distinct, one twice.
        let s = shingles(&t);
        assert_eq!(s.len(), 4);
        assert_eq!(s[&t[0..4]], 2);
    }

    #[test]
    fn overlap_by_hand() {
        // Gold: 6 tokens, shingles g1=abcd g2=bcde g3=cdef. Prediction: x a b c d e: shingles
        // xabc (fp), abcd (tp), bcde (tp). TP 2, FP 1, FN 1 (cdef): normalised by 4.
        let o = shingle_overlap("a b c d e f", "x a b c d e");
        assert_eq!(o, Overlap { tp: 0.5, fp: 0.25, fn_: 0.25 });
        assert!(close(o.precision().unwrap(), 2.0 / 3.0));
        assert!(close(o.recall().unwrap(), 2.0 / 3.0));

        // Multisets: the gold says "a b c d" twice in a row (shingles abcd×2, bcda, cdab, dabc),
        // the prediction once: TP 1 (abcd), FN 4, FP 0.
        let o = shingle_overlap("a b c d a b c d", "a b c d");
        assert_eq!(o, Overlap { tp: 0.2, fp: 0.0, fn_: 0.8 });
        assert_eq!((o.precision(), o.recall()), (Some(1.0), Some(0.2)));

        // Punctuation and spacing do not matter; case does.
        let o = shingle_overlap("One, two; three four.", "one two three four");
        assert_eq!(o, Overlap { tp: 0.0, fp: 0.5, fn_: 0.5 });
        assert_eq!(shingle_overlap("One, two; three four.", "One two\nthree  four").tp, 1.0);
    }

    #[test]
    fn undefined_cases() {
        // Nothing predicted: precision undefined, recall 0.
        let o = shingle_overlap("a b c d e", "");
        assert_eq!((o.precision(), o.recall()), (None, Some(0.0)));
        // Empty gold: recall undefined, precision 0.
        let o = shingle_overlap("", "a b c d e");
        assert_eq!((o.precision(), o.recall()), (Some(0.0), None));
        // Both empty: nothing defined, and the overlap is all zeros (no division by zero).
        let o = shingle_overlap("", " , ");
        assert_eq!(o, Overlap::default());
        assert_eq!((o.precision(), o.recall()), (None, None));
    }

    #[test]
    fn scores_average_pages_then_combine() {
        let pages = [
            Overlap { tp: 0.5, fp: 0.25, fn_: 0.25 }, // P 2/3, R 2/3
            Overlap { tp: 0.2, fp: 0.0, fn_: 0.8 },   // P 1, R 0.2
            Overlap { tp: 0.0, fp: 0.0, fn_: 1.0 },   // P undefined, R 0
            Overlap { tp: 0.0, fp: 1.0, fn_: 0.0 },   // P 0, R undefined
            Overlap::default(),                       // neither
        ];
        let s = scores(&pages);
        let p = (2.0 / 3.0 + 1.0 + 0.0) / 3.0;
        let r = (2.0 / 3.0 + 0.2 + 0.0) / 3.0;
        assert!(close(s.precision.unwrap(), p));
        assert!(close(s.recall.unwrap(), r));
        assert!(close(s.f1.unwrap(), 2.0 * p * r / (p + r)));
        assert_eq!((s.precision_pages, s.recall_pages), (3, 3));
        assert_eq!(scores(&[]).f1, None);
    }

    #[test]
    fn bench_counts_errors_and_panics() {
        let pages: Vec<Page> = ["a b c d e", "f g h i j", "k l m n o"]
            .iter()
            .enumerate()
            .map(|(i, gold)| Page {
                id: format!("p{i}"),
                url: None,
                html: format!("<p>{gold}</p>"),
                gold: (*gold).to_owned(),
            })
            .collect();
        let odd = Extractor::new("odd", "test", |html, _| {
            if html.contains('f') {
                Err("no".into())
            } else if html.contains('k') {
                panic!("boom")
            } else {
                Ok(html.replace("<p>", "").replace("</p>", ""))
            }
        });
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let r = bench(&pages, &odd, 2, 2);
        std::panic::set_hook(prev);
        assert_eq!((r.pages, r.empty, r.errors, r.panics), (3, 2, 1, 1));
        assert_eq!(r.scores.precision, Some(1.0));
        assert!(close(r.scores.recall.unwrap(), 1.0 / 3.0));
        assert_eq!(r.worst.len(), 2);
        assert_eq!(r.worst[0].f1, 0.0);
    }

    fn report(name: &str, page_f1: Vec<f64>) -> Report {
        Report {
            extractor: name.to_owned(),
            about: String::new(),
            pages: page_f1.len(),
            scores: scores(&[]),
            empty: 0,
            errors: 0,
            panics: 0,
            html_mb: 0.0,
            seconds: 0.0,
            mb_per_s: 0.0,
            slowest_page_ms: 0.0,
            worst: Vec::new(),
            page_f1,
            below_baseline: Vec::new(),
        }
    }

    #[test]
    fn baseline_lists_pages_more_than_the_margin_below() {
        let pages: Vec<Page> = (0..4)
            .map(|i| Page {
                id: format!("p{i}"),
                url: None,
                html: String::new(),
                gold: String::new(),
            })
            .collect();
        let base = report("base", vec![1.0, 0.9, 0.5, 0.8]);
        // p0: 0.06 below (listed); p1: exactly 0.05 below (not listed); p2 better; p3 0.3 below.
        let other = report("other", vec![0.94, 0.85, 0.7, 0.5]);
        let below = below_baseline(&pages, &other, &base);
        let ids: Vec<&str> = below.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(ids, ["p0", "p3"]);
        assert_eq!((below[1].f1, below[1].baseline_f1), (0.5, 0.8));
        assert!(below_baseline(&pages, &base, &base).is_empty());
    }

    #[test]
    fn speed_mode_reads_every_html_file_and_compares_with_text() {
        let dir = tempfile::tempdir().unwrap();
        fs_err::create_dir_all(dir.path().join("sub")).unwrap();
        fs_err::write(dir.path().join("a.html"), "<p>one two three</p>").unwrap();
        fs_err::write(dir.path().join("sub/b.HTML"), "<p></p>").unwrap();
        fs_err::write(dir.path().join("c.txt"), "not html").unwrap();
        let text = Extractor::new("text", "", |h, _| Ok(lookalike_io::html_to_text(h.as_bytes())));
        let upper = Extractor::new("upper", "", |h, _| Ok(h.to_uppercase()));
        let out = speed_run(dir.path(), &[&upper, &text], 2).unwrap();
        assert_eq!((out.files, out.repeat), (2, 2));
        assert_eq!(out.reports.len(), 2);
        let t = &out.reports[1];
        assert_eq!((t.extractor.as_str(), t.empty, t.times_slower_than_text), ("text", 1, 1.0));
        assert_eq!(out.reports[0].empty, 0);
        assert!(render_speed(&out).contains("upper"));
        let empty = tempfile::tempdir().unwrap();
        assert!(speed_run(empty.path(), &[&text], 1).is_err());
    }
}
