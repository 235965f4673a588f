//! Cluster modes on planted collections, checked by brute-force Jaccard of the shingle sets.

use lookalike::verify::jaccard;
use lookalike::{ClusterMode, Dedup, DedupOutcome, DocId, Document, Keep, MatchKind, Verify};

use crate::corpus::{prose_collection, random_collection};

const MODES: [ClusterMode; 4] =
    [ClusterMode::Connected, ClusterMode::Center, ClusterMode::Clique, ClusterMode::CenterRefine];
const THRESHOLD: f64 = 0.7;

fn run(docs: &[Document], mode: ClusterMode, keep: Keep) -> (Dedup, DedupOutcome) {
    let dedup = Dedup::builder().threshold(THRESHOLD).cluster(mode).keep(keep).build().unwrap();
    let mut run = dedup.start().unwrap();
    for chunk in docs.chunks(41) {
        run.add(chunk.to_vec()).unwrap();
    }
    let outcome = run.finish().unwrap();
    (dedup, outcome)
}

/// Every cluster as its documents in input order (representative included).
fn members(o: &DedupOutcome) -> Vec<Vec<DocId>> {
    o.clusters
        .iter()
        .map(|c| {
            let mut m: Vec<DocId> = c.members.iter().map(|m| m.doc).collect();
            m.push(c.representative);
            m.sort();
            m
        })
        .collect()
}

fn sets(dedup: &Dedup, docs: &[Document]) -> Vec<Vec<u64>> {
    docs.iter().map(|d| dedup.shingler().shingle_set(&d.text)).collect()
}

/// What every mode shares: each document in at most one cluster, clusters ordered by their
/// smallest member, members in input order, exact copies together, the same verified pairs.
fn assert_well_formed(o: &DedupOutcome) {
    let groups = members(o);
    let mut seen = vec![false; o.ids.len()];
    for g in &groups {
        for d in g {
            assert!(!seen[d.index()], "{d:?} in two clusters");
            seen[d.index()] = true;
        }
    }
    assert!(groups.windows(2).all(|w| w[0][0] < w[1][0]), "clusters by smallest member");
    for c in &o.clusters {
        assert!(c.members.windows(2).all(|w| w[0].doc < w[1].doc), "members in input order");
    }
    let mut cluster_of = vec![usize::MAX; o.ids.len()];
    for (i, g) in groups.iter().enumerate() {
        for d in g {
            cluster_of[d.index()] = i;
        }
    }
    for p in &o.pairs {
        if p.kind != MatchKind::Near {
            assert_ne!(cluster_of[p.a.index()], usize::MAX);
            assert_eq!(cluster_of[p.a.index()], cluster_of[p.b.index()], "exact copies split");
        }
    }
}

fn collections() -> Vec<Vec<Document>> {
    vec![random_collection(3, 150, 250), prose_collection(12, 120, 200)]
}

#[test]
fn center_members_are_verified_against_their_representative() {
    for docs in collections() {
        for keep in [Keep::First, Keep::Longest] {
            let (dedup, o) = run(&docs, ClusterMode::Center, keep);
            assert_well_formed(&o);
            let sets = sets(&dedup, &docs);
            assert!(!o.clusters.is_empty());
            for c in &o.clusters {
                let rep = &sets[c.representative.index()];
                for m in &c.members {
                    let exact = jaccard(rep, &sets[m.doc.index()]);
                    assert!(exact >= THRESHOLD, "{:?} to {:?}: {exact}", m.doc, c.representative);
                    assert!((exact - m.similarity).abs() < 1e-12);
                }
            }
        }
    }
}

#[test]
fn clique_members_are_all_verified_against_each_other() {
    for docs in collections() {
        for keep in [Keep::First, Keep::Longest] {
            let (dedup, o) = run(&docs, ClusterMode::Clique, keep);
            assert_well_formed(&o);
            let sets = sets(&dedup, &docs);
            assert!(!o.clusters.is_empty());
            for g in members(&o) {
                for (i, &a) in g.iter().enumerate() {
                    for &b in &g[i + 1..] {
                        let exact = jaccard(&sets[a.index()], &sets[b.index()]);
                        assert!(exact >= THRESHOLD, "{a:?} and {b:?}: {exact}");
                    }
                }
            }
        }
    }
}

#[test]
fn connected_chains_and_the_other_modes_do_not() {
    // The planted variants of variants make chains: connected clusters hold pairs below the
    // threshold, which the other modes split; the verified pairs are the same in every mode.
    let docs = random_collection(3, 150, 250);
    let (dedup, connected) = run(&docs, ClusterMode::Connected, Keep::First);
    assert_well_formed(&connected);
    let sets = sets(&dedup, &docs);
    let below = |o: &DedupOutcome| {
        members(o)
            .iter()
            .flat_map(|g| {
                let sets = &sets;
                g.iter().enumerate().flat_map(move |(i, &a)| {
                    g[i + 1..].iter().map(move |&b| jaccard(&sets[a.index()], &sets[b.index()]))
                })
            })
            .filter(|&j| j < THRESHOLD)
            .count()
    };
    assert!(below(&connected) > 0, "the collection must chain");
    let (_, center) = run(&docs, ClusterMode::Center, Keep::First);
    let (_, clique) = run(&docs, ClusterMode::Clique, Keep::First);
    assert_eq!(below(&clique), 0);
    assert!(below(&center) < below(&connected));
    assert!(center.clusters.len() > connected.clusters.len());
    assert!(clique.clusters.len() >= center.clusters.len());
    assert_eq!(format!("{:?}", center.pairs), format!("{:?}", connected.pairs));
    assert_eq!(format!("{:?}", clique.pairs), format!("{:?}", connected.pairs));
    let (_, refined) = run(&docs, ClusterMode::CenterRefine, Keep::First);
    assert_well_formed(&refined);
    assert_eq!(format!("{:?}", refined.pairs), format!("{:?}", connected.pairs));
}

#[test]
fn keep_longest_picks_the_longest_member_in_every_mode() {
    let docs = random_collection(9, 120, 200);
    for mode in MODES {
        let (_, o) = run(&docs, mode, Keep::Longest);
        assert_well_formed(&o);
        for c in &o.clusters {
            let len = |d: DocId| (docs[d.index()].text.len(), std::cmp::Reverse(d));
            for m in &c.members {
                assert!(len(c.representative) > len(m.doc), "{mode:?}: {:?}", c.representative);
            }
        }
    }
}

#[test]
fn estimate_verification_clusters_in_every_mode() {
    let docs = random_collection(4, 100, 150);
    for mode in MODES {
        let dedup = Dedup::builder()
            .threshold(THRESHOLD)
            .cluster(mode)
            .verify(Verify::Estimate)
            .build()
            .unwrap();
        let mut run = dedup.start().unwrap();
        run.add(docs.clone()).unwrap();
        let o = run.finish().unwrap();
        assert_well_formed(&o);
        assert!(!o.clusters.is_empty(), "{mode:?}");
    }
}
