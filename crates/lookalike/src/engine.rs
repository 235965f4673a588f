//! What each method keeps per document and how it finds candidates. Contract: "give me every head
//! document's features in input order, I give you the candidate pairs with the method's own
//! similarity estimate, and that estimate for any two documents".
//!
//! The pipeline ([`crate::pipeline`]) owns reading order, exact duplicates, verification and
//! clustering; this module is the only place that knows what a method computes:
//!
//! | method | kept per head | candidates | own estimate |
//! |---|---|---|---|
//! | minhash | `num_perm` u32 values | LSH banding | equal values / `num_perm` |
//! | supershingles | `minhashes` u32 values | shared super- or mega-shingle | equal values / `minhashes` |
//! | mod-m, min-s, broder | sorted sample of shingle hashes | Broder's sort of ⟨shingle, doc⟩ | the method's estimator |
//! | simhash | 64-bit fingerprint (tf-idf: the weighted bag until the end) | Manku's tables, distance ≤ k | 1 − h/64 |

use std::sync::Arc;

use rayon::prelude::*;

use crate::candidates::hamming::{TableConfig, hamming_candidates};
use crate::candidates::lsh::{CandidateStats, LshParams, band_candidates, decode_pair};
use crate::candidates::shared_keys;
use crate::candidates::sorted_pairs::{self as broder, BroderConfig};
use crate::lexical::collection::{CollectionStats, Lexicon, TermCounts};
use crate::lexical::imatch::{IMatch, IMatchConfig};
use crate::lexical::lexsig::{self, LongSentenceConfig, TfRidfConfig};
use crate::lexical::partitioned::{PartitionConfig, Partitioner};
use crate::lexical::refwords::{DocSignature, RefWord, RefWords, RefWordsConfig};
use crate::lexical::spotsigs::{SpotExtractor, SpotIndex, SpotSet, weighted_jaccard};
use crate::method::Method;
use crate::pipeline::{DedupConfig, Error, Measure};
use crate::sketch::minhash::{MinHasher, estimate_jaccard};
use crate::sketch::sample::{MinSketch, ModSketch};
use crate::sketch::simhash::{self, DocFreq, SimFeatures, SimHasher, Weighting};
use crate::sketch::supershingles;
use crate::text::normalize::NormalizedText;
use crate::verify::intersection_size;

/// How MOD-m, MIN-s and Broder's algorithm sample a document's shingles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Sample {
    /// Keep the shingle hashes ≡ 0 (mod m) (variable size; estimates containment too).
    Mod(u64),
    /// Keep the s smallest shingle hashes (bottom-s sketch).
    Min(usize),
}

impl std::fmt::Display for Sample {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Sample::Mod(m) => write!(f, "mod:{m}"),
            Sample::Min(s) => write!(f, "min:{s}"),
        }
    }
}

impl std::str::FromStr for Sample {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || format!("`{s}` is not a sample: use mod:M (M ≥ 1) or min:S (S ≥ 1)");
        let (kind, n) = s.split_once(':').ok_or_else(bad)?;
        let n: u64 = n.trim().parse().map_err(|_| bad())?;
        match kind.trim() {
            "mod" if n >= 1 => Ok(Sample::Mod(n)),
            "min" if n >= 1 => Ok(Sample::Min(n as usize)),
            _ => Err(bad()),
        }
    }
}

/// SimHash settings of a run.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct SimHashConfig {
    /// Hamming distance k: fingerprints within k bits are near duplicates (default 3, Manku et
    /// al.). `None`: the distance expected at the Jaccard threshold ([`simhash_distance_for`]).
    pub max_distance: Option<u32>,
    /// Feature weights (default tf).
    pub weights: Weighting,
    /// Features: tokens or shingles. `None`: the run's shingles (`DedupConfig::shingle`).
    pub features: Option<SimFeatures>,
    /// Blocks of the permuted tables (`None`: chosen from k and the collection size).
    pub blocks: Option<usize>,
}

impl Default for SimHashConfig {
    fn default() -> Self {
        SimHashConfig {
            max_distance: Some(simhash::DEFAULT_MAX_DISTANCE),
            weights: Weighting::Tf,
            features: None,
            blocks: None,
        }
    }
}

/// Settings of the lexical methods (I-Match, randomized lexicons, partitioned fingerprints,
/// TF*RIDF, long sentences).
#[derive(Debug, Clone, serde::Serialize)]
pub struct LexicalConfig {
    /// I-Match: NIDF band, minimum terms, and for `i-match-rand` the extra lexicons K and the
    /// drop fraction p (method `i-match` always uses K = 0).
    pub imatch: IMatchConfig,
    /// Partitioned fingerprints: lists L and fingerprints to share.
    pub partition: PartitionConfig,
    /// TF*RIDF: words per signature.
    pub tf_ridf: TfRidfConfig,
    /// Long sentences: sentences per signature.
    pub long_sentences: LongSentenceConfig,
    /// Reference words: selection settings.
    pub refwords: RefWordsConfig,
    /// Reference words: signatures within this Hamming distance are candidates (0: equal).
    pub refwords_distance: u32,
    /// Reference words: fewest set bits a signature needs (documents with fewer are unsigned).
    pub refwords_min_bits: u32,
    /// SpotSigs: chain length c (`None`: the language's default, 2; 4 for Chinese and Japanese).
    pub spot_chain: Option<usize>,
    /// Collection statistics saved by `lookalike lexicon build`: sign with them instead of the
    /// statistics of the input itself (so a new batch is signed as an old one was).
    #[serde(skip)]
    pub lexicon: Option<Arc<Lexicon>>,
}

impl Default for LexicalConfig {
    fn default() -> Self {
        LexicalConfig {
            imatch: IMatchConfig::default(),
            partition: PartitionConfig::default(),
            tf_ridf: TfRidfConfig::default(),
            long_sentences: LongSentenceConfig::default(),
            refwords: RefWordsConfig::default(),
            refwords_distance: 0,
            refwords_min_bits: 3,
            spot_chain: None,
            lexicon: None,
        }
    }
}

/// What signs a document once the collection statistics are known.
#[derive(Debug)]
enum Signer {
    IMatch(IMatch),
    TfRidf(CollectionStats, TfRidfConfig),
}

impl Signer {
    fn new(c: &DedupConfig, stats: CollectionStats) -> Result<Signer, Error> {
        match c.method {
            Method::IMatch | Method::IMatchRand => {
                let mut cfg = c.lexical.imatch;
                cfg.seed = c.seed;
                if c.method == Method::IMatch {
                    cfg.extra_lexicons = 0;
                }
                Ok(Signer::IMatch(
                    IMatch::new(&stats, cfg).map_err(|e| Error::Config(e.to_string()))?,
                ))
            }
            _ => {
                let mut cfg = c.lexical.tf_ridf;
                cfg.seed = c.seed;
                Ok(Signer::TfRidf(stats, cfg))
            }
        }
    }

    fn sign(&self, doc: &TermCounts) -> Result<Vec<u64>, String> {
        match self {
            Signer::IMatch(m) => m.signatures(doc).map_err(|e| e.to_string()),
            Signer::TfRidf(stats, cfg) => lexsig::tf_ridf_signature(doc, stats, cfg)
                .map(|k| vec![k])
                .map_err(|e| e.to_string()),
        }
    }

    fn terms(&self) -> u64 {
        (match self {
            Signer::IMatch(m) => m.lexicon().len(),
            Signer::TfRidf(s, _) => s.len(),
        }) as u64
    }
}

/// The Hamming distance between the SimHash fingerprints of two documents of equal size whose
/// shingle sets have Jaccard resemblance `t`: their unit-weight vectors make the angle
/// θ = arccos(2t / (1 + t)) (|A∩B| / √(|A|·|B|) with |A∩B| = 2t/(1+t)·|A|), and each of the 64
/// bits differs with probability θ/π (Charikar 2002). 10 at t = 0.8, 3 at t = 0.97: Manku et al.'s
/// k = 3 is for near-identical pages.
pub fn simhash_distance_for(t: f64) -> u32 {
    let cos = (2.0 * t / (1.0 + t)).clamp(-1.0, 1.0);
    (64.0 * cos.acos() / std::f64::consts::PI).round() as u32
}

/// Item `slot` of lists stored one after the other in `values`, list i ending at `ends[i]`.
fn flat_slice<'a>(values: &'a [u64], ends: &[usize], slot: u32) -> &'a [u64] {
    let end = ends[slot as usize];
    let start = if slot == 0 { 0 } else { ends[slot as usize - 1] };
    &values[start..end]
}

/// Appends one head's signature keys (sorted, deduplicated) to the flat key lists, or records why
/// it has none.
fn push_keys(
    values: &mut Vec<u64>,
    ends: &mut Vec<usize>,
    unsigned: &mut Vec<(u32, String)>,
    keys: Result<Vec<u64>, String>,
) {
    match keys {
        Ok(mut keys) => {
            keys.sort_unstable();
            keys.dedup();
            values.extend_from_slice(&keys);
        }
        Err(reason) => unsigned.push((ends.len() as u32, reason)),
    }
    ends.push(values.len());
}

/// |X ∩ Y| / min(|X|, |Y|) of two sorted sets (0 when one is empty).
fn shared_over_smaller(x: &[u64], y: &[u64]) -> f64 {
    let smaller = x.len().min(y.len());
    if smaller == 0 { 0.0 } else { intersection_size(x, y) as f64 / smaller as f64 }
}

/// A method's per-document features, computed in parallel for every document.
#[derive(Debug, Default)]
pub(crate) enum DocFeatures {
    /// Nothing beyond the shingles (exact, minhash, supershingles: signatures are made for heads
    /// only, later).
    #[default]
    None,
    /// A sorted sample of shingle hashes.
    Sample(Vec<u64>),
    /// A SimHash fingerprint.
    Fingerprint(u64),
    /// A weighted bag of SimHash features `(hash, tf)`, until document frequencies are known.
    Bag(Vec<(u64, u32)>),
    /// Term counts, until the collection statistics are known.
    Terms(TermCounts),
    /// Signature keys, or why the document has none.
    Keys(Result<Vec<u64>, String>),
    /// SpotSigs' multiset of spots.
    Spots(SpotSet),
}

/// Per-head storage, by slot.
#[derive(Debug)]
enum Heads {
    None,
    Sigs(Vec<u32>),
    Samples {
        values: Vec<u64>,
        ends: Vec<usize>,
    },
    Fingerprints(Vec<u64>),
    Bags(Vec<Vec<(u64, u32)>>),
    Terms(Vec<TermCounts>),
    /// Sorted keys of every head, with the heads that have none and why.
    Keys {
        values: Vec<u64>,
        ends: Vec<usize>,
        unsigned: Vec<(u32, String)>,
    },
    Spots(Vec<SpotSet>),
    RefSigs {
        sigs: Vec<DocSignature>,
        words: usize,
        unsigned: Vec<(u32, String)>,
    },
}

/// A candidate pair of slots (`a < b`, encoded `a << 32 | b`) with the method's estimate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Candidate {
    pub pair: u64,
    pub estimate: f64,
    /// Whether the method itself calls the pair a duplicate (its own decision, used when
    /// verification is `estimate`).
    pub accepted: bool,
}

/// Figures of candidate generation, for the summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct EngineStats {
    /// Broder's algorithm: its counters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub broder: Option<broder::BroderStats>,
    /// Documents whose sample was empty (MOD-m on very short documents): they cannot meet any
    /// other document.
    pub empty_samples: u64,
    /// SimHash: blocks and tables of the permuted tables.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub simhash_tables: Option<(usize, usize)>,
    /// Lexical methods: documents without a signature (too few lexicon terms, too short).
    pub unsigned: u64,
    /// Lexical methods: terms in the lexicon (I-Match's base lexicon), in the statistics, or
    /// reference words chosen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lexicon_terms: Option<u64>,
    /// SpotSigs: what the index did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spotsigs: Option<crate::lexical::spotsigs::SpotStats>,
}

/// The method-specific half of a run.
#[derive(Debug)]
pub(crate) struct Engine {
    method: Method,
    minhasher: Option<MinHasher>,
    simhasher: SimHasher,
    partitioner: Option<Partitioner>,
    signer: Option<Signer>,
    lexicon_terms: Option<u64>,
    /// SpotSigs: an extractor per language with built-in antecedents, English first.
    spotters: Vec<(&'static str, SpotExtractor)>,
    heads: Heads,
    slots: usize,
}

impl Engine {
    pub fn new(c: &DedupConfig) -> Result<Engine, Error> {
        let minhasher = match c.method {
            Method::MinHash => Some(MinHasher::new(c.num_perm, c.scheme, c.seed)),
            Method::SuperShingles => {
                Some(MinHasher::new(c.supershingles.minhashes, c.scheme, c.seed))
            }
            _ => None,
        };
        let heads = match c.method {
            Method::MinHash | Method::SuperShingles => Heads::Sigs(Vec::new()),
            Method::ModM | Method::MinS | Method::Broder => {
                Heads::Samples { values: Vec::new(), ends: Vec::new() }
            }
            Method::SimHash if c.simhash.weights == Weighting::TfIdf => Heads::Bags(Vec::new()),
            Method::SimHash => Heads::Fingerprints(Vec::new()),
            Method::SpotSigs => Heads::Spots(Vec::new()),
            Method::RefWords => Heads::Terms(Vec::new()),
            m if m.needs_statistics() && c.lexical.lexicon.is_none() => Heads::Terms(Vec::new()),
            m if m.is_lexical() => {
                Heads::Keys { values: Vec::new(), ends: Vec::new(), unsigned: Vec::new() }
            }
            _ => Heads::None,
        };
        let partitioner = match c.method {
            Method::Partitioned => {
                let mut cfg = c.lexical.partition;
                cfg.seed = c.seed;
                Some(Partitioner::new(cfg).map_err(|e| Error::Config(e.to_string()))?)
            }
            _ => None,
        };
        let signer = match &c.lexical.lexicon {
            Some(lex) if c.method.needs_statistics() => Some(Signer::new(c, lex.stats.clone())?),
            _ => None,
        };
        let lexicon_terms = signer.as_ref().map(Signer::terms);
        let spotters = if c.method == Method::SpotSigs {
            let mut langs: Vec<&'static str> =
                crate::lexical::spotsigs::antecedent_languages().collect();
            langs.sort_by_key(|&l| l != "en");
            langs
                .into_iter()
                .filter_map(|l| {
                    let mut cfg = crate::lexical::spotsigs::SpotConfig::for_language(l)?;
                    cfg.seed = c.seed;
                    if let Some(chain) = c.lexical.spot_chain {
                        cfg.chain = chain;
                    }
                    Some((l, SpotExtractor::new(cfg, crate::text::lang::stopwords(l))))
                })
                .collect()
        } else {
            Vec::new()
        };
        Ok(Engine {
            method: c.method,
            minhasher,
            simhasher: SimHasher::new(c.seed),
            partitioner,
            signer,
            lexicon_terms,
            spotters,
            heads,
            slots: 0,
        })
    }

    /// The sample of the configured method (MOD-m, MIN-s, Broder).
    fn sample(c: &DedupConfig, shingles: &[u64]) -> Vec<u64> {
        match c.effective_sample() {
            Sample::Mod(m) => ModSketch::new(m, c.seed).sketch(shingles),
            Sample::Min(s) => MinSketch::new(s, c.seed).sketch(shingles),
        }
    }

    /// The features of one document (runs in parallel, for every document).
    pub fn features(
        &self,
        c: &DedupConfig,
        text: &str,
        norm: &NormalizedText,
        shingles: &[u64],
    ) -> DocFeatures {
        match self.method {
            Method::SpotSigs => {
                // Antecedents and stopwords of the document's language (English when unknown or
                // without a built-in antecedent set).
                let lang = crate::text::lang::detect(text).map(|d| d.code);
                let spotter = self
                    .spotters
                    .iter()
                    .find(|(l, _)| Some(*l) == lang)
                    .or(self.spotters.first())
                    .map(|(_, s)| s);
                match spotter {
                    Some(s) => DocFeatures::Spots(s.spots_normalized(norm)),
                    None => DocFeatures::None,
                }
            }
            Method::RefWords => DocFeatures::Terms(TermCounts::from_normalized(norm, c.seed)),
            Method::LongSentences => {
                let mut cfg = c.lexical.long_sentences;
                cfg.seed = c.seed;
                let mut scratch = NormalizedText::default();
                DocFeatures::Keys(
                    lexsig::long_sentence_signature(text, &cfg, &mut scratch)
                        .map(|k| vec![k])
                        .map_err(|e| e.to_string()),
                )
            }
            Method::Partitioned => {
                let terms = TermCounts::from_normalized(norm, c.seed);
                let p = self.partitioner.as_ref().expect("partitioned has a partitioner");
                DocFeatures::Keys(p.fingerprints(&terms).map_err(|e| e.to_string()))
            }
            m if m.needs_statistics() => {
                let terms = TermCounts::from_normalized(norm, c.seed);
                match &self.signer {
                    Some(signer) => DocFeatures::Keys(signer.sign(&terms)),
                    None => DocFeatures::Terms(terms),
                }
            }
            Method::ModM | Method::MinS | Method::Broder => {
                DocFeatures::Sample(Self::sample(c, shingles))
            }
            Method::SimHash => {
                let mut hashes = Vec::new();
                self.simhasher.feature_hashes_into(norm, c.simhash_features(), &mut hashes);
                if c.simhash.weights == Weighting::TfIdf {
                    let bag = hashes
                        .chunk_by(|a, b| a == b)
                        .map(|run| (run[0], run.len() as u32))
                        .collect();
                    DocFeatures::Bag(bag)
                } else {
                    let mut weighted = Vec::new();
                    simhash::weigh(&hashes, c.simhash.weights, None, &mut weighted);
                    DocFeatures::Fingerprint(self.simhasher.fingerprint(&weighted))
                }
            }
            _ => DocFeatures::None,
        }
    }

    /// Stores the heads of a batch: `shingles[i]` and `features[i]` of each new head, in slot
    /// order. MinHash signatures are computed here, in parallel, for heads only.
    pub fn push_heads(&mut self, heads: Vec<(&[u64], DocFeatures)>) {
        self.slots += heads.len();
        match &mut self.heads {
            Heads::None => {}
            Heads::Sigs(sigs) => {
                let hasher = self.minhasher.as_ref().expect("signature methods have a hasher");
                let n = hasher.num_perm();
                let start = sigs.len();
                sigs.resize(start + heads.len() * n, 0);
                sigs[start..].par_chunks_mut(n).zip(&heads).for_each(|(out, (shingles, _))| {
                    hasher.sketch_into(shingles, out);
                });
            }
            Heads::Samples { values, ends } => {
                for (_, f) in heads {
                    if let DocFeatures::Sample(s) = f {
                        values.extend_from_slice(&s);
                    }
                    ends.push(values.len());
                }
            }
            Heads::Fingerprints(fps) => {
                fps.extend(heads.into_iter().map(|(_, f)| match f {
                    DocFeatures::Fingerprint(fp) => fp,
                    _ => 0,
                }));
            }
            Heads::Bags(bags) => {
                bags.extend(heads.into_iter().map(|(_, f)| match f {
                    DocFeatures::Bag(b) => b,
                    _ => Vec::new(),
                }));
            }
            Heads::Terms(terms) => {
                terms.extend(heads.into_iter().map(|(_, f)| match f {
                    DocFeatures::Terms(t) => t,
                    _ => TermCounts::default(),
                }));
            }
            Heads::Spots(spots) => {
                spots.extend(heads.into_iter().map(|(_, f)| match f {
                    DocFeatures::Spots(s) => s,
                    _ => SpotSet::default(),
                }));
            }
            Heads::RefSigs { .. } => {}
            Heads::Keys { values, ends, unsigned } => {
                for (_, f) in heads {
                    let keys = match f {
                        DocFeatures::Keys(keys) => keys,
                        _ => Err("no signature".to_owned()),
                    };
                    push_keys(values, ends, unsigned, keys);
                }
            }
        }
    }

    /// Heads without a signature, by slot, with the reason.
    pub fn unsigned(&self) -> &[(u32, String)] {
        match &self.heads {
            Heads::Keys { unsigned, .. } | Heads::RefSigs { unsigned, .. } => unsigned,
            _ => &[],
        }
    }

    /// Builds the collection statistics from the heads' term counts and signs every head.
    fn finish_terms(&mut self, c: &DedupConfig) -> Result<(), Error> {
        let Heads::Terms(terms) = &self.heads else { return Ok(()) };
        if c.method == Method::RefWords {
            let refwords = match c.lexical.lexicon.as_ref().and_then(|l| l.reference_words.as_ref())
            {
                Some(words) => RefWords::from_words(
                    words.iter().map(|&(term, threshold)| RefWord { term, threshold }),
                ),
                None => RefWords::select(terms, &c.lexical.refwords).0,
            };
            let min_bits = c.lexical.refwords_min_bits;
            let mut sigs = refwords.sign_all(terms);
            let mut unsigned = Vec::new();
            for (i, s) in sigs.iter_mut().enumerate() {
                let bits = s.signature().map_or(0, |x| x.count_ones());
                if bits < min_bits {
                    // Too few bits identify too little: thousands of unrelated documents share
                    // a one-bit signature.
                    unsigned.push((
                        i as u32,
                        format!("{bits} reference words above their thresholds, {min_bits} needed"),
                    ));
                    *s = DocSignature::Unsignable;
                }
            }
            self.lexicon_terms = Some(refwords.len() as u64);
            self.heads = Heads::RefSigs { sigs, words: refwords.len(), unsigned };
            return Ok(());
        }
        let stats = terms
            .par_chunks(1024)
            .map(|chunk| {
                let mut b = CollectionStats::builder();
                for t in chunk {
                    b.add_document(t);
                }
                b
            })
            .reduce(CollectionStats::builder, |mut a, b| {
                a.merge(b);
                a
            })
            .build();
        let signer = Signer::new(c, stats)?;
        self.lexicon_terms = Some(signer.terms());
        let signed: Vec<Result<Vec<u64>, String>> =
            terms.par_iter().map(|t| signer.sign(t)).collect();
        let (mut values, mut ends, mut unsigned) = (Vec::new(), Vec::new(), Vec::new());
        for keys in signed {
            push_keys(&mut values, &mut ends, &mut unsigned, keys);
        }
        self.heads = Heads::Keys { values, ends, unsigned };
        self.signer = Some(signer);
        Ok(())
    }

    fn keys_of(&self, slot: u32) -> &[u64] {
        let Heads::Keys { values, ends, .. } = &self.heads else { return &[] };
        flat_slice(values, ends, slot)
    }

    /// Turns collected tf bags into tf-idf fingerprints (document frequencies of the heads).
    fn finish_bags(&mut self) {
        let Heads::Bags(bags) = &mut self.heads else { return };
        let mut df = DocFreq::new();
        let mut keys = Vec::new();
        for bag in bags.iter() {
            keys.clear();
            keys.extend(bag.iter().map(|&(h, _)| h));
            df.add_document(&keys);
        }
        let hasher = self.simhasher;
        let fps: Vec<u64> = bags
            .par_iter()
            .map_init(
                || (Vec::new(), Vec::new()),
                |(hashes, weighted), bag| {
                    hashes.clear();
                    for &(h, tf) in bag {
                        hashes.extend(std::iter::repeat_n(h, tf as usize));
                    }
                    simhash::weigh(hashes, Weighting::TfIdf, Some(&df), weighted);
                    hasher.fingerprint(weighted)
                },
            )
            .collect();
        self.heads = Heads::Fingerprints(fps);
    }

    fn sig(&self, slot: u32) -> &[u32] {
        let (Heads::Sigs(sigs), Some(h)) = (&self.heads, &self.minhasher) else { return &[] };
        let n = h.num_perm();
        &sigs[slot as usize * n..(slot as usize + 1) * n]
    }

    fn sample_of(&self, slot: u32) -> &[u64] {
        let Heads::Samples { values, ends } = &self.heads else { return &[] };
        flat_slice(values, ends, slot)
    }

    /// SimHash: the Hamming distance of two heads' fingerprints (`None` for other methods).
    pub fn hamming(&self, a: u32, b: u32) -> Option<u32> {
        match &self.heads {
            Heads::Fingerprints(fps) => Some(simhash::hamming(fps[a as usize], fps[b as usize])),
            _ => None,
        }
    }

    /// Size of a head's sample (0 for methods without samples).
    pub fn sample_len(&self, slot: u32) -> usize {
        self.sample_of(slot).len()
    }

    fn fingerprint(&self, slot: u32) -> u64 {
        match &self.heads {
            Heads::Fingerprints(fps) => fps[slot as usize],
            _ => 0,
        }
    }

    /// The method's own similarity estimate of two heads (resemblance, or containment of the
    /// smaller in the larger when the measure is containment).
    pub fn estimate(&self, c: &DedupConfig, a: u32, b: u32) -> f64 {
        match self.method {
            Method::MinHash | Method::SuperShingles => estimate_jaccard(self.sig(a), self.sig(b)),
            Method::ModM | Method::MinS | Method::Broder => {
                let (x, y) = (self.sample_of(a), self.sample_of(b));
                match (c.measure, self.method, c.effective_sample()) {
                    (Measure::Jaccard, Method::ModM, _) => ModSketch::resemblance(x, y),
                    (Measure::Jaccard, Method::MinS, Sample::Min(s)) => {
                        MinSketch::new(s, c.seed).resemblance(x, y)
                    }
                    // Containment of the smaller sample, which is also Broder's homework
                    // estimate: shared sketch elements over the sketch size.
                    _ => shared_over_smaller(x, y),
                }
            }
            Method::SimHash => {
                simhash::similarity(simhash::hamming(self.fingerprint(a), self.fingerprint(b)))
            }
            // Signature methods: the share of keys the two documents have in common (1 or 0 for
            // a single signature; for partitioned fingerprints the share of equal lists).
            Method::SpotSigs => match &self.heads {
                Heads::Spots(spots) => weighted_jaccard(&spots[a as usize], &spots[b as usize]),
                _ => 0.0,
            },
            Method::RefWords => match &self.heads {
                Heads::RefSigs { sigs, words, .. } => {
                    match (sigs[a as usize].signature(), sigs[b as usize].signature()) {
                        (Some(x), Some(y)) if *words > 0 => {
                            1.0 - f64::from(x.hamming(y)) / *words as f64
                        }
                        _ => 0.0,
                    }
                }
                _ => 0.0,
            },
            m if m.is_lexical() => {
                let (x, y) = (self.keys_of(a), self.keys_of(b));
                let most = x.len().max(y.len());
                if most == 0 { 0.0 } else { intersection_size(x, y) as f64 / most as f64 }
            }
            _ => 0.0,
        }
    }

    /// Whether the method itself calls a pair with this estimate a duplicate.
    fn accepts(&self, c: &DedupConfig, estimate: f64) -> bool {
        match self.method {
            Method::SimHash => estimate >= simhash::similarity(c.simhash_distance()) - f64::EPSILON,
            // Equal signatures (enough equal lists) are the method's own decision.
            Method::RefWords => true,
            m if m.is_lexical() => true,
            _ => estimate >= c.threshold,
        }
    }

    /// Candidate pairs of slots, sorted by pair, with the method's estimates.
    pub fn candidates(
        &mut self,
        c: &DedupConfig,
        lsh: LshParams,
    ) -> Result<(Vec<Candidate>, CandidateStats, EngineStats), Error> {
        self.finish_bags();
        self.finish_terms(c)?;
        let mut stats = CandidateStats::default();
        let mut extra = EngineStats {
            unsigned: self.unsigned().len() as u64,
            lexicon_terms: self.lexicon_terms,
            ..EngineStats::default()
        };
        let pairs: Vec<u64> = match (&self.heads, self.method) {
            (Heads::Sigs(sigs), Method::MinHash) => {
                let (pairs, s) = band_candidates(sigs, c.num_perm, lsh, c.max_bucket);
                stats = s;
                pairs
            }
            (Heads::Sigs(_), _) => {
                let keys: Vec<Vec<u64>> = (0..self.slots as u32)
                    .into_par_iter()
                    .map(|slot| {
                        supershingles::document_keys(self.sig(slot), &c.supershingles, c.seed)
                    })
                    .collect();
                supershingles::candidate_pairs(&keys)
                    .into_iter()
                    .map(|(a, b)| (u64::from(a) << 32) | u64::from(b))
                    .collect()
            }
            (Heads::Samples { ends, .. }, _) => {
                extra.empty_samples =
                    (0..ends.len() as u32).filter(|&s| self.sample_of(s).is_empty()).count() as u64;
                let config = BroderConfig {
                    memory_bytes: c.memory,
                    max_docs_per_shingle: c.max_docs_per_shingle,
                    threshold: self.sample_threshold(c),
                    tmp_dir: c.spill_dir.clone(),
                };
                let mut pairs = Vec::new();
                let sketches = (0..ends.len() as u32).map(|s| (s, self.sample_of(s)));
                let bstats = broder::collect(sketches, &config, |p| {
                    pairs.push((u64::from(p.a) << 32) | u64::from(p.b));
                    true
                })?;
                extra.broder = Some(bstats);
                pairs
            }
            (Heads::Fingerprints(fps), _) => {
                let k = c.simhash_distance();
                let cfg = match c.simhash.blocks {
                    Some(b) => TableConfig::new(b, k),
                    None => TableConfig::for_collection(k, fps.len()),
                }
                .ok_or_else(|| {
                    Error::Config(format!(
                        "no permuted-table layout for Hamming distance {k}{}",
                        c.simhash.blocks.map(|b| format!(" with {b} blocks")).unwrap_or_default()
                    ))
                })?;
                extra.simhash_tables = Some((cfg.blocks(), cfg.tables()));
                hamming_candidates(fps, k, cfg)
                    .into_iter()
                    .map(|(a, b, _)| (u64::from(a) << 32) | u64::from(b))
                    .collect()
            }
            (Heads::Spots(spots), _) => {
                let (pairs, s) = SpotIndex::build(spots).all_pairs_with_stats(c.threshold);
                extra.spotsigs = Some(s);
                pairs.into_iter().map(|(a, b, _)| (u64::from(a) << 32) | u64::from(b)).collect()
            }
            (Heads::RefSigs { sigs, .. }, _) => {
                crate::lexical::refwords::signature_candidates(sigs, c.lexical.refwords_distance)
                    .into_iter()
                    .map(|(a, b, _)| (u64::from(a) << 32) | u64::from(b))
                    .collect()
            }
            (Heads::Keys { ends, .. }, method) => {
                let keys: Vec<Vec<u64>> =
                    (0..ends.len() as u32).map(|s| self.keys_of(s).to_vec()).collect();
                let min_shared =
                    if method == Method::Partitioned { c.lexical.partition.min_shared } else { 1 };
                shared_keys::candidate_pairs(&keys, min_shared)
                    .into_iter()
                    .map(|(a, b)| (u64::from(a) << 32) | u64::from(b))
                    .collect()
            }
            _ => Vec::new(),
        };
        stats.pairs = pairs.len() as u64;
        let candidates = pairs
            .par_iter()
            .map(|&pair| {
                let (a, b) = decode_pair(pair);
                let estimate = self.estimate(c, a, b);
                Candidate { pair, estimate, accepted: self.accepts(c, estimate) }
            })
            .collect();
        Ok((candidates, stats, extra))
    }

    /// The threshold on Broder's `shared / min(sizes)` below which a pair cannot be a candidate.
    ///
    /// With `estimate` verification the method's own decision follows, so nothing below the
    /// threshold is needed when the estimate is the same quantity (containment, Broder's count
    /// over the sketch size). Otherwise `shared / min` is an upper bound of the resemblance
    /// estimators and of the true resemblance's estimate, and the bound is lowered by three
    /// standard deviations of a sample of the expected size so that exact verification sees the
    /// pairs the sample under-estimates.
    fn sample_threshold(&self, c: &DedupConfig) -> f64 {
        let t = c.threshold;
        let s = match c.effective_sample() {
            Sample::Min(s) => s as f64,
            // A MOD-m sample of a typical document (a few hundred shingles) has tens of elements;
            // 32 is a deliberately small size, so the margin is generous.
            Sample::Mod(_) => 32.0,
        };
        let margin = 3.0 * (t * (1.0 - t) / s).sqrt();
        (t - margin).max(0.0)
    }
}
