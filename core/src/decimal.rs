//! Decimal text of an `f64` without Rust's float formatting machinery.
//!
//! `format!("{:.N}", x)` links core's exact float printer (`float_to_decimal_common_exact`,
//! Grisu with a Dragon4 bignum fallback and their tables) and `format!("{x}")` its shortest
//! printer: about 10 KB of wasm on every page that prints a number (docs/size.md). The pages
//! already ship serde_json's Ryū, so [`shortest`] goes through it (the same digits as
//! `format!("{x}")` but for a rare last-digit choice between two equally short texts that both
//! read back as `x`), and [`fixed`] rounds the exact binary value with a small integer bignum:
//! exactly what `format!` prints (the tests compare them on many values, ties included): `fixed` rounds half to even on the
//! exact value of the `f64`, as `format!` does; NaN prints as `NaN`, infinities as `inf` and
//! `-inf`, and negative values (`-0.0` too) keep their sign, as in `format!`.

/// `x` with `decimals` digits after the point: the same text as `format!("{x:.decimals$}")`.
#[must_use]
pub fn fixed(x: f64, decimals: usize) -> String {
    if let Some(text) = non_finite(x) {
        return text.into();
    }
    let bits = x.to_bits();
    let sign = if bits >> 63 == 1 { "-" } else { "" };
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    // x = mantissa · 2^exponent exactly.
    let (mantissa, exponent) = if biased == 0 { (fraction, -1074) } else { (fraction | (1 << 52), biased - 1075) };
    // n = x · 10^decimals, exact; then rounded to an integer, half to even.
    let mut n = Big::from(mantissa);
    for _ in 0..decimals {
        n.mul_small(10);
    }
    if exponent >= 0 {
        n.shl(exponent.unsigned_abs());
    } else {
        let shift = exponent.unsigned_abs();
        let half = n.bit(shift - 1);
        let below_half = n.any_below(shift - 1);
        n.shr(shift);
        if half && (below_half || n.bit(0)) {
            n.add_one();
        }
    }
    let mut digits = n.into_decimal();
    if digits.len() <= decimals {
        digits = "0".repeat(decimals + 1 - digits.len()) + &digits;
    }
    if decimals == 0 {
        return format!("{sign}{digits}");
    }
    let (int, frac) = digits.split_at(digits.len() - decimals);
    format!("{sign}{int}.{frac}")
}

/// `x` with `decimals` digits and a sign always shown: the same text as
/// `format!("{x:+.decimals$}")` (`+1.5`, `-0.3`, `+0.0`, `-0.0`, `+inf`, `NaN`).
#[must_use]
pub fn signed(x: f64, decimals: usize) -> String {
    let text = fixed(x, decimals);
    if text.starts_with('-') || x.is_nan() {
        text
    } else {
        format!("+{text}")
    }
}

/// The shortest text that reads back as `x`, without exponent, laid out as `format!("{x}")`
/// lays it out (`1` for 1.0, `0.1`, `100000000000000000000` for 1e20). Where two texts of
/// that length both read back as `x`, Ryū may pick the other last digit than `format!`.
#[must_use]
pub fn shortest(x: f64) -> String {
    if let Some(text) = non_finite(x) {
        return text.into();
    }
    let (sign, digits, point) = shortest_digits(x);
    if digits.is_empty() {
        return format!("{sign}0");
    }
    let len = digits.len() as i64;
    let text = if point <= 0 {
        format!("0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
    } else if point >= len {
        format!("{digits}{}", "0".repeat((point - len) as usize))
    } else {
        let (a, b) = digits.split_at(point as usize);
        format!("{a}.{b}")
    };
    format!("{sign}{text}")
}

/// The same digits as [`shortest`] in exponent form, laid out as `format!("{x:e}")` lays them
/// out (`1e15`, `-2.5e-7`, `0e0`).
#[must_use]
pub fn exponent(x: f64) -> String {
    if let Some(text) = non_finite(x) {
        return text.into();
    }
    let (sign, digits, point) = shortest_digits(x);
    if digits.is_empty() {
        return format!("{sign}0e0");
    }
    let (first, rest) = digits.split_at(1);
    let dot = if rest.is_empty() { "" } else { "." };
    format!("{sign}{first}{dot}{rest}e{}", point - 1)
}

/// The sign, the significant digits (no leading or trailing zeros; empty for zero) and where
/// the decimal point sits among them, from serde_json's shortest printing of a finite `x`.
fn shortest_digits(x: f64) -> (&'static str, String, i64) {
    // serde_json prints finite floats with Ryū-style shortest digits: "1.0", "0.1", "1e20",
    // "1.5e-7", "-0.0".
    let text = serde_json::to_string(&x).unwrap_or_default();
    let (sign, unsigned) = match text.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", text.as_str()),
    };
    let (mantissa, exp) = match unsigned.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i64>().unwrap_or(0)),
        None => (unsigned, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    // The decimal point sits `point` digits into `int` + `frac`; leading zeros move it left.
    let all: String = [int, frac].concat();
    let digits = all.trim_start_matches('0');
    let point = int.len() as i64 + exp - (all.len() - digits.len()) as i64;
    (sign, digits.trim_end_matches('0').to_string(), point)
}

fn non_finite(x: f64) -> Option<&'static str> {
    if x.is_nan() {
        Some("NaN")
    } else if x == f64::INFINITY {
        Some("inf")
    } else if x == f64::NEG_INFINITY {
        Some("-inf")
    } else {
        None
    }
}

/// An unsigned integer, 32-bit limbs, least significant first.
struct Big(Vec<u32>);

impl Big {
    fn from(n: u64) -> Self {
        Self(vec![n as u32, (n >> 32) as u32])
    }

    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let v = u64::from(*limb) * u64::from(m) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    fn bit(&self, i: u32) -> bool {
        self.0.get((i / 32) as usize).is_some_and(|limb| limb >> (i % 32) & 1 == 1)
    }

    /// Whether any bit below bit `i` is set.
    fn any_below(&self, i: u32) -> bool {
        let whole = (i / 32) as usize;
        let partial = i % 32;
        self.0.iter().take(whole).any(|&l| l != 0)
            || (partial > 0 && self.0.get(whole).is_some_and(|l| l & ((1 << partial) - 1) != 0))
    }

    fn shl(&mut self, s: u32) {
        let (words, bits) = ((s / 32) as usize, s % 32);
        if bits > 0 {
            let mut carry = 0u32;
            for limb in &mut self.0 {
                let v = *limb;
                *limb = (v << bits) | carry;
                carry = v >> (32 - bits);
            }
            if carry > 0 {
                self.0.push(carry);
            }
        }
        self.0.splice(0..0, std::iter::repeat_n(0, words));
    }

    fn shr(&mut self, s: u32) {
        let (words, bits) = ((s / 32) as usize, s % 32);
        self.0.drain(..words.min(self.0.len()));
        if bits > 0 {
            let mut carry = 0u32;
            for limb in self.0.iter_mut().rev() {
                let v = *limb;
                *limb = (v >> bits) | carry;
                carry = v << (32 - bits);
            }
        }
    }

    fn add_one(&mut self) {
        for limb in &mut self.0 {
            let (v, overflow) = limb.overflowing_add(1);
            *limb = v;
            if !overflow {
                return;
            }
        }
        self.0.push(1);
    }

    /// Decimal digits, no leading zeros ("0" for zero).
    fn into_decimal(mut self) -> String {
        let mut chunks = Vec::new();
        while self.0.iter().any(|&l| l != 0) {
            let mut rem = 0u64;
            for limb in self.0.iter_mut().rev() {
                let v = (rem << 32) | u64::from(*limb);
                *limb = (v / 1_000_000_000) as u32;
                rem = v % 1_000_000_000;
            }
            chunks.push(rem as u32);
        }
        let mut out = chunks.pop().map_or_else(|| "0".to_string(), |c| c.to_string());
        for c in chunks.iter().rev() {
            let s = c.to_string();
            out.push_str(&"0".repeat(9 - s.len()));
            out.push_str(&s);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values() -> Vec<f64> {
        let mut v = vec![
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            -2.5,
            0.125,
            0.375,
            -0.125,
            0.05,
            0.15,
            0.25,
            0.35,
            1.005,
            2.675,
            9.995,
            99.95,
            999.5,
            0.9995,
            1e15,
            1e16,
            1e20,
            1e21,
            1e22,
            1e23,
            1e100,
            1e300,
            f64::MAX,
            -f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            1e-7,
            1.5e-7,
            2.5e-7,
            0.1,
            0.2,
            0.3,
            1.0 / 3.0,
            2.0 / 3.0,
            123_456_789.987_654_32,
            70_553_706_496.0,
            8_030_261_248.0,
            18_426.31,
            201.34,
            0.51234,
            4.5,
            5.5,
            1e-300,
            3.0e-5,
            9.999_999e-5,
            (1u64 << 53) as f64,
            ((1u64 << 53) + 2) as f64,
            1.0e-4,
            12_345.678_9,
        ];
        // A deterministic spread over magnitudes and mantissas, and exact ties at each step.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..4000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let exp = (seed % 80) as i32 - 40;
            let m = (seed >> 20) as f64 / (1u64 << 44) as f64;
            let x = m * 10f64.powi(exp);
            v.push(if seed & 1 == 1 { -x } else { x });
            v.push(f64::from_bits(seed));
            // k + 0.5 and k/8 are exact ties at 0 and 2 decimals.
            v.push((seed % 100_000) as f64 + 0.5);
            v.push((seed % 100_000) as f64 / 8.0);
        }
        v
    }

    #[test]
    fn fixed_prints_what_format_prints() {
        for x in values() {
            for d in [0, 1, 2, 3, 4, 6, 9, 17, 25] {
                assert_eq!(fixed(x, d), format!("{x:.d$}"), "{x:e} at {d} decimals");
            }
        }
    }

    /// Ryū and core's Grisu both print the fewest digits that read back as `x`; when two
    /// candidates of that length are equally close they may pick a different last digit
    /// (1303729049456592.2 / .3 for the same `f64`). Both read back as `x`.
    #[test]
    fn signed_prints_what_format_prints() {
        for x in values().into_iter().chain([f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.0, -0.04]) {
            for d in [0, 1, 2, 3] {
                assert_eq!(signed(x, d), format!("{x:+.d$}"), "{x:e} at {d} decimals");
            }
        }
    }

    #[test]
    fn shortest_prints_what_display_prints() {
        let mut same = 0;
        let all = values();
        for &x in &all {
            let ours = shortest(x);
            let theirs = format!("{x}");
            if x.is_nan() {
                assert_eq!(ours, theirs);
                continue;
            }
            assert_eq!(ours.parse::<f64>().map(f64::to_bits), Ok(x.to_bits()), "{x:e}: {ours}");
            assert_eq!(ours.len(), theirs.len(), "{x:e}: {ours} vs {theirs}");
            assert!(!ours.contains('e'), "{ours}");
            if ours == theirs {
                same += 1;
            }
        }
        assert!(same * 100 >= all.len() * 99, "{same} of {}", all.len());
    }

    #[test]
    fn exponent_prints_what_lower_exp_prints() {
        let mut same = 0;
        let all = values();
        for &x in &all {
            let (ours, theirs) = (exponent(x), format!("{x:e}"));
            if x.is_nan() {
                assert_eq!(ours, theirs);
                continue;
            }
            assert_eq!(ours.parse::<f64>().map(f64::to_bits), Ok(x.to_bits()), "{x:e}: {ours}");
            assert_eq!(ours.len(), theirs.len(), "{ours} vs {theirs}");
            if ours == theirs {
                same += 1;
            }
        }
        assert!(same * 100 >= all.len() * 99, "{same} of {}", all.len());
        assert_eq!(exponent(1e15), "1e15");
        assert_eq!(exponent(-2.5e-7), "-2.5e-7");
        assert_eq!(exponent(0.0), "0e0");
    }

    #[test]
    fn non_finite_values() {
        for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(fixed(x, 2), format!("{x:.2}"));
            assert_eq!(shortest(x), format!("{x}"));
            assert_eq!(exponent(x), format!("{x:e}"));
        }
    }

    #[test]
    fn ties_round_half_to_even_on_the_exact_value() {
        assert_eq!(fixed(0.5, 0), "0");
        assert_eq!(fixed(1.5, 0), "2");
        assert_eq!(fixed(2.5, 0), "2");
        assert_eq!(fixed(-2.5, 0), "-2");
        assert_eq!(fixed(0.125, 2), "0.12");
        // 2.675 is 2.67499999… in binary: not a tie.
        assert_eq!(fixed(2.675, 2), "2.67");
        assert_eq!(fixed(-0.01, 1), "-0.0");
        assert_eq!(fixed(18_426.31, 1), "18426.3");
    }
}
