//! The syntactic methods other than MinHash against brute-force references: exact resemblance and
//! containment of the shingle sets, and all-pairs Hamming distance of SimHash fingerprints.

use std::collections::BTreeMap;

use lookalike::sketch::simhash::{SimFeatures, SimHasher, Weighting, hamming};
use lookalike::sketch::supershingles::{SuperShingleConfig, match_probability};
use lookalike::text::normalize::normalize;
use lookalike::{
    Contained, Dedup, IMatchSettings, MatchKind, Measure, MethodConfig, MethodKind, Sample,
    SampleConfig, SimHashConfig, Verify,
};

use crate::corpus::{
    brute_force_containment, brute_force_pairs, containment_collection, prose_collection,
    random_collection,
};
use crate::recall::{found_pairs, run};

const SAMPLED: [MethodKind; 3] = [MethodKind::ModM, MethodKind::MinS, MethodKind::Broder];

/// Each document's exact group, as its first document (from the exact pairs, which list every
/// pair of a group).
fn head_of(outcome: &lookalike::DedupOutcome) -> Vec<u32> {
    let mut head: Vec<u32> = (0..outcome.ids.len() as u32).collect();
    for p in outcome.pairs.iter().filter(|p| p.kind != MatchKind::Near) {
        head[p.b.index()] = head[p.b.index()].min(p.a.0);
    }
    head
}

/// The near-duplicate pairs of an outcome (not the exact copies), as (a, b, similarity).
fn near_pairs(outcome: &lookalike::DedupOutcome) -> Vec<(u32, u32, f64)> {
    outcome
        .pairs
        .iter()
        .filter(|p| p.kind == MatchKind::Near)
        .map(|p| (p.a.0, p.b.0, p.similarity))
        .collect()
}

/// With exact verification every output pair is a true pair with its exact Jaccard, whatever the
/// candidates; and the sampling methods find (almost) every pair a little above the threshold.
#[test]
fn sampled_methods_output_exact_pairs_and_reach_recall() {
    let t = 0.8;
    for method in SAMPLED {
        let (mut must, mut hit) = (0usize, 0usize);
        for seed in 0..4 {
            let docs = random_collection(seed, 120, 160);
            let dedup = Dedup::builder().method(method).threshold(t).seed(seed).build().unwrap();
            let truth = brute_force_pairs(&docs, dedup.shingler(), t);
            let truth_map: BTreeMap<(u32, u32), f64> =
                truth.iter().map(|p| ((p.0, p.1), p.2)).collect();
            let outcome = run(&docs, &dedup);
            for p in outcome.pairs.iter().filter(|p| p.kind == MatchKind::Near) {
                let s = truth_map.get(&(p.a.0, p.b.0));
                assert!(s.is_some(), "{method} seed {seed}: {} {} below threshold", p.a.0, p.b.0);
                assert!((s.unwrap() - p.similarity).abs() < 1e-12);
            }
            let found = found_pairs(&outcome);
            let strong: Vec<_> = truth.iter().filter(|p| p.2 >= t + 0.05).collect();
            must += strong.len();
            hit += strong.iter().filter(|p| found.contains_key(&(p.0, p.1))).count();
        }
        let recall = hit as f64 / must as f64;
        assert!(must > 200, "{method}: too few pairs ({must})");
        assert!(recall >= 0.95, "{method}: recall {recall:.4} ({hit}/{must})");
    }
}

/// Pages too short for a MOD-m sample (feature stubs of twenty words under their own names; m =
/// 10^6 leaves every stub's sample empty), and 250 near-identical pages, more than
/// L = 100: every sampling method pairs what exact all-pairs pairs at 0.85 or more (before, MOD-m
/// paired none of the stubs, and no method the large group: their samples were empty or all
/// frequent).
#[test]
fn sampled_methods_pair_short_stubs_and_large_groups() {
    let mut docs = Vec::new();
    for i in 0..40 {
        let text = format!(
            "feature_{i}: this feature has no documentation yet, see its tracking issue for what \
             it does and when it is expected to become stable"
        );
        docs.push(lookalike::Document::from_text(format!("stub{i}"), text));
    }
    let body: Vec<String> = (0..300).map(|w| format!("word{w}")).collect();
    for i in 0..250 {
        let mut words = body.clone();
        words[(i * 7) % 300] = format!("own{i}");
        docs.push(lookalike::Document::from_text(format!("api{i}"), words.join(" ")));
    }
    for method in SAMPLED {
        let sample =
            SampleConfig { sample: Some(Sample::Mod(1_000_000)), ..SampleConfig::default() };
        let config = match method {
            MethodKind::ModM => MethodConfig::ModM(sample),
            other => MethodConfig::from(other),
        };
        let dedup = Dedup::builder().method(config).threshold(0.8).seed(1).build().unwrap();
        let truth = brute_force_pairs(&docs, dedup.shingler(), 0.8);
        let strong: Vec<_> = truth.iter().filter(|p| p.2 >= 0.85).collect();
        let stubs = strong.iter().filter(|p| p.1 < 40).count();
        assert!(stubs >= 40 * 39 / 2 && strong.len() > 20_000, "{stubs} {}", strong.len());
        let found = found_pairs(&run(&docs, &dedup));
        let missed: Vec<_> = strong.iter().filter(|p| !found.contains_key(&(p.0, p.1))).collect();
        let e = &missed[..3.min(missed.len())];
        assert!(
            missed.is_empty(),
            "{method}: {} of {} missed, e.g. {e:?}",
            missed.len(),
            strong.len()
        );
    }
}

/// Estimate verification: each sampling method's own estimator decides, and an estimate at the
/// threshold essentially never comes from a pair of true Jaccard far below it.
#[test]
fn sampled_methods_in_estimate_mode_output_their_estimates() {
    let docs = random_collection(31, 100, 150);
    for method in SAMPLED {
        let dedup = Dedup::builder()
            .method(method)
            .threshold(0.7)
            .verify(Verify::Estimate)
            .build()
            .unwrap();
        let outcome = run(&docs, &dedup);
        assert!(outcome.stats.near_pairs > 10, "{method}");
        let loose: BTreeMap<(u32, u32), f64> = brute_force_pairs(&docs, dedup.shingler(), 0.4)
            .into_iter()
            .map(|p| ((p.0, p.1), p.2))
            .collect();
        for p in outcome.pairs.iter().filter(|p| p.kind == MatchKind::Near) {
            assert!(p.similarity >= 0.7, "{method}");
            assert!(loose.contains_key(&(p.a.0, p.b.0)), "{method}: {} {} far below", p.a.0, p.b.0);
        }
    }
}

/// Super-shingles: every output pair is exact, and the share of true pairs found matches the
/// match-probability curve (the expected number of hits, within four binomial standard
/// deviations).
#[test]
fn supershingles_follow_their_match_probability() {
    let cfg = SuperShingleConfig::default();
    let (mut expected, mut variance, mut hits, mut n) = (0.0, 0.0, 0usize, 0usize);
    for seed in 0..6 {
        let docs = random_collection(100 + seed, 150, 250);
        let dedup = Dedup::builder()
            .method(MethodKind::SuperShingles)
            .threshold(0.6)
            .seed(seed)
            .build()
            .unwrap();
        let truth = brute_force_pairs(&docs, dedup.shingler(), 0.6);
        let truth_map: BTreeMap<(u32, u32), f64> =
            truth.iter().map(|p| ((p.0, p.1), p.2)).collect();
        let outcome = run(&docs, &dedup);
        for p in outcome.pairs.iter().filter(|p| p.kind == MatchKind::Near) {
            let s = truth_map.get(&(p.a.0, p.b.0)).expect("output pairs are true pairs");
            assert!((s - p.similarity).abs() < 1e-12);
        }
        let found = found_pairs(&outcome);
        // Exact copies are found by the exact stage, not by super-shingles: leave them out.
        for &(a, b, s) in truth.iter().filter(|p| p.2 < 1.0) {
            let p = match_probability(s, &cfg);
            expected += p;
            variance += p * (1.0 - p);
            n += 1;
            hits += usize::from(found.contains_key(&(a, b)));
        }
    }
    assert!(n > 300, "too few pairs: {n}");
    let sd = variance.sqrt();
    let hits = hits as f64;
    assert!(
        (hits - expected).abs() <= 4.0 * sd + 1.0,
        "hits {hits} vs expected {expected:.1} ± {sd:.1} over {n} pairs"
    );
}

/// SimHash in estimate mode outputs exactly the pairs of documents of different exact groups
/// whose fingerprints are within k bits (as an all-pairs scan finds them), copies included, with
/// similarity 1 − h/64.
#[test]
fn simhash_pairs_equal_all_pairs_hamming() {
    for (seed, k, weights) in
        [(1, 3, Weighting::Tf), (2, 6, Weighting::None), (3, 10, Weighting::Tf)]
    {
        let docs = random_collection(200 + seed, 150, 200);
        let simhash = SimHashConfig {
            max_distance: Some(k),
            weights,
            features: Some(SimFeatures::Tokens),
            ..SimHashConfig::default()
        };
        let dedup = Dedup::builder()
            .method(MethodConfig::SimHash(simhash))
            .seed(seed)
            .verify(Verify::Estimate)
            .build()
            .unwrap();
        let outcome = run(&docs, &dedup);
        let head = head_of(&outcome);
        let hasher = SimHasher::new(seed);
        let fps: Vec<u64> = docs
            .iter()
            .map(|d| {
                hasher.fingerprint_text(&normalize(&d.text), SimFeatures::Tokens, weights, None)
            })
            .collect();
        let mut expected = Vec::new();
        for i in 0..docs.len() as u32 {
            for j in i + 1..docs.len() as u32 {
                let h = hamming(fps[i as usize], fps[j as usize]);
                // Every pair of documents of two groups within k (copies included).
                if head[i as usize] != head[j as usize] && h <= k {
                    expected.push((i, j, 1.0 - f64::from(h) / 64.0));
                }
            }
        }
        let got = near_pairs(&outcome);
        assert!(!expected.is_empty(), "seed {seed}: no pairs within {k}");
        assert_eq!(got, expected, "seed {seed} k {k}");
    }
}

/// Containment: output pairs carry their exact containment and direction; pairs contained a
/// little above the threshold are found, including many whose resemblance is far below it.
#[test]
fn containment_finds_contained_pairs_of_low_resemblance() {
    let t = 0.8;
    let (mut must, mut hit, mut low_resemblance) = (0usize, 0usize, 0usize);
    for seed in 0..4 {
        let docs = containment_collection(300 + seed, 120, 80, 60);
        for method in [MethodKind::ModM, MethodKind::Broder] {
            let sample = SampleConfig { sample: Some(Sample::Mod(4)), ..SampleConfig::default() };
            let config = match method {
                MethodKind::ModM => MethodConfig::ModM(sample),
                _ => MethodConfig::Broder(sample),
            };
            let dedup = Dedup::builder()
                .method(config)
                .measure(Measure::Containment)
                .threshold(t)
                .seed(seed)
                .build()
                .unwrap();
            let truth = brute_force_containment(&docs, dedup.shingler(), t);
            let by_pair: BTreeMap<(u32, u32), (f64, bool, f64)> =
                truth.iter().map(|p| ((p.0, p.1), (p.2, p.3, p.4))).collect();
            let outcome = run(&docs, &dedup);
            for p in outcome.pairs.iter().filter(|p| p.kind == MatchKind::Near) {
                let &(c, a_in_b, _) =
                    by_pair.get(&(p.a.0, p.b.0)).expect("a true containment pair");
                assert!((c - p.similarity).abs() < 1e-12);
                let dir = if a_in_b { Contained::AInB } else { Contained::BInA };
                assert_eq!(p.contained, Some(dir));
            }
            let found = found_pairs(&outcome);
            for &(a, b, c, _, j) in &truth {
                if c >= t + 0.05 {
                    must += 1;
                    if found.contains_key(&(a, b)) {
                        hit += 1;
                        low_resemblance += usize::from(j < 0.5);
                    }
                }
            }
        }
    }
    let recall = hit as f64 / must as f64;
    assert!(must > 200, "too few pairs: {must}");
    assert!(recall >= 0.95, "recall {recall:.4} ({hit}/{must})");
    assert!(low_resemblance > 100, "only {low_resemblance} found pairs of Jaccard < 0.5");
}

/// Broder's algorithm with a memory cap five times smaller than its records spills sorted runs
/// and gives the same outcome as the in-memory run.
#[test]
fn broder_with_records_five_times_the_memory_cap_matches_in_memory() {
    let docs = random_collection(41, 300, 400);
    let build = |memory: usize| {
        Dedup::builder()
            .method(MethodKind::Broder)
            .verify(Verify::Estimate)
            .threshold(0.7)
            .memory(memory)
            .build()
            .unwrap()
    };
    let big = run(&docs, &build(256 << 20));
    let stats = big.stats.method.broder.expect("broder stats");
    assert_eq!(stats.runs_written, 0);
    let record_bytes = stats.records as usize * 12;
    let small = run(&docs, &build(record_bytes / 5));
    let small_stats = small.stats.method.broder.unwrap();
    assert!(small_stats.runs_written >= 5, "{small_stats:?}");
    assert!(small_stats.bytes_spilled as usize >= record_bytes, "{small_stats:?}");
    assert!(big.stats.near_pairs > 50);
    let key =
        |o: &lookalike::DedupOutcome| format!("{:?}{:?}{:?}", o.pairs, o.clusters, o.statuses);
    assert_eq!(key(&big), key(&small));
}

/// The lexical methods in estimate mode output exactly the pairs of documents of different exact
/// groups whose heads' signatures a direct, all-pairs computation with the library's signers
/// finds equal (SpotSigs: weighted Jaccard ≥ τ by brute force), copies included, and report
/// every unsigned head.
#[test]
fn lexical_methods_equal_all_pairs_signature_comparison() {
    use lookalike::lexical::collection::{CollectionStats, TermCounts};
    use lookalike::lexical::imatch::{IMatch, IMatchConfig};
    use lookalike::lexical::lexsig::{LongSentenceConfig, long_sentence_signature};
    use lookalike::lexical::spotsigs::{SpotExtractor, weighted_jaccard};
    use lookalike::text::normalize::NormalizedText;

    for seed in 0..3 {
        let docs = prose_collection(400 + seed, 120, 160);
        let norms: Vec<NormalizedText> = docs.iter().map(|d| normalize(&d.text)).collect();
        let terms: Vec<TermCounts> =
            norms.iter().map(|n| TermCounts::from_normalized(n, seed)).collect();
        for method in [MethodKind::LongSentences, MethodKind::IMatch, MethodKind::SpotSigs] {
            // A narrow band of rare terms: few lexicon terms per document, so light edits keep
            // the signature and there are pairs to compare.
            let imatch_cfg = IMatchConfig {
                nidf_low: 0.45,
                nidf_high: 0.6,
                min_terms: 2,
                extra_lexicons: 0,
                ..IMatchConfig::default()
            };
            let config = match method {
                MethodKind::IMatch => {
                    MethodConfig::IMatch(IMatchSettings { imatch: imatch_cfg, lexicon: None })
                }
                _ => MethodConfig::from(method),
            };
            let dedup = Dedup::builder()
                .method(config)
                .seed(seed)
                .threshold(0.6)
                .verify(Verify::Estimate)
                .build()
                .unwrap();
            let outcome = run(&docs, &dedup);
            let copies: std::collections::BTreeSet<u32> =
                outcome.pairs.iter().filter(|p| p.kind != MatchKind::Near).map(|p| p.b.0).collect();
            let heads: Vec<u32> = (0..docs.len() as u32).filter(|d| !copies.contains(d)).collect();
            // Direct signatures of the heads (statistics of the heads, as the pipeline counts).
            let mut builder = CollectionStats::builder();
            for &h in &heads {
                builder.add_document(&terms[h as usize]);
            }
            let stats = builder.build();
            let imatch = IMatch::new(&stats, imatch_cfg, seed).unwrap();
            let spotter = SpotExtractor::for_language("en").unwrap();
            let spotter = SpotExtractor::new(
                spotter.config().clone(),
                lookalike::text::lang::stopwords("en"),
            )
            .with_seed(seed);
            let sig = |d: u32| -> Option<u64> {
                let d = d as usize;
                match method {
                    MethodKind::LongSentences => {
                        let cfg = LongSentenceConfig::default();
                        let mut scratch = NormalizedText::default();
                        long_sentence_signature(&docs[d].text, &cfg, seed, &mut scratch).ok()
                    }
                    _ => imatch.signatures(&terms[d]).ok().map(|s| s[0]),
                }
            };
            let mut expected = Vec::new();
            let head = head_of(&outcome);
            let n = docs.len() as u32;
            for (a, b) in (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b))) {
                // Every pair of documents of two groups, from their heads' signatures.
                let (ha, hb) = (head[a as usize], head[b as usize]);
                if ha == hb {
                    continue;
                }
                let hit = if method == MethodKind::SpotSigs {
                    let (x, y) = (
                        spotter.spots_normalized(&norms[ha as usize]),
                        spotter.spots_normalized(&norms[hb as usize]),
                    );
                    let j = weighted_jaccard(&x, &y);
                    (j >= 0.6).then_some(j)
                } else {
                    match (sig(ha), sig(hb)) {
                        (Some(x), Some(y)) if x == y => Some(1.0),
                        _ => None,
                    }
                };
                if let Some(s) = hit {
                    expected.push((a, b, s));
                }
            }
            let got = near_pairs(&outcome);
            assert!(expected.len() > 5, "{method} seed {seed}: only {} pairs", expected.len());
            assert_eq!(got, expected, "{method} seed {seed}");
            if method != MethodKind::SpotSigs {
                let unsigned: Vec<u32> =
                    heads.iter().copied().filter(|&h| sig(h).is_none()).collect();
                let reported: Vec<u32> = outcome.unsigned.iter().map(|u| u.0.0).collect();
                assert_eq!(reported, unsigned, "{method} seed {seed}");
            }
        }
    }
}
