//! Stage micro-benchmarks: normalize+tokenize, shingling, MinHash (both schemes), LSH banding,
//! SimHash (fingerprints and Hamming candidates by permuted tables).
//!
//! The text is generated (a fixed pseudo-random mix of English and Russian words, plus a Chinese
//! variant) so the benchmark runs anywhere; throughput is reported in bytes of text.
//! `cargo bench -p lookalike --bench stages`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use lookalike::candidates::hamming::{TableConfig, hamming_candidates};
use lookalike::candidates::lsh::{LshParams, band_candidates};
use lookalike::shingles::ShingleScratch;
use lookalike::sketch::simhash::SimHasher;
use lookalike::text::normalize::{NormalizedText, normalize_into};
use lookalike::{MinHashScheme, MinHasher, ShingleKind, Shingler};
use unicode_segmentation::UnicodeSegmentation;

mod common;
use common::text;

fn chinese(words: usize) -> String {
    let chars: Vec<char> =
        "重复文档检测是搜索引擎中的一个重要问题我们使用最小哈希和局部敏感哈希".chars().collect();
    let mut s = 7u64;
    (0..words * 2)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1);
            chars[(s >> 33) as usize % chars.len()]
        })
        .collect()
}

fn bench_tokenize(c: &mut Criterion) {
    let mut g = c.benchmark_group("tokenize");
    for (name, t) in [
        ("mixed", text(1, 2000)),
        ("ascii", text(2, 2000).replace(|c: char| !c.is_ascii(), "")),
        ("chinese", chinese(2000)),
    ] {
        g.throughput(Throughput::Bytes(t.len() as u64));
        let mut norm = NormalizedText::default();
        g.bench_with_input(BenchmarkId::new("lookalike", name), &t, |b, t| {
            b.iter(|| {
                normalize_into(black_box(t), &mut norm);
                norm.tokens.len()
            })
        });
        // Baseline: generic Unicode word segmentation (UAX #29), no normalization.
        g.bench_with_input(BenchmarkId::new("unicode-segmentation", name), &t, |b, t| {
            b.iter(|| black_box(t).unicode_words().count())
        });
    }
    g.finish();
}

fn bench_shingles(c: &mut Criterion) {
    let t = text(3, 2000);
    let mut norm = NormalizedText::default();
    normalize_into(&t, &mut norm);
    let mut g = c.benchmark_group("shingles");
    g.throughput(Throughput::Bytes(t.len() as u64));
    for kind in [ShingleKind::Words(5), ShingleKind::Chars(5)] {
        let sh = Shingler::new(kind, 1);
        let mut scratch = ShingleScratch::default();
        let mut out = Vec::new();
        g.bench_function(kind.to_string(), |b| {
            b.iter(|| {
                sh.shingles_into(black_box(&norm), &mut scratch, &mut out);
                out.len()
            })
        });
    }
    g.finish();
}

fn bench_minhash(c: &mut Criterion) {
    let shingles = Shingler::new(ShingleKind::Words(5), 1).shingle_set(&text(4, 2000));
    let mut g = c.benchmark_group("minhash");
    // Throughput in shingles: the figure to compare with "ns per shingle".
    g.throughput(Throughput::Elements(shingles.len() as u64));
    for n in [128, 256] {
        for scheme in [MinHashScheme::OnePermutation, MinHashScheme::Permutations] {
            let h = MinHasher::new(n, scheme, 1);
            let mut out = vec![0; n];
            g.bench_function(format!("{scheme:?}/{n}"), |b| {
                b.iter(|| h.sketch_into(black_box(&shingles), &mut out))
            });
        }
    }
    g.finish();
}

fn bench_lsh(c: &mut Criterion) {
    let (docs, n) = (20_000usize, 128usize);
    let h = MinHasher::new(n, MinHashScheme::OnePermutation, 1);
    let mut sigs = Vec::with_capacity(docs * n);
    for d in 0..docs {
        // Every tenth document repeats the previous one's shingles: real buckets to group.
        let base = if d % 10 == 9 { d - 1 } else { d } as u64;
        let set: Vec<u64> = (0..200).map(|i| base.wrapping_mul(1_000_003) ^ (i * 0x9E37)).collect();
        sigs.extend(h.sketch(&set));
    }
    let mut g = c.benchmark_group("lsh");
    g.sample_size(10);
    g.throughput(Throughput::Elements(docs as u64));
    g.bench_function("band_candidates/20k docs/14x9", |b| {
        b.iter(|| {
            band_candidates(black_box(&sigs), n, LshParams { bands: 14, rows: 9 }, 200, u64::MAX)
                .0
                .len()
        })
    });
    g.finish();
}

fn bench_simhash(c: &mut Criterion) {
    let h = SimHasher::new(1);
    let mut s = 5u64;
    let mut next = || {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        s ^ (s >> 29)
    };
    let features: Vec<(u64, f64)> = (0..2000).map(|i| (next(), f64::from(1 + i % 7))).collect();
    let mut g = c.benchmark_group("simhash");
    g.throughput(Throughput::Elements(features.len() as u64));
    g.bench_function("fingerprint/2000 features", |b| {
        b.iter(|| h.fingerprint(black_box(&features)))
    });
    // 100k random fingerprints, every tenth a copy of the previous one with 0..=3 bits flipped.
    let docs = 100_000usize;
    let mut fps: Vec<u64> = Vec::with_capacity(docs);
    for d in 0..docs {
        let fp = if d % 10 == 9 {
            let mut fp = fps[d - 1];
            for _ in 0..d % 4 {
                fp ^= 1 << (next() % 64);
            }
            fp
        } else {
            next()
        };
        fps.push(fp);
    }
    g.sample_size(10);
    g.throughput(Throughput::Elements(docs as u64));
    for blocks in [4, 6] {
        let cfg = TableConfig::new(blocks, 3).expect("valid configuration");
        g.bench_function(format!("hamming_candidates/100k/k=3/{blocks} blocks"), |b| {
            b.iter(|| hamming_candidates(black_box(&fps), 3, cfg).len())
        });
    }
    g.finish();
}

criterion_group!(benches, bench_tokenize, bench_shingles, bench_minhash, bench_lsh, bench_simhash);
criterion_main!(benches);
