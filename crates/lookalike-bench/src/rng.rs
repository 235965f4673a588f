//! A small seeded random number generator (xoshiro256** seeded through splitmix64).
//!
//! The corpus generator must give byte-identical output for the same arguments on every machine
//! and in every future build, so it uses this fixed, hand-written generator instead of a crate
//! whose algorithm could change between versions.

/// One step of splitmix64: a good 64-bit mixing function, also used to derive independent seeds.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Mixes several words into one seed (order matters), e.g. `(corpus seed, document number,
/// purpose)`, so that each document's randomness is independent of every other document's.
pub fn derive_seed(parts: &[u64]) -> u64 {
    let mut state = 0x6A09_E667_F3BC_C908;
    let mut out = 0;
    for &p in parts {
        state ^= p;
        out = splitmix64(&mut state);
        state = out;
    }
    out
}

/// xoshiro256** (Blackman and Vigna): fast, small state, good statistical quality.
#[derive(Debug, Clone)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// A generator whose whole state is derived from `seed`.
    pub fn new(seed: u64) -> Self {
        let mut sm = seed;
        let s =
            [splitmix64(&mut sm), splitmix64(&mut sm), splitmix64(&mut sm), splitmix64(&mut sm)];
        Rng { s }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// A uniform float in `[0, 1)`.
    pub fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniform float in `[lo, hi)`.
    pub fn range_f64(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.f64()
    }

    /// A uniform integer in `[0, n)`; `n` must be positive.
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        // Lemire's multiply-shift; the tiny bias (< n / 2^64) does not matter here.
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A uniform index in `[0, n)`.
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// A uniform integer in `[lo, hi]` (inclusive).
    pub fn range_incl(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.index(hi - lo + 1)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.f64() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_seeds_differ() {
        let a: Vec<u64> = (0..8)
            .map({
                let mut r = Rng::new(42);
                move |_| r.next_u64()
            })
            .collect();
        let mut r = Rng::new(42);
        let b: Vec<u64> = (0..8).map(|_| r.next_u64()).collect();
        assert_eq!(a, b);
        assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
        assert_ne!(derive_seed(&[1, 2]), derive_seed(&[2, 1]));
    }

    #[test]
    fn ranges_stay_in_bounds_and_cover() {
        let mut r = Rng::new(7);
        let mut seen = [false; 5];
        for _ in 0..1000 {
            let x = r.range_incl(3, 7);
            assert!((3..=7).contains(&x));
            seen[x - 3] = true;
            let f = r.f64();
            assert!((0.0..1.0).contains(&f));
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn known_values_are_stable() {
        // Pins the algorithm (values checked against an independent implementation of
        // splitmix64 + xoshiro256**): a changed generator would silently change every corpus.
        assert_eq!(splitmix64(&mut 0), 0xE220_A839_7B1D_CDAF);
        let mut r = Rng::new(0);
        assert_eq!(r.next_u64(), 0x99EC_5F36_CB75_F2B4);
        assert_eq!(r.next_u64(), 0xBF6E_1F78_4956_452A);
    }
}
