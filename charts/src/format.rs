//! Number formatting shared by the charts and the page: exact integers with thousands
//! separators, short forms with a suffix ("8.03 B"), SI prefixes for FLOPs, token counts
//! ("4K" = 4,096) and significant-digit decimals. Non-finite input prints as "n/a", never
//! panics.

// Not `format!("{:.N}", f64)`: core's float printing costs every page ~10 KB of wasm.
use shardcalc_core::decimal::fixed;

/// Printed for NaN and infinities.
pub const NOT_A_NUMBER: &str = "n/a";

/// `70553706496` → `"70,553,706,496"`.
#[must_use]
pub fn thousands(n: u64) -> String {
    group_digits(&n.to_string())
}

/// `x` with `decimals` decimals and a grouped integer part: `(18426.31, 1)` → `"18,426.3"`.
#[must_use]
pub fn grouped(x: f64, decimals: usize) -> String {
    if !x.is_finite() {
        return NOT_A_NUMBER.into();
    }
    let text = fixed(x.abs(), decimals);
    let (int, frac) = text.split_once('.').unwrap_or((text.as_str(), ""));
    // "-0.0" is not worth a sign.
    let negative = x < 0.0 && text.chars().any(|c| c.is_ascii_digit() && c != '0');
    let sign = if negative { "-" } else { "" };
    if frac.is_empty() {
        format!("{sign}{}", group_digits(int))
    } else {
        format!("{sign}{}.{frac}", group_digits(int))
    }
}

/// At least `digits` significant digits, grouped, no exponent between 1e-4 and 1e15:
/// `(201.34, 4)` → `"201.3"`, `(18426.3, 4)` → `"18,426"`, `(0.51234, 3)` → `"0.512"`.
#[must_use]
pub fn significant(x: f64, digits: u32) -> String {
    if !x.is_finite() {
        return NOT_A_NUMBER.into();
    }
    if x == 0.0 {
        return "0".into();
    }
    let magnitude = x.abs().log10().floor();
    if !(-4.0..15.0).contains(&magnitude) {
        return exponent_form(x, magnitude, digits);
    }
    // magnitude is in [-4, 15), so this is a small non-negative integer.
    let decimals = (f64::from(digits) - 1.0 - magnitude).max(0.0);
    grouped(x, decimals as usize)
}

/// `x` as `m.mme<exponent>` with `digits` significant digits (`1.50e20`), written from the
/// mantissa so that pages need not ship `{:e}` (core's shortest float printing).
fn exponent_form(x: f64, magnitude: f64, digits: u32) -> String {
    let decimals = digits.saturating_sub(1) as usize;
    let mut exponent = magnitude;
    let mut mantissa = x / 10f64.powf(exponent);
    // Rounding may carry into a new digit: 9.996e20 at three digits is 1.00e21.
    let scale = 10f64.powi(decimals as i32);
    if (mantissa.abs() * scale).round() >= 10.0 * scale {
        exponent += 1.0;
        mantissa /= 10.0;
    }
    format!("{}e{}", fixed(mantissa, decimals), exponent as i32)
}

/// Parameter-style short form with three significant digits: `8.03e9` → `"8.03 B"`,
/// `46.7e9` → `"46.7 B"`, `512` → `"512"` (K, M, B, T = 1e3, 1e6, 1e9, 1e12).
#[must_use]
pub fn short_count(x: f64) -> String {
    scaled(x, &[(1e12, " T"), (1e9, " B"), (1e6, " M"), (1e3, " K")])
}

/// SI short form with three significant digits: `1.13e10` → `"11.3 G"`.
#[must_use]
pub fn si(x: f64) -> String {
    scaled(x, &[(1e18, " E"), (1e15, " P"), (1e12, " T"), (1e9, " G"), (1e6, " M"), (1e3, " k")])
}

/// A token count the way people say it: multiples of 2^20 as `"1M"`, of 1,024 as `"4K"`,
/// anything else with separators (`"41,984"`).
#[must_use]
pub fn tokens(n: u64) -> String {
    const KI: u64 = 1 << 10;
    const MI: u64 = 1 << 20;
    if n >= MI && n.is_multiple_of(MI) {
        format!("{}M", n / MI)
    } else if n >= KI && n.is_multiple_of(KI) {
        format!("{}K", n / KI)
    } else {
        thousands(n)
    }
}

/// `part / whole` as a percentage with one decimal (`"12.3%"`); "n/a" when `whole` is 0.
#[must_use]
pub fn percent(part: f64, whole: f64) -> String {
    if whole == 0.0 {
        return NOT_A_NUMBER.into();
    }
    format!("{}%", grouped(100.0 * part / whole, 1))
}

/// Three significant digits of `x` in the largest unit of `units` (descending) it reaches.
fn scaled(x: f64, units: &[(f64, &str)]) -> String {
    if !x.is_finite() {
        return NOT_A_NUMBER.into();
    }
    let abs = x.abs();
    for &(scale, suffix) in units {
        // 0.9995 so that 999.6e9 prints as "1.00 T", not "1000 B".
        if abs >= scale * 0.9995 {
            return format!("{}{suffix}", three_significant(x / scale));
        }
    }
    three_significant(x)
}

fn three_significant(v: f64) -> String {
    let abs = v.abs();
    let text = if abs >= 99.95 {
        fixed(v, 0)
    } else if abs >= 9.995 {
        fixed(v, 1)
    } else {
        fixed(v, 2)
    };
    // "10.0 T" reads better as "10 T", "2.50 k" as "2.5 k".
    let text = if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.').to_string() } else { text };
    if text == "-0" {
        "0".into()
    } else {
        text
    }
}

/// Inserts a comma every three digits from the right of a string of ASCII digits.
fn group_digits(digits: &str) -> String {
    shardcalc_core::text::group_digits(digits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_integers_are_grouped() {
        assert_eq!(thousands(70_553_706_496), "70,553,706,496");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
    }

    #[test]
    fn grouped_decimals() {
        assert_eq!(grouped(18_426.31, 1), "18,426.3");
        assert_eq!(grouped(-1234.5, 0), "-1,234");
        assert_eq!(grouped(-0.01, 1), "0.0");
        assert_eq!(grouped(f64::NAN, 2), "n/a");
    }

    #[test]
    fn significant_digits() {
        assert_eq!(significant(201.34, 4), "201.3");
        assert_eq!(significant(18_426.3, 4), "18,426");
        assert_eq!(significant(0.51234, 3), "0.512");
        assert_eq!(significant(0.0, 4), "0");
        assert_eq!(significant(1.5e20, 3), "1.50e20");
        assert_eq!(significant(9.996e20, 3), "1.00e21");
        assert_eq!(significant(-2.5e-7, 2), "-2.5e-7");
        assert_eq!(significant(1e15, 4), "1.000e15");
        assert_eq!(significant(f64::INFINITY, 3), "n/a");
    }

    #[test]
    fn short_forms() {
        assert_eq!(short_count(8_030_261_248.0), "8.03 B");
        assert_eq!(short_count(46_702_792_704.0), "46.7 B");
        assert_eq!(short_count(405_853_388_800.0), "406 B");
        assert_eq!(short_count(999_700_000_000.0), "1 T");
        assert_eq!(short_count(512.0), "512");
        assert_eq!(short_count(0.0), "0");
        assert_eq!(si(1.13e10), "11.3 G");
        assert_eq!(si(2.5e3), "2.5 k");
        assert_eq!(si(1e13), "10 T");
        assert_eq!(short_count(8e9), "8 B");
        assert_eq!(short_count(-0.004), "0");
        assert_eq!(short_count(-2.5e6), "-2.5 M");
    }

    #[test]
    fn token_counts() {
        assert_eq!(tokens(256), "256");
        assert_eq!(tokens(4096), "4K");
        assert_eq!(tokens(1 << 20), "1M");
        assert_eq!(tokens(41_984), "41K");
        assert_eq!(tokens(41_985), "41,985");
    }

    #[test]
    fn percentages() {
        assert_eq!(percent(1.0, 8.0), "12.5%");
        assert_eq!(percent(1.0, 0.0), "n/a");
    }
}
