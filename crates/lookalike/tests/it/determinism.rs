//! Same input, settings and seed → identical outcome, whatever the thread count.

use lookalike::{ClusterMode, Dedup, DedupOutcome, Keep, Measure, MethodKind, Verify};

use crate::corpus::{prose_collection, random_collection};

fn outcome_in_pool(threads: usize, dedup: &Dedup, docs: &[lookalike::Document]) -> DedupOutcome {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| {
        let mut run = dedup.start().unwrap();
        // Uneven batches, as a reader would hand them over.
        for chunk in docs.chunks(37) {
            run.add(chunk.to_vec()).unwrap();
        }
        run.finish().unwrap()
    })
}

fn fingerprint(o: &DedupOutcome) -> String {
    format!("{:?}\n{:?}\n{:?}\n{:?}", o.pairs, o.clusters, o.statuses, o.ids)
}

#[test]
fn one_and_many_threads_give_identical_outcomes() {
    let docs = random_collection(5, 200, 300);
    for verify in [Verify::Exact, Verify::Estimate] {
        for keep in [Keep::First, Keep::Longest] {
            let dedup = Dedup::builder().threshold(0.7).verify(verify).keep(keep).build().unwrap();
            let one = fingerprint(&outcome_in_pool(1, &dedup, &docs));
            let many = fingerprint(&outcome_in_pool(4, &dedup, &docs));
            assert_eq!(one, many, "{verify:?} {keep:?}");
            assert!(one.contains("Near"), "the collection must contain near duplicates");
        }
    }
}

#[test]
fn different_seeds_still_find_the_same_exact_copies() {
    let docs = random_collection(8, 50, 80);
    let a = outcome_in_pool(2, &Dedup::builder().seed(1).build().unwrap(), &docs);
    let b = outcome_in_pool(2, &Dedup::builder().seed(2).build().unwrap(), &docs);
    assert_eq!(a.stats.exact_duplicates, b.stats.exact_duplicates);
}

#[test]
fn spilled_and_in_memory_shingle_sets_give_identical_outcomes() {
    let docs = random_collection(21, 150, 200);
    let in_memory = Dedup::builder().threshold(0.7).build().unwrap();
    let spilled = Dedup::builder().threshold(0.7).memory(64).build().unwrap();
    let a = outcome_in_pool(2, &in_memory, &docs);
    let b = outcome_in_pool(2, &spilled, &docs);
    assert_eq!(a.stats.spill_bytes, 0);
    assert!(b.stats.spill_bytes > 0, "a 64-byte budget must spill");
    assert_eq!(fingerprint(&a), fingerprint(&b));
}

#[test]
fn every_method_gives_identical_outcomes_on_one_and_four_threads() {
    let docs = prose_collection(6, 150, 200);
    for &method in MethodKind::ALL {
        for verify in [Verify::Exact, Verify::Estimate] {
            let dedup =
                Dedup::builder().method(method).threshold(0.7).verify(verify).build().unwrap();
            let one = fingerprint(&outcome_in_pool(1, &dedup, &docs));
            let many = fingerprint(&outcome_in_pool(4, &dedup, &docs));
            assert_eq!(one, many, "{method} {verify:?}");
            if method != MethodKind::Exact {
                assert!(one.contains("Near"), "{method} {verify:?} finds near duplicates");
            }
        }
    }
    let containment = Dedup::builder().measure(Measure::Containment).method(MethodKind::ModM);
    let dedup = containment.build().unwrap();
    assert_eq!(
        fingerprint(&outcome_in_pool(1, &dedup, &docs)),
        fingerprint(&outcome_in_pool(4, &dedup, &docs))
    );
}

#[test]
fn every_cluster_mode_gives_identical_outcomes_on_one_and_four_threads() {
    let docs = random_collection(15, 200, 300);
    for mode in [
        ClusterMode::Connected,
        ClusterMode::Center,
        ClusterMode::Clique,
        ClusterMode::CenterRefine,
    ] {
        for keep in [Keep::First, Keep::Longest] {
            for verify in [Verify::Exact, Verify::Estimate] {
                let dedup = Dedup::builder()
                    .threshold(0.7)
                    .cluster(mode)
                    .keep(keep)
                    .verify(verify)
                    .build()
                    .unwrap();
                let one = fingerprint(&outcome_in_pool(1, &dedup, &docs));
                let many = fingerprint(&outcome_in_pool(4, &dedup, &docs));
                assert_eq!(one, many, "{mode:?} {keep:?} {verify:?}");
            }
        }
    }
}
