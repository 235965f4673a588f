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
//!   frequencies, [`DocFreq`]);
//! - reference words without a lexicon file's words: the document's relative term frequencies
//!   ([`RelativeFrequencies`]: the selection reads, for every word, the distribution of
//!   documents over its relative frequency, and which words each document shares), from which
//!   the words are chosen as the pipeline chooses them.
//!
//! The pipeline counts the *heads*: one document per distinct normalized text among the
//! documents that have shingles. A piecewise engine must count each distinct text once over the
//! whole collection: count each piece's distinct texts, then
//! [`subtract`](PartialStatistics::subtract) the counts of the texts a piece shares with an
//! earlier one (their counts are equal, the same normalized text giving the same terms). Every
//! count is a sum (reference words: a count per distinct profile), so the merged result does not
//! depend on the pieces or the order of merges.

use std::sync::Arc;

use super::DocView;
use crate::config::{DedupConfig, MethodConfig};
use crate::lexical::collection::{CollectionStats, CollectionStatsBuilder, Lexicon, TermCounts};
use crate::lexical::refwords::{RefWords, RefWordsConfig, RelativeFrequencies};
use crate::sketch::simhash::{DocFreq, SimFeatures, SimHasher, Weighting};

/// What a [`StatisticsPass`] counts per document.
#[derive(Debug, Clone, Copy)]
enum Counted {
    /// Term counts (I-Match, TF*RIDF), terms hashed with the run's seed.
    Terms { seed: u64 },
    /// SimHash features (tf-idf weights).
    Features { hasher: SimHasher, features: SimFeatures },
    /// Relative term frequencies (reference words), terms hashed with the run's seed.
    RelativeFrequencies { seed: u64 },
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
    /// tf-idf weights, reference words without a lexicon file's words); `None` for the others
    /// (no statistics, or a lexicon file's).
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
            MethodConfig::RefWords(m)
                if m.lexicon.as_ref().and_then(|l| l.reference_words.as_ref()).is_none() =>
            {
                Counted::RelativeFrequencies { seed: c.seed }
            }
            _ => return None,
        };
        Some(StatisticsPass { counted })
    }

    /// Counts one document (a head: see the module documentation) into `partial`, from its view
    /// as the pipeline makes it.
    pub fn add(&self, partial: &mut PartialStatistics, doc: &DocView<'_>) {
        let counts = match self.counted {
            Counted::Terms { seed } => TermCounts::from_normalized(doc.norm, seed),
            Counted::RelativeFrequencies { seed } => {
                partial.frequencies.add(&TermCounts::from_normalized(doc.norm, seed));
                return;
            }
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
/// and collection frequencies, or (reference words) the documents' relative term frequencies.
/// Merge the pieces' with [`merge`](Self::merge), remove texts
/// counted twice with [`subtract`](Self::subtract), carry them between processes with
/// [`to_bytes`](Self::to_bytes) and [`from_bytes`](Self::from_bytes).
#[derive(Debug, Clone, Default)]
pub struct PartialStatistics {
    counts: CollectionStatsBuilder,
    frequencies: RelativeFrequencies,
}

/// The first bytes of [`PartialStatistics::to_bytes`].
const MAGIC: &[u8; 8] = b"LKPSTAT1";
/// The first bytes of [`PartialStatistics::to_bytes`] with relative frequencies.
const MAGIC_FREQUENCIES: &[u8; 8] = b"LKPRTF01";

impl PartialStatistics {
    /// No document counted.
    pub fn new() -> PartialStatistics {
        PartialStatistics::default()
    }

    /// Documents counted.
    pub fn docs(&self) -> u64 {
        self.counts.docs() + self.frequencies.docs()
    }

    /// Adds another piece's counts.
    pub fn merge(&mut self, other: PartialStatistics) {
        self.counts.merge(other.counts);
        self.frequencies.merge(other.frequencies);
    }

    /// Removes counts added twice (those of documents another piece also counted).
    pub fn subtract(&mut self, other: &PartialStatistics) {
        self.counts.subtract(&other.counts);
        self.frequencies.subtract(&other.frequencies);
    }

    /// The counts as bytes: the magic `LKPSTAT1`, documents (u64), terms (u64), then per term in hash
    /// order its hash (u64), df (u32) and cf (u64), little-endian. Relative frequencies: the
    /// magic `LKPRTF01`, documents (u64), distinct profiles (u64), then per profile in order its
    /// documents (u64), terms (u32) and per term its hash (u64) and relative frequency (f32
    /// bits, u32). Equal counts give equal bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        if self.frequencies.docs() > 0 {
            return self.frequencies_bytes();
        }
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

    fn frequencies_bytes(&self) -> Vec<u8> {
        let profiles: Vec<(&[(u64, u32)], u64)> = self.frequencies.profiles().collect();
        let terms: usize = profiles.iter().map(|(p, _)| p.len()).sum();
        let mut out = Vec::with_capacity(24 + profiles.len() * 12 + terms * 12);
        out.extend_from_slice(MAGIC_FREQUENCIES);
        out.extend_from_slice(&self.frequencies.docs().to_le_bytes());
        out.extend_from_slice(&(profiles.len() as u64).to_le_bytes());
        for (profile, times) in profiles {
            out.extend_from_slice(&times.to_le_bytes());
            out.extend_from_slice(&(profile.len() as u32).to_le_bytes());
            for &(term, rtf) in profile {
                out.extend_from_slice(&term.to_le_bytes());
                out.extend_from_slice(&rtf.to_le_bytes());
            }
        }
        out
    }

    /// The relative frequencies of [`to_bytes`](Self::to_bytes).
    fn frequencies_from_bytes(bytes: &[u8]) -> Result<PartialStatistics, String> {
        let bad = |what: String| format!("not lookalike partial statistics: {what}");
        let mut at = 8usize;
        let mut take = |n: usize| -> Result<&[u8], String> {
            let part = bytes.get(at..at + n).ok_or_else(|| bad(format!("cut at byte {at}")))?;
            at += n;
            Ok(part)
        };
        let u64_of = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
        let u32_of = |b: &[u8]| u32::from_le_bytes(b.try_into().expect("4 bytes"));
        let docs = u64_of(take(8)?);
        let count = u64_of(take(8)?);
        let mut profiles = Vec::new();
        for _ in 0..count {
            let times = u64_of(take(8)?);
            let terms = u32_of(take(4)?) as usize;
            let body = take(terms.checked_mul(12).ok_or_else(|| bad("too many terms".into()))?)?;
            let profile: Vec<(u64, u32)> =
                body.chunks_exact(12).map(|e| (u64_of(&e[..8]), u32_of(&e[8..]))).collect();
            profiles.push((profile, times));
        }
        if at != bytes.len() {
            return Err(bad(format!("{} bytes after the profiles", bytes.len() - at)));
        }
        let frequencies = RelativeFrequencies::from_profiles(profiles);
        if frequencies.docs() != docs {
            return Err(bad(format!(
                "{} documents in the profiles, {docs} said",
                frequencies.docs()
            )));
        }
        Ok(PartialStatistics { frequencies, ..PartialStatistics::default() })
    }

    /// The counts of [`to_bytes`](Self::to_bytes); an error naming what is wrong otherwise.
    pub fn from_bytes(bytes: &[u8]) -> Result<PartialStatistics, String> {
        let bad = |what: &str| format!("not lookalike partial statistics: {what}");
        if bytes.len() >= 8 && &bytes[..8] == MAGIC_FREQUENCIES {
            return PartialStatistics::frequencies_from_bytes(bytes);
        }
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
        Ok(PartialStatistics {
            counts: CollectionStatsBuilder::from_entries(docs, entries),
            ..PartialStatistics::default()
        })
    }

    /// The term statistics (I-Match, TF*RIDF), as the pipeline builds them from its heads.
    pub(super) fn collection_stats(&self) -> CollectionStats {
        self.counts.clone().build()
    }

    /// The term statistics as a lexicon (what a lexicon file gives I-Match and TF*RIDF), named
    /// as the pipeline names statistics of the input.
    pub(super) fn lexicon(&self, seed: u64) -> Arc<Lexicon> {
        Arc::new(Lexicon::new(self.collection_stats(), seed, "statistics of the input"))
    }

    /// The document frequencies (SimHash's tf-idf), as the pipeline counts them over its heads.
    pub(super) fn doc_freq(&self) -> Arc<DocFreq> {
        Arc::new(DocFreq::from_counts(
            self.counts.docs(),
            self.counts.entries().into_iter().map(|(h, df, _)| (h, df)),
        ))
    }

    /// The reference words chosen from the relative frequencies, as the pipeline chooses them
    /// from its heads ([`RefWords::select`]).
    pub(super) fn reference_words(&self, config: &RefWordsConfig) -> RefWords {
        RefWords::select_counted(&self.frequencies, config).0
    }
}
