//! `lookalike params --method supershingles | simhash`: the printed curves against the library's
//! formulas.

use std::path::Path;

use lookalike::candidates::hamming::TableConfig;
use lookalike::sketch::supershingles::{SuperShingleConfig, SuperShingleMode, match_probability};

use crate::common::*;

fn params(args: &[&str]) -> std::process::Output {
    let mut all = vec!["params"];
    all.extend_from_slice(args);
    run(&all, None, Path::new("."))
}

/// The columns after the similarity of the table row for `s`.
fn row(out: &str, s: &str) -> Vec<f64> {
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{s}  ")))
        .unwrap_or_else(|| panic!("no row for {s} in\n{out}"));
    line.split_whitespace().skip(1).filter_map(|w| w.parse().ok()).collect()
}

#[test]
fn supershingles_table_matches_match_probability() {
    let o = params(&["--method", "supershingles"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("84 min-hashes, 6 groups of 14 values"), "{out}");
    assert!(out.contains("15 mega-shingles per document"), "{out}");
    let cfg = SuperShingleConfig::default();
    assert_eq!((cfg.minhashes, cfg.groups, cfg.per_group), (84, 6, 14));
    assert_eq!(cfg.mode, SuperShingleMode::Pairs);
    for s in [0.8, 0.9, 0.95] {
        let cols = row(&out, &format!("{s:.2}"));
        let expect = match_probability(s, &cfg);
        assert_eq!(format!("{:.4}", cols[0]), format!("{expect:.4}"), "s = {s}");
        assert_eq!(format!("{:.4}", cols[1]), format!("{:.4}", f64::powi(s, 14)), "s = {s}");
    }
    // p = 0.95 → one super-shingle 0.49, at least 2 of 6 ≈ 0.88 (checked against 0.90 ± 0.025);
    // p = 0.80 → 0.026.
    let p95 = row(&out, "0.95");
    assert!((p95[1] - 0.49).abs() < 0.005 && (p95[0] - 0.90).abs() < 0.025, "{p95:?}");
    assert!((row(&out, "0.80")[0] - 0.026).abs() < 0.0005);
    // The default threshold 0.8 and its neighbours.
    assert!(out.contains(&format!("at s = 0.80: {:.4}", match_probability(0.8, &cfg))), "{out}");
    assert!(out.contains("P(candidate) = 0.5 at s = 0.9"), "{out}");
}

#[test]
fn supershingles_json_is_exact_in_both_modes() {
    for (mode, keys) in [(SuperShingleMode::Pairs, 15), (SuperShingleMode::Single, 6)] {
        let name = if mode == SuperShingleMode::Pairs { "pairs" } else { "single" };
        let o = params(&[
            "--method",
            "supershingles",
            "--super-hashes",
            "84",
            "--super-groups",
            "6",
            "--super-mode",
            name,
            "--threshold",
            "0.9",
            "--json",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let cfg = SuperShingleConfig { mode, ..SuperShingleConfig::default() };
        assert_eq!(v["keys_per_doc"], keys);
        assert_eq!(v["per_group"], 14);
        let curve = v["s_curve"].as_array().unwrap();
        assert_eq!(curve.len(), 21);
        for point in curve {
            let s = point["similarity"].as_f64().unwrap();
            let p = point["probability"].as_f64().unwrap();
            assert!((p - match_probability(s, &cfg)).abs() < 1e-12, "{name} s = {s}");
        }
        let half = v["half_at"].as_f64().unwrap();
        assert!((match_probability(half, &cfg) - 0.5).abs() < 1e-9, "{name}: {half}");
        let at: Vec<f64> = v["at_threshold"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["similarity"].as_f64().unwrap())
            .collect();
        assert_eq!(at.len(), 5, "{at:?}");
    }
}

#[test]
fn supershingles_uneven_groups_leave_values_unused() {
    let o = params(&["--method", "supershingles", "--super-hashes", "100", "--super-groups", "7"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("100 min-hashes, 7 groups of 14 values (2 unused)"), "{out}");
    assert!(out.contains("21 mega-shingles per document"), "{out}");
}

/// P(Binomial(64, θ) ≤ k), straight from the definition.
fn binomial_cdf(theta: f64, k: u32) -> f64 {
    (0..=k)
        .map(|h| {
            let c: f64 = (0..h).map(|i| f64::from(64 - i) / f64::from(i + 1)).product();
            c * theta.powi(h as i32) * (1.0 - theta).powi(64 - h as i32)
        })
        .sum()
}

#[test]
fn simhash_layout_and_curve() {
    let o = params(&["--method", "simhash"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("k = 3: 4 blocks, 4 tables"), "{out}");
    assert!(out.contains("keys of 16 bits"), "{out}");

    let o = params(&["--method", "simhash", "--max-distance", "3", "--docs", "10000000", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let cfg = TableConfig::for_collection(3, 10_000_000).unwrap();
    assert_eq!(v["blocks"], cfg.blocks());
    assert_eq!(v["tables"], cfg.tables());
    assert_eq!(v["layout"], "collection");
    for point in v["curve"].as_array().unwrap() {
        let c = point["cosine"].as_f64().unwrap();
        let p = point["probability"].as_f64().unwrap();
        let theta = c.acos() / std::f64::consts::PI;
        assert!((p - binomial_cdf(theta, 3)).abs() < 1e-12, "cos = {c}: {p}");
    }
    assert_eq!(v["curve"].as_array().unwrap().last().unwrap()["probability"], 1.0);

    let o = params(&["--method", "simhash", "--max-distance", "6", "--simhash-blocks", "8"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("k = 6: 8 blocks, 28 tables"), "{out}");
    assert!(out.contains("table layout: given"), "{out}");
}

#[test]
fn options_of_another_method_are_usage_errors() {
    for args in [
        &["--super-groups", "6"][..],
        &["--method", "supershingles", "--max-distance", "3"],
        &["--method", "simhash", "--bands", "4", "--rows", "4"],
        &["--method", "supershingles", "--super-groups", "0"],
        &["--method", "supershingles", "--super-hashes", "5", "--super-groups", "6"],
        &["--method", "supershingles", "--super-groups", "1"],
        &["--method", "simhash", "--max-distance", "64"],
        &["--method", "simhash", "--max-distance", "3", "--simhash-blocks", "3"],
    ] {
        let o = params(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stdout(&o));
        assert!(stderr(&o).contains("error"), "{args:?}");
    }
    // MinHash output is unchanged by the new options' existence.
    let o = params(&["--method", "minhash", "--threshold", "0.8", "--num-perm", "128"]);
    assert!(stdout(&o).contains("18 bands × 7 rows"));
}

/// `--max-distance` is the option of `dedup`: `auto` is the distance expected at --threshold.
#[test]
fn simhash_auto_distance_follows_the_threshold() {
    let o = params(&["--method", "simhash", "--max-distance", "auto", "--threshold", "0.8"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let k = lookalike::sketch::simhash::distance_for_jaccard(0.8);
    assert_eq!(k, 10);
    assert!(stdout(&o).contains("Hamming distance k = 10:"), "{}", stdout(&o));
    // An option given with its default value is still given: a usage error elsewhere.
    let o = params(&["--method", "simhash", "--super-mode", "pairs"]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stderr(&o).contains("cannot be used with --method simhash"), "{}", stderr(&o));
}
