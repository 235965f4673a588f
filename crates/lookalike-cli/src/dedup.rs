//! `lookalike dedup`: read, run the pipeline, write the outputs, print the summary.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use lookalike::{Cluster, Dedup, DedupConfig, DocId, DocStatus, Document, ScoredPair, Sink};
use lookalike_io::{
    BatchLimits, ClustersJsonl, Decoded, DecodedBatches, Format, KeptJsonl, Origin, PairsTsv,
    PayloadStore, RawRecord, ReportEntry, ReportJsonl, UniqueIds,
};
use rayon::prelude::*;

use crate::UsageError;
use crate::args::{DedupArgs, SkippedInOutput};
use crate::html::data::{Fate, Member, RunData, round6};
use crate::output::{self, OutputFile};
use crate::stats::RunConfig;
use crate::summary::Summary;
use crate::tmpfiles;

pub fn run(args: DedupArgs, matches: &clap::ArgMatches) -> Result<ExitCode> {
    let started = Instant::now();
    crate::setup::set_threads(args.threads)?;
    let stdout_targets = [
        &args.pairs,
        &args.clusters,
        &args.output,
        &args.report,
        &args.stats,
        &args.html,
        &args.run_file,
    ]
    .iter()
    .filter(|t| t.as_deref() == Some("-"))
    .count();
    if stdout_targets > 1 {
        return Err(UsageError(
            "only one of --pairs, --clusters, --output, --report, --stats, --html, --run can be -"
                .into(),
        )
        .into());
    }
    // Every spill file of the run goes into one directory of its own, removed at the end, on a
    // signal, or (after a kill -9) by the next run using the same spill directory.
    let spill_parent = args.spill_dir.clone().unwrap_or_else(std::env::temp_dir);
    let run_dir =
        tmpfiles::RunDir::create_in(&spill_parent).map_err(|e| match &args.spill_dir {
            // A bad directory fails now, named once, rather than after the reading (and before
            // the cleanup, which would warn about it first).
            Some(d) => UsageError(format!("cannot use --spill-dir {}: {e}", d.display())).into(),
            None => anyhow::anyhow!("cannot create a directory in {}: {e}", spill_parent.display()),
        })?;
    output::clean_once(&spill_parent);
    let mut config = DedupConfig::try_from(&args)?;
    config.spill_dir = Some(run_dir.path().to_path_buf());
    let dedup = Dedup::new(config)?;
    let run_config = RunConfig::new(dedup.config(), args.spill_dir.as_deref())?;

    crate::setup::check_method_options(&args, matches)?;
    if args.run_file.is_some() {
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
    }
    let expanded = crate::setup::expand_nonempty(&args.inputs)?;
    check_distinct_outputs(&args, &expanded.inputs)?;
    // Open the outputs before the long work, so a bad path fails at once.
    let pairs = args.pairs.as_deref().map(OutputFile::open).transpose()?;
    let clusters = args.clusters.as_deref().map(OutputFile::open).transpose()?;
    let output = args.output.as_deref().map(OutputFile::open).transpose()?;
    let report = args.report.as_deref().map(OutputFile::open).transpose()?;
    let stats = args.stats.as_deref().map(OutputFile::open).transpose()?;
    let html_file = args.html.as_deref().map(OutputFile::open).transpose()?;
    let run_file = args.run_file.as_deref().map(OutputFile::open).transpose()?;

    let opts = args.input.read_options();
    let mut summary = Summary::new(expanded.inputs.len(), &expanded.ignored);
    let progress = Progress::new(args.quiet, known_input_bytes(&expanded.inputs));

    let spill = |e: lookalike::Error| in_spill_dir(e, args.spill_dir.as_deref());
    let mut run = dedup.start().map_err(spill)?;
    // The documents --output writes are held in a temporary file of the spill folder.
    let spill_name = spill_dir_name(args.spill_dir.as_deref());
    let payload_error = |e: std::io::Error| {
        anyhow::anyhow!("cannot write the temporary file of --output in {spill_name}: {e}")
    };
    let mut payloads = match args.output {
        Some(_) => Some(PayloadStore::new(Some(run_dir.path())).map_err(payload_error)?),
        None => None,
    };
    let want_payload = payloads.is_some();
    // The language is detected only when an output carries it.
    let want_lang = args.output.is_some() || args.report.is_some() || args.html.is_some();
    // The report page: what it shows is gathered as the results stream past.
    let mut html = args.html.as_ref().map(|_| HtmlSink {
        data: RunData::new(dedup.config().threshold, dedup.config().seed, args.inputs.clone()),
        langs: Vec::new(),
        clusters: 0,
    });
    let mut entries: Vec<ReportEntry> = Vec::new();
    // Where each document is, by DocId, for the report and the summary's examples.
    let mut origins: Vec<Origin> = Vec::new();
    // Ids made unique over the run, in input order (a later copy gets `#` and its origin).
    let mut ids = UniqueIds::default();
    // Files found in directories and not read (binary, empty, JSON documents): listed.
    for file in &expanded.ignored {
        let (path, reason) = (file.path.display().to_string(), file.reason.clone());
        entries.push(ReportEntry::Ignored { path, reason });
    }
    // Special files and link loops found in directories: not opened, each reported.
    for skipped in &expanded.skipped {
        let id = skipped.path.display().to_string();
        let origin = Origin::whole(id.as_str());
        let id = rename(&mut ids, &id, &origin, &mut summary).unwrap_or(id);
        summary.skip(&id, &skipped.reason);
        entries.push(ReportEntry::Skipped { id, reason: skipped.reason.clone(), origin });
    }
    // Read on one thread; decode, detect the language and build the payload on the workers.
    // Texts that begin alike (copies, pages of one template) have their language detected once.
    let langs = lookalike::text::lang::DetectCache::default();
    let lang_of =
        |doc: &Document| if want_lang { langs.detect(&doc.text).map(|d| d.code) } else { None };
    // Every decoded record, in input order, into the run and the outputs' lists.
    let mut consume =
        |decoded: Vec<Result<DecodedRecord, lookalike_io::InputError>>| -> Result<()> {
            let mut docs = Vec::with_capacity(decoded.len());
            for item in decoded {
                match item {
                    Err(e) => {
                        progress
                            .println(&format!("lookalike: warning: {e}"), summary.input_errors());
                        // A record (or a whole input) lost with the error is in the report too.
                        if let Some(id) = &e.lost {
                            let origin = e.origin();
                            let id = rename(&mut ids, id, &origin, &mut summary)
                                .unwrap_or_else(|| id.clone());
                            let reason = e.message.clone();
                            entries.push(ReportEntry::Skipped { id, reason, origin });
                        }
                        summary.input_error(e);
                    }
                    Ok(DecodedRecord {
                        decoded: Decoded::Skip { id, reason },
                        payload,
                        origin,
                        ..
                    }) => {
                        let id = rename(&mut ids, &id, &origin, &mut summary).unwrap_or(id);
                        if let (Some(store), Some((p, _))) = (payloads.as_mut(), payload) {
                            store.push_skipped(&p).map_err(payload_error)?;
                        }
                        summary.skip(&label(&id, &origin), &reason);
                        entries.push(ReportEntry::Skipped { id, reason, origin });
                    }
                    Ok(DecodedRecord {
                        decoded: Decoded::Doc { mut doc, warning, title, .. },
                        mut payload,
                        lang,
                        origin,
                        format,
                        removed,
                    }) => {
                        if let Some(id) = rename(&mut ids, &doc.id, &origin, &mut summary) {
                            if payload.is_some() && !is_record_payload(format) {
                                // The line `--output` writes names the document by its new id.
                                payload =
                                    Some((payload_json(&id, &doc, title.as_deref(), lang), true));
                            }
                            doc.id = id;
                        }
                        if let Some(w) = warning {
                            summary.warning(&label(&doc.id, &origin), &w);
                        }
                        if let (Some(store), Some((p, built))) = (payloads.as_mut(), payload) {
                            store.push(&p, built).map_err(payload_error)?;
                        }
                        entries.push(ReportEntry::Doc {
                            index: DocId((run.len() + docs.len()) as u32),
                            lang,
                            boilerplate: removed,
                        });
                        origins.push(origin);
                        if let Some(h) = html.as_mut() {
                            h.langs.push(lang);
                        }
                        docs.push(doc);
                    }
                }
            }
            summary.records += docs.len() as u64;
            summary.bytes += docs.iter().map(|d| d.raw_len).sum::<u64>();
            run.add(docs).map_err(spill)?;
            progress.reading(summary.records, summary.bytes, started.elapsed());
            Ok(())
        };
    let mut removal = None;
    if crate::boilerplate::enabled(&args.boilerplate, &opts, &expanded.inputs) {
        // Two passes: every page's blocks counted per site while the texts go to a temporary
        // file, then the pages cleaned of their site's template and run.
        let temp_error = |what: &str| {
            format!("cannot {what} the temporary file of --boilerplate in {spill_name}")
        };
        let mut pass = crate::boilerplate::SitePass::new(&args.boilerplate, run_dir.path())
            .with_context(|| temp_error("create"))?;
        let mode = pass.mode();
        let first = |rec: &RawRecord, decoded: Decoded| {
            let page = crate::boilerplate::HASHER
                .with_borrow_mut(|h| crate::boilerplate::page_of(mode, rec, &decoded, h));
            let payload = match &decoded {
                Decoded::Skip { id, reason } => (want_payload
                    && !crate::extract::is_warc_record_type(reason))
                .then(|| skipped_payload(rec, id, reason)),
                Decoded::Doc { .. } => (want_payload && is_record_payload(rec.format))
                    .then(|| (rec.bytes.clone(), false)),
            };
            crate::boilerplate::First {
                decoded,
                origin: rec.origin(),
                format: rec.format,
                payload,
                page,
            }
        };
        let pass_opts = crate::boilerplate::read_options(&args.boilerplate, opts.clone());
        let batches =
            DecodedBatches::spawn(expanded.inputs, pass_opts, BatchLimits::default(), first)
                .context("cannot start the reader thread")?;
        let mut read = 0u64;
        for batch in batches {
            for item in batch {
                if let Ok(f) = &item
                    && let Decoded::Doc { doc, .. } = &f.decoded
                {
                    read += doc.raw_len;
                }
                pass.hold(item).with_context(|| temp_error("write"))?;
            }
            progress.counting(pass.pages, read, started.elapsed());
        }
        let mut cleaned = pass.finish(4096).with_context(|| temp_error("read"))?;
        while let Some(batch) = cleaned.next_batch().with_context(|| temp_error("read"))? {
            let decoded: Vec<_> = batch
                .into_par_iter()
                .map(|item| {
                    item.map(|second| {
                        let lang = match &second.decoded {
                            Decoded::Doc { doc, .. } => lang_of(doc),
                            Decoded::Skip { .. } => None,
                        };
                        let payload = match (&second.decoded, second.payload) {
                            (_, Some(p)) => Some(p),
                            (Decoded::Doc { doc, title, .. }, None) if want_payload => {
                                Some(payload_json(&doc.id, doc, title.as_deref(), lang))
                                    .map(|p| (p, true))
                            }
                            // A page skipped for having nothing of its own (the reader's
                            // skips have their line from the first pass, or none: WARC
                            // records that are not responses).
                            (Decoded::Skip { id, reason }, None)
                                if want_payload && second.removed.is_some() =>
                            {
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
                    })
                })
                .collect();
            consume(decoded)?;
        }
        removal = Some(cleaned.removal());
    } else {
        let per_record = |rec: &RawRecord, decoded: Decoded| {
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
                    if want_payload && !crate::extract::is_warc_record_type(reason) {
                        payload = Some(skipped_payload(rec, id, reason));
                    }
                }
            }
            DecodedRecord {
                decoded,
                payload,
                lang,
                origin: rec.origin(),
                format: rec.format,
                removed: None,
            }
        };
        let batches = DecodedBatches::spawn(
            expanded.inputs,
            opts.clone(),
            BatchLimits::default(),
            per_record,
        )
        .context("cannot start the reader thread")?;
        for decoded in batches {
            consume(decoded)?;
        }
    }
    summary.boilerplate = removal;
    summary.read_time = started.elapsed();

    // Every output is a sink the run pushes into; they are committed together at the end.
    let origins: Arc<[Origin]> = origins.into();
    if let Some(h) = html.as_mut() {
        // Records the readers skipped never reach the run: the page counts them here.
        for entry in &entries {
            if let ReportEntry::Skipped { id, origin, .. } = entry {
                h.data.record(id, Fate::Skipped, None, &origin.source);
            }
        }
    }
    let mut outputs = Outputs {
        pairs: pairs.map(|f| Named::new(f, PairsTsv::new)),
        clusters: clusters.map(|f| Named::new(f, ClustersJsonl::new)),
        report: report.map(|f| Named::new(f, |w| ReportJsonl::new(w, entries, origins.clone()))),
        kept: match (output, payloads) {
            (Some(f), Some(store)) => Some(Named::new(f, |w| {
                KeptJsonl::new(w, store).keep_skipped(args.skipped == SkippedInOutput::Keep)
            })),
            _ => None,
        },
        html,
        summary: &mut summary,
        origins: &origins,
    };
    let mut stages: Vec<(String, Instant)> = Vec::new();
    let mut report_run = run
        .finish_into_with(&mut outputs, &mut |phase| {
            stages.push((phase.to_owned(), Instant::now()));
            progress.phase(phase);
        })
        .map_err(|e| match e.downcast::<lookalike::Error>() {
            Ok(e) => in_spill_dir(e, args.spill_dir.as_deref()),
            Err(e) => e,
        })?;
    progress.phase("writing outputs");
    let finished = Instant::now();
    let Outputs { pairs, clusters, report, kept, html, .. } = outputs;
    let mut files: Vec<OutputFile> = Vec::new();
    files.extend(pairs.map(|s| s.sink.into_inner()));
    files.extend(clusters.map(|s| s.sink.into_inner()));
    files.extend(report.map(|s| s.sink.into_inner()));
    files.extend(kept.map(|s| s.sink.into_inner()));
    summary.total_time = started.elapsed();
    summary.threads = rayon::current_num_threads();
    summary.stages = stages
        .iter()
        .enumerate()
        .map(|(i, (name, start))| {
            let end = stages.get(i + 1).map_or(finished, |s| s.1);
            (name.clone(), end.duration_since(*start).as_secs_f64())
        })
        .collect();
    let rejected_sample = std::mem::take(&mut report_run.stats.verification.rejected_sample);
    let rejected_sample: Vec<(&str, &str, f64)> = rejected_sample
        .iter()
        .map(|&(a, b, sim)| {
            (report_run.ids[a.index()].as_str(), report_run.ids[b.index()].as_str(), sim)
        })
        .collect();
    summary.stats = report_run.stats.clone();
    let stats_json = summary.run_stats(run_config, &dedup);
    if let (Some(mut file), Some(mut h)) = (html_file, html) {
        for &(a, b, sim) in &rejected_sample {
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
        let found = crate::html::texts::fetch(&wanted, &opts);
        h.data.texts = found.texts;
        h.data.texts_note = found.note;
        let page = crate::html::render(&h.data, &stats_json, args.html_max_size);
        std::io::Write::write_all(&mut file, page.as_bytes())
            .with_context(|| format!("cannot write {}", file.name()))?;
        files.push(file);
    }
    if let Some(mut file) = run_file {
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
            "stats": stats_json,
            "rejected_sample": rejected_sample,
        });
        serde_json::to_writer_pretty(&mut file, &run_json)
            .map_err(std::io::Error::from)
            .and_then(|()| std::io::Write::write_all(&mut file, b"\n"))
            .with_context(|| format!("cannot write {}", file.name()))?;
        files.push(file);
    }
    if let Some(mut s) = stats {
        stats_json
            .to_pretty()
            .map_err(std::io::Error::from)
            .and_then(|text| std::io::Write::write_all(&mut s, &text))
            .with_context(|| format!("cannot write {}", s.name()))?;
        files.push(s);
    }
    // A run that fails replaces no output: the check comes before the commit.
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
        output::commit_all(files)?;
    } else {
        drop(files);
    }
    progress.finish();
    if !args.quiet {
        eprint!("{}", summary.render(&dedup));
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
/// nothing is lost: skipped records are kept). Files are compared as the file system sees them (issue 33): by
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
                self.summary.skip(&label, reason.as_str());
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
fn skipped_payload(rec: &RawRecord, id: &str, reason: &str) -> (Vec<u8>, bool) {
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

    /// The first pass of boilerplate removal: pages read and counted so far.
    fn counting(&self, pages: u64, bytes: u64, elapsed: Duration) {
        let mb = bytes as f64 / 1e6;
        let rate = mb / elapsed.as_secs_f64().max(1e-9);
        if let Some(len) = self.bar.length() {
            self.bar.set_position(bytes.min(len));
        }
        self.bar.set_message(format!(
            "site templates: {pages} pages counted, {mb:.1} MB ({rate:.1} MB/s)"
        ));
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
