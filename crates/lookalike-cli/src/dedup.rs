//! `lookalike dedup`: read, run the pipeline, write the outputs, print the summary.
//!
//! In four steps, each a function: [`Plan::new`] checks the arguments (every usage error before
//! anything is created), [`Files::open`] opens the outputs, [`read`] feeds every record to the
//! run, [`finish`] delivers the results into the outputs and commits them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use lookalike::{
    Cluster, Dedup, DedupConfig, DedupRun, DocId, DocStatus, Document, RunReport, ScoredPair, Sink,
};
use lookalike_io::{
    BatchLimits, ClustersJsonl, Decoded, Expanded, Format, InputError, KeptJsonl, Origin, PairsTsv,
    PayloadStore, RawRecord, ReadOptions, ReportEntry, ReportJsonl, SkipReason, UniqueIds,
};

use crate::UsageError;
use crate::args::{DedupArgs, SkippedInOutput};
use crate::html::data::{Fate, Member, RunData, round6};
use crate::output::{self, OutputFile};
use crate::progress::Progress;
use crate::stats::{RunConfig, RunStats};
use crate::summary::Summary;
use crate::tmpfiles;

pub fn run(args: DedupArgs, matches: &clap::ArgMatches) -> Result<ExitCode> {
    let started = Instant::now();
    // The worker threads first (`--threads 0` is the first usage error): whatever runs in
    // parallel from here on runs on them.
    crate::setup::set_threads(args.threads)?;
    let plan = Plan::new(args, matches)?;
    let run_dir = spill_folder(plan.args.spill_dir.as_deref())?;
    let files = Files::open(&plan.args)?;
    let progress = Progress::new(plan.args.quiet, known_input_bytes(&plan.expanded.inputs));
    // A cheap clone (the settings, a lexicon behind an Arc): the method is not built again.
    let dedup = plan.dedup.clone().with_spill_dir(Some(run_dir.path().to_path_buf()));
    let intake = read(&plan, &dedup, run_dir.path(), &progress, started)?;
    finish(plan, &dedup, files, intake, &progress, started)
}

/// A `dedup` run as its arguments describe it. Every usage error but `--threads 0` is found here,
/// before anything is created (no folder, no output file), in this order: the options alone (one `-` at most,
/// options the method does not use, `--run` without its files); then the inputs (expanded: no
/// readable input; outputs that name each other or an input); last the settings (the `--lexicon`
/// file loaded and matched, the method validated by the library, exit 2 for both).
struct Plan {
    args: DedupArgs,
    expanded: Expanded,
    opts: ReadOptions,
    /// The detector, validated (its temporary files go to the run's own folder, made later).
    dedup: Dedup,
    /// The settings as `--stats` writes them.
    config: RunConfig,
}

impl Plan {
    fn new(args: DedupArgs, matches: &clap::ArgMatches) -> Result<Plan> {
        check_one_stdout(&args)?;
        crate::setup::check_method_options(&args, matches)?;
        check_run_file_outputs(&args)?;
        let expanded = crate::setup::expand_nonempty(&args.inputs)?;
        check_distinct_outputs(&args, &expanded.inputs)?;
        let dedup = Dedup::new(DedupConfig::try_from(&args)?)?;
        let config = RunConfig::new(dedup.config(), args.spill_dir.as_deref())?;
        let opts = args.input.read_options();
        Ok(Plan { args, expanded, opts, dedup, config })
    }

    /// Whether an output shows the documents' language (it is detected only then).
    fn wants_lang(&self) -> bool {
        let a = &self.args;
        a.output.is_some() || a.report.is_some() || a.html.is_some()
    }
}

/// A usage error when more than one output is `-`.
fn check_one_stdout(args: &DedupArgs) -> Result<()> {
    let outputs = [
        &args.pairs,
        &args.clusters,
        &args.output,
        &args.report,
        &args.stats,
        &args.html,
        &args.run_file,
    ];
    if outputs.iter().filter(|t| t.as_deref() == Some("-")).count() > 1 {
        return Err(UsageError(
            "only one of --pairs, --clusters, --output, --report, --stats, --html, --run can be -"
                .into(),
        )
        .into());
    }
    Ok(())
}

/// A usage error when `--run` is given without the files `lookalike report --run` reads.
fn check_run_file_outputs(args: &DedupArgs) -> Result<()> {
    if args.run_file.is_none() {
        return Ok(());
    }
    for (flag, file) in
        [("--pairs", &args.pairs), ("--clusters", &args.clusters), ("--report", &args.report)]
    {
        if file.as_deref().is_none_or(|f| f == "-") {
            return Err(UsageError(format!(
                "--run needs {flag} FILE: `lookalike report --run` reads the run's pairs, clusters and report files"
            ))
            .into());
        }
    }
    Ok(())
}

/// The run's own folder in the spill folder, where every spill file of the run goes (removed at
/// the end, on a signal, or after a kill -9 by the next run using the same spill folder); what
/// earlier runs left there is cleaned.
fn spill_folder(spill_dir: Option<&Path>) -> Result<tmpfiles::RunDir> {
    let parent = spill_dir.map_or_else(std::env::temp_dir, Path::to_path_buf);
    let run_dir = tmpfiles::RunDir::create_in(&parent).map_err(|e| match spill_dir {
        // A bad directory fails now, named once, rather than after the reading (and before
        // the cleanup, which would warn about it first).
        Some(d) => UsageError(format!("cannot use --spill-dir {}: {e}", d.display())).into(),
        None => anyhow::anyhow!("cannot create a directory in {}: {e}", parent.display()),
    })?;
    output::clean_once(&parent);
    Ok(run_dir)
}

/// The output files, opened before the long work so that a bad path fails at once.
struct Files {
    pairs: Option<OutputFile>,
    clusters: Option<OutputFile>,
    output: Option<OutputFile>,
    report: Option<OutputFile>,
    stats: Option<OutputFile>,
    html: Option<OutputFile>,
    run: Option<OutputFile>,
}

impl Files {
    fn open(args: &DedupArgs) -> Result<Files> {
        let open = |file: &Option<String>| file.as_deref().map(OutputFile::open).transpose();
        Ok(Files {
            pairs: open(&args.pairs)?,
            clusters: open(&args.clusters)?,
            output: open(&args.output)?,
            report: open(&args.report)?,
            stats: open(&args.stats)?,
            html: open(&args.html)?,
            run: open(&args.run_file)?,
        })
    }
}

/// What the reading gathers besides the run: the report's entries, where each document is, the
/// `--output` lines, what the page shows, the summary.
struct Intake<'r> {
    run: DedupRun<'r>,
    summary: Summary,
    entries: Vec<ReportEntry>,
    /// Where each document is, by DocId, for the report and the summary's examples.
    origins: Vec<Origin>,
    /// Ids made unique over the run, in input order (a later copy gets `#` and its origin).
    ids: UniqueIds,
    /// The documents `--output` writes, held in a temporary file of the run's folder.
    payloads: Option<PayloadStore>,
    /// The report page: what it shows is gathered as the results stream past.
    html: Option<HtmlSink>,
    spill_dir: Option<PathBuf>,
}

/// The run started and every record read into it: in one pass, or in two with site boilerplate
/// removal (whose figures go to the summary).
fn read<'r>(
    plan: &Plan,
    dedup: &'r Dedup,
    run_dir: &Path,
    progress: &Progress,
    started: Instant,
) -> Result<Intake<'r>> {
    let args = &plan.args;
    let mut intake = Intake::start(plan, dedup, run_dir)?;
    intake.listed(&plan.expanded);
    // Texts that begin alike (copies, pages of one template) have their language detected once;
    // a text the quick pass leaves to whatlang takes its folder's language when the quick
    // answers of earlier batches settled it. A batch's votes count from the next batch on, so
    // the answers do not depend on the threads.
    let langs = lookalike::text::lang::DetectCache::with_folder_votes();
    let want_lang = plan.wants_lang();
    let lang_of = |doc: &Document| {
        let folder = lookalike::text::lang::folder_of(&doc.id);
        if want_lang { langs.detect_in(&doc.text, folder).map(|d| d.code) } else { None }
    };
    let want_payload = intake.payloads.is_some();
    let inputs = plan.expanded.inputs.clone();
    let mut each = |batch: Vec<Result<DecodedRecord, InputError>>| {
        langs.seal();
        intake.batch(batch, progress)?;
        progress.reading(intake.summary.records, intake.summary.bytes, started.elapsed());
        Ok(())
    };
    let removal = if args.boilerplate.options().enabled(&plan.opts, &inputs) {
        let dir_name = spill_dir_name(args.spill_dir.as_deref());
        let two = crate::read::TwoPasses {
            options: args.boilerplate.options(),
            dir: run_dir,
            dir_name: &dir_name,
            limits: BatchLimits::default(),
            batch: 4096,
            keep: |rec: &RawRecord, decoded: &Decoded| first_payload(rec, decoded, want_payload),
            cleaned: |second| cleaned_record(second, &lang_of, want_payload),
        };
        let counted = |pages, bytes| progress.counting(pages, bytes, started.elapsed());
        Some(crate::read::cleaned_batches(inputs, plan.opts.clone(), two, counted, &mut each)?)
    } else {
        let decode = |rec: &RawRecord, decoded| record_of(rec, decoded, &lang_of, want_payload);
        crate::read::batches(inputs, plan.opts.clone(), BatchLimits::default(), decode, each)?;
        None
    };
    intake.summary.boilerplate = removal;
    intake.summary.read_time = started.elapsed();
    Ok(intake)
}

/// A record read in one pass: its language, and its `--output` line when one is written.
fn record_of(
    rec: &RawRecord,
    decoded: Decoded,
    lang_of: &impl Fn(&Document) -> Option<&'static str>,
    want_payload: bool,
) -> DecodedRecord {
    let (mut payload, mut lang) = (None, None);
    match &decoded {
        Decoded::Doc { doc, title, .. } => {
            lang = lang_of(doc);
            if want_payload {
                payload = Some(payload_of(rec, doc, title.as_deref(), lang));
            }
        }
        Decoded::Skip { id, reason } => {
            // WARC records other than responses are records, not documents: not in --output.
            if want_payload && !reason.is_warc_record_type() {
                payload = Some(skipped_payload(rec, id, reason));
            }
        }
    }
    let (origin, format) = (rec.origin(), rec.format);
    DecodedRecord { decoded, payload, lang, origin, format, removed: None }
}

/// What the first pass of boilerplate removal keeps of a record for `--output`: the line of a
/// skipped record, the original record of a JSONL line or Parquet row (the others' lines are
/// built from their cleaned text).
fn first_payload(
    rec: &RawRecord,
    decoded: &Decoded,
    want_payload: bool,
) -> Option<(Vec<u8>, bool)> {
    match decoded {
        Decoded::Skip { id, reason } => (want_payload && !reason.is_warc_record_type())
            .then(|| skipped_payload(rec, id, reason)),
        Decoded::Doc { .. } => {
            (want_payload && is_record_payload(rec.format)).then(|| (rec.bytes.clone(), false))
        }
    }
}

/// A page of the second pass of boilerplate removal: its language, and its `--output` line when
/// one is written.
fn cleaned_record(
    second: lookalike_io::boilerplate::Second,
    lang_of: &impl Fn(&Document) -> Option<&'static str>,
    want_payload: bool,
) -> DecodedRecord {
    let lang = match &second.decoded {
        Decoded::Doc { doc, .. } => lang_of(doc),
        Decoded::Skip { .. } => None,
    };
    let payload = match (&second.decoded, second.payload) {
        (_, Some(p)) => Some(p),
        (Decoded::Doc { doc, title, .. }, None) if want_payload => {
            Some(payload_json(&doc.id, doc, title.as_deref(), lang)).map(|p| (p, true))
        }
        // A page skipped for having nothing of its own (the reader's skips have their line from
        // the first pass, or none: WARC records that are not responses).
        (Decoded::Skip { id, reason }, None) if want_payload && second.removed.is_some() => {
            let line = serde_json::json!({"id": id, "skipped": reason});
            Some((serde_json::to_vec(&line).unwrap_or_default(), false))
        }
        _ => None,
    };
    DecodedRecord {
        decoded: second.decoded,
        payload,
        lang,
        origin: second.origin,
        format: second.format,
        removed: second.removed,
    }
}

impl<'r> Intake<'r> {
    /// The run started, and the `--output` store and the page's data when they are written.
    fn start(plan: &Plan, dedup: &'r Dedup, run_dir: &Path) -> Result<Intake<'r>> {
        let spill_dir = plan.args.spill_dir.clone();
        let run = dedup.start().map_err(|e| in_spill_dir(e, spill_dir.as_deref()))?;
        let payloads = match plan.args.output {
            Some(_) => Some(
                PayloadStore::new(Some(run_dir))
                    .map_err(|e| payload_error(spill_dir.as_deref(), e))?,
            ),
            None => None,
        };
        let html = plan.args.html.as_ref().map(|_| HtmlSink {
            data: RunData::new(
                dedup.config().threshold,
                dedup.config().seed,
                plan.args.inputs.clone(),
            ),
            langs: Vec::new(),
            clusters: 0,
        });
        Ok(Intake {
            run,
            summary: Summary::new(plan.expanded.inputs.len(), &plan.expanded.ignored),
            entries: Vec::new(),
            origins: Vec::new(),
            ids: UniqueIds::default(),
            payloads,
            html,
            spill_dir,
        })
    }

    /// The files found in folders and not read: listed (binary, empty, JSON documents), or
    /// reported as skipped (special files, link loops: not opened).
    fn listed(&mut self, expanded: &Expanded) {
        for file in &expanded.ignored {
            let (path, reason) = (file.path.display().to_string(), file.reason.clone());
            self.entries.push(ReportEntry::Ignored { path, reason });
        }
        for skipped in &expanded.skipped {
            let id = skipped.path.display().to_string();
            let origin = Origin::whole(id.as_str());
            let id = rename(&mut self.ids, &id, &origin, &mut self.summary).unwrap_or(id);
            let reason = skipped.reason.clone();
            self.summary.skip(&id, &reason);
            self.entries.push(ReportEntry::Skipped { id, reason, origin });
        }
    }

    /// Every decoded record of a batch, in input order, into the run and the outputs' lists.
    fn batch(
        &mut self,
        decoded: Vec<Result<DecodedRecord, InputError>>,
        progress: &Progress,
    ) -> Result<()> {
        let mut docs = Vec::with_capacity(decoded.len());
        for item in decoded {
            match item {
                Err(e) => self.lost(e, progress),
                Ok(rec) => {
                    let index = DocId((self.run.len() + docs.len()) as u32);
                    docs.extend(self.record(rec, index)?);
                }
            }
        }
        self.summary.records += docs.len() as u64;
        self.summary.bytes += docs.iter().map(|d| d.raw_len).sum::<u64>();
        let spill_dir = self.spill_dir.as_deref();
        self.run.add(docs).map_err(|e| in_spill_dir(e, spill_dir))
    }

    /// An input error: warned about, and the record (or the whole input) it lost reported.
    fn lost(&mut self, e: InputError, progress: &Progress) {
        progress.println(&format!("lookalike: warning: {e}"), self.summary.input_errors());
        if let Some(id) = &e.lost {
            let origin = e.origin();
            let id =
                rename(&mut self.ids, id, &origin, &mut self.summary).unwrap_or_else(|| id.clone());
            let reason = SkipReason::unreadable(e.message.clone());
            self.entries.push(ReportEntry::Skipped { id, reason, origin });
        }
        self.summary.input_error(e);
    }

    /// A record: the document to run (as `index`), its id made unique, its lines listed; or,
    /// skipped by the reader, reported.
    fn record(&mut self, rec: DecodedRecord, index: DocId) -> Result<Option<Document>> {
        let DecodedRecord { decoded, mut payload, lang, origin, format, removed } = rec;
        let spill_dir = self.spill_dir.as_deref();
        let (mut doc, warning, title) = match decoded {
            Decoded::Doc { doc, warning, title, .. } => (doc, warning, title),
            Decoded::Skip { id, reason } => {
                let id = rename(&mut self.ids, &id, &origin, &mut self.summary).unwrap_or(id);
                if let (Some(store), Some((p, _))) = (self.payloads.as_mut(), payload) {
                    store.push_skipped(&p).map_err(|e| payload_error(spill_dir, e))?;
                }
                self.summary.skip(&label(&id, &origin), &reason);
                self.entries.push(ReportEntry::Skipped { id, reason, origin });
                return Ok(None);
            }
        };
        if let Some(id) = rename(&mut self.ids, &doc.id, &origin, &mut self.summary) {
            if payload.is_some() && !is_record_payload(format) {
                // The line `--output` writes names the document by its new id.
                payload = Some((payload_json(&id, &doc, title.as_deref(), lang), true));
            }
            doc.id = id;
        }
        if let Some(w) = warning {
            self.summary.warning(&label(&doc.id, &origin), &w);
        }
        if let (Some(store), Some((p, built))) = (self.payloads.as_mut(), payload) {
            store.push(&p, built).map_err(|e| payload_error(spill_dir, e))?;
        }
        self.entries.push(ReportEntry::Doc { index, lang, boilerplate: removed });
        self.origins.push(origin);
        if let Some(h) = self.html.as_mut() {
            h.langs.push(lang);
        }
        Ok(Some(doc))
    }
}

/// A failure of the temporary file that holds the documents `--output` writes.
fn payload_error(spill_dir: Option<&Path>, e: std::io::Error) -> anyhow::Error {
    let name = spill_dir_name(spill_dir);
    anyhow::anyhow!("cannot write the temporary file of --output in {name}: {e}")
}

/// The results delivered into the outputs, the page, run and stats files written, everything
/// committed together unless the run failed; the summary printed.
fn finish(
    plan: Plan,
    dedup: &Dedup,
    files: Files,
    intake: Intake<'_>,
    progress: &Progress,
    started: Instant,
) -> Result<ExitCode> {
    let Intake { run, mut summary, entries, origins, payloads, mut html, spill_dir, .. } = intake;
    let args = &plan.args;
    let origins: Arc<[Origin]> = origins.into();
    if let Some(h) = html.as_mut() {
        // Records the readers skipped never reach the run: the page counts them here.
        for entry in &entries {
            if let ReportEntry::Skipped { id, origin, .. } = entry {
                h.data.record(id, Fate::Skipped, None, &origin.source);
            }
        }
    }
    // Every output is a sink the run pushes into; they are committed together at the end.
    let mut outputs = Outputs {
        pairs: files.pairs.map(|f| Named::new(f, PairsTsv::new)),
        clusters: files.clusters.map(|f| Named::new(f, ClustersJsonl::new)),
        report: files
            .report
            .map(|f| Named::new(f, |w| ReportJsonl::new(w, entries, origins.clone()))),
        kept: match (files.output, payloads) {
            (Some(f), Some(store)) => Some(Named::new(f, |w| {
                KeptJsonl::new(w, store).keep_skipped(args.skipped == SkippedInOutput::Keep)
            })),
            _ => None,
        },
        html,
        summary: &mut summary,
        origins: &origins,
    };
    let (mut report_run, stages) = deliver(run, &mut outputs, progress, spill_dir.as_deref())?;
    let Outputs { pairs, clusters, report, kept, html, .. } = outputs;
    let mut written: Vec<OutputFile> = Vec::new();
    written.extend(pairs.map(|s| s.sink.into_inner()));
    written.extend(clusters.map(|s| s.sink.into_inner()));
    written.extend(report.map(|s| s.sink.into_inner()));
    written.extend(kept.map(|s| s.sink.into_inner()));
    summary.total_time = started.elapsed();
    summary.threads = rayon::current_num_threads();
    summary.stages = stages;
    let rejected = std::mem::take(&mut report_run.stats.verification.rejected_sample);
    let rejected: Vec<(&str, &str, f64)> = rejected
        .iter()
        .map(|&(a, b, sim)| {
            (report_run.ids[a.index()].as_str(), report_run.ids[b.index()].as_str(), sim)
        })
        .collect();
    summary.stats = report_run.stats.clone();
    let stats = summary.run_stats(plan.config, dedup);
    if let (Some(file), Some(h)) = (files.html, html) {
        let found = (&report_run, &origins[..], &plan.opts);
        written.push(write_page(file, h, &stats, &rejected, found, args.html_max_size, progress)?);
    }
    if let Some(file) = files.run {
        written.push(write_run_file(file, args, &stats, &rejected)?);
    }
    if let Some(mut file) = files.stats {
        stats
            .to_pretty()
            .map_err(std::io::Error::from)
            .and_then(|text| std::io::Write::write_all(&mut file, &text))
            .with_context(|| format!("cannot write {}", file.name()))?;
        written.push(file);
    }
    commit(written, &summary, args, dedup, progress)
}

/// The run's results pushed into `outputs`, with the seconds of each phase after reading.
fn deliver(
    run: DedupRun<'_>,
    outputs: &mut Outputs<'_>,
    progress: &Progress,
    spill_dir: Option<&Path>,
) -> Result<(RunReport, Vec<(String, f64)>)> {
    let mut stages: Vec<(String, Instant)> = Vec::new();
    let counts = run.verify_progress();
    let report_run = progress
        .ticking(|| {
            run.finish_into_with(outputs, &mut |phase| {
                stages.push((phase.to_owned(), Instant::now()));
                progress.pipeline_phase(phase, &counts);
            })
        })
        .map_err(|e| match e.downcast::<lookalike::Error>() {
            Ok(e) => in_spill_dir(e, spill_dir),
            Err(e) => e,
        })?;
    progress.phase("writing outputs");
    let finished = Instant::now();
    let seconds = stages
        .iter()
        .enumerate()
        .map(|(i, (name, start))| {
            let end = stages.get(i + 1).map_or(finished, |s| s.1);
            (name.clone(), end.duration_since(*start).as_secs_f64())
        })
        .collect();
    Ok((report_run, seconds))
}

/// The report page into `file`: the rejected candidates of the sample added, the texts of the
/// sampled pairs read again from the inputs (`found`: the run's ids, where each document is,
/// how the inputs are read).
fn write_page(
    mut file: OutputFile,
    mut h: HtmlSink,
    stats: &RunStats,
    rejected: &[(&str, &str, f64)],
    found: (&RunReport, &[Origin], &ReadOptions),
    max_size: usize,
    progress: &Progress,
) -> Result<OutputFile> {
    let (report_run, origins, opts) = found;
    for &(a, b, sim) in rejected {
        h.data.rejected(a, b, sim);
    }
    let wanted_ids = h.data.wanted_ids();
    let wanted: BTreeMap<String, Origin> = report_run
        .ids
        .iter()
        .enumerate()
        .filter(|(_, id)| wanted_ids.contains(*id))
        .map(|(i, id)| (id.clone(), origins[i].clone()))
        .collect();
    progress.phase("reading the texts of the sampled pairs again");
    let found = crate::html::texts::fetch(&wanted, opts);
    h.data.texts = found.texts;
    h.data.texts_note = found.note;
    let page = crate::html::render(&h.data, stats, max_size);
    std::io::Write::write_all(&mut file, page.as_bytes())
        .with_context(|| format!("cannot write {}", file.name()))?;
    Ok(file)
}

/// The run file of `--run` into `file`: the command line, the files `lookalike report` reads,
/// the statistics and the rejected candidates of the sample.
fn write_run_file(
    mut file: OutputFile,
    args: &DedupArgs,
    stats: &RunStats,
    rejected: &[(&str, &str, f64)],
) -> Result<OutputFile> {
    let absolute = |p: &Option<String>| {
        p.as_deref().map(|p| {
            std::path::absolute(p).map_or_else(|_| p.to_owned(), |a| a.display().to_string())
        })
    };
    let cwd = std::env::current_dir().map(|d| d.display().to_string()).ok();
    let run_json = serde_json::json!({
        "lookalike_run": 1,
        "version": env!("CARGO_PKG_VERSION"),
        "cwd": cwd,
        "command": std::env::args().collect::<Vec<_>>(),
        "inputs": args.inputs,
        "outputs": {
            "pairs": absolute(&args.pairs),
            "clusters": absolute(&args.clusters),
            "report": absolute(&args.report),
        },
        "stats": stats,
        "rejected_sample": rejected,
    });
    serde_json::to_writer_pretty(&mut file, &run_json)
        .map_err(std::io::Error::from)
        .and_then(|()| std::io::Write::write_all(&mut file, b"\n"))
        .with_context(|| format!("cannot write {}", file.name()))?;
    Ok(file)
}

/// The outputs committed, unless the run failed (nothing read; `--strict` and a problem): then
/// none replaces its file. The summary printed; exit 1 on failure.
fn commit(
    written: Vec<OutputFile>,
    summary: &Summary,
    args: &DedupArgs,
    dedup: &Dedup,
    progress: &Progress,
) -> Result<ExitCode> {
    let failure = if summary.nothing_read() {
        Some(format!(
            "no document could be read ({}); no output was written",
            summary.failures_line()
        ))
    } else if args.strict && summary.has_problems() {
        Some(
            "--strict: some inputs could not be read or documents were skipped; no output was written"
                .to_owned(),
        )
    } else {
        None
    };
    if failure.is_none() {
        output::commit_all(written)?;
    } else {
        drop(written);
    }
    progress.finish();
    if !args.quiet {
        eprint!("{}", summary.render(dedup));
    }
    if let Some(msg) = failure {
        eprintln!("lookalike: error: {msg}");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// The spill directory for messages: the one given, or the system's.
fn spill_dir_name(dir: Option<&std::path::Path>) -> String {
    match dir {
        Some(d) => d.display().to_string(),
        None => format!("{} (the system temporary directory)", std::env::temp_dir().display()),
    }
}

/// A run error, naming the spill directory when a temporary file there failed.
fn in_spill_dir(e: lookalike::Error, dir: Option<&std::path::Path>) -> anyhow::Error {
    match e {
        lookalike::Error::Io(_) => anyhow::Error::new(e)
            .context(format!("cannot use the temporary files in {}", spill_dir_name(dir))),
        e => e.into(),
    }
}

/// Two outputs naming one file would overwrite each other, and an output naming an input would
/// replace it: a usage error. The one exception is `--output` naming the only input: an in-place
/// rewrite of a file with its deduplicated version (committed after everything was read, so
/// nothing is lost: skipped records are kept). Files are compared as the file system sees them: by
/// canonical path (`a.tsv` and `sub/../a.tsv`, a symbolic link and its target) and, on Unix, by
/// device and inode (hard links); a file that does not exist yet by its folder's canonical path
/// and its name.
fn check_distinct_outputs(args: &DedupArgs, inputs: &[lookalike_io::Input]) -> Result<()> {
    let named = [
        ("--pairs", &args.pairs),
        ("--clusters", &args.clusters),
        ("--output", &args.output),
        ("--report", &args.report),
        ("--stats", &args.stats),
        ("--html", &args.html),
        ("--run", &args.run_file),
    ];
    let files: Vec<(&str, &str, FileIdentity)> = named
        .iter()
        .filter_map(|(flag, t)| t.as_deref().filter(|t| *t != "-").map(|t| (*flag, t)))
        .map(|(flag, t)| (flag, t, FileIdentity::of(std::path::Path::new(t))))
        .collect();
    for (i, (a, name, ia)) in files.iter().enumerate() {
        if let Some((b, _, _)) = files[i + 1..].iter().find(|(_, _, ib)| ib.same(ia)) {
            return Err(UsageError(format!("{a} and {b} name the same file {name}")).into());
        }
    }
    for input in inputs {
        let lookalike_io::Input::Path(path) = input else { continue };
        let id = FileIdentity::of(path);
        let in_place = |flag: &str| flag == "--output" && inputs.len() == 1;
        let clash = files.iter().find(|(flag, _, o)| o.same(&id) && !in_place(flag));
        if let Some((flag, name, _)) = clash {
            return Err(UsageError(format!(
                "{flag} {name} is the input {}: writing it would replace what is read",
                path.display()
            ))
            .into());
        }
    }
    Ok(())
}

/// What tells two paths naming one file apart from two files.
#[derive(Debug)]
struct FileIdentity {
    /// The canonical path (of the folder, and the name, when the file does not exist yet).
    path: std::path::PathBuf,
    /// Device and inode of an existing file (Unix), which hard links share.
    inode: Option<(u64, u64)>,
}

impl FileIdentity {
    fn of(path: &std::path::Path) -> Self {
        let canonical = std::fs::canonicalize(path).ok().or_else(|| {
            let absolute = std::path::absolute(path).ok()?;
            let parent = std::fs::canonicalize(absolute.parent()?).ok()?;
            Some(parent.join(absolute.file_name()?))
        });
        let path = canonical
            .or_else(|| std::path::absolute(path).ok())
            .unwrap_or_else(|| path.to_path_buf());
        #[cfg(unix)]
        let inode = {
            use std::os::unix::fs::MetadataExt;
            std::fs::metadata(&path).ok().map(|m| (m.dev(), m.ino()))
        };
        #[cfg(not(unix))]
        let inode = None;
        FileIdentity { path, inode }
    }
}

impl FileIdentity {
    /// Whether the two name one file: the same canonical path, or the same inode.
    fn same(&self, other: &FileIdentity) -> bool {
        self.path == other.path || self.inode.is_some() && self.inode == other.inode
    }
}

/// A decoded record, the line `--output` writes for it (with whether it was built here rather
/// than the original record), its language, and where it is.
struct DecodedRecord {
    decoded: Decoded,
    payload: Option<(Vec<u8>, bool)>,
    lang: Option<&'static str>,
    origin: Origin,
    format: Format,
    /// What site boilerplate removal took out of its text.
    removed: Option<lookalike_io::BoilerplateRemoved>,
}

/// The new id of a record whose `id` an earlier record had (`id#origin`, see [`UniqueIds`]),
/// counted as a warning of the summary; `None` when `id` is unique so far.
fn rename(ids: &mut UniqueIds, id: &str, origin: &Origin, summary: &mut Summary) -> Option<String> {
    let new = ids.make_unique(id, origin)?;
    let warning =
        format!("duplicate id: {id:?} is the id of an earlier record; this one is renamed {new:?}");
    summary.warning(&origin.to_string(), &warning);
    Some(new)
}

/// A record's id as the summary's examples show it: with where it is, unless the id says it
/// already.
fn label(id: &str, origin: &Origin) -> String {
    let at = origin.to_string();
    if id.contains(at.as_str()) { id.to_owned() } else { format!("{id} ({at})") }
}

/// A sink writing one output file, with the file's name for error messages.
struct Named<S> {
    sink: S,
    name: String,
}

impl<S> Named<S> {
    fn new(file: OutputFile, make: impl FnOnce(OutputFile) -> S) -> Self {
        let name = file.name();
        Named { sink: make(file), name }
    }
}

/// The run's outputs and the summary, as one sink.
struct Outputs<'a> {
    pairs: Option<Named<PairsTsv<OutputFile>>>,
    clusters: Option<Named<ClustersJsonl<OutputFile>>>,
    report: Option<Named<ReportJsonl<OutputFile>>>,
    kept: Option<Named<KeptJsonl<OutputFile>>>,
    html: Option<HtmlSink>,
    summary: &'a mut Summary,
    /// Where each document is, by DocId.
    origins: &'a [Origin],
}

/// What the HTML report gathers from the run: its data, the language of every document, and
/// the clusters counted so far (numbered as the clusters file numbers them).
struct HtmlSink {
    data: RunData,
    langs: Vec<Option<&'static str>>,
    clusters: u64,
}

/// Pushes into a named output, naming the file in the error.
fn push<S: Sink<Error = lookalike_io::SinkError>>(
    out: &mut Option<Named<S>>,
    f: impl FnOnce(&mut S) -> Result<bool, lookalike_io::SinkError>,
) -> Result<()> {
    if let Some(n) = out {
        f(&mut n.sink).with_context(|| format!("cannot write {}", n.name))?;
    }
    Ok(())
}

impl Sink for Outputs<'_> {
    type Error = anyhow::Error;

    fn pair(&mut self, ids: &[String], pair: &ScoredPair) -> Result<bool> {
        push(&mut self.pairs, |s| s.pair(ids, pair))?;
        if let Some(h) = &mut self.html {
            h.data.pair(&ids[pair.a.index()], &ids[pair.b.index()], pair.similarity);
        }
        Ok(true)
    }

    fn cluster(&mut self, ids: &[String], cluster: &Cluster) -> Result<bool> {
        push(&mut self.clusters, |s| s.cluster(ids, cluster))?;
        if let Some(h) = &mut self.html {
            let members = cluster
                .members
                .iter()
                .map(|m| Member {
                    id: ids[m.doc.index()].clone(),
                    similarity: round6(m.similarity),
                    kind: m.kind.as_str().to_owned(),
                })
                .collect();
            h.data.cluster(h.clusters, &ids[cluster.representative.index()], members);
            h.clusters += 1;
        }
        Ok(true)
    }

    fn unsigned(&mut self, ids: &[String], doc: DocId, reason: &str) -> Result<bool> {
        self.summary.unsigned(ids, doc, reason);
        push(&mut self.report, |s| s.unsigned(ids, doc, reason))?;
        Ok(true)
    }

    fn document(&mut self, ids: &[String], doc: DocId, status: &DocStatus) -> Result<bool> {
        match status {
            DocStatus::Skipped { reason } => {
                let label = label(&ids[doc.index()], &self.origins[doc.index()]);
                self.summary.skip(&label, &SkipReason::from(*reason));
            }
            _ => self.summary.document(ids, doc, status),
        }
        push(&mut self.report, |s| s.document(ids, doc, status))?;
        push(&mut self.kept, |s| s.document(ids, doc, status))?;
        if let Some(h) = &mut self.html {
            let fate = match status {
                DocStatus::Kept => Fate::Kept,
                DocStatus::Duplicate { kind: lookalike::MatchKind::Near, .. } => Fate::Near,
                DocStatus::Duplicate { .. } => Fate::Exact,
                DocStatus::Skipped { .. } => Fate::Skipped,
            };
            let lang = h.langs.get(doc.index()).copied().flatten();
            h.data.record(&ids[doc.index()], fate, lang, &self.origins[doc.index()].source);
        }
        Ok(true)
    }

    fn finish(&mut self) -> Result<()> {
        push(&mut self.pairs, |s| s.finish().map(|()| true))?;
        push(&mut self.clusters, |s| s.finish().map(|()| true))?;
        push(&mut self.report, |s| s.finish().map(|()| true))?;
        push(&mut self.kept, |s| s.finish().map(|()| true))?;
        Ok(())
    }
}

/// The `--output` line of a document: the original record for JSONL and Parquet rows,
/// `{id, title, lang, text}` otherwise.
fn payload_of(
    rec: &RawRecord,
    doc: &Document,
    title: Option<&str>,
    lang: Option<&str>,
) -> (Vec<u8>, bool) {
    if is_record_payload(rec.format) {
        (rec.bytes.clone(), false)
    } else {
        (payload_json(&doc.id, doc, title, lang), true)
    }
}

/// Whether `--output` writes a record of this format as it is (else as `{id, title, lang, text}`).
fn is_record_payload(format: Format) -> bool {
    matches!(format, Format::Jsonl | Format::Parquet)
}

fn payload_json(id: &str, doc: &Document, title: Option<&str>, lang: Option<&str>) -> Vec<u8> {
    let line = serde_json::json!({"id": id, "title": title, "lang": lang, "text": doc.text});
    serde_json::to_vec(&line).unwrap_or_default()
}

/// The `--output` line of a record the reader skipped: the original record when it is JSON (a
/// JSONL line, a Parquet row), so that an in-place rewrite keeps it as it was; otherwise
/// `{id, skipped}`, with the line itself as `raw` for a JSONL line that is not JSON.
fn skipped_payload(rec: &RawRecord, id: &str, reason: &SkipReason) -> (Vec<u8>, bool) {
    let json = is_record_payload(rec.format);
    if json && serde_json::from_slice::<serde::de::IgnoredAny>(&rec.bytes).is_ok() {
        return (rec.bytes.clone(), false);
    }
    let line = if json {
        serde_json::json!({"id": id, "skipped": reason, "raw": String::from_utf8_lossy(&rec.bytes)})
    } else {
        serde_json::json!({"id": id, "skipped": reason})
    };
    (serde_json::to_vec(&line).unwrap_or_default(), false)
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
