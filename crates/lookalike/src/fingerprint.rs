//! Exact-duplicate fingerprints: contract: "give me bytes or normalized text, I give you 128 bits
//! that are equal exactly when the inputs are (up to a 2⁻¹²⁸ accident)".
//!
//! Two fingerprints per document: one of the raw bytes (a full-layout copy:
//! the same file or record twice) and one of the normalized text (a full-content copy: the same
//! words under other markup, case, punctuation or Unicode forms). Both are xxh3-128, unseeded so
//! that fingerprints are comparable across runs.

use xxhash_rust::xxh3::xxh3_128;

/// Fingerprint of raw input bytes (full-layout copies).
pub fn raw_fingerprint(bytes: &[u8]) -> u128 {
    xxh3_128(bytes)
}

/// Fingerprint of a normalized text (full-content copies); see [`crate::text::normalize`].
pub fn text_fingerprint(normalized: &str) -> u128 {
    // A distinct domain from raw bytes so that a raw file equal to some normalized text does not
    // collide by construction.
    xxhash_rust::xxh3::xxh3_128_with_seed(normalized.as_bytes(), 0x6c6f_6f6b_616c_696b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_inputs_equal_fingerprints_and_domains_differ() {
        assert_eq!(raw_fingerprint(b"abc"), raw_fingerprint(b"abc"));
        assert_ne!(raw_fingerprint(b"abc"), raw_fingerprint(b"abd"));
        assert_ne!(raw_fingerprint(b"abc"), text_fingerprint("abc"));
    }
}
