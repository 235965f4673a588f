//! Candidate generation. Contract: "give me every document's sketch or keys, I give you the pairs
//! worth verifying, sorted".
//!
//! [`lsh`]: LSH banding of MinHash signatures, by sorting. [`shared_keys`]: pairs sharing at least
//! k signature keys. [`sorted_pairs`]: Broder's collection algorithm (sort ⟨shingle, doc⟩
//! records, count pairs per document pair, in bounded memory). [`hamming`]: SimHash fingerprints
//! within a Hamming distance, with Manku's permuted tables.

pub mod hamming;
pub mod lsh;
pub mod shared_keys;
pub mod sorted_pairs;
