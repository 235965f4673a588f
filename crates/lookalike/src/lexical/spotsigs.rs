//! SpotSigs: spot signatures and exact weighted-Jaccard all-pairs over them. Contract: "give me a
//! document's tokens, I give you its multiset of spot signatures; give me every document's spots
//! and a threshold τ, I give you exactly the pairs whose weighted Jaccard is at least τ, without
//! comparing all pairs".
//!
//! **Spots** (Theobald, Siddharth & Paepcke, *SpotSigs: Robust and Efficient Near Duplicate
//! Detection in Large Web Collections*, SIGIR 2008). A spot is an *antecedent* — one of a small
//! set of very frequent function words — followed by a *chain* of `c` words taken from the
//! non-stopwords after it, every `d`-th one (`d` is the paper's *spot distance*; with `d = 1` the
//! chain is simply the next `c` non-stopwords). Stopwords (the language's list from
//! [`crate::text::lang::stopwords`]) and antecedents are skipped when the chain is built, so the chain
//! is made of content words; the antecedent itself is kept in the spot. The paper's running
//! example, antecedents {a, an, the, is}, `d = 1`, `c = 2`, turns "At a rally to kick off a
//! weeklong campaign for the South Carolina primary …" into `a:rally:kick`,
//! `a:weeklong:campaign`, `the:south:carolina`, … (a unit test checks this sentence). Each spot
//! is hashed with seeded xxh3 over the string `antecedent:w1:…:wc`; a document is the
//! **multiset** of its spot hashes ([`SpotSet`]). Near the end of a document a chain may be
//! shorter than `c`; such a spot is kept with the words found (as the public Java
//! implementation of SpotSigs does), and an antecedent with no content word after it gives no
//! spot.
//!
//! That Java implementation also hashes the chain without its antecedent by default, drops spots
//! whose IDF is outside a band, and skips documents with fewer than 4 spots. Here the antecedent
//! is part of the spot, as in the paper's notation `a:rally:kick`; the other two are
//! collection-level choices left to the caller (a document with few or no spots is "too short
//! for the method" in the pipeline's terms).
//!
//! Spots sit where the body text of a page is (function words are rare in navigation, menus and
//! ads), which is why the paper finds them robust to boilerplate.
//!
//! **Antecedents** ([`AntecedentSet::for_language`]). The paper uses a few of the most frequent
//! English stopwords — articles and auxiliary verbs. The default English set is the worked
//! example's {a, an, the, is} plus three more very frequent words that precede content words in
//! news text: was, said, there. For other languages the comparable small set of the most
//! frequent function words that precede content words was chosen by hand (articles, the copula
//! and "said"; prepositions where the language has no articles), each a member of the language's
//! stopword list (Ukrainian's short list lacks some; antecedents are skipped in chains anyway):
//!
//! | code | antecedents | chain |
//! |---|---|---|
//! | en | the a an is was said there | 2 |
//! | ru | в на с по что это был была было были сказал | 2 |
//! | uk | в у на з що це був була було були сказав | 2 |
//! | de | der die das den dem des ein eine einen einem ist war sagte | 2 |
//! | fr | le la les un une des du est était a | 2 |
//! | es | el la los las un una es era fue dijo | 2 |
//! | it | il lo la i gli le un una è era ha | 2 |
//! | pt | o a os as um uma é era foi disse | 2 |
//! | pl | w na z do że jest był była było są | 2 |
//! | zh | 的 了 是 在 和 有 也 就 都 这 被 把 对 说 | 4 |
//! | ja | の は が を に で と も へ | 4 |
//!
//! Chinese and Japanese are tokenized one character per token ([`crate::text::normalize`]): the
//! antecedents are the most frequent function characters (the particle 的, aspect 了, copula 是,
//! prepositions 在 对 把 被, …; Japanese case particles の は が を に で と も へ), and the chain
//! is 4 characters, about the two words an English chain of 2 holds (a Chinese word averages
//! 1.5–2 characters). The stopword lists of both languages contain many single characters
//! (一, 上, 个; い, し, て, …), so the chain is made of content characters.
//!
//! **Defaults and their sources**: chain `c = 2` and distance `d = 1` are the paper's worked
//! example; [`DEFAULT_SEED`] is ours. Every value is a field of [`SpotConfig`].
//!
//! **Similarity**: weighted (multiset) Jaccard Σmin(cᴬ, cᴮ) / Σmax(cᴬ, cᴮ) over the spot counts
//! ([`weighted_jaccard`]); it is 0 for two empty documents.
//!
//! **All pairs** ([`SpotIndex`]): the paper's two devices, made exact.
//! 1. *Size partitions.* Since J(A, B) ≤ |B| / |A| for |B| ≤ |A| (|·| is the total multiset
//!    size), documents are sorted by size and cut into the paper's partitions: a partition
//!    starts at size s and takes every document up to the last size s' with s / s' ≥ τ. A
//!    document then only meets its own partition and the previous one, and within them only
//!    documents of size ≥ τ·|A| (found by binary search in the size-sorted posting lists).
//! 2. *Inverted index with early termination.* Every spot has a posting list of
//!    `(document, count)` in size order. A probing document A reads the lists of its spots in
//!    ascending document frequency and accumulates Σmin for the documents it meets. After
//!    reading spots of total count δ, a document not met yet shares none of them, so its
//!    Jaccard is at most (|A| − δ) / |A|: once that is below τ the remaining lists are skipped
//!    (the paper's δ-bound). A document met with partial overlap m is kept only if
//!    min(m + |A| − δ, |B|) can still reach τ; the survivors get their exact weighted Jaccard
//!    (from the accumulated Σmin when every list was read, else by merging the two sets).
//!
//! Each pair is found once, from its larger document (size, then index, breaks ties). Every
//! pruning bound is an upper bound computed with the same floating-point operations as the
//! reported similarity, so the result is exactly the brute-force result
//! ([`brute_force_pairs`]): pairs `(a, b, J)` with `a < b`, `J ≥ τ` and `J > 0` (documents that
//! share no spot are never a pair, whatever τ), sorted. Probing documents run in parallel
//! (rayon); the output does not depend on the thread count.
//!
//! ```
//! use lookalike::text::normalize::normalize;
//! use lookalike::lexical::spotsigs::{SpotExtractor, SpotIndex};
//!
//! let ex = SpotExtractor::for_language("en").unwrap();
//! let docs: Vec<_> = [
//!     "The cat sat on the mat and the dog was asleep by the door of the old house there.",
//!     "The cat sat on the mat and the dog was asleep by the door of the new house there.",
//!     "A quite different text about the weather, which was cold in the north of the country.",
//! ]
//! .iter()
//! .map(|t| ex.spots_normalized(&normalize(t)))
//! .collect();
//! let index = SpotIndex::build(&docs);
//! let pairs = index.all_pairs(0.5);
//! assert_eq!(pairs.len(), 1);
//! assert_eq!((pairs[0].0, pairs[0].1), (0, 1));
//! ```

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::text::lang::{self, Stopwords};
use crate::text::normalize::{NormalizedText, normalize};

/// Default chain length `c`: the paper's worked example.
pub const DEFAULT_CHAIN: usize = 2;

/// Default chain length for Chinese and Japanese, whose tokens are single characters.
pub const DEFAULT_CJK_CHAIN: usize = 4;

/// Default spot distance `d`: the paper's worked example (the chain is the next `c`
/// non-stopwords).
pub const DEFAULT_DISTANCE: usize = 1;

/// Default seed of the spot hash.
pub const DEFAULT_SEED: u64 = 0x5907_5163_0000_0001;

/// Built-in antecedent sets by language code (see the module docs for the choice).
const DEFAULT_ANTECEDENTS: &[(&str, &[&str])] = &[
    ("en", &["the", "a", "an", "is", "was", "said", "there"]),
    ("ru", &["в", "на", "с", "по", "что", "это", "был", "была", "было", "были", "сказал"]),
    ("uk", &["в", "у", "на", "з", "що", "це", "був", "була", "було", "були", "сказав"]),
    (
        "de",
        &[
            "der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "ist",
            "war", "sagte",
        ],
    ),
    ("fr", &["le", "la", "les", "un", "une", "des", "du", "est", "était", "a"]),
    ("es", &["el", "la", "los", "las", "un", "una", "es", "era", "fue", "dijo"]),
    ("it", &["il", "lo", "la", "i", "gli", "le", "un", "una", "è", "era", "ha"]),
    ("pt", &["o", "a", "os", "as", "um", "uma", "é", "era", "foi", "disse"]),
    ("pl", &["w", "na", "z", "do", "że", "jest", "był", "była", "było", "są"]),
    ("zh", &["的", "了", "是", "在", "和", "有", "也", "就", "都", "这", "被", "把", "对", "说"]),
    ("ja", &["の", "は", "が", "を", "に", "で", "と", "も", "へ"]),
];

/// The languages with a built-in antecedent set.
pub fn antecedent_languages() -> impl Iterator<Item = &'static str> {
    DEFAULT_ANTECEDENTS.iter().map(|&(code, _)| code)
}

/// A set of antecedent words, stored normalized (as [`crate::text::normalize`] writes tokens) so that
/// they compare equal to document tokens.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AntecedentSet {
    /// Sorted, without duplicates.
    words: Vec<String>,
}

impl AntecedentSet {
    /// A set of the given words. Each is normalized; a word that normalizes to anything but one
    /// token (empty, punctuation, a phrase) is ignored, since it could never match a token.
    pub fn new<I, S>(words: I) -> AntecedentSet
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut out: Vec<String> = words
            .into_iter()
            .filter_map(|w| {
                let n = normalize(w.as_ref());
                (n.len() == 1).then_some(n.text)
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        AntecedentSet { words: out }
    }

    /// The built-in set for a language code (see the module docs); `None` for other languages.
    pub fn for_language(code: &str) -> Option<AntecedentSet> {
        DEFAULT_ANTECEDENTS
            .iter()
            .find(|&&(c, _)| c == code)
            .map(|&(_, words)| AntecedentSet::new(words.iter().copied()))
    }

    /// The words, normalized and sorted.
    pub fn words(&self) -> &[String] {
        &self.words
    }

    /// Whether a normalized token is an antecedent.
    pub fn contains(&self, token: &str) -> bool {
        // Sets are small: a linear scan compares lengths first and rarely calls memcmp.
        if self.words.len() <= 32 {
            self.words.iter().any(|w| w == token)
        } else {
            self.words.binary_search_by(|w| w.as_str().cmp(token)).is_ok()
        }
    }

    /// Number of antecedents.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// True when there is no antecedent (no document then has a spot).
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
}

/// How spots are extracted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpotConfig {
    /// The words that start a spot.
    pub antecedents: AntecedentSet,
    /// Chain length `c`: content words per spot (0 is treated as 1).
    pub chain: usize,
    /// Spot distance `d`: the chain takes every `d`-th content word after the antecedent
    /// (0 is treated as 1).
    pub distance: usize,
}

impl SpotConfig {
    /// The built-in configuration of a language (antecedents, chain length; distance 1); `None`
    /// when the language has no built-in antecedent set.
    pub fn for_language(code: &str) -> Option<SpotConfig> {
        let antecedents = AntecedentSet::for_language(code)?;
        let chain = if matches!(code, "zh" | "ja") { DEFAULT_CJK_CHAIN } else { DEFAULT_CHAIN };
        Some(SpotConfig { antecedents, chain, distance: DEFAULT_DISTANCE })
    }
}

impl Default for SpotConfig {
    /// The English configuration.
    fn default() -> SpotConfig {
        SpotConfig::for_language("en").unwrap_or(SpotConfig {
            antecedents: AntecedentSet::default(),
            chain: DEFAULT_CHAIN,
            distance: DEFAULT_DISTANCE,
        })
    }
}

/// A document's spots: a multiset of spot hashes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpotSet {
    /// `(hash, count)` sorted by hash, one entry per distinct spot, counts ≥ 1.
    spots: Vec<(u64, u32)>,
    /// Total count (multiset size).
    len: u64,
}

impl SpotSet {
    /// The multiset of the given hashes (in any order, with repeats).
    pub fn from_hashes(mut hashes: Vec<u64>) -> SpotSet {
        hashes.sort_unstable();
        let spots: Vec<(u64, u32)> = hashes
            .chunk_by(|a, b| a == b)
            .map(|run| (run[0], u32::try_from(run.len()).unwrap_or(u32::MAX)))
            .collect();
        let len = spots.iter().map(|&(_, c)| u64::from(c)).sum();
        SpotSet { spots, len }
    }

    /// The multiset of the given `(hash, count)` pairs, in any order; counts of a repeated hash
    /// are added (saturating), zero counts dropped.
    pub fn from_counts<I: IntoIterator<Item = (u64, u32)>>(pairs: I) -> SpotSet {
        let mut v: Vec<(u64, u32)> = pairs.into_iter().filter(|&(_, c)| c > 0).collect();
        v.sort_unstable();
        let mut spots: Vec<(u64, u32)> = Vec::with_capacity(v.len());
        for (h, c) in v {
            match spots.last_mut() {
                Some(last) if last.0 == h => last.1 = last.1.saturating_add(c),
                _ => spots.push((h, c)),
            }
        }
        let len = spots.iter().map(|&(_, c)| u64::from(c)).sum();
        SpotSet { spots, len }
    }

    /// `(hash, count)` sorted by hash.
    pub fn spots(&self) -> &[(u64, u32)] {
        &self.spots
    }

    /// Multiset size: the total count of all spots.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Number of distinct spots.
    pub fn distinct(&self) -> usize {
        self.spots.len()
    }

    /// True when the document has no spot.
    pub fn is_empty(&self) -> bool {
        self.spots.is_empty()
    }
}

/// Σmin and Σmax of two multisets' counts, by merging their sorted entries.
fn min_max_sums(a: &SpotSet, b: &SpotSet) -> (u64, u64) {
    let (x, y) = (&a.spots, &b.spots);
    let (mut i, mut j) = (0, 0);
    let (mut smin, mut smax) = (0u64, 0u64);
    while i < x.len() && j < y.len() {
        let (hx, cx) = x[i];
        let (hy, cy) = y[j];
        if hx == hy {
            smin += u64::from(cx.min(cy));
            smax += u64::from(cx.max(cy));
            i += 1;
            j += 1;
        } else if hx < hy {
            smax += u64::from(cx);
            i += 1;
        } else {
            smax += u64::from(cy);
            j += 1;
        }
    }
    smax += x[i..].iter().map(|&(_, c)| u64::from(c)).sum::<u64>();
    smax += y[j..].iter().map(|&(_, c)| u64::from(c)).sum::<u64>();
    (smin, smax)
}

/// The one division that turns Σmin and Σmax into a similarity (0 when both are empty). Every
/// code path computes similarities and bounds through it, so pruning bounds and reported values
/// are ordered exactly as the real numbers are.
fn ratio(smin: u64, smax: u64) -> f64 {
    if smax == 0 { 0.0 } else { smin as f64 / smax as f64 }
}

/// Weighted Jaccard of two multisets of `len_a` and `len_b` spots whose counts of shared spots
/// have `shared_min` = Σmin: Σmin / Σmax with Σmax = `len_a + len_b − shared_min`, the same
/// number as [`weighted_jaccard`] (for an engine that sums Σmin per pair itself).
pub fn weighted_jaccard_of_sums(shared_min: u64, len_a: u64, len_b: u64) -> f64 {
    ratio(shared_min, (len_a + len_b).saturating_sub(shared_min))
}

/// Weighted Jaccard Σmin / Σmax of two spot multisets; 0 when both are empty.
pub fn weighted_jaccard(a: &SpotSet, b: &SpotSet) -> f64 {
    let (smin, smax) = min_max_sums(a, b);
    ratio(smin, smax)
}

/// Every pair `(a, b, J)` with `a < b`, `J = weighted_jaccard ≥ tau` and `J > 0`, by comparing
/// all pairs: quadratic, the reference [`SpotIndex::all_pairs`] is tested (and benchmarked)
/// against.
pub fn brute_force_pairs(docs: &[SpotSet], tau: f64) -> Vec<(u32, u32, f64)> {
    let mut out = Vec::new();
    for (a, da) in docs.iter().enumerate() {
        for (b, db) in docs.iter().enumerate().skip(a + 1) {
            let s = weighted_jaccard(da, db);
            if s > 0.0 && s >= tau {
                out.push((a as u32, b as u32, s));
            }
        }
    }
    out
}

/// Extracts spots from token sequences.
#[derive(Debug, Clone)]
pub struct SpotExtractor {
    config: SpotConfig,
    stopwords: Option<&'static Stopwords>,
    seed: u64,
}

impl SpotExtractor {
    /// An extractor with the given configuration; `stopwords` are skipped when chains are built
    /// (antecedents are always skipped). Without a stopword list, chains are made of every token
    /// that is not an antecedent.
    pub fn new(config: SpotConfig, stopwords: Option<&'static Stopwords>) -> SpotExtractor {
        SpotExtractor { config, stopwords, seed: DEFAULT_SEED }
    }

    /// The same extractor with another seed of the spot hash (default [`DEFAULT_SEED`]).
    pub fn with_seed(mut self, seed: u64) -> SpotExtractor {
        self.seed = seed;
        self
    }

    /// The built-in configuration of a language with its stopword list from
    /// [`crate::text::lang::stopwords`]; `None` when the language has no built-in antecedent set.
    pub fn for_language(code: &str) -> Option<SpotExtractor> {
        Some(SpotExtractor::new(SpotConfig::for_language(code)?, lang::stopwords(code)))
    }

    /// The configuration.
    pub fn config(&self) -> &SpotConfig {
        &self.config
    }

    /// Calls `emit(antecedent position, chain positions)` for every spot, in document order.
    fn walk(&self, tokens: &[&str], mut emit: impl FnMut(usize, &[usize])) {
        let c = self.config.chain.max(1);
        let d = self.config.distance.max(1);
        let mut antecedent = Vec::with_capacity(tokens.len());
        // Positions of content tokens (neither antecedent nor stopword), in order.
        let mut content: Vec<usize> = Vec::with_capacity(tokens.len());
        for (i, t) in tokens.iter().enumerate() {
            let is_ante = self.config.antecedents.contains(t);
            antecedent.push(is_ante);
            if !is_ante && !self.stopwords.is_some_and(|s| s.contains(t)) {
                content.push(i);
            }
        }
        let mut next = 0; // index in `content` of the first content token after position i
        let mut chain: Vec<usize> = Vec::with_capacity(c);
        for (i, &is_ante) in antecedent.iter().enumerate() {
            while next < content.len() && content[next] <= i {
                next += 1;
            }
            if !is_ante {
                continue;
            }
            chain.clear();
            for j in 1..=c {
                // The (j·d)-th content token after the antecedent.
                let Some(idx) = j.checked_mul(d).and_then(|o| next.checked_add(o - 1)) else {
                    break;
                };
                match content.get(idx) {
                    Some(&p) => chain.push(p),
                    None => break,
                }
            }
            if !chain.is_empty() {
                emit(i, &chain);
            }
        }
    }

    /// Writes a spot's canonical string `antecedent:w1:…:wc` into `buf`.
    fn spot_string(tokens: &[&str], ante: usize, chain: &[usize], buf: &mut String) {
        buf.clear();
        buf.push_str(tokens[ante]);
        for &p in chain {
            buf.push(':');
            buf.push_str(tokens[p]);
        }
    }

    /// The spots of a token sequence (normalized tokens, see [`crate::text::normalize`]) as strings
    /// `antecedent:w1:…:wc`, in document order: for inspection and tests.
    pub fn spot_strings(&self, tokens: &[&str]) -> Vec<String> {
        let mut out = Vec::new();
        let mut buf = String::new();
        self.walk(tokens, |a, chain| {
            Self::spot_string(tokens, a, chain, &mut buf);
            out.push(buf.clone());
        });
        out
    }

    /// The spot hashes of a token sequence, in document order (seeded xxh3 of
    /// [`SpotExtractor::spot_strings`]).
    pub fn spot_hashes(&self, tokens: &[&str]) -> Vec<u64> {
        let mut out = Vec::new();
        let mut buf = String::new();
        let seed = self.seed;
        self.walk(tokens, |a, chain| {
            Self::spot_string(tokens, a, chain, &mut buf);
            out.push(xxh3_64_with_seed(buf.as_bytes(), seed));
        });
        out
    }

    /// The spot multiset of a token sequence.
    pub fn spots(&self, tokens: &[&str]) -> SpotSet {
        SpotSet::from_hashes(self.spot_hashes(tokens))
    }

    /// The spot multiset of a normalized text.
    pub fn spots_normalized(&self, norm: &NormalizedText) -> SpotSet {
        let tokens: Vec<&str> = norm.token_strs().collect();
        self.spots(&tokens)
    }
}

/// Counters of one [`SpotIndex::all_pairs_with_stats`] run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct SpotStats {
    /// Documents in the index.
    pub docs: u64,
    /// Documents without any spot (never in a pair).
    pub empty_docs: u64,
    /// Size partitions for this τ (the paper's partitioning; empty documents excluded).
    pub partitions: u64,
    /// Probing documents whose size window reached into the previous partition.
    pub cross_partition_probes: u64,
    /// Posting lists read.
    pub lists_scanned: u64,
    /// Posting lists not read because the δ-bound ended the probe early.
    pub lists_skipped: u64,
    /// Probes ended early by the δ-bound.
    pub early_terminations: u64,
    /// Postings read (inside the size windows).
    pub postings_scanned: u64,
    /// Distinct (probing document, other document) pairs met in the posting lists.
    pub candidates: u64,
    /// Candidates dropped by the overlap bound before their similarity was computed.
    pub pruned: u64,
    /// Pairs whose exact similarity was computed.
    pub pairs_checked: u64,
    /// Of those, the ones that needed a merge of the two multisets (the others had their Σmin
    /// complete from the posting lists).
    pub merges: u64,
    /// Pairs reported.
    pub pairs: u64,
}

impl SpotStats {
    fn add(&mut self, o: &SpotStats) {
        self.lists_scanned += o.lists_scanned;
        self.lists_skipped += o.lists_skipped;
        self.early_terminations += o.early_terminations;
        self.cross_partition_probes += o.cross_partition_probes;
        self.postings_scanned += o.postings_scanned;
        self.candidates += o.candidates;
        self.pruned += o.pruned;
        self.pairs_checked += o.pairs_checked;
        self.merges += o.merges;
        self.pairs += o.pairs;
    }
}

/// An inverted index over the spots of a collection, for exact all-pairs weighted Jaccard
/// (see the module docs). Holds at most `u32::MAX` documents.
#[derive(Debug)]
pub struct SpotIndex<'a> {
    docs: &'a [SpotSet],
    /// Rank (position in size order) → document.
    order: Vec<u32>,
    /// Rank → multiset size; ascending.
    lens: Vec<u64>,
    /// First rank with a non-empty document.
    first_nonempty: usize,
    /// List id → start in `postings`; one more entry than there are lists.
    list_starts: Vec<usize>,
    /// `(rank, count)`, sorted by rank within each list.
    postings: Vec<(u32, u32)>,
    /// Document → start of its entries in `entry_lists`; one more entry than documents.
    entry_starts: Vec<usize>,
    /// For each document's spot (in the document's hash order), the id of its list.
    entry_lists: Vec<u32>,
}

/// Per-thread buffers of the probes.
struct ProbeScratch {
    stamp: Vec<u32>,
    generation: u32,
    acc: Vec<u64>,
    cands: Vec<u32>,
    spots: Vec<(usize, u64, u32, u32)>,
}

impl ProbeScratch {
    fn new(n: usize) -> ProbeScratch {
        ProbeScratch {
            stamp: vec![0; n],
            generation: 0,
            acc: vec![0; n],
            cands: Vec::new(),
            spots: Vec::new(),
        }
    }

    fn next_generation(&mut self) {
        if self.generation == u32::MAX {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.generation = 0;
        }
        self.generation += 1;
        self.cands.clear();
    }
}

impl<'a> SpotIndex<'a> {
    /// Indexes the documents (document `i` of the result pairs is `docs[i]`).
    pub fn build(docs: &'a [SpotSet]) -> SpotIndex<'a> {
        let n = docs.len();
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_unstable_by_key(|&d| (docs[d as usize].len, d));
        let lens: Vec<u64> = order.iter().map(|&d| docs[d as usize].len).collect();
        let first_nonempty = lens.partition_point(|&l| l == 0);
        let mut rank_of = vec![0u32; n];
        for (r, &d) in order.iter().enumerate() {
            rank_of[d as usize] = r as u32;
        }
        let mut entry_starts = Vec::with_capacity(n + 1);
        entry_starts.push(0usize);
        for d in docs {
            entry_starts.push(entry_starts.last().copied().unwrap_or(0) + d.spots.len());
        }
        let total = entry_starts.last().copied().unwrap_or(0);
        // Entries (document, position) sorted by (spot hash, rank): each run of one hash is a
        // posting list in size order.
        let mut entries: Vec<(u64, u32, u32, u32)> = Vec::with_capacity(total);
        for (d, doc) in docs.iter().enumerate() {
            for (k, &(h, _)) in doc.spots.iter().enumerate() {
                entries.push((h, rank_of[d], d as u32, k as u32));
            }
        }
        entries.par_sort_unstable();
        let mut list_starts = Vec::new();
        let mut postings = Vec::with_capacity(total);
        let mut entry_lists = vec![0u32; total];
        let mut prev: Option<u64> = None;
        for &(h, rank, d, k) in &entries {
            if prev != Some(h) {
                list_starts.push(postings.len());
                prev = Some(h);
            }
            let count = docs[d as usize].spots[k as usize].1;
            postings.push((rank, count));
            entry_lists[entry_starts[d as usize] + k as usize] = (list_starts.len() - 1) as u32;
        }
        list_starts.push(postings.len());
        SpotIndex {
            docs,
            order,
            lens,
            first_nonempty,
            list_starts,
            postings,
            entry_starts,
            entry_lists,
        }
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// True when the index has no document.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// Number of distinct spots (posting lists).
    pub fn distinct_spots(&self) -> usize {
        self.list_starts.len().saturating_sub(1)
    }

    /// Every pair `(a, b, J)` with `a < b` and weighted Jaccard `J ≥ tau`, `J > 0`, sorted;
    /// exactly [`brute_force_pairs`]'s result. A `tau` above 1 or NaN gives no pair; a `tau` of
    /// 0 or less gives every pair that shares a spot.
    pub fn all_pairs(&self, tau: f64) -> Vec<(u32, u32, f64)> {
        self.all_pairs_with_stats(tau).0
    }

    /// The paper's size partitions for `tau`: start rank of each partition (non-empty documents
    /// only), and the partition of each rank.
    fn partitions(&self, tau: f64) -> (Vec<usize>, Vec<u32>) {
        let n = self.lens.len();
        let mut starts = Vec::new();
        let mut part_of = vec![0u32; n];
        let mut start = self.first_nonempty;
        if start < n {
            starts.push(start);
        }
        for (q, part) in part_of.iter_mut().enumerate().skip(self.first_nonempty) {
            if ratio(self.lens[start], self.lens[q]) < tau {
                start = q;
                starts.push(q);
            }
            *part = (starts.len() - 1) as u32;
        }
        (starts, part_of)
    }

    /// [`SpotIndex::all_pairs`] with the counters of the run.
    pub fn all_pairs_with_stats(&self, tau: f64) -> (Vec<(u32, u32, f64)>, SpotStats) {
        let n = self.docs.len();
        let mut stats = SpotStats {
            docs: n as u64,
            empty_docs: self.first_nonempty as u64,
            ..SpotStats::default()
        };
        // NaN or above 1: nothing can qualify.
        if tau.is_nan() || tau > 1.0 {
            return (Vec::new(), stats);
        }
        let (starts, part_of) = self.partitions(tau);
        stats.partitions = starts.len() as u64;
        // A few strided slices of the ranks per thread: each gets one scratch (two arrays over
        // all documents), and striding spreads the large documents (high ranks) evenly.
        let slices = (rayon::current_num_threads() * 4).max(1);
        let first = self.first_nonempty;
        let (mut pairs, local) = (0..slices)
            .into_par_iter()
            .map(|slice| {
                let mut scratch = ProbeScratch::new(n);
                let mut pairs = Vec::new();
                let mut st = SpotStats::default();
                for r in (first + slice..n).step_by(slices) {
                    self.probe(r, tau, &starts, &part_of, &mut scratch, &mut pairs, &mut st);
                }
                (pairs, st)
            })
            .reduce(
                || (Vec::new(), SpotStats::default()),
                |(mut pa, mut sa), (pb, sb)| {
                    pa.extend(pb);
                    sa.add(&sb);
                    (pa, sa)
                },
            );
        stats.add(&local);
        // Each pair occurs once, so sorting by (a, b) alone is a total order.
        pairs.sort_unstable_by_key(|&(a, b, _)| (a, b));
        (pairs, stats)
    }

    /// Finds the partners of the document at rank `r` among smaller ranks.
    #[allow(clippy::too_many_arguments)]
    fn probe(
        &self,
        r: usize,
        tau: f64,
        starts: &[usize],
        part_of: &[u32],
        s: &mut ProbeScratch,
        out: &mut Vec<(u32, u32, f64)>,
        st: &mut SpotStats,
    ) {
        let la = self.lens[r];
        if la == 0 {
            return;
        }
        // Size window [lo, r): partners B have |B| ≤ |A| (smaller rank) and J ≤ |B| / |A|. By
        // the partitioning they lie in this partition or the previous one.
        let p = part_of[r] as usize;
        let from = starts[p.saturating_sub(1)].max(self.first_nonempty);
        let lo = from + self.lens[from..r].partition_point(|&lb| ratio(lb, la) < tau);
        if lo < starts[p] {
            st.cross_partition_probes += 1;
        }
        if lo >= r {
            return;
        }
        let a = self.order[r] as usize;
        let doc = &self.docs[a];
        s.next_generation();
        s.spots.clear();
        let base = self.entry_starts[a];
        for (k, &(h, c)) in doc.spots.iter().enumerate() {
            let list = self.entry_lists[base + k];
            let df = self.list_starts[list as usize + 1] - self.list_starts[list as usize];
            s.spots.push((df, h, c, list));
        }
        s.spots.sort_unstable();
        let generation = s.generation;
        let mut delta = 0u64;
        let mut stopped = false;
        for idx in 0..s.spots.len() {
            // δ-bound: a document not met yet shares none of the spots read so far.
            if ratio(la - delta, la) < tau {
                st.lists_skipped += (s.spots.len() - idx) as u64;
                st.early_terminations += 1;
                stopped = true;
                break;
            }
            let (_, _, c, list) = s.spots[idx];
            let l = &self.postings
                [self.list_starts[list as usize]..self.list_starts[list as usize + 1]];
            let begin = l.partition_point(|&(rk, _)| (rk as usize) < lo);
            let end = begin + l[begin..].partition_point(|&(rk, _)| (rk as usize) < r);
            st.lists_scanned += 1;
            st.postings_scanned += (end - begin) as u64;
            for &(rk, cb) in &l[begin..end] {
                let rk_us = rk as usize;
                if s.stamp[rk_us] != generation {
                    s.stamp[rk_us] = generation;
                    s.acc[rk_us] = 0;
                    s.cands.push(rk);
                }
                s.acc[rk_us] += u64::from(c.min(cb));
            }
            delta += u64::from(c);
        }
        let rest = if stopped { la - delta } else { 0 };
        st.candidates += s.cands.len() as u64;
        for &rk in &s.cands {
            let rk = rk as usize;
            let lb = self.lens[rk];
            let acc = s.acc[rk];
            // Σmin ≤ min(acc + rest, |B|) and Σmax = |A| + |B| − Σmin.
            let ub = (acc + rest).min(lb);
            if ratio(ub, la + lb - ub) < tau {
                st.pruned += 1;
                continue;
            }
            let b = self.order[rk] as usize;
            let (smin, smax) = if rest == 0 && !stopped {
                (acc, la + lb - acc)
            } else {
                st.merges += 1;
                min_max_sums(doc, &self.docs[b])
            };
            st.pairs_checked += 1;
            let sim = ratio(smin, smax);
            if sim > 0.0 && sim >= tau {
                st.pairs += 1;
                out.push((a.min(b) as u32, a.max(b) as u32, sim));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sketch::minhash::splitmix64;
    use crate::text::normalize::normalize;

    fn toks(n: &NormalizedText) -> Vec<&str> {
        n.token_strs().collect()
    }

    #[test]
    fn the_papers_example_sentence() {
        // SIGIR 2008, section 2: antecedents {a, an, the, is}, d = 1, c = 2.
        let text = "At a rally to kick off a weeklong campaign for the South Carolina primary, \
                    Obama tried to set the record straight from an attack circulating widely on \
                    the Internet that is designed to play into prejudices against Muslims and \
                    fears of terrorism.";
        let cfg = SpotConfig {
            antecedents: AntecedentSet::new(["a", "an", "the", "is"]),
            chain: 2,
            distance: 1,
        };
        let ex = SpotExtractor::new(cfg, lang::stopwords("en")).with_seed(1);
        let n = normalize(text);
        let got = ex.spot_strings(&toks(&n));
        assert_eq!(
            got,
            [
                "a:rally:kick",
                "a:weeklong:campaign",
                "the:south:carolina",
                "the:record:straight",
                "an:attack:circulating",
                "the:internet:designed",
                "is:designed:play",
            ]
        );
        // Hashes are seeded xxh3 of exactly those strings.
        let hashes = ex.spot_hashes(&toks(&n));
        assert_eq!(hashes[0], xxh3_64_with_seed(b"a:rally:kick", 1));
        assert_eq!(ex.spots(&toks(&n)).len(), 7);
    }

    #[test]
    fn distance_chain_length_and_document_end() {
        // No stopword list: only antecedents are skipped.
        let cfg =
            SpotConfig { antecedents: AntecedentSet::new(["the", "a"]), chain: 2, distance: 2 };
        let ex = SpotExtractor::new(cfg, None).with_seed(0);
        let n = normalize("the w1 w2 a w3 w4 w5 the w6");
        // After the first "the": content w1 w2 w3 w4 w5 w6 → every 2nd: w2, w4.
        // After "a": w3 w4 w5 w6 → w4, w6. After the last "the": w6 is 1st, no 2nd → nothing.
        assert_eq!(ex.spot_strings(&toks(&n)), ["the:w2:w4", "a:w4:w6"]);
        let cfg = SpotConfig { chain: 3, distance: 1, ..ex.config().clone() };
        let ex = SpotExtractor::new(cfg, None);
        // Chains cut by the end of the document keep the words found.
        assert_eq!(ex.spot_strings(&toks(&n)), ["the:w1:w2:w3", "a:w3:w4:w5", "the:w6"]);
        // Degenerate settings do not panic: chain and distance 0 act as 1, huge distance.
        let cfg = SpotConfig { chain: 0, distance: 0, ..ex.config().clone() };
        assert_eq!(SpotExtractor::new(cfg, None).spot_strings(&toks(&n))[0], "the:w1");
        let cfg = SpotConfig { chain: 3, distance: usize::MAX, ..ex.config().clone() };
        assert!(SpotExtractor::new(cfg, None).spot_strings(&toks(&n)).is_empty());
        assert!(ex.spot_strings(&[]).is_empty());
        let empty = SpotExtractor::new(
            SpotConfig { antecedents: AntecedentSet::new([""; 0]), ..SpotConfig::default() },
            None,
        );
        assert!(empty.spots(&toks(&n)).is_empty());
    }

    #[test]
    fn english_defaults() {
        let ex = SpotExtractor::for_language("en").unwrap();
        let n = normalize(
            "There was a storm. The police said the bridge was closed, and the mayor said \
             there is a plan.",
        );
        // Antecedents: there, was, a, the, said, is. Content words (neither antecedent nor on
        // the English stopword list, which has "and"): storm police bridge closed mayor plan.
        assert_eq!(
            ex.spot_strings(&toks(&n)),
            [
                "there:storm:police",
                "was:storm:police",
                "a:storm:police",
                "the:police:bridge",
                "said:bridge:closed",
                "the:bridge:closed",
                "was:closed:mayor",
                "the:mayor:plan",
                "said:plan",
                "there:plan",
                "is:plan",
                "a:plan",
            ]
        );
    }

    #[test]
    fn russian_sentence() {
        let ex = SpotExtractor::for_language("ru").unwrap();
        let n = normalize("Министр сказал, что в Москве был принят новый закон о налогах.");
        // Antecedents: сказал, что, в, был. The ru stopword list has новый and о, so the
        // content words are министр москве принят закон налогах.
        assert_eq!(
            ex.spot_strings(&toks(&n)),
            ["сказал:москве:принят", "что:москве:принят", "в:москве:принят", "был:принят:закон"]
        );
    }

    #[test]
    fn chinese_sentence() {
        let ex = SpotExtractor::for_language("zh").unwrap();
        assert_eq!(ex.config().chain, 4);
        let n = normalize("我们在北京发现了重要的文物。");
        // Tokens are characters. Antecedents: 在, 了, 的. The zh stopword list has 我, 们 and
        // 要, so the content characters are 北 京 发 现 重 文 物; chains take the next four.
        assert_eq!(ex.spot_strings(&toks(&n)), ["在:北:京:发:现", "了:重:文:物", "的:文:物"]);
        let ja = SpotExtractor::for_language("ja").unwrap();
        let n = normalize("東京の新しい駅は大きい。");
        // の and は are antecedents; し, い and き are on the ja stopword list.
        assert_eq!(ja.spot_strings(&toks(&n)), ["の:新:駅:大", "は:大"]);
    }

    #[test]
    fn every_built_in_language_has_normalized_antecedents() {
        for code in antecedent_languages() {
            let cfg = SpotConfig::for_language(code).unwrap();
            let table = DEFAULT_ANTECEDENTS.iter().find(|e| e.0 == code).unwrap().1;
            assert_eq!(cfg.antecedents.len(), table.len(), "{code}: a word did not normalize");
            assert!(lang::stopwords(code).is_some(), "{code} has no stopword list");
        }
        assert!(SpotConfig::for_language("xx").is_none());
        assert_eq!(SpotConfig::default(), SpotConfig::for_language("en").unwrap());
    }

    #[test]
    fn multisets_and_weighted_jaccard() {
        let a = SpotSet::from_hashes(vec![5, 1, 5, 3]);
        assert_eq!(a.spots(), &[(1, 1), (3, 1), (5, 2)]);
        assert_eq!((a.len(), a.distinct()), (4, 3));
        let b = SpotSet::from_counts([(5, 1), (7, 2), (1, 0), (7, 1)]);
        assert_eq!(b.spots(), &[(5, 1), (7, 3)]);
        // Σmin = 1 (spot 5); Σmax = 1 + 1 + 2 + 3 = 7.
        assert_eq!(weighted_jaccard(&a, &b), 1.0 / 7.0);
        assert_eq!(weighted_jaccard(&a, &a), 1.0);
        let e = SpotSet::default();
        assert_eq!(weighted_jaccard(&e, &e), 0.0);
        assert_eq!(weighted_jaccard(&a, &e), 0.0);
    }

    /// Random documents over a small spot vocabulary: families of edited copies of a base
    /// document (so that every similarity level occurs), plus empty and one-spot documents.
    fn random_docs(state: &mut u64, n: usize) -> Vec<SpotSet> {
        let vocab = 8 + (splitmix64(state) % 200);
        let mut docs = Vec::with_capacity(n);
        let mut base: Vec<(u64, u32)> = Vec::new();
        for i in 0..n {
            let r = splitmix64(state) % 10;
            if r == 0 {
                docs.push(SpotSet::default());
                continue;
            }
            if r == 1 {
                let h = splitmix64(state) % vocab;
                docs.push(SpotSet::from_counts([(h, 1 + (splitmix64(state) % 3) as u32)]));
                continue;
            }
            if i == 0 || r < 5 {
                let len = 1 + splitmix64(state) % 40;
                base = (0..len)
                    .map(|_| (splitmix64(state) % vocab, 1 + (splitmix64(state) % 4) as u32))
                    .collect();
            }
            // An edited copy: drop, change and add a few spots.
            let mut v: Vec<(u64, u32)> = Vec::with_capacity(base.len() + 4);
            for &(h, c) in &base {
                match splitmix64(state) % 24 {
                    0..=2 => {}
                    3..=6 => v.push((h, 1 + (splitmix64(state) % 4) as u32)),
                    _ => v.push((h, c)),
                }
            }
            for _ in 0..splitmix64(state) % 4 {
                v.push((splitmix64(state) % vocab, 1));
            }
            docs.push(SpotSet::from_counts(v));
        }
        docs
    }

    #[test]
    fn all_pairs_equals_brute_force_on_random_multisets() {
        let mut state = 42u64;
        for round in 0..60 {
            let n = 1 + (splitmix64(&mut state) % 120) as usize;
            let docs = random_docs(&mut state, n);
            let index = SpotIndex::build(&docs);
            for tau in [-1.0, 0.0, 0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0, 1.5, f64::NAN] {
                let (got, stats) = index.all_pairs_with_stats(tau);
                let want = brute_force_pairs(&docs, tau);
                assert_eq!(got, want, "round {round}, n {n}, tau {tau}");
                assert_eq!(stats.pairs as usize, got.len());
            }
        }
    }

    #[test]
    fn edge_cases() {
        let none: Vec<SpotSet> = Vec::new();
        assert!(SpotIndex::build(&none).all_pairs(0.5).is_empty());
        let empties = vec![SpotSet::default(); 3];
        assert!(SpotIndex::build(&empties).all_pairs(0.0).is_empty());
        let one = vec![SpotSet::from_hashes(vec![1]); 3];
        assert_eq!(
            SpotIndex::build(&one).all_pairs(1.0),
            vec![(0, 1, 1.0), (0, 2, 1.0), (1, 2, 1.0)]
        );
    }

    #[test]
    fn pruning_does_work_and_partitions_are_the_papers() {
        let mut state = 7u64;
        let docs = random_docs(&mut state, 400);
        let index = SpotIndex::build(&docs);
        let (pairs, st) = index.all_pairs_with_stats(0.8);
        assert_eq!(pairs, brute_force_pairs(&docs, 0.8));
        let nonempty = st.docs - st.empty_docs;
        assert!(st.partitions > 1, "{st:?}");
        assert!(st.early_terminations > 0 && st.lists_skipped > 0, "{st:?}");
        assert!(st.pairs_checked < nonempty * (nonempty - 1) / 2 / 4, "{st:?}");
        // Every partition's members are within ratio τ of its smallest member.
        let (starts, part_of) = index.partitions(0.8);
        for (r, &p) in part_of.iter().enumerate().skip(index.first_nonempty) {
            assert!(ratio(index.lens[starts[p as usize]], index.lens[r]) >= 0.8);
        }
    }

    #[test]
    fn deterministic_across_thread_counts() {
        let mut state = 99u64;
        let docs = random_docs(&mut state, 600);
        let index = SpotIndex::build(&docs);
        let run = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| index.all_pairs_with_stats(0.6))
        };
        let (p1, s1) = run(1);
        let (p4, s4) = run(4);
        assert_eq!(p1, p4);
        assert_eq!(s1, s4);
        assert!(!p1.is_empty());
    }

    /// English article bodies (shared data).
    fn articles() -> Vec<String> {
        crate::testutil::shared_articles(150)
            .into_iter()
            .map(|(_, t)| t)
            .filter(|t| lang::detect(t).is_some_and(|d| d.code == "en"))
            .collect()
    }

    /// Replaces about `rate` of the words and drops a sentence-sized run.
    fn edited(text: &str, state: &mut u64, rate: u64) -> String {
        let words: Vec<&str> = text.split_whitespace().collect();
        let cut = (splitmix64(state) as usize) % words.len().max(1);
        let mut out = Vec::with_capacity(words.len());
        for (i, w) in words.iter().enumerate() {
            if i >= cut && i < cut + 12 {
                continue;
            }
            if splitmix64(state) % 100 < rate {
                out.push(format!("edited{}", splitmix64(state) % 1000));
            } else {
                out.push((*w).to_owned());
            }
        }
        out.join(" ")
    }

    #[test]
    #[ignore = "needs ../shared/data"]
    fn real_english_articles_with_planted_copies() {
        let arts = articles();
        assert!(arts.len() > 50, "only {} English articles", arts.len());
        let ex = SpotExtractor::for_language("en").unwrap();
        let mut state = 3u64;
        let mut texts: Vec<String> = arts.clone();
        let originals = arts.len().min(80);
        for (i, t) in arts.iter().take(originals).enumerate() {
            texts.push(edited(t, &mut state, 2 + (i as u64 % 3) * 4));
        }
        let docs: Vec<SpotSet> = texts.iter().map(|t| ex.spots_normalized(&normalize(t))).collect();
        let index = SpotIndex::build(&docs);
        for tau in [0.3, 0.5, 0.7, 0.9] {
            let got = index.all_pairs(tau);
            assert_eq!(got, brute_force_pairs(&docs, tau), "tau {tau}");
        }
        // Lightly edited copies (2% of words changed, one 12-word run cut) of articles with at
        // least 20 spots are found at τ = 0.5, and no two different articles are paired.
        let got = index.all_pairs(0.5);
        let n = arts.len() as u32;
        for i in (0..originals).filter(|&i| i % 3 == 0 && docs[i].len() >= 20) {
            let copy = (n as usize + i) as u32;
            assert!(
                got.iter().any(|&(a, b, _)| (a, b) == (i as u32, copy)),
                "light copy of {i} missed: J = {}",
                weighted_jaccard(&docs[i], &docs[copy as usize])
            );
        }
        assert!(got.iter().all(|&(a, b, _)| b >= n && b - n == a), "{got:?}");
    }
}
