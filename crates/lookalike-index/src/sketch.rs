//! A document's keys, computed by the core library's own code. Contract: "give me a document, I
//! give you its shingles, its exact-copy fingerprint, its signature and the keys under which its
//! candidates are found, exactly as `lookalike dedup` computes them".
//!
//! Normalization, shingling and fingerprints are [`lookalike::Shingler`]'s and
//! [`lookalike::fingerprint`]'s, in the same steps as the pipeline; MinHash signatures are
//! [`lookalike::MinHasher`]'s and their band keys [`lookalike::candidates::lsh::band_key`];
//! SimHash fingerprints and partition fingerprints come from the methods' own
//! [`lookalike::Method::doc`]; the SimHash table keys are the fingerprints masked by
//! [`lookalike::candidates::hamming::TableConfig::key_masks`]. Candidates are what the batch
//! methods would pair: a shared band (MinHash), a shared table key and distance ≤ k (SimHash), at
//! least k shared fingerprints (partitioned).

use lookalike::candidates::hamming::TableConfig;
use lookalike::candidates::lsh::{LshParams, band_key};
use lookalike::method::{Context, DocView, Method, Partitioned, SimDoc, SimHash};
use lookalike::text::normalize::NormalizedText;
use lookalike::{Dedup, Document, MethodConfig, MinHasher, SkipReason};

use crate::error::{Error, Result};
use crate::settings::IndexSettings;

/// What the index keeps of one document.
#[derive(Debug, Clone, PartialEq)]
pub struct Sketch {
    /// Sorted, distinct shingle hashes (empty: the document is skipped).
    pub shingles: Vec<u64>,
    /// Fingerprint of the normalized text.
    pub fingerprint: u128,
    /// Why the document is skipped, if it is.
    pub skipped: Option<SkipReason>,
    /// The method's signature as stored.
    pub signature: Vec<u8>,
    /// Why a lexical method could not sign it.
    pub unsigned: Option<String>,
    /// `(table, key)` pairs under which it is filed.
    pub keys: Vec<(u16, u64)>,
}

/// The method-specific part.
#[derive(Debug)]
enum Keys {
    MinHash { hasher: MinHasher, lsh: LshParams },
    SimHash { method: Box<SimHash>, k: u32, masks: Vec<u64> },
    Partitioned { method: Box<Partitioned>, min_shared: usize },
}

/// Computes sketches with the index's frozen settings.
#[derive(Debug)]
pub struct Sketcher {
    dedup: Dedup,
    keys: Keys,
}

impl Sketcher {
    /// The sketcher of `settings`.
    pub fn new(settings: &IndexSettings) -> Result<Sketcher> {
        let config = settings.config();
        let cx = Context::of(&config);
        let keys = match &config.method {
            MethodConfig::MinHash(m) => Keys::MinHash {
                hasher: MinHasher::new(m.num_perm, m.scheme, config.seed),
                lsh: m.lsh_params(config.threshold),
            },
            MethodConfig::SimHash(m) => {
                let k = m.distance(config.threshold);
                let tables = TableConfig::for_distance(k).ok_or_else(|| {
                    Error::Unsupported(format!("no SimHash table layout for distance {k}"))
                })?;
                Keys::SimHash {
                    method: Box::new(SimHash::new(*m, cx)?),
                    k,
                    masks: tables.key_masks(k),
                }
            }
            MethodConfig::Partitioned(p) => Keys::Partitioned {
                method: Box::new(Partitioned::new(*p, cx)?),
                min_shared: p.min_shared,
            },
            other => {
                return Err(Error::Unsupported(format!(
                    "method {} is not available in an index",
                    other.kind()
                )));
            }
        };
        Ok(Sketcher { dedup: Dedup::new(config)?, keys })
    }

    /// The sketch of one document (the pipeline's per-document pass).
    pub fn sketch(&self, doc: &Document) -> Sketch {
        let shingler = self.dedup.shingler();
        let mut norm = NormalizedText::default();
        shingler.normalize_into(&doc.text, &mut norm);
        let mut shingles = Vec::new();
        shingler.shingles_into(&norm, &mut Default::default(), &mut shingles);
        let fingerprint = lookalike::fingerprint::text_fingerprint(&norm.text);
        let mut sketch = Sketch {
            shingles: Vec::new(),
            fingerprint,
            skipped: None,
            signature: Vec::new(),
            unsigned: None,
            keys: Vec::new(),
        };
        if shingles.is_empty() {
            sketch.skipped = Some(if doc.text.trim().is_empty() {
                SkipReason::EmptyText
            } else {
                SkipReason::NoTokens
            });
            return sketch;
        }
        let view = DocView { text: &doc.text, norm: &norm, shingles: &shingles };
        match &self.keys {
            Keys::MinHash { hasher, lsh } => {
                let sig = hasher.sketch(&shingles);
                let mut buf = Vec::new();
                for band in 0..lsh.bands {
                    let lo = band * lsh.rows;
                    let key = band_key(&sig[lo..lo + lsh.rows], band, &mut buf);
                    sketch.keys.push((band as u16, key));
                }
                sketch.signature = sig.iter().flat_map(|v| v.to_le_bytes()).collect();
            }
            Keys::SimHash { method, masks, .. } => {
                let fp = match method.doc(&view) {
                    SimDoc::Fingerprint(fp) => fp,
                    SimDoc::Bag(_) | SimDoc::Empty => 0,
                };
                for (t, mask) in masks.iter().enumerate() {
                    sketch.keys.push((t as u16, fp & mask));
                }
                sketch.signature = fp.to_le_bytes().to_vec();
            }
            Keys::Partitioned { method, .. } => match method.doc(&view) {
                Some(Ok(mut keys)) => {
                    keys.sort_unstable();
                    keys.dedup();
                    sketch.keys = keys.iter().map(|&k| (0, k)).collect();
                    sketch.signature = keys.iter().flat_map(|k| k.to_le_bytes()).collect();
                }
                Some(Err(reason)) => sketch.unsigned = Some(reason),
                None => sketch.unsigned = Some("no signature".to_owned()),
            },
        }
        sketch.shingles = shingles;
        sketch
    }

    /// The sorted, distinct shingle hashes of `text` alone (what [`Sketcher::sketch`] puts in
    /// [`Sketch::shingles`]): how exact verification gets a stored head's set back from its text.
    pub fn shingles(&self, text: &str) -> Vec<u64> {
        let shingler = self.dedup.shingler();
        let mut norm = NormalizedText::default();
        shingler.normalize_into(text, &mut norm);
        let mut shingles = Vec::new();
        shingler.shingles_into(&norm, &mut Default::default(), &mut shingles);
        shingles
    }

    /// Whether a head filed under `shared` of the same keys as a document, with signature
    /// `theirs`, is its candidate (`ours` the document's signature).
    pub fn is_candidate(&self, shared: usize, ours: &[u8], theirs: &[u8]) -> bool {
        match &self.keys {
            Keys::MinHash { .. } => shared >= 1,
            Keys::SimHash { k, .. } => {
                shared >= 1 && {
                    let fp = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or([0; 8]));
                    lookalike::sketch::simhash::hamming(fp(ours), fp(theirs)) <= *k
                }
            }
            Keys::Partitioned { min_shared, .. } => shared >= *min_shared,
        }
    }

    /// The dedup run these settings stand for.
    pub fn dedup(&self) -> &Dedup {
        &self.dedup
    }
}

impl Sketcher {
    /// The `(table, key)` pairs of a stored head signature (what [`Sketcher::sketch`] filed it
    /// under).
    pub fn keys_of(&self, signature: &[u8]) -> Vec<(u16, u64)> {
        match &self.keys {
            Keys::MinHash { lsh, .. } => {
                let sig: Vec<u32> = signature
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
                    .collect();
                let mut buf = Vec::new();
                (0..lsh.bands)
                    .filter(|b| (b + 1) * lsh.rows <= sig.len())
                    .map(|b| {
                        (b as u16, band_key(&sig[b * lsh.rows..(b + 1) * lsh.rows], b, &mut buf))
                    })
                    .collect()
            }
            Keys::SimHash { masks, .. } => {
                let fp = u64::from_le_bytes(signature.try_into().unwrap_or([0; 8]));
                masks.iter().enumerate().map(|(t, m)| (t as u16, fp & m)).collect()
            }
            Keys::Partitioned { .. } => signature
                .chunks_exact(8)
                .map(|c| (0, u64::from_le_bytes(c.try_into().expect("8 bytes"))))
                .collect(),
        }
    }
}
