//! The benchmark corpus generator: base documents of real text plus planted near-duplicates.
//!
//! **Plan, then render.** A first, sequential pass draws a small [`Recipe`] for every document:
//! a base document (its language) or a variant (its parent, an earlier document, and the edit).
//! Texts are then rendered in parallel, chunk by chunk, and written in order: a base document's
//! text is a pure function of `(seed, its number, the pool)`, a variant's of its parent's text and
//! `(seed, its number)`. So nothing but the recipes and the paragraph pool stays in memory (a
//! variant re-renders its ancestors, at most [`CorpusOptions::max_depth`] of them), the output is
//! byte-identical for the same arguments whatever the thread count, and a million documents fit
//! in a few hundred megabytes.
//!
//! **Base documents** are web-page sized (`min_words`..`max_words` words, log-uniform) and made of
//! runs of one to four consecutive paragraphs of one language, taken from random places in that
//! language's pool; no run carries more than a third of a document (a long paragraph is cut at a
//! sentence end, or a word). Several independent runs per document keep two base documents from
//! sharing most of their text by chance, even when the corpus has many more words than the pool
//! (a corpus of 20,000 documents has about 14 million words; the default pool about 3 million):
//! the near-duplicates are the planted ones, their siblings (two variants of one document), and
//! the very few that chance makes anyway, all of which the exact truth finds.
//!
//! **Variants** are a `variant_fraction` of the documents. Each copies an earlier base document,
//! or (with probability `chain_fraction`) an earlier variant, through one [`EditKind`]. Every
//! planted pair (parent, variant) is recorded with its true Jaccard on the chosen shingles, plus
//! (root, variant) with kind `chain` for variants of variants.

use std::io::Write;

use anyhow::Result;
use lookalike::shingles::{ShingleKind, Shingler};
use lookalike::verify::jaccard;
use rayon::prelude::*;
use serde::Serialize;
use unicode_segmentation::UnicodeSegmentation;

use crate::edits::{self, EditKind, PARAGRAPH_BREAK};
use crate::pool::Pool;
use crate::rng::{Rng, derive_seed};

/// Settings of [`generate`].
#[derive(Debug, Clone)]
pub struct CorpusOptions {
    /// Number of documents.
    pub docs: u64,
    /// Seed of every random choice.
    pub seed: u64,
    /// Fraction of documents that are planted variants.
    pub variant_fraction: f64,
    /// Fraction of variants whose parent is itself a variant.
    pub chain_fraction: f64,
    /// Longest chain root → variant → variant ….
    pub max_depth: u8,
    /// Smallest base document, in words.
    pub min_words: usize,
    /// Largest base document, in words (more only when its last paragraph is long).
    pub max_words: usize,
    /// Shingles for the planted pairs' true Jaccard.
    pub shingle: ShingleKind,
    /// Seed of the shingle hashes.
    pub shingle_seed: u64,
}

impl Default for CorpusOptions {
    fn default() -> Self {
        CorpusOptions {
            docs: 20_000,
            seed: 1,
            variant_fraction: 0.3,
            chain_fraction: 0.2,
            max_depth: 3,
            min_words: 150,
            max_words: 2000,
            shingle: ShingleKind::Words(5),
            shingle_seed: 1,
        }
    }
}

/// How one document is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recipe {
    /// A base document in the pool's language number `lang`.
    Base {
        /// Index into [`Pool::langs`].
        lang: u16,
    },
    /// A variant of an earlier document.
    Variant {
        /// The document it was made from.
        parent: u32,
        /// The base document at the start of its chain.
        root: u32,
        /// 1 for a variant of a base document, 2 for a variant of such a variant, ….
        depth: u8,
        /// The edit drawn for it (the one applied may fall back, see [`edits::apply`]).
        kind: EditKind,
    },
}

/// Draws the recipes of all documents (sequential, cheap: no text).
pub fn plan(opts: &CorpusOptions, languages: usize) -> Vec<Recipe> {
    assert!(languages > 0 && languages <= usize::from(u16::MAX));
    let mut rng = Rng::new(derive_seed(&[opts.seed, 0x504C_414E]));
    let mut recipes = Vec::with_capacity(opts.docs as usize);
    let mut bases: Vec<u32> = Vec::new();
    let mut chainable: Vec<u32> = Vec::new();
    for i in 0..opts.docs {
        let i = u32::try_from(i).expect("at most 2^32 documents");
        if !bases.is_empty() && rng.chance(opts.variant_fraction) {
            let parent = if !chainable.is_empty() && rng.chance(opts.chain_fraction) {
                chainable[rng.index(chainable.len())]
            } else {
                bases[rng.index(bases.len())]
            };
            let (root, depth) = match recipes[parent as usize] {
                Recipe::Base { .. } => (parent, 1),
                Recipe::Variant { root, depth, .. } => (root, depth + 1),
            };
            if depth < opts.max_depth {
                chainable.push(i);
            }
            recipes.push(Recipe::Variant { parent, root, depth, kind: EditKind::draw(&mut rng) });
        } else {
            bases.push(i);
            recipes.push(Recipe::Base { lang: rng.index(languages) as u16 });
        }
    }
    recipes
}

/// Counts reported by [`generate`].
#[derive(Debug, Clone, Default, Serialize)]
pub struct CorpusStats {
    /// Documents written.
    pub docs: u64,
    /// Base documents among them.
    pub base_docs: u64,
    /// Bytes of text (UTF-8, without JSON escaping).
    pub text_bytes: u64,
    /// Documents per language code.
    pub docs_per_lang: Vec<(String, u64)>,
    /// Variants per edit kind actually applied.
    pub variants_per_kind: Vec<(String, u64)>,
    /// Planted pairs written (parent pairs and chain pairs).
    pub planted_pairs: u64,
}

#[derive(Serialize)]
struct OutDoc<'a> {
    id: &'a str,
    lang: &'a str,
    text: &'a str,
}

/// The id of document number `i` in a corpus of `docs` documents: `d` and at least six digits.
pub fn doc_id(i: u64, docs: u64) -> String {
    let width = docs.saturating_sub(1).to_string().len().max(6);
    format!("d{i:0width$}")
}

struct Renderer<'a> {
    pool: &'a Pool,
    recipes: &'a [Recipe],
    opts: &'a CorpusOptions,
    shingler: Shingler,
}

/// One rendered document: its JSON line and its planted-pair lines.
struct Rendered {
    json: String,
    planted: String,
    lang: u16,
    text_bytes: u64,
    kind: Option<EditKind>,
    planted_pairs: u64,
}

impl Renderer<'_> {
    fn lang_of(&self, i: u32) -> u16 {
        match self.recipes[i as usize] {
            Recipe::Base { lang } => lang,
            Recipe::Variant { root, .. } => self.lang_of(root),
        }
    }

    fn base_text(&self, i: u32, lang: u16) -> String {
        let lp = &self.pool.langs[usize::from(lang)];
        let mut rng = Rng::new(derive_seed(&[self.opts.seed, u64::from(i), 1]));
        let (lo, hi) = (self.opts.min_words.max(1) as f64, self.opts.max_words.max(1) as f64);
        let target = rng.range_f64(lo.ln(), hi.ln().max(lo.ln())).exp() as usize;
        // No run may carry more than a third of the document: two documents then share most of
        // their text only if several independently placed runs coincide.
        let cap = (target / 3).max(MIN_RUN_WORDS);
        let n = lp.paragraphs.len();
        let mut text = String::new();
        let mut words = 0;
        while words < target.max(1) {
            let run = rng.range_incl(1, 4);
            let start = rng.index(n);
            let mut run_words = 0;
            for p in start..(start + run).min(n) {
                let para = &lp.paragraphs[p];
                let w = lp.words[p] as usize;
                let room = cap - run_words;
                let (piece, pw) =
                    if w <= room { (para.as_str(), w) } else { cut_words(para, room) };
                if pw > 0 {
                    if !text.is_empty() {
                        text.push_str(PARAGRAPH_BREAK);
                    }
                    text.push_str(piece);
                }
                run_words += pw;
                words += pw;
                if words >= target || pw < w {
                    break;
                }
            }
        }
        text
    }

    /// Texts from the chain's root down to document `i`, and the edit applied to make `i`.
    fn lineage(&self, i: u32) -> (Vec<String>, Option<EditKind>) {
        match self.recipes[i as usize] {
            Recipe::Base { lang } => (vec![self.base_text(i, lang)], None),
            Recipe::Variant { parent, kind, .. } => {
                let (mut texts, _) = self.lineage(parent);
                let lp = &self.pool.langs[usize::from(self.lang_of(i))];
                let mut rng = Rng::new(derive_seed(&[self.opts.seed, u64::from(i), 2]));
                let parent_text = texts.last().expect("a lineage is never empty");
                let (text, applied) = edits::apply(kind, parent_text, lp, &mut rng);
                texts.push(text);
                (texts, Some(applied))
            }
        }
    }

    fn render(&self, i: u32) -> Rendered {
        let docs = self.opts.docs;
        let id = doc_id(u64::from(i), docs);
        let lang = self.lang_of(i);
        let (texts, kind) = self.lineage(i);
        let text = texts.last().expect("a lineage is never empty");
        let mut planted = String::new();
        let mut planted_pairs = 0;
        if let (Recipe::Variant { parent, root, depth, .. }, Some(kind)) =
            (self.recipes[i as usize], kind)
        {
            let mine = self.shingler.shingle_set(text);
            let mut pair = |other: u32, other_text: &str, label: &str| {
                let j = jaccard(&self.shingler.shingle_set(other_text), &mine);
                let other_id = doc_id(u64::from(other), docs);
                planted.push_str(&format!("{other_id}\t{id}\t{j:.6}\t{label}\n"));
                planted_pairs += 1;
            };
            pair(parent, &texts[texts.len() - 2], kind.name());
            if depth >= 2 {
                pair(root, &texts[0], "chain");
            }
        }
        let lang_code = &self.pool.langs[usize::from(lang)].lang;
        let mut json = serde_json::to_string(&OutDoc { id: &id, lang: lang_code, text })
            .expect("serializing strings cannot fail");
        json.push('\n');
        Rendered { json, planted, lang, text_bytes: text.len() as u64, kind, planted_pairs }
    }
}

/// Smallest cap on the words one run of paragraphs contributes to a base document.
const MIN_RUN_WORDS: usize = 40;

/// The first sentences of `para` that fit in `max_words` words, or, when the first sentence is
/// already too long (or fills less than half of the room), its first `max_words` words. Returns
/// the piece and its word count.
fn cut_words(para: &str, max_words: usize) -> (&str, usize) {
    let mut end = 0;
    let mut words = 0;
    for (start, sentence) in para.split_sentence_bound_indices() {
        let w = sentence.unicode_words().count();
        if words + w > max_words {
            break;
        }
        words += w;
        end = start + sentence.len();
    }
    if words * 2 >= max_words && words > 0 {
        return (para[..end].trim_end(), words);
    }
    let end = edits::word_offset(para, max_words);
    let piece = para[..end].trim_end();
    (piece, edits::word_count(piece))
}

/// Documents rendered in parallel at a time (bounds memory; output order is unaffected).
const CHUNK: u32 = 4096;

/// Generates the corpus: JSONL documents to `out`, planted pairs (TSV `id1 id2 jaccard kind`,
/// after a `#` header line) to `planted`. Calls `progress(done)` after every chunk.
pub fn generate(
    pool: &Pool,
    opts: &CorpusOptions,
    out: &mut dyn Write,
    mut planted: Option<&mut dyn Write>,
    progress: &mut dyn FnMut(u64),
) -> Result<CorpusStats> {
    let recipes = plan(opts, pool.langs.len());
    let renderer = Renderer {
        pool,
        recipes: &recipes,
        opts,
        shingler: Shingler::new(opts.shingle, opts.shingle_seed),
    };
    let mut per_lang = vec![0u64; pool.langs.len()];
    let mut per_kind = vec![0u64; EditKind::WEIGHTED.len()];
    let mut stats = CorpusStats::default();
    if let Some(p) = planted.as_deref_mut() {
        writeln!(
            p,
            "# id1\tid2\tjaccard\tkind\t(shingle={} seed={})",
            opts.shingle, opts.shingle_seed
        )?;
    }
    let n = recipes.len() as u32;
    let mut start = 0u32;
    while start < n {
        let end = start.saturating_add(CHUNK).min(n);
        let rendered: Vec<Rendered> =
            (start..end).into_par_iter().map(|i| renderer.render(i)).collect();
        for r in rendered {
            out.write_all(r.json.as_bytes())?;
            if let Some(p) = planted.as_deref_mut() {
                p.write_all(r.planted.as_bytes())?;
            }
            stats.docs += 1;
            stats.text_bytes += r.text_bytes;
            stats.planted_pairs += r.planted_pairs;
            per_lang[usize::from(r.lang)] += 1;
            match r.kind {
                None => stats.base_docs += 1,
                Some(k) => {
                    let ki = EditKind::WEIGHTED.iter().position(|(e, _)| *e == k).unwrap_or(0);
                    per_kind[ki] += 1;
                }
            }
        }
        progress(u64::from(end));
        start = end;
    }
    stats.docs_per_lang =
        pool.langs.iter().zip(per_lang).map(|(l, c)| (l.lang.clone(), c)).collect();
    stats.variants_per_kind = EditKind::WEIGHTED
        .iter()
        .zip(per_kind)
        .map(|((k, _), c)| (k.name().to_owned(), c))
        .collect();
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool::LangPool;

    fn toy_pool() -> Pool {
        let mk = |lang: &str, prefix: &str| {
            let paragraphs: Vec<String> = (0..300)
                .map(|p| (0..30).map(|w| format!("{prefix}{p}x{w} ")).collect::<String>())
                .collect();
            let words = vec![30; paragraphs.len()];
            LangPool { lang: lang.into(), paragraphs, words, total_words: 9000 }
        };
        Pool { langs: vec![mk("en", "w"), mk("ru", "с")] }
    }

    fn run(opts: &CorpusOptions) -> (String, String, CorpusStats) {
        let (mut out, mut planted) = (Vec::new(), Vec::new());
        let stats = generate(&toy_pool(), opts, &mut out, Some(&mut planted), &mut |_| {}).unwrap();
        (String::from_utf8(out).unwrap(), String::from_utf8(planted).unwrap(), stats)
    }

    #[test]
    fn reproducible_and_well_formed() {
        let opts = CorpusOptions { docs: 300, min_words: 50, max_words: 400, ..Default::default() };
        let (a, pa, stats) = run(&opts);
        let (b, pb, _) = run(&opts);
        assert_eq!(a, b);
        assert_eq!(pa, pb);
        let (c, _, _) = run(&CorpusOptions { seed: 2, ..opts.clone() });
        assert_ne!(a, c);
        assert_eq!(a.lines().count(), 300);
        assert_eq!(stats.docs, 300);
        let first: serde_json::Value = serde_json::from_str(a.lines().next().unwrap()).unwrap();
        assert_eq!(first["id"], "d000000");
        let variants = 300 - stats.base_docs;
        assert!((50..130).contains(&variants), "{variants}");
        // Every variant has a planted line with its parent; exact copies have Jaccard 1.
        let lines: Vec<&str> = pa.lines().skip(1).collect();
        assert!(lines.len() as u64 >= variants);
        for l in &lines {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 4);
            assert!(f[0] < f[1]);
            let j: f64 = f[2].parse().unwrap();
            assert!((0.0..=1.0).contains(&j));
            if f[3] == "exact" {
                assert_eq!(j, 1.0);
            }
        }
    }

    #[test]
    fn documents_stay_in_one_language_and_size_range() {
        let opts = CorpusOptions { docs: 200, min_words: 50, max_words: 400, ..Default::default() };
        let (a, _, _) = run(&opts);
        for line in a.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let text = v["text"].as_str().unwrap();
            let cyr = text.contains('с');
            assert_eq!(cyr, v["lang"] == "ru", "{line}");
            let words = edits::word_count(text);
            assert!(words <= 600, "{words}");
        }
    }

    #[test]
    fn base_documents_rarely_overlap_by_chance() {
        // The toy pool has 9,000 words per language; 400 documents of 50–400 words reuse it
        // several times over, as real corpora reuse the real pool.
        let opts = CorpusOptions { docs: 400, min_words: 50, max_words: 400, ..Default::default() };
        let (a, planted, _) = run(&opts);
        let shingler = Shingler::new(ShingleKind::Words(5), 0);
        let mut offsets = vec![0];
        let mut hashes = Vec::new();
        for line in a.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            hashes.extend(shingler.shingle_set(v["text"].as_str().unwrap()));
            offsets.push(hashes.len());
        }
        let sets = crate::allpairs::TokenSets::from_hash_sets(offsets, hashes);
        let similar = crate::allpairs::all_pairs(&sets, 0.5);
        // Documents related through planted pairs (parents, siblings, chains) are expected to be
        // similar; count the pairs that are not.
        let mut uf = crate::score::UnionFind::default();
        uf.grow(400);
        for l in planted.lines().skip(1) {
            let f: Vec<&str> = l.split('\t').collect();
            uf.union(f[0][1..].parse().unwrap(), f[1][1..].parse().unwrap());
        }
        let accidental = similar.iter().filter(|p| uf.find(p.a) != uf.find(p.b)).count();
        assert!(similar.len() > 50, "{}", similar.len());
        assert!(accidental <= 2, "{accidental} accidental pairs");
    }

    #[test]
    fn long_paragraphs_are_cut_at_sentence_ends() {
        let p = "One two three four. Five six seven eight nine. Ten eleven twelve.";
        assert_eq!(cut_words(p, 10), ("One two three four. Five six seven eight nine.", 9));
        assert_eq!(cut_words(p, 3), ("One two three", 3));
        assert_eq!(cut_words(p, 0), ("", 0));
    }

    #[test]
    fn ids_widen_past_a_million() {
        assert_eq!(doc_id(7, 100), "d000007");
        assert_eq!(doc_id(7, 10_000_000), "d0000007");
    }
}
