//! The near-duplicate methods. Contract: "name a method, I tell you what it compares".
//!
//! Every method shares the pipeline's inputs, text handling, exact-duplicate stage, verification,
//! clustering and outputs; they differ in the signature computed per document and in how
//! candidate pairs are found (see [`crate::engine`] and DESIGN.md §2 for the definitions).

use std::fmt;

/// A near-duplicate detection method.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Method {
    /// MinHash signatures, LSH banding, verification (Broder et al. 1998; MMDS ch. 3).
    #[default]
    #[cfg_attr(feature = "clap", value(name = "minhash"))]
    #[serde(rename = "minhash")]
    MinHash,
    /// Super-shingles and mega-shingles: min-hashes in groups, each group hashed to one
    /// super-shingle; candidates share a mega-shingle (2 super-shingles) or a super-shingle
    /// (Broder 1997; Fetterly, Manasse & Najork 2003).
    #[cfg_attr(feature = "clap", value(name = "supershingles"))]
    #[serde(rename = "supershingles")]
    SuperShingles,
    /// MOD-m sampling: shingle hashes ≡ 0 mod m; candidates share a sampled shingle (found by
    /// Broder's sort); resemblance and containment estimated from the samples (Broder 1997).
    ModM,
    /// MIN-s sampling: the s smallest shingle hashes; candidates share a sampled shingle;
    /// resemblance estimated as |MIN_s(A ∪ B) ∩ MIN_s(A) ∩ MIN_s(B)| / s (Broder 1997).
    MinS,
    /// Broder's collection algorithm: ⟨shingle, doc⟩ records sorted by shingle, pairs emitted per
    /// shingle and counted in bounded memory; estimate = count / sketch size (Broder, Glassman,
    /// Manasse & Zweig 1997).
    Broder,
    /// SimHash: 64-bit fingerprints of weighted features, pairs within Hamming distance k found
    /// with Manku's permuted tables (Charikar 2002; Manku, Jain & Das Sarma 2007).
    #[cfg_attr(feature = "clap", value(name = "simhash"))]
    #[serde(rename = "simhash")]
    SimHash,
    /// I-Match: hash of the document's distinct terms of mid IDF (the lexicon, from the
    /// collection's statistics or `--lexicon`); candidates have equal signatures (Chowdhury,
    /// Frieder, Grossman & McCabe 2002).
    #[cfg_attr(feature = "clap", value(name = "i-match"))]
    #[serde(rename = "i-match")]
    IMatch,
    /// I-Match with K extra randomized lexicons, each dropping a fraction p of the base lexicon:
    /// K + 1 signatures, a match on any (Kołcz, Chowdhury & Alspector 2004).
    #[cfg_attr(feature = "clap", value(name = "i-match-rand"))]
    #[serde(rename = "i-match-rand")]
    IMatchRand,
    /// Partitioned fingerprints: the document's terms split into L lists by hash, each list
    /// fingerprinted; candidates share at least k fingerprints (Pugh, US patent 6,658,423).
    Partitioned,
    /// TF*RIDF signature: hash of the 6 words of highest tf × residual IDF (Zelenkov &
    /// Segalovich 2007).
    #[cfg_attr(feature = "clap", value(name = "tf-ridf"))]
    #[serde(rename = "tf-ridf")]
    TfRidf,
    /// Long sentences: hash of the two longest sentences (Zelenkov & Segalovich 2007).
    LongSentences,
    /// Reference words: N words chosen from the collection, each with a relative-frequency
    /// threshold; signature = which words exceed it; candidates have equal signatures (or
    /// within a Hamming distance) (Ilyinsky, Kuzmin, Melkov & Segalovich 2002; seed 002).
    #[cfg_attr(feature = "clap", value(name = "refwords"))]
    #[serde(rename = "refwords")]
    RefWords,
    /// SpotSigs: spots (a stopword and the next content words) as a multiset; pairs with
    /// weighted Jaccard ≥ the threshold, found exactly with size partitions and an inverted index
    /// (Theobald, Siddharth & Paepcke 2008).
    #[cfg_attr(feature = "clap", value(name = "spotsigs"))]
    #[serde(rename = "spotsigs")]
    SpotSigs,
    /// Exact copies only: equal raw bytes or equal normalized text (128-bit fingerprints).
    Exact,
}

impl Method {
    /// Every method, in the order `lookalike compare` runs them.
    pub const ALL: &'static [Method] = &[
        Method::MinHash,
        Method::SuperShingles,
        Method::ModM,
        Method::MinS,
        Method::Broder,
        Method::SimHash,
        Method::IMatch,
        Method::IMatchRand,
        Method::Partitioned,
        Method::TfRidf,
        Method::LongSentences,
        Method::RefWords,
        Method::SpotSigs,
        Method::Exact,
    ];

    /// The name used on the command line and in outputs.
    pub fn name(self) -> &'static str {
        match self {
            Method::MinHash => "minhash",
            Method::SuperShingles => "supershingles",
            Method::ModM => "mod-m",
            Method::MinS => "min-s",
            Method::Broder => "broder",
            Method::SimHash => "simhash",
            Method::IMatch => "i-match",
            Method::IMatchRand => "i-match-rand",
            Method::Partitioned => "partitioned",
            Method::TfRidf => "tf-ridf",
            Method::LongSentences => "long-sentences",
            Method::RefWords => "refwords",
            Method::SpotSigs => "spotsigs",
            Method::Exact => "exact",
        }
    }

    /// Whether the method signs documents with keys that must be equal (the lexical family).
    pub fn is_lexical(self) -> bool {
        matches!(
            self,
            Method::IMatch
                | Method::IMatchRand
                | Method::Partitioned
                | Method::TfRidf
                | Method::LongSentences
                | Method::RefWords
        )
    }

    /// Whether the method needs collection statistics (a first pass, or `--lexicon`).
    pub fn needs_statistics(self) -> bool {
        matches!(self, Method::IMatch | Method::IMatchRand | Method::TfRidf)
    }

    /// Whether the method needs MinHash signatures.
    pub fn uses_minhash(self) -> bool {
        matches!(self, Method::MinHash | Method::SuperShingles)
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
