//! The training view's tables as CSV text (RFC 4180 quoting), with exact numbers (full
//! precision, SI units: bytes, seconds), for "Download CSV".

use shardcalc_charts::training::mesh_label;
use shardcalc_core::training::mesh::Parallelism;
use shardcalc_core::training::report::{Binding, MemoryComponent, SearchRow, ThresholdsReport};
use shardcalc_core::training::TrainingReport;

use super::headline::bottleneck_label;

fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// A header and rows as CSV.
#[must_use]
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let line = |fields: Vec<String>| {
        let mut out = fields.iter().map(|f| field(f)).collect::<Vec<_>>().join(",");
        out.push_str("\r\n");
        out
    };
    let mut out = line(header.iter().map(|h| (*h).to_string()).collect());
    for r in rows {
        out += &line(r.clone());
    }
    out
}

/// The JSON name of a binding (`training.thresholds.binding`).
#[must_use]
pub fn binding_id(b: Binding) -> &'static str {
    match b {
        Binding::FsdpComputeBound => "fsdp_compute_bound",
        Binding::MixedFsdpTp => "mixed_fsdp_tp",
        Binding::CommsBound => "comms_bound",
        Binding::Dcn => "dcn",
    }
}

/// The JSON name of a memory component (`training.memory.breakdown[].component`).
#[must_use]
pub fn component_id(c: MemoryComponent) -> &'static str {
    match c {
        MemoryComponent::Weights => "weights",
        MemoryComponent::Gradients => "gradients",
        MemoryComponent::Optimizer => "optimizer",
        MemoryComponent::MasterWeights => "master_weights",
        MemoryComponent::Activations => "activations",
        MemoryComponent::Transient => "transient",
    }
}

fn num(x: f64) -> String {
    shardcalc_core::decimal::shortest(x)
}

/// The degrees of a row's mesh split over the networks: `ici: fsdp 16 × tp 4; dcn: dp 2`.
#[must_use]
pub fn networks_text(r: &SearchRow) -> String {
    r.networks
        .iter()
        .map(|n| {
            let name = match n.network {
                shardcalc_core::collectives::Network::DieToDie => "die-to-die",
                shardcalc_core::collectives::Network::ScaleUp => "ICI/NVLink",
                shardcalc_core::collectives::Network::ScaleOut => "DCN",
            };
            format!("{name}: {}", mesh_label(&n.degrees))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The search's rows: rank, degrees, networks, microbatches, remat, seconds, bytes, MFU,
/// HFU, what binds.
#[must_use]
pub fn search_rows(rows: &[SearchRow]) -> String {
    let mut header = vec!["rank"];
    header.extend(Parallelism::ALL.iter().map(|p| p.id()));
    header.extend(["networks", "microbatches", "remat", "step_time_s", "memory_bytes", "mfu", "hfu", "bound"]);
    let body: Vec<Vec<String>> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut v = vec![(i + 1).to_string()];
            v.extend(r.mesh.degrees().iter().map(u64::to_string));
            v.extend([
                networks_text(r),
                r.microbatches.to_string(),
                r.remat.clone(),
                num(r.step_time_s.get()),
                num(r.memory_bytes.get()),
                num(r.mfu),
                num(r.hfu),
                bottleneck_label(r.bound).to_string(),
            ]);
            v
        })
        .collect();
    table(&header, &body)
}

/// The book's thresholds, one per row: name, value, unit.
#[must_use]
pub fn thresholds(t: &ThresholdsReport) -> String {
    let mut rows = vec![
        vec!["alpha".into(), num(t.alpha), "FLOP/byte".into()],
        vec!["tokens_per_device".into(), num(t.batch_per_device), "tokens".into()],
        vec!["fsdp_critical_batch_one_axis".into(), num(t.fsdp_critical_batch_one_axis), "tokens".into()],
        vec!["fsdp_critical_batch_all_axes".into(), num(t.fsdp_critical_batch_all_axes), "tokens".into()],
        vec!["tp_max_one_axis".into(), num(t.tp_max_one_axis), "ways".into()],
        vec!["tp_max_all_axes".into(), num(t.tp_max_all_axes), "ways".into()],
        vec!["mixed_critical_batch_per_device".into(), num(t.mixed.critical_batch_per_device), "tokens".into()],
        vec!["mixed_optimal_fsdp".into(), num(t.mixed.optimal_fsdp), "ways".into()],
        vec!["mixed_optimal_tp".into(), num(t.mixed.optimal_tp), "ways".into()],
        vec!["max_params_pure_dp".into(), num(t.max_params_pure_dp), "parameters".into()],
        vec!["sparsity".into(), num(t.sparsity), "".into()],
    ];
    if let Some([lo, hi]) = t.mixed.compute_bound_fsdp {
        rows.push(vec!["mixed_compute_bound_fsdp_low".into(), num(lo), "ways".into()]);
        rows.push(vec!["mixed_compute_bound_fsdp_high".into(), num(hi), "ways".into()]);
    }
    if let Some(d) = &t.dcn {
        rows.push(vec!["dcn_batch_per_slice".into(), num(d.batch_per_slice), "tokens".into()]);
        rows.push(vec!["dcn_critical_batch_per_slice".into(), num(d.critical_batch_per_slice), "tokens".into()]);
    }
    rows.push(vec!["binding".into(), binding_id(t.binding).into(), t.explanation.clone()]);
    table(&["threshold", "value", "unit"], &rows)
}

/// Memory per device by component of each `(label, plan)`.
#[must_use]
pub fn memory(plans: &[(String, &TrainingReport)]) -> String {
    let mut rows = Vec::new();
    for (label, r) in plans {
        for m in &r.memory.breakdown {
            let over: Vec<&str> = m.sharded_over.iter().map(|p| p.id()).collect();
            rows.push(vec![
                label.clone(),
                component_id(m.component).into(),
                num(m.bytes.get()),
                m.dtype.map(|d| d.name().to_string()).unwrap_or_default(),
                over.join(" "),
            ]);
        }
        rows.push(vec![
            label.clone(),
            "total".into(),
            num(r.memory.per_device_bytes.get()),
            String::new(),
            String::new(),
        ]);
        rows.push(vec![label.clone(), "hbm".into(), num(r.memory.capacity_bytes.get()), String::new(), String::new()]);
    }
    table(&["plan", "component", "bytes_per_device", "dtype", "sharded_over"], &rows)
}

/// Communication per kind of parallelism of each `(label, plan)`.
#[must_use]
pub fn communication(plans: &[(String, &TrainingReport)]) -> String {
    let mut rows = Vec::new();
    for (label, r) in plans {
        for c in &r.communication {
            rows.push(vec![
                label.clone(),
                c.parallelism.id().to_string(),
                c.axes.join(" "),
                num(c.bytes_per_step.get()),
                num(c.time_s.get()),
                num(c.exposed_s.get()),
                c.critical_path.to_string(),
            ]);
        }
    }
    table(&["plan", "parallelism", "axes", "bytes_per_step", "time_s", "exposed_s", "critical_path"], &rows)
}
