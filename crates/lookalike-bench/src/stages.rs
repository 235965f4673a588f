//! The `text-stages` command: where one core's time goes on the text path, per language.
//!
//! Loads a JSONL corpus into memory, groups its documents by a field (the generator's `lang`),
//! and times each stage of the per-document work of `lookalike dedup` on one thread: normalize,
//! shingle, MinHash, fingerprint; plus the read + `unicode_words` floor of the `baseline`
//! command on the same texts. Each stage is run `repeat` times and the fastest pass is kept, so
//! the figures are as little disturbed by other processes as a shared machine allows; times are
//! the thread's CPU time, and MB/s are MB per CPU second.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use lookalike::fingerprint::text_fingerprint;
use lookalike::shingles::ShingleScratch;
use lookalike::text::normalize::NormalizedText;
use lookalike::{MinHashScheme, MinHasher, ShingleKind, Shingler};
use serde_json::Value;
use unicode_segmentation::UnicodeSegmentation;

use crate::files::for_each_batch;

/// Arguments of `lookalike-bench text-stages`.
#[derive(Debug, Args)]
pub struct StagesArgs {
    /// Corpus (JSONL).
    #[arg(long)]
    pub corpus: PathBuf,
    /// Field with the text.
    #[arg(long, default_value = "text")]
    pub text_field: String,
    /// Field the documents are grouped by (absent: one group).
    #[arg(long, default_value = "lang")]
    pub group_field: String,
    /// Passes over each group; the fastest is reported.
    #[arg(long, default_value_t = 3)]
    pub repeat: usize,
    /// Shingles.
    #[arg(long, default_value = "words:5")]
    pub shingle: ShingleKind,
    /// MinHash permutations.
    #[arg(long, default_value_t = 128)]
    pub num_perm: usize,
}

/// CPU seconds of this thread so far.
fn thread_cpu() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// CPU seconds (of this thread: time waiting for the core does not count) of the fastest of
/// `repeat` passes of `f`.
fn fastest(repeat: usize, mut f: impl FnMut()) -> f64 {
    (0..repeat.max(1))
        .map(|_| {
            let t = thread_cpu();
            f();
            thread_cpu() - t
        })
        .fold(f64::INFINITY, f64::min)
}

/// Runs the command and returns its Markdown table.
pub fn run(a: &StagesArgs) -> Result<String> {
    let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for_each_batch(&a.corpus, 4096, |lines, _| {
        for line in lines {
            let mut v: serde_json::Map<String, Value> = serde_json::from_str(line)?;
            let group = match v.get(&a.group_field) {
                Some(Value::String(s)) => s.clone(),
                _ => "all".to_owned(),
            };
            if let Some(Value::String(t)) = v.remove(&a.text_field) {
                groups.entry(group).or_default().push(t);
            }
        }
        Ok(())
    })?;
    let all: Vec<String> = groups.values().flatten().cloned().collect();
    groups.insert("(all)".to_owned(), all);

    let shingler = Shingler::new(a.shingle, 1);
    let hasher = MinHasher::new(a.num_perm, MinHashScheme::OnePermutation, 1);
    let mut out = String::new();
    writeln!(
        out,
        "| group | docs | MB | unicode_words MB/s | normalize MB/s | shingles MB/s | MinHash MB/s | fingerprint MB/s | all four MB/s | ÷ unicode_words | tokens | shingles | checksum |"
    )?;
    writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")?;
    for (name, texts) in &groups {
        let bytes: usize = texts.iter().map(String::len).sum();
        let mb = bytes as f64 / 1e6;
        let words = fastest(a.repeat, || {
            for t in texts {
                black_box(t.unicode_words().count());
            }
        });
        // Normalized texts and shingle sets kept, so that each stage is timed on its own.
        let mut norms: Vec<NormalizedText> = vec![NormalizedText::default(); texts.len()];
        let normalize = fastest(a.repeat, || {
            for (t, n) in texts.iter().zip(norms.iter_mut()) {
                shingler.normalize_into(t, n);
            }
        });
        let mut sets: Vec<Vec<u64>> = vec![Vec::new(); texts.len()];
        let mut scratch = ShingleScratch::default();
        let shingles = fastest(a.repeat, || {
            for (n, s) in norms.iter().zip(sets.iter_mut()) {
                shingler.shingles_into(n, &mut scratch, s);
            }
        });
        let mut sig = vec![0u32; a.num_perm];
        let minhash = fastest(a.repeat, || {
            for s in &sets {
                hasher.sketch_into(s, &mut sig);
                black_box(&sig);
            }
        });
        let fingerprint = fastest(a.repeat, || {
            for n in &norms {
                black_box(text_fingerprint(&n.text));
            }
        });
        let tokens: usize = norms.iter().map(NormalizedText::len).sum();
        let set_len: usize = sets.iter().map(Vec::len).sum();
        let total = normalize + shingles + minhash + fingerprint;
        // What the stages made, to compare two builds: the normalized texts, token spans and
        // shingle sets, hashed.
        let mut sum = xxhash_rust::xxh3::Xxh3::new();
        for (n, s) in norms.iter().zip(&sets) {
            sum.update(n.text.as_bytes());
            for &(a, b) in &n.tokens {
                sum.update(&a.to_le_bytes());
                sum.update(&b.to_le_bytes());
            }
            for h in s {
                sum.update(&h.to_le_bytes());
            }
        }
        writeln!(
            out,
            "| {name} | {} | {mb:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.2} | {tokens} | {set_len} | {:016x} |",
            texts.len(),
            mb / words,
            mb / normalize,
            mb / shingles,
            mb / minhash,
            mb / fingerprint,
            mb / total,
            words / total,
            sum.digest(),
        )?;
    }
    Ok(out)
}
