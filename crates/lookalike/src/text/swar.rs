//! Byte tests on eight bytes at once ("SIMD within a register"), for the ASCII fast paths of the
//! normalizer and the language pass. Eight bytes of text are read as a little-endian `u64`, so
//! the text's first byte is the lowest.

/// Eight times `byte`, one in each byte of a `u64`.
pub(crate) const fn splat(byte: u8) -> u64 {
    0x0101_0101_0101_0101 * byte as u64
}

/// The high bit of each byte of a `u64`.
pub(crate) const HIGH_BITS: u64 = splat(0x80);

/// The high bit set in each byte of `low7` (bytes below 0x80) that lies in `lo..=hi` (`lo` at
/// least 1): `x + (0x80 - lo)` reaches 0x80 when `x >= lo` and `x + (0x7F - hi)` when `x > hi`,
/// and neither sum carries into the next byte.
#[inline(always)]
pub(crate) fn bytes_in_range(low7: u64, lo: u8, hi: u8) -> u64 {
    (low7 + splat(0x80 - lo)) & !(low7 + splat(0x7F - hi)) & HIGH_BITS
}

/// The high bit set in each byte of `w` that is an ASCII letter (either case).
#[inline(always)]
pub(crate) fn ascii_letters(w: u64) -> u64 {
    bytes_in_range((w & !HIGH_BITS) | splat(0x20), b'a', b'z') & !w
}

/// How many of the bytes of `mask` (a set of high bits, as [`ascii_letters`] gives), from the
/// first, are set: 0 to 8.
#[inline(always)]
pub(crate) fn leading_run(mask: u64) -> usize {
    (!mask & HIGH_BITS).trailing_zeros() as usize / 8
}

/// Calls `check` on eight-byte words for testing a SWAR test against the bytes one at a time:
/// each of `words` with every byte value at every position, then 200,000 random words, many of
/// whose bytes are taken from `edges` (the edges of the ranges tested).
#[cfg(test)]
pub(crate) fn for_each_test_word(words: &[[u8; 8]], edges: &[u8], mut check: impl FnMut([u8; 8])) {
    for &word in words {
        for x in 0..=255u8 {
            for at in 0..8 {
                let mut eight = word;
                eight[at] = x;
                check(eight);
            }
        }
    }
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..200_000 {
        state =
            state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let mut eight = state.to_le_bytes();
        for (k, x) in eight.iter_mut().enumerate() {
            if (state >> (56 + k)) & 1 == 1 {
                *x = edges[usize::from(*x) % edges.len()];
            }
        }
        check(eight);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_letters_agree_with_the_bytes_one_at_a_time() {
        let check = |eight: [u8; 8]| {
            let mask = ascii_letters(u64::from_le_bytes(eight));
            for (i, x) in eight.iter().enumerate() {
                assert_eq!(mask >> (8 * i + 7) & 1 == 1, x.is_ascii_alphabetic(), "{eight:?}");
                assert_eq!(mask >> (8 * i) & 0x7F, 0, "{eight:?}");
            }
            let run = eight.iter().take_while(|x| x.is_ascii_alphabetic()).count();
            assert_eq!(leading_run(mask), run, "{eight:?}");
        };
        // Random bytes, many of them at the ranges' edges.
        let edges = [
            0x00, 0x20, 0x40, 0x41, 0x5A, 0x5B, 0x60, 0x61, 0x7A, 0x7B, 0x7F, 0x80, 0xC1, 0xE1,
            0xFA, 0xFF,
        ];
        for_each_test_word(&[*b"abcdefgh", *b"aBcDeFgH", *b"ZZZZZZZZ"], &edges, check);
    }
}
