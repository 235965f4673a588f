//! Collection statistics. Contract: "give me every document's term counts in a first pass, I give
//! you document frequencies, IDF and RIDF, and a lexicon file that signs a later batch the same
//! way".

use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::normalize::NormalizedText;

/// The hash of one term (a normalized token): seeded xxh3, the same hash
/// [`crate::features::Shingler`] gives a token before forming word shingles.
pub fn term_hash(token: &str, seed: u64) -> u64 {
    xxh3_64_with_seed(token.as_bytes(), seed)
}

/// One document's bag of words: distinct term hashes with their counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TermCounts {
    /// `(term hash, occurrences)`, sorted by hash, one entry per distinct term.
    pub terms: Vec<(u64, u32)>,
    /// Number of tokens in the document.
    pub len: u32,
}

impl TermCounts {
    /// The term counts of a normalized text, terms hashed with [`term_hash`].
    pub fn from_normalized(norm: &NormalizedText, seed: u64) -> TermCounts {
        let mut hashes: Vec<u64> = norm.token_strs().map(|t| term_hash(t, seed)).collect();
        let len = hashes.len() as u32;
        hashes.sort_unstable();
        let terms = hashes.chunk_by(|a, b| a == b).map(|run| (run[0], run.len() as u32)).collect();
        TermCounts { terms, len }
    }

    /// The largest count of any term (0 for an empty document).
    pub fn max_tf(&self) -> u32 {
        self.terms.iter().map(|&(_, c)| c).max().unwrap_or(0)
    }
}
