//! `lookalike dedup`: read, run the pipeline, write the outputs, print the summary.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use lookalike::{Dedup, DedupConfig, Document};
use lookalike_io::{BatchLimits, Decoded, DecodedBatches, Format, RawRecord};

use crate::UsageError;
use crate::args::DedupArgs;
use crate::output::{self, Entry, PayloadStore, Sink};
use crate::summary::Summary;

pub fn run(args: DedupArgs) -> Result<ExitCode> {
    let started = Instant::now();
    crate::setup::set_threads(args.threads)?;
    let stdout_targets = [&args.pairs, &args.clusters, &args.output, &args.report, &args.stats]
        .iter()
        .filter(|t| t.as_deref() == Some("-"))
        .count();
    if stdout_targets > 1 {
        return Err(UsageError(
            "only one of --pairs, --clusters, --output, --report, --stats can be -".into(),
        )
        .into());
    }
    let dedup = Dedup::new(DedupConfig::try_from(&args)?)?;

    let expanded = crate::setup::expand_nonempty(&args.inputs)?;
    // Open the outputs before the long work, so a bad path fails at once.
    let mut sinks = Outputs {
        pairs: args.pairs.as_deref().map(Sink::open).transpose()?,
        clusters: args.clusters.as_deref().map(Sink::open).transpose()?,
        output: args.output.as_deref().map(Sink::open).transpose()?,
        report: args.report.as_deref().map(Sink::open).transpose()?,
        stats: args.stats.as_deref().map(Sink::open).transpose()?,
    };

    let opts = args.input.read_options();
    let mut summary = Summary::new(expanded.inputs.len(), expanded.ignored.len());
    let progress = Progress::new(args.quiet, known_input_bytes(&expanded.inputs));

    let mut run = dedup.start()?;
    let mut payloads = match args.output {
        Some(_) => Some(PayloadStore::new(args.spill_dir.as_deref())?),
        None => None,
    };
    let want_payload = payloads.is_some();
    // The language is detected only when an output carries it.
    let want_lang = args.output.is_some() || args.report.is_some();
    let mut entries: Vec<Entry> = Vec::new();
    // Read on one thread; decode, detect the language and build the payload on the workers.
    let per_record = |rec: &RawRecord, decoded: Decoded| {
        let (mut payload, mut lang) = (None, None);
        if let Decoded::Doc { doc, title, .. } = &decoded {
            if want_lang {
                lang = lookalike::text::lang::detect(&doc.text).map(|d| d.code);
            }
            if want_payload {
                payload = Some(payload_of(rec, doc, title.as_deref(), lang));
            }
        }
        DecodedRecord { decoded, payload, lang }
    };
    let batches = DecodedBatches::spawn(expanded.inputs, opts, BatchLimits::default(), per_record)
        .context("cannot start the reader thread")?;
    for decoded in batches {
        let mut docs = Vec::with_capacity(decoded.len());
        for item in decoded {
            match item {
                Err(e) => {
                    progress.println(&format!("lookalike: warning: {e}"), summary.input_errors());
                    summary.input_error(e);
                }
                Ok(DecodedRecord { decoded: Decoded::Skip { id, reason }, .. }) => {
                    summary.skip(&id, &reason);
                    entries.push(Entry::Skipped { id, reason });
                }
                Ok(DecodedRecord { decoded: Decoded::Doc { doc, warning, .. }, payload, lang }) => {
                    if let Some(w) = warning {
                        summary.warning(&doc.id, &w);
                    }
                    if let (Some(store), Some(p)) = (payloads.as_mut(), payload) {
                        store.push(&p)?;
                    }
                    entries.push(Entry::Doc { index: (run.len() + docs.len()) as u32, lang });
                    docs.push(doc);
                }
            }
        }
        summary.records += docs.len() as u64;
        summary.bytes += docs.iter().map(|d| d.raw_len).sum::<u64>();
        run.add(docs)?;
        progress.reading(summary.records, summary.bytes, started.elapsed());
    }
    summary.read_time = started.elapsed();

    let outcome = run.finish_with(&mut |phase| progress.phase(phase))?;
    progress.phase("writing outputs");
    if let Some(mut s) = sinks.pairs.take() {
        output::write_pairs(&mut s, &outcome)
            .with_context(|| format!("cannot write {}", s.name()))?;
        s.commit()?;
    }
    if let Some(mut s) = sinks.clusters.take() {
        output::write_clusters(&mut s, &outcome)
            .with_context(|| format!("cannot write {}", s.name()))?;
        s.commit()?;
    }
    if let Some(mut s) = sinks.report.take() {
        output::write_report(&mut s, &entries, &outcome)
            .with_context(|| format!("cannot write {}", s.name()))?;
        s.commit()?;
    }
    if let (Some(mut s), Some(store)) = (sinks.output.take(), payloads.as_mut()) {
        store.write_kept(&mut s, &outcome).with_context(|| format!("cannot write {}", s.name()))?;
        s.commit()?;
    }
    progress.finish();
    summary.total_time = started.elapsed();
    summary.threads = rayon::current_num_threads();
    summary.outcome(&outcome);
    if let Some(mut s) = sinks.stats.take() {
        let json = summary.to_json(&dedup);
        serde_json::to_writer_pretty(&mut s, &json)
            .map_err(std::io::Error::from)
            .and_then(|()| std::io::Write::write_all(&mut s, b"\n"))
            .with_context(|| format!("cannot write {}", s.name()))?;
        s.commit()?;
    }
    if !args.quiet {
        eprint!("{}", summary.render(&dedup));
    }
    if args.strict && summary.has_problems() {
        eprintln!(
            "lookalike: error: --strict: some inputs could not be read or documents were skipped"
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// A decoded record, the line `--output` writes for it if it is kept, and its language.
struct DecodedRecord {
    decoded: Decoded,
    payload: Option<Vec<u8>>,
    lang: Option<&'static str>,
}

struct Outputs {
    pairs: Option<Sink>,
    clusters: Option<Sink>,
    output: Option<Sink>,
    report: Option<Sink>,
    stats: Option<Sink>,
}

/// The `--output` line of a document: the original record for JSONL and Parquet rows,
/// `{id, title, lang, text}` otherwise.
fn payload_of(rec: &RawRecord, doc: &Document, title: Option<&str>, lang: Option<&str>) -> Vec<u8> {
    if matches!(rec.format, Format::Jsonl | Format::Parquet) {
        rec.bytes.clone()
    } else {
        let line =
            serde_json::json!({"id": doc.id, "title": title, "lang": lang, "text": doc.text});
        serde_json::to_vec(&line).unwrap_or_default()
    }
}

/// A spinner on stderr when it is a terminal; nothing otherwise.
struct Progress {
    bar: ProgressBar,
}

/// Total size of the inputs when it predicts the bytes read: uncompressed files only (a `.gz`,
/// stdin or a Parquet file reads more or fewer bytes than it holds).
fn known_input_bytes(inputs: &[lookalike_io::Input]) -> Option<u64> {
    let mut total = 0;
    for input in inputs {
        let lookalike_io::Input::Path(path) = input else { return None };
        let name = path.to_string_lossy().to_ascii_lowercase();
        if name.ends_with(".gz") || name.ends_with(".parquet") || name.ends_with(".pq") {
            return None;
        }
        total += std::fs::metadata(path).ok()?.len();
    }
    (total > 0).then_some(total)
}

impl Progress {
    /// A bar over `total` bytes when the input size is known, a spinner otherwise; drawn only
    /// when stderr is a terminal.
    fn new(quiet: bool, total: Option<u64>) -> Self {
        let target =
            if quiet { ProgressDrawTarget::hidden() } else { ProgressDrawTarget::stderr() };
        let bar = ProgressBar::with_draw_target(total, target);
        let template = if total.is_some() {
            "{spinner} [{elapsed}] {wide_bar} {bytes}/{total_bytes} (eta {eta}) {msg}"
        } else {
            "{spinner} [{elapsed}] {msg}"
        };
        bar.set_style(
            ProgressStyle::with_template(template)
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(Duration::from_millis(120));
        Progress { bar }
    }

    fn reading(&self, docs: u64, bytes: u64, elapsed: Duration) {
        let mb = bytes as f64 / 1e6;
        let rate = mb / elapsed.as_secs_f64().max(1e-9);
        if let Some(len) = self.bar.length() {
            self.bar.set_position(bytes.min(len));
        }
        self.bar.set_message(format!("{docs} documents, {mb:.1} MB ({rate:.1} MB/s)"));
    }

    fn phase(&self, phase: &str) {
        self.bar.set_message(phase.to_owned());
    }

    /// Prints a line above the spinner; after 20 such lines, stays silent (the summary counts).
    fn println(&self, line: &str, already: usize) {
        if already < 20 {
            self.bar.suspend(|| eprintln!("{line}"));
        }
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
