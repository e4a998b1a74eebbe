//! The fields of the `training` section (book chapters 5–6): the run (batch, sequence,
//! budget, price), the training state (optimizer, ZeRO, number formats; book 5.1.1–5.1.2),
//! rematerialisation (MaxText's `remat_policy`, a custom policy tensor by tensor, the
//! policies the search tries), the explored mesh, the pipeline and the search's knobs
//! (book 5.1.5), and what the roofline assumes (efficiencies, overlap, MoE capacity,
//! attention kernel). A missing section is created with [`TrainingSection::default`].

use super::{Field, InputMode, Kind, Min, Options};
use crate::dtype::DType;
use crate::scenario::Scenario;
use crate::training::mesh::Mesh;
use crate::training::optimizer::{Optimizer, ZeroStage};
use crate::training::pipeline::{Pipeline, Schedule};
use crate::training::section::{GlobalBatch, SearchOptions, TrainingSection};
use crate::training::setup::AttentionKernel;
use crate::training::tensors::{CustomRemat, Placement, Remat};

/// The section as fields read it: the scenario's, else the defaults.
fn read<T>(s: &Scenario, f: impl FnOnce(&TrainingSection) -> T) -> T {
    match &s.training {
        Some(t) => f(t),
        None => f(&TrainingSection::default()),
    }
}

/// The section fields write, created with its defaults when missing.
fn section(s: &mut Scenario) -> &mut TrainingSection {
    s.training.get_or_insert_with(TrainingSection::default)
}

/// The search's options, created with their defaults when missing.
fn search(s: &mut Scenario) -> &mut SearchOptions {
    section(s).search.get_or_insert_with(SearchOptions::default)
}

fn batch_text(s: &Scenario) -> String {
    read(s, |t| match t.global_batch {
        GlobalBatch::Tokens(x) => crate::text::shortest(x),
        GlobalBatch::Sequences(n) => n.to_string(),
    })
}

/// The batch in the section's unit: whole sequences, or tokens (rounded to whole
/// sequences when planned).
fn set_batch(s: &mut Scenario, text: &str) -> Result<(), String> {
    let t = section(s);
    t.global_batch = match t.global_batch {
        GlobalBatch::Sequences(_) => GlobalBatch::Sequences(crate::text::count(text)?),
        GlobalBatch::Tokens(_) => GlobalBatch::Tokens(crate::text::positive_real(text)?),
    };
    Ok(())
}

/// Switching the unit keeps the batch: tokens become whole sequences and back.
fn set_batch_unit(s: &mut Scenario, unit: &str) -> Result<(), String> {
    let t = section(s);
    let sequences = t.sequences();
    t.global_batch = match unit {
        "sequences" => GlobalBatch::Sequences(sequences),
        "tokens" => GlobalBatch::Tokens(sequences as f64 * t.seq_len as f64),
        other => return Err(format!("unknown unit {other:?}; use tokens or sequences")),
    };
    Ok(())
}

const OPTIMIZERS: [(&str, &str); 6] = [
    ("adam", "Adam (2 moments)"),
    ("adam_master", "Adam + fp32 master weights"),
    ("adafactor", "Adafactor (factored 2nd moment)"),
    ("adafactor_momentum", "Adafactor + momentum"),
    ("sgd", "SGD"),
    ("sgd_momentum", "SGD + momentum"),
];

fn optimizer(s: &Scenario) -> String {
    read(s, |t| match t.optimizer {
        Optimizer::Adam { master_weights: false } => "adam",
        Optimizer::Adam { master_weights: true } => "adam_master",
        Optimizer::Adafactor { momentum: false } => "adafactor",
        Optimizer::Adafactor { momentum: true } => "adafactor_momentum",
        Optimizer::Sgd { momentum: false } => "sgd",
        Optimizer::Sgd { momentum: true } => "sgd_momentum",
    })
    .into()
}

fn set_optimizer(s: &mut Scenario, id: &str) -> Result<(), String> {
    section(s).optimizer = match id {
        "adam" => Optimizer::Adam { master_weights: false },
        "adam_master" => Optimizer::Adam { master_weights: true },
        "adafactor" => Optimizer::Adafactor { momentum: false },
        "adafactor_momentum" => Optimizer::Adafactor { momentum: true },
        "sgd" => Optimizer::Sgd { momentum: false },
        "sgd_momentum" => Optimizer::Sgd { momentum: true },
        other => return Err(format!("unknown optimizer {other:?}")),
    };
    Ok(())
}

const ZERO_STAGES: [(&str, &str); 4] = [
    ("0", "0: nothing (plain DP)"),
    ("1", "1: optimizer state"),
    ("2", "2: + gradients"),
    ("3", "3: + weights (= FSDP)"),
];

fn set_zero_stage(s: &mut Scenario, v: &str) -> Result<(), String> {
    section(s).zero_stage =
        ZeroStage(v.trim().parse().ok().filter(|z| *z <= 3).ok_or_else(|| format!("{v:?} is not 0 to 3"))?);
    Ok(())
}

/// The number formats a training field offers.
pub const FORMATS: [(&str, &str); 6] =
    [("fp32", "fp32"), ("bf16", "bf16"), ("fp16", "fp16"), ("fp8", "fp8"), ("int8", "int8"), ("int4", "int4")];

fn format(text: &str) -> Result<DType, String> {
    DType::parse(text).ok_or_else(|| format!("unknown format {text:?}"))
}

/// A number-format drop-down of `training.dtypes`.
macro_rules! dtype_field {
    ($path:literal, $label:literal, $slot:ident) => {
        Field::new(
            $path,
            $label,
            Kind::Choice {
                options: Options::Fixed(&FORMATS),
                get: |s| read(s, |t| t.dtypes.$slot.name().to_string()),
                set: |s, v| {
                    section(s).dtypes.$slot = format(v)?;
                    Ok(())
                },
            },
        )
    };
}

const POLICIES: [(&str, &str); 12] = [
    ("none", "none"),
    ("minimal_with_context", "minimal_with_context"),
    ("minimal", "minimal"),
    ("save_dot_with_context_except_mlp", "save_dot_with_context_except_mlp"),
    ("save_dot_except_mlpwi", "save_dot_except_mlpwi"),
    ("save_dot_except_mlp", "save_dot_except_mlp"),
    ("save_qkv_proj", "save_qkv_proj"),
    ("qkv_proj_offloaded", "qkv_proj_offloaded"),
    ("save_out_proj", "save_out_proj"),
    ("minimal_offloaded", "minimal_offloaded"),
    ("full", "full"),
    ("custom", "custom (per tensor, below)"),
];

/// A custom policy starts from MaxText's defaults (layer input kept, the rest recomputed).
fn set_policy(s: &mut Scenario, id: &str) -> Result<(), String> {
    let t = section(s);
    t.remat = match (id, &t.remat) {
        ("custom", Remat::Custom(c)) => Remat::Custom(c.clone()),
        ("custom", _) => Remat::Custom(CustomRemat::default()),
        _ => Remat::preset(id).ok_or_else(|| format!("unknown policy {id:?}"))?,
    };
    Ok(())
}

fn is_custom(s: &Scenario) -> bool {
    read(s, |t| matches!(t.remat, Remat::Custom(_)))
}

const PLACEMENTS: [(&str, &str); 3] =
    [("device", "keep in HBM"), ("remat", "recompute"), ("offload", "offload to host")];

fn placement_id(p: Placement) -> &'static str {
    match p {
        Placement::Device => "device",
        Placement::Offload => "offload",
        Placement::Remat => "remat",
    }
}

/// Sets tensor `i` (in `LayerTensor::ALL` order) of the custom policy; the fused `qkv_proj`
/// and `mlpwi` overrides give way to the part set.
fn set_tensor(s: &mut Scenario, i: usize, id: &str) -> Result<(), String> {
    let p = match id {
        "device" => Placement::Device,
        "offload" => Placement::Offload,
        "remat" => Placement::Remat,
        other => return Err(format!("unknown placement {other:?}")),
    };
    let t = section(s);
    let mut c = match &t.remat {
        Remat::Custom(c) => c.clone(),
        _ => CustomRemat::default(),
    };
    if (1..=3).contains(&i) {
        c.qkv_proj = None;
    }
    if i == 6 || i == 7 {
        c.mlpwi = None;
    }
    *match i {
        0 => &mut c.decoder_layer_input,
        1 => &mut c.query_proj,
        2 => &mut c.key_proj,
        3 => &mut c.value_proj,
        4 => &mut c.context,
        5 => &mut c.out_proj,
        6 => &mut c.mlpwi_0,
        7 => &mut c.mlpwi_1,
        _ => &mut c.mlpwo,
    } = p;
    t.remat = Remat::Custom(c);
    Ok(())
}

/// The custom policy's placement of tensor `$i`.
macro_rules! tensor_field {
    ($path:literal, $label:literal, $i:literal) => {
        Field::new(
            $path,
            $label,
            Kind::Choice {
                options: Options::Fixed(&PLACEMENTS),
                get: |s| read(s, |t| t.remat.placements().get($i).map_or("remat", |p| placement_id(*p)).to_string()),
                set: |s, v| set_tensor(s, $i, v),
            },
        )
        .when(is_custom)
    };
}

fn searched(s: &Scenario, i: usize) -> bool {
    read(s, |t| {
        let listed = t.search.as_ref().and_then(|s| s.remat.as_ref());
        Remat::PRESETS.get(i).is_some_and(|r| listed.is_none_or(|l| l.contains(r)))
    })
}

/// Ticks or unticks preset `i`; every preset ticked is the default (`search.remat` absent).
fn set_searched(s: &mut Scenario, i: usize, on: bool) {
    let Some(policy) = Remat::PRESETS.get(i).cloned() else { return };
    let opts = search(s);
    let mut list: Vec<Remat> = opts.remat.clone().unwrap_or_else(|| Remat::PRESETS.to_vec());
    list.retain(|x| *x != policy);
    if on {
        list.push(policy);
    }
    // Policies that are not presets first, as they were, then the presets in their order.
    let mut ordered: Vec<Remat> = list.iter().filter(|x| !Remat::PRESETS.contains(x)).cloned().collect();
    ordered.extend(Remat::PRESETS.iter().filter(|p| list.contains(p)).cloned());
    opts.remat = (ordered.len() != Remat::PRESETS.len()).then_some(ordered);
    let t = section(s);
    if t.search.as_ref().is_some_and(|o| *o == SearchOptions::default()) {
        t.search = None;
    }
}

/// Whether the search tries preset `$i`.
macro_rules! searched_field {
    ($path:literal, $label:literal, $i:literal) => {
        Field::new($path, $label, Kind::Flag { get: |s| searched(s, $i), set: |s, on| set_searched(s, $i, on) })
    };
}

fn exploring(s: &Scenario) -> bool {
    read(s, |t| t.mesh.is_some())
}

/// Degree `$axis` of the explored mesh.
macro_rules! degree_field {
    ($path:literal, $label:literal, $axis:literal) => {
        Field::new(
            $path,
            $label,
            Kind::Count {
                get: |s| read(s, |t| t.mesh.unwrap_or_default().degrees()[$axis]),
                set: |s, v| {
                    let t = section(s);
                    let mut d = t.mesh.unwrap_or_default().degrees();
                    d[$axis] = v;
                    t.mesh = Some(Mesh::from_degrees(d));
                },
            },
        )
        .when(exploring)
    };
}

const SCHEDULES: [(&str, &str); 3] =
    [("gpipe", "GPipe"), ("one_f_one_b", "1F1B"), ("interleaved", "interleaved 1F1B / circular")];

fn schedule(s: &Scenario) -> String {
    read(s, |t| match t.pipeline.schedule {
        Schedule::Gpipe => "gpipe",
        Schedule::OneFOneB => "one_f_one_b",
        Schedule::Interleaved => "interleaved",
    })
    .into()
}

/// Leaving the interleaved schedule resets the virtual stages to 1.
fn set_schedule(s: &mut Scenario, id: &str) -> Result<(), String> {
    let schedule = match id {
        "gpipe" => Schedule::Gpipe,
        "one_f_one_b" => Schedule::OneFOneB,
        "interleaved" => Schedule::Interleaved,
        other => return Err(format!("unknown schedule {other:?}")),
    };
    let t = section(s);
    let v = if schedule == Schedule::Interleaved { t.pipeline.virtual_stages } else { 1 };
    t.pipeline = Pipeline { schedule, virtual_stages: v };
    Ok(())
}

/// An achievable fraction of a peak (`training.efficiency`).
macro_rules! efficiency_field {
    ($path:literal, $label:literal, $slot:ident) => {
        Field::new(
            $path,
            $label,
            Kind::Real {
                min: Min::Positive,
                get: |s| read(s, |t| t.efficiency.$slot),
                set: |s, v| section(s).efficiency.$slot = v,
            },
        )
    };
}

/// Whether a kind of communication overlaps (`training.overlap`).
macro_rules! overlap_field {
    ($path:literal, $label:literal, $slot:ident) => {
        Field::new(
            $path,
            $label,
            Kind::Flag { get: |s| read(s, |t| t.overlap.$slot), set: |s, on| section(s).overlap.$slot = on },
        )
    };
}

/// The scenario's chip, when it has one that resolves.
fn chip(s: &Scenario) -> Option<crate::hardware::Chip> {
    s.hardware.as_ref().and_then(|h| h.chip.resolve().ok())
}

/// Whether the SparseCores drive the overlapped collectives: the section's setting, else
/// the chip's default.
fn sparse_core(s: &Scenario) -> bool {
    read(s, |t| chip(s).map_or(t.overlap.sparse_core == Some(true), |c| t.sparse_core(&c)))
}

/// Shown where the chip has SparseCores, and wherever it is set (so a setting the chip
/// refuses can be turned off).
fn has_sparse_cores(s: &Scenario) -> bool {
    chip(s).is_some_and(|c| c.sparse_cores.is_some()) || read(s, |t| t.overlap.sparse_core.is_some())
}

/// The run: batch, its unit, sequence length, token budget, price.
pub static RUN: [Field; 5] = [
    Field::new(
        "training.global_batch",
        "Global batch",
        Kind::Text { mode: InputMode::Decimal, get: batch_text, set: set_batch },
    )
    .hint("Per optimizer step over all chips, in the unit below (tokens round to whole sequences)")
    .also(&["training"]),
    Field::new(
        "training.global_batch.unit",
        "Batch unit",
        Kind::Choice {
            options: Options::Fixed(&[("tokens", "tokens"), ("sequences", "sequences")]),
            get: |s| {
                read(s, |t| if matches!(t.global_batch, GlobalBatch::Tokens(_)) { "tokens" } else { "sequences" })
                    .into()
            },
            set: set_batch_unit,
        },
    ),
    Field::new(
        "training.seq_len",
        "Sequence length",
        Kind::Count { get: |s| read(s, |t| t.seq_len), set: |s, v| section(s).seq_len = v },
    )
    .unit("tokens"),
    Field::new(
        "training.token_budget",
        "Token budget",
        Kind::OptionalReal {
            min: Min::NonNegative,
            get: |s| read(s, |t| t.token_budget),
            set: |s, v| section(s).token_budget = v,
        },
    )
    .unit("tokens")
    .hint("For days and cost (15e12 = LLaMA 3's 15T); empty for none"),
    Field::new(
        "training.price_per_chip_hour_usd",
        "Price per chip-hour",
        Kind::OptionalReal {
            min: Min::NonNegative,
            get: |s| read(s, |t| t.price_per_chip_hour_usd),
            set: |s, v| section(s).price_per_chip_hour_usd = v,
        },
    )
    .unit("USD")
    .hint("Empty: the chip catalog's list price, when it has one"),
];

/// The training state: optimizer, ZeRO stage, whether gradients occupy HBM.
pub static STATE: [Field; 3] = [
    Field::new(
        "training.optimizer",
        "Optimizer",
        Kind::Choice { options: Options::Fixed(&OPTIMIZERS), get: optimizer, set: set_optimizer },
    )
    .hint("Adam keeps two moments per parameter; master weights add an fp32 copy"),
    Field::new(
        "training.zero_stage",
        "ZeRO stage of the DP axis",
        Kind::Choice {
            options: Options::Fixed(&ZERO_STAGES),
            get: |s| read(s, |t| t.zero_stage.0.to_string()),
            set: set_zero_stage,
        },
    )
    .hint("What the pure data-parallel axis shards (the FSDP axis is always ZeRO-3)"),
    Field::new(
        "training.store_gradients",
        "Gradients occupy HBM",
        Kind::Flag { get: |s| read(s, |t| t.store_gradients), set: |s, on| section(s).store_gradients = on },
    )
    .hint("Off reproduces the book's 10 bytes per parameter (bf16 weights + fp32 Adam)"),
];

/// Number formats (book 5.1.1).
pub static FORMAT_FIELDS: [Field; 5] = [
    dtype_field!("training.dtypes.weights", "Weights", weights).hint("As stored and as FSDP gathers them"),
    dtype_field!("training.dtypes.gradients", "Gradients", gradients),
    dtype_field!("training.dtypes.optimizer", "Optimizer state", optimizer),
    dtype_field!("training.dtypes.activations", "Activations", activations)
        .hint("Saved for the backward pass; moved by TP, EP, CP and PP"),
    dtype_field!("training.dtypes.compute", "Matmuls", compute).hint(
        "fp8 / int8: the layers' weight matmuls at that peak (MaxText's quantization); attention and logits stay bf16",
    ),
];

/// The explored mesh's remat policy.
pub static POLICY: [Field; 1] = [Field::new(
    "training.remat",
    "Remat policy",
    Kind::Choice {
        options: Options::Fixed(&POLICIES),
        get: |s| read(s, |t| t.remat.id().to_string()),
        set: set_policy,
    },
)
.hint("Of the explored mesh (MaxText's names); the search tries the policies ticked below, and a custom policy too")];

/// The custom policy, tensor by tensor (applies to a custom policy).
pub static TENSORS: [Field; 9] = [
    tensor_field!("training.remat.decoder_layer_input", "layer input", 0),
    tensor_field!("training.remat.query_proj", "query projection", 1),
    tensor_field!("training.remat.key_proj", "key projection", 2),
    tensor_field!("training.remat.value_proj", "value projection", 3),
    tensor_field!("training.remat.context", "attention output (context)", 4),
    tensor_field!("training.remat.out_proj", "out projection", 5),
    tensor_field!("training.remat.mlpwi_0", "MLP input projection", 6),
    tensor_field!("training.remat.mlpwi_1", "MLP gate projection", 7),
    tensor_field!("training.remat.mlpwo", "MLP down projection", 8),
];

/// The policies the search tries.
pub static SEARCHED: [Field; 11] = [
    searched_field!("training.search.remat.none", "none", 0),
    searched_field!("training.search.remat.minimal_with_context", "minimal_with_context", 1),
    searched_field!("training.search.remat.minimal", "minimal", 2),
    searched_field!("training.search.remat.save_dot_with_context_except_mlp", "save_dot_with_context_except_mlp", 3),
    searched_field!("training.search.remat.save_dot_except_mlpwi", "save_dot_except_mlpwi", 4),
    searched_field!("training.search.remat.save_dot_except_mlp", "save_dot_except_mlp", 5),
    searched_field!("training.search.remat.save_qkv_proj", "save_qkv_proj", 6),
    searched_field!("training.search.remat.qkv_proj_offloaded", "qkv_proj_offloaded", 7),
    searched_field!("training.search.remat.save_out_proj", "save_out_proj", 8),
    searched_field!("training.search.remat.minimal_offloaded", "minimal_offloaded", 9),
    searched_field!("training.search.remat.full", "full", 10).also(&["training.search.remat"]),
];

/// The explored mesh's six degrees (apply while a mesh is explored).
pub static DEGREES: [Field; 6] = [
    degree_field!("training.mesh.dp", "DP (data parallel)", 0),
    degree_field!("training.mesh.fsdp", "FSDP (ZeRO-3)", 1),
    degree_field!("training.mesh.tp", "TP (tensor)", 2),
    degree_field!("training.mesh.ep", "EP (expert)", 3),
    degree_field!("training.mesh.cp", "CP (context)", 4),
    degree_field!("training.mesh.pp", "PP (pipeline stages)", 5),
];

/// Pipeline schedule, microbatches, the search's knobs (book 5.1.5).
pub static PIPELINE: [Field; 5] = [
    Field::new(
        "training.pipeline.schedule",
        "Pipeline schedule",
        Kind::Choice { options: Options::Fixed(&SCHEDULES), get: schedule, set: set_schedule },
    )
    .hint("When PP > 1: the bubble is (PP − 1)/(v·M) of a step")
    .also(&["training.pipeline"]),
    Field::new(
        "training.pipeline.virtual_stages",
        "Virtual stages per device",
        Kind::Count {
            get: |s| read(s, |t| t.pipeline.virtual_stages),
            set: |s, v| section(s).pipeline.virtual_stages = v,
        },
    )
    .hint("v, interleaved schedule only; PP · v must divide the layers"),
    Field::new(
        "training.microbatches",
        "Microbatches per step",
        Kind::OptionalCount { get: |s| read(s, |t| t.microbatches), set: |s, v| section(s).microbatches = v },
    )
    .hint("Empty: the search tries every count that divides the batch. While a mesh is explored, this is that mesh's count (empty = 1) and the search tries every count."),
    Field::new(
        "training.search.max_microbatches",
        "Largest microbatch count searched",
        Kind::Count {
            get: |s| read(s, |t| t.search.as_ref().map_or(SearchOptions::default().max_microbatches, |o| o.max_microbatches)),
            set: |s, v| search(s).max_microbatches = v,
        },
    ),
    Field::new(
        "training.search.top",
        "Configurations listed",
        Kind::Count {
            get: |s| read(s, |t| t.search.as_ref().map_or(SearchOptions::default().top, |o| o.top)),
            set: |s, v| search(s).top = v,
        },
    )
    .hint("Rows of the ranked table (the fastest that fit)"),
];

/// What the roofline assumes: efficiencies, overlap, MoE capacity, attention kernel.
pub static ADVANCED: [Field; 10] = [
    efficiency_field!("training.efficiency.flops", "Achievable fraction of peak FLOP/s", flops)
        .hint("1 = the roofline"),
    efficiency_field!("training.efficiency.ici", "… of ICI / NVLink bandwidth", ici),
    efficiency_field!("training.efficiency.dcn", "… of DCN bandwidth", dcn),
    efficiency_field!("training.efficiency.pcie", "… of PCIe bandwidth (host offload)", pcie),
    overlap_field!("training.overlap.tensor", "TP collectives overlap with matmuls", tensor)
        .hint("Collective matmuls (book 3); off: on the critical path (book 5.1.3)"),
    overlap_field!("training.overlap.context", "CP's K/V passing overlaps with attention", context)
        .hint("Ring attention: only the excess over the attention FLOPs is exposed"),
    overlap_field!("training.overlap.expert", "EP's AllToAlls overlap with other microbatches", expert)
        .hint("DualPipe-style; off: a layer's experts wait for their tokens"),
    Field::new(
        "training.overlap.sparse_core",
        "SparseCores drive the collectives",
        Kind::Flag { get: sparse_core, set: |s, on| section(s).overlap.sparse_core = Some(on) },
    )
    .hint(
        "AllGather, ReduceScatter, AllReduce offloaded to the SparseCores hide fully behind compute; the TPU7x default",
    )
    .when(has_sparse_cores),
    Field::new(
        "training.capacity_factor",
        "MoE capacity factor",
        Kind::Real {
            min: Min::Positive,
            get: |s| read(s, |t| t.capacity_factor),
            set: |s, v| section(s).capacity_factor = v,
        },
    )
    .hint("Tokens dispatched per expert over the balanced share"),
    enum_choice!(
        "training.attention",
        "Attention kernel",
        AttentionKernel,
        [Flash => "flash", "flash / splash", Materialized => "materialized", "materialised scores"],
        |s| read(s, |t| t.attention),
        |s| &mut section(s).attention,
    )
    .hint("Materialised scores add a [tokens, heads, keys] fp32 buffer"),
];

/// Every group of the section's fields, in the form's order.
pub static GROUPS: [&[Field]; 9] =
    [&RUN, &STATE, &FORMAT_FIELDS, &POLICY, &TENSORS, &SEARCHED, &DEGREES, &PIPELINE, &ADVANCED];
