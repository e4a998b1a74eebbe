//! A small deterministic random-number generator (xorshift64*, seeded by SplitMix64).
//!
//! Every case gets its own generator from `(seed, case index)`, so any case can be
//! replayed alone, in any order and on any number of threads.

/// SplitMix64's finaliser: spreads a seed over all 64 bits.
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// xorshift64* (Vigna, 2016).
pub struct Rng(u64);

impl Rng {
    /// The generator of case `case` of the run seeded with `seed`.
    pub fn for_case(seed: u64, case: u64) -> Self {
        // xorshift must not start at 0; `| 1` keeps it odd.
        Self(splitmix64(seed ^ splitmix64(case)) | 1)
    }

    /// 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (0 when `n` is 0), by Lemire's multiply-shift.
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `0.0..1.0`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// One element of a non-empty slice.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }

    /// An integer in `lo..=hi`, log-uniform (so 1, 1,000 and 1,000,000 are all
    /// likely), hitting either end exactly one time in ten.
    pub fn in_range(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        match self.below(20) {
            0 => lo,
            1 => hi,
            _ => {
                let span = hi - lo;
                let bits = self.below(u64::from(64 - span.leading_zeros()) + 1);
                let x = if bits >= 64 { self.next_u64() } else { self.next_u64() & ((1u64 << bits) - 1) };
                lo + x.min(span)
            }
        }
    }
}

#[test]
fn replays_are_identical_and_ranges_hold() {
    let a: Vec<u64> = (0..8).map(|_| Rng::for_case(7, 42).next_u64()).collect();
    assert!(a.windows(2).all(|w| w[0] == w[1]));
    let mut r = Rng::for_case(1, 2);
    for _ in 0..10_000 {
        let x = r.in_range(5, 1 << 40);
        assert!((5..=1 << 40).contains(&x));
        assert!(r.below(3) < 3);
        assert!((0.0..1.0).contains(&r.unit()));
    }
    assert_eq!(r.in_range(9, 9), 9);
    assert_eq!(r.below(0), 0);
}
