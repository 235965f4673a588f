//! Planted near-duplicates in a collection of whole documents (`lookalike-bench plant`).
//!
//! [`crate::corpus`] builds its base documents from paragraphs; real collections with a shared
//! template (API references, manuals, crawled sites) must keep their pages whole, template and
//! all, since what they share is exactly what makes clusters chain. `plant` reads such pages (a
//! JSONL of `id` and `text`, as `lookalike extract --jsonl` writes them) and appends variants:
//! each a copy of a random page, or with probability `chain_fraction` of an earlier variant,
//! through one [`EditKind`] drawn with its weight. Substituted words come from the pages
//! themselves. The output is the pages in their order, then the variants, with ids
//! `PARENT~vN`; the same input and seed give the same bytes.

use std::io::{BufRead, Write};

use anyhow::{Context, Result};
use serde_json::Value;

use crate::edits::{self, EditKind, PARAGRAPH_BREAK};
use crate::files::Fields;
use crate::pool::LangPool;
use crate::rng::Rng;

/// Settings of [`plant`].
#[derive(Debug, Clone)]
pub struct PlantOptions {
    /// Variants to add, as a fraction of the pages read.
    pub variant_fraction: f64,
    /// Fraction of variants made from an earlier variant.
    pub chain_fraction: f64,
    /// Seed of every random choice.
    pub seed: u64,
    /// Language of the pages (for the edits that depend on it: word segmentation, dates).
    pub lang: String,
}

/// What [`plant`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlantStats {
    /// Pages read (those with a text).
    pub pages: u64,
    /// Variants written, per edit kind name.
    pub variants: Vec<(&'static str, u64)>,
}

/// Reads pages from `input`, writes them and their variants to `out` (JSONL: id, text).
pub fn plant(
    input: impl BufRead,
    fields: &Fields,
    opts: &PlantOptions,
    out: &mut dyn Write,
) -> Result<PlantStats> {
    let mut pages: Vec<(String, String)> = Vec::new();
    for (n, line) in input.lines().enumerate() {
        let line = line.with_context(|| format!("reading line {}", n + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let v: Value =
            serde_json::from_str(&line).with_context(|| format!("line {}: not JSON", n + 1))?;
        let Some(text) = v.get(&fields.text).and_then(Value::as_str) else { continue };
        if text.trim().is_empty() {
            continue;
        }
        let id = v
            .get(&fields.id)
            .and_then(Value::as_str)
            .map_or_else(|| format!("line{}", n + 1), str::to_owned);
        // Lines are the pages' paragraphs for the paragraph edits.
        let text = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(PARAGRAPH_BREAK);
        pages.push((id, text));
    }
    let mut pool = LangPool { lang: opts.lang.clone(), ..LangPool::default() };
    for (_, text) in &pages {
        for p in text.split(PARAGRAPH_BREAK) {
            let words = edits::word_count(p) as u32;
            if words > 0 {
                pool.paragraphs.push(p.to_owned());
                pool.words.push(words);
                pool.total_words += u64::from(words);
            }
        }
    }
    let mut stats = PlantStats { pages: pages.len() as u64, ..PlantStats::default() };
    for (id, text) in &pages {
        writeln!(out, "{}", serde_json::json!({"id": id, "text": text}))?;
    }
    if pages.is_empty() {
        return Ok(stats);
    }
    let mut rng = Rng::new(opts.seed);
    let wanted = (opts.variant_fraction * pages.len() as f64).round() as usize;
    let mut variants: Vec<(String, String)> = Vec::with_capacity(wanted);
    let mut counts: Vec<u64> = vec![0; EditKind::WEIGHTED.len()];
    for v in 0..wanted {
        let (parent_id, parent_text) = if !variants.is_empty() && rng.chance(opts.chain_fraction) {
            variants[rng.index(variants.len())].clone()
        } else {
            pages[rng.index(pages.len())].clone()
        };
        let (text, kind) = edits::apply(EditKind::draw(&mut rng), &parent_text, &pool, &mut rng);
        let ki = EditKind::WEIGHTED.iter().position(|(k, _)| *k == kind).unwrap_or(0);
        counts[ki] += 1;
        let id = format!("{}~v{}", parent_id.split('~').next().unwrap_or(&parent_id), v + 1);
        writeln!(out, "{}", serde_json::json!({"id": id, "text": text}))?;
        variants.push((id, text));
    }
    stats.variants =
        EditKind::WEIGHTED.iter().zip(counts).map(|((k, _), c)| (k.name(), c)).collect();
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(seed: u64) -> PlantOptions {
        PlantOptions { variant_fraction: 0.5, chain_fraction: 0.2, seed, lang: "en".into() }
    }

    #[test]
    fn pages_come_first_then_variants_of_them_deterministically() {
        let pages: String = (0..20)
            .map(|i| {
                let text: String = (0..120).map(|w| format!("word{} ", (w * 7 + i) % 90)).collect();
                format!("{}\n", serde_json::json!({"id": format!("p{i}"), "text": text}))
            })
            .collect();
        let fields = Fields { id: "id".into(), text: "text".into() };
        let mut a = Vec::new();
        let stats = plant(pages.as_bytes(), &fields, &opts(3), &mut a).unwrap();
        let mut b = Vec::new();
        plant(pages.as_bytes(), &fields, &opts(3), &mut b).unwrap();
        assert_eq!(a, b);
        assert_eq!(stats.pages, 20);
        assert_eq!(stats.variants.iter().map(|v| v.1).sum::<u64>(), 10);
        let lines: Vec<Value> = String::from_utf8(a)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 30);
        assert_eq!(lines[0]["id"], "p0");
        for v in &lines[20..] {
            let id = v["id"].as_str().unwrap();
            let parent = id.split('~').next().unwrap();
            assert!(lines[..20].iter().any(|p| p["id"] == parent), "{id}");
        }
    }
}
