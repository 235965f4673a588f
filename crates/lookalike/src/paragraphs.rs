//! Paragraph-level dedup: contract: "give me documents in collection order, I tell you which of
//! their paragraphs appeared before, in an earlier document or earlier in the same one; cut
//! those out and every paragraph is left once, where it first appeared".
//!
//! Corpus builders remove repeated paragraphs rather than whole documents: cookie notices, share
//! buttons, "all rights reserved", quoted passages (CCNet, Wenzek et al. 2020: "we remove all
//! the paragraphs that appear earlier in the collection"; Dolma does the same with a Bloom
//! filter). Near-duplicate documents are another matter ([`crate::Dedup`]).
//!
//! **Paragraphs.** A paragraph is one line of a document's text (split on `\n`; a `\r` before
//! the `\n` belongs to the line ending), identified by [`BlockHasher::key`]: the 128-bit xxh3 of
//! the line normalized as the shingler normalizes (case, punctuation and whitespace folded), so
//! `Share this page!` and `share   this page` are one paragraph. Lines without a token (blank,
//! punctuation only) are never removed, and neither are lines shorter than
//! [`ParagraphConfig::min_chars`] characters (counted on the line trimmed of white space): those
//! are not paragraphs, neither removed nor remembered.
//!
//! **The rule.** Documents are taken in collection order; a paragraph whose key was seen before
//! is removed, the first occurrence is kept. A paragraph repeated inside one document keeps its
//! first copy only, as CCNet does. The decisions are made one document after the other on one
//! thread ([`ParagraphDedup::add`]); hashing, the costly part, is a pure function of the text
//! ([`ParagraphHasher`]) that callers run in parallel ([`ParagraphDedup::add_batch`] does it with
//! rayon), so the output does not depend on the thread count.
//!
//! **What is removed.** A removed paragraph's span ([`Removed`]) is the line with its line
//! ending (`\n` or `\r\n`), byte offsets into the text; the kept text is the text with those
//! spans cut out ([`DocOutcome::kept_text`]): kept lines are left byte for byte as they were.
//! When the last line of a text, which has no line ending, is removed, the line ending before it
//! stays.
//!
//! **Exact or Bloom.** The exact mode keeps every distinct key with the number of the document
//! that first had it (24 bytes per distinct paragraph in a hash table, about 40 with its
//! overhead), so a removal says where the paragraph was first seen. The Bloom mode
//! ([`BloomConfig`], for collections whose keys do not fit in memory) keeps a [`BloomFilter`] of
//! a fixed size instead: no false negatives, so it removes every paragraph the exact mode
//! removes, but a false positive removes a paragraph that was not seen before (a unique
//! paragraph is lost), with probability p ≈ (1 − e^(−kn/m))^k after n distinct paragraphs in m
//! bits with k bit positions each ([`BloomFilter::false_positive_rate`]); it cannot say where a
//! paragraph was first seen.
//!
//! ```
//! use lookalike::paragraphs::{ParagraphConfig, ParagraphDedup};
//!
//! let mut dedup = ParagraphDedup::new(&ParagraphConfig::default())?;
//! let texts = [
//!     "Rust 1.0 is out.\nShare this page!\n",
//!     "A new release of Cargo.\nshare   THIS page\nThe end.",
//! ];
//! let outcomes = dedup.add_batch(&texts);
//! assert!(outcomes[0].removed.is_empty());
//! assert_eq!(outcomes[1].kept_text(texts[1]), "A new release of Cargo.\nThe end.");
//! assert_eq!((outcomes[1].removed[0].start, outcomes[1].removed[0].end), (24, 42));
//! assert_eq!(outcomes[1].removed[0].first_seen, Some(0));
//! # Ok::<(), lookalike::Error>(())
//! ```

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

use crate::boilerplate::KeyHasher;

use rayon::prelude::*;

use crate::boilerplate::BlockHasher;

/// How paragraphs are found and remembered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ParagraphConfig {
    /// Lines shorter than this many characters (trimmed of white space) are not paragraphs:
    /// never removed, never remembered. 0 (the default, CCNet's rule): every line with a token.
    pub min_chars: usize,
    /// Remember paragraphs in a Bloom filter of this size instead of exactly.
    pub bloom: Option<BloomConfig>,
}

/// The Bloom filter of the approximate mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct BloomConfig {
    /// Its size in bytes (rounded up to a multiple of 8, at least 8).
    pub bytes: usize,
    /// The number of distinct paragraphs expected, which chooses the number of bit positions
    /// per paragraph, k = round(m/n · ln 2); `None`: k = [`BloomFilter::DEFAULT_HASHES`].
    pub expected_items: Option<u64>,
}

impl BloomConfig {
    /// The number of bit positions per paragraph.
    pub fn hashes(&self) -> u32 {
        let bits = self.bytes.max(8).div_ceil(8) as f64 * 64.0;
        match self.expected_items {
            Some(n) if n > 0 => {
                ((bits / n as f64) * std::f64::consts::LN_2).round().clamp(1.0, 32.0) as u32
            }
            _ => BloomFilter::DEFAULT_HASHES,
        }
    }
}

/// One paragraph of a text: its line's span (with its line ending) and its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paragraph {
    /// Byte offset of the line's start.
    pub start: usize,
    /// Byte offset after the line's `\n` (the text's length for a last line without one).
    pub end: usize,
    /// [`BlockHasher::key`] of the line.
    pub key: u128,
}

/// Splits texts into paragraphs and hashes them: the parallel half of the work.
#[derive(Debug, Default)]
pub struct ParagraphHasher {
    min_chars: usize,
    hasher: BlockHasher,
}

impl ParagraphHasher {
    /// A hasher skipping lines shorter than `min_chars` characters (trimmed).
    pub fn new(min_chars: usize) -> Self {
        ParagraphHasher { min_chars, hasher: BlockHasher::default() }
    }

    /// The paragraphs of `text`, in text order.
    pub fn paragraphs(&mut self, text: &str) -> Vec<Paragraph> {
        let mut out = Vec::new();
        let mut start = 0;
        for line in text.split_inclusive('\n') {
            let end = start + line.len();
            let content =
                line.strip_suffix('\n').map_or(line, |l| l.strip_suffix('\r').unwrap_or(l));
            let long_enough =
                self.min_chars == 0 || content.trim().chars().nth(self.min_chars - 1).is_some();
            if long_enough && let Some(key) = self.hasher.key(content) {
                out.push(Paragraph { start, end, key });
            }
            start = end;
        }
        out
    }
}

/// A removed paragraph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Removed {
    /// Byte offset of the line's start in the text.
    pub start: usize,
    /// Byte offset after its line ending.
    pub end: usize,
    /// The number of the document where the paragraph was first seen (in the order documents
    /// were added, from 0; the document itself for a paragraph repeated within it); `None` in
    /// the Bloom mode.
    pub first_seen: Option<u64>,
}

/// What becomes of one document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocOutcome {
    /// Its paragraphs (lines with a token and at least `min_chars` characters).
    pub paragraphs: usize,
    /// The paragraphs removed, in text order.
    pub removed: Vec<Removed>,
}

impl DocOutcome {
    /// `text` without the removed paragraphs (borrowed when nothing is removed).
    pub fn kept_text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if self.removed.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len() - self.removed_bytes());
        let mut at = 0;
        for r in &self.removed {
            out.push_str(&text[at..r.start]);
            at = r.end;
        }
        out.push_str(&text[at..]);
        Cow::Owned(out)
    }

    /// Bytes removed.
    pub fn removed_bytes(&self) -> usize {
        self.removed.iter().map(|r| r.end - r.start).sum()
    }
}

/// Counts of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct ParagraphStats {
    /// Documents added.
    pub documents: u64,
    /// Bytes of their texts.
    pub bytes: u64,
    /// Paragraphs seen.
    pub paragraphs: u64,
    /// Paragraphs removed.
    pub removed: u64,
    /// Bytes removed (lines with their line endings).
    pub removed_bytes: u64,
    /// Documents that lost at least one paragraph.
    pub documents_changed: u64,
    /// Distinct paragraphs remembered (in the Bloom mode: inserted into the filter).
    pub distinct: u64,
}

/// Paragraph-level dedup over a collection, one document after the other (see the module's
/// documentation).
#[derive(Debug)]
pub struct ParagraphDedup {
    config: ParagraphConfig,
    seen: Seen,
    stats: ParagraphStats,
}

#[derive(Debug)]
enum Seen {
    /// Every distinct key, with the number of the document that first had it.
    // The boilerplate module's hasher: a [`Key`]'s low half is its hash.
    Exact(HashMap<Key, u64, BuildHasherDefault<KeyHasher>>),
    Bloom(BloomFilter),
}

impl ParagraphDedup {
    /// A dedup with nothing seen yet. Fails only when the Bloom filter cannot be allocated.
    pub fn new(config: &ParagraphConfig) -> Result<Self, crate::Error> {
        let seen = match config.bloom {
            None => Seen::Exact(HashMap::default()),
            Some(b) => Seen::Bloom(BloomFilter::new(b.bytes, b.hashes())?),
        };
        Ok(ParagraphDedup { config: *config, seen, stats: ParagraphStats::default() })
    }

    /// Its settings.
    pub fn config(&self) -> &ParagraphConfig {
        &self.config
    }

    /// A hasher with this dedup's `min_chars`, for [`ParagraphDedup::add`].
    pub fn hasher(&self) -> ParagraphHasher {
        ParagraphHasher::new(self.config.min_chars)
    }

    /// The next document, given by its text's length and its paragraphs (from
    /// [`ParagraphHasher::paragraphs`] with this dedup's `min_chars`): which to remove. The
    /// document's number (for [`Removed::first_seen`]) is the number of documents added before.
    pub fn add(&mut self, text_len: usize, paragraphs: &[Paragraph]) -> DocOutcome {
        let doc = self.stats.documents;
        let mut removed = Vec::new();
        for p in paragraphs {
            let first_seen = match &mut self.seen {
                Seen::Exact(map) => match map.entry(Key::from(p.key)) {
                    std::collections::hash_map::Entry::Occupied(e) => Some(Some(*e.get())),
                    std::collections::hash_map::Entry::Vacant(e) => {
                        e.insert(doc);
                        None
                    }
                },
                Seen::Bloom(filter) => filter.check_and_set(p.key).then_some(None),
            };
            match first_seen {
                Some(first_seen) => {
                    removed.push(Removed { start: p.start, end: p.end, first_seen })
                }
                None => self.stats.distinct += 1,
            }
        }
        let outcome = DocOutcome { paragraphs: paragraphs.len(), removed };
        let st = &mut self.stats;
        st.documents += 1;
        st.bytes += text_len as u64;
        st.paragraphs += paragraphs.len() as u64;
        st.removed += outcome.removed.len() as u64;
        st.removed_bytes += outcome.removed_bytes() as u64;
        st.documents_changed += u64::from(!outcome.removed.is_empty());
        outcome
    }

    /// The next documents, in order: their paragraphs hashed in parallel (rayon), then decided
    /// one after the other.
    pub fn add_batch<S: AsRef<str> + Sync>(&mut self, texts: &[S]) -> Vec<DocOutcome> {
        let min_chars = self.config.min_chars;
        let paragraphs: Vec<Vec<Paragraph>> = texts
            .par_iter()
            .map_init(|| ParagraphHasher::new(min_chars), |h, t| h.paragraphs(t.as_ref()))
            .collect();
        texts.iter().zip(&paragraphs).map(|(t, p)| self.add(t.as_ref().len(), p)).collect()
    }

    /// The counts so far.
    pub fn stats(&self) -> ParagraphStats {
        self.stats
    }

    /// The Bloom filter, in the Bloom mode.
    pub fn bloom(&self) -> Option<&BloomFilter> {
        match &self.seen {
            Seen::Bloom(f) => Some(f),
            Seen::Exact(_) => None,
        }
    }
}

/// A key in the exact set: the two halves of the 128-bit key (8-byte aligned, where `u128` is
/// 16-byte aligned: 24 bytes per entry with its document number instead of 32).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Key(u64, u64);

impl From<u128> for Key {
    fn from(k: u128) -> Key {
        Key(k as u64, (k >> 64) as u64)
    }
}

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // The key is a hash already: its low half is the table's hash.
        state.write_u64(self.0);
    }
}

/// A Bloom filter of 128-bit keys: m bits, k positions per key by double hashing of the key's
/// two halves (Kirsch & Mitzenmacher 2006: position i is h1 + i·h2, mapped onto the m bits).
///
/// Written here rather than taken from a crate: the keys are hashes already, so the positions
/// come from them without hashing again, and the false-positive rate is the classical one
/// (blocked filters, faster, have a higher rate than the formula says).
///
/// ```
/// use lookalike::paragraphs::BloomFilter;
///
/// let mut f = BloomFilter::new(1 << 10, 7)?;
/// assert!(!f.check_and_set(42));
/// assert!(f.check_and_set(42));
/// assert_eq!(f.items(), 1);
/// assert!(f.false_positive_rate() < 1e-12);
/// # Ok::<(), lookalike::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct BloomFilter {
    words: Vec<u64>,
    hashes: u32,
    items: u64,
}

impl BloomFilter {
    /// The number of positions per key when the expected number of keys is not given: optimal
    /// at about 10 bits per key (false-positive rate 0.8% at that load).
    pub const DEFAULT_HASHES: u32 = 7;

    /// An empty filter of `bytes` bytes (rounded up to a multiple of 8, at least 8) and `hashes`
    /// positions per key (at least 1). Fails when the memory cannot be had.
    pub fn new(bytes: usize, hashes: u32) -> Result<Self, crate::Error> {
        let n = bytes.max(8).div_ceil(8);
        let mut words = Vec::new();
        words.try_reserve_exact(n).map_err(|_| {
            std::io::Error::new(
                std::io::ErrorKind::OutOfMemory,
                format!("cannot allocate a Bloom filter of {} bytes", n * 8),
            )
        })?;
        words.resize(n, 0);
        Ok(BloomFilter { words, hashes: hashes.max(1), items: 0 })
    }

    /// The size in bits (m).
    pub fn bits(&self) -> u64 {
        self.words.len() as u64 * 64
    }

    /// The number of positions per key (k).
    pub fn hashes(&self) -> u32 {
        self.hashes
    }

    /// Keys inserted (n): those [`BloomFilter::check_and_set`] did not find.
    pub fn items(&self) -> u64 {
        self.items
    }

    /// Whether `key` is (probably) in the filter; inserts it when it is not.
    pub fn check_and_set(&mut self, key: u128) -> bool {
        let mut found = true;
        for (word, mask) in self.positions(key) {
            found &= self.words[word] & mask != 0;
            self.words[word] |= mask;
        }
        self.items += u64::from(!found);
        found
    }

    /// Whether `key` is (probably) in the filter.
    pub fn contains(&self, key: u128) -> bool {
        self.positions(key).all(|(word, mask)| self.words[word] & mask != 0)
    }

    /// The k bits of `key`: (word, mask) pairs.
    fn positions(&self, key: u128) -> impl Iterator<Item = (usize, u64)> + use<> {
        let m = u128::from(self.bits());
        let (h, step) = (key as u64, ((key >> 64) as u64) | 1);
        (0..u64::from(self.hashes)).map(move |i| {
            // Lemire's multiply-shift maps the position onto 0..m without a division.
            let bit = ((u128::from(h.wrapping_add(i.wrapping_mul(step))) * m) >> 64) as usize;
            (bit / 64, 1u64 << (bit % 64))
        })
    }

    /// The probability that a key never inserted is found: p ≈ (1 − e^(−kn/m))^k with the
    /// filter's m bits, k positions and n keys inserted so far.
    pub fn false_positive_rate(&self) -> f64 {
        let (k, n, m) = (f64::from(self.hashes), self.items as f64, self.bits() as f64);
        (1.0 - (-k * n / m).exp()).powf(k)
    }

    /// The share of bits set.
    pub fn fill(&self) -> f64 {
        let ones: u64 = self.words.iter().map(|w| u64::from(w.count_ones())).sum();
        ones as f64 / self.bits() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::normalize::normalize;

    /// splitmix64: the tests' seeded random numbers.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) % n
        }
    }

    /// A collection of `docs` texts made of lines from a small vocabulary, so that repeats are
    /// common, each written in one of several variants that normalize alike (case, punctuation,
    /// spacing), with blank, punctuation-only and short lines, `\r\n` endings and texts with or
    /// without a last line ending.
    fn collection(seed: u64, docs: usize) -> Vec<String> {
        let mut rng = Rng(seed);
        let vocabulary: Vec<String> = (0..40)
            .map(|i| match i % 4 {
                0 => format!("paragraph {i} about the weather in the north"),
                1 => format!("Share item {i}"),
                2 => format!("ok {i}"),
                _ => format!("Каждый абзац {i} — это строка текста."),
            })
            .collect();
        (0..docs)
            .map(|_| {
                let mut text = String::new();
                let lines = rng.below(12);
                for _ in 0..lines {
                    let line = match rng.below(10) {
                        0 => String::new(),
                        1 => " -- | -- ".to_owned(),
                        2 => format!("unique {}", rng.below(1 << 40)),
                        _ => {
                            let base = &vocabulary[rng.below(vocabulary.len() as u64) as usize];
                            match rng.below(5) {
                                0 => base.to_uppercase(),
                                1 => format!("  {base}!  "),
                                2 => base.replace(' ', "   "),
                                3 => format!("«{base}»"),
                                _ => base.clone(),
                            }
                        }
                    };
                    text.push_str(&line);
                    text.push_str(if rng.below(4) == 0 { "\r\n" } else { "\n" });
                }
                if rng.below(2) == 0 && text.ends_with('\n') {
                    text.pop();
                    if text.ends_with('\r') {
                        text.pop();
                    }
                }
                text
            })
            .collect()
    }

    /// The slow reference: every normalized line seen so far, in a list, with its document.
    fn brute_force(texts: &[String], min_chars: usize) -> Vec<DocOutcome> {
        let mut seen: Vec<(String, u64)> = Vec::new();
        let mut out = Vec::new();
        for (doc, text) in texts.iter().enumerate() {
            let mut outcome = DocOutcome::default();
            let mut start = 0;
            for line in text.split_inclusive('\n') {
                let end = start + line.len();
                let content = line.trim_end_matches('\n').trim_end_matches('\r');
                let norm = normalize(content).text;
                if !norm.is_empty() && content.trim().chars().count() >= min_chars {
                    outcome.paragraphs += 1;
                    match seen.iter().find(|(s, _)| *s == norm) {
                        Some(&(_, first)) => {
                            outcome.removed.push(Removed { start, end, first_seen: Some(first) })
                        }
                        None => seen.push((norm, doc as u64)),
                    }
                }
                start = end;
            }
            out.push(outcome);
        }
        out
    }

    fn run(texts: &[String], config: &ParagraphConfig) -> Vec<DocOutcome> {
        let mut dedup = ParagraphDedup::new(config).unwrap();
        // In uneven batches: the batches must not matter.
        let mut out = Vec::new();
        for chunk in texts.chunks(37) {
            out.extend(dedup.add_batch(chunk));
        }
        out
    }

    fn normalized(line: &str) -> String {
        normalize(line.trim_end_matches('\n').trim_end_matches('\r')).text
    }

    /// The normalized paragraphs of a text's kept lines.
    fn kept_lines(text: &str, outcome: &DocOutcome, min_chars: usize) -> Vec<String> {
        let mut out = Vec::new();
        let mut start = 0;
        for line in text.split_inclusive('\n') {
            let removed = outcome.removed.iter().any(|r| r.start == start);
            let content = line.trim_end_matches('\n').trim_end_matches('\r');
            let norm = normalized(line);
            if !removed && !norm.is_empty() && content.trim().chars().count() >= min_chars {
                out.push(norm);
            }
            start += line.len();
        }
        out
    }

    #[test]
    fn exact_mode_equals_a_brute_force_reference_on_random_collections() {
        for seed in 0..6 {
            for min_chars in [0, 8, 20] {
                let texts = collection(seed, 400);
                let config = ParagraphConfig { min_chars, bloom: None };
                let ours = run(&texts, &config);
                let reference = brute_force(&texts, min_chars);
                assert_eq!(ours, reference, "seed {seed}, min_chars {min_chars}");
                assert!(ours.iter().map(|o| o.removed.len()).sum::<usize>() > 100, "few repeats");

                // Every kept paragraph is distinct from all earlier kept ones, and every
                // paragraph seen somewhere is kept once (no first occurrence removed).
                let mut kept: std::collections::HashSet<String> = Default::default();
                for (text, outcome) in texts.iter().zip(&ours) {
                    for p in kept_lines(text, outcome, min_chars) {
                        assert!(kept.insert(p.clone()), "seed {seed}: {p:?} kept twice");
                    }
                    for r in &outcome.removed {
                        let p = normalized(&text[r.start..r.end]);
                        assert!(kept.contains(&p), "seed {seed}: {p:?} removed before kept");
                    }
                }
                let all: std::collections::HashSet<String> = texts
                    .iter()
                    .flat_map(|t| t.split_inclusive('\n'))
                    .filter(|l| l.trim().chars().count() >= min_chars)
                    .map(normalized)
                    .filter(|n| !n.is_empty())
                    .collect();
                assert_eq!(kept, all, "seed {seed}: every paragraph kept exactly once");
            }
        }
    }

    #[test]
    fn kept_text_cuts_the_removed_lines_with_their_endings() {
        let texts = ["a b\r\nc d\n", "x\r\nA  B!\r\nc d", "c d\n\nz"];
        let config = ParagraphConfig::default();
        let out = ParagraphDedup::new(&config).unwrap().add_batch(&texts);
        assert_eq!(out[0].kept_text(texts[0]), texts[0]);
        assert_eq!(out[1].kept_text(texts[1]), "x\r\n");
        assert_eq!(out[1].removed_bytes(), texts[1].len() - 3);
        assert_eq!(out[2].kept_text(texts[2]), "\nz");
        assert_eq!(out[2].removed, [Removed { start: 0, end: 4, first_seen: Some(0) }]);
    }

    #[test]
    fn a_paragraph_repeated_within_a_document_keeps_its_first_copy() {
        let mut d = ParagraphDedup::new(&ParagraphConfig::default()).unwrap();
        let out = d.add_batch(&["one\ntwo\nONE.\ntwo\n"]);
        assert_eq!(out[0].kept_text("one\ntwo\nONE.\ntwo\n"), "one\ntwo\n");
        assert!(out[0].removed.iter().all(|r| r.first_seen == Some(0)));
        let st = d.stats();
        assert_eq!((st.documents, st.paragraphs, st.removed, st.distinct), (1, 4, 2, 2));
    }

    #[test]
    fn short_lines_are_never_removed_nor_remembered() {
        let config = ParagraphConfig { min_chars: 6, bloom: None };
        let mut d = ParagraphDedup::new(&config).unwrap();
        let texts = ["Home\nlong line here\n", "Home\n  long line here  \n", "  Home  \n"];
        let out = d.add_batch(&texts);
        assert_eq!(out[1].kept_text(texts[1]), "Home\n");
        assert_eq!(out[2].removed, []);
        assert_eq!(out.iter().map(|o| o.paragraphs).collect::<Vec<_>>(), [1, 1, 0]);
    }

    #[test]
    fn a_big_bloom_filter_equals_the_exact_mode() {
        for seed in 10..14 {
            let texts = collection(seed, 500);
            let exact = run(&texts, &ParagraphConfig::default());
            let bloom = ParagraphConfig {
                min_chars: 0,
                bloom: Some(BloomConfig { bytes: 1 << 20, expected_items: Some(500) }),
            };
            let approx = run(&texts, &bloom);
            for (e, a) in exact.iter().zip(&approx) {
                let spans = |o: &DocOutcome| -> Vec<(usize, usize)> {
                    o.removed.iter().map(|r| (r.start, r.end)).collect()
                };
                assert_eq!(spans(e), spans(a), "seed {seed}");
                assert!(a.removed.iter().all(|r| r.first_seen.is_none()));
            }
        }
    }

    #[test]
    fn a_tiny_bloom_filter_removes_every_repeat_and_more() {
        let texts = collection(20, 500);
        let exact = run(&texts, &ParagraphConfig::default());
        let config = ParagraphConfig {
            min_chars: 0,
            bloom: Some(BloomConfig { bytes: 64, expected_items: None }),
        };
        let mut dedup = ParagraphDedup::new(&config).unwrap();
        let approx: Vec<DocOutcome> = texts.chunks(50).flat_map(|c| dedup.add_batch(c)).collect();
        let (mut more, mut total) = (0, 0);
        for (e, a) in exact.iter().zip(&approx) {
            for r in &e.removed {
                assert!(a.removed.iter().any(|x| x.start == r.start), "a repeat was kept");
            }
            more += a.removed.len() - e.removed.len();
            total += a.paragraphs;
        }
        assert!(more > 0, "512 bits for hundreds of paragraphs must give false positives");
        assert!(more < total);
        let f = dedup.bloom().unwrap();
        assert_eq!(f.items(), dedup.stats().distinct);
        assert!(f.false_positive_rate() > 0.01, "{}", f.false_positive_rate());
    }

    #[test]
    fn the_false_positive_rate_matches_the_formula() {
        // 10 bits per key, k = 7: p ≈ 0.0082. Measured over keys never inserted.
        let n = 20_000u64;
        let mut f = BloomFilter::new((n * 10 / 8) as usize, 7).unwrap();
        let key = |i: u64| xxhash_rust::xxh3::xxh3_128(&i.to_le_bytes());
        for i in 0..n {
            f.check_and_set(key(i));
        }
        let trials = 200_000u64;
        let hits = (n..n + trials).filter(|&i| f.contains(key(i))).count();
        let observed = hits as f64 / trials as f64;
        let expected = f.false_positive_rate();
        assert!((expected - 0.0082).abs() < 0.001, "{expected}");
        assert!((observed - expected).abs() < 0.25 * expected, "{observed} vs {expected}");
    }

    #[test]
    fn hashes_are_chosen_from_the_expected_items() {
        let c = |bytes, n| BloomConfig { bytes, expected_items: n };
        assert_eq!(c(1000, Some(800)).hashes(), 7);
        assert_eq!(c(1000, Some(8000)).hashes(), 1);
        assert_eq!(c(1000, None).hashes(), BloomFilter::DEFAULT_HASHES);
        assert_eq!(c(1 << 30, Some(1)).hashes(), 32);
    }
}
