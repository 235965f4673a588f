//! Quality metrics over duplicate relations: pair precision, recall and F1; the adjusted Rand
//! index of two clusterings; cluster-size statistics; the overlap of several runs' pairs.
//!
//! **Pairs.** Precision is over the pairs a run asserted (what it wrote, before
//! canonicalization): the fraction the reference calls duplicates. Recall is over the reference's
//! duplicate pairs: the fraction the run found, with exact-duplicate groups canonicalized (see
//! [`crate::relation`]). A pair the reference does not list is not a duplicate (closed world:
//! the reference must list every duplicate pair, as the exact truth and a clustering do).
//!
//! **Adjusted Rand index** (Hubert & Arabie 1985), the measure of the NEWS-COPY benchmark: the
//! Rand index (agreement of two clusterings over all pairs of items) corrected for chance, 1 for
//! identical clusterings, about 0 for independent ones. A pairs relation becomes a clustering by
//! its connected components. The items are the union of the ids either side names; an id one
//! side does not name is a singleton there. Documents neither side names can be added as
//! singletons on both sides by giving the collection size ([`relation_ari`]'s `docs`): they
//! change the index, since they are pairs both sides agree to keep apart.

use std::collections::HashMap;

use serde::Serialize;

use crate::relation::Relation;

/// Pair precision, recall and F1 of a run against a reference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairScore {
    /// Distinct pairs the run asserted.
    pub found: u64,
    /// Of those, duplicates by the reference.
    pub true_positives: u64,
    /// Duplicate pairs of the reference.
    pub reference: u64,
    /// Of those, found by the run (exact-duplicate groups canonicalized).
    pub reference_found: u64,
    /// `true_positives / found`; none when the run found nothing.
    pub precision: Option<f64>,
    /// `reference_found / reference`; none when the reference has no duplicate pair.
    pub recall: Option<f64>,
    /// Harmonic mean of precision and recall (0 when both are 0).
    pub f1: Option<f64>,
}

/// `num / den`, none when `den` is 0.
pub fn ratio(num: u64, den: u64) -> Option<f64> {
    (den > 0).then(|| num as f64 / den as f64)
}

/// The harmonic mean of precision and recall; 0 when both are 0, none when either is unknown.
pub fn f1(precision: Option<f64>, recall: Option<f64>) -> Option<f64> {
    match (precision, recall) {
        (Some(p), Some(r)) if p + r > 0.0 => Some(2.0 * p * r / (p + r)),
        (Some(_), Some(_)) => Some(0.0),
        _ => None,
    }
}

/// Scores the pairs of `found` against the duplicate pairs of `reference`.
pub fn pair_score(found: &Relation, reference: &Relation) -> PairScore {
    let found_n = found.asserted_len();
    let true_positives = found.pairs_in(reference);
    let reference_n = reference.asserted_len();
    let reference_found = reference.pairs_in(found);
    let precision = ratio(true_positives, found_n);
    let recall = ratio(reference_found, reference_n);
    PairScore {
        found: found_n,
        true_positives,
        reference: reference_n,
        reference_found,
        precision,
        recall,
        f1: f1(precision, recall),
    }
}

fn pairs_of(n: u64) -> i128 {
    let n = i128::from(n);
    n * (n - 1).max(0) / 2
}

/// The adjusted Rand index of two clusterings of the same items, given as one cluster label per
/// item (`a[i]` and `b[i]` label item `i`), plus `extra_singletons` items that are alone on both
/// sides. Computed exactly in integers from the contingency table:
/// ARI = 2(N·I − A·B) / (N(A+B) − 2A·B), with I = Σ C(n_ij, 2) over the cells, A and B the same
/// over the row and column sums, and N = C(n, 2). When the denominator is 0 (both clusterings
/// all singletons, or both one cluster, or fewer than two items) the clusterings are identical
/// and the index is 1.
pub fn adjusted_rand_index(a: &[u32], b: &[u32], extra_singletons: u64) -> f64 {
    assert_eq!(a.len(), b.len(), "both clusterings label the same items");
    let mut cells: HashMap<(u32, u32), u64> = HashMap::new();
    let mut rows: HashMap<u32, u64> = HashMap::new();
    let mut cols: HashMap<u32, u64> = HashMap::new();
    for (&x, &y) in a.iter().zip(b) {
        *cells.entry((x, y)).or_default() += 1;
        *rows.entry(x).or_default() += 1;
        *cols.entry(y).or_default() += 1;
    }
    let index: i128 = cells.values().map(|&c| pairs_of(c)).sum();
    let sum_a: i128 = rows.values().map(|&c| pairs_of(c)).sum();
    let sum_b: i128 = cols.values().map(|&c| pairs_of(c)).sum();
    let all = pairs_of(a.len() as u64 + extra_singletons);
    let num = 2 * (all * index - sum_a * sum_b);
    let den = all * (sum_a + sum_b) - 2 * sum_a * sum_b;
    if den == 0 { 1.0 } else { num as f64 / den as f64 }
}

/// The adjusted Rand index of two relations and the number of items it was computed over.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Ari {
    /// The index.
    pub value: f64,
    /// Items: the ids either side names, or `docs` when given and larger.
    pub items: u64,
}

/// The adjusted Rand index of the connected components of `a` and of `b`, over the union of the
/// ids they name; with `docs`, over that many documents (the ids neither names being singletons
/// on both sides).
pub fn relation_ari(a: &Relation, b: &Relation, docs: Option<u64>) -> Ari {
    let mut ids: Vec<u32> = a.mentioned().iter().chain(b.mentioned()).copied().collect();
    ids.sort_unstable();
    ids.dedup();
    let extra = docs.map_or(0, |d| d.saturating_sub(ids.len() as u64));
    let value = adjusted_rand_index(&a.component_labels(&ids), &b.component_labels(&ids), extra);
    Ari { value, items: ids.len() as u64 + extra }
}

/// One bucket of the cluster-size histogram.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SizeBucket {
    /// The sizes it holds, e.g. `4-5` or `>1000`.
    pub sizes: &'static str,
    /// Smallest size in the bucket.
    pub min: u64,
    /// Clusters of those sizes.
    pub clusters: u64,
}

/// Bucket lower bounds and labels (the last is open).
const BUCKETS: &[(u64, &str)] = &[
    (2, "2"),
    (3, "3"),
    (4, "4-5"),
    (6, "6-10"),
    (11, "11-20"),
    (21, "21-50"),
    (51, "51-100"),
    (101, "101-1000"),
    (1001, ">1000"),
];

/// Cluster-size statistics of a clustering (clusters are groups of two or more documents).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterStats {
    /// Clusters of two or more documents.
    pub clusters: u64,
    /// Documents in those clusters.
    pub clustered_docs: u64,
    /// Documents in no cluster.
    pub singletons: u64,
    /// Smallest cluster.
    pub min: Option<u64>,
    /// Median cluster size (the mean of the two middle sizes for an even count).
    pub median: Option<f64>,
    /// Mean cluster size.
    pub mean: Option<f64>,
    /// Largest cluster.
    pub max: Option<u64>,
    /// Clusters per size bucket (2, 3, 4-5, 6-10, 11-20, 21-50, 51-100, 101-1000, >1000).
    pub histogram: Vec<SizeBucket>,
}

impl ClusterStats {
    /// Statistics of the given cluster sizes (each at least 2) and number of singletons.
    pub fn from_sizes(sizes: &[u64], singletons: u64) -> ClusterStats {
        let mut sorted = sizes.to_vec();
        sorted.sort_unstable();
        let n = sorted.len();
        let total: u64 = sorted.iter().sum();
        let median = match n {
            0 => None,
            _ if n % 2 == 1 => Some(sorted[n / 2] as f64),
            _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) as f64 / 2.0),
        };
        let histogram = BUCKETS
            .iter()
            .enumerate()
            .map(|(i, &(min, label))| {
                let next = BUCKETS.get(i + 1).map_or(u64::MAX, |b| b.0);
                SizeBucket {
                    sizes: label,
                    min,
                    clusters: sorted.iter().filter(|&&s| s >= min && s < next).count() as u64,
                }
            })
            .collect();
        ClusterStats {
            clusters: n as u64,
            clustered_docs: total,
            singletons,
            min: sorted.first().copied(),
            median,
            mean: ratio(total, n as u64),
            max: sorted.last().copied(),
            histogram,
        }
    }

    /// Statistics of a relation's connected components. Singletons are the ids it names that are
    /// in no cluster, or with `docs`, all documents but the clustered ones.
    pub fn of(rel: &Relation, docs: Option<u64>) -> ClusterStats {
        let sizes = rel.component_sizes();
        let clustered: u64 = sizes.iter().sum();
        let all = docs.unwrap_or(rel.mentioned().len() as u64);
        ClusterStats::from_sizes(&sizes, all.saturating_sub(clustered))
    }

    /// The non-empty buckets as `size:count` words, e.g. `2:120 3:14 4-5:2`.
    pub fn histogram_text(&self) -> String {
        let words: Vec<String> = self
            .histogram
            .iter()
            .filter(|b| b.clusters > 0)
            .map(|b| format!("{}:{}", b.sizes, b.clusters))
            .collect();
        if words.is_empty() { "-".to_owned() } else { words.join(" ") }
    }
}

/// How much two runs' pair sets overlap.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Overlap {
    /// Index of the first run.
    pub a: usize,
    /// Index of the second run.
    pub b: usize,
    /// Pairs both found.
    pub shared: u64,
    /// Pairs either found.
    pub union: u64,
    /// `shared / union`; none when neither found anything.
    pub jaccard: Option<f64>,
}

/// The overlap of every two of `sets` (each sorted and distinct), in order (0,1), (0,2), ...
pub fn overlaps(sets: &[&[(u32, u32)]]) -> Vec<Overlap> {
    let mut out = Vec::new();
    for i in 0..sets.len() {
        for j in i + 1..sets.len() {
            let shared = sorted_intersection(sets[i], sets[j]);
            let union = (sets[i].len() + sets[j].len()) as u64 - shared;
            out.push(Overlap { a: i, b: j, shared, union, jaccard: ratio(shared, union) });
        }
    }
    out
}

fn sorted_intersection<T: Ord>(a: &[T], b: &[T]) -> u64 {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;

    fn close(x: f64, y: f64) -> bool {
        (x - y).abs() < 1e-12
    }

    #[test]
    fn pair_scores_by_hand() {
        // Run: 0-1 and 0-2 exact (similarity 1), 3-4 near, 5-6 near.
        // Reference: clusters {0,1,2} and {3,4,7}.
        // Precision: the run asserted 4 pairs; 0-1, 0-2, 3-4 are inside a reference cluster,
        // 5-6 is not: 3/4.
        // Recall: the reference has 3 + 3 = 6 pairs. Found: 0-1, 0-2, and 1-2 (through the exact
        // group), 3-4; missed 3-7 and 4-7: 4/6.
        // F1 = 2·(3/4)·(2/3) / (3/4 + 2/3) = 1 / (17/12) = 12/17.
        let run = Relation::from_found_pairs([(0, 1, 1.0), (0, 2, 1.0), (3, 4, 0.9), (5, 6, 0.8)]);
        let gold = Relation::from_clusters(&[vec![0, 1, 2], vec![3, 4, 7]]);
        let s = pair_score(&run, &gold);
        assert_eq!((s.found, s.true_positives, s.reference, s.reference_found), (4, 3, 6, 4));
        assert_eq!(s.precision, Some(0.75));
        assert_eq!(s.recall, Some(4.0 / 6.0));
        assert!(close(s.f1.unwrap(), 12.0 / 17.0));
        // The same reference as literal pairs gives the same numbers.
        let gold_pairs = Relation::from_pairs([(0, 1), (0, 2), (1, 2), (3, 4), (3, 7), (4, 7)], []);
        assert_eq!(pair_score(&run, &gold_pairs), s);
        // Nothing found: precision unknown, recall 0; F1 unknown.
        let none = Relation::from_found_pairs([]);
        let s = pair_score(&none, &gold);
        assert_eq!((s.precision, s.recall, s.f1), (None, Some(0.0), None));
        // Everything wrong: P = R = 0, F1 = 0.
        let wrong = Relation::from_found_pairs([(1, 3, 0.9)]);
        assert_eq!(pair_score(&wrong, &gold).f1, Some(0.0));
    }

    #[test]
    fn ari_by_hand() {
        // a = {0,1}{2,3}, b = {0,1}{2}{3}: cells (0,0)=2, (1,1)=1, (1,2)=1, so I = 1; rows 2,2:
        // A = 2; columns 2,1,1: B = 1; N = C(4,2) = 6. ARI = (I − AB/N) / ((A+B)/2 − AB/N)
        // = (1 − 1/3) / (3/2 − 1/3) = (2/3) / (7/6) = 4/7 (scikit-learn's documented 0.57).
        assert!(close(adjusted_rand_index(&[0, 0, 1, 1], &[0, 0, 1, 2], 0), 4.0 / 7.0));
        // a = {0,1,2}{3,4,5}, b = {0,1}{2,3}{4,5}: I = 1 + 1 = 2, A = 3 + 3 = 6, B = 3,
        // N = 15: (2 − 18/15) / (9/2 − 18/15) = 0.8 / 3.3 = 8/33.
        assert!(close(
            adjusted_rand_index(&[0, 0, 0, 1, 1, 1], &[0, 0, 1, 1, 2, 2], 0),
            8.0 / 33.0
        ));
        // a = {0,1}{2}, b = {0}{1,2}: I = 0, A = B = 1, N = 3: (0 − 1/3) / (1 − 1/3) = −1/2.
        assert!(close(adjusted_rand_index(&[0, 0, 1], &[0, 1, 1], 0), -0.5));
        // Two extra singletons: N = C(5,2) = 10: (0 − 1/10) / (1 − 1/10) = −1/9.
        assert!(close(adjusted_rand_index(&[0, 0, 1], &[0, 1, 1], 2), -1.0 / 9.0));
        // Identical, and the degenerate cases: 1.
        assert_eq!(adjusted_rand_index(&[5, 5, 7], &[1, 1, 2], 3), 1.0);
        assert_eq!(adjusted_rand_index(&[0, 1, 2], &[0, 1, 2], 0), 1.0);
        assert_eq!(adjusted_rand_index(&[0, 0, 0], &[1, 1, 1], 0), 1.0);
        assert_eq!(adjusted_rand_index(&[], &[], 0), 1.0);
        // All singletons against one pair: I = 0, A = 0, B = 1: 0.
        assert_eq!(adjusted_rand_index(&[0, 1, 2], &[0, 0, 2], 0), 0.0);
    }

    /// ARI from the pair-confusion counts, counted by brute force over all pairs of items.
    fn ari_slow(a: &[u32], b: &[u32]) -> f64 {
        let (mut tp, mut fp, mut fn_, mut tn) = (0f64, 0f64, 0f64, 0f64);
        for i in 0..a.len() {
            for j in i + 1..a.len() {
                match (a[i] == a[j], b[i] == b[j]) {
                    (true, true) => tp += 1.0,
                    (false, true) => fp += 1.0,
                    (true, false) => fn_ += 1.0,
                    (false, false) => tn += 1.0,
                }
            }
        }
        if fn_ == 0.0 && fp == 0.0 {
            return 1.0;
        }
        2.0 * (tp * tn - fn_ * fp) / ((tp + fn_) * (fn_ + tn) + (tp + fp) * (fp + tn))
    }

    #[test]
    fn ari_matches_brute_force_on_random_clusterings() {
        let mut rng = Rng::new(7);
        for round in 0..500 {
            let n = rng.range_incl(0, 40);
            let (ka, kb) = (rng.range_incl(1, 12) as u32, rng.range_incl(1, 12) as u32);
            let a: Vec<u32> = (0..n).map(|_| rng.index(ka as usize) as u32).collect();
            // Half the rounds: b is a perturbation of a, so high indices are tested too.
            let b: Vec<u32> = if round % 2 == 0 {
                (0..n).map(|_| rng.index(kb as usize) as u32).collect()
            } else {
                a.iter().map(|&x| if rng.index(5) == 0 { 100 + x } else { x }).collect()
            };
            let extra = rng.range_incl(0, 3) as u64;
            let mut a_full = a.clone();
            let mut b_full = b.clone();
            for k in 0..extra as u32 {
                a_full.push(1000 + k);
                b_full.push(2000 + k);
            }
            let fast = adjusted_rand_index(&a, &b, extra);
            let slow = ari_slow(&a_full, &b_full);
            assert!((fast - slow).abs() < 1e-9, "round {round}: {fast} vs {slow} for {a:?} {b:?}");
        }
    }

    #[test]
    fn ari_of_relations_adds_unnamed_ids_as_singletons() {
        // Run pairs 0-1, 1-2 → component {0,1,2}; gold clusters {0,1}, {2,3}. Items: 0..=3.
        // a = {0,1,2}{3}, b = {0,1}{2,3}: I = 1, A = 3, B = 2, N = 6:
        // (1 − 1) / (5/2 − 1) = 0.
        let run = Relation::from_found_pairs([(0, 1, 0.9), (1, 2, 0.9)]);
        let gold = Relation::from_clusters(&[vec![0, 1], vec![2, 3]]);
        let ari = relation_ari(&run, &gold, None);
        assert_eq!(ari, Ari { value: 0.0, items: 4 });
        // Over 6 documents: N = 15: (1 − 6/15) / (5/2 − 6/15) = 0.6 / 2.1 = 2/7.
        let ari = relation_ari(&run, &gold, Some(6));
        assert_eq!(ari.items, 6);
        assert!(close(ari.value, 2.0 / 7.0));
    }

    #[test]
    fn cluster_stats_by_hand() {
        // Sizes 2, 2, 3, 7, 1200 with 10 singletons: 5 clusters of 1214 documents; median 3,
        // mean 1214/5 = 242.8; buckets 2:2 3:1 6-10:1 >1000:1.
        let s = ClusterStats::from_sizes(&[7, 2, 1200, 3, 2], 10);
        assert_eq!((s.clusters, s.clustered_docs, s.singletons), (5, 1214, 10));
        assert_eq!((s.min, s.median, s.mean, s.max), (Some(2), Some(3.0), Some(242.8), Some(1200)));
        assert_eq!(s.histogram_text(), "2:2 3:1 6-10:1 >1000:1");
        assert_eq!(s.histogram.len(), 9);
        // An even count: the median is the mean of the two middle sizes, (2 + 4) / 2.
        let s = ClusterStats::from_sizes(&[2, 4, 5, 2], 0);
        assert_eq!((s.median, s.histogram_text().as_str()), (Some(3.0), "2:2 4-5:2"));
        let s = ClusterStats::from_sizes(&[], 4);
        assert_eq!((s.clusters, s.min, s.median, s.mean), (0, None, None, None));
        assert_eq!(s.histogram_text(), "-");
        // Of a relation: components {0,1,2} and {5,6}; ids named 0,1,2,5,6,9: one singleton (9),
        // or 10 − 5 = 5 with docs = 10.
        let r = Relation::from_pairs([(0, 1), (1, 2), (5, 6)], [9]);
        let s = ClusterStats::of(&r, None);
        assert_eq!((s.clusters, s.clustered_docs, s.singletons, s.max), (2, 5, 1, Some(3)));
        assert_eq!(ClusterStats::of(&r, Some(10)).singletons, 5);
    }

    #[test]
    fn overlap_by_hand() {
        // A = {01, 02, 13}, B = {01, 13, 45}, C = {}: A∩B = 2 of 4 (0.5); A, C: 0 of 3;
        // B, C: 0 of 3.
        let a = [(0, 1), (0, 2), (1, 3)];
        let b = [(0, 1), (1, 3), (4, 5)];
        let o = overlaps(&[&a, &b, &[]]);
        let got: Vec<(usize, usize, u64, u64, Option<f64>)> =
            o.iter().map(|o| (o.a, o.b, o.shared, o.union, o.jaccard)).collect();
        assert_eq!(
            got,
            vec![(0, 1, 2, 4, Some(0.5)), (0, 2, 0, 3, Some(0.0)), (1, 2, 0, 3, Some(0.0))]
        );
        assert_eq!(overlaps(&[&[], &[]])[0].jaccard, None);
    }
}
