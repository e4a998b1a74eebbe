//! The book's thresholds evaluated for one setup, and the sentences that say which
//! limit binds (book 5.1–5.2, 6.3).

use super::memory::max_params_pure_dp;
use super::optimizer::state_bytes_per_param;
use super::report::{Binding, DcnReport, MixedReport, ThresholdsReport};
use super::setup::Setup;
use super::step::{Bottleneck, StepParts};
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

/// One sentence on what limits a step; `hbm` is what the planned buffers may fill (the
/// capacity less `reserved_hbm_fraction`).
#[must_use]
pub fn bound_sentence(s: &StepParts, hbm: f64, pp: u64) -> String {
    let comm: f64 = s.comm.iter().map(|c| c.time).sum();
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
            if hbm > 0.0 {
                format!(
                    "Compute-bound: all {} s of communication hides behind {} s of compute: {} s of matmuls, {} s of attention, {} s of HBM-bound work (norms, activations, loss, MoE dispatch, optimizer update); MFU {}%.",
                    fixed(comm, 3),
                    fixed(s.compute, 3),
                    fixed(t.matmul, 3),
                    fixed(t.attention, 3),
                    fixed(hbm, 3),
                    fixed(100.0 * s.mfu, 1)
                )
            } else {
                format!(
                    "Compute-bound: all {} s of communication hides behind {} s of matmuls; MFU {}% (a roofline: ideal overlap and kernels).",
                    fixed(comm, 3),
                    fixed(s.compute, 3),
                    fixed(100.0 * s.mfu, 1)
                )
            }
        }
        Bottleneck::Communication => {
            let axis = s.bound_axis.unwrap_or(super::mesh::Parallelism::Fsdp);
            let c = s.comm[axis as usize];
            let why = match (c.critical, c.sparse_core) {
                (true, _) => "it is on the critical path",
                (false, true) => "the SparseCores drive it beside the compute, but it takes longer than the compute it overlaps with",
                (false, false) => "the TensorCores drive it, and not all of it hides behind the compute it overlaps with",
            };
            let (exposed, sync) = if axis == super::mesh::Parallelism::Dp && s.sync > 0.0 {
                (
                    c.exposed + s.sync,
                    format!(" (with {} s waiting for the slowest slice)", fixed(s.sync, 3)),
                )
            } else {
                (c.exposed, String::new())
            };
            format!(
                "{} communication is the largest loss: {} s exposed{sync} of a {} s step ({}%) beside {} s of compute; {why}.",
                axis.label(),
                fixed(exposed, 3),
                fixed(s.step_time, 3),
                fixed(pct(exposed), 0),
                fixed(s.compute, 3)
            )
        }
        Bottleneck::PipelineBubble => format!(
            "The pipeline bubble is the largest loss: {} s of a {} s step ({}%) with {pp} stages and {} microbatches; add microbatches or virtual stages.",
            fixed(s.bubble, 3),
            fixed(s.step_time, 3),
            fixed(pct(s.bubble), 0),
            s.microbatches
        ),
        Bottleneck::HostOffload => format!(
            "Host offload over PCIe is the largest loss: {} s exposed of a {} s step ({}%).",
            fixed(s.offload_exposed, 3),
            fixed(s.step_time, 3),
            fixed(pct(s.offload_exposed), 0)
        ),
    }
}
