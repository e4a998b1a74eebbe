//! Axis scales: "nice" linear ticks from zero and power ticks on a log axis.

/// Tick marks of a linear axis that starts at zero.
#[derive(Clone, Debug, PartialEq)]
pub struct LinearTicks {
    /// The axis end: the first tick at or above the data maximum.
    pub max: f64,
    /// Distance between ticks: 1, 2, 2.5 or 5 times a power of ten.
    pub step: f64,
    /// 0, step, 2·step, ..., max.
    pub values: Vec<f64>,
}

/// Ticks from 0 covering `data_max` with at most `target` intervals (at least 1).
/// Non-positive or non-finite maxima give the axis 0..1.
#[must_use]
pub fn linear_ticks(data_max: f64, target: usize) -> LinearTicks {
    let target = target.max(1) as f64;
    let data_max = if data_max.is_finite() && data_max > 0.0 { data_max } else { 1.0 };
    let raw_step = data_max / target;
    let power = 10f64.powf(raw_step.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|s| s * target >= data_max * (1.0 - 1e-12))
        .unwrap_or(10.0 * power);
    // At most target + 1 intervals, so this loop is short.
    let intervals = (data_max / step - 1e-9).ceil().max(1.0);
    let values = (0..=intervals as u32).map(|i| f64::from(i) * step).collect();
    LinearTicks { max: intervals * step, step, values }
}

/// A linear tick value with as many decimals as its step needs: `20`, `0.5`, `2.5`, `0.25`;
/// zero is `0`.
#[must_use]
pub fn tick_label(v: f64, step: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let power = if step > 0.0 && step.is_finite() { step.log10().floor() } else { 0.0 };
    let mantissa = step / 10f64.powf(power);
    let decimals = (-power + if (mantissa - 2.5).abs() < 1e-9 { 1.0 } else { 0.0 }).max(0.0);
    crate::format::grouped(v, decimals.min(12.0) as usize)
}

/// Tick marks of a logarithmic axis.
#[derive(Clone, Debug, PartialEq)]
pub struct LogTicks {
    /// Axis start (a tick).
    pub min: f64,
    /// Axis end (a tick).
    pub max: f64,
    /// Powers of the base from `min` to `max`.
    pub values: Vec<f64>,
}

/// Powers of `base` from the largest at or below `lo` to the smallest at or above `hi`,
/// thinned to at most `max_ticks` ticks (every k-th power). Degenerate input (non-positive,
/// non-finite, `lo > hi`) gives the axis 1..base; a base below 2 is taken as 10.
#[must_use]
pub fn log_ticks(lo: f64, hi: f64, base: f64, max_ticks: usize) -> LogTicks {
    let base = if base.is_finite() && base >= 2.0 { base } else { 10.0 };
    let ok = lo.is_finite() && hi.is_finite() && lo > 0.0 && hi >= lo;
    let (lo, hi) = if ok { (lo, hi) } else { (1.0, base) };
    let first = (lo.ln() / base.ln() + 1e-9).floor();
    let mut last = (hi.ln() / base.ln() - 1e-9).ceil();
    if last <= first {
        last = first + 1.0;
    }
    // With base >= 2, first and last are within ±1100 for finite f64: the counts are small.
    let count = (last - first) as usize + 1;
    let every = count.div_ceil(max_ticks.max(2)).max(1);
    let mut values: Vec<f64> = (0..count).step_by(every).map(|i| base.powf(first + i as f64)).collect();
    let top = base.powf(first + (every * (values.len().max(1) - 1)) as f64);
    let max = if top >= hi * (1.0 - 1e-12) {
        top
    } else {
        let next = base.powf(first + (every * values.len()) as f64);
        values.push(next);
        next
    };
    LogTicks { min: base.powf(first), max, values }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_steps_are_nice() {
        let t = linear_ticks(8.03e9, 5);
        assert_eq!(t.step, 2e9);
        assert_eq!(t.max, 1e10);
        assert_eq!(t.values.len(), 6);
        let t = linear_ticks(70.5, 6);
        assert_eq!(t.step, 20.0);
        assert_eq!(t.max, 80.0);
        let t = linear_ticks(100.0, 4);
        assert_eq!(t.step, 25.0);
        assert_eq!(t.max, 100.0);
    }

    #[test]
    fn tick_labels_have_the_decimals_their_step_needs() {
        assert_eq!(tick_label(0.0, 0.5), "0");
        assert_eq!(tick_label(20.0, 20.0), "20");
        assert_eq!(tick_label(1.5, 0.5), "1.5");
        assert_eq!(tick_label(1.0, 0.5), "1.0");
        assert_eq!(tick_label(7.5, 2.5), "7.5");
        assert_eq!(tick_label(0.25, 0.25), "0.25");
        assert_eq!(tick_label(1_250_000.0, 250_000.0), "1,250,000");
    }

    #[test]
    fn linear_degenerate_input() {
        for bad in [0.0, -3.0, f64::NAN, f64::INFINITY] {
            let t = linear_ticks(bad, 5);
            assert_eq!(t.max, 1.0, "{bad}");
            assert!(t.values.len() >= 2);
        }
    }

    #[test]
    fn log_ticks_cover_the_data() {
        let t = log_ticks(3e7, 2.2e11, 10.0, 12);
        assert_eq!(t.min, 1e7);
        assert_eq!(t.max, 1e12);
        assert_eq!(t.values.len(), 6);
        let t = log_ticks(256.0, 1_048_576.0, 4.0, 12);
        assert_eq!(t.values, vec![256.0, 1024.0, 4096.0, 16384.0, 65536.0, 262_144.0, 1_048_576.0]);
    }

    #[test]
    fn log_ticks_are_thinned_and_still_cover() {
        let t = log_ticks(1e-300, 1e300, 10.0, 10);
        assert!(t.values.len() <= 11, "{}", t.values.len());
        assert!(t.max >= 1e300 && t.min <= 1e-300);
        let t = log_ticks(-1.0, f64::NAN, 10.0, 10);
        assert_eq!((t.min, t.max), (1.0, 10.0));
    }
}
