//! The training view's tables, each one [`Table`]: exact numbers in SI units (bytes, seconds)
//! under their report names for the CSV and Markdown downloads, and the same cells as the
//! page shows them (`850 ms`, `12.3` GB) under readable headers.

use shardcalc_charts::format::{grouped, short_count, significant};
use shardcalc_charts::table::Table;
use shardcalc_charts::training::mesh_label;
use shardcalc_core::collectives::Network;
use shardcalc_core::decimal::shortest;
use shardcalc_core::training::explain::step_terms as terms_of;
use shardcalc_core::training::mesh::{Mesh, Parallelism};
use shardcalc_core::training::optimizer::ZeroStage;
use shardcalc_core::training::pipeline::{Pipeline, Schedule};
use shardcalc_core::training::report::{Binding, MemoryComponent, SearchReport, SearchRow, ThresholdsReport};
use shardcalc_core::training::TrainingReport;

use super::headline::{bottleneck_label, placement_text, seconds};

/// An exact number and how the page shows it.
fn num(x: f64, shown: String) -> (String, String) {
    (shortest(x), shown)
}

/// A text cell, the same exported and shown.
fn text(t: impl Into<String>) -> (String, String) {
    let t = t.into();
    (t.clone(), t)
}

fn percent(x: f64) -> String {
    format!("{}%", significant(100.0 * x, 3))
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

/// The book's thresholds for this setup (book 5.1–5.2, 6.3, Appendix C): one row each, with
/// the formula and the value here.
#[must_use]
pub fn thresholds(t: &ThresholdsReport) -> Table {
    let mut out = Table::labelled(&[
        ("threshold", ""),
        ("limit", "Limit"),
        ("formula", "Formula (book section)"),
        ("value", "Here"),
        ("unit", ""),
    ]);
    let n = t.ici_axes.max(1);
    let mut row = |key: &str, limit: String, formula: &str, value: (String, String), unit: &str| {
        out.push_shown(vec![text(key), text(limit), text(formula), value, text(unit)]);
    };
    row(
        "alpha",
        "ICI arithmetic intensity α".into(),
        "C / W_ici (one axis, both ways)",
        num(t.alpha, format!("{} FLOP/byte", grouped(t.alpha, 0))),
        "FLOP/byte",
    );
    row(
        "tokens_per_device",
        "Tokens per device per step".into(),
        "B / N (per slice)",
        num(t.batch_per_device, grouped(t.batch_per_device, 1)),
        "tokens",
    );
    let tokens = |x: f64| num(x, format!("{} tokens per device", grouped(x, 0)));
    row(
        "fsdp_critical_batch_one_axis",
        "DP / FSDP compute-bound above, one axis".into(),
        "α · sparsity (5.1.2)",
        tokens(t.fsdp_critical_batch_one_axis),
        "tokens",
    );
    row(
        "fsdp_critical_batch_all_axes",
        format!("DP / FSDP compute-bound above, on {n} axes"),
        "α / n_axes · sparsity (5.1.2)",
        tokens(t.fsdp_critical_batch_all_axes),
        "tokens",
    );
    let ways = |x: f64| num(x, format!("{} ways", significant(x, 3)));
    row("tp_max_one_axis", "TP compute-bound up to, one axis".into(), "F / α (5.1.3)", ways(t.tp_max_one_axis), "ways");
    row(
        "tp_max_all_axes",
        format!("TP compute-bound up to, on {n} axes (F = {})", grouped(t.d_ff, 0)),
        "n_axes · F / α (5.1.3)",
        ways(t.tp_max_all_axes),
        "ways",
    );
    row(
        "mixed_critical_batch_per_device",
        "Mixed FSDP + TP compute-bound above".into(),
        "4α² / (M_X · M_Y · F) (5.1.4)",
        tokens(t.mixed.critical_batch_per_device),
        "tokens",
    );
    let split = "X_opt = √(B · M_X · N / (F · M_Y))";
    if t.mixed.optimal_tp < 1.0 {
        let shown = format!(
            "pure FSDP (X_opt ≈ {} ≥ N = {})",
            significant(t.mixed.optimal_fsdp, 3),
            grouped(t.devices_per_slice as f64, 0)
        );
        row(
            "mixed_optimal_fsdp",
            "Best FSDP × TP split".into(),
            split,
            (shortest(t.mixed.optimal_fsdp), shown),
            "ways",
        );
    } else {
        row("mixed_optimal_fsdp", "Best FSDP × TP split: FSDP".into(), split, ways(t.mixed.optimal_fsdp), "ways");
        row("mixed_optimal_tp", "Best FSDP × TP split: TP".into(), "N / X_opt", ways(t.mixed.optimal_tp), "ways");
    }
    let roots = "roots of Appendix C's quadratic (6.3)";
    match t.mixed.compute_bound_fsdp {
        Some([lo, hi]) => {
            let degree = |x: f64| num(x, grouped(x.max(0.0), 0));
            row(
                "mixed_compute_bound_fsdp_low",
                "FSDP degrees that stay compute-bound, from".into(),
                roots,
                degree(lo),
                "ways",
            );
            row("mixed_compute_bound_fsdp_high", "… to".into(), roots, degree(hi), "ways");
        }
        None => row(
            "mixed_compute_bound_fsdp",
            "FSDP degrees that stay compute-bound".into(),
            roots,
            (String::new(), "none at this batch".into()),
            "ways",
        ),
    }
    if let Some(d) = &t.dcn {
        let slice = |x: f64| num(x, format!("{} tokens per slice", grouped(x, 0)));
        row(
            "dcn_critical_batch_per_slice",
            "DP over DCN compute-bound above".into(),
            "C / W_dcn per slice (5.1.6)",
            slice(d.critical_batch_per_slice),
            "tokens",
        );
        row(
            "dcn_batch_per_slice",
            format!("Tokens per slice here ({} slices)", d.slices),
            "B / slices",
            slice(d.batch_per_slice),
            "tokens",
        );
    }
    row(
        "max_params_pure_dp",
        "Largest model pure DP holds".into(),
        "HBM / bytes of state per parameter (5.1.1)",
        num(t.max_params_pure_dp, format!("{} parameters", short_count(t.max_params_pure_dp))),
        "parameters",
    );
    row(
        "sparsity",
        "MoE sparsity".into(),
        "stored / active parameters",
        num(t.sparsity, significant(t.sparsity, 3)),
        "",
    );
    row("binding", "What binds".into(), "", (binding_id(t.binding).into(), t.explanation.clone()), "");
    out
}

/// The degrees of a row's mesh split over the networks: `ICI/NVLink: fsdp 16 × tp 4; DCN: dp 2`.
#[must_use]
pub fn networks_text(r: &SearchRow) -> String {
    r.networks
        .iter()
        .map(|n| {
            let name = match n.network {
                Network::DieToDie => "die-to-die",
                Network::ScaleUp => "ICI/NVLink",
                Network::ScaleOut => "DCN",
            };
            format!("{name}: {}", mesh_label(&n.degrees))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The JSON name of a schedule (`pipeline.schedule`).
#[must_use]
pub fn schedule_id(s: Schedule) -> &'static str {
    match s {
        Schedule::Gpipe => "gpipe",
        Schedule::OneFOneB => "one_f_one_b",
        Schedule::Interleaved => "interleaved",
    }
}

/// A schedule as the page shows it: `1F1B`, `interleaved, v = 4`, `GPipe`; `no PP` where the
/// mesh has no pipeline (every schedule is the same there).
#[must_use]
pub fn schedule_text(p: &Pipeline, mesh: &Mesh) -> String {
    if mesh.pp <= 1 {
        return "no PP".into();
    }
    match p.schedule {
        Schedule::Gpipe => "GPipe".into(),
        Schedule::OneFOneB => "1F1B".into(),
        Schedule::Interleaved => format!("interleaved, v = {}", p.virtual_stages),
    }
}

/// A ZeRO stage as the page shows it: `ZeRO-2`; `no DP` where the mesh has no pure data
/// parallelism (every stage is the same there).
#[must_use]
pub fn zero_text(z: ZeroStage, mesh: &Mesh) -> String {
    if mesh.dp <= 1 {
        "no DP".into()
    } else {
        format!("ZeRO-{}", z.0)
    }
}

/// The search's rows, ranked: mesh (and its six degrees in the exports), networks,
/// microbatches, remat, ZeRO stage, schedule (and its virtual stages in the exports), step
/// time, memory, MFU, HFU, what binds.
#[must_use]
pub fn search_rows(rows: &[SearchRow]) -> Table {
    let mut columns: Vec<(&str, &str)> = vec![("rank", "#"), ("mesh", "Mesh")];
    columns.extend(Parallelism::ALL.iter().map(|p| (p.id(), "")));
    columns.extend([
        ("networks", "On which network"),
        ("microbatches", "Microbatches"),
        ("remat", "Remat"),
        ("zero_stage", "ZeRO"),
        ("schedule", "Schedule"),
        ("virtual_stages", ""),
        ("step_time_s", "Step time"),
        ("memory_bytes", "GB / device"),
        ("mfu", "MFU"),
        ("hfu", "HFU"),
        ("bound", "Binds"),
    ]);
    let mut out = Table::labelled(&columns);
    for (i, r) in rows.iter().enumerate() {
        let mut cells = vec![text((i + 1).to_string()), text(mesh_label(&r.mesh))];
        cells.extend(r.mesh.degrees().iter().map(|d| text(d.to_string())));
        cells.extend([
            text(networks_text(r)),
            text(r.microbatches.to_string()),
            text(r.remat.clone()),
            (r.zero_stage.0.to_string(), zero_text(r.zero_stage, &r.mesh)),
            (schedule_id(r.pipeline.schedule).into(), schedule_text(&r.pipeline, &r.mesh)),
            text(r.pipeline.virtual_stages.to_string()),
            num(r.step_time_s.get(), seconds(r.step_time_s.get())),
            num(r.memory_bytes.get(), significant(r.memory_bytes.get() / 1e9, 3)),
            num(r.mfu, percent(r.mfu)),
            num(r.hfu, percent(r.hfu)),
            text(bottleneck_label(r.bound)),
        ]);
        out.push_shown(cells);
    }
    out
}

type Metric = (&'static str, fn(&TrainingReport) -> String);

/// GB of `bytes`, to 3 significant digits.
fn gb(bytes: f64) -> String {
    format!("{} GB", significant(bytes / 1e9, 3))
}

const METRICS: [Metric; 21] = [
    ("mesh", |r| mesh_label(&r.mesh.degrees)),
    ("placement", placement_text),
    ("microbatches", |r| r.microbatches.to_string()),
    ("remat", |r| r.remat.clone()),
    ("ZeRO stage", |r| zero_text(r.zero_stage, &r.mesh.degrees)),
    ("pipeline schedule", |r| schedule_text(&r.pipeline, &r.mesh.degrees)),
    ("prediction", |r| r.prediction.label().into()),
    ("step time", |r| seconds(r.step_time_s.get())),
    ("roofline step time (the bound)", |r| seconds(r.roofline.step_time_s.get())),
    ("tokens per second", |r| grouped(r.tokens_per_s, 0)),
    ("MFU", |r| percent(r.mfu)),
    ("HFU", |r| percent(r.hfu)),
    ("GB per device", |r| {
        format!(
            "{} of {}",
            significant(r.memory.per_device_bytes.get() / 1e9, 4),
            significant(r.memory.capacity_bytes.get() / 1e9, 3)
        )
    }),
    ("fits", |r| if r.memory.fits { "yes".into() } else { "no".into() }),
    // One layer at work (`memory.layer`, book 6.2): what a device holds besides the saved
    // activations while a layer runs.
    ("one layer's gathered weights (FSDP)", |r| gb(r.memory.layer.weights_bytes.get())),
    ("the next layer's, prefetched over the scale-out network", |r| gb(r.memory.layer.prefetch_bytes.get())),
    ("its unreduced weight gradients", |r| gb(r.memory.layer.gradients_bytes.get())),
    ("what its backward recomputes or reads back from the host", |r| gb(r.memory.layer.rematerialised_bytes.get())),
    ("materialised scores and CP's gathered K/V", |r| gb(r.memory.layer.attention_bytes.get())),
    ("binds", |r| bottleneck_label(r.bound.resource).into()),
    ("days for the budget", |r| r.days.map(|d| significant(d, 4)).unwrap_or_default()),
];

/// The best and the explored plan side by side, metric by metric.
#[must_use]
pub fn compare(plans: &[(String, &TrainingReport)]) -> Table {
    let mut columns = vec!["metric".to_string()];
    columns.extend(plans.iter().map(|(l, _)| l.clone()));
    let mut out = Table::new(columns);
    out.labels = out.columns.clone();
    if let Some(first) = out.labels.first_mut() {
        *first = "Metric".into();
    }
    for (name, f) in &METRICS {
        out.push(std::iter::once((*name).to_string()).chain(plans.iter().map(|(_, r)| f(r))));
    }
    out
}

/// Communication per step of each plan, per kind of parallelism.
#[must_use]
pub fn communication(plans: &[(String, &TrainingReport)]) -> Table {
    let mut out = Table::labelled(&[
        ("plan", "Plan"),
        ("parallelism", "Kind"),
        ("axes", "Physical axes"),
        ("bytes_per_step", "GB per step"),
        ("time_s", "Time"),
        ("exposed_s", "Exposed"),
        ("critical_path", "Overlap"),
    ]);
    for (label, r) in plans {
        for c in &r.communication {
            out.push_shown(vec![
                text(label.clone()),
                (c.parallelism.id().to_string(), c.parallelism.label().to_string()),
                (c.axes.join(" "), c.axes.join(" × ")),
                num(c.bytes_per_step.get(), significant(c.bytes_per_step.get() / 1e9, 4)),
                num(c.time_s.get(), seconds(c.time_s.get())),
                num(c.exposed_s.get(), seconds(c.exposed_s.get())),
                (c.critical_path.to_string(), if c.critical_path { "critical path" } else { "overlapped" }.into()),
            ]);
        }
    }
    out
}

/// Memory per device by component of each plan (exported only; the page draws it).
#[must_use]
pub fn memory(plans: &[(String, &TrainingReport)]) -> Table {
    let mut out = Table::new(["plan", "component", "bytes_per_device", "dtype", "sharded_over"]);
    for (label, r) in plans {
        for m in &r.memory.breakdown {
            let over: Vec<&str> = m.sharded_over.iter().map(|p| p.id()).collect();
            out.push([
                label.clone(),
                component_id(m.component).into(),
                shortest(m.bytes.get()),
                m.dtype.map(|d| d.name().to_string()).unwrap_or_default(),
                over.join(" "),
            ]);
        }
        out.push([
            label.clone(),
            "total".into(),
            shortest(r.memory.per_device_bytes.get()),
            String::new(),
            String::new(),
        ]);
        out.push([label.clone(), "hbm".into(), shortest(r.memory.capacity_bytes.get()), String::new(), String::new()]);
    }
    out
}

fn share(part: f64, whole: f64) -> (String, String) {
    let x = if whole > 0.0 { part / whole } else { 0.0 };
    num(x, percent(x))
}

/// Every term of each plan's step (core's `step_terms`): what it counts and its source, then
/// per plan its seconds and share of the step; the step time and the roofline's last. Terms
/// zero in every plan are left out; the exports keep the report's key of each.
#[must_use]
pub fn step_terms(plans: &[(String, &TrainingReport)]) -> Table {
    let terms: Vec<_> = plans.iter().map(|(_, r)| terms_of(r)).collect();
    let mut columns = vec!["key".to_string(), "term".into()];
    let mut labels = vec![String::new(), "Term".into()];
    for (i, (label, _)) in plans.iter().enumerate() {
        let stem = if i == 0 { "best" } else { "explored" };
        columns.extend([format!("{stem}_s"), format!("{stem}_share")]);
        labels.extend([label.clone(), "share".into()]);
    }
    columns.extend(["counts".into(), "source".into()]);
    labels.extend(["What it counts".into(), "Source".into()]);
    let mut out = Table { columns, labels, ..Table::default() };
    let mut keys: Vec<(&str, &str, &str, &str)> = Vec::new();
    for t in terms.iter().flatten() {
        if !keys.iter().any(|k| k.0 == t.key) {
            keys.push((&t.key, &t.label, &t.counts, &t.source));
        }
    }
    let seconds_of = |p: usize, key: &str| terms[p].iter().find(|t| t.key == key).map_or(0.0, |t| t.seconds);
    for (key, label, counts, source) in keys {
        if (0..plans.len()).all(|p| seconds_of(p, key) <= 0.0) {
            continue;
        }
        let mut cells = vec![text(key), text(label)];
        for (p, (_, r)) in plans.iter().enumerate() {
            let t = seconds_of(p, key);
            cells.extend([num(t, seconds(t)), share(t, r.step_time_s.get())]);
        }
        cells.extend([text(counts), text(source)]);
        out.push_shown(cells);
    }
    let mut total = |key: &str, label: &str, pick: fn(&TrainingReport) -> f64, counts: &str, source: &str| {
        let mut cells = vec![text(key), text(label)];
        for (_, r) in plans {
            cells.extend([num(pick(r), seconds(pick(r))), share(pick(r), r.step_time_s.get())]);
        }
        cells.extend([text(counts), text(source)]);
        out.push_shown(cells);
    };
    total("step_time_s", "= step time", |r| r.step_time_s.get(), "the terms above, added", "training::step");
    total(
        "roofline.step_time_s",
        "roofline (the bound)",
        |r| r.roofline.step_time_s.get(),
        "the same configuration's hardware FLOPs at the peak, ideal overlap",
        "book 5.1",
    );
    out
}

/// The search of the best plan (the first of `plans`), if it searched.
fn best_search<'a>(plans: &[(String, &'a TrainingReport)]) -> Option<&'a SearchReport> {
    plans.first().and_then(|(_, r)| r.search.as_ref())
}

/// Every rule the search applied, with this model's numbers (`search.constraints`).
#[must_use]
pub fn search_rules(plans: &[(String, &TrainingReport)]) -> Table {
    let mut out = Table::labelled(&[("rule", "Rule (with this model's numbers)")]);
    for c in best_search(plans).map_or(&[][..], |s| &s.constraints) {
        out.push([c.clone()]);
    }
    out
}

/// The configurations the search did not time, by reason (`search.skipped`).
#[must_use]
pub fn search_skipped(plans: &[(String, &TrainingReport)]) -> Table {
    let Some(k) = best_search(plans).map(|s| &s.skipped) else { return Table::default() };
    let mut out = Table::labelled(&[("reason", ""), ("configurations", "Not timed"), ("why", "Why")]);
    for (key, n, why) in [
        (
            "identical",
            k.identical,
            "the same as one timed: a ZeRO stage without DP, a schedule without PP, ZeRO-2 with several microbatches",
        ),
        ("dominated", k.dominated, "ZeRO-1 with one microbatch: ZeRO-2 is as fast and smaller"),
        ("microbatches", k.microbatches, "interleaved microbatch counts that are not a multiple of pp"),
        ("state_exceeds_hbm", k.state_exceeds_hbm, "the training state alone exceeds the usable HBM"),
        ("bound", k.bound, "they fit, but configurations as small beat their lower bound (counted as fitting)"),
        ("too_large", k.too_large, "they do not fit, once one that fits is known"),
    ] {
        out.push_shown(vec![text(key), num(n as f64, grouped(n as f64, 0)), text(why)]);
    }
    out
}
