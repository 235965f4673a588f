//! The combined method (MinHash/LSH candidates filtered by SimHash distance) against a reference
//! computed directly: the LSH candidates of the documents' MinHash signatures, their MinHash
//! estimates, and the Hamming distances of their SimHash fingerprints.

use std::collections::BTreeSet;

use lookalike::candidates::lsh::{band_candidates, decode_pair};
use lookalike::sketch::minhash::estimate_jaccard;
use lookalike::sketch::simhash::{SimFeatures, SimHasher, Weighting, hamming};
use lookalike::text::normalize::normalize;
use lookalike::verify::jaccard;
use lookalike::{
    CombinedConfig, Dedup, DedupOutcome, Document, MatchKind, MethodConfig, MinHashConfig,
    MinHasher, Verify,
};

use crate::corpus::random_collection;
use crate::recall::run;

/// A random collection without exact copies (after normalization), so that every document is a
/// head and its slot is its index.
fn distinct_collection(seed: u64) -> Vec<Document> {
    let mut seen = BTreeSet::new();
    random_collection(seed, 120, 180)
        .into_iter()
        .filter(|d| seen.insert(normalize(&d.text).text))
        .enumerate()
        .map(|(i, d)| Document::from_text(format!("d{i}"), d.text))
        .collect()
}

/// The candidate pairs of the reference, sorted: (a, b, MinHash estimate, Hamming distance, exact
/// Jaccard).
type Reference = Vec<(u32, u32, f64, u32, f64)>;

/// Every LSH candidate pair of the collection, computed outside the pipeline.
fn lsh_reference(docs: &[Document], dedup: &Dedup, minhash: MinHashConfig) -> Reference {
    let c = dedup.config();
    let shingler = dedup.shingler();
    let sets: Vec<Vec<u64>> = docs.iter().map(|d| shingler.shingle_set(&d.text)).collect();
    let hasher = MinHasher::new(minhash.num_perm, minhash.scheme, c.seed);
    let sigs: Vec<u32> = sets.iter().flat_map(|s| hasher.sketch(s)).collect();
    let lsh = minhash.lsh_params(c.threshold);
    let (pairs, _) =
        band_candidates(&sigs, minhash.num_perm, lsh, minhash.max_bucket, c.max_pairs_per_group);
    let simhasher = SimHasher::new(c.seed);
    let features = SimFeatures::Shingles(c.shingle);
    let fps: Vec<u64> = docs
        .iter()
        .map(|d| simhasher.fingerprint_text(&normalize(&d.text), features, Weighting::Tf, None))
        .collect();
    let n = minhash.num_perm;
    let sig = |i: usize| &sigs[i * n..(i + 1) * n];
    pairs
        .into_iter()
        .map(decode_pair)
        .map(|(a, b)| {
            let (i, j) = (a as usize, b as usize);
            let est = estimate_jaccard(sig(i), sig(j));
            (a, b, est, hamming(fps[i], fps[j]), jaccard(&sets[i], &sets[j]))
        })
        .collect()
}

fn near_pairs(outcome: &DedupOutcome) -> Vec<(u32, u32, f64, Option<u32>)> {
    assert!(outcome.pairs.iter().all(|p| p.kind == MatchKind::Near), "no exact copies");
    outcome.pairs.iter().map(|p| (p.a.0, p.b.0, p.similarity, p.hamming)).collect()
}

fn combined(t: f64, k: u32, verify: Verify, seed: u64) -> (Dedup, MinHashConfig) {
    let config = CombinedConfig { max_distance: Some(k), ..CombinedConfig::default() };
    let dedup = Dedup::builder()
        .method(MethodConfig::Combined(config))
        .threshold(t)
        .verify(verify)
        .seed(seed)
        .build()
        .unwrap();
    (dedup, config.minhash)
}

/// Estimate mode: the pairs are exactly the LSH candidates whose MinHash estimate is at least the
/// threshold and whose fingerprints are within k bits, each with its MinHash estimate and
/// distance; and the filter is not idle (it drops pairs MinHash alone accepts).
#[test]
fn combined_estimate_pairs_equal_lsh_candidates_filtered_by_estimate_and_hamming() {
    let mut dropped = 0;
    for (seed, t, k) in [(1, 0.6, 8), (2, 0.8, 10), (3, 0.7, 6)] {
        let docs = distinct_collection(seed);
        let (dedup, minhash) = combined(t, k, Verify::Estimate, seed);
        let reference = lsh_reference(&docs, &dedup, minhash);
        let expected: Vec<_> = reference
            .iter()
            .copied()
            .filter(|&(_, _, est, h, _)| est >= t && h <= k)
            .map(|(a, b, est, h, _)| (a, b, est, Some(h)))
            .collect();
        let got = near_pairs(&run(&docs, &dedup));
        assert!(expected.len() >= 20, "seed {seed}: only {} pairs", expected.len());
        assert_eq!(got, expected, "seed {seed} t {t} k {k}");

        // MinHash alone (same signatures, same bands) accepts a superset.
        let alone = Dedup::builder()
            .method(MethodConfig::MinHash(minhash))
            .threshold(t)
            .verify(Verify::Estimate)
            .seed(seed)
            .build()
            .unwrap();
        let alone: BTreeSet<(u32, u32)> =
            near_pairs(&run(&docs, &alone)).iter().map(|p| (p.0, p.1)).collect();
        let ours: BTreeSet<(u32, u32)> = got.iter().map(|p| (p.0, p.1)).collect();
        assert!(ours.is_subset(&alone), "seed {seed}");
        dropped += alone.len() - ours.len();
    }
    assert!(dropped > 0, "the SimHash filter dropped no pair MinHash accepts");
}

/// Exact verification: the pairs are the filtered candidates (LSH, within k bits) whose exact
/// Jaccard is at least the threshold, with that Jaccard; the candidates counted are the filtered
/// ones, and the summary's figures add up.
#[test]
fn combined_exact_pairs_equal_filtered_candidates_verified_by_jaccard() {
    for (seed, t, k) in [(4, 0.6, 8), (5, 0.8, 12)] {
        let docs = distinct_collection(seed);
        let (dedup, minhash) = combined(t, k, Verify::Exact, seed);
        let reference = lsh_reference(&docs, &dedup, minhash);
        let filtered: Reference =
            reference.iter().copied().filter(|&(_, _, _, h, _)| h <= k).collect();
        let expected: Vec<_> = filtered
            .iter()
            .copied()
            .filter(|&(_, _, _, _, j)| j >= t)
            .map(|(a, b, _, h, j)| (a, b, j, Some(h)))
            .collect();
        let outcome = run(&docs, &dedup);
        assert!(expected.len() >= 20, "seed {seed}: only {} pairs", expected.len());
        assert_eq!(near_pairs(&outcome), expected, "seed {seed} t {t} k {k}");
        let st = outcome.stats.method.combined.expect("combined figures");
        assert_eq!(st.lsh_pairs, reference.len() as u64);
        assert_eq!(st.lsh_pairs - st.simhash_rejected, filtered.len() as u64);
        assert_eq!(outcome.stats.candidates.pairs, filtered.len() as u64);
    }
}

/// Same input and seed, one or four threads: identical outcomes, in both verification modes and
/// with tf-idf weights (fingerprints made in `prepare`).
#[test]
fn combined_outcomes_are_identical_on_one_and_four_threads() {
    let docs = random_collection(31, 150, 200);
    for verify in [Verify::Exact, Verify::Estimate] {
        for weights in [Weighting::Tf, Weighting::TfIdf] {
            let config = CombinedConfig { weights, ..CombinedConfig::default() };
            let dedup = Dedup::builder()
                .method(MethodConfig::Combined(config))
                .threshold(0.7)
                .verify(verify)
                .build()
                .unwrap();
            let outcome = |threads| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                pool.install(|| {
                    let mut r = dedup.start().unwrap();
                    for chunk in docs.chunks(29) {
                        r.add(chunk.to_vec()).unwrap();
                    }
                    let o = r.finish().unwrap();
                    format!("{:?}\n{:?}\n{:?}", o.pairs, o.clusters, o.statuses)
                })
            };
            let one = outcome(1);
            assert!(one.contains("Near"), "{verify:?} {weights:?}: no near duplicates");
            assert_eq!(one, outcome(4), "{verify:?} {weights:?}");
        }
    }
}
