//! What a run decides. Contract: "these are the types a run pushes into a sink (pairs, clusters,
//! every document's fate) and the counts it reports".

use crate::candidates::lsh::{CandidateStats, LshParams};
use crate::document::DocId;
use crate::method::MethodStats;
pub use crate::verify::Contained;

/// Why the pipeline did not compare a document. The string form ([`SkipReason::as_str`]) is
/// stable: reports and scripts match on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum SkipReason {
    /// The text is empty or only white space.
    EmptyText,
    /// Normalization left no token (only punctuation, symbols or markup).
    NoTokens,
}

impl SkipReason {
    /// The reason as written in reports: `empty text`, `no tokens after normalization`.
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::EmptyText => "empty text",
            SkipReason::NoTokens => "no tokens after normalization",
        }
    }
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<SkipReason> for u8 {
    /// The reason's stable numeric code (1 [`SkipReason::EmptyText`], 2 [`SkipReason::NoTokens`]),
    /// as the Ray job carries it in its Arrow tables.
    fn from(reason: SkipReason) -> u8 {
        match reason {
            SkipReason::EmptyText => 1,
            SkipReason::NoTokens => 2,
        }
    }
}

impl TryFrom<u8> for SkipReason {
    type Error = UnknownSkipCode;

    /// The reason of a numeric code (see `From<SkipReason> for u8`); an unknown code is an error.
    fn try_from(code: u8) -> Result<SkipReason, UnknownSkipCode> {
        match code {
            1 => Ok(SkipReason::EmptyText),
            2 => Ok(SkipReason::NoTokens),
            _ => Err(UnknownSkipCode(code)),
        }
    }
}

/// A numeric code that names no [`SkipReason`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("unknown skip reason code {0}")]
pub struct UnknownSkipCode(pub u8);

/// How two documents matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MatchKind {
    /// The same raw bytes (full-layout copy).
    ExactBytes,
    /// The same normalized text (full-content copy).
    ExactText,
    /// Similar at or above the threshold.
    Near,
}

impl MatchKind {
    /// The name used in outputs.
    pub fn as_str(self) -> &'static str {
        match self {
            MatchKind::ExactBytes => "exact-bytes",
            MatchKind::ExactText => "exact-text",
            MatchKind::Near => "near",
        }
    }
}

/// Appends the pairs of one group of exact copies (`group[0]` the head, then its copies in input
/// order) as `dedup --pairs` lists them, each of similarity 1 and of the match kind `kind` gives:
/// every pair of the group when there are at most `bound` of them, else only the head with each
/// copy. Returns `None` when every pair was listed, else how many were left out.
pub fn list_exact_group(
    group: &[DocId],
    bound: u64,
    kind: impl Fn(DocId, DocId) -> MatchKind,
    pairs: &mut Vec<ScoredPair>,
) -> Option<u64> {
    let k = group.len() as u64;
    let all = k * k.saturating_sub(1) / 2;
    let exact = |a: DocId, b: DocId| ScoredPair {
        a,
        b,
        similarity: 1.0,
        kind: kind(a, b),
        contained: None,
        hamming: None,
    };
    if all <= bound {
        for (i, &a) in group.iter().enumerate() {
            pairs.extend(group[i + 1..].iter().map(|&b| exact(a, b)));
        }
        None
    } else {
        pairs.extend(group[1..].iter().map(|&b| exact(group[0], b)));
        Some(all - (k - 1))
    }
}

/// A verified pair of documents (`a < b` in input order).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ScoredPair {
    /// The earlier document.
    pub a: DocId,
    /// The later document.
    pub b: DocId,
    /// Their similarity (1.0 for exact copies); with [`crate::Measure::Containment`] the containment of
    /// the contained document in the other.
    pub similarity: f64,
    /// How they matched.
    pub kind: MatchKind,
    /// With [`crate::Measure::Containment`]: which document is (mostly) contained in the other.
    pub contained: Option<Contained>,
    /// SimHash: the Hamming distance h of the two fingerprints (the similarity estimate is
    /// 1 − h/64 and the cosine estimate cos(π·h/64), [`crate::sketch::simhash::cosine_estimate`]).
    pub hamming: Option<u32>,
}

/// A member of a cluster other than its representative.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ClusterMember {
    /// The document.
    pub doc: DocId,
    /// Its similarity to the representative (may be below the threshold when it joined through
    /// another member: clusters are the transitive closure of the pairs).
    pub similarity: f64,
    /// Exact copy of the representative, or near duplicate.
    pub kind: MatchKind,
}

/// A group of duplicates.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Cluster {
    /// The document kept.
    pub representative: DocId,
    /// The others, in input order.
    pub members: Vec<ClusterMember>,
}

/// What happened to one input document.
#[derive(Debug, Clone, PartialEq)]
pub enum DocStatus {
    /// Kept: unique, or the representative of its cluster.
    Kept,
    /// Dropped as a duplicate of the representative `of`.
    Duplicate {
        /// The representative.
        of: DocId,
        /// Similarity to the representative.
        similarity: f64,
        /// Exact or near.
        kind: MatchKind,
    },
    /// Not compared, with the reason.
    Skipped {
        /// Why.
        reason: SkipReason,
    },
}

/// Counts for the summary.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct DedupStats {
    /// Documents given to the pipeline.
    pub documents: u64,
    /// Documents skipped (no tokens).
    pub skipped: u64,
    /// Documents that are exact copies of an earlier one.
    pub exact_duplicates: u64,
    /// Documents that went through sketching and LSH (heads of exact groups).
    pub sketched: u64,
    /// Candidate generation figures.
    pub candidates: CandidateStats,
    /// Verified near-duplicate pairs of distinct texts (heads of exact groups).
    pub near_pairs: u64,
    /// Pairs delivered to the sink: every pair of documents of an exact group, and every pair of
    /// documents of two verified groups, up to `max_pairs_per_group` per group.
    pub pairs: u64,
    /// Groups whose pairs were over `max_pairs_per_group`: an exact group listed as its head with
    /// each copy, or a verified pair of groups listed as the pair of their heads.
    pub pair_groups_over_bound: u64,
    /// Pairs of those groups not listed.
    pub pairs_not_listed: u64,
    /// Clusters of two or more documents.
    pub clusters: u64,
    /// Documents dropped as duplicates (exact or near).
    pub duplicates: u64,
    /// Bytes of text read (sum of the documents' raw sizes).
    pub bytes: u64,
    /// Bytes written to the spill file.
    pub spill_bytes: u64,
    /// The LSH parameters used.
    pub lsh: Option<LshParams>,
    /// Figures of the method's candidate generation (Broder's algorithm, SimHash tables). Not
    /// read back from JSON (the default): the types are each method's own, and no reader of the
    /// CLI's statistics shows them.
    #[serde(skip_deserializing)]
    pub method: MethodStats,
    /// The similarities verification computed, accepted or not.
    pub verification: VerificationStats,
}

/// Width of the bands [`VerificationStats::rejected_sample`] is drawn from.
pub const SAMPLE_BAND: f64 = 0.05;
/// Bands below the threshold [`VerificationStats::rejected_sample`] covers.
pub const SAMPLE_BANDS_BELOW: usize = 5;
/// Rejected candidates kept per band in [`VerificationStats::rejected_sample`].
pub const SAMPLE_PER_BAND: usize = 16;

/// What verification saw: the similarity of every candidate pair of distinct texts it checked
/// (exact, or the method's estimate with `--verify estimate`), those it rejected, and a sample
/// of the rejected ones just below the threshold (what a person compares to choose a threshold).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct VerificationStats {
    /// Candidate pairs verified.
    pub verified: u64,
    /// Of those, the pairs below the threshold (or that the method's estimate did not accept).
    pub rejected: u64,
    /// Verified pairs by similarity: bin `i` of 100 counts similarities in `[i/100, (i+1)/100)`,
    /// bin 100 those equal to 1. Empty when nothing was verified.
    pub histogram: Vec<u64>,
    /// Up to [`SAMPLE_PER_BAND`] rejected pairs from each of the [`SAMPLE_BANDS_BELOW`] bands of
    /// width [`SAMPLE_BAND`] below the threshold, as `(a, b, similarity)` with `a < b` the heads of
    /// their exact groups; drawn by a hash of the pair and the seed, so the same at any thread
    /// count. Sorted by band, then pair. Not serialized (input indices mean nothing outside the
    /// run; the CLI writes the sample with ids).
    #[serde(skip)]
    pub rejected_sample: Vec<(DocId, DocId, f64)>,
}

impl VerificationStats {
    /// The histogram bin of a similarity (see [`VerificationStats::histogram`]).
    pub fn bin(similarity: f64) -> usize {
        ((similarity.clamp(0.0, 1.0) * 100.0).floor() as usize).min(100)
    }
}

/// What a run reports besides what it pushed into its sink.
#[derive(Debug, Clone)]
pub struct RunReport {
    /// Document ids, by input index.
    pub ids: Vec<String>,
    /// Counts.
    pub stats: DedupStats,
    /// Documents the method could not sign (lexical methods: too few lexicon terms, too short),
    /// with the reason, in input order. They are kept and compared by nothing but the exact stage.
    pub unsigned: Vec<(DocId, String)>,
    /// Whether the sink stopped the delivery early (returned `false`).
    pub stopped: bool,
}

/// The result of a run, collected in memory.
#[derive(Debug, Clone)]
pub struct DedupOutcome {
    /// Document ids, by input index.
    pub ids: Vec<String>,
    /// Every document's fate, by input index.
    pub statuses: Vec<DocStatus>,
    /// Verified pairs: exact copies (head, copy) and near duplicates, sorted by `(a, b)`.
    pub pairs: Vec<ScoredPair>,
    /// Clusters ordered by their smallest member.
    pub clusters: Vec<Cluster>,
    /// Counts.
    pub stats: DedupStats,
    /// Documents the method could not sign (lexical methods: too few lexicon terms, too short),
    /// with the reason, in input order. They are kept and compared by nothing but the exact stage.
    pub unsigned: Vec<(DocId, String)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skip_reasons_round_trip_through_their_codes() {
        for reason in [SkipReason::EmptyText, SkipReason::NoTokens] {
            assert_eq!(SkipReason::try_from(u8::from(reason)), Ok(reason));
        }
        assert_eq!(u8::from(SkipReason::EmptyText), 1);
        assert_eq!(u8::from(SkipReason::NoTokens), 2);
        for code in [0, 3, 255] {
            assert_eq!(SkipReason::try_from(code), Err(UnknownSkipCode(code)));
        }
        assert_eq!(UnknownSkipCode(7).to_string(), "unknown skip reason code 7");
    }

    #[test]
    fn doc_ids_serialize_as_bare_numbers() {
        let cluster = Cluster {
            representative: DocId(3),
            members: vec![ClusterMember { doc: DocId(7), similarity: 1.0, kind: MatchKind::Near }],
        };
        assert_eq!(
            serde_json::to_string(&cluster).unwrap(),
            r#"{"representative":3,"members":[{"doc":7,"similarity":1.0,"kind":"near"}]}"#
        );
    }
}
