//! The lexical family: signatures built from the collection's vocabulary. Contract: "give me the
//! collection's term statistics, I sign each document with keys that near duplicates share".
//!
//! [`collection`]: document and collection frequencies, IDF, RIDF, the lexicon file.
//! [`imatch`]: I-Match and randomized lexicons. [`partitioned`]: partitioned fingerprints.
//! [`lexsig`]: TF*RIDF and long-sentence signatures. [`refwords`]: reference words.
//! [`spotsigs`]: spot signatures with their exact size-partitioned index.

pub mod collection;
pub mod imatch;
pub mod lexsig;
pub mod partitioned;
pub mod refwords;
pub mod spotsigs;
