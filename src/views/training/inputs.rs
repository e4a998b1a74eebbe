//! The form's fields, as data: the run (batch, sequence, budget, price), the training
//! state (optimizer, ZeRO, number formats; book 5.1.1–5.1.2), the pipeline and the
//! search's knobs (book 5.1.5), and what the roofline assumes (efficiency, overlap).

use shardcalc_core::decimal::shortest;
use shardcalc_core::dtype::DType;
use shardcalc_core::training::optimizer::{Optimizer, TrainingDtypes, ZeroStage};
use shardcalc_core::training::pipeline::{Pipeline, Schedule};
use shardcalc_core::training::section::{GlobalBatch, SearchOptions, TrainingSection};
use shardcalc_core::training::setup::AttentionKernel;

use super::fields::Spec;
use crate::parse::{parse_count, parse_optional_count, parse_positive_real};

type R = Result<(), String>;

/// Empty text: not set; otherwise a finite number ≥ 0.
///
/// # Errors
/// Why the text is not one.
pub fn parse_optional_amount(text: &str) -> Result<Option<f64>, String> {
    let t = text.trim();
    if t.is_empty() {
        Ok(None)
    } else if t.chars().all(|c| c == '0' || c == '.') {
        Ok(Some(0.0))
    } else {
        parse_positive_real(t).map(Some)
    }
}

fn show(x: Option<f64>) -> String {
    x.map(shortest).unwrap_or_default()
}

fn batch_value(t: &TrainingSection, _: usize) -> String {
    match t.global_batch {
        GlobalBatch::Tokens(x) => shortest(x),
        GlobalBatch::Sequences(n) => n.to_string(),
    }
}

fn set_batch(t: &mut TrainingSection, _: usize, text: &str) -> R {
    t.global_batch = match t.global_batch {
        GlobalBatch::Sequences(_) => GlobalBatch::Sequences(parse_count(text)?),
        GlobalBatch::Tokens(_) => GlobalBatch::Tokens(parse_positive_real(text)?),
    };
    Ok(())
}

fn batch_unit(t: &TrainingSection, _: usize) -> String {
    match t.global_batch {
        GlobalBatch::Tokens(_) => "tokens".into(),
        GlobalBatch::Sequences(_) => "sequences".into(),
    }
}

/// Switching the unit keeps the batch: tokens become whole sequences and back.
fn set_batch_unit(t: &mut TrainingSection, _: usize, unit: &str) -> R {
    let sequences = t.sequences();
    t.global_batch = match unit {
        "sequences" => GlobalBatch::Sequences(sequences),
        _ => GlobalBatch::Tokens(sequences as f64 * t.seq_len as f64),
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

fn optimizer(t: &TrainingSection, _: usize) -> String {
    match t.optimizer {
        Optimizer::Adam { master_weights: false } => "adam",
        Optimizer::Adam { master_weights: true } => "adam_master",
        Optimizer::Adafactor { momentum: false } => "adafactor",
        Optimizer::Adafactor { momentum: true } => "adafactor_momentum",
        Optimizer::Sgd { momentum: false } => "sgd",
        Optimizer::Sgd { momentum: true } => "sgd_momentum",
    }
    .into()
}

fn set_optimizer(t: &mut TrainingSection, _: usize, id: &str) -> R {
    t.optimizer = match id {
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

fn dtype_slot(d: &mut TrainingDtypes, which: usize) -> &mut DType {
    match which {
        0 => &mut d.weights,
        1 => &mut d.gradients,
        2 => &mut d.optimizer,
        3 => &mut d.activations,
        _ => &mut d.compute,
    }
}

fn dtype(t: &TrainingSection, which: usize) -> String {
    let mut d = t.dtypes;
    dtype_slot(&mut d, which).name().into()
}

fn set_dtype(t: &mut TrainingSection, which: usize, name: &str) -> R {
    *dtype_slot(&mut t.dtypes, which) = DType::parse(name).ok_or_else(|| format!("unknown format {name:?}"))?;
    Ok(())
}

const FORMATS: [(&str, &str); 6] =
    [("fp32", "fp32"), ("bf16", "bf16"), ("fp16", "fp16"), ("fp8", "fp8"), ("int8", "int8"), ("int4", "int4")];

fn schedule(t: &TrainingSection, _: usize) -> String {
    match t.pipeline.schedule {
        Schedule::Gpipe => "gpipe",
        Schedule::OneFOneB => "one_f_one_b",
        Schedule::Interleaved => "interleaved",
    }
    .into()
}

/// Leaving the interleaved schedule resets the virtual stages to 1.
fn set_schedule(t: &mut TrainingSection, _: usize, id: &str) -> R {
    let schedule = match id {
        "gpipe" => Schedule::Gpipe,
        "one_f_one_b" => Schedule::OneFOneB,
        "interleaved" => Schedule::Interleaved,
        other => return Err(format!("unknown schedule {other:?}")),
    };
    let v = if schedule == Schedule::Interleaved { t.pipeline.virtual_stages } else { 1 };
    t.pipeline = Pipeline { schedule, virtual_stages: v };
    Ok(())
}

fn search(t: &mut TrainingSection) -> &mut SearchOptions {
    t.search.get_or_insert_with(SearchOptions::default)
}

fn efficiency(t: &TrainingSection, which: usize) -> String {
    let e = t.efficiency;
    shortest([e.flops, e.ici, e.dcn, e.pcie].get(which).copied().unwrap_or(1.0))
}

fn set_efficiency(t: &mut TrainingSection, which: usize, text: &str) -> R {
    let v = parse_positive_real(text)?;
    let e = &mut t.efficiency;
    *match which {
        0 => &mut e.flops,
        1 => &mut e.ici,
        2 => &mut e.dcn,
        _ => &mut e.pcie,
    } = v;
    Ok(())
}

fn overlap(t: &TrainingSection, which: usize) -> bool {
    [t.overlap.tensor, t.overlap.context, t.overlap.expert].get(which).copied().unwrap_or(false)
}

fn set_overlap(t: &mut TrainingSection, which: usize, on: bool) -> R {
    let o = &mut t.overlap;
    *match which {
        0 => &mut o.tensor,
        1 => &mut o.context,
        _ => &mut o.expert,
    } = on;
    Ok(())
}

/// The run: batch, its unit, sequence length, token budget, price.
pub static RUN: [Spec; 5] = [
    Spec::text("training-global_batch", "training.global_batch", "Global batch", batch_value, set_batch)
        .hint("Per optimizer step over all chips, in the unit below (tokens round to whole sequences)")
        .conflicts(&["training", "training.global_batch"]),
    Spec::select(
        "training-global_batch-unit",
        "training.global_batch",
        "Batch unit",
        &[("tokens", "tokens"), ("sequences", "sequences")],
        batch_unit,
        set_batch_unit,
    )
    .rebuild(),
    Spec::text(
        "training-seq_len",
        "training.seq_len",
        "Sequence length",
        |t, _| t.seq_len.to_string(),
        |t, _, s| {
            t.seq_len = parse_count(s)?;
            Ok(())
        },
    )
    .unit("tokens")
    .conflicts(&["training.seq_len"]),
    Spec::text(
        "training-token_budget",
        "training.token_budget",
        "Token budget",
        |t, _| show(t.token_budget),
        |t, _, s| {
            t.token_budget = parse_optional_amount(s)?;
            Ok(())
        },
    )
    .unit("tokens")
    .hint("For days and cost (15e12 = LLaMA 3's 15T); empty for none"),
    Spec::text(
        "training-price_per_chip_hour_usd",
        "training.price_per_chip_hour_usd",
        "Price per chip-hour",
        |t, _| show(t.price_per_chip_hour_usd),
        |t, _, s| {
            t.price_per_chip_hour_usd = parse_optional_amount(s)?;
            Ok(())
        },
    )
    .unit("USD")
    .hint("Empty: the chip catalog's list price, when it has one"),
];

/// The training state: optimizer, ZeRO stage, whether gradients occupy HBM.
pub static STATE: [Spec; 3] = [
    Spec::select("training-optimizer", "training.optimizer", "Optimizer", &OPTIMIZERS, optimizer, set_optimizer)
        .hint("Adam keeps two moments per parameter; master weights add an fp32 copy"),
    Spec::select(
        "training-zero_stage",
        "training.zero_stage",
        "ZeRO stage of the DP axis",
        &[
            ("0", "0: nothing (plain DP)"),
            ("1", "1: optimizer state"),
            ("2", "2: + gradients"),
            ("3", "3: + weights (= FSDP)"),
        ],
        |t, _| t.zero_stage.0.to_string(),
        |t, _, v| {
            t.zero_stage = ZeroStage(v.parse().map_err(|_| format!("{v:?} is not 0 to 3"))?);
            Ok(())
        },
    )
    .hint("What the pure data-parallel axis shards (the FSDP axis is always ZeRO-3)"),
    Spec::check(
        "training-store_gradients",
        "training.store_gradients",
        "Gradients occupy HBM",
        |t, _| t.store_gradients,
        |t, _, on| {
            t.store_gradients = on;
            Ok(())
        },
    )
    .hint("Off reproduces the book's 10 bytes per parameter (bf16 weights + fp32 Adam)"),
];

/// Number formats (book 5.1.1).
pub static FORMAT_FIELDS: [Spec; 5] = [
    Spec::select("training-dtypes-weights", "training.dtypes.weights", "Weights", &FORMATS, dtype, set_dtype)
        .hint("As stored and as FSDP gathers them"),
    Spec::select("training-dtypes-gradients", "training.dtypes.gradients", "Gradients", &FORMATS, dtype, set_dtype)
        .arg(1),
    Spec::select(
        "training-dtypes-optimizer",
        "training.dtypes.optimizer",
        "Optimizer state",
        &FORMATS,
        dtype,
        set_dtype,
    )
    .arg(2),
    Spec::select(
        "training-dtypes-activations",
        "training.dtypes.activations",
        "Activations",
        &FORMATS,
        dtype,
        set_dtype,
    )
    .arg(3)
    .hint("Saved for the backward pass; moved by TP, EP, CP and PP"),
    Spec::select("training-dtypes-compute", "training.dtypes.compute", "Matmuls", &FORMATS, dtype, set_dtype)
        .arg(4)
        .hint("Picks the chip's peak FLOP/s (fp32 matmuls are not modelled)")
        .conflicts(&["training.dtypes.compute"]),
];

/// Pipeline schedule, microbatches, the search's knobs (book 5.1.5).
pub static PIPELINE: [Spec; 5] = [
    Spec::select(
        "training-pipeline-schedule",
        "training.pipeline",
        "Pipeline schedule",
        &[("gpipe", "GPipe"), ("one_f_one_b", "1F1B"), ("interleaved", "interleaved 1F1B / circular")],
        schedule,
        set_schedule,
    )
    .hint("When PP > 1: the bubble is (PP − 1)/(v·M) of a step")
    .rebuild(),
    Spec::text("training-pipeline-virtual_stages", "training.pipeline.virtual_stages", "Virtual stages per device", |t, _| t.pipeline.virtual_stages.to_string(), |t, _, s| {
        t.pipeline.virtual_stages = parse_count(s)?;
        Ok(())
    })
    .hint("v, interleaved schedule only; PP · v must divide the layers")
    .conflicts(&["training.pipeline.virtual_stages", "training.mesh.pp"]),
    Spec::text("training-microbatches", "training.microbatches", "Microbatches per step", |t, _| t.microbatches.map(|m| m.to_string()).unwrap_or_default(), |t, _, s| {
        t.microbatches = parse_optional_count(s)?;
        Ok(())
    })
    .hint("Empty: the search tries every count that divides the batch. While a mesh is explored, this is that mesh's count (empty = 1) and the search tries every count.")
    .conflicts(&["training.microbatches"]),
    Spec::text("training-search-max_microbatches", "training.search.max_microbatches", "Largest microbatch count searched", |t, _| t.search.clone().unwrap_or_default().max_microbatches.to_string(), |t, _, s| {
        search(t).max_microbatches = parse_count(s)?;
        Ok(())
    }),
    Spec::text("training-search-top", "training.search.top", "Configurations listed", |t, _| t.search.clone().unwrap_or_default().top.to_string(), |t, _, s| {
        search(t).top = parse_count(s)?;
        Ok(())
    })
    .hint("Rows of the ranked table (the fastest that fit)"),
];

/// What the roofline assumes: efficiencies, overlap, MoE capacity, attention kernel.
pub static ADVANCED: [Spec; 9] = [
    Spec::text(
        "training-efficiency-flops",
        "training.efficiency.flops",
        "Achievable fraction of peak FLOP/s",
        efficiency,
        set_efficiency,
    )
    .hint("1 = the roofline"),
    Spec::text(
        "training-efficiency-ici",
        "training.efficiency.ici",
        "… of ICI / NVLink bandwidth",
        efficiency,
        set_efficiency,
    )
    .arg(1),
    Spec::text("training-efficiency-dcn", "training.efficiency.dcn", "… of DCN bandwidth", efficiency, set_efficiency)
        .arg(2),
    Spec::text(
        "training-efficiency-pcie",
        "training.efficiency.pcie",
        "… of PCIe bandwidth (host offload)",
        efficiency,
        set_efficiency,
    )
    .arg(3),
    Spec::check(
        "training-overlap-tensor",
        "training.overlap.tensor",
        "TP collectives overlap with matmuls",
        overlap,
        set_overlap,
    )
    .hint("Collective matmuls (book 3); off: on the critical path (book 5.1.3)"),
    Spec::check(
        "training-overlap-context",
        "training.overlap.context",
        "CP's K/V passing overlaps with attention",
        overlap,
        set_overlap,
    )
    .arg(1)
    .hint("Ring attention: only the excess over the attention FLOPs is exposed"),
    Spec::check(
        "training-overlap-expert",
        "training.overlap.expert",
        "EP's AllToAlls overlap with other microbatches",
        overlap,
        set_overlap,
    )
    .arg(2)
    .hint("DualPipe-style; off: a layer's experts wait for their tokens"),
    Spec::text(
        "training-capacity_factor",
        "training.capacity_factor",
        "MoE capacity factor",
        |t, _| shortest(t.capacity_factor),
        |t, _, s| {
            t.capacity_factor = parse_positive_real(s)?;
            Ok(())
        },
    )
    .hint("Tokens dispatched per expert over the balanced share"),
    Spec::select(
        "training-attention",
        "training.attention",
        "Attention kernel",
        &[("flash", "flash / splash"), ("materialized", "materialised scores")],
        |t, _| if t.attention == AttentionKernel::Flash { "flash".into() } else { "materialized".into() },
        |t, _, v| {
            t.attention = if v == "materialized" { AttentionKernel::Materialized } else { AttentionKernel::Flash };
            Ok(())
        },
    )
    .hint("Materialised scores add a [tokens, heads, keys] fp32 buffer"),
];
