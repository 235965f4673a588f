//! The persistent index's workload on each embedded store (`lookalike-bench index-storage`): the
//! measurement behind the index's choice of store.
//!
//! One run, one engine, one fresh directory; the same steps for every engine, through the index
//! itself (`lookalike_index::Index` on the engine's [`lookalike_index::Storage`]), so what is
//! timed is what `lookalike index` and `serve` do:
//! 1. **batched adds**: the first N documents of a JSONL corpus, read as they go, in batches of B
//!    (one durable commit per batch: group commit);
//! 2. **single checks of new documents**: C documents after the first N, one `query` each (point
//!    reads of band keys, then the candidates' records and signatures);
//! 3. **single checks of indexed documents**: S documents spread over the first N (every check
//!    finds and verifies its own copy);
//! 4. **single inserts**: I documents after those, one `add` each, each durably committed;
//! 5. bytes on disk (every file of the directory, after the index is closed) and the process's
//!    peak RSS (`VmHWM`: run one engine per process).
//!
//! fjall, LMDB and SQLite need lookalike-bench's feature `index-engines` (redb is always there).

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use lookalike::{DedupConfig, Document};
use lookalike_index::storage::{Engine, dir_bytes};
use lookalike_index::{Fate, Index, IndexSettings};

/// Arguments of `lookalike-bench index-storage`.
#[derive(Debug, clap::Args)]
pub struct IndexStorageArgs {
    /// Store: redb, fjall, lmdb or sqlite.
    #[arg(long)]
    pub engine: String,
    /// JSONL corpus (fields `id` and `text`).
    #[arg(long)]
    pub corpus: PathBuf,
    /// Documents to add in batches.
    #[arg(long, default_value_t = 100_000)]
    pub docs: usize,
    /// Documents per batch (one commit each).
    #[arg(long, default_value_t = 4096)]
    pub batch: usize,
    /// Single checks of documents that are not in the index.
    #[arg(long, default_value_t = 2000)]
    pub checks: usize,
    /// Single checks of documents that are in the index.
    #[arg(long, default_value_t = 2000)]
    pub seen: usize,
    /// Single inserts, each durably committed.
    #[arg(long, default_value_t = 300)]
    pub inserts: usize,
    /// Directory of the index (must not exist; removed at the end unless --keep).
    #[arg(long)]
    pub dir: PathBuf,
    /// Keep the index directory.
    #[arg(long)]
    pub keep: bool,
    /// Similarity threshold the index is created with.
    #[arg(long, default_value_t = 0.7)]
    pub threshold: f64,
}

/// What one run measured (one JSON line).
#[derive(Debug, serde::Serialize)]
pub struct IndexStorageReport {
    /// The store.
    pub engine: String,
    /// Documents added in batches.
    pub docs: usize,
    /// Documents per batch.
    pub batch: usize,
    /// Seconds the batched adds took.
    pub add_s: f64,
    /// Documents added per second.
    pub add_docs_per_s: f64,
    /// Duplicates among the added documents.
    pub duplicates: usize,
    /// Single checks of new documents per second.
    pub checks_per_s: f64,
    /// Their median latency, µs.
    pub check_p50_us: f64,
    /// Their 99th percentile latency, µs.
    pub check_p99_us: f64,
    /// Of them, those that matched something.
    pub checks_matched: usize,
    /// Of the checks of indexed documents, those that found it (all but documents without
    /// tokens, which are not indexed).
    pub seen_matched: usize,
    /// Single checks of indexed documents per second.
    pub seen_per_s: f64,
    /// Their median latency, µs.
    pub seen_p50_us: f64,
    /// Their 99th percentile latency, µs.
    pub seen_p99_us: f64,
    /// Single durable inserts per second.
    pub inserts_per_s: f64,
    /// Their median latency, ms.
    pub insert_p50_ms: f64,
    /// Their 99th percentile latency, ms.
    pub insert_p99_ms: f64,
    /// Documents held at the end.
    pub documents: u64,
    /// Bytes of the index directory, closed.
    pub disk_bytes: u64,
    /// Those bytes per document held.
    pub disk_bytes_per_doc: u64,
    /// Bytes of text per document added.
    pub text_bytes_per_doc: u64,
    /// Peak resident set of this process, kB.
    pub peak_rss_kb: u64,
}

/// Corpus lines, read lazily.
struct Corpus {
    lines: std::io::Lines<BufReader<fs_err::File>>,
    path: PathBuf,
}

impl Corpus {
    fn open(path: &PathBuf) -> Result<Corpus> {
        Ok(Corpus { lines: BufReader::new(fs_err::File::open(path)?).lines(), path: path.clone() })
    }

    /// Up to `n` more documents.
    fn take(&mut self, n: usize) -> Result<Vec<Document>> {
        let mut out = Vec::with_capacity(n.min(1 << 16));
        while out.len() < n {
            let Some(line) = self.lines.next() else { break };
            let v: serde_json::Value = serde_json::from_str(&line?)
                .with_context(|| format!("{}: a line is not JSON", self.path.display()))?;
            let id = v["id"].as_str().context("a line has no string id")?;
            out.push(Document::from_text(id, v["text"].as_str().unwrap_or_default()));
        }
        Ok(out)
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Seconds of each call of `f` on each document, sorted; and how many answered `true`.
fn time_each(
    docs: &[Document],
    mut f: impl FnMut(&Document) -> Result<bool>,
) -> Result<(f64, Vec<f64>, usize)> {
    let mut lat = Vec::with_capacity(docs.len());
    let mut yes = 0;
    let all = Instant::now();
    for d in docs {
        let t = Instant::now();
        yes += usize::from(f(d)?);
        lat.push(t.elapsed().as_secs_f64());
    }
    let total = all.elapsed().as_secs_f64();
    lat.sort_by(f64::total_cmp);
    Ok((total, lat, yes))
}

fn peak_rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Runs the workload on one engine.
pub fn run(args: &IndexStorageArgs) -> Result<IndexStorageReport> {
    let engine = Engine::from_name(&args.engine).with_context(|| {
        format!("unknown engine {:?}: redb, fjall, lmdb or sqlite", args.engine)
    })?;
    if !engine.available() {
        bail!(
            "engine {} is not in this build: build lookalike-bench with --features index-engines",
            engine.name()
        );
    }
    if args.dir.exists() {
        bail!("{} exists: give a new directory", args.dir.display());
    }
    fs_err::create_dir_all(&args.dir)?;
    let result = measure(engine, args);
    if !args.keep {
        let _ = fs_err::remove_dir_all(&args.dir);
    }
    result
}

fn measure(engine: Engine, args: &IndexStorageArgs) -> Result<IndexStorageReport> {
    let store = match engine {
        Engine::Redb => args.dir.join(lookalike_index::index::DB_FILE),
        _ => args.dir.join("store"),
    };
    let settings = IndexSettings::from_config(&DedupConfig {
        threshold: args.threshold,
        ..DedupConfig::default()
    })?;
    let index = Index::create_with_storage(&args.dir, engine.open(&store)?, &settings)?;
    let mut corpus = Corpus::open(&args.corpus)?;

    let (mut added, mut duplicates, mut text_bytes) = (0, 0, 0u64);
    let start = Instant::now();
    while added < args.docs {
        let batch = corpus.take(args.batch.min(args.docs - added))?;
        if batch.is_empty() {
            break;
        }
        added += batch.len();
        text_bytes += batch.iter().map(|d| d.text.len() as u64).sum::<u64>();
        let answers = index.add(&batch)?;
        duplicates += answers.iter().filter(|c| matches!(c.fate, Fate::Duplicate { .. })).count();
    }
    let add_s = start.elapsed().as_secs_f64();
    if added < args.docs {
        bail!("{} holds {added} documents, fewer than --docs", args.corpus.display());
    }

    let new = corpus.take(args.checks)?;
    let (checks_s, checks, matched) =
        time_each(&new, |d| Ok(index.query(std::slice::from_ref(d))?[0].duplicate()))?;

    let mut again = Corpus::open(&args.corpus)?;
    let step = (args.docs / args.seen.max(1)).max(1);
    let mut seen = Vec::with_capacity(args.seen);
    for chunk in 0..args.seen.min(args.docs) {
        let skip = if chunk == 0 { 0 } else { step - 1 };
        for _ in 0..skip {
            again.lines.next();
        }
        seen.extend(again.take(1)?);
    }
    let (seen_s, seen_lat, found) =
        time_each(&seen, |d| Ok(index.query(std::slice::from_ref(d))?[0].duplicate()))?;

    let inserts = corpus.take(args.inserts)?;
    let (insert_s, insert_lat, _) = time_each(&inserts, |d| {
        index.add(std::slice::from_ref(d))?;
        Ok(true)
    })?;

    let documents = index.len()?;
    drop(index);
    let disk_bytes = dir_bytes(&args.dir);
    let per_s = |n: usize, s: f64| if s > 0.0 { n as f64 / s } else { 0.0 };
    Ok(IndexStorageReport {
        engine: engine.name().to_owned(),
        docs: added,
        batch: args.batch,
        add_s,
        add_docs_per_s: per_s(added, add_s),
        duplicates,
        checks_per_s: per_s(checks.len(), checks_s),
        check_p50_us: percentile(&checks, 0.5) * 1e6,
        check_p99_us: percentile(&checks, 0.99) * 1e6,
        checks_matched: matched,
        seen_matched: found,
        seen_per_s: per_s(seen_lat.len(), seen_s),
        seen_p50_us: percentile(&seen_lat, 0.5) * 1e6,
        seen_p99_us: percentile(&seen_lat, 0.99) * 1e6,
        inserts_per_s: per_s(insert_lat.len(), insert_s),
        insert_p50_ms: percentile(&insert_lat, 0.5) * 1e3,
        insert_p99_ms: percentile(&insert_lat, 0.99) * 1e3,
        documents,
        disk_bytes,
        disk_bytes_per_doc: disk_bytes / documents.max(1),
        text_bytes_per_doc: text_bytes / added.max(1) as u64,
        peak_rss_kb: peak_rss_kb(),
    })
}
