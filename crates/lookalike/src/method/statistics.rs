//! [`StatisticsPass`]: the collection statistics a method signs with, counted outside the
//! pipeline as mergeable partial counts ([`PartialStatistics`]), so that an engine that reads the
//! collection in pieces (the Ray job: one task per block) can count each piece, merge the counts,
//! and give them to [`DocKeyer::with_statistics`](super::DocKeyer::with_statistics), which then
//! signs each document alone exactly as the pipeline signs it after its statistics pass
//! ([`Method::prepare`](super::Method::prepare)).
//!
//! Which methods have one, and what is counted per document:
//!
//! - I-Match, I-Match-rand and TF*RIDF without a lexicon file: the document's [`TermCounts`]
//!   (document and collection frequency of each term);
//! - SimHash and combined with tf-idf weights: the document's SimHash features (their document
//!   frequencies, [`DocFreq`]).
//!
//! The pipeline counts the *heads*: one document per distinct normalized text among the
//! documents that have shingles. A piecewise engine must count each distinct text once over the
//! whole collection: count each piece's distinct texts, then
//! [`subtract`](PartialStatistics::subtract) the counts of the texts a piece shares with an
//! earlier one (their counts are equal, the same normalized text giving the same terms). Every
//! count is a sum, so the merged result does not depend on the pieces or the order of merges.
//!
//! Reference words have none: choosing them looks at each document's relative term frequencies
//! in turn (`lexical::refwords::RefWords::select`), not at sums.

use std::sync::Arc;

use super::DocView;
use crate::config::{DedupConfig, MethodConfig};
use crate::lexical::collection::{CollectionStats, CollectionStatsBuilder, TermCounts};
use crate::sketch::simhash::{DocFreq, SimFeatures, SimHasher, Weighting};

/// What a [`StatisticsPass`] counts per document.
#[derive(Debug, Clone, Copy)]
enum Counted {
    /// Term counts (I-Match, TF*RIDF), terms hashed with the run's seed.
    Terms { seed: u64 },
    /// SimHash features (tf-idf weights).
    Features { hasher: SimHasher, features: SimFeatures },
}

/// The statistics pass of a method that signs documents with collection statistics: what it
/// counts of one document (see the module documentation).
#[derive(Debug, Clone, Copy)]
pub struct StatisticsPass {
    counted: Counted,
}

impl StatisticsPass {
    /// The pass of a configuration whose method signs with statistics of the input itself
    /// (I-Match, I-Match-rand and TF*RIDF without a lexicon file, SimHash and combined with
    /// tf-idf weights); `None` for the others (no statistics, a lexicon file's, or reference
    /// words, which have no mergeable statistics).
    pub fn new(c: &DedupConfig) -> Option<StatisticsPass> {
        let features = |features: Option<SimFeatures>| Counted::Features {
            hasher: SimHasher::new(c.seed),
            features: features.unwrap_or(SimFeatures::Shingles(c.shingle)),
        };
        let counted = match &c.method {
            MethodConfig::IMatch(m) | MethodConfig::IMatchRand(m) if m.lexicon.is_none() => {
                Counted::Terms { seed: c.seed }
            }
            MethodConfig::TfRidf(m) if m.lexicon.is_none() => Counted::Terms { seed: c.seed },
            MethodConfig::SimHash(m) if m.weights == Weighting::TfIdf => features(m.features),
            MethodConfig::Combined(m) if m.weights == Weighting::TfIdf => features(m.features),
            _ => return None,
        };
        Some(StatisticsPass { counted })
    }

    /// Counts one document (a head: see the module documentation) into `partial`, from its view
    /// as the pipeline makes it.
    pub fn add(&self, partial: &mut PartialStatistics, doc: &DocView<'_>) {
        let counts = match self.counted {
            Counted::Terms { seed } => TermCounts::from_normalized(doc.norm, seed),
            Counted::Features { hasher, features } => {
                let mut hashes = Vec::new();
                hasher.feature_hashes_into(doc.norm, features, &mut hashes);
                TermCounts {
                    len: hashes.len() as u32,
                    terms: hashes
                        .chunk_by(|a, b| a == b)
                        .map(|run| (run[0], run.len() as u32))
                        .collect(),
                }
            }
        };
        partial.counts.add_document(&counts);
    }
}

/// Partial collection statistics: documents counted, and per term (or feature) its document
/// and collection frequencies. Merge the pieces' with [`merge`](Self::merge), remove texts
/// counted twice with [`subtract`](Self::subtract), carry them between processes with
/// [`to_bytes`](Self::to_bytes) and [`from_bytes`](Self::from_bytes).
#[derive(Debug, Clone, Default)]
pub struct PartialStatistics {
    counts: CollectionStatsBuilder,
}

/// The first bytes of [`PartialStatistics::to_bytes`].
const MAGIC: &[u8; 8] = b"LKPSTAT1";

impl PartialStatistics {
    /// No document counted.
    pub fn new() -> PartialStatistics {
        PartialStatistics::default()
    }

    /// Documents counted.
    pub fn docs(&self) -> u64 {
        self.counts.docs()
    }

    /// Adds another piece's counts.
    pub fn merge(&mut self, other: PartialStatistics) {
        self.counts.merge(other.counts);
    }

    /// Removes counts added twice (those of documents another piece also counted).
    pub fn subtract(&mut self, other: &PartialStatistics) {
        self.counts.subtract(&other.counts);
    }

    /// The counts as bytes: the magic `LKPSTAT1`, documents (u64), terms (u64), then per term in hash
    /// order its hash (u64), df (u32) and cf (u64), little-endian. Equal counts give equal
    /// bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let entries = self.counts.entries();
        let mut out = Vec::with_capacity(24 + entries.len() * 20);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.counts.docs().to_le_bytes());
        out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
        for (h, df, cf) in entries {
            out.extend_from_slice(&h.to_le_bytes());
            out.extend_from_slice(&df.to_le_bytes());
            out.extend_from_slice(&cf.to_le_bytes());
        }
        out
    }

    /// The counts of [`to_bytes`](Self::to_bytes); an error naming what is wrong otherwise.
    pub fn from_bytes(bytes: &[u8]) -> Result<PartialStatistics, String> {
        let bad = |what: &str| format!("not lookalike partial statistics: {what}");
        if bytes.len() < 24 || &bytes[..8] != MAGIC {
            return Err(bad("no header"));
        }
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let docs = u64_at(8);
        let terms = u64_at(16);
        let body = &bytes[24..];
        if terms.checked_mul(20) != Some(body.len() as u64) {
            return Err(bad(&format!("{} bytes for {terms} terms", body.len())));
        }
        let entries = body.chunks_exact(20).map(|e| {
            (
                u64::from_le_bytes(e[..8].try_into().expect("8 bytes")),
                u32::from_le_bytes(e[8..12].try_into().expect("4 bytes")),
                u64::from_le_bytes(e[12..].try_into().expect("8 bytes")),
            )
        });
        Ok(PartialStatistics { counts: CollectionStatsBuilder::from_entries(docs, entries) })
    }

    /// The term statistics (I-Match, TF*RIDF), as the pipeline builds them from its heads.
    pub(super) fn collection_stats(&self) -> CollectionStats {
        self.counts.clone().build()
    }

    /// The document frequencies (SimHash's tf-idf), as the pipeline counts them over its heads.
    pub(super) fn doc_freq(&self) -> Arc<DocFreq> {
        Arc::new(DocFreq::from_counts(
            self.counts.docs(),
            self.counts.entries().into_iter().map(|(h, df, _)| (h, df)),
        ))
    }
}
