//! SpotSigs and reference-word benchmarks: spot extraction throughput, exact all-pairs weighted
//! Jaccard by `SpotIndex` (20k generated documents, a fifth of them edited copies) with brute
//! force on a 2k slice as the baseline in the same run, and reference-word selection and signing
//! on 100k generated documents.
//!
//! Text is generated (Zipf-like content words with English function words between them) so the
//! benchmark runs anywhere. `cargo bench -p lookalike --bench spotsigs`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use lookalike::lexical::collection::TermCounts;
use lookalike::lexical::refwords::{RefWords, RefWordsConfig, signature_candidates};
use lookalike::lexical::spotsigs::{SpotExtractor, SpotIndex, SpotSet, brute_force_pairs};
use lookalike::text::normalize::{NormalizedText, normalize_into};

const FUNCTION_WORDS: &[&str] = &[
    "the", "a", "an", "is", "was", "said", "there", "of", "and", "to", "in", "that", "it", "for",
    "on", "with", "as", "by", "at", "from",
];

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 11
    }

    fn unit(&mut self) -> f64 {
        self.next() as f64 / (1u64 << 53) as f64
    }

    /// A log-uniform (Zipf-like, p(k) ∝ 1/k) id below `n`.
    fn zipf(&mut self, n: u64) -> u64 {
        ((n as f64).powf(self.unit()) as u64).saturating_sub(1).min(n - 1)
    }
}

fn content_word(id: u64) -> String {
    // Letters only, so that the normalizer keeps each one a single token.
    let mut s = String::new();
    let mut x = id + 1;
    while x > 0 {
        s.push((b'a' + (x % 26) as u8) as char);
        x /= 26;
    }
    s.push_str("ex");
    s
}

fn text(rng: &mut Lcg, words: usize) -> String {
    let mut out = String::new();
    for i in 0..words {
        if rng.next() % 100 < 40 {
            out.push_str(FUNCTION_WORDS[(rng.next() % FUNCTION_WORDS.len() as u64) as usize]);
        } else {
            out.push_str(&content_word(rng.zipf(50_000)));
        }
        out.push(if i % 15 == 14 { '.' } else { ' ' });
        out.push(' ');
    }
    out
}

/// Changes about 3% of the words.
fn edit(rng: &mut Lcg, t: &str) -> String {
    t.split(' ')
        .map(
            |w| {
                if rng.next() % 100 < 3 {
                    content_word(rng.next() % 1_000_000)
                } else {
                    w.to_owned()
                }
            },
        )
        .collect::<Vec<_>>()
        .join(" ")
}

/// `n` documents of 200–400 words; every fifth is an edited copy of an earlier one.
fn collection(n: usize) -> Vec<String> {
    let mut rng = Lcg(17);
    let mut docs: Vec<String> = Vec::with_capacity(n);
    for i in 0..n {
        if i % 5 == 4 {
            let of = (rng.next() % i as u64) as usize;
            let copy = edit(&mut rng, &docs[of]);
            docs.push(copy);
        } else {
            let len = 200 + (rng.next() % 200) as usize;
            docs.push(text(&mut rng, len));
        }
    }
    docs
}

fn bench_extract(c: &mut Criterion) {
    let mut g = c.benchmark_group("spotsigs_extract");
    let ex = SpotExtractor::for_language("en").expect("English config");
    let t = text(&mut Lcg(3), 20_000);
    let mut norm = NormalizedText::default();
    normalize_into(&t, &mut norm);
    g.throughput(Throughput::Bytes(t.len() as u64));
    g.bench_function("spots", |b| b.iter(|| black_box(ex.spots_normalized(black_box(&norm)))));
    g.bench_function("normalize+spots", |b| {
        b.iter(|| {
            normalize_into(black_box(&t), &mut norm);
            black_box(ex.spots_normalized(&norm))
        })
    });
    g.finish();
}

fn bench_all_pairs(c: &mut Criterion) {
    let ex = SpotExtractor::for_language("en").expect("English config");
    let mut norm = NormalizedText::default();
    let docs: Vec<SpotSet> = collection(20_000)
        .iter()
        .map(|t| {
            normalize_into(t, &mut norm);
            ex.spots_normalized(&norm)
        })
        .collect();
    let mut g = c.benchmark_group("spotsigs_all_pairs");
    g.sample_size(10);
    for tau in [0.5, 0.7] {
        g.bench_with_input(BenchmarkId::new("index_20k", tau), &tau, |b, &tau| {
            b.iter(|| SpotIndex::build(&docs).all_pairs(tau).len())
        });
    }
    let slice = &docs[..2_000];
    g.bench_function("index_2k/0.7", |b| b.iter(|| SpotIndex::build(slice).all_pairs(0.7).len()));
    g.bench_function("brute_force_2k/0.7", |b| b.iter(|| brute_force_pairs(slice, 0.7).len()));
    g.finish();
}

/// `n` bags of words drawn from a Zipf-like vocabulary of 200k terms; every fifth is a copy of
/// an earlier one with about 3% of its tokens replaced.
fn term_collection(n: usize) -> Vec<TermCounts> {
    let mut rng = Lcg(29);
    let mut tokens: Vec<Vec<u64>> = Vec::with_capacity(n);
    for i in 0..n {
        if i % 5 == 4 {
            let of = (rng.next() % i as u64) as usize;
            let copy: Vec<u64> = tokens[of]
                .iter()
                .map(|&t| if rng.next() % 100 < 3 { rng.zipf(200_000) } else { t })
                .collect();
            tokens.push(copy);
        } else {
            let len = 150 + (rng.next() % 300) as usize;
            tokens.push((0..len).map(|_| rng.zipf(200_000)).collect());
        }
    }
    tokens
        .into_iter()
        .map(|mut t| {
            let len = t.len() as u32;
            for x in t.iter_mut() {
                *x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5555;
            }
            t.sort_unstable();
            let terms = t.chunk_by(|a, b| a == b).map(|r| (r[0], r.len() as u32)).collect();
            TermCounts { terms, len }
        })
        .collect()
}

fn bench_refwords(c: &mut Criterion) {
    let docs = term_collection(100_000);
    let config = RefWordsConfig::default();
    let mut g = c.benchmark_group("refwords");
    g.sample_size(10).measurement_time(Duration::from_secs(30));
    g.bench_function("select_100k", |b| b.iter(|| RefWords::select(&docs, &config).0.len()));
    let (refs, _) = RefWords::select(&docs, &config);
    g.throughput(Throughput::Elements(docs.len() as u64));
    g.bench_function("sign_100k", |b| b.iter(|| refs.sign_all(&docs).len()));
    let sigs = refs.sign_all(&docs);
    for d in [0u32, 1] {
        g.bench_with_input(BenchmarkId::new("candidates_100k", d), &d, |b, &d| {
            b.iter(|| signature_candidates(&sigs, d).len())
        });
    }
    g.finish();
}

criterion_group!(benches, bench_extract, bench_all_pairs, bench_refwords);
criterion_main!(benches);
