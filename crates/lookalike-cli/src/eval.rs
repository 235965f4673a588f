//! `lookalike eval`: score results against a gold standard, and `lookalike eval pool`: score
//! several runs against the pool of their pairs judged by text comparison. The measures, the
//! readers of pairs and clusters files and the reports live in `lookalike-metrics`; this is the
//! glue: arguments, messages and where the output goes.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow};
use lookalike_io::ReadOptions;
use lookalike_metrics::{
    EvalReport, EvalRow, Gold, Ids, Judge, JudgedPool, MAX_POOL_RUNS, PairPool, PoolJson, Relation,
    render_pool,
};

use crate::UsageError;
use crate::args::{EvalArgs, EvalCommand, PoolArgs};
use crate::output::OutputFile;
use crate::setup::set_threads;

pub fn run(args: EvalArgs) -> Result<ExitCode> {
    if let Some(EvalCommand::Pool(p)) = args.command {
        return run_pool(p);
    }
    check_threshold(args.threshold)?;
    let gold_path = args.gold.ok_or_else(|| UsageError("--gold is required".into()))?;
    let specs = parse_results(&args.results, false)?;
    let mut ids = Ids::default();
    let gold = read_gold(&gold_path, args.threshold, &mut ids)?;
    let mut rows = Vec::with_capacity(specs.len());
    for spec in &specs {
        check_exists(&spec.path, "--results")?;
        let found = lookalike_metrics::read_results(&spec.path, &mut ids).map_err(cli_error)?;
        let row = EvalRow::score(
            spec.name.clone(),
            spec.path.display().to_string(),
            &found,
            &gold,
            args.docs,
        );
        if let Some(d) = args.docs
            && row.ari_items > d
        {
            eprintln!(
                "lookalike: warning: --docs {d} is less than the {} ids the files name; the ARI \
                 is over those ids",
                row.ari_items
            );
        }
        rows.push(row);
    }
    let report = EvalReport::new(args.threshold, args.docs, &gold, rows);
    if !args.quiet {
        eprint!("{}", report.render());
    }
    if args.json {
        write_json_stdout(&report)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The CLI's error for an error of `lookalike-metrics`: those the user fixes with other
/// arguments are usage errors (exit code 2), in the words of the command line.
pub(crate) fn cli_error(e: lookalike_metrics::Error) -> anyhow::Error {
    match e {
        lookalike_metrics::Error::GoldAboveThreshold { path, file_threshold: t, threshold } => {
            UsageError(format!(
                "{} lists the pairs with similarity >= {t} only, so it cannot tell the \
                 duplicates at --threshold {threshold}: use a threshold >= {t}",
                path.display()
            ))
            .into()
        }
        lookalike_metrics::Error::ClustersNotPairs { path } => UsageError(format!(
            "{}: eval pool judges pairs, and this is a clusters file: give the pairs \
             (lookalike dedup --pairs)",
            path.display()
        ))
        .into(),
        e => e.into(),
    }
}

/// Reads the `--gold` file: pairs (labels or similarities, duplicates at `threshold`) or
/// clusters.
pub(crate) fn read_gold(path: &Path, threshold: f64, ids: &mut Ids) -> Result<Gold> {
    check_exists(path, "--gold")?;
    lookalike_metrics::read_gold(path, threshold, ids).map_err(cli_error)
}

/// A `[NAME=]FILE` argument.
#[derive(Debug, Clone)]
struct ResultsSpec {
    name: String,
    path: PathBuf,
}

/// Parses `NAME=FILE` (or, unless `need_name`, `FILE`, named after the file); names must differ.
fn parse_results(args: &[String], need_name: bool) -> Result<Vec<ResultsSpec>> {
    let mut specs: Vec<ResultsSpec> = Vec::new();
    for a in args {
        let named = a
            .split_once('=')
            .filter(|(n, _)| !n.is_empty() && !n.contains('/') && !Path::new(a).exists());
        let spec = match named {
            Some((name, file)) => ResultsSpec { name: name.to_owned(), path: PathBuf::from(file) },
            None if need_name => {
                return Err(UsageError(format!("--results {a}: expected NAME=FILE")).into());
            }
            None => {
                let path = PathBuf::from(a);
                let name = path.file_name().map_or(a.clone(), |n| n.to_string_lossy().into());
                ResultsSpec { name, path }
            }
        };
        if specs.iter().any(|s| s.name == spec.name) {
            return Err(UsageError(format!(
                "two --results are named {:?}: name them NAME=FILE",
                spec.name
            ))
            .into());
        }
        specs.push(spec);
    }
    Ok(specs)
}

fn check_exists(path: &Path, what: &str) -> Result<()> {
    if path.is_file() {
        Ok(())
    } else {
        Err(UsageError(format!("{what} {}: no such file", path.display())).into())
    }
}

pub(crate) fn check_threshold(t: f64) -> Result<()> {
    if t > 0.0 && t <= 1.0 {
        Ok(())
    } else {
        Err(UsageError(format!("--threshold must be in (0, 1], not {t}")).into())
    }
}

fn run_pool(a: PoolArgs) -> Result<ExitCode> {
    check_threshold(a.threshold)?;
    set_threads(a.threads)?;
    if a.json && a.pool_out.as_deref() == Some("-") {
        return Err(UsageError("--json and --pool-out - both write to stdout".into()).into());
    }
    let specs = parse_results(&a.results, true)?;
    if specs.len() > MAX_POOL_RUNS {
        return Err(UsageError(format!("at most {MAX_POOL_RUNS} --results")).into());
    }
    let mut ids = Ids::default();
    let mut runs = Vec::with_capacity(specs.len());
    for s in &specs {
        check_exists(&s.path, "--results")?;
        runs.push(lookalike_metrics::read_run_pairs(&s.path, &mut ids).map_err(cli_error)?);
    }
    let pool_out = a.pool_out.as_deref().map(OutputFile::open).transpose()?;
    let opts = a.input.read_options();
    let judge = Judge::new(a.shingle, a.seed, a.threshold);
    let names: Vec<String> = specs.iter().map(|s| s.name.clone()).collect();
    let judged = judge_pool(&runs, &judge, &a.corpus, &opts, &ids, a.quiet)?;
    if let Some(mut sink) = pool_out {
        judged
            .write_tsv(&mut sink, &names, &ids)
            .with_context(|| format!("cannot write {}", sink.name()))?;
        sink.commit()?;
    }
    let files: Vec<String> = specs.iter().map(|s| s.path.display().to_string()).collect();
    if !a.quiet {
        eprint!("{}", render_pool(&judged.report, &names));
    }
    if a.json {
        write_json_stdout(&PoolJson::new(&judged.report, &names, Some(&files)))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Pools the runs' pairs, reads the texts of the pooled documents from the corpus, judges every
/// pair and scores the runs.
pub(crate) fn judge_pool(
    runs: &[Relation],
    judge: &Judge,
    corpus: &[String],
    opts: &ReadOptions,
    ids: &Ids,
    quiet: bool,
) -> Result<JudgedPool> {
    let refs: Vec<&Relation> = runs.iter().collect();
    let pool = PairPool::new(&refs);
    let wanted = pool.ids();
    if !quiet {
        eprintln!(
            "lookalike: pool of {} pairs over {} documents; reading their texts",
            pool.pairs.len(),
            wanted.len()
        );
    }
    let expanded = lookalike_io::expand_inputs(corpus).map_err(|e| UsageError(e.to_string()))?;
    if expanded.inputs.is_empty() {
        return Err(UsageError(format!("no readable input files in {}", corpus.join(" "))).into());
    }
    let mut errors = 0u64;
    let texts = lookalike_metrics::load_texts(expanded.inputs, opts, ids, &wanted, |e| {
        errors += 1;
        if errors <= 5 && !quiet {
            eprintln!("lookalike: warning: {e}");
        }
    })?;
    if errors > 5 && !quiet {
        eprintln!("lookalike: warning: {errors} inputs could not be read");
    }
    JudgedPool::judge(pool, &refs, judge, &texts, ids).map_err(|e| match e {
        lookalike_metrics::Error::MissingText { id } => anyhow!(
            "no text for document {id:?} in {}: is it the corpus the runs read, with the same \
             --id-field, --text-field and --format?",
            corpus.join(" ")
        ),
        e => cli_error(e),
    })
}

/// Prints `v` as pretty JSON to stdout, with a final newline.
pub(crate) fn write_json_stdout(v: &impl serde::Serialize) -> Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, v)?;
    out.write_all(b"\n")?;
    out.flush().context("cannot write to stdout")
}
