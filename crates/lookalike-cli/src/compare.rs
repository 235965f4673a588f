//! `lookalike compare`: run every method on one corpus, each as a child process of this binary
//! (`lookalike dedup ... --pairs --stats`, so peak memory is the method's own), and compare
//! quality (against a gold standard, or the judged pool of all methods' pairs), speed and memory.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use crate::stats::RunStats;
use anyhow::{Context, Result, anyhow};
use clap::ValueEnum;
use lookalike::{MethodKind, MinHashScheme, Verify};
use lookalike_io::ReadOptions;
use lookalike_metrics::compare::{
    ClusterScore, CompareReport, CompareSettings, MethodResult, Reference, render_markdown,
};
use lookalike_metrics::relation::{read_clusters, read_pairs};
use lookalike_metrics::{
    Ids, Judge, PoolJson, Relation, found_pairs, overlaps, pair_score, relation_ari,
};

use crate::UsageError;
use crate::args::CompareArgs;
use crate::eval::{check_threshold, cli_error, judge_pool, read_gold};
use crate::output::OutputFile;
use crate::setup::set_threads;

/// One method run: a label and the `dedup` arguments that select it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodRun {
    /// Name in tables and in `--methods`.
    pub label: String,
    /// Arguments of `lookalike dedup`.
    pub args: Vec<String>,
}

/// The command-line name of a clap value.
fn value_name<T: ValueEnum>(v: &T) -> Option<String> {
    v.to_possible_value().map(|p| p.get_name().to_owned())
}

/// Every run `compare` knows: each method of [`MethodKind::ALL`] with its defaults, each but `exact`
/// also with every non-default [`Verify`] mode, and MinHash with every [`MinHashScheme`]. Methods and
/// modes added to the library join by themselves.
pub fn method_runs() -> Vec<MethodRun> {
    let mut runs = Vec::new();
    for &m in MethodKind::ALL {
        let base = vec!["--method".to_owned(), m.name().to_owned()];
        runs.push(MethodRun { label: m.name().to_owned(), args: base.clone() });
        if m == MethodKind::Exact {
            continue;
        }
        // Every method also alone (its own decision instead of exact verification); MinHash
        // also with its other schemes.
        let schemes: &[MinHashScheme] =
            if m == MethodKind::MinHash { MinHashScheme::value_variants() } else { &[] };
        let variants = Verify::value_variants()
            .iter()
            .filter(|&&v| v != Verify::default())
            .filter_map(|v| value_name(v).map(|n| ("--verify", n)))
            .chain(
                schemes
                    .iter()
                    .filter(|&&s| s != MinHashScheme::default())
                    .filter_map(|s| value_name(s).map(|n| ("--minhash", n))),
            );
        for (flag, value) in variants {
            let mut args = base.clone();
            args.extend([flag.to_owned(), value.clone()]);
            runs.push(MethodRun { label: format!("{}-{value}", m.name()), args });
        }
    }
    runs
}

/// What one `lookalike dedup` child left: its figures, wall seconds, pairs and clusters.
struct MethodFiles {
    stats: RunStats,
    wall: f64,
    pairs: PathBuf,
    clusters: PathBuf,
}

/// One method's run.
struct Done {
    run: MethodRun,
    stats: RunStats,
    wall: f64,
    relation: Relation,
    /// Its clusters as a relation, and the size of the largest.
    clusters: (Relation, u64),
}

impl Done {
    /// The run with its scores.
    fn result(
        self,
        score: lookalike_metrics::PairScore,
        ari: Option<f64>,
        clusters: Option<ClusterScore>,
    ) -> MethodResult {
        MethodResult {
            label: self.run.label,
            args: self.run.args,
            score,
            ari,
            exact_groups: self.relation.exact_groups(),
            pairs: self.relation.asserted_len(),
            docs_per_second: self.stats.docs_per_second,
            mb_per_second: self.stats.mb_per_second,
            peak_rss_bytes: self.stats.peak_rss_bytes,
            seconds: self.stats.seconds,
            wall_seconds: self.wall,
            clusters,
        }
    }
}

pub fn run(args: CompareArgs) -> Result<ExitCode> {
    check_threshold(args.sketch.threshold)?;
    // Bad MinHash/LSH settings fail here, not in the first child.
    crate::params::lsh_params(&args.sketch)?;
    set_threads(args.threads)?;
    if args.inputs.iter().any(|i| i == "-") {
        return Err(UsageError(
            "compare reads the corpus once per method: give files, not standard input".into(),
        )
        .into());
    }
    if args.json.as_deref() == Some("-") && args.markdown.as_deref() == Some("-") {
        return Err(UsageError("only one of --markdown and --json can be -".into()).into());
    }
    crate::setup::expand_nonempty(&args.inputs)?;
    let selected = select_runs(&args.methods)?;
    // The gold standard first: a bad file fails before the long runs.
    let mut ids = Ids::default();
    let gold =
        args.gold.as_deref().map(|g| read_gold(g, args.sketch.threshold, &mut ids)).transpose()?;
    let markdown_sink = match (&args.markdown, args.json.as_deref()) {
        (Some(m), _) => Some(OutputFile::open(m)?),
        (None, Some("-")) => None,
        (None, _) => Some(OutputFile::open("-")?),
    };
    let json_sink = args.json.as_deref().map(OutputFile::open).transpose()?;
    let html_sink = args.html.as_deref().map(OutputFile::open).transpose()?;

    let tmp = tempfile::tempdir().context("cannot create a temporary directory")?;
    let dir = match &args.out_dir {
        Some(d) => {
            fs_err::create_dir_all(d)?;
            d.clone()
        }
        None => tmp.path().to_path_buf(),
    };
    let exe = std::env::current_exe().context("cannot find the lookalike binary")?;
    let common = common_args(&args);
    let minhash = minhash_args(&args);
    let mut done: Vec<Done> = Vec::with_capacity(selected.len());
    for (k, run) in selected.iter().enumerate() {
        if !args.quiet {
            eprint!("lookalike compare: [{}/{}] {} ... ", k + 1, selected.len(), run.label);
        }
        let MethodFiles { stats, wall, pairs: pairs_path, clusters: clusters_path } =
            run_method(&exe, &args.inputs, run, &[&common, &minhash], &dir)?;
        let file = read_pairs(&pairs_path, &mut ids).map_err(cli_error)?;
        let relation = found_pairs(&file);
        let groups = read_clusters(&clusters_path, &mut ids).map_err(cli_error)?;
        let largest = groups.iter().map(|g| g.len() as u64).max().unwrap_or(0);
        let clusters = (Relation::from_clusters(&groups), largest);
        if !args.quiet {
            eprintln!(
                "{} pairs, {wall:.2} s, {:.1} MB/s, peak {}",
                relation.asserted_len(),
                stats.mb_per_second,
                stats
                    .peak_rss_bytes
                    .map_or("n/a".to_owned(), |b| format!("{:.1} MB", b as f64 / 1e6)),
            );
        }
        done.push(Done { run: run.clone(), stats, wall, relation, clusters });
    }

    let names: Vec<String> = done.iter().map(|d| d.run.label.clone()).collect();
    let documents = done.first().map_or(0, |d| d.stats.documents);
    let bytes = done.first().map_or(0, |d| d.stats.bytes);
    let sets: Vec<&[(u32, u32)]> =
        done.iter().map(|d| d.relation.pairs().unwrap_or_default()).collect();
    let overlap = overlaps(&sets);
    let pool_report;
    let (rows, reference_text, reference) = match &gold {
        Some(g) => {
            let rows: Vec<MethodResult> = done
                .into_iter()
                .map(|d| {
                    let score = pair_score(&d.relation, &g.relation);
                    let ari = relation_ari(&d.relation, &g.relation, Some(documents)).value;
                    let (crel, largest) = &d.clusters;
                    let clusters = ClusterScore {
                        score: pair_score(crel, &g.relation),
                        ari: relation_ari(crel, &g.relation, Some(documents)).value,
                        largest: *largest,
                    };
                    d.result(score, Some(ari), Some(clusters))
                })
                .collect();
            let text = format!(
                "Quality against the gold standard `{}` ({}).",
                g.info.file,
                g.info.describe(args.sketch.threshold)
            );
            (rows, text, Reference::gold(&g.info))
        }
        None => {
            if !args.quiet {
                eprint!("lookalike compare: judging the pool by text comparison ... ");
            }
            let judge = Judge::new(args.shingle, args.seed, args.sketch.threshold);
            let relations: Vec<Relation> = done.iter().map(|d| d.relation.clone()).collect();
            let started = Instant::now();
            let judged =
                judge_pool(&relations, &judge, &args.inputs, &read_options(&args), &ids, true)?;
            pool_report = judged.report;
            let report = &pool_report;
            if !args.quiet {
                eprintln!(
                    "{} pairs, {} duplicates, {:.1} s",
                    report.pairs,
                    report.duplicates,
                    started.elapsed().as_secs_f64()
                );
            }
            let rows: Vec<MethodResult> = done
                .into_iter()
                .zip(&report.runs)
                .map(|(d, s)| d.result(s.score.clone(), None, None))
                .collect();
            let text = format!(
                "Quality against the pool of all methods' pairs (no --gold): {} pooled pairs, {} \
                 judged duplicates by direct text comparison ({} shingle Jaccard or character \
                 resemblance >= {}). Recall is relative to the pool.",
                report.pairs, report.duplicates, report.shingle, report.threshold
            );
            (rows, text, Reference::pool(PoolJson::new(report, &names, None)))
        }
    };

    let settings = format!(
        "Corpus: {} ({documents} documents, {:.1} MB); threshold {}, {} shingles, {} MinHash \
         values, seed {}, {} threads.",
        args.inputs.join(" "),
        bytes as f64 / 1e6,
        args.sketch.threshold,
        args.shingle,
        args.sketch.num_perm(),
        args.seed,
        args.threads.map_or_else(|| rayon::current_num_threads().to_string(), |t| t.to_string()),
    );
    if let Some(mut sink) = markdown_sink {
        let md = render_markdown(&settings, &reference_text, &rows, &overlap, &names);
        std::io::Write::write_all(&mut sink, md.as_bytes())
            .with_context(|| format!("cannot write {}", sink.name()))?;
        sink.commit()?;
    }
    if let Some(mut sink) = html_sink {
        let page = crate::html::compare::render(&settings, &reference_text, &rows);
        std::io::Write::write_all(&mut sink, page.as_bytes())
            .with_context(|| format!("cannot write {}", sink.name()))?;
        sink.commit()?;
    }
    if let Some(mut sink) = json_sink {
        let settings = CompareSettings {
            threshold: args.sketch.threshold,
            shingle: args.shingle.to_string(),
            num_perm: args.sketch.num_perm(),
            seed: args.seed,
            threads: args.threads.unwrap_or_else(rayon::current_num_threads),
        };
        let json = CompareReport::new(
            &args.inputs,
            (documents, bytes),
            settings,
            reference,
            &rows,
            &overlap,
            &names,
        );
        serde_json::to_writer_pretty(&mut sink, &json)
            .map_err(std::io::Error::from)
            .and_then(|()| std::io::Write::write_all(&mut sink, b"\n"))
            .with_context(|| format!("cannot write {}", sink.name()))?;
        sink.commit()?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The runs named in `--methods` (all when empty), in the library's order.
fn select_runs(wanted: &[String]) -> Result<Vec<MethodRun>> {
    let all = method_runs();
    let wanted: Vec<&str> = wanted.iter().map(|s| s.trim()).filter(|s| !s.is_empty()).collect();
    if wanted.is_empty() {
        return Ok(all);
    }
    if let Some(bad) = wanted.iter().find(|w| !all.iter().any(|r| r.label == **w)) {
        let known: Vec<&str> = all.iter().map(|r| r.label.as_str()).collect();
        return Err(UsageError(format!(
            "unknown method {bad:?} in --methods: known are {}",
            known.join(", ")
        ))
        .into());
    }
    Ok(all.into_iter().filter(|r| wanted.contains(&r.label.as_str())).collect())
}

fn read_options(args: &CompareArgs) -> ReadOptions {
    args.input.read_options()
}

/// The `dedup` options every run shares.
fn common_args(args: &CompareArgs) -> Vec<String> {
    let mut v: Vec<String> = vec![
        "--threshold".into(),
        args.sketch.threshold.to_string(),
        "--shingle".into(),
        args.shingle.to_string(),
        "--seed".into(),
        args.seed.to_string(),
    ];
    v.extend(args.input.to_cli_args());
    if let Some(t) = args.threads {
        v.extend(["--threads".into(), t.to_string()]);
    }
    v
}

/// The `dedup` options of the MinHash and combined runs alone (`dedup` refuses them with other
/// methods).
fn minhash_args(args: &CompareArgs) -> Vec<String> {
    let s = &args.sketch;
    let mut v: Vec<String> = vec!["--num-perm".into(), s.num_perm().to_string()];
    for (flag, name) in [("--fp-weight", "fp_weight"), ("--fn-weight", "fn_weight")] {
        if let Some(w) = s.banding.get::<f64>(name) {
            v.extend([flag.into(), w.to_string()]);
        }
    }
    if let Some((b, r)) = s.banding() {
        v.extend(["--bands".into(), b.to_string(), "--rows".into(), r.to_string()]);
    }
    v
}

/// Runs one method as `lookalike dedup` in a child process; returns its stats, wall seconds and
/// the path of its pairs.
fn run_method(
    exe: &Path,
    inputs: &[String],
    run: &MethodRun,
    [common, minhash]: &[&[String]; 2],
    dir: &Path,
) -> Result<MethodFiles> {
    // MinHash's options go to the methods that read them (combined holds a MinHash).
    let is_minhash = run
        .args
        .get(1)
        .is_some_and(|m| m == MethodKind::MinHash.name() || m == MethodKind::Combined.name());
    let pairs = dir.join(format!("{}.pairs.tsv", run.label));
    let clusters = dir.join(format!("{}.clusters.jsonl", run.label));
    let stats_path = dir.join(format!("{}.stats.json", run.label));
    let started = Instant::now();
    let out = Command::new(exe)
        .arg("dedup")
        .args(inputs)
        .args(&run.args)
        .args(*common)
        .args(if is_minhash { *minhash } else { &[] })
        .arg("--pairs")
        .arg(&pairs)
        .arg("--clusters")
        .arg(&clusters)
        .arg("--stats")
        .arg(&stats_path)
        .arg("-q")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .with_context(|| format!("cannot run {}", exe.display()))?;
    let wall = started.elapsed().as_secs_f64();
    if !out.status.success() {
        let msg = String::from_utf8_lossy(&out.stderr).trim().to_owned();
        let what =
            format!("method {} (lookalike dedup {}) failed: {msg}", run.label, run.args.join(" "));
        return Err(if out.status.code() == Some(2) {
            UsageError(what).into()
        } else {
            anyhow!(what)
        });
    }
    let text = fs_err::read_to_string(&stats_path)?;
    let json: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{}: unexpected stats JSON", stats_path.display()))?;
    let stats = RunStats::from_value(&json, &stats_path.display().to_string())?;
    Ok(MethodFiles { stats, wall, pairs, clusters })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_come_from_the_library() {
        let runs = method_runs();
        let labels: Vec<&str> = runs.iter().map(|r| r.label.as_str()).collect();
        // Every method of the library, first with its defaults.
        for m in MethodKind::ALL {
            assert!(labels.contains(&m.name()), "{labels:?}");
        }
        let est = runs.iter().find(|r| r.label == "minhash-estimate").unwrap();
        assert_eq!(est.args, ["--method", "minhash", "--verify", "estimate"]);
        let combined = runs.iter().find(|r| r.label == "combined-estimate").unwrap();
        assert_eq!(combined.args, ["--method", "combined", "--verify", "estimate"]);
        let perm = runs.iter().find(|r| r.label == "minhash-perm").unwrap();
        assert_eq!(perm.args, ["--method", "minhash", "--minhash", "perm"]);
        assert_eq!(select_runs(&["exact".into()]).unwrap().len(), 1);
        assert!(select_runs(&["nope".into()]).is_err());
    }
}
