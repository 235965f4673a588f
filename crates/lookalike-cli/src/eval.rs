//! `lookalike eval`: score results against a gold standard, and `lookalike eval pool`: score
//! several runs against the pool of their pairs judged by text comparison. The metrics live in
//! `lookalike-eval` ([`lookalike_eval::metrics`], [`lookalike_eval::judge`]); this is the glue:
//! arguments, files, tables and JSON.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow};
use lookalike_eval::judge::{Judge, Judgement, MAX_POOL_RUNS, PairPool, PoolReport};
use lookalike_eval::metrics::{ClusterStats, PairScore, pair_score, relation_ari};
use lookalike_eval::relation::{DupFile, EPS, Ids, PairFile, PairValue, Relation, read_dup_file};
use lookalike_io::{Decoded, RawRecord, ReadOptions, Reader};
use rayon::prelude::*;
use serde::Serialize;

use crate::UsageError;
use crate::args::{EvalArgs, EvalCommand, PoolArgs};
use crate::output::Sink;
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
        let found = read_results(&spec.path, &mut ids)?;
        let score = pair_score(&found.relation, &gold.relation);
        let ari = relation_ari(&found.relation, &gold.relation, args.docs);
        if let Some(d) = args.docs
            && ari.items > d
        {
            eprintln!(
                "lookalike: warning: --docs {d} is less than the {} ids the files name; the ARI \
                 is over those ids",
                ari.items
            );
        }
        rows.push(EvalRow {
            name: spec.name.clone(),
            file: spec.path.display().to_string(),
            format: found.format,
            score,
            exact_groups: found.relation.exact_groups(),
            ari: ari.value,
            ari_items: ari.items,
            clusters: ClusterStats::of(&found.relation, args.docs),
        });
    }
    let report = EvalReport {
        threshold: args.threshold,
        docs: args.docs,
        gold: GoldInfo {
            file: gold_path.display().to_string(),
            clusters: ClusterStats::of(&gold.relation, args.docs),
            ..gold.info
        },
        results: rows,
    };
    if !args.quiet {
        eprint!("{}", render_eval(&report));
    }
    if args.json {
        write_json_stdout(&serde_json::to_value(&report)?)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// What `eval` prints as JSON.
#[derive(Debug, Serialize)]
struct EvalReport {
    threshold: f64,
    docs: Option<u64>,
    gold: GoldInfo,
    results: Vec<EvalRow>,
}

/// The gold standard as read.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct GoldInfo {
    pub file: String,
    /// `pairs` or `clusters`.
    pub format: &'static str,
    /// For pairs: `labels` or `similarities`.
    pub values: Option<&'static str>,
    /// The `# ... threshold=T` setting of a pairs file.
    pub header_threshold: Option<f64>,
    /// Duplicate pairs.
    pub duplicate_pairs: u64,
    /// Ids the file names.
    pub ids: u64,
    pub clusters: ClusterStats,
}

#[derive(Debug, Serialize)]
struct EvalRow {
    name: String,
    file: String,
    format: &'static str,
    #[serde(flatten)]
    score: PairScore,
    exact_groups: u64,
    ari: f64,
    ari_items: u64,
    clusters: ClusterStats,
}

/// A gold standard read into a relation.
pub(crate) struct Gold {
    pub relation: Relation,
    pub info: GoldInfo,
}

impl GoldInfo {
    /// One line saying what the gold standard holds.
    pub fn describe(&self, threshold: f64) -> String {
        let i = self;
        match (i.format, i.values) {
            ("clusters", _) => format!(
                "clusters JSONL: {} clusters of 2 or more, {} duplicate pairs, {} ids",
                i.clusters.clusters, i.duplicate_pairs, i.ids
            ),
            (_, Some("labels")) => {
                format!("labelled pairs: {} duplicate pairs, {} ids", i.duplicate_pairs, i.ids)
            }
            _ => format!(
                "pairs with similarities, duplicates at >= {threshold}: {} pairs{}",
                i.duplicate_pairs,
                i.header_threshold.map_or(String::new(), |t| format!("; file threshold {t}"))
            ),
        }
    }
}

/// Reads a gold standard: pairs (labels or similarities, duplicates at `threshold`) or clusters.
pub(crate) fn read_gold(path: &Path, threshold: f64, ids: &mut Ids) -> Result<Gold> {
    check_exists(path, "--gold")?;
    let (relation, values, header_threshold) = match read_dup_file(path, ids)? {
        DupFile::Clusters(c) => (Relation::from_clusters(&c), None, None),
        DupFile::Pairs(file) => {
            let header = file.header_threshold(path)?;
            let labels = file.lines.iter().all(|l| l.value.is_label_like());
            if !labels
                && let Some(t) = header
                && t > threshold + EPS
            {
                return Err(UsageError(format!(
                    "{} lists the pairs with similarity >= {t} only, so it cannot tell the \
                     duplicates at --threshold {threshold}: use a threshold >= {t}",
                    path.display()
                ))
                .into());
            }
            let positives =
                file.lines.iter().filter(|l| l.value.is_duplicate(threshold)).map(|l| (l.a, l.b));
            let all = file.lines.iter().flat_map(|l| [l.a, l.b]);
            let values = if labels { "labels" } else { "similarities" };
            (Relation::from_pairs(positives, all), Some(values), header)
        }
    };
    let info = GoldInfo {
        file: path.display().to_string(),
        format: if relation.is_clustering() { "clusters" } else { "pairs" },
        values,
        header_threshold,
        duplicate_pairs: relation.asserted_len(),
        ids: relation.mentioned().len() as u64,
        clusters: ClusterStats::of(&relation, None),
    };
    Ok(Gold { relation, info })
}

/// A results file read into a relation.
pub(crate) struct Found {
    pub relation: Relation,
    /// `pairs` or `clusters`.
    pub format: &'static str,
}

/// Reads results: found pairs (canonicalized; lines labelled false are not found pairs) or
/// clusters.
pub(crate) fn read_results(path: &Path, ids: &mut Ids) -> Result<Found> {
    check_exists(path, "--results")?;
    Ok(match read_dup_file(path, ids)? {
        DupFile::Clusters(c) => Found { relation: Relation::from_clusters(&c), format: "clusters" },
        DupFile::Pairs(file) => Found { relation: found_pairs(&file), format: "pairs" },
    })
}

/// The found pairs of a pairs file: every line but those labelled false.
pub(crate) fn found_pairs(file: &PairFile) -> Relation {
    Relation::from_found_pairs(file.lines.iter().filter_map(|l| match l.value {
        PairValue::Number(s) => Some((l.a, l.b, s)),
        PairValue::Label(true) => Some((l.a, l.b, 0.0)),
        PairValue::Label(false) => None,
    }))
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
        match read_dup_file(&s.path, &mut ids)? {
            DupFile::Pairs(file) => runs.push(found_pairs(&file)),
            DupFile::Clusters(_) => {
                return Err(UsageError(format!(
                    "{}: eval pool judges pairs, and this is a clusters file: give the pairs \
                     (lookalike dedup --pairs)",
                    s.path.display()
                ))
                .into());
            }
        }
    }
    let pool_out = a.pool_out.as_deref().map(Sink::open).transpose()?;
    let opts = a.input.read_options();
    let judge = Judge::new(a.shingle, a.seed, a.threshold);
    let names: Vec<String> = specs.iter().map(|s| s.name.clone()).collect();
    let (pool, judged, report) = judge_pool(&runs, &judge, &a.corpus, &opts, &ids, a.quiet)?;
    if let Some(mut sink) = pool_out {
        write_pool_tsv(&mut sink, &pool, &judged, &names, &ids)
            .with_context(|| format!("cannot write {}", sink.name()))?;
        sink.commit()?;
    }
    let files: Vec<String> = specs.iter().map(|s| s.path.display().to_string()).collect();
    if !a.quiet {
        eprint!("{}", render_pool(&report, &names));
    }
    if a.json {
        write_json_stdout(&pool_json(&report, &names, Some(&files)))?;
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
) -> Result<(PairPool, Vec<Judgement>, PoolReport)> {
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
    let texts = load_texts(corpus, opts, ids, &wanted, quiet)?;
    let judged = pool.judge_all(judge, &texts).map_err(|missing| {
        anyhow!(
            "no text for document {:?} in {}: is it the corpus the runs read, with the same \
             --id-field, --text-field and --format?",
            ids.name(missing),
            corpus.join(" ")
        )
    })?;
    let report = pool.report(&refs, judge, &judged);
    Ok((pool, judged, report))
}

/// Reads the corpus (streaming, decoding in parallel) and keeps the texts of the `wanted` ids.
pub(crate) fn load_texts(
    inputs: &[String],
    opts: &ReadOptions,
    ids: &Ids,
    wanted: &[u32],
    quiet: bool,
) -> Result<HashMap<u32, String>> {
    let expanded = lookalike_io::expand_inputs(inputs).map_err(|e| UsageError(e.to_string()))?;
    if expanded.inputs.is_empty() {
        return Err(UsageError(format!("no readable input files in {}", inputs.join(" "))).into());
    }
    let want: HashSet<u32> = wanted.iter().copied().collect();
    let mut texts: HashMap<u32, String> = HashMap::with_capacity(want.len());
    let mut batch: Vec<RawRecord> = Vec::with_capacity(1024);
    let mut batch_bytes = 0;
    let mut errors = 0u64;
    let flush = |batch: &mut Vec<RawRecord>, texts: &mut HashMap<u32, String>| {
        let found: Vec<(u32, String)> = batch
            .par_iter()
            .filter_map(|rec| match lookalike_io::decode(rec, opts) {
                Decoded::Doc { doc, .. } => {
                    ids.get(&doc.id).filter(|i| want.contains(i)).map(|i| (i, doc.text))
                }
                Decoded::Skip { .. } => None,
            })
            .collect();
        for (i, text) in found {
            texts.entry(i).or_insert(text);
        }
        batch.clear();
    };
    for item in Reader::new(expanded.inputs, opts.clone()) {
        match item {
            Ok(rec) => {
                batch_bytes += rec.bytes.len();
                batch.push(rec);
                if batch.len() >= 1024 || batch_bytes >= 8 << 20 {
                    flush(&mut batch, &mut texts);
                    batch_bytes = 0;
                }
            }
            Err(e) => {
                errors += 1;
                if errors <= 5 && !quiet {
                    eprintln!("lookalike: warning: {e}");
                }
            }
        }
    }
    flush(&mut batch, &mut texts);
    if errors > 5 && !quiet {
        eprintln!("lookalike: warning: {errors} inputs could not be read");
    }
    Ok(texts)
}

/// `id1 id2 shingle_jaccard char_resemblance duplicate found_by`, one line per pooled pair.
fn write_pool_tsv(
    out: &mut impl Write,
    pool: &PairPool,
    judged: &[Judgement],
    names: &[String],
    ids: &Ids,
) -> std::io::Result<()> {
    writeln!(out, "# id1\tid2\tshingle_jaccard\tchar_resemblance\tduplicate\tfound_by")?;
    for (k, (&(a, b), j)) in pool.pairs.iter().zip(judged).enumerate() {
        let by: Vec<&str> = names
            .iter()
            .enumerate()
            .filter(|(i, _)| pool.found_by[k] & (1 << i) != 0)
            .map(|(_, n)| n.as_str())
            .collect();
        writeln!(
            out,
            "{}\t{}\t{:.6}\t{:.6}\t{}\t{}",
            escape(ids.name(a)),
            escape(ids.name(b)),
            j.jaccard,
            j.chars,
            u8::from(j.duplicate),
            by.join(",")
        )?;
    }
    Ok(())
}

fn escape(id: &str) -> String {
    id.replace('\\', "\\\\").replace('\t', "\\t").replace('\n', "\\n").replace('\r', "\\r")
}

/// The JSON of a pool report, runs by name.
pub(crate) fn pool_json(
    r: &PoolReport,
    names: &[String],
    files: Option<&[String]>,
) -> serde_json::Value {
    let runs: Vec<serde_json::Value> = r
        .runs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut v = serde_json::json!({ "name": names[i] });
            if let Some(f) = files {
                v["file"] = f[i].clone().into();
            }
            if let (Some(obj), serde_json::Value::Object(score)) =
                (v.as_object_mut(), serde_json::to_value(s).unwrap_or_default())
            {
                obj.extend(score);
            }
            v
        })
        .collect();
    serde_json::json!({
        "threshold": r.threshold,
        "shingle": r.shingle,
        "judged_by": "shingle Jaccard or char resemblance (LCS/(|a|+|b|-LCS)) >= threshold",
        "pool": {
            "pairs": r.pairs,
            "duplicates": r.duplicates,
            "by_shingles": r.by_shingles,
            "by_chars": r.by_chars,
        },
        "runs": runs,
        "overlaps": overlaps_json(&r.overlaps, names),
    })
}

pub(crate) fn overlaps_json(
    o: &[lookalike_eval::metrics::Overlap],
    names: &[String],
) -> serde_json::Value {
    o.iter()
        .map(|o| {
            serde_json::json!({
                "a": names[o.a], "b": names[o.b], "shared": o.shared, "union": o.union,
                "jaccard": o.jaccard,
            })
        })
        .collect()
}

pub(crate) fn write_json_stdout(v: &serde_json::Value) -> Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, v)?;
    out.write_all(b"\n")?;
    out.flush().context("cannot write to stdout")
}

/// `x` with 4 decimals, or `n/a`.
pub(crate) fn fmt4(x: Option<f64>) -> String {
    x.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.4}"))
}

/// A plain table: columns padded to their widest cell, numbers (all but the first column)
/// right-aligned.
pub(crate) fn text_table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let mut s = String::new();
        for (i, (c, w)) in cells.iter().zip(&widths).enumerate() {
            let pad = w - c.chars().count();
            if i == 0 {
                s.push_str(c);
                s.push_str(&" ".repeat(pad));
            } else {
                s.push_str("  ");
                s.push_str(&" ".repeat(pad));
                s.push_str(c);
            }
        }
        s.trim_end().to_owned() + "\n"
    };
    let mut out = line(&header.iter().map(|h| (*h).to_owned()).collect::<Vec<_>>());
    for r in rows {
        out.push_str(&line(r));
    }
    out
}

fn stats_row(name: &str, s: &ClusterStats) -> Vec<String> {
    let opt = |x: Option<u64>| x.map_or("-".to_owned(), |v| v.to_string());
    let optf = |x: Option<f64>| x.map_or("-".to_owned(), |v| format!("{v:.1}"));
    vec![
        name.to_owned(),
        s.clusters.to_string(),
        s.clustered_docs.to_string(),
        s.singletons.to_string(),
        opt(s.min),
        optf(s.median),
        optf(s.mean),
        opt(s.max),
        s.histogram_text(),
    ]
}

const STATS_HEADER: [&str; 9] =
    ["clusters", "count", "docs", "singletons", "min", "median", "mean", "max", "sizes"];

fn render_eval(r: &EvalReport) -> String {
    let mut out = format!("gold {}: {}\n", r.gold.file, r.gold.describe(r.threshold));
    let rows: Vec<Vec<String>> = r
        .results
        .iter()
        .map(|row| {
            vec![
                row.name.clone(),
                row.format.to_owned(),
                row.score.found.to_string(),
                row.score.true_positives.to_string(),
                fmt4(row.score.precision),
                format!("{}/{}", row.score.reference_found, row.score.reference),
                fmt4(row.score.recall),
                fmt4(row.score.f1),
                format!("{:.4}", row.ari),
                row.ari_items.to_string(),
            ]
        })
        .collect();
    out.push_str(&text_table(
        &[
            "results",
            "format",
            "found",
            "TP",
            "precision",
            "gold found",
            "recall",
            "F1",
            "ARI",
            "items",
        ],
        &rows,
    ));
    out.push('\n');
    let mut stats = vec![stats_row("gold", &r.gold.clusters)];
    stats.extend(r.results.iter().map(|row| stats_row(&row.name, &row.clusters)));
    out.push_str(&text_table(&STATS_HEADER, &stats));
    out
}

fn render_pool(r: &PoolReport, names: &[String]) -> String {
    let mut out = format!(
        "pool: {} pairs from {} runs, {} judged duplicates (shingle Jaccard >= {t}: {}, char \
         resemblance >= {t}: {}; {} shingles)\n",
        r.pairs,
        names.len(),
        r.duplicates,
        r.by_shingles,
        r.by_chars,
        r.shingle,
        t = r.threshold
    );
    let rows: Vec<Vec<String>> = r
        .runs
        .iter()
        .zip(names)
        .map(|(s, n)| {
            vec![
                n.clone(),
                s.score.found.to_string(),
                s.score.true_positives.to_string(),
                fmt4(s.score.precision),
                format!("{}/{}", s.score.reference_found, s.score.reference),
                fmt4(s.score.recall),
                fmt4(s.score.f1),
                format!("{} ({})", s.only_this, s.only_this_duplicates),
            ]
        })
        .collect();
    out.push_str(&text_table(
        &[
            "run",
            "found",
            "duplicates",
            "precision",
            "pool found",
            "recall",
            "F1",
            "only this run (duplicates)",
        ],
        &rows,
    ));
    if !r.overlaps.is_empty() {
        out.push('\n');
        let rows: Vec<Vec<String>> = r
            .overlaps
            .iter()
            .map(|o| {
                vec![
                    format!("{} / {}", names[o.a], names[o.b]),
                    o.shared.to_string(),
                    o.union.to_string(),
                    fmt4(o.jaccard),
                ]
            })
            .collect();
        out.push_str(&text_table(&["overlap", "shared", "union", "Jaccard"], &rows));
    }
    out
}
