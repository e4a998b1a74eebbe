//! The fields of the `inference` section (book chapters 7–8): the workload, the four number
//! formats (7.1.3, 8.1.1), how a replica splits the model (7.3), how prefill runs (8.1.2),
//! speculative decoding (7.2.1), the price, and the conventions serving tools disagree on;
//! serving at a request rate with its traffic mix and targets ([`rate`]), the prefill pool and
//! the KV link of disaggregated serving ([`pools`]), and the search under targets
//! ([`search`]). A missing section is created with [`default_section`].

pub mod pools;
pub mod rate;
pub mod search;

use super::{Choice, Field, InputMode, Kind, Min, Options};
use crate::dtype::DType;
use crate::flops::AttentionCounting;
use crate::inference::defaults::default_section;
use crate::inference::options::{
    CommsOverlap, DenseSharding, InferenceSection, KvContext, KvSharding, WeightSharding, WorkingMemory,
};
use crate::inference::speculative::{DraftCost, Speculative};
use crate::scenario::{ModelSource, Scenario};
use crate::text::name_list;
pub use pools::{KV_TRANSFER, PREFILL_POOL};
pub use rate::{BATCHING, RATE, TRAFFIC};
pub use search::SEARCH;

/// The section as fields read it: the scenario's, else the defaults.
fn read<T>(s: &Scenario, f: impl FnOnce(&InferenceSection) -> T) -> T {
    f(s.inference.as_ref().unwrap_or_else(|| defaults()))
}

/// The defaults, built once (not once per field's getter: see `field::training`).
fn defaults() -> &'static InferenceSection {
    static DEFAULTS: std::sync::OnceLock<InferenceSection> = std::sync::OnceLock::new();
    DEFAULTS.get_or_init(default_section)
}

/// The section fields write, created with its defaults when missing.
fn section(s: &mut Scenario) -> &mut InferenceSection {
    s.inference.get_or_insert_with(default_section)
}

/// Every format with its size, in `DType::ALL`'s order.
pub const DTYPE_OPTIONS: [(&str, &str); 8] = [
    ("fp32", "fp32 (4 bytes)"),
    ("bf16", "bf16 (2 bytes)"),
    ("fp16", "fp16 (2 bytes)"),
    ("fp8", "fp8 (1 byte)"),
    ("int8", "int8 (1 byte)"),
    ("int4", "int4 (half a byte)"),
    ("nvfp4", "NVFP4 (4 bits + an fp8 scale per 16: 0.5625 bytes)"),
    ("mxfp4", "MXFP4 (4 bits + an e8m0 scale per 32: 0.53125 bytes)"),
];

/// A number-format drop-down of `inference.dtypes`.
macro_rules! dtype_field {
    ($path:literal, $label:literal, $slot:ident) => {
        Field::new(
            $path,
            $label,
            Kind::Choice {
                options: Options::Fixed(&DTYPE_OPTIONS),
                get: |s| read(s, |i| i.dtypes.$slot.name().to_string()),
                set: |s, v| {
                    section(s).dtypes.$slot = DType::parse(v).ok_or_else(|| format!("unknown format {v:?}"))?;
                    Ok(())
                },
            },
        )
    };
}

/// Prompt and output lengths, batch.
pub static WORKLOAD: [Field; 3] = [
    Field::new(
        "inference.prompt_len",
        "Prompt length P",
        Kind::Count { get: |s| read(s, |i| i.prompt_len), set: |s, v| section(s).prompt_len = v },
    )
    .unit("tokens")
    .hint("Tokens prefilled per request"),
    Field::new(
        "inference.output_len",
        "Output length G",
        Kind::Count { get: |s| read(s, |i| i.output_len), set: |s, v| section(s).output_len = v },
    )
    .unit("tokens")
    .hint("Tokens generated per request (decode steps)"),
    Field::new(
        "inference.batch",
        "Batch B",
        Kind::OptionalCount { get: |s| read(s, |i| i.batch), set: |s, v| section(s).batch = v },
    )
    .unit("sequences")
    .hint("Sequences decoded together per replica; empty = the largest that fits"),
];

/// Weight, KV, activation and compute formats.
pub static FORMATS: [Field; 4] = [
    dtype_field!("inference.dtypes.weights", "Weights", weights)
        .hint("Stored and read every decode step; int8 halves the bytes (and the critical batch)"),
    dtype_field!("inference.dtypes.kv", "KV cache", kv).hint("Cached keys and values (MLA: the latent)"),
    dtype_field!("inference.dtypes.activations", "Activations", activations)
        .hint("What the collectives move and the working memory holds"),
    dtype_field!("inference.dtypes.compute", "Compute", compute)
        .hint("The matmuls' format: picks the chip's peak FLOP/s"),
];

fn two_d(s: &Scenario) -> bool {
    read(s, |i| i.sharding.weights == WeightSharding::WeightStationary2d)
}

fn moe(s: &Scenario) -> bool {
    s.model.resolve().is_ok_and(|m| m.moe.is_some())
}

/// 2D needs D axes: choosing it starts from the first TPU axis (`x`); 1D drops them.
fn set_weights(s: &mut Scenario, v: &str) -> Result<(), String> {
    let sharding = &mut section(s).sharding;
    sharding.weights = match v {
        "weight_stationary_2d" => {
            if sharding.d_axes.is_empty() {
                sharding.d_axes = vec!["x".into()];
            }
            WeightSharding::WeightStationary2d
        }
        "weight_stationary_1d" => {
            sharding.d_axes.clear();
            WeightSharding::WeightStationary1d
        }
        other => return Err(format!("unknown sharding {other:?}")),
    };
    Ok(())
}

/// Weight sharding, KV sharding past the heads, model and expert axes, and how the dense
/// weights sit beside expert parallelism.
pub static SHARDING: [Field; 6] = [
    Field::new(
        "inference.sharding.weights",
        "Weights",
        Kind::Choice {
            options: Options::Fixed(&[
                ("weight_stationary_1d", "1D weight-stationary (Megatron)"),
                ("weight_stationary_2d", "2D weight-stationary"),
            ]),
            get: |s| {
                read(s, |i| match i.sharding.weights {
                    WeightSharding::WeightStationary1d => "weight_stationary_1d",
                    WeightSharding::WeightStationary2d => "weight_stationary_2d",
                })
                .into()
            },
            set: set_weights,
        },
    )
    .hint("1D: one AllReduce of the activations per block; 2D: gather and reduce over D and F axes (book 7.3.2, Exercise 7.7)"),
    Field::new(
        "inference.sharding.d_axes",
        "D axes (2D)",
        Kind::Text {
            mode: InputMode::Text,
            get: |s| read(s, |i| i.sharding.d_axes.join(", ")),
            set: |s, t| {
                section(s).sharding.d_axes = name_list(t);
                Ok(())
            },
        },
    )
    .hint("Model axes that shard D (the book's X); the others shard F and the heads")
    .when(two_d),
    enum_choice!(
        "inference.sharding.kv",
        "KV cache past its heads",
        KvSharding,
        [
            Batch => "batch", "by batch (two AllToAlls per layer)",
            Sequence => "sequence", "by sequence (gather Q, reduce outputs)",
            Replicate => "replicate", "replicated (no collective, more memory)",
        ],
        |s| read(s, |i| i.sharding.kv),
        |s| &mut section(s).sharding.kv,
    )
    .hint("The cache splits by KV heads first; when the model-parallel degree exceeds them, the rest is split this way (book 7.3.3)"),
    Field::new(
        "inference.sharding.model_axes",
        "Model axes",
        Kind::Text {
            mode: InputMode::Text,
            get: |s| read(s, |i| i.sharding.model_axes.as_ref().map(|a| a.join(", ")).unwrap_or_default()),
            set: |s, t| {
                let axes = name_list(t);
                section(s).sharding.model_axes = (!axes.is_empty()).then_some(axes);
                Ok(())
            },
        },
    )
    .hint("Topology axes the model is split over, e.g. x, y; empty = every scale-up axis (the rest hold replicas)")
    .also(&["inference.sharding"]),
    Field::new(
        "inference.sharding.expert_axes",
        "Expert axes",
        Kind::Text {
            mode: InputMode::Text,
            get: |s| read(s, |i| i.sharding.expert_axes.join(", ")),
            set: |s, t| {
                section(s).sharding.expert_axes = name_list(t);
                Ok(())
            },
        },
    )
    .hint("Model axes the experts are split over (expert parallelism); empty = none")
    .when(moe),
    enum_choice!(
        "inference.sharding.dense",
        "Attention and dense weights",
        DenseSharding,
        [
            Tensor => "tensor", "tensor-parallel over every model axis",
            Data => "data", "data-parallel over the expert axes (DP attention)",
        ],
        |s| read(s, |i| i.sharding.dense),
        |s| &mut section(s).sharding.dense,
    )
    .hint("With expert axes: DeepSeek-V3's decode layout replicates attention over them, each shard decoding its own sequences (SGLang --enable-dp-attention)")
    .when(moe),
];

/// Prefill utilisation, chunk and attention FLOPs.
pub static PREFILL: [Field; 3] = [
    Field::new(
        "inference.prefill.mfu",
        "Prefill utilisation (MFU)",
        Kind::OptionalReal {
            min: Min::Positive,
            get: |s| read(s, |i| i.prefill.mfu),
            set: |s, v| section(s).prefill.mfu = v,
        },
    )
    .unit("0–1")
    .hint("Assumed FLOPs utilisation, e.g. 0.4 (book 8.1.2); empty = the roofline"),
    Field::new(
        "inference.prefill.chunk",
        "Prefill chunk",
        Kind::OptionalCount { get: |s| read(s, |i| i.prefill.chunk), set: |s, v| section(s).prefill.chunk = v },
    )
    .unit("tokens")
    .hint("Chunked prefill: tokens per pass, each reloading the weights; empty = the whole prompt"),
    enum_choice!(
        "inference.prefill.attention",
        "Attention FLOPs",
        AttentionCounting,
        [
            CausalHalf => "causal_half", "causal: half the dense pairs",
            Dense => "dense", "dense: every query–key pair (book 4.3)",
            Ignored => "ignored", "ignored: 2·N·T (book 8.1.2)",
        ],
        |s| read(s, |i| i.prefill.attention),
        |s| &mut section(s).prefill.attention,
    )
    .hint("How dot-product attention is counted in the prefill's FLOPs"),
];

/// A new speculative setting: γ draft tokens, acceptance 0.8, a draft costing 5% of a step.
fn new_speculative(draft_len: u64) -> Speculative {
    Speculative { draft_len, acceptance: 0.8, draft: DraftCost::CostRatio(0.05) }
}

fn speculating(s: &Scenario) -> bool {
    read(s, |i| i.speculative.is_some())
}

fn draft_is_ratio(s: &Scenario) -> bool {
    read(s, |i| matches!(i.speculative.as_ref().map(|x| &x.draft), Some(DraftCost::CostRatio(_))))
}

/// The draft option standing for "a cost ratio".
const RATIO: &str = "ratio";
/// The draft option standing for the custom draft model the scenario has.
const CUSTOM: &str = "custom";

fn draft_choices(s: &Scenario) -> Vec<Choice> {
    let mut out = vec![Choice { value: RATIO.into(), label: "a cost ratio (below)".into(), group: "" }];
    if read(s, |i| matches!(i.speculative.as_ref().map(|x| &x.draft), Some(DraftCost::Model(ModelSource::Custom(_))))) {
        out.push(Choice { value: CUSTOM.into(), label: "the custom draft model in the link".into(), group: "" });
    }
    out.extend(crate::presets::all().iter().map(|p| Choice {
        value: p.id.clone(),
        label: p.config.name.clone(),
        group: "Draft model",
    }));
    out
}

fn draft(s: &Scenario) -> String {
    read(s, |i| match i.speculative.as_ref().map(|x| &x.draft) {
        Some(DraftCost::Model(ModelSource::Preset(id))) => id.clone(),
        Some(DraftCost::Model(ModelSource::Custom(_))) => CUSTOM.into(),
        _ => RATIO.into(),
    })
}

/// A cost ratio (keeping the last ratio), a preset draft model, or the custom one the
/// scenario has.
fn set_draft(s: &mut Scenario, v: &str) -> Result<(), String> {
    let Some(spec) = section(s).speculative.as_mut() else { return Ok(()) };
    spec.draft = match (v, &spec.draft) {
        (RATIO, DraftCost::CostRatio(r)) => DraftCost::CostRatio(*r),
        (RATIO, _) => DraftCost::CostRatio(0.05),
        (CUSTOM, d @ DraftCost::Model(ModelSource::Custom(_))) => d.clone(),
        (CUSTOM, _) => return Err("the custom draft model is gone; choose another draft".into()),
        (id, _) if crate::presets::find(id).is_some() => DraftCost::Model(ModelSource::Preset(id.to_string())),
        (other, _) => return Err(format!("unknown draft {other:?}")),
    };
    Ok(())
}

/// Draft length, acceptance, the draft and its cost ratio (book 7.2.1).
pub static SPECULATIVE: [Field; 4] = [
    Field::new(
        "inference.speculative.draft_len",
        "Draft length γ",
        Kind::OptionalCount {
            get: |s| read(s, |i| i.speculative.as_ref().map(|x| x.draft_len)),
            set: |s, v| {
                let i = section(s);
                i.speculative = match (v, i.speculative.take()) {
                    (None, _) => None,
                    (Some(n), Some(x)) => Some(Speculative { draft_len: n, ..x }),
                    (Some(n), None) => Some(new_speculative(n)),
                };
            },
        },
    )
    .unit("tokens")
    .hint("Tokens the draft proposes per step (1–64); empty = no speculative decoding")
    .also(&["inference.speculative"]),
    Field::new(
        "inference.speculative.acceptance",
        "Acceptance α",
        Kind::Real {
            min: Min::NonNegative,
            get: |s| read(s, |i| i.speculative.as_ref().map_or(0.8, |x| x.acceptance)),
            set: |s, v| {
                if let Some(x) = section(s).speculative.as_mut() {
                    x.acceptance = v;
                }
            },
        },
    )
    .unit("0–1")
    .hint("Probability the target accepts each draft token (i.i.d., Leviathan et al. 2023)")
    .when(speculating),
    Field::new(
        "inference.speculative.draft",
        "Draft",
        Kind::Choice { options: Options::Computed(draft_choices), get: draft, set: set_draft },
    )
    .hint("A cost ratio, or a draft model served on the same chips (its weights and caches take HBM)")
    .when(speculating),
    Field::new(
        "inference.speculative.draft.cost_ratio",
        "Draft cost ratio",
        Kind::Real {
            min: Min::Positive,
            get: |s| {
                read(s, |i| match i.speculative.as_ref().map(|x| &x.draft) {
                    Some(DraftCost::CostRatio(r)) => *r,
                    _ => 0.05,
                })
            },
            set: |s, v| {
                if let Some(x) = section(s).speculative.as_mut().filter(|x| matches!(x.draft, DraftCost::CostRatio(_)))
                {
                    x.draft = DraftCost::CostRatio(v);
                }
            },
        },
    )
    .unit("× a step")
    .hint("One draft step as a fraction of one target decode step")
    .when(draft_is_ratio),
];

/// The price per chip-hour.
pub static COST: [Field; 1] = [Field::new(
    "inference.price_per_chip_hour_usd",
    "Price per chip-hour",
    Kind::OptionalReal {
        min: Min::NonNegative,
        get: |s| read(s, |i| i.price_per_chip_hour_usd),
        set: |s, v| section(s).price_per_chip_hour_usd = v,
    },
)
.unit("USD")
.hint("For the cost per million tokens; empty = the chip catalog's price, if it has one")];

/// Context read, collective overlap, working memory and reserved HBM.
pub static CONVENTIONS: [Field; 4] = [
    enum_choice!(
        "inference.kv_context",
        "Context read per step",
        KvContext,
        [Full => "full", "full: P + G", Mean => "mean", "mean: P + G/2"],
        |s| read(s, |i| i.kv_context),
        |s| &mut section(s).kv_context,
    )
    .hint("Full: every cache at P + G, as the book's 8k tables; mean: P + G/2, what a paged kernel reads on average"),
    enum_choice!(
        "inference.comms_overlap",
        "Collectives",
        CommsOverlap,
        [Full => "full", "overlapped (lower bound)", None => "none", "not overlapped (upper bound)"],
        |s| read(s, |i| i.comms_overlap),
        |s| &mut section(s).comms_overlap,
    )
    .hint("Full overlap: max(memory and FLOPs, collectives), the roofline; none: their sum"),
    enum_choice!(
        "inference.working_memory",
        "Working memory",
        WorkingMemory,
        [Activations => "activations", "counted", Ignored => "ignored", "ignored (book 8.1.1)"],
        |s| read(s, |i| i.working_memory),
        |s| &mut section(s).working_memory,
    )
    .hint("Count the activations of the largest pass in flight, or ignore them as the book's tables do"),
    Field::new(
        "inference.reserved_hbm_fraction",
        "HBM reserved",
        Kind::Real {
            min: Min::NonNegative,
            get: |s| read(s, |i| i.reserved_hbm_fraction),
            set: |s, v| section(s).reserved_hbm_fraction = v,
        },
    )
    .unit("fraction")
    .hint("Share of each chip's HBM kept free for the runtime, 0 to 0.99"),
];

/// Every group of the section's fields, in the form's order.
pub static GROUPS: [&[Field]; 13] = [
    &WORKLOAD,
    &RATE,
    &TRAFFIC,
    &FORMATS,
    &SHARDING,
    &PREFILL,
    &BATCHING,
    &PREFILL_POOL,
    &KV_TRANSFER,
    &SPECULATIVE,
    &COST,
    &SEARCH,
    &CONVENTIONS,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speculative_decoding_is_switched_on_by_its_draft_length() {
        let mut s = Scenario::default();
        super::super::apply(&mut s, "inference.speculative.draft_len", "4").unwrap();
        let x = s.inference.as_ref().and_then(|i| i.speculative.clone()).unwrap();
        assert_eq!((x.draft_len, x.acceptance), (4, 0.8));
        super::super::apply(&mut s, "inference.speculative.draft", "llama-3-8b").unwrap();
        assert!(!draft_is_ratio(&s));
        super::super::apply(&mut s, "inference.speculative.draft", "ratio").unwrap();
        assert!(draft_is_ratio(&s));
        super::super::apply(&mut s, "inference.speculative.draft_len", "").unwrap();
        assert!(!speculating(&s));
        assert!(super::super::apply(&mut s, "inference.speculative.draft", "nope").is_ok(), "off: nothing to set");
    }

    #[test]
    fn shown_text_is_the_shortest_that_reads_back() {
        use crate::text::shortest;
        let mut s = Scenario::default();
        super::super::apply(&mut s, "inference.reserved_hbm_fraction", "0.10").unwrap();
        assert_eq!(super::super::find("inference.reserved_hbm_fraction").map(|f| f.text(&s)), Some(shortest(0.1)));
    }

    #[test]
    fn the_format_options_are_every_dtype_in_order() {
        let names: Vec<&str> = DTYPE_OPTIONS.iter().map(|(n, _)| *n).collect();
        let all: Vec<&str> = DType::ALL.iter().map(|d| d.name()).collect();
        assert_eq!(names, all);
    }
}
