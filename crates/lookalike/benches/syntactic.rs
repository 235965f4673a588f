//! Syntactic-sketch benchmarks: MOD-m and MIN-s sampling against MinHash (OPH) on the same
//! shingle sets, their resemblance estimators, super-/mega-shingle keys and their candidate pairs,
//! and Broder's collection algorithm in memory and spilling to disk. (SimHash candidates are in
//! `stages.rs`.)
//!
//! Texts and shingle sets are generated (fixed pseudo-random words; synthetic sets with planted
//! near-copies and shared "boilerplate" shingles), so the benchmark runs anywhere. Throughput is in
//! shingles for sketch construction, comparisons for estimators, documents for keys and candidates,
//! and ⟨shingle, doc⟩ records for the collection algorithm.
//! `cargo bench -p lookalike --bench syntactic`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use lookalike::candidates::sorted_pairs::{BroderConfig, collect_pairs};
use lookalike::sketch::minhash::estimate_jaccard;
use lookalike::sketch::sample::{MinSketch, ModSketch};
use lookalike::sketch::supershingles::{
    SuperShingleConfig, SuperShingleMode, candidate_pairs, document_keys, mega_shingles,
    super_shingles,
};
use lookalike::verify::jaccard;
use lookalike::{MinHashScheme, MinHasher, ShingleKind, Shingler};

mod common;
use common::text;

/// `text` with every `every`-th word replaced.
fn edit(text: &str, every: usize) -> String {
    text.split(' ')
        .enumerate()
        .map(|(i, w)| if i % every == every - 1 { "changed" } else { w })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A small deterministic generator (the crate's splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        lookalike::sketch::minhash::splitmix64(&mut self.0)
    }
}

const DOCS: usize = 20_000;
const SET_SIZE: usize = 300;
/// Shingles every document draws from a shared pool (boilerplate), so that unrelated documents
/// share some sketch elements and the collection algorithm has real buckets to expand.
const SHARED_PER_DOC: usize = 30;
const POOL: u64 = 20_000;

/// `DOCS` sorted shingle sets. Every tenth document is a near-copy of the one before it, with
/// 0, 3, 6 or 9 of its `SET_SIZE` shingles replaced (resemblance 1, 0.98, 0.96, 0.94).
fn collection() -> Vec<Vec<u64>> {
    let mut rng = Rng(11);
    let mut sets: Vec<Vec<u64>> = Vec::with_capacity(DOCS);
    for d in 0..DOCS {
        let set = if d % 10 == 9 {
            let mut set = sets[d - 1].clone();
            let replaced = 3 * ((d / 10) % 4);
            for i in 0..replaced {
                // Replace spread-out elements with fresh random shingles.
                let at = (i * 97 + d) % set.len();
                set[at] = rng.next();
            }
            set
        } else {
            let mut set: Vec<u64> = (0..SET_SIZE - SHARED_PER_DOC).map(|_| rng.next()).collect();
            set.extend((0..SHARED_PER_DOC).map(|_| (rng.next() % POOL).wrapping_mul(0xA24B_AED4)));
            set
        };
        sets.push(set);
    }
    for set in &mut sets {
        set.sort_unstable();
        set.dedup();
    }
    sets
}

fn bench_sampling(c: &mut Criterion) {
    let sh = Shingler::new(ShingleKind::Words(5), 1);
    let shingles = sh.shingle_set(&text(4, 2000));
    let modm = ModSketch::new(16, 1);
    let mins = MinSketch::new(128, 1);
    let oph = MinHasher::new(128, MinHashScheme::OnePermutation, 1);
    let mut g = c.benchmark_group("sampling");
    g.throughput(Throughput::Elements(shingles.len() as u64));
    g.bench_function("mod-m/m=16", |b| b.iter(|| modm.sketch(black_box(&shingles)).len()));
    g.bench_function("min-s/s=128", |b| b.iter(|| mins.sketch(black_box(&shingles)).len()));
    // Baseline in the same run: a MinHash signature of the same size as MIN-128.
    let mut out = vec![0u32; 128];
    g.bench_function("minhash-oph/128", |b| {
        b.iter(|| oph.sketch_into(black_box(&shingles), &mut out))
    });
    g.finish();
}

fn bench_estimators(c: &mut Criterion) {
    let sh = Shingler::new(ShingleKind::Words(5), 1);
    let t = text(5, 2000);
    let (a, b) = (sh.shingle_set(&t), sh.shingle_set(&edit(&t, 40)));
    let modm = ModSketch::new(16, 1);
    let mins = MinSketch::new(128, 1);
    let oph = MinHasher::new(128, MinHashScheme::OnePermutation, 1);
    let (ma, mb) = (modm.sketch(&a), modm.sketch(&b));
    let (sa, sb) = (mins.sketch(&a), mins.sketch(&b));
    let (oa, ob) = (oph.sketch(&a), oph.sketch(&b));
    eprintln!(
        "estimators: exact Jaccard {:.4} ({} / {} shingles); MOD-16 {:.4} ({} / {} samples), \
         MIN-128 {:.4}, MinHash OPH-128 {:.4}",
        jaccard(&a, &b),
        a.len(),
        b.len(),
        ModSketch::resemblance(&ma, &mb),
        ma.len(),
        mb.len(),
        mins.resemblance(&sa, &sb),
        estimate_jaccard(&oa, &ob),
    );
    let mut g = c.benchmark_group("estimators");
    g.throughput(Throughput::Elements(1));
    g.bench_function("mod-m/resemblance", |bn| {
        bn.iter(|| ModSketch::resemblance(black_box(&ma), black_box(&mb)))
    });
    g.bench_function("mod-m/containment", |bn| {
        bn.iter(|| ModSketch::containment(black_box(&ma), black_box(&mb)))
    });
    g.bench_function("min-s/resemblance", |bn| {
        bn.iter(|| mins.resemblance(black_box(&sa), black_box(&sb)))
    });
    g.bench_function("minhash-oph/estimate_jaccard", |bn| {
        bn.iter(|| estimate_jaccard(black_box(&oa), black_box(&ob)))
    });
    // What the estimators save: the exact Jaccard of the full shingle sets.
    g.bench_function("exact/jaccard", |bn| bn.iter(|| jaccard(black_box(&a), black_box(&b))));
    g.finish();
}

fn bench_supershingles(c: &mut Criterion) {
    let pairs_cfg = SuperShingleConfig::default();
    let single_cfg = SuperShingleConfig { mode: SuperShingleMode::Single, ..pairs_cfg };
    let h = MinHasher::new(pairs_cfg.minhashes, MinHashScheme::OnePermutation, 1);
    let sigs: Vec<Vec<u32>> = collection().iter().map(|set| h.sketch(set)).collect();

    let mut g = c.benchmark_group("supershingles");
    g.throughput(Throughput::Elements(1));
    let sig = &sigs[0];
    g.bench_function("super_shingles/84=6x14", |b| {
        b.iter(|| super_shingles(black_box(sig), &pairs_cfg, 1))
    });
    let supers = super_shingles(sig, &pairs_cfg, 1);
    g.bench_function("mega_shingles/15", |b| b.iter(|| mega_shingles(black_box(&supers), 1)));

    g.sample_size(10);
    g.throughput(Throughput::Elements(sigs.len() as u64));
    for (name, cfg) in [("pairs", pairs_cfg), ("single", single_cfg)] {
        g.bench_function(format!("document_keys/20k docs/{name}"), |b| {
            b.iter(|| {
                sigs.iter().map(|s| document_keys(black_box(s), &cfg, 1).len()).sum::<usize>()
            })
        });
        let keys: Vec<Vec<u64>> = sigs.iter().map(|s| document_keys(s, &cfg, 1)).collect();
        let found = candidate_pairs(&keys);
        let planted = found.iter().filter(|&&(a, b)| b == a + 1 && b % 10 == 9).count();
        eprintln!(
            "supershingles {name}: {} candidate pairs, {planted} of {} planted near-copies",
            found.len(),
            DOCS / 10
        );
        g.bench_function(format!("candidate_pairs/20k docs/{name}"), |b| {
            b.iter(|| candidate_pairs(black_box(&keys)).len())
        });
    }
    g.finish();
}

fn bench_broder(c: &mut Criterion) {
    let mins = MinSketch::new(100, 1);
    let sketches: Vec<Vec<u64>> = collection().iter().map(|set| mins.sketch(set)).collect();
    let records: usize = sketches.iter().map(Vec::len).sum();
    // Records are held as 16-byte integers while they are sorted.
    let record_bytes = records * 16;
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let in_memory = BroderConfig { threshold: 0.5, ..BroderConfig::default() };
    let spilling = BroderConfig {
        memory_bytes: record_bytes / 5,
        tmp_dir: Some(tmp.path().to_owned()),
        ..in_memory.clone()
    };
    for (name, cfg) in [("in memory", &in_memory), ("spilling", &spilling)] {
        let (pairs, stats) = collect_pairs(&sketches, cfg).expect("the collection algorithm runs");
        let planted = pairs.iter().filter(|p| p.b == p.a + 1 && p.b % 10 == 9).count();
        eprintln!(
            "broder {name} (cap {} MiB): {} records, {} pairs emitted, {} distinct, {} reported \
             ({planted} of {} planted), {} runs written, {} MiB spilled",
            cfg.memory_bytes >> 20,
            stats.records,
            stats.pairs_emitted,
            stats.distinct_pairs,
            stats.pairs_reported,
            DOCS / 10,
            stats.runs_written,
            stats.bytes_spilled >> 20,
        );
    }

    let mut g = c.benchmark_group("broder");
    g.sample_size(10);
    g.throughput(Throughput::Elements(records as u64));
    g.bench_function("collect_pairs/20k MIN-100 sketches/in memory", |b| {
        b.iter(|| collect_pairs(black_box(&sketches), &in_memory).map(|(p, _)| p.len()))
    });
    g.bench_function("collect_pairs/20k MIN-100 sketches/cap records÷5, spilling", |b| {
        b.iter(|| collect_pairs(black_box(&sketches), &spilling).map(|(p, _)| p.len()))
    });
    g.finish();
}

criterion_group!(benches, bench_sampling, bench_estimators, bench_supershingles, bench_broder);
criterion_main!(benches);
