//! Latency targets of a deployment (`inference.targets`): time to first token at the
//! median and the 99th percentile, and time per output token. Whatever is absent is not a
//! constraint. Which target binds is the one closest to (or furthest past) its limit.

use super::queueing::Ttft;
use crate::error::{Checker, Invalid};
use serde::{Deserialize, Serialize};

/// `inference.targets`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ServingTargets {
    /// Median time to first token, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_p50_s: Option<f64>,
    /// 99th-percentile time to first token, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_p99_s: Option<f64>,
    /// Time per output token (the mean decode step a request sees), seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tpot_s: Option<f64>,
}

/// One of the targets, or what else limits a deployment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Constraint {
    /// `targets.ttft_p50_s`.
    TtftP50,
    /// `targets.ttft_p99_s`.
    TtftP99,
    /// `targets.tpot_s`.
    Tpot,
    /// Serving the request rate at all (servers run at capacity, the cheapest stable count).
    Throughput,
    /// HBM: the weights, caches and working memory must fit.
    Memory,
}
crate::serde_names::deserialize_by_name!(Constraint {
    TtftP50 => "ttft_p50",
    TtftP99 => "ttft_p99",
    Tpot => "tpot",
    Throughput => "throughput",
    Memory => "memory",
});

/// A constraint no deployment meets, and why (co-located, disaggregated or searched).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Unmet {
    /// The constraint.
    pub constraint: Constraint,
    /// In words, with the best value any deployment reaches.
    pub reason: String,
}

impl ServingTargets {
    /// Check the values (paths relative to `targets`).
    ///
    /// # Errors
    /// A target that is not a positive number of seconds up to 10⁶.
    pub fn validate(&self) -> Result<(), Invalid> {
        let mut c = Checker::new();
        for (name, v) in [("ttft_p50_s", self.ttft_p50_s), ("ttft_p99_s", self.ttft_p99_s), ("tpot_s", self.tpot_s)] {
            if let Some(v) = v {
                if v.is_finite() && v <= 0.0 {
                    c.push(name, "must be greater than 0 seconds");
                } else {
                    c.range_f64(name, v, 0.0, 1e6);
                }
            }
        }
        c.finish()
    }

    /// True when no target is set.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ttft_p50_s.is_none() && self.ttft_p99_s.is_none() && self.tpot_s.is_none()
    }

    /// Each set target with the achieved value over the target (≤ 1 is met).
    #[must_use]
    pub fn ratios(&self, ttft: &Ttft, tpot: f64) -> Vec<(Constraint, f64)> {
        [
            (Constraint::TtftP50, self.ttft_p50_s, ttft.p50_s),
            (Constraint::TtftP99, self.ttft_p99_s, ttft.p99_s),
            (Constraint::Tpot, self.tpot_s, tpot),
        ]
        .into_iter()
        .filter_map(|(k, target, value)| target.map(|t| (k, value / t)))
        .collect()
    }

    /// Every set target is met (within a relative 1e-9).
    #[must_use]
    pub fn met(&self, ttft: &Ttft, tpot: f64) -> bool {
        self.ratios(ttft, tpot).iter().all(|(_, r)| *r <= 1.0 + 1e-9)
    }

    /// The target closest to its limit (the largest ratio), if any is set.
    #[must_use]
    pub fn tightest(&self, ttft: &Ttft, tpot: f64) -> Option<(Constraint, f64)> {
        self.ratios(ttft, tpot).into_iter().fold(None, |best, (k, r)| match best {
            Some((_, b)) if b >= r => best,
            _ => Some((k, r)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ttft(p50: f64, p99: f64) -> Ttft {
        Ttft { mean_s: p50, p50_s: p50, p99_s: p99, queue_mean_s: 0.0, service_s: p50, utilization: 0.5 }
    }

    #[test]
    fn the_tightest_target_binds() {
        let t = ServingTargets { ttft_p50_s: Some(1.0), ttft_p99_s: Some(4.0), tpot_s: Some(0.05) };
        assert!(t.met(&ttft(0.5, 3.9), 0.02));
        assert_eq!(t.tightest(&ttft(0.5, 3.9), 0.02), Some((Constraint::TtftP99, 3.9 / 4.0)));
        assert!(!t.met(&ttft(0.5, 3.9), 0.06));
        assert_eq!(t.tightest(&ttft(0.5, 3.9), 0.06).map(|x| x.0), Some(Constraint::Tpot));
        assert_eq!(ServingTargets::default().tightest(&ttft(1.0, 1.0), 1.0), None);
        assert!(ServingTargets::default().met(&ttft(9.0, 9.0), 9.0));
        let bad = ServingTargets { ttft_p50_s: Some(0.0), ttft_p99_s: Some(f64::NAN), tpot_s: None };
        let fields: Vec<String> = bad.validate().unwrap_err().0.into_iter().map(|e| e.field).collect();
        assert_eq!(fields, ["ttft_p50_s", "ttft_p99_s"]);
    }
}
