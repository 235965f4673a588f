//! LSH + verification against brute-force exact Jaccard on random collections.

use std::collections::{BTreeMap, BTreeSet};

use lookalike::{Dedup, DedupOutcome, LshParams, MatchKind, MethodConfig, MinHashConfig, Verify};

use crate::corpus::{brute_force_pairs, random_collection};

/// Pairs found, as (a, b) → similarity: the listed pairs, and any two documents whose exact-copy
/// heads are equal (1.0) or form a listed near pair. The pipeline lists all of these itself
/// (`pairs.rs` checks that); deriving them from the heads as well keeps this reference
/// independent of the listing.
pub fn found_pairs(outcome: &DedupOutcome) -> BTreeMap<(u32, u32), f64> {
    let mut head: BTreeMap<u32, u32> = BTreeMap::new();
    for p in &outcome.pairs {
        if p.kind != MatchKind::Near {
            head.insert(p.b.0, p.a.0);
        }
    }
    let canon = |d: u32| *head.get(&d).unwrap_or(&d);
    let mut found = BTreeMap::new();
    for p in &outcome.pairs {
        found.insert((p.a.0, p.b.0), p.similarity);
    }
    // Expand: any two documents whose heads are equal or whose heads form a found pair.
    let n = outcome.ids.len() as u32;
    let near: BTreeMap<(u32, u32), f64> = outcome
        .pairs
        .iter()
        .filter(|p| p.kind == MatchKind::Near)
        .map(|p| ((p.a.0, p.b.0), p.similarity))
        .collect();
    for a in 0..n {
        for b in a + 1..n {
            let (ha, hb) = (canon(a), canon(b));
            if ha == hb {
                found.insert((a, b), 1.0);
            } else if let Some(&s) = near.get(&(ha.min(hb), ha.max(hb))) {
                found.insert((a, b), s);
            }
        }
    }
    found
}

pub fn run(docs: &[lookalike::Document], dedup: &Dedup) -> DedupOutcome {
    let mut run = dedup.start().unwrap();
    run.add(docs.to_vec()).unwrap();
    run.finish().unwrap()
}

#[test]
fn every_pair_above_threshold_plus_margin_is_found_and_none_below_threshold_is_output() {
    // 32 bands × 8 rows: a pair of Jaccard 0.85 is missed with probability ≈ 4·10⁻⁵.
    let t = 0.8;
    for seed in 0..6 {
        let docs = random_collection(seed, 120, 160);
        let dedup = Dedup::builder()
            .threshold(t)
            .method(MethodConfig::MinHash(MinHashConfig {
                num_perm: 256,
                lsh: Some(LshParams { bands: 32, rows: 8 }),
                ..MinHashConfig::default()
            }))
            .seed(seed)
            .build()
            .unwrap();
        let truth = brute_force_pairs(&docs, dedup.shingler(), t);
        let outcome = run(&docs, &dedup);
        let found = found_pairs(&outcome);
        let must: Vec<_> = truth.iter().filter(|p| p.2 >= t + 0.05).collect();
        assert!(must.len() > 20, "seed {seed}: too few planted pairs ({})", must.len());
        for &&(a, b, s) in &must {
            assert!(found.contains_key(&(a, b)), "seed {seed}: missed pair {a} {b} of Jaccard {s}");
        }
        // Exact verification: every output pair is at or above the threshold, with its exact
        // similarity, and is a true pair.
        let truth_map: BTreeMap<(u32, u32), f64> =
            truth.iter().map(|p| ((p.0, p.1), p.2)).collect();
        for p in &outcome.pairs {
            let s = truth_map.get(&(p.a.0, p.b.0)).copied();
            assert!(
                s.is_some(),
                "seed {seed}: output pair {} {} is below the threshold",
                p.a.0,
                p.b.0
            );
            assert!((s.unwrap() - p.similarity).abs() < 1e-12);
        }
    }
}

#[test]
fn default_settings_reach_the_recall_target() {
    // Automatic bands/rows at 128 values: recall ≥ 0.95 of the pairs at threshold + 0.05.
    let t = 0.8;
    let (mut must, mut hit) = (0usize, 0usize);
    for seed in 10..16 {
        let docs = random_collection(seed, 150, 200);
        let dedup = Dedup::builder().threshold(t).seed(seed).build().unwrap();
        let truth = brute_force_pairs(&docs, dedup.shingler(), t + 0.05);
        let found = found_pairs(&run(&docs, &dedup));
        must += truth.len();
        hit += truth.iter().filter(|p| found.contains_key(&(p.0, p.1))).count();
    }
    let recall = hit as f64 / must as f64;
    assert!(must > 200, "too few pairs: {must}");
    assert!(recall >= 0.95, "recall {recall:.4} ({hit}/{must})");
}

#[test]
fn estimate_mode_outputs_only_pairs_whose_estimate_reaches_the_threshold() {
    let docs = random_collection(99, 100, 150);
    let dedup = Dedup::builder().threshold(0.7).verify(Verify::Estimate).build().unwrap();
    let outcome = run(&docs, &dedup);
    assert!(outcome.stats.near_pairs > 10);
    let truth: BTreeSet<(u32, u32)> =
        brute_force_pairs(&docs, dedup.shingler(), 0.5).iter().map(|p| (p.0, p.1)).collect();
    for p in &outcome.pairs {
        assert!(p.similarity >= 0.7);
        // An estimate ≥ 0.7 from 128 values is essentially never a pair of true Jaccard < 0.5.
        assert!(
            truth.contains(&(p.a.0, p.b.0)),
            "pair {} {} far below the threshold",
            p.a.0,
            p.b.0
        );
    }
}
