//! Candidates from shared keys. Contract: "give me each document's keys, I give you every pair
//! of documents sharing at least k of them, sorted".
//!
//! The keys are whatever a method signs a document with: partitioned list fingerprints, I-Match
//! and TF*RIDF signatures, long-sentence hashes, super- and mega-shingles. Grouping is by sorting
//! compact `(key, doc)` pairs, not by maps of vectors.

/// Pairs `(i, j)`, `i < j`, of documents sharing at least `min_shared` keys (0 counts as 1),
/// sorted. `keys_per_doc[d]` are document d's keys; a key repeated within one document counts
/// once.
///
/// Compact `(key, doc)` pairs are sorted; every run of equal keys (a bucket) emits all its
/// document pairs; the pairs are sorted and a pair emitted by c buckets shares c keys. With
/// `min_shared` = 1 this is [`crate::sketch::supershingles::candidate_pairs`].
///
/// Bucket size: a key shared by m documents costs m(m − 1)/2 pairs. A list fingerprint is the
/// hash of several whole terms, so large buckets hold either exact copies (which the exact stage
/// removes first) or a boilerplate-only list (which `min_list_terms` and `min_terms` make rare);
/// [`candidate_pairs_capped`] skips buckets larger than a limit as Broder's collection algorithm
/// does, losing only pairs whose every shared key is in an oversized bucket.
///
/// # Panics
///
/// With more than `u32::MAX` documents (their indices do not fit the output).
pub fn candidate_pairs(keys_per_doc: &[Vec<u64>], min_shared: usize) -> Vec<(u32, u32)> {
    candidate_pairs_capped(keys_per_doc, min_shared, usize::MAX)
}

/// [`candidate_pairs`], skipping every key shared by more than `max_bucket` documents.
///
/// # Panics
///
/// With more than `u32::MAX` documents.
pub fn candidate_pairs_capped(
    keys_per_doc: &[Vec<u64>],
    min_shared: usize,
    max_bucket: usize,
) -> Vec<(u32, u32)> {
    assert!(keys_per_doc.len() <= u32::MAX as usize, "too many documents for 32-bit indices");
    let mut entries: Vec<(u64, u32)> = keys_per_doc
        .iter()
        .enumerate()
        .flat_map(|(d, keys)| keys.iter().map(move |&k| (k, d as u32)))
        .collect();
    entries.sort_unstable();
    entries.dedup();
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for bucket in entries.chunk_by(|x, y| x.0 == y.0) {
        if bucket.len() > max_bucket {
            continue;
        }
        for (i, a) in bucket.iter().enumerate() {
            for b in &bucket[i + 1..] {
                pairs.push((a.1, b.1));
            }
        }
    }
    pairs.sort_unstable();
    let min_shared = min_shared.max(1);
    if min_shared == 1 {
        pairs.dedup();
        return pairs;
    }
    pairs.chunk_by(|x, y| x == y).filter(|run| run.len() >= min_shared).map(|run| run[0]).collect()
}
