//! The seeded generator of the randomized tests (xoshiro256** seeded through splitmix64), the
//! same stream as `lookalike-bench`'s `rng::Rng`, so that the tests draw the same cases.

/// One step of splitmix64.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// xoshiro256**.
#[derive(Debug, Clone)]
pub(crate) struct Rng {
    s: [u64; 4],
}

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        let mut sm = seed;
        let s =
            [splitmix64(&mut sm), splitmix64(&mut sm), splitmix64(&mut sm), splitmix64(&mut sm)];
        Rng { s }
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
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

    /// A uniform index in `[0, n)` (Lemire's multiply-shift).
    pub(crate) fn index(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// A uniform integer in `[lo, hi]`.
    pub(crate) fn range_incl(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.index(hi - lo + 1)
    }
}

#[test]
fn same_stream_as_the_bench_generator() {
    // The values pinned by lookalike-bench's rng tests.
    assert_eq!(splitmix64(&mut 0), 0xE220_A839_7B1D_CDAF);
    let mut r = Rng::new(0);
    assert_eq!(r.next_u64(), 0x99EC_5F36_CB75_F2B4);
    assert_eq!(r.next_u64(), 0xBF6E_1F78_4956_452A);
}
