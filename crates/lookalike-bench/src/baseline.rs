//! The `baseline` command: the speed floor of any dedup run on this machine.
//!
//! Every method must at least read the input and split its text into words once. This measures
//! exactly that, single-threaded, on the same corpus and in the same session as the runs it is
//! compared with: read the JSONL, parse each record, and count its words with
//! `unicode_segmentation`'s `unicode_words`. A dedup run's MB/s divided by this MB/s says how close
//! it gets to the floor.

use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use serde::Serialize;
use unicode_segmentation::UnicodeSegmentation;

use crate::files::{Fields, for_each_batch, parse_record};

/// What [`run`] measured.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Baseline {
    /// Documents read.
    pub docs: u64,
    /// Bytes of text (the text field, UTF-8), in MB (10^6 bytes).
    pub text_mb: f64,
    /// Size of the JSONL file, in MB.
    pub file_mb: f64,
    /// Words counted.
    pub words: u64,
    /// Wall seconds for everything: reading, JSON parsing and word segmentation.
    pub seconds: f64,
    /// Of those, seconds in word segmentation alone.
    pub tokenize_seconds: f64,
    /// text_mb / seconds.
    pub mb_per_s: f64,
    /// docs / seconds.
    pub docs_per_s: f64,
    /// text_mb / tokenize_seconds.
    pub tokenize_mb_per_s: f64,
}

/// Reads `corpus` and counts the words of every text.
pub fn run(corpus: &Path, fields: &Fields) -> Result<Baseline> {
    let start = Instant::now();
    let mut b = Baseline::default();
    let mut text_bytes = 0u64;
    let mut tokenize = 0.0;
    for_each_batch(corpus, 1024, |lines, first| {
        for (k, line) in lines.iter().enumerate() {
            let (_, text) = parse_record(line, fields, first + k as u64)?;
            let t = Instant::now();
            b.words += text.unicode_words().count() as u64;
            tokenize += t.elapsed().as_secs_f64();
            text_bytes += text.len() as u64;
            b.docs += 1;
        }
        Ok(())
    })?;
    b.seconds = start.elapsed().as_secs_f64();
    b.tokenize_seconds = tokenize;
    b.text_mb = text_bytes as f64 / 1e6;
    b.file_mb = fs_err::metadata(corpus)?.len() as f64 / 1e6;
    let per_s = |x: f64, s: f64| if s > 0.0 { x / s } else { 0.0 };
    b.mb_per_s = per_s(b.text_mb, b.seconds);
    b.docs_per_s = per_s(b.docs as f64, b.seconds);
    b.tokenize_mb_per_s = per_s(b.text_mb, b.tokenize_seconds);
    Ok(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_words_and_docs() {
        let dir = std::env::temp_dir().join(format!("lookalike-bench-base-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let c = dir.join("c.jsonl");
        std::fs::write(
            &c,
            "{\"id\":\"a\",\"text\":\"one two, three\"}\n\n{\"id\":\"b\",\"text\":\"重複\"}\n",
        )
        .unwrap();
        let b = run(&c, &Fields::default()).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!((b.docs, b.words), (2, 5));
        assert!((b.text_mb - 20e-6).abs() < 1e-12);
    }
}
