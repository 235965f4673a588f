//! `lookalike index …`: the persistent index (`lookalike-index`) from the command line. Inputs
//! are read as `dedup` reads them (same readers, same ids made unique within a run); each batch
//! of `--batch` documents is one transaction, and its report lines are printed only once it is
//! committed, so a printed line is an acknowledged document.

use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use lookalike::boilerplate::{BoilerplateMode, SiteTemplate};
use lookalike::{DedupConfig, Document};
use lookalike_index::{Checked, Durability, Fate, Index, IndexSettings};
use lookalike_io::boilerplate::{
    BoilerplateOptions, Learned, PageCleaned, clean_learned, learn as learn_template,
};
use lookalike_io::{BatchLimits, Decoded, Origin, Position, RawRecord, UniqueIds};

use crate::UsageError;
use crate::args::{
    DurabilityArg, ExpectArgs, IndexAddArgs, IndexArgs, IndexCommand, IndexCreateArgs,
    IndexDirArgs, IndexExportArgs, IndexRemoveArgs, InputArgs, TemplateArgs,
};
use crate::output::OutputFile;

/// Runs `lookalike index …`.
pub fn run(args: IndexArgs) -> Result<ExitCode> {
    match args.command {
        IndexCommand::Create(a) => create(&a),
        IndexCommand::Add(a) => add(&a, true),
        IndexCommand::Query(a) => add(&a, false),
        IndexCommand::Remove(a) => remove(&a),
        IndexCommand::Get(a) => get(&a),
        IndexCommand::Stats(a) => stats(&a),
        IndexCommand::Export(a) => export(&a),
        IndexCommand::Verify(a) => verify(&a),
    }
}

/// An index error: the user's to fix (exit 2) when it is about settings or the directory.
pub fn index_error(e: lookalike_index::Error) -> anyhow::Error {
    use lookalike_index::Error as E;
    match e {
        E::NotAnIndex { .. }
        | E::Exists { .. }
        | E::Version { .. }
        | E::SettingsDiffer { .. }
        | E::Unsupported(_)
        | E::Config(_) => UsageError(e.to_string()).into(),
        e => e.into(),
    }
}

/// Opens the index in `dir` for reading and writing, refused when the settings `expect` states
/// differ from its own.
pub fn open(dir: &Path, expect: &ExpectArgs) -> Result<Index> {
    expecting(Index::open(dir).map_err(index_error)?, expect)
}

/// Opens the index in `dir` for reading only (its file is left as it is), refused when the
/// settings `expect` states differ from its own.
fn open_read_only(dir: &Path, expect: &ExpectArgs) -> Result<Index> {
    expecting(Index::open_read_only(dir).map_err(index_error)?, expect)
}

/// `index`, refused when the settings `expect` states differ from its own.
fn expecting(index: Index, expect: &ExpectArgs) -> Result<Index> {
    let mut wanted = index.settings().clone();
    if let Some(m) = expect.method {
        wanted.method = m;
    }
    if let Some(t) = expect.threshold {
        wanted.threshold = t;
    }
    if let Some(s) = expect.shingle {
        wanted.shingle = s;
    }
    if let Some(s) = expect.seed {
        wanted.seed = s;
    }
    if let Some(n) = expect.num_perm {
        match &mut wanted.minhash {
            Some(m) => m.num_perm = n,
            None => {
                return Err(UsageError(format!(
                    "{}: the index was created with other settings: num-perm: index none \
                     (method {}), given {n}",
                    index.dir().display(),
                    index.settings().method
                ))
                .into());
            }
        }
    }
    index.expect_settings(&wanted).map_err(index_error)?;
    Ok(index)
}

fn create(args: &IndexCreateArgs) -> Result<ExitCode> {
    let config = DedupConfig::try_from(&args.as_dedup_args())?;
    let settings = IndexSettings::from_config(&config).map_err(index_error)?;
    if args.dir.join(lookalike_index::index::DB_FILE).exists() {
        return Err(index_error(lookalike_index::Error::Exists { path: args.dir.clone() }));
    }
    let index = if args.template.from.is_empty() {
        Index::create(&args.dir, &settings).map_err(index_error)?
    } else {
        let template = learn(&args.template, &args.input)?;
        Index::create_with_template(&args.dir, &settings, &template).map_err(index_error)?
    };
    eprintln!("lookalike: created index {} ({})", args.dir.display(), index.describe());
    Ok(ExitCode::SUCCESS)
}

/// The site template of the pages of `--boilerplate-from`, counted as `dedup`'s first pass
/// counts a collection (the texts are not kept).
fn learn(args: &TemplateArgs, input: &InputArgs) -> Result<SiteTemplate> {
    if args.boilerplate == BoilerplateMode::Off {
        return Err(UsageError(
            "--boilerplate off with --boilerplate-from: nothing would be learned (leave out \
             --boilerplate-from for an index that compares pages as they are)"
                .into(),
        )
        .into());
    }
    let started = Instant::now();
    let expanded = crate::setup::expand_nonempty(&args.from)?;
    crate::setup::warn_skipped_paths(&expanded);
    let warn = |e: lookalike_io::InputError| eprintln!("lookalike: warning: {e}");
    let learned = learn_template(
        expanded.inputs,
        input.read_options(),
        &args.options(),
        BatchLimits::default(),
        warn,
    )
    .context("cannot start the reader thread")?;
    let Learned { records, pages, distinct, errors, .. } = learned;
    if pages == 0 {
        return Err(UsageError(format!(
            "--boilerplate-from: none of its {records} records is a page to learn a template \
             from ({errors} input errors; --boilerplate auto counts web pages: HTML, WARC, \
             docreader; --boilerplate all counts text and JSONL records too)"
        ))
        .into());
    }
    let template = learned.template;
    let (sites, with_template, blocks) = template.figures();
    eprintln!(
        "lookalike: site template learned from {pages} pages ({distinct} distinct) in {:.2} s: \
         {blocks} template lines on {with_template} of {sites} sites",
        started.elapsed().as_secs_f64()
    );
    Ok(template)
}

/// One report line: the document's fate, its matches, where it is.
fn report_line(c: &Checked, origin: &Origin) -> serde_json::Value {
    let mut v = serde_json::json!({ "id": c.id });
    match &c.fate {
        Fate::Kept => {
            v["status"] = "kept".into();
        }
        Fate::Duplicate { of, similarity, kind } => {
            v["status"] = "duplicate".into();
            v["of"] = of.as_str().into();
            v["similarity"] = round6(*similarity).into();
            v["match"] = kind.as_str().into();
        }
        Fate::Skipped(reason) => {
            v["status"] = "skipped".into();
            v["reason"] = reason.as_str().into();
        }
    }
    if let Some(u) = &c.unsigned {
        v["unsigned"] = u.as_str().into();
    }
    if !matches!(c.fate, Fate::Skipped(_)) {
        v["matches"] = c
            .matches
            .iter()
            .map(|m| {
                serde_json::json!({
                    "id": m.id, "similarity": round6(m.similarity), "match": m.kind.as_str()
                })
            })
            .collect();
        v["inserted"] = c.inserted.into();
        if c.replaced {
            v["replaced"] = true.into();
        }
    }
    position(&mut v, origin);
    v
}

fn position(v: &mut serde_json::Value, origin: &Origin) {
    v["source"] = (*origin.source).into();
    match origin.position {
        Position::Whole => {}
        Position::Line(n) => v["line"] = n.into(),
        Position::Row(n) => v["row"] = n.into(),
        Position::Record(n) => v["record"] = n.into(),
    }
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// What was read: a document to check, or a record skipped by the readers.
enum Item {
    Doc(Document, Origin, Option<lookalike_io::BoilerplateRemoved>),
    Skipped { id: String, reason: lookalike_io::SkipReason, origin: Origin },
}

fn add(args: &IndexAddArgs, insert: bool) -> Result<ExitCode> {
    let started = Instant::now();
    crate::setup::set_threads(args.threads)?;
    if args.batch == 0 {
        return Err(UsageError("--batch must be at least 1".into()).into());
    }
    let mut index = if insert {
        open(&args.dir, &args.expect)?
    } else {
        open_read_only(&args.dir, &args.expect)?
    };
    index.set_durability(match args.durability {
        DurabilityArg::Safe => Durability::Immediate,
        DurabilityArg::Fast => Durability::Fast,
    });
    let expanded = crate::setup::expand_nonempty(&args.inputs)?;
    crate::setup::warn_skipped_paths(&expanded);
    let out: Box<dyn Write> = match &args.report {
        Some(p) => Box::new(
            fs_err::File::create(p).with_context(|| format!("cannot write {}", p.display()))?,
        ),
        None => Box::new(std::io::stdout().lock()),
    };
    let mut out = BufWriter::new(out);
    let template = index.template();
    let per_record = |rec: &RawRecord, mut decoded: Decoded| {
        let cleaned = template.and_then(|t| clean_learned(t, rec, &mut decoded));
        (decoded, rec.origin(), cleaned)
    };
    let mut ids = UniqueIds::default();
    let (mut kept, mut dups, mut skipped, mut replaced, mut errors) =
        (0u64, 0u64, 0u64, 0u64, 0u64);
    type Read = (Decoded, Origin, Option<PageCleaned>);
    let (mut removed_bytes, mut before_bytes) = (0u64, 0u64);
    let each = |batch: Vec<Result<Read, lookalike_io::InputError>>| {
        let mut items = Vec::with_capacity(batch.len());
        for item in batch {
            match item {
                Err(e) => {
                    errors += 1;
                    eprintln!("lookalike: warning: {e}");
                    if let Some(id) = &e.lost {
                        let origin = e.origin();
                        let id = ids.make_unique(id, &origin).unwrap_or_else(|| id.clone());
                        let reason = lookalike_io::SkipReason::unreadable(e.message.clone());
                        items.push(Item::Skipped { id, reason, origin });
                    }
                }
                Ok((Decoded::Skip { id, reason }, origin, _)) => {
                    let id = ids.make_unique(&id, &origin).unwrap_or(id);
                    items.push(Item::Skipped { id, reason, origin });
                }
                Ok((Decoded::Doc { mut doc, warning, .. }, origin, cleaned)) => {
                    if let Some(id) = ids.make_unique(&doc.id, &origin) {
                        eprintln!(
                            "lookalike: warning: {origin}: duplicate id {:?} in this run; this \
                             record is {id:?}",
                            doc.id
                        );
                        doc.id = id;
                    }
                    if let Some(w) = warning {
                        eprintln!("lookalike: warning: {origin}: {w}");
                    }
                    if let Some(c) = cleaned {
                        removed_bytes += c.removed.removed_bytes;
                        before_bytes += c.removed.before_bytes;
                    }
                    items.push(Item::Doc(doc, origin, cleaned.map(|c| c.removed)));
                }
            }
        }
        let docs: Vec<Document> = items
            .iter_mut()
            .filter_map(|i| match i {
                Item::Doc(d, ..) => Some(std::mem::replace(d, Document::from_text("", ""))),
                Item::Skipped { .. } => None,
            })
            .collect();
        let checked = if insert { index.add(&docs) } else { index.query(&docs) };
        let checked = checked.with_context(|| {
            let verb = if insert { "add to" } else { "query" };
            format!("cannot {verb} the index {}", args.dir.display())
        })?;
        // Committed: now the lines may say so.
        let mut answers = checked.iter();
        for item in &items {
            let line = match item {
                Item::Doc(_, origin, removed) => {
                    let c = answers.next().expect("one answer per document");
                    match &c.fate {
                        Fate::Kept => kept += 1,
                        Fate::Duplicate { .. } => dups += 1,
                        Fate::Skipped(_) => skipped += 1,
                    }
                    replaced += u64::from(c.replaced);
                    let mut line = report_line(c, origin);
                    if let Some(r) = removed {
                        line["boilerplate"] = serde_json::to_value(r)?;
                    }
                    line
                }
                Item::Skipped { id, reason, origin } => {
                    skipped += 1;
                    let mut v =
                        serde_json::json!({ "id": id, "status": "skipped", "reason": reason });
                    position(&mut v, origin);
                    v
                }
            };
            serde_json::to_writer(&mut out, &line).map_err(std::io::Error::from)?;
            out.write_all(b"\n")?;
        }
        out.flush()?;
        Ok(())
    };
    let mut opts = args.input.read_options();
    if let Some(t) = template {
        let options = BoilerplateOptions { site_field: t.site_field.clone(), ..Default::default() };
        opts = options.read_options(opts);
    }
    let limits = BatchLimits::records(args.batch);
    crate::read::batches(expanded.inputs, opts, limits, per_record, each)?;
    index.flush().map_err(index_error)?;
    if !args.quiet {
        eprintln!(
            "lookalike: {} {} documents in {:.2} s: {kept} kept, {dups} duplicates, {skipped} \
             skipped{}{}",
            if insert { "added" } else { "checked" },
            kept + dups + skipped,
            started.elapsed().as_secs_f64(),
            if replaced > 0 {
                format!(", {replaced} replaced an earlier document")
            } else {
                String::new()
            },
            if errors > 0 { format!(", {errors} input errors") } else { String::new() },
        );
        if template.is_some() {
            eprintln!(
                "lookalike: site template: {removed_bytes} of {before_bytes} bytes removed from \
                 the compared texts"
            );
        }
    }
    // As `dedup`: a run that could read no document at all fails.
    if kept + dups == 0 && (errors > 0 || skipped > 0) {
        eprintln!(
            "lookalike: error: no document could be read ({errors} input errors, {skipped} \
             records skipped)"
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn remove(args: &IndexRemoveArgs) -> Result<ExitCode> {
    let index = open(&args.dir, &ExpectArgs::default())?;
    let found = index.remove(&args.ids).map_err(index_error)?;
    let missing: Vec<&String> =
        args.ids.iter().zip(&found).filter(|(_, f)| !**f).map(|(id, _)| id).collect();
    eprintln!("lookalike: removed {} documents", found.iter().filter(|f| **f).count());
    if !missing.is_empty() {
        eprintln!("lookalike: warning: not in the index: {missing:?}");
    }
    Ok(ExitCode::SUCCESS)
}

fn get(args: &IndexRemoveArgs) -> Result<ExitCode> {
    let index = open_read_only(&args.dir, &ExpectArgs::default())?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut missing = Vec::new();
    for id in &args.ids {
        match index.get(id).map_err(index_error)? {
            Some(doc) => {
                serde_json::to_writer(
                    &mut out,
                    &serde_json::json!({"id": doc.id, "text": doc.text}),
                )
                .map_err(std::io::Error::from)?;
                out.write_all(b"\n")?;
            }
            None => missing.push(id),
        }
    }
    out.flush()?;
    if missing.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!("lookalike: not in the index: {missing:?}");
    Ok(ExitCode::from(1))
}

fn stats(args: &IndexDirArgs) -> Result<ExitCode> {
    let index = open_read_only(&args.dir, &ExpectArgs::default())?;
    let stats = index.stats().map_err(index_error)?;
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, &stats).map_err(std::io::Error::from)?;
    out.write_all(b"\n")?;
    Ok(ExitCode::SUCCESS)
}

/// The pairs and clusters sinks of `export`, fed by one run.
struct ExportSinks {
    pairs: Option<lookalike_io::PairsTsv<OutputFile>>,
    clusters: Option<lookalike_io::ClustersJsonl<OutputFile>>,
}

impl lookalike::Sink for ExportSinks {
    type Error = lookalike_io::SinkError;

    fn pair(&mut self, ids: &[String], pair: &lookalike::ScoredPair) -> Result<bool, Self::Error> {
        match &mut self.pairs {
            Some(s) => s.pair(ids, pair),
            None => Ok(true),
        }
    }

    fn cluster(
        &mut self,
        ids: &[String],
        cluster: &lookalike::Cluster,
    ) -> Result<bool, Self::Error> {
        match &mut self.clusters {
            Some(s) => s.cluster(ids, cluster),
            None => Ok(true),
        }
    }

    fn finish(&mut self) -> Result<(), Self::Error> {
        if let Some(s) = &mut self.pairs {
            s.finish()?;
        }
        if let Some(s) = &mut self.clusters {
            s.finish()?;
        }
        Ok(())
    }
}

fn export(args: &IndexExportArgs) -> Result<ExitCode> {
    crate::setup::set_threads(args.threads)?;
    let pairs = match (&args.pairs, &args.clusters) {
        (None, None) => Some("-".to_owned()),
        (p, _) => p.clone(),
    };
    if pairs.as_deref() == Some("-") && args.clusters.as_deref() == Some("-") {
        return Err(UsageError("only one of --pairs and --clusters can be -".into()).into());
    }
    let index = open_read_only(&args.dir, &ExpectArgs::default())?;
    let mut sinks = ExportSinks {
        pairs: pairs.as_deref().map(OutputFile::open).transpose()?.map(lookalike_io::PairsTsv::new),
        clusters: args
            .clusters
            .as_deref()
            .map(OutputFile::open)
            .transpose()?
            .map(lookalike_io::ClustersJsonl::new),
    };
    let report = index.export_into(&mut sinks).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut files = Vec::new();
    files.extend(sinks.pairs.map(lookalike_io::PairsTsv::into_inner));
    files.extend(sinks.clusters.map(lookalike_io::ClustersJsonl::into_inner));
    crate::output::commit_all(files)?;
    eprintln!(
        "lookalike: exported {} documents: {} pairs, {} clusters",
        report.stats.documents, report.stats.pairs, report.stats.clusters
    );
    Ok(ExitCode::SUCCESS)
}

fn verify(args: &IndexDirArgs) -> Result<ExitCode> {
    // An index that cannot even be opened is a damaged one: exit 1 as the help promises, not
    // the usage error's 2. A folder that is not there is a usage error.
    if !args.dir.is_dir() {
        return Err(UsageError(format!("{}: no such index folder", args.dir.display())).into());
    }
    let mut index = match open_read_only(&args.dir, &ExpectArgs::default()) {
        Ok(index) => index,
        // Held by a writer (`serve`): not damaged, say so.
        Err(e) if matches!(e.downcast_ref(), Some(lookalike_index::Error::Locked { .. })) => {
            return Err(e);
        }
        Err(e) => {
            eprintln!(
                "lookalike: {}: cannot be opened, the index is damaged: {e:#}",
                args.dir.display()
            );
            return Ok(ExitCode::from(1));
        }
    };
    let report = index.verify().map_err(index_error)?;
    for p in &report.problems {
        eprintln!("lookalike: {}: {p}", args.dir.display());
    }
    if report.problems.is_empty() {
        eprintln!("lookalike: {}: {} documents, index sound", args.dir.display(), report.documents);
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!(
            "lookalike: {}: {} problems in {} documents",
            args.dir.display(),
            report.problems.len(),
            report.documents
        );
        Ok(ExitCode::from(1))
    }
}
