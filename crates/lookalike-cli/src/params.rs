//! `lookalike params`: the LSH setting for a threshold and its S-curve.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use lookalike::{ErrorWeights, LshParams};

use crate::UsageError;
use crate::args::{ParamsArgs, SketchArgs};

/// Resolves the LSH parameters from the arguments (given, or optimal for the threshold).
pub fn lsh_params(args: &SketchArgs) -> Result<LshParams> {
    if !(args.threshold > 0.0 && args.threshold <= 1.0) {
        return Err(UsageError(format!("--threshold {} is not in (0, 1]", args.threshold)).into());
    }
    if args.num_perm == 0 {
        return Err(UsageError("--num-perm must be at least 1".into()).into());
    }
    match (args.bands, args.rows) {
        (Some(bands), Some(rows)) => {
            if bands == 0 || rows == 0 || bands * rows > args.num_perm {
                return Err(UsageError(format!(
                    "--bands {bands} × --rows {rows} must be at least 1 and at most --num-perm {}",
                    args.num_perm
                ))
                .into());
            }
            Ok(LshParams { bands, rows })
        }
        _ => Ok(LshParams::optimal(args.threshold, args.num_perm, weights(args))),
    }
}

/// The error weights from the arguments.
pub fn weights(args: &SketchArgs) -> ErrorWeights {
    ErrorWeights { false_positive: args.fp_weight, false_negative: args.fn_weight }
}

pub fn run(args: &ParamsArgs) -> Result<ExitCode> {
    let p = lsh_params(&args.sketch)?;
    let t = args.sketch.threshold;
    let chosen = if args.sketch.bands.is_some() { "given" } else { "chosen" };
    let fp = p.false_positive_area(t);
    let fn_ = p.false_negative_area(t);
    let curve: Vec<(f64, f64)> =
        (0..=20).map(|i| i as f64 / 20.0).map(|s| (s, p.probability(s))).collect();
    let mut out = std::io::stdout().lock();
    if args.json {
        let json = serde_json::json!({
            "threshold": t,
            "num_perm": args.sketch.num_perm,
            "bands": p.bands,
            "rows": p.rows,
            "chosen": chosen == "chosen",
            "false_positive_area": fp,
            "false_negative_area": fn_,
            "weights": {"false_positive": args.sketch.fp_weight, "false_negative": args.sketch.fn_weight},
            "s_curve": curve.iter().map(|&(s, pr)| serde_json::json!({"similarity": s, "probability": pr})).collect::<Vec<_>>(),
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&json)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "threshold {t}, num-perm {}: {} bands × {} rows ({chosen}; {} of {} values used)",
        args.sketch.num_perm,
        p.bands,
        p.rows,
        p.bands * p.rows,
        args.sketch.num_perm
    )?;
    writeln!(
        out,
        "false-positive area {fp:.5}, false-negative area {fn_:.5} (weights {} / {})",
        args.sketch.fp_weight, args.sketch.fn_weight
    )?;
    writeln!(out, "P(candidate) = 1 - (1 - s^{})^{}", p.rows, p.bands)?;
    writeln!(out)?;
    writeln!(out, "similarity  P(candidate)")?;
    for (s, pr) in curve {
        let bar = "#".repeat((pr * 40.0).round() as usize);
        writeln!(out, "      {s:.2}  {pr:.4}  {bar}")?;
    }
    for s in [t - 0.1, t - 0.05, t, t + 0.05, t + 0.1] {
        if (0.0..=1.0).contains(&s) {
            writeln!(out, "at s = {s:.2}: {:.4}", p.probability(s))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
