//! The book's thresholds evaluated for one setup, the sentences that say which limit
//! binds (book 5.1–5.2, 6.3), and where a planned step's time goes, term by term, each
//! term with what it counts and where its formula comes from ([`step_terms`],
//! [`step_explanation`]).

use super::memory::max_params_pure_dp;
use super::optimizer::state_bytes_per_param;
use super::report::{Binding, DcnReport, MixedReport, ThresholdsReport, TrainingReport};
use super::setup::Setup;
use super::step::{largest_loss, Bottleneck, StepParts};
use super::thresholds::{dcn_critical_batch, fsdp_critical_batch, ici_intensity, tp_max_degree, MixedSharding};
use crate::collectives::{AxisLink, Network};
use crate::decimal::fixed;
use crate::hardware::Chip;

/// The thresholds of book 5.1 for `setup` on `axes` (the topology's, unscaled).
#[must_use]
pub fn thresholds(setup: &Setup, chip: &Chip, axes: &[AxisLink]) -> ThresholdsReport {
    let o = &setup.options;
    let ici: Vec<&AxisLink> = axes.iter().filter(|a| a.network == Network::ScaleUp && a.size > 1).collect();
    let n_axes = ici.len().max(1) as f64;
    let link = ici.first().map_or(chip.scale_up.link.one_way.get(), |a| a.link.get());
    let alpha = ici_intensity(setup.peak, 2.0 * link);
    let (a, g) = (o.dtypes.activations.bytes(), o.dtypes.gradients.bytes());
    // FSDP moves every stored weight for the FLOPs of the active ones: an MoE's
    // sparsity multiplies the bytes per FLOP (MaxText: "global batch / sparsity").
    let sparsity = setup.profile.sparsity();
    let w = o.dtypes.weights.bytes() * sparsity;
    let f = setup.profile.threshold_d_ff();
    // FSDP and TP live inside one slice (book 5.1.6: DP across slices): the ICI
    // analysis is per slice.
    let slices = setup.capacity[2].max(1);
    let b = setup.tokens() / slices as f64;
    let n = (setup.devices / slices).max(1) as f64;
    let per_device = b / n;
    let m_x = (n_axes - 1.0).max(1.0);
    let mixed = MixedSharding { alpha, m_x, m_y: 1.0, d_ff: f, weight_bytes: w, activation_bytes: a };
    let x_opt = mixed.optimal_fsdp(b, n);
    let dcn = (slices > 1).then(|| DcnReport {
        slices,
        batch_per_slice: b,
        critical_batch_per_slice: dcn_critical_batch(
            setup.peak * setup.devices_per_chip as f64,
            chip.scale_out.bandwidth_per_chip.get(),
            g,
        ),
    });
    let fsdp_all = fsdp_critical_batch(alpha, n_axes, w);
    let state = state_bytes_per_param(o.optimizer, &o.dtypes, o.store_gradients, setup.profile.factored_fraction);
    let mixed_report = MixedReport {
        m_x,
        m_y: 1.0,
        critical_batch_per_device: mixed.critical_batch(),
        optimal_fsdp: x_opt,
        optimal_tp: n / x_opt,
        compute_bound_fsdp: mixed.fsdp_range(b, n).map(|(c, h)| [c - h, c + h]),
    };
    let tp_max = tp_max_degree(alpha, n_axes, f, a);
    let (binding, explanation) = binding(per_device, fsdp_all, n_axes, &mixed_report, tp_max, dcn.as_ref());
    ThresholdsReport {
        alpha,
        sparsity,
        ici_axes: ici.len() as u64,
        d_ff: f,
        batch_per_device: per_device,
        devices_per_slice: n as u64,
        fsdp_critical_batch_one_axis: fsdp_critical_batch(alpha, 1.0, w),
        fsdp_critical_batch_all_axes: fsdp_all,
        tp_max_one_axis: tp_max_degree(alpha, 1.0, f, a),
        tp_max_all_axes: tp_max,
        mixed: mixed_report,
        dcn,
        max_params_pure_dp: max_params_pure_dp(setup.hbm, state),
        binding,
        explanation,
    }
}

fn binding(
    per_device: f64,
    fsdp_all: f64,
    n_axes: f64,
    mixed: &MixedReport,
    tp_max: f64,
    dcn: Option<&DcnReport>,
) -> (Binding, String) {
    if let Some(d) = dcn.filter(|d| d.batch_per_slice < d.critical_batch_per_slice) {
        return (
            Binding::Dcn,
            format!(
                "Data parallelism over DCN is comms-bound: {} tokens per slice is below C/W_DCN = {} (book 5.1.6); use fewer, larger slices or a larger batch.",
                fixed(d.batch_per_slice, 0),
                fixed(d.critical_batch_per_slice, 0)
            ),
        );
    }
    let (per_device_t, n_axes_t, fsdp_all_t) = (fixed(per_device, 0), fixed(n_axes, 0), fixed(fsdp_all, 0));
    if per_device >= fsdp_all {
        return (
            Binding::FsdpComputeBound,
            format!(
                "FSDP alone is compute-bound: {per_device_t} tokens per device is above α/{n_axes_t} = {fsdp_all_t} (book 5.1.2), so no tensor parallelism is needed for bandwidth."
            ),
        );
    }
    if let Some([lo, hi]) = mixed.compute_bound_fsdp {
        return (
            Binding::MixedFsdpTp,
            format!(
                "Pure FSDP is comms-bound ({per_device_t} tokens per device < α/{n_axes_t} = {fsdp_all_t}), but mixed FSDP + TP is compute-bound above {} per device: FSDP between {} and {} ways (X_opt ≈ {}) with the rest TP, which stays compute-bound up to {} ways (book 5.1.4, 6.3).",
                fixed(mixed.critical_batch_per_device, 0),
                fixed(lo, 0),
                fixed(hi, 0),
                fixed(mixed.optimal_fsdp, 0),
                fixed(tp_max, 1)
            ),
        );
    }
    (
        Binding::CommsBound,
        format!(
            "Even mixed FSDP + TP is comms-bound: {per_device_t} tokens per device is below 4α²/(M_X·M_Y·F) = {} (book 5.1.4); it needs a larger batch or fewer chips.",
            fixed(mixed.critical_batch_per_device, 0)
        ),
    )
}

/// What limits a step, in a sentence or two: the resource that binds (the largest of the
/// step's times, [`Bottleneck`]) and, when compute binds, the largest loss beside it
/// ([`largest_loss`]); `hbm` is what the planned buffers may fill (the capacity less
/// `reserved_hbm_fraction`).
#[must_use]
pub fn bound_sentence(s: &StepParts, hbm: f64, pp: u64) -> String {
    let pct = |t: f64| 100.0 * t / s.step_time;
    match s.bound {
        Bottleneck::Memory => format!(
            "Nothing fits: this configuration needs {} GB per device against {} GB of usable HBM.",
            fixed(s.memory.total() / 1e9, 1),
            fixed(hbm / 1e9, 1)
        ),
        Bottleneck::Compute => {
            let t = &s.terms;
            let hbm = t.elementwise + t.loss + t.moe + t.optimizer;
            let parts = if hbm > 0.0 {
                format!(
                    ": {} s of matmuls, {} s of attention and {} s of HBM-bound work (norms, activations, loss, MoE dispatch, optimizer update)",
                    fixed(t.matmul, 3),
                    fixed(t.attention, 3),
                    fixed(hbm, 3)
                )
            } else {
                " (matmuls at the roofline)".to_string()
            };
            let loss = match largest_loss(s) {
                None => " Every collective hides behind the compute.".to_string(),
                Some((what, axis, seconds)) => format!(
                    " The largest loss is {}: {} s ({}%).",
                    loss_name(what, axis),
                    fixed(seconds, 3),
                    fixed(pct(seconds), 1)
                ),
            };
            let compute = s.compute + t.optimizer;
            format!(
                "Compute-bound: of the {} s step, {} s ({}%) is compute{parts}; MFU {}%.{loss}",
                fixed(s.step_time, 3),
                fixed(compute, 3),
                fixed(pct(compute), 1),
                fixed(100.0 * s.mfu, 1)
            )
        }
        Bottleneck::Communication => {
            let axis = s.bound_axis.unwrap_or(super::mesh::Parallelism::Fsdp);
            let c = s.comm[axis as usize];
            let why = match (c.critical, c.sparse_core) {
                (true, _) => "it is on the critical path",
                (false, true) => "the SparseCores drive it beside the compute, but it takes longer than the compute it overlaps with",
                (false, false) => "it takes longer than the compute it overlaps with",
            };
            let (time, exposed, sync) = if axis == super::mesh::Parallelism::Dp && s.sync > 0.0 {
                (
                    c.time + s.sync,
                    c.exposed + s.sync,
                    format!(" (with {} s waiting for the slowest slice)", fixed(s.sync, 3)),
                )
            } else {
                (c.time, c.exposed, String::new())
            };
            format!(
                "Communication-bound: {} collectives take {} s{sync} against {} s of compute (book 5.1: T_comms > T_math); {} s of them are exposed, {}% of a {} s step; {why}.",
                axis.label(),
                fixed(time, 3),
                fixed(s.compute, 3),
                fixed(exposed, 3),
                fixed(pct(exposed), 0),
                fixed(s.step_time, 3)
            )
        }
        Bottleneck::PipelineBubble => format!(
            "The pipeline bubble binds: {} s idle of a {} s step ({}%, more than the compute) with {pp} stages and {} microbatches; add microbatches or virtual stages.",
            fixed(s.bubble, 3),
            fixed(s.step_time, 3),
            fixed(pct(s.bubble), 0),
            s.microbatches
        ),
        Bottleneck::HostOffload => format!(
            "Host offload binds: its PCIe traffic takes longer than the compute it hides behind; {} s exposed of a {} s step ({}%).",
            fixed(s.offload_exposed, 3),
            fixed(s.step_time, 3),
            fixed(pct(s.offload_exposed), 0)
        ),
    }
}

/// A loss in a few words: "exposed DP communication", "the pipeline bubble", ...
fn loss_name(what: Bottleneck, axis: Option<super::mesh::Parallelism>) -> String {
    match (what, axis) {
        (Bottleneck::Communication, Some(a)) => format!("exposed {} communication", a.label()),
        (Bottleneck::PipelineBubble, _) => "the pipeline bubble".into(),
        (Bottleneck::HostOffload, _) => "exposed host offload over PCIe".into(),
        _ => "exposed communication".into(),
    }
}

/// One term of a step's time (`training.breakdown` and the exposed communication per kind):
/// the terms add up to the step time.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StepTerm {
    /// Where it is in the report: `breakdown.matmul_s`, `communication.fsdp.exposed_s`, ...
    pub key: String,
    /// What it is, in a few words.
    pub label: String,
    /// Seconds per step.
    pub seconds: f64,
    /// What it counts, and how.
    pub counts: String,
    /// Where its formula comes from (book section, module, measurement).
    pub source: String,
}

/// A kernel term of the calibrated prediction: its breakdown key, label, what it counts,
/// and its source.
type KernelTerm = (&'static str, &'static str, &'static str, &'static str);

/// The kernel terms of the physical model, in the breakdown's order: key, label, what it
/// counts, source (`training::kernels` has the table).
const KERNEL_TERMS: [KernelTerm; 6] = [
    (
        "matmul_s",
        "matmuls",
        "weight matmuls forward, backward and recomputed, on the device's shapes padded to the matrix unit's tile, at the tiled kernel's rate",
        "efficiency::matmul (MXU 128 on v4/v5e/v5p, 256 on v6e/7x: MaxText custom-model guide); calibrated mxu fraction",
    ),
    (
        "attention_s",
        "attention",
        "flash/splash blocks of query-key pairs at the MXU utilisation the head dimension allows (materialised: the full square and its score traffic)",
        "efficiency::attention (the Ironwood guide; cuDNN's measured rate on GPUs, FlashAttention-3 paper)",
    ),
    (
        "elementwise_s",
        "elementwise (HBM)",
        "norms, rotary, residual adds, activations and the embedding, re-run under remat: bytes ÷ achieved HBM bandwidth",
        "training::shapes; calibrated hbm fraction",
    ),
    (
        "loss_s",
        "loss (HBM)",
        "the log-softmax over the vocabulary and its gradient: bytes ÷ achieved HBM bandwidth",
        "training::shapes; calibrated hbm fraction",
    ),
    (
        "moe_s",
        "MoE dispatch",
        "router, token permute and unpermute (HBM); padded experts' dispatch and combine einsums",
        "MaxText layers/moe.py; training::kernels",
    ),
    (
        "optimizer_s",
        "optimizer update",
        "the update reads and writes weights, gradients and moments of the device's shard, and gradient accumulation every further microbatch: bytes ÷ achieved HBM bandwidth",
        "training::kernels::optimizer_bytes_per_param",
    ),
];

fn breakdown_seconds(r: &TrainingReport, key: &str) -> f64 {
    let b = &r.breakdown;
    match key {
        "matmul_s" => b.matmul_s,
        "attention_s" => b.attention_s,
        "elementwise_s" => b.elementwise_s,
        "loss_s" => b.loss_s,
        "moe_s" => b.moe_s,
        "optimizer_s" => b.optimizer_s,
        "sync_s" => b.sync_s,
        "bubble_s" => b.bubble_s,
        _ => b.offload_exposed_s,
    }
    .get()
}

/// Every term of `r`'s step, in the breakdown's order: the kernels, waiting for the slowest
/// slice, the exposed communication of each kind with traffic, the pipeline bubble and
/// exposed host offload. They add up to `r.step_time_s`.
#[must_use]
pub fn step_terms(r: &TrainingReport) -> Vec<StepTerm> {
    let roofline = r.prediction == crate::efficiency::PredictionMode::Ideal;
    let term = |key: &str, label: &str, counts: &str, source: &str| StepTerm {
        key: format!("breakdown.{key}"),
        label: label.into(),
        seconds: breakdown_seconds(r, key),
        counts: counts.into(),
        source: source.into(),
    };
    let mut out: Vec<StepTerm> = KERNEL_TERMS
        .iter()
        .map(|(key, label, counts, source)| match (roofline, *key) {
            (true, "matmul_s") => term(
                key,
                label,
                "every hardware FLOP but attention's, at the peak",
                "book 5.1: T_math = FLOPs / (N · C)",
            ),
            (true, "attention_s") => {
                term(key, label, "the attention FLOPs at the peak", "book 4 (attention FLOPs), 5.1")
            }
            (true, _) => term(key, label, "not part of the roofline (the calibrated prediction counts it)", "book 5.1"),
            (false, _) => term(key, label, counts, source),
        })
        .collect();
    out.push(term(
        "sync_s",
        "slice sync (DCN)",
        "waiting for the slowest of the slices in lockstep: the expected maximum of n normal step times, straggler × step",
        "efficiency::calibration (straggler); 0 on one slice and on the roofline",
    ));
    for c in &r.communication {
        let how = if c.critical_path {
            "on the critical path: all of it"
        } else {
            "overlapped with compute: the part not hidden behind it"
        };
        out.push(StepTerm {
            key: format!("communication.{}.exposed_s", c.parallelism.id()),
            label: format!("{} comms exposed", c.parallelism.label()),
            seconds: c.exposed_s.get(),
            counts: format!("{} collectives over {} ({how})", c.parallelism.label(), c.axes.join(" × ")),
            source: "book 3 (collective times), 5.1 (T ≈ max(T_math, T_comms)); training::comms, training::step".into(),
        });
    }
    out.push(term(
        "bubble_s",
        "pipeline bubble",
        "(PP − 1) / v of a microbatch's time, waiting for the pipeline to fill and drain",
        "book 5.1.5; Megatron-LM's interleaved schedule",
    ));
    out.push(term(
        "offload_exposed_s",
        "host offload exposed",
        "PCIe time of offloaded activations beyond the compute it runs beside",
        "training::step; the chip's PCIe bandwidth",
    ));
    out
}

/// One sentence on where `r`'s step goes: its terms from the largest, each with its share
/// of the step and its source, against the roofline bound.
#[must_use]
pub fn step_explanation(r: &TrainingReport) -> String {
    let step = r.step_time_s.get();
    let mut left: Vec<StepTerm> = step_terms(r).into_iter().filter(|t| t.seconds > 1e-6 * step).collect();
    // From the largest, by repeated maximum: a handful of terms, and no sort of its own
    // linked into every page that explains a step (docs/size.md).
    let mut listed = Vec::new();
    while let Some(i) = (0..left.len()).max_by(|&a, &b| left[a].seconds.total_cmp(&left[b].seconds)) {
        let t = left.swap_remove(i);
        let pct = if step > 0.0 { 100.0 * t.seconds / step } else { 0.0 };
        listed.push(format!("{} {} s ({}%; {})", t.label, fixed(t.seconds, 3), fixed(pct, 0), t.source));
    }
    let roofline = r.roofline.step_time_s.get();
    let mode = match r.prediction {
        crate::efficiency::PredictionMode::Calibrated => format!(
            "the calibrated prediction; the ideal roofline, {} s, is the bound no run beats ({}% of it)",
            fixed(roofline, 3),
            fixed(if step > 0.0 { 100.0 * roofline / step } else { 0.0 }, 0)
        ),
        crate::efficiency::PredictionMode::Ideal => "the ideal roofline, the bound no run beats".into(),
    };
    format!("Where the {} s step goes ({mode}): {}.", fixed(step, 3), listed.join("; "))
}
