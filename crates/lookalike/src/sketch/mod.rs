//! Sketches: what a method keeps per document instead of its shingle set. Contract: "give me a
//! document's shingle hashes (or features), I give you a small summary whose agreement with another
//! document's estimates their similarity".
//!
//! [`minhash`]: MinHash signatures (one-permutation hashing with densification, or k
//! permutations). [`supershingles`]: super- and mega-shingles over min-hash values.
//! [`sample`]: MOD-m and MIN-s samples of the shingle hashes. [`simhash`]: Charikar's 64-bit
//! fingerprints of weighted features.

pub mod minhash;
pub mod sample;
pub mod simhash;
pub mod supershingles;
