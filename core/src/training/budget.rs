//! Time and cost to train a token budget (book 6.2: `T = FLOPs / (chips · C · MFU)`).

use super::report::TrainingReport;

/// Seconds in a day.
pub const SECONDS_PER_DAY: f64 = 86_400.0;

/// Days to do `total_flops` of model FLOPs on `chips` chips of `peak` FLOP/s each at
/// `mfu` (book 6.2: 6.3e24 FLOPs on 8960 TPU v5p at 40% MFU is about 44 days).
#[must_use]
pub fn days_to_train(total_flops: f64, chips: f64, peak: f64, mfu: f64) -> f64 {
    total_flops / (chips * peak * mfu) / SECONDS_PER_DAY
}

/// Cost of `chips` chips for `days` at `price_per_chip_hour`.
#[must_use]
pub fn training_cost(chips: f64, days: f64, price_per_chip_hour: f64) -> f64 {
    chips * days * 24.0 * price_per_chip_hour
}

/// Fill `r`'s budget keys (`token_budget`, `steps`, `days`, `chip_hours`,
/// `price_per_chip_hour_usd`, `cost_usd`) for `token_budget` tokens at `price` per
/// chip-hour, on chips of `peak_per_chip` FLOP/s (the MFU's denominator); `None` where a
/// value is missing or not finite. What [`super::plan::plan`] does, exposed so that a
/// page can change the budget or the price without planning again.
pub fn apply_budget(r: &mut TrainingReport, token_budget: Option<f64>, price: Option<f64>, peak_per_chip: f64) {
    let finite = |x: f64| x.is_finite().then_some(x);
    let steps = token_budget.map(|b| b / r.global_batch_tokens);
    let days =
        steps.and_then(|n| finite(days_to_train(r.model_flops_per_step.get() * n, r.chips, peak_per_chip, r.mfu)));
    r.token_budget = token_budget;
    r.steps = steps;
    r.days = days;
    r.chip_hours = days.map(|d| r.chips * d * 24.0);
    r.price_per_chip_hour_usd = price;
    r.cost_usd = days.zip(price).map(|(d, p)| training_cost(r.chips, d, p));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llama3_70b_on_a_v5p_pod() {
        let days = days_to_train(6.3e24, 8960.0, 4.59e14, 0.4);
        assert!((days - 44.32).abs() < 0.01, "{days}");
        assert!((training_cost(2.0, 1.0, 1.5) - 72.0).abs() < 1e-12);
    }
}
