//! [`DocKeyer`]: the candidate keys of one document, for the methods whose candidates come from
//! keys each document has by itself (no collection statistics), computed outside the pipeline:
//! by the Ray job's sketch kernel, or any engine that groups documents by key.

use std::fmt;

use xxhash_rust::xxh3::xxh3_64_with_seed;

use super::{
    Combined, Context, DocView, IMatch, LexDoc, LongSentences, Method, MethodKind, Partitioned,
    SimDoc, SimHash, TfRidf,
};
use crate::candidates::hamming::{TableConfig, binomial, combinations};
use crate::config::{DedupConfig, IMatchSettings, MethodConfig, TfRidfSettings};
use crate::error::{ConfigError, Error};
use crate::sketch::simhash::{Weighting, hamming};

/// Most keys per document [`DocKeyer`] makes for partitioned fingerprints with k > 1 (one per
/// k-subset of the L list fingerprints: C(L, k)).
pub const MAX_SUBSET_KEYS: u64 = 4096;

/// The keys of one document: documents are candidates when they share a key (the same `(space,
/// key)`) and their fingerprints are close ([`DocKeyer::close`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DocKeys {
    /// `(space, key)`: an LSH band and its key (combined), a SimHash table and the fingerprint's
    /// bits under its mask (SimHash); space 0 for the signature methods.
    pub keys: Vec<(u32, u64)>,
    /// The SimHash fingerprint (SimHash, combined; 0 for the other methods).
    pub fingerprint: u64,
    /// Why the document has no keys (the method could not sign it), if so.
    pub unsigned: Option<String>,
}

/// Why [`DocKeyer::new`] has no keyer for a configuration.
#[derive(Debug)]
pub enum KeyerError {
    /// The method's settings are invalid.
    Config(Error),
    /// The method's candidates do not come from keys each document has by itself: the reason.
    NoDocumentKeys(String),
}

impl fmt::Display for KeyerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyerError::Config(e) => e.fmt(f),
            KeyerError::NoDocumentKeys(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for KeyerError {}

impl From<Error> for KeyerError {
    fn from(e: Error) -> Self {
        KeyerError::Config(e)
    }
}

/// Per-document candidate keys of SimHash (tf or uniform weights), the combined method, long
/// sentences, partitioned fingerprints, and I-Match, I-Match-rand and TF*RIDF signed with a
/// lexicon file (`IMatchSettings::lexicon`: the statistics are known before any document is
/// read), computed by the methods themselves.
///
/// Grouping documents by key and keeping, in each group, the pairs of distinct documents that
/// are [`close`](DocKeyer::close) gives the pipeline's candidates:
///
/// - SimHash: the pairs within Hamming distance k, as
///   [`hamming_candidates`](crate::candidates::hamming::hamming_candidates) finds them: two
///   fingerprints within k agree under at least one mask of [`TableConfig::key_masks`], whatever
///   the layout.
/// - Combined: the LSH candidates of its MinHash half (its band keys; a group is listed as the
///   library lists LSH buckets, [`DocKeyer::lists_anchors`]) within its SimHash distance.
/// - Reference words (Hamming distance 0) with a lexicon file's words: the pairs with equal
///   signatures, keyed by a 64-bit hash of the signature with a second one as the fingerprint
///   (the signed documents, those with at least `min_bits` bits, as the method signs them).
/// - Long sentences, partitioned fingerprints with k = 1, I-Match and TF*RIDF with a lexicon
///   file: the pairs sharing a key
///   ([`crate::candidates::shared_keys::candidate_pairs`]). Partitioned with k > 1: one key per
///   k-subset of the document's list fingerprints (a 64-bit hash of the subset), so that two
///   documents share k fingerprints exactly when they share a subset key (up to 64-bit hash
///   collisions, which only add candidates for exact verification); at most
///   [`MAX_SUBSET_KEYS`] subsets.
///
/// The other methods have none ([`KeyerError::NoDocumentKeys`] says why): MinHash and
/// super-shingles have their own ([`crate::candidates::lsh::band_key`],
/// [`crate::sketch::supershingles::document_keys`]), exact has no candidates, and the rest need
/// the whole collection first (I-Match and TF*RIDF without a lexicon file among them; those
/// with a [`StatisticsPass`](super::StatisticsPass) are keyed by
/// [`DocKeyer::with_statistics`] once their statistics are counted).
#[derive(Debug)]
pub struct DocKeyer {
    keyer: Keyer,
}

#[derive(Debug)]
enum Keyer {
    SimHash {
        method: SimHash,
        masks: Vec<u64>,
        k: u32,
    },
    Combined {
        method: Box<Combined>,
        k: u32,
    },
    Sentences(LongSentences),
    Partitioned {
        method: Partitioned,
        min_shared: usize,
    },
    /// I-Match (`randomized`: i-match-rand) signed with a lexicon file's statistics.
    IMatch {
        method: Box<IMatch>,
        randomized: bool,
    },
    /// TF*RIDF signed with a lexicon file's statistics.
    TfRidf(Box<TfRidf>),
    /// Reference words (a lexicon file's, or chosen from the statistics), signatures compared
    /// for equality.
    RefWords {
        words: Box<crate::lexical::refwords::RefWords>,
        min_bits: u32,
        seed: u64,
    },
}

impl DocKeyer {
    /// The keyer of a configuration, for a collection of about `documents` documents (the SimHash
    /// table layout, when the configuration does not fix its blocks).
    pub fn new(c: &DedupConfig, documents: usize) -> Result<DocKeyer, KeyerError> {
        DocKeyer::build(c, documents, None)
    }

    /// The keyer of a configuration whose method signs with statistics of the input itself (a
    /// [`StatisticsPass`](super::StatisticsPass): I-Match, I-Match-rand and TF*RIDF without a
    /// lexicon file, SimHash and combined with tf-idf weights, reference words without a
    /// lexicon file's words: chosen from them), given those statistics counted
    /// over the collection's heads: each document is then keyed alone as the pipeline keys it
    /// after its statistics pass. For the other methods the statistics are ignored
    /// ([`DocKeyer::new`]).
    pub fn with_statistics(
        c: &DedupConfig,
        documents: usize,
        statistics: &super::PartialStatistics,
    ) -> Result<DocKeyer, KeyerError> {
        DocKeyer::build(c, documents, Some(statistics))
    }

    fn build(
        c: &DedupConfig,
        documents: usize,
        statistics: Option<&super::PartialStatistics>,
    ) -> Result<DocKeyer, KeyerError> {
        let cx = Context::of(c);
        // The statistics as a lexicon (what a lexicon file gives I-Match and TF*RIDF: the same
        // `Signer::from_stats` as `prepare`).
        let lexicon = |s: &super::PartialStatistics| {
            Some(std::sync::Arc::new(crate::lexical::collection::Lexicon::new(
                s.collection_stats(),
                c.seed,
                "statistics of the input",
            )))
        };
        let needs = |what: &str| {
            KeyerError::NoDocumentKeys(format!(
                "{} signs documents with {what} of the whole collection, known only once every document is read",
                c.method.kind()
            ))
        };
        let keyer = match &c.method {
            MethodConfig::SimHash(m) if m.weights != Weighting::TfIdf || statistics.is_some() => {
                let mut method = SimHash::new(*m, cx)?;
                if let Some(s) = statistics {
                    method = method.with_doc_freq(s.doc_freq());
                }
                let k = method.max_distance();
                let layout = match m.blocks {
                    Some(b) => TableConfig::new(b, k),
                    None => TableConfig::for_collection(k, documents),
                }
                .ok_or(Error::from(ConfigError::NoTableLayout { k, blocks: m.blocks }))?;
                Keyer::SimHash { method, masks: layout.key_masks(k), k }
            }
            MethodConfig::SimHash(_) => {
                return Err(needs("tf·idf weights (document frequencies)"));
            }
            MethodConfig::Combined(m) if m.weights != Weighting::TfIdf || statistics.is_some() => {
                let mut method = Combined::new(*m, cx)?;
                if let Some(s) = statistics {
                    method = method.with_doc_freq(s.doc_freq());
                }
                Keyer::Combined { k: method.max_distance(), method: Box::new(method) }
            }
            MethodConfig::Combined(_) => {
                return Err(needs("tf·idf weights (document frequencies)"));
            }
            MethodConfig::LongSentences(m) => {
                Keyer::Sentences(LongSentences::new(*m, cx).map_err(Error::from)?)
            }
            MethodConfig::Partitioned(m) => {
                let subsets = binomial(m.lists, m.min_shared.max(1));
                if subsets.is_none_or(|s| s as u64 > MAX_SUBSET_KEYS) {
                    let count =
                        subsets.map_or_else(|| "more than 2^64".to_owned(), |s| s.to_string());
                    return Err(KeyerError::NoDocumentKeys(format!(
                        "partitioned with {} lists and k = {} needs C({}, {}) = {count} keys per document (at most {MAX_SUBSET_KEYS})",
                        m.lists, m.min_shared, m.lists, m.min_shared
                    )));
                }
                Keyer::Partitioned {
                    method: Partitioned::new(*m, cx)?,
                    min_shared: m.min_shared.max(1),
                }
            }
            MethodConfig::IMatch(m) | MethodConfig::IMatchRand(m) if m.lexicon.is_some() => {
                let randomized = matches!(c.method, MethodConfig::IMatchRand(_));
                Keyer::IMatch { method: Box::new(IMatch::new(m, randomized, cx)?), randomized }
            }
            MethodConfig::IMatch(m) | MethodConfig::IMatchRand(m) if statistics.is_some() => {
                let randomized = matches!(c.method, MethodConfig::IMatchRand(_));
                let m = IMatchSettings { lexicon: statistics.and_then(lexicon), ..m.clone() };
                Keyer::IMatch { method: Box::new(IMatch::new(&m, randomized, cx)?), randomized }
            }
            MethodConfig::IMatch(_) | MethodConfig::IMatchRand(_) => {
                return Err(needs(
                    "a lexicon from the document frequencies (a lexicon file, `lexicon=`, signs each document alone)",
                ));
            }
            MethodConfig::TfRidf(m) if m.lexicon.is_some() => {
                Keyer::TfRidf(Box::new(TfRidf::new(m, cx)?))
            }
            MethodConfig::TfRidf(m) if statistics.is_some() => {
                let m = TfRidfSettings { lexicon: statistics.and_then(lexicon), ..m.clone() };
                Keyer::TfRidf(Box::new(TfRidf::new(&m, cx)?))
            }
            MethodConfig::TfRidf(_) => {
                return Err(needs(
                    "residual IDF (document frequencies; a lexicon file, `lexicon=`, signs each document alone)",
                ));
            }
            MethodConfig::RefWords(m) if m.distance > 0 => {
                return Err(KeyerError::NoDocumentKeys(format!(
                    "refwords with refwords_distance {} compares each signature with those of the whole collection within Hamming distance {} (a prefix filter over the collection's rarest bits); equal signatures (distance 0) are keys",
                    m.distance, m.distance
                )));
            }
            MethodConfig::RefWords(m) => {
                // The settings' checks.
                super::RefWords::new(m, cx).map_err(Error::from)?;
                let words = match m.lexicon.as_ref().and_then(|l| l.reference_words.as_ref()) {
                    Some(words) => crate::lexical::refwords::RefWords::from_words(
                        words.iter().map(|&(term, threshold)| crate::lexical::refwords::RefWord {
                            term,
                            threshold,
                        }),
                    ),
                    None => match statistics {
                        Some(s) => s.reference_words(&m.selection),
                        None => {
                            return Err(needs(
                                "reference words chosen from the relative term frequencies",
                            ));
                        }
                    },
                };
                Keyer::RefWords { words: Box::new(words), min_bits: m.min_bits, seed: c.seed }
            }
            MethodConfig::ModM(_) | MethodConfig::MinS(_) | MethodConfig::Broder(_) => {
                return Err(KeyerError::NoDocumentKeys(format!(
                    "{} counts the samples each pair shares over the whole collection (Broder's sort, frequent shingles discounted)",
                    c.method.kind()
                )));
            }
            MethodConfig::SpotSigs(_) => {
                return Err(KeyerError::NoDocumentKeys(
                    "spotsigs finds its pairs with an inverted index over the whole collection (weighted Jaccard of spot multisets)".into(),
                ));
            }
            MethodConfig::MinHash(_) | MethodConfig::SuperShingles(_) | MethodConfig::Exact => {
                return Err(KeyerError::NoDocumentKeys(format!(
                    "{} has keys of its own (LSH band keys, super-shingles) or none (exact)",
                    c.method.kind()
                )));
            }
        };
        Ok(DocKeyer { keyer })
    }

    /// The method.
    pub fn kind(&self) -> MethodKind {
        match &self.keyer {
            Keyer::SimHash { .. } => MethodKind::SimHash,
            Keyer::Combined { .. } => MethodKind::Combined,
            Keyer::Sentences(_) => MethodKind::LongSentences,
            Keyer::Partitioned { .. } => MethodKind::Partitioned,
            Keyer::IMatch { randomized: false, .. } => MethodKind::IMatch,
            Keyer::IMatch { randomized: true, .. } => MethodKind::IMatchRand,
            Keyer::TfRidf(_) => MethodKind::TfRidf,
            Keyer::RefWords { .. } => MethodKind::RefWords,
        }
    }

    /// The keys of one document, from its view as the pipeline makes it (text, normalized text
    /// and shingles, never empty).
    pub fn keys(&self, doc: &DocView<'_>) -> DocKeys {
        let simhash = |d: SimDoc| match d {
            SimDoc::Fingerprint(fp) => fp,
            SimDoc::Bag(_) | SimDoc::Empty => 0,
        };
        match &self.keyer {
            Keyer::SimHash { method, masks, .. } => {
                let fp = simhash(method.doc(doc));
                DocKeys {
                    keys: masks.iter().enumerate().map(|(t, &m)| (t as u32, fp & m)).collect(),
                    fingerprint: fp,
                    unsigned: None,
                }
            }
            Keyer::Combined { method, .. } => DocKeys {
                keys: method.minhash().band_keys(doc.shingles),
                fingerprint: simhash(method.doc(doc)),
                unsigned: None,
            },
            Keyer::Sentences(method) => signed(method.doc(doc), 1),
            Keyer::Partitioned { method, min_shared } => signed(method.doc(doc), *min_shared),
            Keyer::IMatch { method, .. } => signed(lexicon_signed(method.doc(doc)), 1),
            Keyer::TfRidf(method) => signed(lexicon_signed(method.doc(doc)), 1),
            Keyer::RefWords { words, min_bits, seed } => {
                let terms =
                    crate::lexical::collection::TermCounts::from_normalized(doc.norm, *seed);
                let signature = words.sign(&terms);
                let sig = signature.signature();
                let bits = sig.map_or(0, |x| x.count_ones());
                match sig {
                    Some(sig) if bits >= *min_bits => {
                        // The signature's key, and a second hash of its bits as the
                        // fingerprint: equal signatures agree on both.
                        let bytes: Vec<u8> =
                            sig.words().iter().flat_map(|w| w.to_le_bytes()).collect();
                        DocKeys {
                            keys: vec![(0, sig.key())],
                            fingerprint: xxh3_64_with_seed(&bytes, 1),
                            unsigned: None,
                        }
                    }
                    _ => DocKeys {
                        unsigned: Some(format!(
                            "{bits} reference words above their thresholds, {min_bits} needed"
                        )),
                        ..DocKeys::default()
                    },
                }
            }
        }
    }

    /// Whether a group of documents sharing a key is listed as the library lists LSH buckets
    /// (every pair up to `max_pairs_per_group`, then each member with the first
    /// [`ANCHORS`](crate::candidates::lsh::ANCHORS) and its predecessor): the combined method.
    /// Otherwise every pair of the group is a candidate.
    pub fn lists_anchors(&self) -> bool {
        matches!(self.keyer, Keyer::Combined { .. })
    }

    /// SimHash, combined: the Hamming distance k within which two documents sharing a key are
    /// candidates.
    pub fn max_distance(&self) -> Option<u32> {
        match &self.keyer {
            Keyer::SimHash { k, .. } | Keyer::Combined { k, .. } => Some(*k),
            Keyer::Sentences(_)
            | Keyer::Partitioned { .. }
            | Keyer::IMatch { .. }
            | Keyer::TfRidf(_)
            | Keyer::RefWords { .. } => None,
        }
    }

    /// Whether two documents sharing a key are candidates, from their [`DocKeys::fingerprint`]s
    /// (always, except for SimHash fingerprints more than k bits apart, and reference-word
    /// signatures whose second hash differs).
    pub fn close(&self, a: u64, b: u64) -> bool {
        if matches!(self.keyer, Keyer::RefWords { .. }) {
            return a == b;
        }
        self.max_distance().is_none_or(|k| hamming(a, b) <= k)
    }
}

/// The keys of a document signed with a lexicon file's statistics (as read: never term counts).
fn lexicon_signed(doc: LexDoc) -> Option<Result<Vec<u64>, String>> {
    match doc {
        LexDoc::Keys(keys) => Some(keys),
        LexDoc::Terms(_) | LexDoc::Empty => None,
    }
}

/// A signature method's keys (space 0), one per `min_shared`-subset of them when it is above 1.
fn signed(keys: Option<Result<Vec<u64>, String>>, min_shared: usize) -> DocKeys {
    let mut keys = match keys.unwrap_or_else(|| Err("no signature".to_owned())) {
        Ok(keys) => keys,
        Err(reason) => return DocKeys { unsigned: Some(reason), ..DocKeys::default() },
    };
    keys.sort_unstable();
    keys.dedup();
    let out = if min_shared <= 1 {
        keys
    } else {
        let mut out = Vec::new();
        let mut chosen: Vec<usize> = Vec::with_capacity(min_shared);
        let mut bytes = Vec::with_capacity(min_shared * 8);
        combinations(keys.len(), min_shared, 0, &mut chosen, &mut |c| {
            bytes.clear();
            for &i in c {
                bytes.extend_from_slice(&keys[i].to_le_bytes());
            }
            out.push(xxh3_64_with_seed(&bytes, min_shared as u64));
        });
        out.sort_unstable();
        out.dedup();
        out
    };
    DocKeys { keys: out.into_iter().map(|k| (0, k)).collect(), ..DocKeys::default() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{CombinedConfig, SimHashConfig};
    use crate::lexical::partitioned::PartitionConfig;
    use crate::shingles::{ShingleScratch, Shingler};
    use crate::text::normalize::NormalizedText;

    /// Distinct texts: near copies of a few bases (a word changed, a tail cut, sentences added)
    /// and unrelated ones.
    fn texts() -> Vec<String> {
        let bases = [
            "the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat and the \
             bird sings a song of spring in the old oak tree near the river bank. It was a long day.",
            "installing the package needs a working network connection and enough free disk space for \
             the downloaded archives. Run the update command first and read the release notes twice.",
            "a river flows from the mountains to the sea carrying stones sand and the memories of every \
             village it passes. The fishermen wait at the mouth of the river for the evening tide.",
        ];
        let mut out = Vec::new();
        for (n, base) in bases.iter().enumerate() {
            let words: Vec<&str> = base.split(' ').collect();
            for i in 0..12 {
                let mut w = words.clone();
                match i % 4 {
                    0 => {
                        let at = (i * 7) % w.len();
                        w[at] = "changed"
                    }
                    1 => w.truncate(w.len() - 1 - i / 4),
                    2 => w.push("Extra words at the end of this copy."),
                    _ => w.swap(i, i + 5),
                }
                // A bursty word per base (repeated: high residual IDF) for TF*RIDF.
                let burst = ["zebra", "walrus", "heron"][n];
                out.push(format!("{} Copy {n}-{i}. {}", w.join(" "), [burst; 6].join(" ")));
            }
        }
        for i in 0..8 {
            out.push(format!(
                "unrelated text number {i} about {} things and more words here",
                i * 31
            ));
        }
        out
    }

    /// The pairs an engine grouping [`DocKeyer`]'s keys finds: every pair of distinct documents
    /// sharing a `(space, key)` and close (no group here reaches the anchors' bound).
    fn keyed_pairs(c: &DedupConfig, texts: &[String]) -> Vec<(u32, u32)> {
        keyed_pairs_with(DocKeyer::new(c, texts.len()).unwrap(), c, texts)
    }

    fn keyed_pairs_with(keyer: DocKeyer, c: &DedupConfig, texts: &[String]) -> Vec<(u32, u32)> {
        let shingler = Shingler::new(c.shingle, c.seed).with_segmentation(c.segmentation);
        let (mut norm, mut scratch) = (NormalizedText::default(), ShingleScratch::default());
        let keys: Vec<DocKeys> = texts
            .iter()
            .map(|t| {
                shingler.normalize_into(t, &mut norm);
                let mut shingles = Vec::new();
                shingler.shingles_into(&norm, &mut scratch, &mut shingles);
                keyer.keys(&DocView { text: t, norm: &norm, shingles: &shingles })
            })
            .collect();
        let mut rows: Vec<((u32, u64), u32)> = keys
            .iter()
            .enumerate()
            .flat_map(|(d, k)| k.keys.iter().map(move |&key| (key, d as u32)))
            .collect();
        rows.sort_unstable();
        let mut pairs = Vec::new();
        for group in rows.chunk_by(|x, y| x.0 == y.0) {
            for (i, a) in group.iter().enumerate() {
                for b in &group[i + 1..] {
                    if keyer.close(keys[a.1 as usize].fingerprint, keys[b.1 as usize].fingerprint) {
                        pairs.push((a.1, b.1));
                    }
                }
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        pairs
    }

    /// A lexicon of the texts' own statistics, as `lookalike lexicon build` would save it.
    fn lexicon(texts: &[String]) -> std::sync::Arc<crate::lexical::collection::Lexicon> {
        let c = DedupConfig::default();
        let shingler = Shingler::new(c.shingle, c.seed).with_segmentation(c.segmentation);
        let mut norm = NormalizedText::default();
        let terms: Vec<_> = texts
            .iter()
            .map(|t| {
                shingler.normalize_into(t, &mut norm);
                crate::lexical::collection::TermCounts::from_normalized(&norm, c.seed)
            })
            .collect();
        let stats = super::super::keys::collection_stats(&terms);
        std::sync::Arc::new(crate::lexical::collection::Lexicon::new(stats, c.seed, "test"))
    }

    fn configs() -> Vec<DedupConfig> {
        let at = |method, threshold| DedupConfig { method, threshold, ..DedupConfig::default() };
        let lexicon = lexicon(&texts());
        // A band of frequent terms: the copies' own numbers (rare) stay out of the signatures.
        let band = crate::lexical::imatch::IMatchConfig {
            nidf_low: 0.0,
            nidf_high: 0.5,
            min_terms: 3,
            ..Default::default()
        };
        let imatch = crate::config::IMatchSettings { imatch: band, lexicon: Some(lexicon.clone()) };
        // The one word of highest tf × ridf: each base's bursty word.
        let tf_ridf = crate::config::TfRidfSettings {
            tf_ridf: crate::lexical::lexsig::TfRidfConfig { words: 1, ..Default::default() },
            lexicon: Some(lexicon),
        };
        vec![
            at(MethodConfig::IMatch(imatch.clone()), 0.8),
            at(MethodConfig::IMatchRand(imatch), 0.8),
            at(MethodConfig::TfRidf(tf_ridf), 0.8),
            at(
                MethodConfig::SimHash(SimHashConfig {
                    max_distance: Some(9),
                    ..SimHashConfig::default()
                }),
                0.8,
            ),
            at(
                MethodConfig::SimHash(SimHashConfig {
                    max_distance: Some(12),
                    ..SimHashConfig::default()
                }),
                0.5,
            ),
            at(MethodConfig::Combined(CombinedConfig::default()), 0.5),
            at(MethodConfig::from(MethodKind::LongSentences), 0.8),
            at(MethodConfig::Partitioned(PartitionConfig::default()), 0.8),
            at(
                MethodConfig::Partitioned(PartitionConfig {
                    min_shared: 3,
                    ..PartitionConfig::default()
                }),
                0.8,
            ),
        ]
    }

    #[test]
    fn document_keys_give_the_methods_own_candidates() {
        let texts = texts();
        for c in configs() {
            let want = crate::testutil::library_pairs(&c, &texts);
            assert!(want.len() >= 3, "{}: {} pairs", c.method.kind(), want.len());
            assert_eq!(keyed_pairs(&c, &texts), want, "{} at {}", c.method.kind(), c.threshold);
        }
    }

    /// The statistics of `texts` counted as a piecewise engine counts them: two pieces sharing
    /// some texts, each counting its own, the shared ones subtracted from the second, the counts
    /// carried as bytes.
    fn piecewise_statistics(c: &DedupConfig, texts: &[String]) -> crate::method::PartialStatistics {
        use crate::method::{PartialStatistics, StatisticsPass};
        let pass = StatisticsPass::new(c).expect("a method with a statistics pass");
        let shingler = Shingler::new(c.shingle, c.seed).with_segmentation(c.segmentation);
        let count = |texts: &[String]| {
            let mut partial = PartialStatistics::new();
            let (mut norm, mut scratch) = (NormalizedText::default(), ShingleScratch::default());
            for t in texts {
                shingler.normalize_into(t, &mut norm);
                let mut shingles = Vec::new();
                shingler.shingles_into(&norm, &mut scratch, &mut shingles);
                pass.add(&mut partial, &DocView { text: t, norm: &norm, shingles: &shingles });
            }
            PartialStatistics::from_bytes(&partial.to_bytes()).unwrap()
        };
        let (first, second) = (&texts[..texts.len() / 2 + 3], &texts[texts.len() / 2..]);
        let mut stats = count(first);
        stats.merge(count(second));
        stats.subtract(&count(&texts[texts.len() / 2..texts.len() / 2 + 3]));
        assert_eq!(stats.docs(), texts.len() as u64);
        assert_eq!(stats.to_bytes(), count(texts).to_bytes());
        stats
    }

    #[test]
    fn merged_statistics_key_documents_as_the_statistics_pass_signs_them() {
        let texts = texts();
        let at = |method| DedupConfig { method, ..DedupConfig::default() };
        let band = crate::lexical::imatch::IMatchConfig {
            nidf_low: 0.0,
            nidf_high: 0.5,
            min_terms: 3,
            ..Default::default()
        };
        let imatch = crate::config::IMatchSettings { imatch: band, lexicon: None };
        let tf_ridf = crate::config::TfRidfSettings {
            tf_ridf: crate::lexical::lexsig::TfRidfConfig { words: 1, ..Default::default() },
            lexicon: None,
        };
        let tf_idf = SimHashConfig {
            weights: Weighting::TfIdf,
            max_distance: Some(16),
            ..SimHashConfig::default()
        };
        let combined = CombinedConfig { weights: Weighting::TfIdf, ..CombinedConfig::default() };
        let refwords = crate::config::RefWordsSettings {
            selection: crate::lexical::refwords::RefWordsConfig { words: 30, ..Default::default() },
            ..Default::default()
        };
        for c in [
            at(MethodConfig::IMatch(imatch.clone())),
            at(MethodConfig::IMatchRand(imatch)),
            at(MethodConfig::TfRidf(tf_ridf)),
            at(MethodConfig::SimHash(tf_idf)),
            DedupConfig { threshold: 0.5, ..at(MethodConfig::Combined(combined)) },
            DedupConfig { threshold: 0.5, ..at(MethodConfig::RefWords(refwords.clone())) },
            DedupConfig {
                threshold: 0.5,
                ..at(MethodConfig::RefWords(crate::config::RefWordsSettings {
                    min_bits: 1,
                    ..refwords.clone()
                }))
            },
        ] {
            assert!(matches!(DocKeyer::new(&c, 10), Err(KeyerError::NoDocumentKeys(_))));
            let want = crate::testutil::library_pairs(&c, &texts);
            assert!(want.len() >= 3, "{}: {} pairs", c.method.kind(), want.len());
            let stats = piecewise_statistics(&c, &texts);
            let keyer = DocKeyer::with_statistics(&c, texts.len(), &stats).unwrap();
            assert_eq!(keyed_pairs_with(keyer, &c, &texts), want, "{}", c.method.kind());
        }
        // Methods without a statistics pass: none.
        for kind in [MethodKind::MinHash, MethodKind::SpotSigs] {
            assert!(crate::method::StatisticsPass::new(&at(MethodConfig::from(kind))).is_none());
        }
    }

    /// The estimates of pairs computed from their two texts alone (with the collection's
    /// statistics for the methods that sign with them) are the pipeline's.
    #[test]
    fn pair_estimates_from_two_texts_are_the_pipelines() {
        use crate::method::{Slot, estimate_pairs};
        let texts = texts();
        let mut checked = 0;
        let tf_idf = SimHashConfig {
            weights: Weighting::TfIdf,
            max_distance: Some(16),
            ..SimHashConfig::default()
        };
        let mut all = configs();
        all.extend([
            DedupConfig { method: MethodConfig::SimHash(tf_idf), ..DedupConfig::default() },
            DedupConfig {
                method: MethodConfig::from(MethodKind::MinHash),
                threshold: 0.5,
                ..DedupConfig::default()
            },
            DedupConfig {
                method: MethodConfig::from(MethodKind::ModM),
                threshold: 0.5,
                ..DedupConfig::default()
            },
            DedupConfig {
                method: MethodConfig::from(MethodKind::SpotSigs),
                threshold: 0.5,
                ..DedupConfig::default()
            },
            DedupConfig {
                method: MethodConfig::from(MethodKind::IMatch),
                ..DedupConfig::default()
            },
        ]);
        for c in all {
            // The pipeline's estimates: every text a head.
            let engine = crate::testutil::prepared_engine(&c, &texts);
            let stats =
                crate::method::StatisticsPass::new(&c).map(|_| piecewise_statistics(&c, &texts));
            for (a, b) in [(0, 1), (0, 5), (3, 14), (13, 40), (2, 3)] {
                let want = engine.method().estimate(Slot(a), Slot(b));
                let got = estimate_pairs(
                    &c,
                    stats.as_ref(),
                    &[texts[a as usize].as_str(), texts[b as usize].as_str()],
                    &[(0, 1)],
                )
                .unwrap();
                assert_eq!(got[0].estimate, want, "{} ({a}, {b})", c.method.kind());
                assert_eq!(got[0].accepted, engine.method().accepts(want));
                checked += usize::from(want > 0.0);
            }
        }
        assert!(checked > 20);
    }

    #[test]
    fn methods_without_per_document_keys_say_why() {
        let why =
            |method| match DocKeyer::new(&DedupConfig { method, ..DedupConfig::default() }, 10) {
                Err(KeyerError::NoDocumentKeys(why)) => why,
                other => panic!("{other:?}"),
            };
        assert!(why(MethodConfig::from(MethodKind::IMatch)).contains("whole collection"));
        assert!(why(MethodConfig::from(MethodKind::ModM)).contains("Broder's sort"));
        assert!(why(MethodConfig::from(MethodKind::SpotSigs)).contains("inverted index"));
        let tf_idf = SimHashConfig { weights: Weighting::TfIdf, ..SimHashConfig::default() };
        assert!(why(MethodConfig::SimHash(tf_idf)).contains("document frequencies"));
        let many = PartitionConfig { lists: 64, min_shared: 4, ..PartitionConfig::default() };
        assert!(why(MethodConfig::Partitioned(many)).contains("C(64, 4) = 635376"));
        let far = crate::config::RefWordsSettings { distance: 2, ..Default::default() };
        assert!(why(MethodConfig::RefWords(far)).contains("Hamming distance 2"));
        assert!(why(MethodConfig::from(MethodKind::RefWords)).contains("relative term"));
    }

    #[test]
    fn subset_keys_count_every_k_subset() {
        let keys = signed(Some(Ok(vec![5, 1, 4, 2, 3])), 2);
        assert_eq!(keys.keys.len(), 10);
        // Two documents sharing exactly 2 of their keys share exactly one subset key.
        let other = signed(Some(Ok(vec![1, 3, 9, 10])), 2);
        let shared = keys.keys.iter().filter(|k| other.keys.contains(k)).count();
        assert_eq!(shared, 1);
        assert_eq!(signed(Some(Err("short".into())), 2).unsigned.as_deref(), Some("short"));
    }
}
