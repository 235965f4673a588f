//! The pairs list is complete: every verified pair at or above the threshold is listed, inside
//! template groups whose LSH buckets pass the cap and between copies of exact groups, checked
//! against exact all-pairs Jaccard.

use std::collections::BTreeMap;

use lookalike::{ClusterMode, Dedup, DedupOutcome, MatchKind, MethodConfig, MinHashConfig};

use crate::corpus::{brute_force_pairs, template_collection};
use crate::recall::run;

fn listed(o: &DedupOutcome) -> BTreeMap<(u32, u32), (f64, MatchKind)> {
    let mut out = BTreeMap::new();
    for p in &o.pairs {
        assert!(p.a < p.b, "pair not in input order: {} {}", p.a.0, p.b.0);
        let old = out.insert((p.a.0, p.b.0), (p.similarity, p.kind));
        assert!(old.is_none(), "pair listed twice: {} {}", p.a.0, p.b.0);
    }
    out
}

/// A 500-page template group (its LSH buckets hold far more than --max-bucket documents) with
/// exact copies: the pairs list alone holds ≥ 99% of the pairs of Jaccard ≥ t + 0.05 (here all
/// of them), with their exact similarity, and nothing below t.
#[test]
fn pairs_inside_a_capped_template_group_are_all_listed() {
    let t = 0.8;
    for seed in 0..2 {
        let docs = template_collection(seed, 500, 40, 100);
        let dedup = Dedup::builder().threshold(t).seed(seed).build().unwrap();
        let o = run(&docs, &dedup);
        assert!(o.stats.candidates.capped_buckets > 0, "seed {seed}: no capped bucket");
        assert_eq!(o.stats.candidates.groups_over_bound, 0);
        let truth = brute_force_pairs(&docs, dedup.shingler(), t);
        let got = listed(&o);
        let exact: BTreeMap<(u32, u32), f64> = truth.iter().map(|p| ((p.0, p.1), p.2)).collect();
        // Precision 1: every listed pair is a true pair with its exact similarity.
        for (&(a, b), &(s, kind)) in &got {
            let j = exact.get(&(a, b));
            let j = *j.unwrap_or_else(|| panic!("seed {seed}: {a} {b} ({s}) below t"));
            assert!((j - s).abs() < 1e-12, "seed {seed}: {a} {b} {s} vs {j}");
            if kind != MatchKind::Near {
                assert_eq!((s, j), (1.0, 1.0), "{a} {b}");
            }
        }
        let strong: Vec<_> = truth.iter().filter(|p| p.2 >= t + 0.05).collect();
        assert!(strong.len() > 5000, "seed {seed}: only {} strong pairs", strong.len());
        let missed: Vec<_> = strong.iter().filter(|p| !got.contains_key(&(p.0, p.1))).collect();
        assert!(
            missed.len() * 100 <= strong.len(),
            "seed {seed}: {} of {} pairs ≥ {} missing, e.g. {:?}",
            missed.len(),
            strong.len(),
            t + 0.05,
            &missed[..missed.len().min(5)]
        );
    }
}

/// With a bound below the group's size the group is compared with anchors only (connected, not
/// complete) and the summary counts it: the pairs missing are those not compared.
#[test]
fn a_group_over_the_bound_is_counted_and_stays_connected() {
    let docs = template_collection(7, 500, 0, 50);
    let minhash = MinHashConfig { max_bucket: 20, ..MinHashConfig::default() };
    let dedup = Dedup::builder()
        .method(MethodConfig::MinHash(minhash))
        .cluster(ClusterMode::Connected)
        .max_pairs_per_group(1000)
        .build()
        .unwrap();
    let o = run(&docs, &dedup);
    let c = o.stats.candidates;
    assert!(c.groups_over_bound > 0 && c.capped_pairs_skipped > 0, "{c:?}");
    let truth = brute_force_pairs(&docs, dedup.shingler(), 0.8);
    assert!(o.pairs.len() < truth.len() / 2, "{} of {}", o.pairs.len(), truth.len());
    // Connected mode still puts the template pages that have a true pair in few clusters.
    let in_group: std::collections::BTreeSet<u32> = truth.iter().flat_map(|p| [p.0, p.1]).collect();
    let clustered: usize = o.clusters.iter().map(|c| c.members.len() + 1).sum();
    assert!(clustered * 10 >= in_group.len() * 9, "{clustered} of {}", in_group.len());
}

/// Exact-copy groups: every pair of copies is listed (as exact), and a near pair of two groups
/// is listed for every document of the one with every document of the other, with the heads'
/// similarity; over the bound, a group is listed by its first document and counted.
#[test]
fn exact_groups_list_every_pair_of_their_copies() {
    let base: String = (0..200).map(|i| format!("w{i} ")).collect();
    let near = base.replace("w50 ", "changed ");
    let docs: Vec<lookalike::Document> = [&base, &near, &base, &base, &near, "something else"]
        .iter()
        .enumerate()
        .map(|(i, t)| lookalike::Document::from_text(format!("d{i}"), *t))
        .collect();
    let dedup = Dedup::builder().build().unwrap();
    let o = run(&docs, &dedup);
    let got = listed(&o);
    let sim = got[&(0, 1)].0;
    assert!(sim > 0.9 && sim < 1.0);
    let expect: BTreeMap<(u32, u32), (f64, MatchKind)> = [
        ((0, 1), (sim, MatchKind::Near)),
        ((0, 2), (1.0, MatchKind::ExactBytes)),
        ((0, 3), (1.0, MatchKind::ExactBytes)),
        ((0, 4), (sim, MatchKind::Near)),
        ((1, 2), (sim, MatchKind::Near)),
        ((1, 3), (sim, MatchKind::Near)),
        ((1, 4), (1.0, MatchKind::ExactBytes)),
        ((2, 3), (1.0, MatchKind::ExactBytes)),
        ((2, 4), (sim, MatchKind::Near)),
        ((3, 4), (sim, MatchKind::Near)),
    ]
    .into_iter()
    .collect();
    assert_eq!(got, expect);
    assert_eq!(o.stats.pairs, 10);
    assert_eq!((o.stats.pair_groups_over_bound, o.stats.pairs_not_listed), (0, 0));

    // Bound 2: the group {0, 2, 3} (3 pairs) and the near pair of {0, 2, 3} × {1, 4} (6 pairs)
    // are over it; {1, 4} (1 pair) is not.
    let dedup = Dedup::builder().max_pairs_per_group(2).build().unwrap();
    let o = run(&docs, &dedup);
    let got: Vec<(u32, u32)> = listed(&o).into_keys().collect();
    assert_eq!(got, [(0, 1), (0, 2), (0, 3), (1, 4)]);
    assert_eq!((o.stats.pair_groups_over_bound, o.stats.pairs_not_listed), (2, 1 + 5));
}
