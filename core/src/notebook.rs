//! MaxText's LLM-calculator notebook, reproduced as printed, bugs included, with the
//! correct number and the reason beside every row the notebook gets wrong.
//!
//! The notebook has three model families: dense, Mixtral-like MoE (routed experts
//! only) and DeepSeek-like MoE (MLA, shared experts, dense-first layers). Its totals
//! use the [`FlopConvention::Notebook`] convention (attention not halved). Its known
//! bugs, reconstructed from its printed tables:
//! - Mixtral-like: the router's D·E weights are counted once per expert, so the total
//!   counts the router E times (8×) and the active count k times (2×);
//! - DeepSeek-like: the total parameter count omits the router weights (about 0.11B
//!   for DeepSeek-V3);
//! - DeepSeek-like: the "vocab embedding" row of the FLOPs table prints the embedding
//!   parameter count V·D instead of FLOPs (the total itself is right).

use crate::flops::{training_flops, FlopComponent, FlopConvention, Workload};
use crate::model::{Attention, ModelConfig};
use crate::params::{count_params, ParamComponent};
use serde::{Deserialize, Serialize};

/// Which of the notebook's three model types a configuration falls under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum NotebookFamily {
    /// No experts.
    Dense,
    /// Routed experts only.
    MixtralLike,
    /// MLA and/or shared experts and/or dense-first layers.
    #[serde(rename = "deepseek_like")]
    DeepSeekLike,
}

impl NotebookFamily {
    /// Classify a model the way the notebook's three code paths split.
    #[must_use]
    pub fn of(m: &ModelConfig) -> Self {
        match &m.moe {
            None => NotebookFamily::Dense,
            Some(moe)
                if matches!(m.attention, Attention::Mla(_)) || moe.shared_experts > 0 || moe.first_dense_layers > 0 =>
            {
                NotebookFamily::DeepSeekLike
            }
            Some(_) => NotebookFamily::MixtralLike,
        }
    }
}

/// One printed row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct NotebookRow {
    /// The row's label.
    pub label: String,
    /// The unit of `printed` and `correct` ("params" or "TFLOPs").
    pub unit: String,
    /// What the notebook prints.
    pub printed: f64,
    /// What it should print.
    pub correct: f64,
    /// Why they differ; `None` when they agree.
    pub discrepancy: Option<String>,
}

/// The notebook's parameter and FLOPs tables for one configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct NotebookTables {
    /// Which code path of the notebook applies.
    pub family: NotebookFamily,
    /// Parameter table.
    pub params: Vec<NotebookRow>,
    /// TFLOPs per device per training step.
    pub flops: Vec<NotebookRow>,
}

fn row(label: &str, unit: &str, correct: f64) -> NotebookRow {
    NotebookRow { label: label.into(), unit: unit.into(), printed: correct, correct, discrepancy: None }
}

fn wrong(label: &str, unit: &str, printed: f64, correct: f64, why: &str) -> NotebookRow {
    NotebookRow { label: label.into(), unit: unit.into(), printed, correct, discrepancy: Some(why.into()) }
}

/// Reproduce the notebook's tables for `m` at workload `w`.
#[must_use]
pub fn notebook_tables(m: &ModelConfig, w: &Workload) -> NotebookTables {
    let family = NotebookFamily::of(m);
    let p = count_params(m);
    let t = |c: ParamComponent| p.get(c).total.get();
    let router = t(ParamComponent::Router);
    let (e, k) = m.moe.as_ref().map_or((1.0, 1.0), |moe| (moe.num_experts as f64, moe.experts_per_token as f64));
    let total = p.total_without_mtp.get();
    let active = p.active.get();

    let mut params = vec![
        row("Vocab embedding", "params", t(ParamComponent::Embedding) + t(ParamComponent::Unembedding)),
        row("Attention", "params", t(ParamComponent::Attention)),
    ];
    match family {
        NotebookFamily::Dense => {
            params.push(row("MLP", "params", t(ParamComponent::Mlp)));
            params.push(row("Total", "params", total));
        }
        NotebookFamily::MixtralLike => {
            params.push(row("Experts", "params", t(ParamComponent::RoutedExperts)));
            params.push(row("Router", "params", router));
            params.push(wrong(
                "Total",
                "params",
                total + (e - 1.0) * router,
                total,
                "the notebook adds the router's D·E weights once per expert, so the total counts the router E times",
            ));
            let router_active = router; // the router is always fully active
            params.push(wrong(
                "Active",
                "params",
                active + (k - 1.0) * router_active,
                active,
                "the notebook adds the router once per active expert, so the active count includes it k times",
            ));
        }
        NotebookFamily::DeepSeekLike => {
            params.push(row("Dense MLP", "params", t(ParamComponent::Mlp)));
            params.push(row(
                "Experts (routed + shared)",
                "params",
                t(ParamComponent::RoutedExperts) + t(ParamComponent::SharedExperts),
            ));
            params.push(wrong(
                "Total",
                "params",
                total - router,
                total,
                "the notebook's total leaves out the router weights (D·E per MoE layer)",
            ));
            params.push(row("Active", "params", active));
        }
    }

    let r = training_flops(m, w, FlopConvention::Notebook);
    let tf = |c: FlopComponent| r.get(c).total().tflops();
    let ffn = tf(FlopComponent::Mlp)
        + tf(FlopComponent::RoutedExperts)
        + tf(FlopComponent::SharedExperts)
        + tf(FlopComponent::Router);
    let mut flops = vec![
        row("Attention projections", "TFLOPs", tf(FlopComponent::AttentionProjections)),
        row("Dot-product attention", "TFLOPs", tf(FlopComponent::AttentionDot)),
        row("FFN", "TFLOPs", ffn),
    ];
    let vocab = tf(FlopComponent::Unembedding);
    if family == NotebookFamily::DeepSeekLike {
        flops.push(wrong(
            "Vocab embedding",
            "TFLOPs",
            t(ParamComponent::Embedding),
            vocab,
            "the notebook prints the embedding's parameter count V·D in this FLOPs row; its total uses the right value, 6·tokens·D·V",
        ));
    } else {
        flops.push(row("Vocab embedding", "TFLOPs", vocab));
    }
    flops.push(row("Total", "TFLOPs", r.total.tflops()));
    NotebookTables { family, params, flops }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flops::RematPolicy;
    use crate::presets;

    fn w(b: f64, t: u64) -> Workload {
        Workload { per_device_batch: b, seq_len: t, grad_accum: 1, remat: RematPolicy::None }
    }

    fn printed(rows: &[NotebookRow], label: &str) -> f64 {
        rows.iter().find(|r| r.label == label).map(|r| r.printed).unwrap()
    }

    fn three_sig(x: f64) -> String {
        format!("{x:.2e}")
    }

    /// The notebook's printed headline numbers, to its 3 significant figures.
    #[test]
    fn reproduces_printed_tables() {
        let mut dense = presets::get("mistral-7b").unwrap().config;
        dense.layout = crate::model::AttentionLayout::default();
        let t = notebook_tables(&dense, &w(1.0, 4096));
        assert_eq!(t.family, NotebookFamily::Dense);
        assert_eq!(three_sig(printed(&t.params, "Total")), "7.24e9");
        assert_eq!(format!("{:.0}", printed(&t.flops, "Total")), "201");

        let mut mixtral = presets::get("mixtral-8x7b").unwrap().config;
        mixtral.num_layers = 5;
        let t = notebook_tables(&mixtral, &w(1.0, 4096));
        assert_eq!(t.family, NotebookFamily::MixtralLike);
        assert_eq!(three_sig(printed(&t.params, "Total")), "7.52e9");
        assert_eq!(three_sig(printed(&t.params, "Active")), "2.23e9");
        assert_eq!(format!("{:.1}", printed(&t.flops, "Total")), "55.8");

        let ds = presets::get("deepseek-v3").unwrap().config;
        let t = notebook_tables(&ds, &w(8.0, 8192));
        assert_eq!(t.family, NotebookFamily::DeepSeekLike);
        assert_eq!(three_sig(printed(&t.params, "Total")), "6.71e11");
        assert_eq!(three_sig(printed(&t.params, "Active")), "3.76e10");
        assert_eq!(three_sig(printed(&t.flops, "Total")), "2.24e4");
    }

    #[test]
    fn bugs_are_flagged_with_the_correct_value() {
        let mut mixtral = presets::get("mixtral-8x7b").unwrap().config;
        mixtral.num_layers = 5;
        let t = notebook_tables(&mixtral, &w(1.0, 4096));
        let total = t.params.iter().find(|r| r.label == "Total").unwrap();
        // Router: 5 layers × 4096 × 8 = 163,840 weights, counted 8× instead of once.
        assert_eq!(total.printed - total.correct, 7.0 * 163_840.0);
        assert!(total.discrepancy.is_some());

        let ds = presets::get("deepseek-v3").unwrap().config;
        let t = notebook_tables(&ds, &w(8.0, 8192));
        let total = t.params.iter().find(|r| r.label == "Total").unwrap();
        let missing = total.correct - total.printed;
        // 58 MoE layers × 7168 × 256 router weights + 256 score biases each ≈ 0.11B.
        assert_eq!(missing, 58.0 * (7168.0 * 256.0 + 256.0));
        let vocab = t.flops.iter().find(|r| r.label == "Vocab embedding").unwrap();
        assert_eq!(vocab.printed, 129_280.0 * 7168.0);
        assert!((vocab.correct - 364.4).abs() < 0.1, "{}", vocab.correct);
        // Rows without a discrepancy print the correct value.
        for r in t.params.iter().chain(&t.flops) {
            assert_eq!(r.discrepancy.is_none(), r.printed == r.correct, "{}", r.label);
        }
    }
}
