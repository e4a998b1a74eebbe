//! docs/validation.md, rendered from the table and the splits (the test in main.rs writes it).

use shardcalc_core::efficiency::calibration::Calibration;
use shardcalc_core::training::report::{MemoryComponent, MemoryReport};
use shardcalc_core::validation::calibration;
use shardcalc_core::validation::fit::PRIOR_WEIGHT;
use shardcalc_core::validation::setups;
use shardcalc_core::validation::splits::{SplitKind, SplitReport};
use shardcalc_core::validation::stats::ErrorStats;
use shardcalc_core::validation::table::{generations, group_stats, guide_rows, GroupStats, Predicted, RunRow};
use shardcalc_core::validation::PredictionMode;
use std::fmt::Write;

/// The figure after `Held-back median absolute MFU error:` in the README.
pub fn readme_figure(readme: &str) -> Option<f64> {
    let key = "Held-back median absolute MFU error:";
    let rest = &readme[readme.find(key)? + key.len()..];
    rest.trim_start().trim_start_matches('*').split_whitespace().next()?.trim_matches('*').parse().ok()
}

fn mesh(m: &shardcalc_core::training::mesh::Mesh) -> String {
    let parts: Vec<String> = shardcalc_core::training::mesh::Parallelism::ALL
        .iter()
        .filter(|p| m.degree(**p) > 1)
        .map(|p| format!("{}={}", p.id(), m.degree(*p)))
        .collect();
    if parts.is_empty() {
        "1".into()
    } else {
        parts.join(" ")
    }
}

fn cell(p: &Predicted) -> String {
    match p {
        Ok(c) => format!("{:.2} s, {:.1}% ({:+.1})", c.step_time_s, c.mfu_pct, c.error.mfu_pts),
        Err(e) => format!("refused: {e}"),
    }
}

fn short(p: Option<&Predicted>) -> String {
    match p {
        Some(Ok(c)) => format!("{:.1}% ({:+.1})", c.mfu_pct, c.error.mfu_pts),
        Some(Err(_)) => "refused".into(),
        None => "fitted".into(),
    }
}

fn stats_cells(x: &ErrorStats) -> String {
    format!(
        "{:.1} | {:.1} | {:.1} | {:.1}",
        x.median_abs_mfu_pts, x.p90_abs_mfu_pts, x.median_abs_step_pct, x.p90_abs_step_pct
    )
}

fn stats_row(out: &mut String, label: &str, ideal: &GroupStats, cal: &GroupStats) {
    let _ = writeln!(
        out,
        "| {label} | {} | {} | {} |",
        cal.stats.count,
        stats_cells(&ideal.stats),
        stats_cells(&cal.stats)
    );
}

fn in_sample_table(out: &mut String, rows: &[RunRow]) {
    let _ = writeln!(out, "| chip | runs | roofline: median \\|MFU err\\| (pts) | p90 | median \\|step err\\| (%) | p90 | calibrated: median \\|MFU err\\| (pts) | p90 | median \\|step err\\| (%) | p90 |");
    let _ = writeln!(out, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
    let mut chips: Vec<Option<String>> = generations(rows).into_iter().map(Some).collect();
    chips.push(None);
    for chip in chips {
        let g = |mode| group_stats(rows, chip.as_deref(), None, mode);
        stats_row(out, chip.as_deref().unwrap_or("**all**"), &g(PredictionMode::Ideal), &g(PredictionMode::Calibrated));
    }
}

fn values(v: &[f64]) -> String {
    v.iter().map(|x| format!("{x}")).collect::<Vec<_>>().join(", ")
}

fn splits_section(out: &mut String, splits: &[SplitReport]) {
    let _ = writeln!(out, "## Held back: the grouped splits\n");
    let _ = writeln!(
        out,
        "Each fold refits the calibration without the runs it holds back, then predicts them. A group of \
         near-duplicates (one chip and one model shape, differing only in slices) is never split between the \
         fitted and held-back sides. Statistics pool every fold's held-back predictions (calibrated, today's \
         MaxText MFU convention).\n"
    );
    let _ = writeln!(out, "| split | folds | held-back runs | median \\|MFU err\\| (pts) | p90 | median \\|step err\\| (%) | p90 | goal: median ≤ 5 |");
    let _ = writeln!(out, "|---|--:|--:|--:|--:|--:|--:|---|");
    for s in splits {
        let goal = if s.stats.median_abs_mfu_pts <= 5.0 { "met" } else { "**not met**" };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {goal} |",
            s.kind.label(),
            s.folds.len(),
            s.stats.count,
            stats_cells(&s.stats)
        );
    }
    let _ = writeln!(out);
    for s in splits {
        let _ = writeln!(out, "- **{}**: {}.", s.kind.label(), s.kind.rule());
    }
    let _ = writeln!(out, "\nEvery fold, with the parameters it fitted ({}):\n", calibration::PARAMETER_IDS.join(", "));
    let _ = writeln!(out, "| split | fold (held back) | held back | fitted | median \\|MFU err\\| | p90 | mean signed (pts) | parameters fitted |");
    let _ = writeln!(out, "|---|---|--:|--:|--:|--:|--:|---|");
    for s in splits {
        for f in &s.folds {
            let fs = s.fold_stats(&f.name);
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {:.1} | {:.1} | {:+.1} | {} |",
                s.kind.label(),
                f.name,
                f.held_back.len(),
                f.fitted,
                fs.median_abs_mfu_pts,
                fs.p90_abs_mfu_pts,
                fs.mean_mfu_pts,
                values(&f.calibration)
            );
        }
    }
    let _ = writeln!(out);
}

fn largest_misses(out: &mut String, rows: &[RunRow], splits: &[SplitReport]) {
    let Some(chips) = splits.iter().find(|s| s.kind == SplitKind::LeaveChipOut) else { return };
    let mut misses: Vec<(f64, &str, &str)> = chips
        .predictions
        .iter()
        .filter_map(|p| p.prediction.as_ref().ok().map(|c| (c.error.mfu_pts, p.run.as_str(), p.fold.as_str())))
        .collect();
    let gpu_held = chips
        .predictions
        .iter()
        .filter(|p| p.fold == "h100-sxm")
        .filter_map(|p| p.prediction.as_ref().ok().map(|c| c.error.mfu_pts))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), e| (lo.min(e), hi.max(e)));
    misses.sort_by(|a, b| b.0.abs().total_cmp(&a.0.abs()));
    let _ = writeln!(out, "## The five largest held-back misses (leave one chip generation out)\n");
    let _ = writeln!(out, "| run | held-back error (pts) | in-sample error (pts) | measured MFU |\n|---|--:|--:|--:|");
    for (e, run, _) in misses.iter().take(5) {
        let row = rows.iter().find(|r| r.id == *run);
        let in_sample = row.and_then(|r| r.calibrated.as_ref().ok()).map_or(f64::NAN, |c| c.error.mfu_pts);
        let measured = row.map_or(f64::NAN, |r| r.measured_mfu_pct);
        let _ = writeln!(out, "| {run} | {e:+.1} | {in_sample:+.1} | {measured:.1}% |");
    }
    let _ = writeln!(
        out,
        "\nWhy they miss:\n\n\
         - **The largest TPU misses**, held back or not: v5p 128B on two v5p-512 slices (59.7%, far below its \
         siblings at 66-69%) and v5p 1024B on two v5p-2048 slices (51.6% against 60.8% on two v5p-4096 slices with \
         the same per-chip work): outliers no smooth model of slices, bytes and compute follows. Below them come \
         the v5e 32B runs (66% on one slice, above every other v5e model, whose widths and batches bracket it) and \
         the v5p 512B and 1024B runs with full remat, whose measured hardware-FLOPs utilisation (78%) is above that \
         of their `minimal` siblings (67-72%): the `minimal` runs keep more in HBM than the planner's memory model \
         says fits, which XLA pays for with recompute or offload the model does not see.\n\
         - **The H100 runs**, predicted by fits that saw no GPU run (leave the H100 out; leave Llama 2 out: the \
         Llama 2 runs are the GPU runs) within {:+.1} to {:+.1} points: what differs between the kinds is measured, \
         not fitted (an H100's large matmul sustains 80.1% of its peak, cuDNN's flash attention {:.0}% at 4k), and \
         XLA's GPU scheduler leaves the weight-gradient reductions (the DP AllReduce, FSDP's ReduceScatters) \
         exposed, so one sustained fraction serves \
         both kinds. They miss most on two VMs, where MFU falls from one VM's 48.8% to 41.9%: more than the \
         AllReduce of 1.7 GB of bf16 gradients per GPU over 12.5 GB/s accounts for (every multi-VM script also \
         enables the profiler, which the one-VM script does not).\n",
        gpu_held.0,
        gpu_held.1,
        100.0 * shardcalc_core::efficiency::rates::MeasuredAttention::H100_CUDNN.causal_fractions(4096.0).0,
    );
}

/// The model's terms, as docs/validation.md states them.
const MODEL: &str = "## The model\n\n\
Two predictions of the same configuration, through the same timeline (`core/src/training/step.rs`: per microbatch, \
forward and backward each `max(compute, overlapped comms) + critical-path comms`, plus the pipeline bubble):\n\n\
- **The roofline** (`training.roofline`): the hardware FLOPs of the FLOP convention at the chip's peak, perfect \
overlap. A bound no run beats (tested on every run).\n\
- **The calibrated prediction** (the headline, `training.step_time_s`): every kernel the step runs, at the rate its \
shape allows on the chip, with the calibration's five physical parameters, each shared by every chip. Each term is a key of `training.breakdown`:\n\n\
| term | what it counts | source |\n|---|---|---|\n\
| `matmul_s` | every weight matmul forward and its two backward matmuls, per-device shapes after TP/EP sharding, padded to the MXU tile (128 on v4/v5e/v5p, 256 on v6e/v7x; `mma.m16n8k16` on GPUs), at the tiled kernel's roofline (output tiles sized by VMEM/SMEM: HBM-bound only for small per-device dimensions); recomputed matmuls again | `core/src/efficiency/matmul.rs`; MaxText custom-model guide; book ch. 1 |\n\
| `attention_s` | flash/splash attention: the query–key pairs its blocks compute (512 on TPUs, 128 on GPUs; causal: diagonal blocks whole), at the head dimension's MXU utilisation (head_dim 128 on a 256-wide MXU: half), backward 3.5× the forward (MaxText splash: separate dQ and dK/dV kernels) or 2.5× (GPU FlashAttention-2); on GPUs at cuDNN's measured flash-attention rate for the sequence length (an H100 at 4k: 52% of its peak forward, against 80% for a large matmul) rather than the matmul's; materialised attention: the full square and 30 bytes of score traffic per pair and head | `core/src/efficiency/attention.rs`, `rates.rs`; MaxText `sa_*` settings; the Ironwood guide; FlashAttention-3 (Shah et al. 2024), figures 5-6 |\n\
| `elementwise_s` | norms, rotary, residual adds, activations (each op reads its inputs and writes its output once), the embedding; the forward's again under every remat policy but `none` | `core/src/training/shapes.rs` |\n\
| `loss_s` | the logits' log-softmax and its gradient over the vocabulary | the same |\n\
| `moe_s` | router, token permute and unpermute; padded experts' dispatch and combine einsums | `core/src/training/kernels.rs`; MaxText `layers/moe.py` |\n\
| `optimizer_s` | the update's reads and writes of weights, gradients, moments and master weights per device shard; gradient accumulation | `core/src/training/kernels.rs` |\n\
| `exposed_communication_s` | every collective from `core/src/collectives` on the placed axes; the `overlap` fraction of the overlappable traffic hides behind the pass's compute; on GPUs the weight-gradient reductions (the DP sync, FSDP's ReduceScatters) wait for the backward pass (XLA's GPU latency-hiding scheduler leaves them exposed) | `core/src/training/comms.rs`, `step.rs`; openxla/xla#1539, #45929 |\n\
| `sync_s` | slices in lockstep wait for the slowest: the expected maximum of `n` normal step times (Blom), `straggler` of a step apart | `core/src/efficiency/calibration.rs` |\n\
| `bubble_s`, `offload_exposed_s` | the pipeline bubble; host offload longer than the pass it hides behind | `core/src/training/pipeline.rs`, `step.rs` |\n\n\
Routed experts run as grouped (Megablox) matmuls on ragged groups — a 512-row tile per group boundary, the busiest \
expert-parallel device's load (uniform routing) — or as padded experts at the capacity factor (`training.moe_kernel`). \
None of the published runs is an MoE run: these terms are physical, sourced and not fitted.\n";

/// The whole page.
pub fn render(rows: &[RunRow], c: &Calibration, splits: &[SplitReport]) -> String {
    let mut out = String::new();
    let chip_out = splits.iter().find(|s| s.kind == SplitKind::LeaveChipOut).map(|s| s.stats).unwrap_or_default();
    let _ = writeln!(out, "# Predicted vs measured\n");
    let _ = writeln!(
        out,
        "<!-- Generated by core/tests/validation/ (`cargo test -p shardcalc-core --test validation`); do not edit. -->\n\n\
         The training planner's step time for each published run (`core/data/published-runs.csv`), on the run's own \
         mesh (not the searched best), against the step time the run's published TFLOP/s imply; MFU in today's \
         MaxText FLOP convention (the step time is the convention-free quantity; MFU = FLOPs / (chips × peak × step \
         time)). Errors are predicted − measured: positive MFU errors (negative step-time errors) mean the \
         prediction is optimistic. `cargo run --release -p shardcalc-core --example fit_calibration` prints every \
         run's prediction with its breakdown. Published runs outside the fit (Trillium, 2025 v5p, Mixtral), \
         never used for fitting, are a spot check in [docs/generalization.md](generalization.md).\n"
    );
    let _ = writeln!(
        out,
        "**Held back, leave one chip generation out: median absolute MFU error {:.1} points, p90 {:.1}; median \
         absolute step-time error {:.1}%, p90 {:.1}%** ({} runs, each predicted by a fit that never saw its chip).\n",
        chip_out.median_abs_mfu_pts,
        chip_out.p90_abs_mfu_pts,
        chip_out.median_abs_step_pct,
        chip_out.p90_abs_step_pct,
        chip_out.count
    );
    splits_section(&mut out, splits);
    largest_misses(&mut out, rows, splits);
    let _ = writeln!(out, "## In sample: the bundled calibration, fitted on every run\n");
    in_sample_table(&mut out, rows);
    let _ = writeln!(
        out,
        "\np90 is the nearest-rank 90th percentile; the median of an even count is the mean of the middle two.\n"
    );
    let _ = writeln!(out, "{MODEL}");
    findings(&mut out, rows, c);

    let _ = writeln!(out, "## The calibration\n");
    let f = calibration::bundled_file();
    let _ = writeln!(
        out,
        "Fitted on: {}. Objective: {}, plus a prior of {PRIOR_WEIGHT} point × Σ (value − nominal)² that decides \
         between calibrations the runs cannot tell apart (nominal: every rate at its peak, no straggler). Every \
         parameter is shared by every chip: what differs between chip kinds is measured (a large matmul's and the \
         flash-attention kernel's standalone rates, `core/src/efficiency/rates.rs`) or how their compiler schedules \
         (XLA's GPU scheduler leaves the weight-gradient reductions exposed), so a fit on one kind's runs predicts \
         the other's. \
         Search: `core/src/validation/fit.rs`.\n",
        f.map_or("", |f| f.split.as_str()),
        f.map_or("", |f| f.objective.as_str())
    );
    let _ = writeln!(out, "| parameter | value | what it is |\n|---|--:|---|");
    if let Some(f) = f {
        for p in &f.parameters {
            let _ = writeln!(out, "| {} (`{}`) | {} | {} |", p.label, p.id, p.value, p.meaning);
        }
    }
    let _ = writeln!(out, "\nValues in use: [{}].\n", values(&c.values()));

    let _ = writeln!(out, "## Runs\n");
    let _ = writeln!(
        out,
        "Measured = from the published TFLOP/s. Roofline and calibrated (in sample) as step time, MFU (error); the \
         held-back columns give each run's MFU (error) under the fold that held it back. Bound = what the calibrated \
         plan says binds the step (the largest of its times, book 1.1) and its largest loss.\n"
    );
    let _ = writeln!(out, "| run | chips | model | mesh | remat | measured | roofline | calibrated | held back: chip out | family out | interleaved | bound |");
    let _ = writeln!(out, "|---|--:|---|---|---|--:|--:|--:|--:|--:|--:|---|");
    let held = |kind: SplitKind, id: &str| splits.iter().find(|s| s.kind == kind).and_then(|s| s.prediction_of(id));
    for r in rows {
        let bound = r.calibrated.as_ref().map_or(String::new(), |c| {
            let mem = if c.fits { "" } else { "; planner's memory model: does not fit" };
            format!("{}{mem}", c.bound_text())
        });
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {:.2} s, {:.1}% | {} | {} | {} | {} | {} | {bound} |",
            r.id,
            r.chips,
            r.model,
            mesh(&r.mesh),
            r.remat,
            r.measured_step_s,
            r.measured_mfu_pct,
            cell(&r.ideal),
            cell(&r.calibrated),
            short(held(SplitKind::LeaveChipOut, &r.id)),
            short(held(SplitKind::LeaveFamilyOut, &r.id)),
            short(held(SplitKind::Interleaved, &r.id)),
        );
    }

    memory_table(&mut out, rows);

    let f = setups::bundled();
    let _ = writeln!(out, "\n## How each run is set up\n");
    let _ =
        writeln!(out, "From `core/data/run-setups.json`: the mesh and remat policy as the run's scripts set them.\n");
    for s in &f.setups {
        let note = if s.note.is_empty() { String::new() } else { format!(" {}", s.note) };
        let _ = writeln!(out, "- **{}** ({}): {}.{note}", s.id, s.published, s.mesh_source);
    }

    let _ = writeln!(out, "\n## Design points of the MaxText custom-config guide\n");
    let _ = writeln!(
        out,
        "Not published runs: the guide states an MFU for a model and a mesh and leaves the rest out. What is assumed is \
         listed per point; the errors are reported apart and never enter the fit. The step-time error follows from the \
         MFUs (same FLOPs).\n"
    );
    let guides = guide_rows(c);
    let _ = writeln!(
        out,
        "| point | chips | model | mesh | guide's MFU | roofline | calibrated |\n|---|--:|---|---|--:|--:|--:|"
    );
    for g in &guides {
        let _ = writeln!(
            out,
            "| {} | {} | {} ({:.0}B) | {} | {:.1}% | {} | {} |",
            g.id,
            g.chips,
            g.model,
            g.params / 1e9,
            mesh(&g.mesh),
            g.published_mfu_pct,
            cell(&g.ideal),
            cell(&g.calibrated)
        );
    }
    let errs: Vec<_> = guides.iter().filter_map(|g| g.calibrated.as_ref().ok().map(|c| c.error)).collect();
    let s = ErrorStats::of(&errs);
    let _ = writeln!(
        out,
        "\nCalibrated, all {} points: median absolute MFU error {:.1} points, p90 {:.1}.\n",
        s.count, s.median_abs_mfu_pts, s.p90_abs_mfu_pts
    );
    for g in &f.guide_points {
        let _ = writeln!(out, "- **{}**: \"{}\" Assumed: {}.", g.id, g.statement, g.assumptions.join("; "));
    }

    case_studies_section(&mut out, c);

    let _ = writeln!(out, "\n## Published numbers nothing here predicts\n");
    let _ = writeln!(out, "| point | chip | what | value | why not |\n|---|---|---|--:|---|");
    for p in &f.unpredicted_points {
        let _ = writeln!(
            out,
            "| {} | {} × {} | {} | {} {} | {} |",
            p.id, p.chips, p.chip, p.what, p.value, p.unit, p.why_not
        );
    }
    out
}

/// The Ironwood guide's case studies: each change planned before and after.
fn case_studies_section(out: &mut String, c: &Calibration) {
    use shardcalc_core::validation::case_studies::{case_study_rows, COMMON, SOURCE, TOLERANCE_POINTS};
    let rows = case_study_rows(c);
    let _ = writeln!(out, "\n## The Ironwood guide's case studies\n");
    let _ = writeln!(
        out,
        "{SOURCE}: on a 4×4×4 TPU7x (64 chips), each optimisation and the change in step time it measured. The guide \
         gives no model shape, batch or remat policy: each case plans a public model under stated assumptions \
         (`core/src/validation/case_studies.rs`), before and after the change, with the calibrated model; nothing is \
         fitted to these numbers. Goal: within ±{TOLERANCE_POINTS} points of the guide's change \
         (`core/tests/validation/case_studies.rs`). Every case assumes: {}.\n",
        COMMON.join("; ")
    );
    let _ = writeln!(
        out,
        "| case | model | before → after | before | after | predicted | guide | |\n|---|---|---|--:|--:|--:|--:|---|"
    );
    for r in &rows {
        let published = r.published_change_pct.map_or("slower".to_string(), |p| format!("{p:+.0}%"));
        let verdict = match (r.published_change_pct, &r.known_miss) {
            (_, Some(_)) => "**known miss**",
            (Some(p), None) if (r.predicted_change_pct - p).abs() <= TOLERANCE_POINTS => "within ±5",
            (None, None) if r.predicted_change_pct > 0.0 => "agrees",
            _ => "**misses**",
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} → {} | {:.3} s | {:.3} s | {:+.1}% | {published} | {verdict} |",
            r.id, r.model, r.before, r.after, r.before_step_s, r.after_step_s, r.predicted_change_pct
        );
    }
    let _ = writeln!(out);
    for r in &rows {
        let own: Vec<&str> = r.assumptions.iter().skip(COMMON.len()).map(String::as_str).collect();
        let _ = writeln!(out, "- **{}** ({}): \"{}\" Assumed: {}.", r.id, r.what, r.statement, own.join("; "));
        let _ = writeln!(out, "  Before: {} After: {}", r.before_bound, r.after_bound);
        if let Some(why) = &r.known_miss {
            let _ = writeln!(out, "  **Known miss**: {why}");
        }
        if let Some(note) = &r.note {
            let _ = writeln!(out, "  Note: {note}");
        }
    }
}

/// One run's memory as planned on its own mesh (the prediction mode does not change it).
pub struct RunMemory {
    /// The run's setup group.
    pub setup: String,
    /// Chips per slice.
    pub slice: u64,
    /// The plan's memory.
    pub memory: MemoryReport,
    /// Its mesh.
    pub mesh: shardcalc_core::training::mesh::Mesh,
    /// The vendor's HBM capacity where the catalog keeps the book's instead (its
    /// `alternatives`: Cloud TPU docs give GiB where the book's table gives GB).
    pub vendor_hbm: Option<f64>,
}

/// The memory of every run that plans.
pub fn run_memory(rows: &[RunRow]) -> Vec<(String, RunMemory)> {
    rows.iter()
        .filter_map(|r| {
            let plan = shardcalc_core::validation::predict::predict(r.scenario.as_ref()?).ok()?;
            let (setup, _) = setups::bundled().setup_of(&r.id)?;
            let id = setups::bundled().catalog_chip(&r.chip).unwrap_or(r.chip.as_str());
            let chip = shardcalc_core::hardware::catalog::get(id)?;
            let vendor_hbm = shardcalc_core::hardware::catalog::with_provenance(chip)
                .alternatives
                .iter()
                .find(|a| a.field == "hbm.capacity")
                .map(|a| a.value);
            let memory = RunMemory {
                setup: setup.id.clone(),
                slice: r.chips / r.slices.max(1),
                memory: plan.memory,
                mesh: plan.mesh.degrees,
                vendor_hbm,
            };
            Some((r.id.clone(), memory))
        })
        .collect()
}

fn gb(b: f64) -> String {
    format!("{:.1}", b / 1e9)
}

/// Per-device memory of each run against its chip's HBM: one row per setup and slice
/// size (more slices add data parallelism, which changes no device's memory).
fn memory_table(out: &mut String, rows: &[RunRow]) {
    let _ = writeln!(out, "## Memory against HBM\n");
    let _ = writeln!(
        out,
        "Per device, GB (10^9 bytes), on each run's own mesh and batch, in MaxText's number formats (`run_dtypes` in \
         `core/data/run-setups.json`: fp32 weights, gradients and Adam moments, bf16 activations and gathers). State = \
         weights + gradients + optimizer; saved = the remat policy's residuals of every layer \
         (`core/src/training/tensors.rs`); transient = one layer at work (gathered weights and gradients, what its \
         backward rematerialises) or the loss's fp32 logits, the larger. Usable = HBM less `reserved_hbm_fraction` \
         (the default {:.0}%; 15% for the A3 runs, whose script caps the JAX process at 85%). HBM is the catalog's \
         (the book's spec table, in GB); Google's Cloud TPU pages give GiB (v4 32 GiB = 34.4 GB, v5p 95 GiB = 102.0 GB; \
         the book's own section 2.1 gives the v5e 16 GiB = 17.2 GB): the last column is the share of that.\n",
        100.0 * shardcalc_core::training::section::DEFAULT_RESERVED_HBM_FRACTION
    );
    let _ = writeln!(out, "| runs | mesh per slice | remat | batch/device | state | saved | transient | total | HBM | usable | used | fits | used of GiB |");
    let _ = writeln!(out, "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|");
    let all = run_memory(rows);
    let mut done: Vec<(String, u64)> = Vec::new();
    for (id, m) in &all {
        let key = (m.setup.clone(), m.slice);
        if done.contains(&key) {
            continue;
        }
        done.push(key);
        let group: Vec<&str> =
            all.iter().filter(|(_, x)| x.setup == m.setup && x.slice == m.slice).map(|(i, _)| i.as_str()).collect();
        let row = rows.iter().find(|r| &r.id == id);
        let mem = &m.memory;
        let part = |c: MemoryComponent| mem.breakdown.iter().find(|i| i.component == c).map_or(0.0, |i| i.bytes.get());
        let state = part(MemoryComponent::Weights)
            + part(MemoryComponent::Gradients)
            + part(MemoryComponent::Optimizer)
            + part(MemoryComponent::MasterWeights);
        let hbm = mem.capacity_bytes.get();
        let usable = hbm - mem.reserved_bytes.get();
        let total = mem.per_device_bytes.get();
        let per_slice = shardcalc_core::training::mesh::Mesh { dp: 1, ..m.mesh };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} ({}) | {} | {} | {} | {:.1}% | {} | {} |",
            group.join(", "),
            mesh(&per_slice),
            row.map_or("", |r| r.remat.as_str()),
            row.map_or(0.0, |r| r.per_device_batch),
            gb(state),
            gb(part(MemoryComponent::Activations)),
            gb(part(MemoryComponent::Transient)),
            format!("{:?}", mem.transient).to_lowercase(),
            gb(total),
            gb(hbm),
            gb(usable),
            100.0 * total / hbm,
            if mem.fits { "yes" } else { "**no**" },
            m.vendor_hbm.map_or("—".to_string(), |v| format!("{:.1}%", 100.0 * total / v))
        );
    }
    out.push('\n');
}

/// What the table shows beyond the statistics.
fn findings(out: &mut String, rows: &[RunRow], c: &Calibration) {
    let worst = rows
        .iter()
        .map(|r| (((r.tflops_then / r.measured_step_s) / r.reported_tflops - 1.0).abs() * 100.0, r.id.as_str()))
        .fold((0.0, ""), |a, b| if b.0 > a.0 { b } else { a });
    let not_fitting: Vec<&str> =
        rows.iter().filter(|r| r.ideal.as_ref().is_ok_and(|c| !c.fits)).map(|r| r.id.as_str()).collect();
    let gap = rows
        .iter()
        .filter_map(|r| r.ideal.as_ref().ok().map(|c| c.mfu_pct - r.measured_mfu_pct))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)));
    let _ = writeln!(out, "## What the table shows\n");
    let _ = writeln!(
        out,
        "- **Conventions.** Every run's FLOPs per device-step, recomputed from its shape in the convention it was published \
         in, match the table's to 0.05 TFLOP, and divided by its step time give its published TFLOP/s to {:.2}% at worst \
         ({}): the step times are consistent, and the older MFUs differ from today's only by convention (the v5e figures \
         counted attention without causal halving, the v4 ones without attention; for the untied Llama 2 the 6·N \
         figures also count the input embedding, which today's MaxText does not).",
        worst.0, worst.1
    );
    let _ = writeln!(
        out,
        "- **The roofline is a bound**: {:.0} to {:.0} points of MFU above every measurement. The calibrated model \
         keeps {:.0}% of each kernel's measured standalone rate on every chip ({:.0}% of a TPU's peak, {:.0}% of an \
         H100's for its matmuls) after the losses it counts; the counted kernel losses (attention at its executed \
         pairs, elementwise and loss traffic, the optimizer update) are 3 to 15% of these runs' steps, most on the \
         narrowest models and on the H100; multi-slice runs lose DCN bandwidth and a straggler wait that grows with \
         the slice count, and the H100 runs wait for their gradient reductions (FSDP's on one VM, DP's across VMs).",
        gap.0,
        gap.1,
        c.mxu * 100.0,
        c.matmul_fraction(shardcalc_core::hardware::chip::ChipFamily::Tpu) * 100.0,
        c.matmul_fraction(shardcalc_core::hardware::chip::ChipFamily::Gpu) * 100.0
    );
    let _ = writeln!(
        out,
        "- **Meshes.** The CSV's notes say every TPU run is FSDP over ICI with DP over DCN; the v5p scripts also set \
         tensor parallelism (4 for 32B and 64B, 8 from 128B) and `remat_policy` minimal (full for 512B and 1024B), the \
         v5e 128B script TP 16, and their XLA flags overlap collectives with compute. The table uses the scripts' meshes \
         (see below); with pure FSDP the v5p and v5e 128B predictions would differ."
    );
    let memory = run_memory(rows);
    let tightest = memory
        .iter()
        .map(|(id, m)| (m.memory.per_device_bytes.get() / m.memory.capacity_bytes.get(), id.as_str()))
        .fold((0.0, ""), |a, b| if b.0 > a.0 { b } else { a });
    let fit_list = if not_fitting.is_empty() {
        "Every run fits in its chip's HBM less the default reserve on its own mesh (the table below)".to_string()
    } else {
        format!("{} runs do not fit although they ran: {}", not_fitting.len(), not_fitting.join(", "))
    };
    let _ = writeln!(
        out,
        "- **Memory.** {fit_list}. The earlier count refused 12 runs that ran; four corrections, each from the \
         runs' own code: MaxText's remat semantics (jax saves only the residuals the backward pass reads, and the 2023 \
         base model is a parallel block, which never reads the out projection's or the down projection's output: \
         `minimal` keeps the layer input, q, k, v and the MLP input, 67,584 elements per token and layer for the 32B where \
         88,064 were counted); the CSV's per-device batches (8, 4 and 2 for the v5p 32B, 64B and 256B) are the scripts \
         as first published (76bd53b0f, 2023-12-15), the 7, 3 and 1 of the later scripts came in February 2024; the \
         v5e 128B ran FSDP 16 × TP 16 (its 2023 scripts), not FSDP over the slice; and MaxText keeps fp32 weights, \
         gradients and moments (16 bytes per parameter) but gathers and reduces in bf16. The tightest is {} at {:.1}% of \
         the catalog's HBM: a reserve above {:.1}% would refuse it, so the default (`reserved_hbm_fraction`, {:.0}%) \
         stays below. Step time and MFU do not depend on memory.",
        tightest.1,
        100.0 * tightest.0,
        100.0 * (1.0 - tightest.0),
        100.0 * shardcalc_core::training::section::DEFAULT_RESERVED_HBM_FRACTION
    );
}
