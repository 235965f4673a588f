//! Lexical-method micro-benchmarks: collection statistics (building, lookups, lexicon file),
//! I-Match signatures with K = 10 randomized lexicons, partitioned fingerprints, TF*RIDF and
//! long-sentence signatures.
//!
//! The text is generated (a fixed pseudo-random mix of English and Russian words with sentence
//! punctuation, over a vocabulary of a few thousand made-up words so that IDF varies) so the
//! benchmark runs anywhere. `cargo bench -p lookalike --bench lexical`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use lookalike::lexical::collection::{
    CollectionStats, CollectionStatsBuilder, Lexicon, TermCounts,
};
use lookalike::lexical::imatch::{IMatch, IMatchConfig, IMatchScratch};
use lookalike::lexical::lexsig::{
    LongSentenceConfig, TfRidfConfig, long_sentence_signature, sentence_spans, tf_ridf_signature,
};
use lookalike::lexical::partitioned::{PartitionConfig, PartitionScratch, Partitioner};
use lookalike::text::normalize::{NormalizedText, normalize_into};

const STEMS: &[&str] = &[
    "dup",
    "doc",
    "search",
    "engine",
    "page",
    "web",
    "crawl",
    "near",
    "simil",
    "shingl",
    "hash",
    "index",
    "query",
    "text",
    "collect",
    "поиск",
    "дубл",
    "докум",
    "страниц",
    "сравн",
    "текст",
];
const ENDINGS: &[&str] = &["", "s", "ing", "ed", "er", "а", "ов", "ами", "ость"];
const COMMON: &[&str] = &["the", "of", "and", "a", "in", "и", "в", "на", "не"];

fn next(s: &mut u64) -> u64 {
    *s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    *s >> 33
}

/// A document of about `words` words: a third function words, the rest from a Zipf-ish
/// vocabulary of stems × endings × numbers, with sentences of 5 to 30 words.
fn text(seed: u64, words: usize) -> String {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut out = String::new();
    let mut in_sentence = 0;
    let mut sentence_len = 5 + next(&mut s) as usize % 25;
    for _ in 0..words {
        if next(&mut s).is_multiple_of(3) {
            out.push_str(COMMON[next(&mut s) as usize % COMMON.len()]);
        } else {
            // Smaller ids are more frequent: id = r² / range.
            let r = next(&mut s) % 4000;
            let id = (r * r / 4000) as usize;
            out.push_str(STEMS[id % STEMS.len()]);
            out.push_str(ENDINGS[(id / STEMS.len()) % ENDINGS.len()]);
            if id >= STEMS.len() * ENDINGS.len() {
                out.push_str(&(id / (STEMS.len() * ENDINGS.len())).to_string());
            }
        }
        in_sentence += 1;
        if in_sentence == sentence_len {
            out.push_str(if next(&mut s).is_multiple_of(5) { "! " } else { ". " });
            in_sentence = 0;
            sentence_len = 5 + next(&mut s) as usize % 25;
        } else {
            out.push(' ');
        }
    }
    out
}

const SEED: u64 = 1;

fn corpus(docs: usize, words: usize) -> (Vec<String>, Vec<TermCounts>) {
    let texts: Vec<String> = (0..docs as u64).map(|d| text(d, words)).collect();
    let mut norm = NormalizedText::default();
    let counts = texts
        .iter()
        .map(|t| {
            normalize_into(t, &mut norm);
            TermCounts::from_normalized(&norm, SEED)
        })
        .collect();
    (texts, counts)
}

fn stats_of(counts: &[TermCounts]) -> CollectionStats {
    let mut b = CollectionStatsBuilder::new();
    b.extend(counts);
    b.build()
}

fn bench_stats(c: &mut Criterion) {
    let (_, counts) = corpus(2000, 500);
    let tokens: u64 = counts.iter().map(|d| u64::from(d.len)).sum();
    let mut g = c.benchmark_group("collection");
    g.sample_size(10);
    g.throughput(Throughput::Elements(tokens));
    g.bench_function("build/2000 docs", |b| b.iter(|| stats_of(black_box(&counts)).len()));
    // Two halves merged, as two threads would.
    g.bench_function("build+merge/2 parts", |b| {
        b.iter(|| {
            let (l, r) = counts.split_at(counts.len() / 2);
            let mut x = CollectionStatsBuilder::new();
            x.extend(l);
            let mut y = CollectionStatsBuilder::new();
            y.extend(r);
            x.merge(y);
            x.build().len()
        })
    });
    let stats = stats_of(&counts);
    let probes: Vec<u64> =
        counts.iter().take(200).flat_map(|d| d.terms.iter().map(|t| t.0)).collect();
    g.throughput(Throughput::Elements(probes.len() as u64));
    g.bench_function("ridf lookups", |b| {
        b.iter(|| probes.iter().map(|&h| stats.ridf(black_box(h))).sum::<f64>())
    });

    // A lexicon file of a million terms: save and load.
    let mut big = CollectionStatsBuilder::new();
    let mut s = 9u64;
    for _ in 0..1000 {
        let mut terms: Vec<(u64, u32)> =
            (0..1000).map(|_| ((next(&mut s) << 31) ^ next(&mut s), 1)).collect();
        terms.sort_unstable();
        terms.dedup_by_key(|t| t.0);
        big.add_document(&TermCounts { len: terms.len() as u32, terms });
    }
    let lexicon = Lexicon::new(big.build(), SEED, "bench");
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("lexicon.bin");
    g.throughput(Throughput::Elements(lexicon.stats.len() as u64));
    g.bench_function("lexicon save/1M terms", |b| b.iter(|| lexicon.save(&path).expect("save")));
    g.bench_function("lexicon load/1M terms", |b| {
        b.iter(|| Lexicon::load(&path).expect("load").stats.len())
    });
    g.finish();
}

fn bench_signatures(c: &mut Criterion) {
    let (texts, counts) = corpus(500, 800);
    let stats = stats_of(&counts);
    let bytes: u64 = texts.iter().map(|t| t.len() as u64).sum();
    let distinct: u64 = counts.iter().map(|d| d.terms.len() as u64).sum();
    let mut g = c.benchmark_group("signatures");

    let im = IMatch::new(&stats, IMatchConfig::default(), 1).expect("valid configuration");
    let (mut scratch, mut out) = (IMatchScratch::default(), Vec::new());
    // Throughput in distinct terms: the figure per document that the signers scan.
    g.throughput(Throughput::Elements(distinct));
    g.bench_function("imatch/K=10", |b| {
        b.iter(|| {
            let mut n = 0;
            for d in &counts {
                if im.signatures_into(black_box(d), &mut scratch, &mut out).is_ok() {
                    n += out.len();
                }
            }
            n
        })
    });

    let p = Partitioner::new(PartitionConfig::default(), 1).expect("valid configuration");
    let mut pscratch = PartitionScratch::default();
    g.bench_function("partitioned/L=8", |b| {
        b.iter(|| {
            let mut n = 0;
            for d in &counts {
                if p.fingerprints_into(black_box(d), &mut pscratch, &mut out).is_ok() {
                    n += out.len();
                }
            }
            n
        })
    });

    let tf = TfRidfConfig::default();
    g.bench_function("tf_ridf/6 words", |b| {
        b.iter(|| {
            counts
                .iter()
                .filter_map(|d| tf_ridf_signature(black_box(d), &stats, &tf, 1).ok())
                .count()
        })
    });

    // The long-sentence signature works on the original text: throughput in bytes.
    g.throughput(Throughput::Bytes(bytes));
    let ls = LongSentenceConfig::default();
    let mut norm = NormalizedText::default();
    g.bench_function("long_sentences/2", |b| {
        b.iter(|| {
            texts
                .iter()
                .filter_map(|t| long_sentence_signature(black_box(t), &ls, 1, &mut norm).ok())
                .count()
        })
    });
    g.bench_function("sentence_spans", |b| {
        b.iter(|| texts.iter().map(|t| sentence_spans(black_box(t)).count()).sum::<usize>())
    });
    g.finish();
}

criterion_group!(benches, bench_stats, bench_signatures);
criterion_main!(benches);
