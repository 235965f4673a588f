//! [`SimHash`]: 64-bit fingerprints of weighted features, pairs within Hamming distance k
//! (Charikar 2002; Manku, Jain & Das Sarma 2007).

use std::sync::Arc;

use rayon::prelude::*;

use super::doc_keyer::{DocKeys, DocumentKeys, Keying, KeyingInput, fingerprint_of};
use super::options::{InIndex, MethodOption, MethodSpec, Value};
use super::{CandidateReport, Context, DocView, Head, Method, MethodKind, MethodStats, Slot};
use crate::candidates::hamming::{TableConfig, hamming_candidates};
use crate::config::{MethodConfig, SimHashConfig};
use crate::error::{ConfigError, Error};
use crate::sketch::simhash::{self, BITS, DocFreq, SimFeatures, SimHasher, Weighting};

/// A document's SimHash: its fingerprint, or with tf-idf weights its bag of `(feature, tf)`
/// until the document frequencies are known.
#[derive(Debug, Default)]
pub enum SimDoc {
    /// The fingerprint.
    Fingerprint(u64),
    /// The weighted bag (tf-idf weights).
    Bag(Vec<(u64, u32)>),
    /// No features.
    #[default]
    Empty,
}

/// SimHash: a fingerprint per head; candidates within Hamming distance k from Manku's permuted
/// tables; estimate 1 − h/64; its own decision: h ≤ k.
#[derive(Debug)]
pub struct SimHash {
    config: SimHashConfig,
    hasher: SimHasher,
    features: SimFeatures,
    k: u32,
    cx: Context,
    fingerprints: Vec<u64>,
    /// tf-idf: the heads' bags until [`Method::prepare`].
    bags: Vec<Vec<(u64, u32)>>,
    /// tf-idf: document frequencies known before any document is read
    /// ([`SimHash::with_doc_freq`]): each document is fingerprinted at once.
    doc_freq: Option<Arc<DocFreq>>,
}

impl SimHash {
    /// The method with validated settings.
    pub fn new(config: SimHashConfig, cx: Context) -> Result<SimHash, Error> {
        let k = config.distance(cx.threshold);
        if k >= BITS {
            return Err(ConfigError::HammingDistance(k).into());
        }
        Ok(SimHash {
            config,
            hasher: SimHasher::new(cx.seed),
            features: config.features_or(cx.shingle),
            k,
            cx,
            fingerprints: Vec::new(),
            bags: Vec::new(),
            doc_freq: None,
        })
    }

    /// The method fingerprinting each document at once with these document frequencies (those
    /// [`Method::prepare`] would count over the heads, computed elsewhere: the Ray job's
    /// statistics pass); no effect without tf-idf weights.
    pub(super) fn with_doc_freq(mut self, df: Arc<DocFreq>) -> SimHash {
        if self.tf_idf() {
            self.doc_freq = Some(df);
        }
        self
    }

    fn tf_idf(&self) -> bool {
        self.config.weights == Weighting::TfIdf
    }

    /// The Hamming distance k.
    pub(super) fn max_distance(&self) -> u32 {
        self.k
    }

    /// "64-bit fingerprints of words:5 shingles weighted by tf", for descriptions.
    pub(super) fn fingerprints_text(&self) -> String {
        format!(
            "64-bit fingerprints of {} weighted {}",
            match self.features {
                SimFeatures::Tokens => "tokens".to_owned(),
                SimFeatures::Shingles(k) => format!("{k} shingles"),
            },
            match self.config.weights {
                Weighting::None => "uniformly",
                Weighting::Tf => "by tf",
                Weighting::TfIdf => "by tf·idf",
            },
        )
    }
}

impl Method for SimHash {
    type Doc = SimDoc;

    fn doc(&self, doc: &DocView<'_>) -> SimDoc {
        let mut hashes = Vec::new();
        self.hasher.feature_hashes_into(doc.norm, self.features, &mut hashes);
        if let Some(df) = &self.doc_freq {
            // As `prepare` weighs a head's bag once the frequencies are known.
            let mut weighted = Vec::new();
            simhash::weigh(&hashes, Weighting::TfIdf, Some(df), &mut weighted);
            SimDoc::Fingerprint(self.hasher.fingerprint(&weighted))
        } else if self.tf_idf() {
            let bag =
                hashes.chunk_by(|a, b| a == b).map(|run| (run[0], run.len() as u32)).collect();
            SimDoc::Bag(bag)
        } else {
            let mut weighted = Vec::new();
            simhash::weigh(&hashes, self.config.weights, None, &mut weighted);
            SimDoc::Fingerprint(self.hasher.fingerprint(&weighted))
        }
    }

    fn push_heads(&mut self, heads: Vec<Head<'_, SimDoc>>) {
        if self.tf_idf() && self.doc_freq.is_none() {
            self.bags.extend(heads.into_iter().map(|h| match h.doc {
                SimDoc::Bag(b) => b,
                SimDoc::Fingerprint(_) | SimDoc::Empty => Vec::new(),
            }));
        } else {
            self.fingerprints.extend(heads.into_iter().map(|h| match h.doc {
                SimDoc::Fingerprint(fp) => fp,
                SimDoc::Bag(_) | SimDoc::Empty => 0,
            }));
        }
    }

    /// tf-idf: document frequencies of the heads, then every fingerprint.
    fn prepare(&mut self) -> Result<(), Error> {
        if !self.tf_idf() || self.doc_freq.is_some() {
            return Ok(());
        }
        let bags = std::mem::take(&mut self.bags);
        let mut df = DocFreq::new();
        let mut keys = Vec::new();
        for bag in &bags {
            keys.clear();
            keys.extend(bag.iter().map(|&(h, _)| h));
            df.add_document(&keys);
        }
        let hasher = self.hasher;
        self.fingerprints = bags
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
        Ok(())
    }

    fn candidates(&self, emit: &mut dyn FnMut(Slot, Slot)) -> Result<CandidateReport, Error> {
        let k = self.k;
        let blocks = self.config.blocks;
        let cfg = match blocks {
            Some(b) => TableConfig::new(b, k),
            None => TableConfig::for_collection(k, self.fingerprints.len()),
        }
        .ok_or(ConfigError::NoTableLayout { k, blocks })?;
        for (a, b, _) in hamming_candidates(&self.fingerprints, k, cfg) {
            emit(Slot(a), Slot(b));
        }
        Ok(CandidateReport {
            method: MethodStats {
                simhash_tables: Some((cfg.blocks(), cfg.tables())),
                ..MethodStats::default()
            },
            ..CandidateReport::default()
        })
    }

    fn estimate(&self, a: Slot, b: Slot) -> f64 {
        simhash::similarity(simhash::hamming(
            self.fingerprints[a.index()],
            self.fingerprints[b.index()],
        ))
    }

    fn accepts(&self, estimate: f64) -> bool {
        estimate >= simhash::similarity(self.k) - f64::EPSILON
    }

    fn describe(&self) -> String {
        format!(
            "method simhash: {}, Hamming distance ≤ {}, {}",
            self.fingerprints_text(),
            self.k,
            self.cx.verify_text("")
        )
    }

    fn phase(&self) -> &'static str {
        "finding candidates (permuted tables)"
    }

    fn hamming(&self, a: Slot, b: Slot) -> Option<u32> {
        Some(simhash::hamming(self.fingerprints[a.index()], self.fingerprints[b.index()]))
    }
}

/// `max_distance`: the Hamming distance of SimHash and of the combined method.
pub(super) static MAX_DISTANCE: MethodOption = MethodOption::parsed(
    "max_distance",
    "K|auto",
    "SimHash: documents whose 64-bit fingerprints differ in at most K bits are near \
           duplicates (default 3, Manku et al.: near-identical pages, Jaccard ≈ 0.97), or `auto`: \
           the distance expected at --threshold for shingle features, 64·arccos(2t/(1+t))/π (10 \
           at 0.8). Combined: the LSH candidates whose fingerprints differ in at most K bits are \
           kept (default auto)",
    "a number or auto",
    |s| simhash::parse_distance(s).map(|v| Arc::new(v) as Value),
);

/// `simhash_blocks`: the blocks of the permuted tables.
pub(super) static SIMHASH_BLOCKS: MethodOption = MethodOption::count(
    "simhash_blocks",
    "B",
    "SimHash: blocks the 64 bits are cut into for the permuted tables (C(blocks, K) tables; \
           default: chosen from K and the number of documents)",
);

/// `weights`: the feature weights.
pub(super) static WEIGHTS: MethodOption = MethodOption::choice::<Weighting>(
    "weights",
    "",
    "SimHash feature weights: none (1 per distinct feature), tf (occurrences) or tfidf \
           (occurrences × log(N/df), document frequencies from the input collection itself)",
    "none, tf or tfidf",
)
.with_default(|| "tf".to_owned());

/// `features`: what is hashed.
pub(super) static FEATURES: MethodOption = MethodOption::parsed(
    "features",
    "FEATURES",
    "SimHash features: tokens (single words; characters in Chinese/Japanese) or a shingle \
           kind (words:N, chars:N). Default: the --shingle shingles (tokens make pages on one \
           topic look alike: on the benchmark corpus precision fell to 0.08)",
    "tokens, words:N or chars:N",
    |s| s.parse::<SimFeatures>().map(|v| Arc::new(v) as Value),
);

/// SimHash in the registry.
pub(super) static SPEC: MethodSpec = MethodSpec {
    kind: MethodKind::SimHash,
    options: &[&MAX_DISTANCE, &SIMHASH_BLOCKS, &WEIGHTS, &FEATURES],
    config: |v| {
        let d = SimHashConfig::default();
        Ok(MethodConfig::SimHash(SimHashConfig {
            max_distance: v.get("max_distance").unwrap_or(d.max_distance),
            weights: v.get("weights").unwrap_or(d.weights),
            features: v.get("features"),
            blocks: v.get("simhash_blocks"),
        }))
    },
    index: InIndex::Yes,
    document_keys: keys_of,
};

/// SimHash's keys of a document: the fingerprint's bits under each table's mask (tf or uniform
/// weights, or tf-idf weights once the collection's document frequencies are counted).
#[derive(Debug)]
struct SimHashKeys {
    method: SimHash,
    masks: Vec<u64>,
    k: u32,
}

impl DocumentKeys for SimHashKeys {
    fn keys(&self, doc: &DocView<'_>) -> DocKeys {
        let fp = fingerprint_of(self.method.doc(doc));
        DocKeys {
            keys: self.masks.iter().enumerate().map(|(t, &m)| (t as u32, fp & m)).collect(),
            fingerprint: fp,
            unsigned: None,
        }
    }

    fn max_distance(&self) -> Option<u32> {
        Some(self.k)
    }
}

/// SimHash's per-document keys ([`DocumentKeys`]).
fn keys_of(input: KeyingInput<'_>) -> Keying {
    let MethodConfig::SimHash(m) = &input.config.method else {
        unreachable!("SimHash's spec keys a SimHash configuration")
    };
    let doc_freq = input.doc_freq_for(m.weights)?;
    let mut method = SimHash::new(*m, input.context())?;
    if let Some(df) = doc_freq {
        method = method.with_doc_freq(df);
    }
    let k = method.max_distance();
    let layout = match m.blocks {
        Some(b) => TableConfig::new(b, k),
        None => TableConfig::for_collection(k, input.documents),
    }
    .ok_or(Error::from(ConfigError::NoTableLayout { k, blocks: m.blocks }))?;
    Ok(Box::new(SimHashKeys { method, masks: layout.key_masks(k), k }))
}
