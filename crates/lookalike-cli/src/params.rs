//! `lookalike params`: the candidate S-curve of a method. For MinHash, the LSH bands and rows
//! chosen for a threshold; for super-shingles, their shape; for SimHash, the permuted-table
//! layout for a Hamming distance. Each curve is P(two documents become candidates) as a function
//! of their similarity.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use clap::ArgMatches;
use clap::ValueEnum;
use clap::parser::ValueSource;
use lookalike::candidates::hamming::TableConfig;
use lookalike::candidates::lsh::{COMPLETE_MARGIN, COMPLETE_PROBABILITY};
use lookalike::curve::{
    COSINE_GRID, around, chance_collisions, cosine_at_distance, crossing, hamming_probability,
    key_bits, similarity_grid,
};
use lookalike::sketch::simhash::distance_for_jaccard;
use lookalike::sketch::simhash::{BITS, MAX_TABLES};
use lookalike::sketch::supershingles::{SuperShingleConfig, SuperShingleMode, match_probability};
use lookalike::{ErrorWeights, LshParams};

use crate::UsageError;
use crate::args::{CurveMethod, ParamsArgs, SimHashArgs, SketchArgs, SuperShingleArgs};

/// Largest `--super-hashes`: keeps the mega-shingle count and the exponents of the curve small.
const MAX_SUPER_HASHES: usize = 1 << 16;

/// The super-shingle shape of the arguments, checked.
fn supershingle_config(args: &SuperShingleArgs) -> Result<SuperShingleConfig> {
    let SuperShingleConfig { minhashes, groups, mode, .. } = args.config();
    if minhashes == 0 || minhashes > MAX_SUPER_HASHES {
        return Err(UsageError(format!(
            "--super-hashes {minhashes} must be between 1 and {MAX_SUPER_HASHES}"
        ))
        .into());
    }
    if groups == 0 || groups > minhashes {
        return Err(UsageError(format!(
            "--super-groups {groups} must be between 1 and --super-hashes {minhashes}"
        ))
        .into());
    }
    let cfg = SuperShingleConfig { minhashes, groups, per_group: minhashes / groups, mode };
    cfg.validate().map_err(|e| UsageError(format!("--super-groups {groups}: {e}")))?;
    Ok(cfg)
}

/// The Hamming distance k of the arguments (`auto`: the one expected at `threshold`), checked
/// (0 ≤ k < 64).
fn simhash_distance(args: &SimHashArgs, threshold: f64) -> Result<u32> {
    let k = match args.simhash_distance() {
        Some(k) => k,
        None => {
            check_threshold(threshold)?;
            distance_for_jaccard(threshold)
        }
    };
    if k >= BITS {
        return Err(UsageError(format!(
            "--max-distance {k} must be less than the {BITS} bits of a fingerprint"
        ))
        .into());
    }
    Ok(k)
}

/// The table layout for distance `k`: the given blocks, the best for `docs` documents, or
/// Manku's minimal k + 1 blocks.
fn simhash_tables(
    args: &SimHashArgs,
    k: u32,
    docs: Option<usize>,
) -> Result<(TableConfig, Layout)> {
    let (cfg, layout) = match (args.simhash_blocks(), docs) {
        (Some(b), _) => (TableConfig::new(b, k), Layout::Given),
        (None, Some(n)) => (TableConfig::for_collection(k, n), Layout::Collection(n)),
        (None, None) => (TableConfig::for_distance(k), Layout::Minimal),
    };
    match cfg {
        Some(cfg) => Ok((cfg, layout)),
        None => Err(UsageError(format!(
            "no table layout for distance {k}{}: blocks must be between k + 1 and {BITS}, \
             with at most {MAX_TABLES} tables C(blocks, k)",
            args.simhash_blocks().map(|b| format!(" with {b} blocks")).unwrap_or_default()
        ))
        .into()),
    }
}

/// `--threshold` in (0, 1].
fn check_threshold(t: f64) -> Result<()> {
    if !(t > 0.0 && t <= 1.0) {
        return Err(UsageError(format!("--threshold {t} is not in (0, 1]")).into());
    }
    Ok(())
}

/// Where a SimHash table layout came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `--simhash-blocks`.
    Given,
    /// Chosen for a collection of this many documents.
    Collection(usize),
    /// Manku's minimal layout, k + 1 blocks.
    Minimal,
}

/// Resolves the LSH parameters from the arguments (given, or optimal for the threshold).
pub fn lsh_params(args: &SketchArgs) -> Result<LshParams> {
    if !(args.threshold > 0.0 && args.threshold <= 1.0) {
        return Err(UsageError(format!("--threshold {} is not in (0, 1]", args.threshold)).into());
    }
    let num_perm = args.num_perm();
    if num_perm == 0 {
        return Err(UsageError("--num-perm must be at least 1".into()).into());
    }
    match args.banding() {
        Some((bands, rows)) => {
            if bands == 0 || rows == 0 || bands * rows > num_perm {
                return Err(UsageError(format!(
                    "--bands {bands} × --rows {rows} must be at least 1 and at most --num-perm {num_perm}"
                ))
                .into());
            }
            Ok(LshParams { bands, rows })
        }
        None => Ok(match weights(args) {
            Some(w) => LshParams::optimal(args.threshold, num_perm, w),
            None => LshParams::complete(args.threshold, num_perm),
        }),
    }
}

/// The error weights from the arguments, when either is given (the other takes its default).
pub fn weights(args: &SketchArgs) -> Option<ErrorWeights> {
    let fp = args.banding.get::<f64>("fp_weight");
    let fn_ = args.banding.get::<f64>("fn_weight");
    if fp.is_none() && fn_.is_none() {
        return None;
    }
    let d = ErrorWeights::default();
    Some(ErrorWeights {
        false_positive: fp.unwrap_or(d.false_positive),
        false_negative: fn_.unwrap_or(d.false_negative),
    })
}

/// Runs `lookalike params`: prints the curve of the chosen method (stdout), as a table or JSON.
/// `matches` are those of the `params` subcommand: they tell which options were given.
pub fn run(args: &ParamsArgs, matches: &ArgMatches) -> Result<ExitCode> {
    let curve = &args.curve;
    let given = |ids: &[&str]| {
        ids.iter().any(|id| matches.value_source(id) == Some(ValueSource::CommandLine))
    };
    let supers_given = given(&["super_hashes", "super_groups", "super_mode"]);
    let simhash_given = given(&["max_distance", "simhash_blocks"]);
    // Options of another method would be silently ignored: say so instead.
    let misplaced = match curve.method {
        CurveMethod::Minhash if supers_given => Some("the --super-* options"),
        CurveMethod::Minhash | CurveMethod::Supershingles if simhash_given => {
            Some("--max-distance and --simhash-blocks")
        }
        CurveMethod::Minhash | CurveMethod::Supershingles if curve.docs.is_some() => Some("--docs"),
        CurveMethod::Supershingles | CurveMethod::Simhash if args.sketch.banding().is_some() => {
            Some("--bands and --rows")
        }
        CurveMethod::Simhash if supers_given => Some("the --super-* options"),
        _ => None,
    };
    if let Some(opts) = misplaced {
        let method = curve.method.to_possible_value().map(|v| v.get_name().to_owned());
        return Err(UsageError(format!(
            "{opts} cannot be used with --method {}",
            method.unwrap_or_default()
        ))
        .into());
    }
    let result = match curve.method {
        CurveMethod::Minhash => run_minhash(args),
        CurveMethod::Supershingles => run_supershingles(args),
        CurveMethod::Simhash => run_simhash(args),
    };
    // `lookalike params | head` is not a failure.
    match result {
        Err(e)
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            Ok(ExitCode::SUCCESS)
        }
        other => other,
    }
}

fn run_minhash(args: &ParamsArgs) -> Result<ExitCode> {
    let p = lsh_params(&args.sketch)?;
    let t = args.sketch.threshold;
    let chosen = if args.sketch.banding().is_some() { "given" } else { "chosen" };
    let fp = p.false_positive_area(t);
    let fn_ = p.false_negative_area(t);
    let at = LshParams::complete_at(t);
    let curve: Vec<(f64, f64)> = similarity_grid().map(|s| (s, p.probability(s))).collect();
    let mut out = std::io::stdout().lock();
    if args.json {
        let json = serde_json::json!({
            "threshold": t,
            "num_perm": args.sketch.num_perm(),
            "bands": p.bands,
            "rows": p.rows,
            "chosen": chosen == "chosen",
            "false_positive_area": fp,
            "false_negative_area": fn_,
            "weights": weights(&args.sketch),
            "complete_at": at,
            "probability_at_complete": p.probability(at),
            "s_curve": curve.iter().map(|&(s, pr)| serde_json::json!({"similarity": s, "probability": pr})).collect::<Vec<_>>(),
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&json)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "threshold {t}, num-perm {}: {} bands × {} rows ({chosen}; {} of {} values used)",
        args.sketch.num_perm(),
        p.bands,
        p.rows,
        p.bands * p.rows,
        args.sketch.num_perm()
    )?;
    let rule = match weights(&args.sketch) {
        Some(w) => format!("weights {} / {}", w.false_positive, w.false_negative),
        None => {
            let why = if at < t + COMPLETE_MARGIN - 1e-12 {
                "half way from the threshold to 1".to_owned()
            } else {
                format!("threshold + {COMPLETE_MARGIN}")
            };
            format!(
                "P(candidate) ≥ {COMPLETE_PROBABILITY} at s = {at:.3} ({why}), the fewest false \
                 positives"
            )
        }
    };
    writeln!(out, "false-positive area {fp:.5}, false-negative area {fn_:.5} ({rule})")?;
    writeln!(out, "at s = {at:.3}: P(candidate) = {:.5}", p.probability(at))?;
    writeln!(out, "P(candidate) = 1 - (1 - s^{})^{}", p.rows, p.bands)?;
    writeln!(out)?;
    writeln!(out, "similarity  P(candidate)")?;
    for (s, pr) in curve {
        writeln!(out, "      {s:.2}  {pr:.4}  {}", bar(pr))?;
    }
    for s in around(t) {
        writeln!(out, "at s = {s:.2}: {:.4}", p.probability(s))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn run_supershingles(args: &ParamsArgs) -> Result<ExitCode> {
    let cfg = supershingle_config(&args.curve.supers)?;
    let t = args.sketch.threshold;
    check_threshold(t)?;
    let prob = |s: f64| match_probability(s, &cfg);
    // One super-shingle matches when all its values do.
    let one = |s: f64| s.powi(cfg.per_group as i32);
    let (g, r) = (cfg.groups, cfg.per_group);
    // At most 2^16 groups, so g(g − 1)/2 fits in u64 (and in usize).
    let keys = match cfg.mode {
        SuperShingleMode::Single => g as u64,
        SuperShingleMode::Pairs => g as u64 * (g as u64 - 1) / 2,
    };
    let (mode, need) = match cfg.mode {
        SuperShingleMode::Pairs => ("pairs", 2),
        SuperShingleMode::Single => ("single", 1),
    };
    let half = crossing(prob, 0.0, 1.0);
    let curve: Vec<(f64, f64, f64)> = similarity_grid().map(|s| (s, prob(s), one(s))).collect();
    let mut out = std::io::stdout().lock();
    if args.json {
        let json = serde_json::json!({
            "method": "supershingles",
            "threshold": t,
            "minhashes": cfg.minhashes,
            "groups": g,
            "per_group": r,
            "mode": mode,
            "keys_per_doc": keys,
            "half_at": half,
            "at_threshold": around(t).map(|s| serde_json::json!({"similarity": s, "probability": prob(s)})).collect::<Vec<_>>(),
            "s_curve": curve.iter().map(|&(s, pr, q)| serde_json::json!({"similarity": s, "probability": pr, "super_shingle_probability": q})).collect::<Vec<_>>(),
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&json)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let unused = cfg.minhashes - g * r;
    write!(out, "super-shingles: {} min-hashes, {g} groups of {r} values", cfg.minhashes)?;
    if unused > 0 {
        write!(out, " ({unused} unused)")?;
    }
    match cfg.mode {
        SuperShingleMode::Pairs => {
            writeln!(out, ", pairs mode")?;
            writeln!(
                out,
                "{keys} mega-shingles per document: candidates share at least 2 of {g} super-shingles"
            )?;
        }
        SuperShingleMode::Single => {
            writeln!(out, ", single mode")?;
            writeln!(out, "{keys} super-shingles per document: candidates share at least 1")?;
        }
    }
    writeln!(out, "P(one super-shingle equal) = q = s^{r}")?;
    match cfg.mode {
        SuperShingleMode::Pairs => writeln!(
            out,
            "P(candidate) = P(at least {need} of {g} equal) = 1 - (1 - q)^{g} - {g}·q·(1 - q)^{}",
            g - 1
        )?,
        SuperShingleMode::Single => {
            writeln!(out, "P(candidate) = P(at least {need} of {g} equal) = 1 - (1 - q)^{g}")?
        }
    }
    match half {
        Some(h) => writeln!(out, "P(candidate) = 0.5 at s = {h:.4}")?,
        None => writeln!(out, "P(candidate) does not reach 0.5 below s = 1")?,
    }
    writeln!(out)?;
    writeln!(out, "similarity  P(candidate)  P(super-shingle)")?;
    for (s, pr, q) in curve {
        let line = format!("      {s:.2}  {pr:.4}        {q:.4}  {}", bar(pr));
        writeln!(out, "{}", line.trim_end())?;
    }
    for s in around(t) {
        writeln!(out, "at s = {s:.2}: {:.4}", prob(s))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn run_simhash(args: &ParamsArgs) -> Result<ExitCode> {
    let k = simhash_distance(&args.curve.simhash, args.sketch.threshold)?;
    let (tables, layout) = simhash_tables(&args.curve.simhash, k, args.curve.docs)?;
    let (key_min, key_max) = key_bits(tables.blocks(), k);
    let prob = |c: f64| hamming_probability(c, k);
    let half = crossing(prob, -1.0, 1.0);
    let expected_at = cosine_at_distance(k);
    let curve: Vec<(f64, f64)> = COSINE_GRID.iter().map(|&c| (c, prob(c))).collect();
    let chance = args.curve.docs.map(|n| chance_collisions(n, key_min));
    let mut out = std::io::stdout().lock();
    if args.json {
        let json = serde_json::json!({
            "method": "simhash",
            "bits": BITS,
            "distance": k,
            "blocks": tables.blocks(),
            "tables": tables.tables(),
            "key_bits": {"min": key_min, "max": key_max},
            "layout": match layout {
                Layout::Given => "given",
                Layout::Collection(_) => "collection",
                Layout::Minimal => "minimal",
            },
            "docs": args.curve.docs,
            "chance_collisions_per_table": chance,
            "half_at": half,
            "cosine_at_distance": expected_at,
            "curve": curve.iter().map(|&(c, pr)| serde_json::json!({"cosine": c, "probability": pr})).collect::<Vec<_>>(),
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&json)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let keys =
        if key_min == key_max { format!("{key_min}") } else { format!("{key_min}-{key_max}") };
    writeln!(
        out,
        "simhash: {BITS} bits, Hamming distance k = {k}: {} blocks, {} tables, keys of {keys} bits",
        tables.blocks(),
        tables.tables(),
    )?;
    match layout {
        Layout::Given => writeln!(out, "table layout: given (--simhash-blocks)")?,
        Layout::Collection(n) => writeln!(
            out,
            "table layout: chosen for {n} documents (about {:.0} chance key collisions per table)",
            chance.unwrap_or_default()
        )?,
        Layout::Minimal => writeln!(
            out,
            "table layout: Manku's minimal, k + 1 blocks (--docs N: chosen for N documents)"
        )?,
    }
    writeln!(
        out,
        "P(candidate) = P(Hamming <= {k}) = Σ_(h <= {k}) C({BITS},h) θ^h (1 - θ)^({BITS} - h), \
         θ = arccos(cos)/π"
    )?;
    match half {
        Some(h) => writeln!(out, "P(candidate) = 0.5 at cos = {h:.4}")?,
        None => writeln!(out, "P(candidate) does not reach 0.5")?,
    }
    writeln!(out)?;
    writeln!(out, "    cosine  P(candidate)")?;
    for (c, pr) in curve {
        let line = format!("     {c:>5.3}  {pr:.4}  {}", bar(pr));
        writeln!(out, "{}", line.trim_end())?;
    }
    writeln!(
        out,
        "at cos = {expected_at:.4} (angle π·{k}/{BITS}, expected distance {k}): {:.4}",
        prob(expected_at)
    )?;
    Ok(ExitCode::SUCCESS)
}

fn bar(p: f64) -> String {
    "#".repeat((p.clamp(0.0, 1.0) * 40.0).round() as usize)
}
