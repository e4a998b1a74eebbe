//! The run keys of a MaxText command line as a scenario's workload and `training` section:
//! batch and sequence (`configs/types.py`, `calculate_global_batch_sizes`), gradient
//! accumulation, remat, number formats, optimizer, attention kernel, MoE kernel and
//! capacity, pipeline schedule, and the XLA flags MaxText's scripts set in
//! `LIBTPU_INIT_ARGS` (or `compile_xla_flags`) that the planner models.

use super::args::CommandLine;
use super::mesh::RunMesh;
use super::reader::Reader;
use super::remat::read_remat;
use crate::dtype::DType;
use crate::flops::Workload;
use crate::import::ImportError;
use crate::model::ModelConfig;
use crate::training::optimizer::{Optimizer, TrainingDtypes, ZeroStage};
use crate::training::pipeline::{Pipeline, Schedule};
use crate::training::section::{GlobalBatch, SearchOptions, TrainingSection};
use crate::training::setup::{AttentionKernel, MoeKernel};

/// A JAX dtype name (`bfloat16`, `float32`, `float8_e4m3fn`).
fn dtype(r: &mut Reader<'_>, key: &str, default: &str, sets: &str) -> Result<DType, ImportError> {
    let name = r.string(key, default, sets)?;
    let short = if name.starts_with("float8") { "fp8" } else { name.as_str() };
    DType::parse(short).ok_or_else(|| ImportError::field(key, format!("unknown number format {name:?}")))
}

/// The matmul format of `quantization` (`""`: `dtype`'s).
fn quantized(r: &mut Reader<'_>, compute: DType) -> Result<DType, ImportError> {
    let q = r.string("quantization", "", "training.dtypes.compute")?;
    Ok(match q.as_str() {
        "" => compute,
        "fp8" | "fp8_full" | "fp8_gpu" | "nanoo_fp8" | "fp8_nanoo" | "aqt_fp8" | "aqt_fp8_full" | "fp8_e4m3" => {
            DType::Fp8
        }
        "int8" | "intmp" => DType::Int8,
        te if te.starts_with("te_") && te.contains("fp8") => DType::Fp8,
        other => {
            r.warn(
                "quantization",
                format!(
                    "{other}: not modelled (weight-only or 4-bit training); the matmuls are timed in {}",
                    compute.name()
                ),
            );
            compute
        }
    })
}

/// The overlap flags of `LIBTPU_INIT_ARGS` and `compile_xla_flags`.
fn xla_flags(
    r: &mut Reader<'_>,
    cmd: &CommandLine,
    largest_activation_bytes: f64,
    section: &mut TrainingSection,
) -> Result<(), ImportError> {
    let compile = r.string("compile_xla_flags", "", "training.overlap (XLA flags)")?;
    let flags = format!("{} {compile}", cmd.env("LIBTPU_INIT_ARGS").unwrap_or_default());
    let on = |name: &str| flags.split_whitespace().any(|f| f == format!("--{name}=true"));
    // The validation's v5p and v5e runs: collective matmuls when both are on.
    if on("xla_tpu_overlap_compute_collective_tc") && on("xla_tpu_enable_async_collective_fusion") {
        section.overlap.tensor = true;
    }
    // XLA's collective matmul is a windowed einsum, used for einsums above
    // `xla_jf_spmd_threshold_for_windowed_einsum_mib`; MaxText's xla_flags_library turns
    // it off (`DISABLE_COLLECTIVE_MATMUL`) with a threshold of 1,000,000 MiB. A threshold
    // above the whole batch's largest activation (every token × max(d_model, d_ff) in
    // bf16, before any sharding) can never be met: TP's collectives are not overlapped.
    let threshold_mib = flags
        .split_whitespace()
        .rev()
        .find_map(|f| f.strip_prefix("--xla_jf_spmd_threshold_for_windowed_einsum_mib="))
        .and_then(|v| v.parse::<f64>().ok());
    if section.overlap.tensor && threshold_mib.is_some_and(|t| t * 1_048_576.0 > largest_activation_bytes) {
        section.overlap.tensor = false;
        let key = if compile.contains("windowed_einsum") { "compile_xla_flags" } else { "LIBTPU_INIT_ARGS" };
        r.warn(
            key,
            "xla_jf_spmd_threshold_for_windowed_einsum_mib is above every einsum of the run: no collective matmul, TP's collectives on the critical path (overlap.tensor off)",
        );
    }
    let key = if compile.contains("sparse_core_collective_offload") { "compile_xla_flags" } else { "LIBTPU_INIT_ARGS" };
    sparse_core_offload(r, key, &flags, section);
    Ok(())
}

/// `overlap.sparse_core` from XLA's per-collective offload flags
/// (`--xla_tpu_enable_sparse_core_collective_offload_<kind>=true`). Each flag moves one
/// kind of collective to the SparseCores; MaxText's `benchmarks/xla_flags_library.py`
/// sets them in groups (`ENABLE_SPARSECORE_OFFLOADING_FOR_ALL_REDUCE` alone, or
/// `..._FOR_RS_AG_AR` for all three). shardcalc has one switch for the overlapped
/// collectives, which are FSDP's AllGathers and ReduceScatters (and TP's, and the DP
/// sync's AllReduce): it is on when the AllGathers or ReduceScatters are offloaded. An
/// AllReduce offload alone moves only the DP gradient sync, so FSDP's collectives stay
/// on the TensorCores (as in the trillium Llama 2 70B and Llama 3.1 8B recipes).
fn sparse_core_offload(r: &mut Reader<'_>, key: &str, flags: &str, section: &mut TrainingSection) {
    let offloaded = |kind: &str| -> Option<bool> {
        let name = format!("--xla_tpu_enable_sparse_core_collective_offload_{kind}=");
        flags.split_whitespace().rev().find_map(|f| f.strip_prefix(name.as_str())).map(|v| v == "true")
    };
    let (ag, rs, ar) = (offloaded("all_gather"), offloaded("reduce_scatter"), offloaded("all_reduce"));
    if ag.is_none() && rs.is_none() && ar.is_none() {
        return;
    }
    let (ag, rs, ar) = (ag == Some(true), rs == Some(true), ar == Some(true));
    section.overlap.sparse_core = Some(ag || rs);
    let dp = section.mesh.as_ref().map_or(1, |m| m.dp);
    if ar && !(ag || rs) && dp > 1 {
        r.warn(
            key,
            "only the AllReduces are offloaded to the SparseCores: the DP gradient sync is modelled on the TensorCores with FSDP's AllGathers and ReduceScatters (one switch for every overlapped collective)",
        );
    } else if (ag || rs) && !(ag && rs && (ar || dp == 1)) {
        r.warn(
            key,
            "the SparseCores take some of the overlapped collectives (all_gather, reduce_scatter, all_reduce flags differ): modelled as taking all of them",
        );
    }
}

/// Read the workload and the `training` section of a run of `devices` devices.
///
/// # Errors
/// Bad values, and settings shardcalc refuses (fp32 matmuls, a batch of no sequence).
pub(super) fn read_settings(
    r: &mut Reader<'_>,
    cmd: &CommandLine,
    model: &ModelConfig,
    mesh: &RunMesh,
    devices: u64,
) -> Result<(Workload, TrainingSection), ImportError> {
    let pdbs = r.f64("per_device_batch_size", 12.0, "workload.per_device_batch, training.global_batch")?;
    if pdbs <= 0.0 || pdbs > 1e6 {
        return Err(ImportError::field("per_device_batch_size", format!("must be above 0 (got {pdbs})")));
    }
    let seq_len = r.count("max_target_length", 2048, "workload.seq_len, training.seq_len")?;
    let accumulation = r.count("gradient_accumulation_steps", 1, "workload.grad_accum, training.microbatches")?;
    // calculate_global_batch_sizes: int(devices × per_device_batch_size) per microbatch.
    let micro = (devices as f64 * pdbs).floor();
    if micro < 1.0 {
        return Err(ImportError::field(
            "per_device_batch_size",
            format!("{pdbs} × {devices} devices is less than one sequence per step"),
        ));
    }
    let sequences = (micro as u64).saturating_mul(accumulation);
    let mut t = TrainingSection::new(GlobalBatch::Sequences(sequences), seq_len);
    t.mesh = Some(mesh.mesh());
    t.search = Some(SearchOptions::default());
    t.remat = read_remat(r, model.moe.is_some())?;

    let activations = dtype(r, "dtype", "bfloat16", "training.dtypes.activations, compute")?;
    if activations == DType::Fp32 {
        return Err(ImportError::unsupported(
            "dtype",
            "float32 matmuls are not modelled; use bfloat16 (MaxText's default)",
        ));
    }
    let weights = dtype(r, "weight_dtype", "float32", "training.dtypes.weights")?;
    let mu = r.string("mu_dtype", "", "training.dtypes.optimizer")?;
    let optimizer = if mu.is_empty() { weights } else { dtype(r, "mu_dtype", "", "training.dtypes.optimizer")? };
    if optimizer != weights {
        r.warn(
            "mu_dtype",
            format!(
                "the first moment is {}, the second stays in weight_dtype; both are modelled as {}",
                optimizer.name(),
                optimizer.name()
            ),
        );
    }
    t.dtypes = TrainingDtypes {
        weights,
        gradients: dtype(r, "grad_dtype", "float32", "training.dtypes.gradients")?,
        optimizer,
        activations,
        compute: quantized(r, activations)?,
    };
    t.optimizer = match r.string("opt_type", "adamw", "training.optimizer")?.as_str() {
        "adamw" | "adam_pax" => Optimizer::Adam { master_weights: false },
        "sgd" => Optimizer::Sgd { momentum: false },
        "muon" => {
            r.warn("opt_type", "muon: its momentum buffer is counted (as SGD with momentum); the Newton-Schulz iterations' FLOPs are not");
            Optimizer::Sgd { momentum: true }
        }
        other => {
            return Err(ImportError::field(
                "opt_type",
                format!("unknown optimizer {other:?}; MaxText's: adamw, adam_pax, sgd, muon"),
            ))
        }
    };
    if r.bool("shard_optimizer_over_data", false, "training.zero_stage")? {
        t.zero_stage = ZeroStage(1);
    }
    t.attention = match r.string("attention", "autoselected", "training.attention")?.as_str() {
        "dot_product" => AttentionKernel::Materialized,
        // attention_op.py: autoselected runs dot-product attention below 128 tokens.
        "autoselected" if seq_len < 128 => AttentionKernel::Materialized,
        "autoselected" | "flash" | "cudnn_flash_te" | "cudnn_flash_jax" => AttentionKernel::Flash,
        other => {
            r.warn("attention", format!("{other}: an inference kernel; training is modelled with flash attention"));
            AttentionKernel::Flash
        }
    };
    if model.moe.is_some() {
        let sparse = r.bool("sparse_matmul", true, "training.moe_kernel")?;
        let megablox = r.bool("megablox", true, "training.moe_kernel")?;
        t.moe_kernel = if sparse { MoeKernel::Grouped } else { MoeKernel::Padded };
        if sparse && !megablox {
            r.warn("megablox", "false: jax.lax.ragged_dot instead of the Megablox kernel; modelled as grouped matmuls");
        }
        let cf = r.f64("capacity_factor", -1.0, "training.capacity_factor")?;
        // base.yml: -1 is dropless (every token reaches its experts: the balanced share).
        t.capacity_factor = if cf > 0.0 { cf } else { 1.0 };
    }
    pipeline(r, model, mesh, accumulation, &mut t)?;
    if r.given("steps") {
        let steps = r.count("steps", 1, "training.token_budget (steps × tokens per step)")?;
        t.token_budget = Some(steps as f64 * sequences as f64 * seq_len as f64);
    }
    let widest = model.d_model.max(model.mlp.d_ff) as f64;
    xla_flags(r, cmd, sequences as f64 * seq_len as f64 * widest * 2.0, &mut t)?;
    if let Some(text) = cmd.env("XLA_PYTHON_CLIENT_MEM_FRACTION") {
        let f: f64 = text
            .trim()
            .parse()
            .map_err(|_| ImportError::field("XLA_PYTHON_CLIENT_MEM_FRACTION", "must be a fraction"))?;
        if (0.01..=1.0).contains(&f) {
            t.reserved_hbm_fraction = 1.0 - f;
        }
    }
    let workload =
        Workload { per_device_batch: pdbs, seq_len, grad_accum: accumulation, remat: t.remat.flops_policy() };
    Ok((workload, t))
}

/// Microbatches and the pipeline schedule. Without pipelining, the gradient-accumulation
/// steps are the microbatches. With it, MaxText's pipeline is circular (`layers/pipeline.py`):
/// `num_pipeline_repeats` (default layers ÷ (stages × `num_layers_per_pipeline_stage`))
/// chunks per stage, GPipe's all-forward-then-backward order, `num_pipeline_microbatches`
/// (default the stages) per accumulation step.
fn pipeline(
    r: &mut Reader<'_>,
    model: &ModelConfig,
    mesh: &RunMesh,
    accumulation: u64,
    t: &mut TrainingSection,
) -> Result<(), ImportError> {
    let stages = mesh.mesh().pp;
    let sets = "training.pipeline, training.microbatches";
    let per_stage = r.count("num_layers_per_pipeline_stage", 1, sets)?;
    let repeats = r.int("num_pipeline_repeats", -1, sets)?;
    let microbatches = r.int("num_pipeline_microbatches", -1, sets)?;
    let delay = r.bool("pipeline_delay_activation_forwarding", false, sets)?;
    let partial = r.int("pipeline_parallel_layers", -1, sets)?;
    if stages <= 1 {
        // One microbatch is the explicit mesh's default, and leaves the search every count.
        t.microbatches = (accumulation > 1).then_some(accumulation);
        return Ok(());
    }
    if partial > 0 && u64::try_from(partial).ok() != Some(model.num_layers) {
        r.warn("pipeline_parallel_layers", "only part of the layers pipelined: modelled as every layer pipelined");
    }
    let repeats = if repeats > 0 {
        repeats as u64
    } else {
        let chunk = stages.saturating_mul(per_stage).max(1);
        if !model.num_layers.is_multiple_of(chunk) {
            return Err(ImportError::field(
                "num_layers_per_pipeline_stage",
                format!(
                    "{stages} stages × {per_stage} layers do not divide the {} layers; MaxText refuses this",
                    model.num_layers
                ),
            ));
        }
        model.num_layers / chunk
    };
    t.pipeline = if repeats > 1 {
        Pipeline { schedule: Schedule::Interleaved, virtual_stages: repeats }
    } else {
        Pipeline { schedule: Schedule::Gpipe, virtual_stages: 1 }
    };
    let per_step = if microbatches > 0 {
        microbatches as u64
    } else if delay {
        2 * stages
    } else {
        stages
    };
    if accumulation > 1 {
        r.warn(
            "gradient_accumulation_steps",
            "with pipelining: modelled as one pipeline of accumulation × num_pipeline_microbatches microbatches (the bubble is paid once per step, not once per accumulation step)",
        );
    }
    t.microbatches = Some(per_step.saturating_mul(accumulation));
    Ok(())
}
