//! [`DocKeyer`]: the candidate keys of one document, for the methods whose candidates come from
//! keys each document has by itself (no collection statistics), computed outside the pipeline:
//! by the Ray job's sketch kernel, or any engine that groups documents by key.

use std::fmt;

use xxhash_rust::xxh3::xxh3_64_with_seed;

use super::{Context, DocView, LexDoc, MethodKind, SimDoc};
use crate::candidates::hamming::combinations;
use crate::config::DedupConfig;
use crate::error::Error;
use crate::sketch::simhash::{DocFreq, Weighting, hamming};

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
///   fingerprints within k agree under at least one mask of [`TableConfig::key_masks`](crate::candidates::hamming::TableConfig::key_masks), whatever
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
    kind: MethodKind,
    keyer: Box<dyn DocumentKeys>,
}

/// A method's keys for one document alone: what a method with per-document keys implements (in
/// its own file), and what its [`MethodSpec::document_keys`](super::options::MethodSpec) builds.
pub trait DocumentKeys: fmt::Debug + Send + Sync {
    /// The keys of one document, from its view as the pipeline makes it.
    fn keys(&self, doc: &DocView<'_>) -> DocKeys;

    /// The Hamming distance k within which two documents sharing a key are candidates (SimHash,
    /// combined); `None`: every two documents sharing a key are.
    fn max_distance(&self) -> Option<u32> {
        None
    }

    /// Whether a group sharing a key is listed as the library lists LSH buckets (the combined
    /// method); otherwise every pair of the group is a candidate.
    fn lists_anchors(&self) -> bool {
        false
    }

    /// Whether two documents sharing a key are candidates, from their [`DocKeys::fingerprint`]s:
    /// by default, within [`DocumentKeys::max_distance`] when there is one.
    fn close(&self, a: u64, b: u64) -> bool {
        self.max_distance().is_none_or(|k| hamming(a, b) <= k)
    }
}

/// What a method's keyer is built from: the configuration, about how many documents the
/// collection has (the SimHash table layout), and the collection's statistics when a
/// [`StatisticsPass`](super::StatisticsPass) counted them.
#[derive(Debug, Clone, Copy)]
pub struct KeyingInput<'a> {
    /// The configuration.
    pub config: &'a DedupConfig,
    /// About how many documents the collection has.
    pub documents: usize,
    /// The statistics counted over the collection's heads, if any.
    pub statistics: Option<&'a super::PartialStatistics>,
}

impl KeyingInput<'_> {
    /// The method's context.
    pub(super) fn context(&self) -> Context {
        Context::of(self.config)
    }

    /// The statistics as a lexicon (what a lexicon file gives I-Match and TF*RIDF: the same
    /// `Signer::from_stats` as `prepare`), if counted.
    pub(super) fn lexicon(&self) -> Option<std::sync::Arc<crate::lexical::collection::Lexicon>> {
        self.statistics.map(|s| s.lexicon(self.config.seed))
    }

    /// The document frequencies tf-idf weights read: `None` for other weights, those counted
    /// when they were, else the refusal (they are known only once every document is read).
    pub(super) fn doc_freq_for(
        &self,
        weights: Weighting,
    ) -> Result<Option<std::sync::Arc<DocFreq>>, KeyerError> {
        match (weights, self.statistics) {
            (Weighting::TfIdf, None) => Err(self.needs("tf·idf weights (document frequencies)")),
            (_, statistics) => Ok(statistics.map(|s| s.doc_freq())),
        }
    }

    /// The refusal of a method that signs documents with `what` of the whole collection.
    pub(super) fn needs(&self, what: &str) -> KeyerError {
        KeyerError::NoDocumentKeys(format!(
            "{} signs documents with {what} of the whole collection, known only once every document is read",
            self.config.method.kind()
        ))
    }
}

/// A method's keyer, or why it has none: what [`MethodSpec::document_keys`] gives.
///
/// [`MethodSpec::document_keys`]: super::options::MethodSpec::document_keys
pub type Keying = Result<Box<dyn DocumentKeys>, KeyerError>;

impl DocKeyer {
    /// The keyer of a configuration, for a collection of about `documents` documents (the SimHash
    /// table layout, when the configuration does not fix its blocks).
    pub fn new(c: &DedupConfig, documents: usize) -> Result<DocKeyer, KeyerError> {
        DocKeyer::build(KeyingInput { config: c, documents, statistics: None })
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
        DocKeyer::build(KeyingInput { config: c, documents, statistics: Some(statistics) })
    }

    fn build(input: KeyingInput<'_>) -> Result<DocKeyer, KeyerError> {
        let kind = input.config.method.kind();
        let keyer = (kind.spec().document_keys)(input)?;
        Ok(DocKeyer { kind, keyer })
    }

    /// The method.
    pub fn kind(&self) -> MethodKind {
        self.kind
    }

    /// The keys of one document, from its view as the pipeline makes it (text, normalized text
    /// and shingles, never empty).
    pub fn keys(&self, doc: &DocView<'_>) -> DocKeys {
        self.keyer.keys(doc)
    }

    /// Whether a group of documents sharing a key is listed as the library lists LSH buckets
    /// (every pair up to `max_pairs_per_group`, then each member with the first
    /// [`ANCHORS`](crate::candidates::lsh::ANCHORS) and its predecessor): the combined method.
    /// Otherwise every pair of the group is a candidate.
    pub fn lists_anchors(&self) -> bool {
        self.keyer.lists_anchors()
    }

    /// SimHash, combined: the Hamming distance k within which two documents sharing a key are
    /// candidates.
    pub fn max_distance(&self) -> Option<u32> {
        self.keyer.max_distance()
    }

    /// Whether two documents sharing a key are candidates, from their [`DocKeys::fingerprint`]s
    /// (always, except for SimHash fingerprints more than k bits apart, and reference-word
    /// signatures whose second hash differs).
    pub fn close(&self, a: u64, b: u64) -> bool {
        self.keyer.close(a, b)
    }
}

/// MinHash, super-shingles and exact have no [`DocumentKeys`]: the first two have keys of their
/// own, exact has no candidates.
pub(super) fn own_keys(input: KeyingInput<'_>) -> Keying {
    Err(KeyerError::NoDocumentKeys(format!(
        "{} has keys of its own (LSH band keys, super-shingles) or none (exact)",
        input.config.method.kind()
    )))
}

/// A SimHash document's fingerprint (0 when it has none).
pub(super) fn fingerprint_of(d: SimDoc) -> u64 {
    match d {
        SimDoc::Fingerprint(fp) => fp,
        SimDoc::Bag(_) | SimDoc::Empty => 0,
    }
}

/// The keys of a document signed with a lexicon file's statistics (as read: never term counts).
pub(super) fn lexicon_signed(doc: LexDoc) -> Option<Result<Vec<u64>, String>> {
    match doc {
        LexDoc::Keys(keys) => Some(keys),
        LexDoc::Terms(_) | LexDoc::Empty => None,
    }
}

/// A signature method's keys (space 0), one per `min_shared`-subset of them when it is above 1.
pub(super) fn signed(keys: Option<Result<Vec<u64>, String>>, min_shared: usize) -> DocKeys {
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
    use crate::config::{CombinedConfig, MethodConfig, SimHashConfig};
    use crate::lexical::partitioned::PartitionConfig;
    use crate::shingles::Shingler;
    use crate::sketch::simhash::Weighting;
    use crate::testutil::each_view;
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
        let keys: Vec<DocKeys> = each_view(c, texts, |view| keyer.keys(view));
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
        let count = |texts: &[String]| {
            let mut partial = PartialStatistics::new();
            each_view(c, texts, |view| pass.add(&mut partial, view));
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

    /// Each method's spec builds its own keyer (none reaches another's `unreachable!`): with its
    /// default settings exactly the methods the type's documentation lists have keys alone, and
    /// with counted statistics the statistics-signed ones join them.
    #[test]
    fn every_method_keys_documents_or_says_why_by_its_own_spec() {
        use MethodKind::*;
        let texts = texts();
        let c = |kind| DedupConfig { method: MethodConfig::from(kind), ..DedupConfig::default() };
        let keyed = |statistics: bool| -> Vec<MethodKind> {
            MethodKind::ALL
                .iter()
                .copied()
                .filter(|&kind| {
                    let c = c(kind);
                    let keyer = if statistics {
                        let pass = crate::method::StatisticsPass::new(&c);
                        let counted = pass.map(|_| piecewise_statistics(&c, &texts));
                        match counted {
                            Some(s) => DocKeyer::with_statistics(&c, texts.len(), &s),
                            None => DocKeyer::new(&c, texts.len()),
                        }
                    } else {
                        DocKeyer::new(&c, texts.len())
                    };
                    match keyer {
                        Ok(k) => {
                            assert_eq!(k.kind(), kind);
                            true
                        }
                        Err(KeyerError::NoDocumentKeys(why)) => {
                            assert!(why.contains(kind.name()), "{kind}: {why}");
                            false
                        }
                        Err(e) => panic!("{kind}: {e}"),
                    }
                })
                .collect()
        };
        assert_eq!(keyed(false), [SimHash, Combined, Partitioned, LongSentences]);
        assert_eq!(
            keyed(true),
            [SimHash, Combined, IMatch, IMatchRand, Partitioned, TfRidf, LongSentences, RefWords]
        );
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
