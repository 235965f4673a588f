//! The `truth` command: exact all-pairs Jaccard over a JSONL corpus, written as sorted TSV.
//!
//! Documents are shingled exactly as `lookalike dedup` shingles them
//! ([`lookalike::shingles::Shingler`]), then joined with [`crate::allpairs::all_pairs`]. The
//! output starts with one `#` line that records the settings (the scorer reads the threshold
//! from it), followed by `id1<TAB>id2<TAB>jaccard` lines: id1 before id2 in corpus order, sorted
//! by (id1, id2) in corpus order, Jaccard with six decimals.

use std::collections::HashSet;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use anyhow::{Result, bail};
use lookalike::shingles::{ShingleKind, Shingler};
use rayon::prelude::*;
use serde::Serialize;

use crate::allpairs::{SimilarPair, TokenSets, all_pairs};
use crate::files::{Fields, for_each_batch, parse_record};

/// Settings of [`compute`].
#[derive(Debug, Clone)]
pub struct TruthOptions {
    /// Pairs with Jaccard at least this are reported.
    pub threshold: f64,
    /// Shingles compared.
    pub shingle: ShingleKind,
    /// Seed of the shingle hashes.
    pub shingle_seed: u64,
    /// JSON fields of the corpus.
    pub fields: Fields,
}

/// Result of [`compute`].
#[derive(Debug)]
pub struct Truth {
    /// Document ids in corpus order.
    pub ids: Vec<String>,
    /// The similar pairs, sorted.
    pub pairs: Vec<SimilarPair>,
    /// Numbers for the log.
    pub stats: TruthStats,
}

/// Counts and timings of a truth computation.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TruthStats {
    /// Documents read.
    pub docs: u64,
    /// Documents without any shingle (never paired).
    pub empty_docs: u64,
    /// Total shingles (sum of set sizes).
    pub shingles: u64,
    /// Seconds spent reading and shingling.
    pub shingle_secs: f64,
    /// Seconds spent ranking tokens and joining.
    pub join_secs: f64,
    /// Pairs found.
    pub pairs: u64,
}

/// Reads and shingles the corpus, then finds every pair with Jaccard ≥ the threshold.
pub fn compute(corpus: &Path, opts: &TruthOptions) -> Result<Truth> {
    if !(opts.threshold > 0.0 && opts.threshold <= 1.0) {
        bail!("the threshold must be in (0, 1], got {}", opts.threshold);
    }
    let start = Instant::now();
    let shingler = Shingler::new(opts.shingle, opts.shingle_seed);
    let mut ids: Vec<String> = Vec::new();
    let mut offsets = vec![0usize];
    let mut hashes: Vec<u64> = Vec::new();
    let mut stats = TruthStats::default();
    for_each_batch(corpus, 8192, |lines, first| {
        let shingled: Vec<Result<(String, Vec<u64>)>> = lines
            .par_iter()
            .enumerate()
            .map(|(k, line)| {
                let (id, text) = parse_record(line, &opts.fields, first + k as u64)?;
                Ok((id, shingler.shingle_set(&text)))
            })
            .collect();
        for r in shingled {
            let (id, set) = r?;
            stats.empty_docs += u64::from(set.is_empty());
            hashes.extend_from_slice(&set);
            offsets.push(hashes.len());
            ids.push(id);
        }
        Ok(())
    })?;
    let mut seen = HashSet::with_capacity(ids.len());
    if let Some(dup) = ids.iter().find(|id| !seen.insert(id.as_str())) {
        bail!("{}: duplicate id {dup:?}; ids must be unique", corpus.display());
    }
    drop(seen);
    stats.docs = ids.len() as u64;
    stats.shingles = hashes.len() as u64;
    stats.shingle_secs = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let sets = TokenSets::from_hash_sets(offsets, hashes);
    let pairs = all_pairs(&sets, opts.threshold);
    stats.join_secs = start.elapsed().as_secs_f64();
    stats.pairs = pairs.len() as u64;
    Ok(Truth { ids, pairs, stats })
}

/// Writes the truth file: the `#` settings line, then one line per pair.
pub fn write_tsv(truth: &Truth, opts: &TruthOptions, out: &mut dyn Write) -> Result<()> {
    writeln!(
        out,
        "# lookalike-eval truth threshold={} shingle={} shingle_seed={} docs={} pairs={}",
        opts.threshold,
        opts.shingle,
        opts.shingle_seed,
        truth.ids.len(),
        truth.pairs.len()
    )?;
    for p in &truth.pairs {
        writeln!(
            out,
            "{}\t{}\t{:.6}",
            truth.ids[p.a as usize],
            truth.ids[p.b as usize],
            p.jaccard()
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truth_of_a_tiny_corpus() {
        let dir =
            std::env::temp_dir().join(format!("lookalike-bench-truth-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let corpus = dir.join("c.jsonl");
        let base = "one two three four five six seven eight nine ten";
        let lines = [
            format!(r#"{{"id": "a", "text": "{base}"}}"#),
            r#"{"id": "b", "text": "something else entirely, nothing shared here at all"}"#.into(),
            // Same words after normalization (case, punctuation): Jaccard 1.
            format!(r#"{{"id": "c", "text": "{}!"}}"#, base.to_uppercase()),
            // One word changed at the end: 5 of 6 shingles kept, 5/7.
            r#"{"id": "d", "text": "one two three four five six seven eight nine TEN2"}"#.into(),
            r#"{"id": "e", "text": " -- "}"#.into(),
        ];
        std::fs::write(&corpus, lines.join("\n")).unwrap();
        let opts = TruthOptions {
            threshold: 0.5,
            shingle: ShingleKind::Words(5),
            shingle_seed: 0,
            fields: Fields::default(),
        };
        let truth = compute(&corpus, &opts).unwrap();
        let mut out = Vec::new();
        write_tsv(&truth, &opts, &mut out).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let out = String::from_utf8(out).unwrap();
        let body: Vec<&str> = out.lines().skip(1).collect();
        assert_eq!(body, vec!["a\tc\t1.000000", "a\td\t0.714286", "c\td\t0.714286"]);
        assert!(out.starts_with("# lookalike-eval truth threshold=0.5 shingle=words:5"));
        assert_eq!(truth.stats.empty_docs, 1);
    }
}
