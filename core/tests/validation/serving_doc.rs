//! docs/serving-validation.md, rendered from the serving validation (issue 17); the test
//! writes it and holds the held-back errors to the goal.

use shardcalc_core::efficiency::serving::{self as serving_calibration, ServingCalibration};
use shardcalc_core::validation::fit::Split;
use shardcalc_core::validation::serving::{Compared, ServingPrediction};
use shardcalc_core::validation::serving_runs::{self, LoadKind};
use shardcalc_core::validation::serving_table::{
    serving_validation, ErrorSummary, MetricStats, Predicted, ServingRow, ServingValidation,
};
use std::fmt::Write;

fn stat(m: &MetricStats) -> String {
    if m.count == 0 {
        "–".into()
    } else {
        format!("{:.1} / {:.1} ({})", m.median_abs_pct, m.p90_abs_pct, m.count)
    }
}

fn summary_cells(e: &ErrorSummary) -> String {
    format!("{} | {} | {}", stat(&e.throughput), stat(&e.ttft), stat(&e.tpot))
}

fn compared(c: &Option<Compared>, unit: f64, digits: usize) -> String {
    c.map_or(String::new(), |c| format!("{:.digits$} ({:+.0}%)", c.predicted * unit, c.error_pct))
}

fn measured(p: &Predicted, f: fn(&ServingPrediction) -> Option<Compared>, unit: f64, digits: usize) -> String {
    p.as_ref().ok().and_then(f).map_or(String::new(), |c| format!("{:.digits$}", c.measured * unit))
}

fn is_moe(id: &str) -> bool {
    serving_runs::get(id)
        .and_then(|r| shardcalc_core::presets::get(&r.model_preset))
        .is_some_and(|p| p.config.moe.is_some())
}

/// The median signed calibrated error of `metric` over the modelled rows `keep` selects.
fn median_of(
    rows: &[ServingRow],
    keep: impl Fn(&ServingRow) -> bool,
    metric: fn(&ServingPrediction) -> Option<Compared>,
) -> (f64, usize) {
    let e: Vec<f64> = rows
        .iter()
        .filter(|r| keep(r))
        .filter_map(|r| r.calibrated.as_ref().ok().and_then(metric))
        .map(|c| c.error_pct)
        .collect();
    (shardcalc_core::validation::stats::median(&e), e.len())
}

fn findings(out: &mut String, v: &ServingValidation) {
    let rows = &v.rows;
    let thr = |p: &ServingPrediction| p.throughput;
    let ttft = |p: &ServingPrediction| p.ttft;
    let tpot = |p: &ServingPrediction| p.tpot;
    let (lat, n_lat) = median_of(rows, |r| r.load == LoadKind::Latency, ttft);
    let (loaded, n_loaded) = median_of(rows, |r| r.load == LoadKind::Online, ttft);
    let (moe, n_moe) = median_of(rows, |r| is_moe(&r.id) && r.load != LoadKind::Decode, thr);
    let (dense, n_dense) = median_of(rows, |r| !is_moe(&r.id) && r.load == LoadKind::Offline, thr);
    let (light, n_light) = median_of(
        rows,
        |r| {
            r.load == LoadKind::Online
                && serving_runs::get(&r.id).and_then(|s| s.request_rate).is_some_and(|q| q <= 2.0)
        },
        tpot,
    );
    let _ = writeln!(out, "## What the misses point to\n");
    let _ = writeln!(
        out,
        "Medians of the signed calibrated errors (positive: a throughput predicted higher, a latency predicted longer \
         than measured). These are the physics the serving model lacks; a fitted factor should not absorb them.\n"
    );
    let _ = writeln!(
        out,
        "- **Queueing and prefill under load.** Time to first token of an idle server (batch 1): {lat:+.0}% ({n_lat} \
         runs); under load: {loaded:+.0}% ({n_loaded} runs). Online runs are predicted by the serving model's \
         co-located server: continuous batching with chunked prefill under the run's token budget (vLLM's \
         `max_num_batched_tokens` 512 as the recipe sets it; TensorRT-LLM's default `max_num_tokens`, 8,192), a \
         request's first token after the wait for the step in progress, the prefill queue (M/G/1) and its own chunks; \
         the TensorRT-LLM 70B server at 16 QPS, which the model cannot settle (it sustains about 15 requests/s at the \
         most that fits), is followed through its 500 requests as the batch grows. What is left: the vLLM TPU closed \
         loops' median TTFT is about a third short (the engine runs with `--async-scheduling`, which schedules a \
         step ahead, and its API server tokenizes each 1,000-token prompt: neither is counted); the TensorRT-LLM runs \
         with 202-token prompts are short by what looks like a fixed cost per request (Triton's pre- and \
         post-processing models), and the 16-QPS run's TPOT is too long: the model's mixed steps cost more per \
         prompt token than the engine's (the matmul efficiency is fitted on decode-heavy runs)."
    );
    let _ = writeln!(
        out,
        "- **Decode at light load** (QPS ≤ 2): TPOT {light:+.0}% ({n_light} runs) — per-layer latency (kernel launches, \
         the AllReduce's latency beyond the link model's) dominates a small batch; the fitted per-layer overhead covers \
         it, which the serving model should add to every pass itself."
    );
    let _ = writeln!(
        out,
        "- **Mixture of experts.** Throughput of MoE runs: {moe:+.0}% ({n_moe} runs), against {dense:+.0}% for dense \
         offline runs ({n_dense}). Grouped expert GEMMs at small per-expert batches run far below the dense matmul \
         efficiency, routing is imbalanced, and the DeepSeek-V3 deployments use DP attention with EP AllToAlls \
         (DeepEP) that the serving mesh does not represent (it splits attention over every model axis and AllReduces \
         activations over 72 GPUs: the decode row is communication-bound and too slow). Needs: per-expert load, an \
         expert-GEMM efficiency, DP attention with EP dispatch/combine (issue 17, \"MoE and MLA serving at scale\")."
    );
    let _ = writeln!(
        out,
        "- **Memory headroom.** Where the largest batch that fits binds (Llama 3.1 70B FP8 on one H100), the engine \
         fits fewer sequences than the model (activation workspace, CUDA graphs, the runtime's own reservation): the \
         model is too fast. Needs: the engines' real memory reservations, not a fitted factor."
    );
    let _ = writeln!(
        out,
        "- **TP over 8 GPUs.** The TP8 runs of dense 70B models are optimistic: NVLink AllReduce achieves well below \
         the link's peak (NCCL's bus bandwidth), which the collective model takes at 100%."
    );
    let _ = writeln!(
        out,
        "- **A small model on many TPU chips, briefly.** The JetStream row (Llama 2 7B over 8 v5e chips, an \
         experimental engine) is a 73 s run of 1,000 requests: its ramp-up and tail run far below the 160-sequence \
         batch the prediction assumes, and a 7B model split 8 ways spends each layer on collective latency and \
         host-side scheduling rather than on HBM. One run; not a basis for a TPU-specific factor.\n"
    );
    let mut misses: Vec<(&ServingRow, &'static str, f64)> = Vec::new();
    for r in rows {
        if let Ok(p) = &r.calibrated {
            for (name, c) in [("throughput", p.throughput), ("TTFT", p.ttft), ("TPOT", p.tpot)] {
                if let Some(c) = c {
                    misses.push((r, name, c.error_pct));
                }
            }
        }
    }
    misses.sort_unstable_by(|a, b| b.2.abs().total_cmp(&a.2.abs()));
    let _ = writeln!(
        out,
        "The largest calibrated misses:\n\n| run | group | split | quantity | error |\n|---|---|---|---|--:|"
    );
    for (r, name, e) in misses.iter().take(12) {
        let _ = writeln!(out, "| {} | {} | {} | {name} | {e:+.0}% |", r.id, r.group, r.split.label());
    }
    out.push('\n');
}

/// The whole page.
pub fn render(v: &ServingValidation) -> String {
    let mut out = String::new();
    let held = v.side(Some(Split::HeldBack)).expect("held-back side");
    let fitted = v.side(Some(Split::Fit)).expect("fitted side");
    let h = &held.calibrated;
    let _ = writeln!(out, "# Serving: predicted vs measured\n");
    let _ = writeln!(
        out,
        "<!-- Generated by core/tests/validation/ (`cargo test -p shardcalc-core --test validation`); do not edit. -->\n\n\
         The serving model's prediction for each published serving run of `core/data/serving-runs.csv` (sources and \
         conventions: `core/data/SERVING-RUNS.md`), on the run's own chips, parallelism, number formats, lengths and \
         load, through the public serving evaluator. How each kind of load is predicted: `core/src/validation/serving.rs`. \
         Two predictions: the **ideal roofline** and the **calibrated** one (the roofline with the fitted parameters \
         below). Errors are (predicted − measured) / measured: positive means faster than measured for a throughput, \
         slower for a latency. Cells: median / p90 of |error| in % (comparisons).\n"
    );
    let _ = writeln!(
        out,
        "**Held-back runs (the fit never saw their engine × chip group): median |throughput error| {:.1}% ({} runs), \
         TTFT {:.1}% ({}), TPOT {:.1}% ({})** — the issue's goal is 15% for throughput and 20% for TTFT and TPOT. \
         The roofline alone: {:.1}%, {:.1}%, {:.1}%. {} of {} runs are modelled.\n",
        h.throughput.median_abs_pct,
        h.throughput.count,
        h.ttft.median_abs_pct,
        h.ttft.count,
        h.tpot.median_abs_pct,
        h.tpot.count,
        held.ideal.throughput.median_abs_pct,
        held.ideal.ttft.median_abs_pct,
        held.ideal.tpot.median_abs_pct,
        v.side(None).map_or(0, |s| s.calibrated.modelled),
        v.rows.len()
    );
    let _ = writeln!(out, "## Per group\n");
    let _ = writeln!(
        out,
        "| engine × chip | split | runs | modelled | ideal: throughput | TTFT | TPOT | calibrated: throughput | TTFT | TPOT |\n\
         |---|---|--:|--:|--:|--:|--:|--:|--:|--:|"
    );
    for g in &v.groups {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            g.group,
            g.split.label(),
            g.runs,
            g.calibrated.modelled,
            summary_cells(&g.ideal),
            summary_cells(&g.calibrated)
        );
    }
    for (label, s) in [("**held back**", held), ("**fitted**", fitted)] {
        let _ = writeln!(
            out,
            "| {label} | | {} | {} | {} | {} |",
            s.runs,
            s.calibrated.modelled,
            summary_cells(&s.ideal),
            summary_cells(&s.calibrated)
        );
    }
    let _ = writeln!(
        out,
        "\np90 is the nearest-rank 90th percentile; the median of an even count is the mean of the middle two.\n"
    );
    findings(&mut out, v);

    let _ = writeln!(out, "## The calibration\n");
    let f = serving_calibration::bundled_file();
    let _ = writeln!(
        out,
        "Split: {}. Fitted groups: {}. Objective: {}. Search: `core/src/validation/serving_fit.rs`.\n",
        v.split_rule,
        v.fitted_groups.join(", "),
        f.map_or("", |f| f.objective.as_str())
    );
    let _ = writeln!(out, "| parameter | value | what it is |\n|---|--:|---|");
    if let Some(f) = f {
        for p in &f.parameters {
            let _ = writeln!(out, "| {} (`{}`) | {} | {} |", p.label, p.id, p.value, p.meaning);
        }
    }
    out.push('\n');

    let _ = writeln!(out, "## Runs\n");
    let _ = writeln!(
        out,
        "Batch: sequences in flight per replica, and where it comes from. Throughput is per chip (output tokens/s; \
         input tokens/s for prefill runs). Measured, then ideal and calibrated predictions with their errors. Bound: \
         what binds the calibrated decode step.\n"
    );
    let _ = writeln!(
        out,
        "| run | split | load | batch | throughput: measured | ideal | calibrated | TTFT ms: measured | ideal | calibrated | TPOT ms: measured | ideal | calibrated | bound |\n\
         |---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|"
    );
    for r in &v.rows {
        let (i, c) = (&r.ideal, &r.calibrated);
        let Ok(cal) = c else { continue };
        let ideal = i.as_ref().ok();
        let _ = writeln!(
            out,
            "| {} | {} | {:?} | {} ({:?}) | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:?}{} |",
            r.id,
            r.split.label(),
            r.load,
            cal.batch,
            cal.batch_basis,
            measured(c, |p| p.throughput, 1.0, 0),
            ideal.map_or(String::new(), |p| compared(&p.throughput, 1.0, 0)),
            compared(&cal.throughput, 1.0, 0),
            measured(c, |p| p.ttft, 1e3, 1),
            ideal.map_or(String::new(), |p| compared(&p.ttft, 1e3, 1)),
            compared(&cal.ttft, 1e3, 1),
            measured(c, |p| p.tpot, 1e3, 1),
            ideal.map_or(String::new(), |p| compared(&p.tpot, 1e3, 1)),
            compared(&cal.tpot, 1e3, 1),
            cal.binds,
            if cal.fits { "" } else { "; does not fit" }
        );
    }
    let _ = writeln!(out, "\n## Not modelled\n\n| run | group | why |\n|---|---|---|");
    for r in &v.rows {
        if let Err(e) = &r.calibrated {
            let _ = writeln!(out, "| {} | {} | {e} |", r.id, r.group);
        }
    }
    out
}

/// The statistics, computed here, written to docs/serving-validation.md; the held-back
/// median |throughput error| meets the 15% and TTFT and TPOT its 20%, and the calibration beats the
/// roofline on every measured quantity of the held-back runs.
#[test]
fn serving_statistics_meet_the_goal_and_are_written() {
    let v = serving_validation(&serving_calibration::bundled());
    assert_ne!(v.calibration, ServingCalibration::IDEAL);
    let held = v.side(Some(Split::HeldBack)).unwrap();
    let (i, c) = (&held.ideal, &held.calibrated);
    assert!(c.modelled >= 20, "held-back runs modelled: {}", c.modelled);
    assert!(c.throughput.median_abs_pct <= 15.0, "held-back throughput {:.1}%", c.throughput.median_abs_pct);
    assert!(c.ttft.median_abs_pct <= 20.0, "held-back TTFT {:.1}%", c.ttft.median_abs_pct);
    assert!(c.tpot.median_abs_pct <= 20.0, "held-back TPOT {:.1}%", c.tpot.median_abs_pct);
    for (name, ideal, cal) in
        [("throughput", i.throughput, c.throughput), ("TTFT", i.ttft, c.ttft), ("TPOT", i.tpot, c.tpot)]
    {
        assert!(cal.median_abs_pct < ideal.median_abs_pct, "{name}: calibrated {cal:?} vs ideal {ideal:?}");
    }
    // The README states the held-back figure; it must not be better than the computed one.
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let key = "absolute throughput error ";
    let stated: f64 = readme
        .find(key)
        .and_then(|i| readme[i + key.len()..].split('%').next())
        .and_then(|x| x.trim().parse().ok())
        .expect("the README states the held-back median absolute throughput error");
    assert!(
        c.throughput.median_abs_pct <= stated + 0.05,
        "held-back throughput {:.2}% is worse than the README's {stated}%",
        c.throughput.median_abs_pct
    );
    let text = render(&v);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/serving-validation.md");
    if std::fs::read_to_string(path).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(path, &text).unwrap();
    }
}

/// The bundled serving validation (what the Validation page shows) is what core computes
/// now, to `BUNDLED_DIGITS` significant digits.
#[test]
fn bundled_serving_validation_is_current() {
    use shardcalc_core::validation::bundled_serving::parse_bundled;
    let fresh = serving_validation(&serving_calibration::bundled());
    super::check_bundled(&fresh, "data/serving-validation.json", parse_bundled);
    assert_eq!(fresh.rows.len(), serving_runs::all().len());
}
