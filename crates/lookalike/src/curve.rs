//! Candidate curves: P(two documents become candidates) as a function of their similarity, and the
//! grids they are shown on. Contract: "give me a method's setting, I tell you how likely a pair of
//! a given similarity is to be compared".
//!
//! The MinHash S-curve is [`crate::LshParams::probability`] and the super-shingle one
//! [`crate::sketch::supershingles::match_probability`]; this module adds SimHash's
//! ([`hamming_probability`]), the key widths of its permuted tables ([`key_bits`]) and the chance
//! collisions they let through ([`chance_collisions`]), and what every curve is read for: where
//! it crosses one half ([`crossing`]). `lookalike params` prints them.
//!
//! ```
//! use lookalike::curve::{crossing, hamming_probability};
//!
//! // Fingerprints within Hamming distance 3: half of the pairs at cosine ≈ 0.99 become candidates.
//! let half = crossing(|c| hamming_probability(c, 3), -1.0, 1.0).unwrap();
//! assert!((0.98..0.995).contains(&half));
//! ```

use crate::sketch::simhash::BITS;

/// The similarity grid of the MinHash and super-shingle curves: 0, 0.05, …, 1 (21 points).
pub fn similarity_grid() -> impl Iterator<Item = f64> {
    (0..=20).map(|i| f64::from(i) / 20.0)
}

/// Cosine similarities of the SimHash curve: coarse far from 1, fine near it, where the curves of
/// small distances rise.
pub const COSINE_GRID: &[f64] = &[
    0.0, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.88, 0.9, 0.92, 0.94, 0.95, 0.96, 0.97, 0.98, 0.985,
    0.99, 0.995, 0.998, 1.0,
];

/// The similarities around a threshold `t` worth reading a curve at: t − 0.1, t − 0.05, t,
/// t + 0.05 and t + 0.1, those within [0, 1].
pub fn around(t: f64) -> impl Iterator<Item = f64> {
    [t - 0.1, t - 0.05, t, t + 0.05, t + 0.1].into_iter().filter(|s| (0.0..=1.0).contains(s))
}

/// Where an increasing curve `f` on [`lo`, `hi`] reaches 0.5, by bisection (60 halvings: to the
/// precision of an `f64`); `lo` when it starts at or above 0.5, `None` when it stays below.
pub fn crossing(f: impl Fn(f64) -> f64, lo: f64, hi: f64) -> Option<f64> {
    if f(hi) < 0.5 {
        return None;
    }
    if f(lo) >= 0.5 {
        return Some(lo);
    }
    let (mut lo, mut hi) = (lo, hi);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if f(mid) < 0.5 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(0.5 * (lo + hi))
}

/// P(Hamming distance ≤ k) between the 64-bit SimHash fingerprints of two vectors of cosine
/// similarity `cos`: each bit differs independently with probability θ = arccos(cos)/π (exact for
/// random hyperplanes, Charikar 2002), so the distance is Binomial(64, θ).
pub fn hamming_probability(cos: f64, k: u32) -> f64 {
    let theta = cos.clamp(-1.0, 1.0).acos() / std::f64::consts::PI;
    let n = BITS as i32;
    let mut binom = 1.0f64; // C(64, h)
    let mut sum = 0.0;
    for h in 0..=k.min(BITS) as i32 {
        if h > 0 {
            binom = binom * f64::from(n - h + 1) / f64::from(h);
        }
        sum += binom * theta.powi(h) * (1.0 - theta).powi(n - h);
    }
    sum.clamp(0.0, 1.0)
}

/// The cosine similarity at which the expected Hamming distance of two fingerprints is `k`:
/// cos(π·k/64), the inverse of θ = arccos(cos)/π.
pub fn cosine_at_distance(k: u32) -> f64 {
    (std::f64::consts::PI * f64::from(k) / f64::from(BITS)).cos()
}

/// The narrowest and widest table key, in bits, when the 64 bits are cut into `blocks` contiguous
/// blocks (widths differing by at most one) and `k` of them are left out of the key. `blocks` is
/// clamped to 1..=64 and `k` to `blocks`.
pub fn key_bits(blocks: usize, k: u32) -> (u32, u32) {
    let total = BITS as usize;
    let blocks = blocks.clamp(1, total);
    let k = (k as usize).min(blocks);
    let mut widths: Vec<usize> =
        (0..blocks).map(|i| (i + 1) * total / blocks - i * total / blocks).collect();
    widths.sort_unstable();
    let widest_left_out: usize = widths.iter().rev().take(k).sum();
    let narrowest_left_out: usize = widths.iter().take(k).sum();
    ((total - widest_left_out) as u32, (total - narrowest_left_out) as u32)
}

/// Pairs of unrelated fingerprints that share a table key by chance, per table, among `docs`
/// documents: n²/2 pairs, each agreeing on a key of `key_bits` bits with probability 2^-bits (give
/// the narrowest key of the layout: it lets the most through).
pub fn chance_collisions(docs: usize, key_bits: u32) -> f64 {
    let n = docs as f64;
    n * n / 2.0 * 2f64.powi(-(key_bits as i32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hamming_probability_is_the_binomial_cdf() {
        // cos = 1: identical fingerprints. cos = -1: every bit differs.
        assert_eq!(hamming_probability(1.0, 3), 1.0);
        assert_eq!(hamming_probability(-1.0, 3), 0.0);
        assert!((hamming_probability(-1.0, 64) - 1.0).abs() < 1e-12);
        // θ = 1/2 (cos 0): P(distance ≤ 32) = 1/2 + C(64, 32)/2^65.
        let c64_32 = 1_832_624_140_942_590_534f64;
        let expect = 0.5 + c64_32 / 2f64.powi(65);
        assert!((hamming_probability(0.0, 32) - expect).abs() < 1e-12);
        // Monotone in the cosine and in k.
        let mut last = 0.0;
        for c in COSINE_GRID {
            let p = hamming_probability(*c, 3);
            assert!(p >= last);
            assert!(hamming_probability(*c, 4) >= p);
            last = p;
        }
    }

    #[test]
    fn key_widths() {
        assert_eq!(key_bits(4, 3), (16, 16));
        // 64 = 2·10 + 4·11: leaving out the 3 widest blocks leaves 31 bits, the 3 narrowest 33.
        assert_eq!(key_bits(6, 3), (31, 33));
        assert_eq!(key_bits(1, 0), (64, 64));
        // Out-of-range arguments are clamped.
        assert_eq!(key_bits(0, 0), (64, 64));
        assert_eq!(key_bits(100, 0), (64, 64));
    }

    #[test]
    fn crossing_finds_half() {
        let half = crossing(|x| x, 0.0, 1.0);
        assert!(half.is_some_and(|h| (h - 0.5).abs() < 1e-12), "{half:?}");
        assert_eq!(crossing(|_| 0.1, 0.0, 1.0), None);
        assert_eq!(crossing(|_| 0.9, 0.0, 1.0), Some(0.0));
    }

    #[test]
    fn grids() {
        let s: Vec<f64> = similarity_grid().collect();
        assert_eq!((s.len(), s[0], s[16], s[20]), (21, 0.0, 0.8, 1.0));
        assert!(COSINE_GRID.windows(2).all(|w| w[0] < w[1]));
        let a: Vec<f64> = around(0.95).collect();
        assert_eq!(a.len(), 4);
        assert!((a[0] - 0.85).abs() < 1e-12 && (a[3] - 1.0).abs() < 1e-12);
    }

    #[test]
    fn distance_and_collisions() {
        assert_eq!(cosine_at_distance(0), 1.0);
        assert!(cosine_at_distance(32).abs() < 1e-12);
        // The expected distance at cos(π·k/64) is k: P(≤ k) is near one half there.
        let p = hamming_probability(cosine_at_distance(10), 10);
        assert!((0.5..0.65).contains(&p), "{p}");
        // 2^16 documents, 32-bit keys: 2^32/2 pairs, each 2^-32: one half.
        assert_eq!(chance_collisions(1 << 16, 32), 0.5);
    }
}
