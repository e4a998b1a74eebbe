//! Issue 19's "done when": every run of the published CSV (`core/data/published-runs.csv`),
//! written as the MaxText command line its script ran (`fixtures/maxtext/published-runs.txt`),
//! imported as `shardcalc maxtext` imports it, gives back MaxText's own logged TFLOP/s per
//! device from the run's step time, in the conventions the CSV states:
//! `tflops_per_device_step_maxtext_now / step_time_s` in today's convention, and
//! `reported_tflops_per_device` (= `tflops_per_device_step_then / step_time_s`) in the one of
//! its day. Today's count is also checked against MaxText's formula written out here from its
//! source (`calculate_tflops_training_per_device`), so the test does not lean on core's FLOPs.
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use shardcalc_core::maxtext::log::StepLine;
use shardcalc_core::maxtext::log_file::{compare, ParsedLog};
use shardcalc_core::maxtext::{import_run, CommandLine, Configs, HardwareArgs, MaxTextRun};
use shardcalc_core::model::{Attention, MlpKind, ModelConfig};
use shardcalc_core::validation::convention::flops_per_device_step;
use shardcalc_core::validation::runs::{all, PublishedRun};
use shardcalc_core::validation::scenarios::run_scenario;
use shardcalc_core::validation::setups::bundled;
use shardcalc_core::validation::PredictionMode;
use std::path::PathBuf;

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/maxtext").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `== setup base` blocks of published-runs.txt: (setup, base fixture, script text).
fn blocks() -> Vec<(String, String, String)> {
    let text = fixture("published-runs.txt");
    let mut out: Vec<(String, String, String)> = Vec::new();
    for line in text.lines() {
        if let Some(head) = line.strip_prefix("== ") {
            let (setup, base) = head.split_once(' ').unwrap();
            out.push((setup.into(), base.into(), String::new()));
        } else if let Some((_, _, script)) = out.last_mut() {
            script.push_str(line);
            script.push('\n');
        }
    }
    out
}

/// A published run as `shardcalc maxtext` imports it.
fn import(run: &PublishedRun) -> MaxTextRun {
    let f = bundled();
    let (setup, slices) = f.setup_of(&run.id).unwrap();
    let (_, base, script) = blocks()
        .into_iter()
        .find(|(s, _, _)| *s == setup.id)
        .unwrap_or_else(|| panic!("no command line for {}", setup.id));
    let cmd = CommandLine::parse_text(&script).unwrap();
    assert_eq!(cmd.base_config.as_deref(), Some("MaxText/configs/base.yml"), "{}", run.id);
    let base_text = (base != "base.yml").then(|| fixture(&base));
    let chip = f.catalog_chip(&run.chip).unwrap();
    let shape = f.slice_shape(chip, run.chips / slices).unwrap();
    let hw = HardwareArgs {
        chip: Some(chip.into()),
        topology: Some(shape.iter().map(u64::to_string).collect::<Vec<_>>().join("x")),
        slices: Some(slices),
    };
    import_run(&cmd, base_text.as_deref(), &hw, Configs::available()).unwrap_or_else(|e| panic!("{}: {e}", run.id))
}

/// MaxText's `calculate_tflops_training_per_device` (utils/maxtext_utils.py at e591f30) for a
/// dense model of global attention layers, written out from its source.
fn maxtext_python_tflops(m: &ModelConfig, per_device_batch: f64, seq: f64, accumulation: f64) -> f64 {
    let Attention::Gqa(a) = &m.attention else { panic!("a GQA model") };
    let (b, t, d, f, v, l) =
        (per_device_batch, seq, m.d_model as f64, m.mlp.d_ff as f64, m.vocab_size as f64, m.num_layers as f64);
    let (nq, nkv, h) = (a.num_heads as f64, a.num_kv_heads as f64, a.head_dim as f64);
    let activations = if m.mlp.kind == MlpKind::Gated { 2.0 } else { 1.0 };
    // calculate_ffn_mamtul_tflops_per_device
    let ffn = 2.0 * b * t * f * d * activations + 2.0 * b * t * f * d;
    let qkv = 2.0 * b * t * d * (nq + 2.0 * nkv) * h;
    let causal_attention = 4.0 * b * t * t * nq * h / 2.0;
    let projection = 2.0 * b * t * d * nq * h;
    let embedding = 2.0 * b * t * d * v;
    let learnable = (ffn * l + (qkv + projection) * l + embedding) * 3.0 / 1e12;
    let attention = causal_attention * l * 3.0 / 1e12;
    (learnable + attention) * accumulation
}

#[test]
fn every_published_run_gives_back_maxtext_s_logged_tflops() {
    let runs = all();
    assert_eq!(runs.len(), 51);
    // The largest relative errors over the 51 runs, printed (`-- --nocapture`).
    let (mut max_now, mut max_then) = (0.0_f64, 0.0_f64);
    for run in runs {
        let imported = import(run);
        let s = &imported.scenario;
        let w = &s.workload;
        // The command line is the run the validation plans: mesh, batch, sequence, remat.
        let expected = run_scenario(run, PredictionMode::Calibrated).unwrap();
        let (t, e) = (s.training.as_ref().unwrap(), expected.training.as_ref().unwrap());
        assert_eq!(
            (t.mesh, t.sequences(), t.seq_len, t.remat.id()),
            (e.mesh, e.sequences(), e.seq_len, e.remat.id()),
            "{}",
            run.id
        );
        assert_eq!(
            (w.per_device_batch, w.seq_len, imported.devices),
            (run.per_device_batch, run.seq_len, run.chips),
            "{}",
            run.id
        );

        // Today's MaxText count, through the import, against the CSV and MaxText's formula.
        let report = shardcalc_core::report::evaluate_model(s).unwrap();
        let ours = report.flops.maxtext.total_tflops_per_device_step;
        let m = s.model.resolve().unwrap();
        let python = maxtext_python_tflops(&m, w.per_device_batch, w.seq_len as f64, w.grad_accum as f64);
        assert!((ours - python).abs() <= 1e-9 * python, "{}: {ours} vs MaxText's formula {python}", run.id);
        // The CSV gives one decimal.
        assert!(
            (ours - run.tflops_per_device_step_maxtext_now).abs() <= 0.05 + 1e-9,
            "{}: {ours} vs {}",
            run.id,
            run.tflops_per_device_step_maxtext_now
        );
        let line = StepLine::at(run.step_time_s, ours, report.flops.maxtext.tokens_per_device_step, 1.0);
        let logged_now = run.tflops_per_device_step_maxtext_now / run.step_time_s;
        let now_err = (line.tflops_per_s_per_device - logged_now).abs() / logged_now;
        max_now = max_now.max(now_err);
        assert!(now_err <= 1e-4, "{}", run.id);
        // Tokens/s per device: max_target_length × per_device_batch_size / seconds.
        let tokens = run.seq_len as f64 * run.per_device_batch / run.step_time_s;
        assert!((line.tokens_per_s_per_device - tokens).abs() <= 1e-9 * tokens, "{}", run.id);

        // The convention of its day gives back the TFLOP/s its README printed (the CSV's step
        // time is rounded to 10 ms, 1 ms for the A3 runs: 0.1% at most).
        let then = flops_per_device_step(&m, w, run.flops_convention_then) / 1e12;
        // The CSV's then-column differs from this count by up to 0.09 TFLOP (4·10⁻⁵ of it, in
        // the 2023 parameter count), a fraction of its own rounding of the step time.
        let then_err = (then - run.tflops_per_device_step_then).abs() / run.tflops_per_device_step_then;
        assert!(then_err <= 1e-4, "{}: {then} vs {}", run.id, run.tflops_per_device_step_then);
        let logged_then = then / run.step_time_s;
        let err = (logged_then - run.reported_tflops_per_device).abs() / run.reported_tflops_per_device;
        max_then = max_then.max(err);
        assert!(
            err < 1e-3,
            "{}: {logged_then} TFLOP/s vs the {} published ({:.3}%)",
            run.id,
            run.reported_tflops_per_device,
            100.0 * err
        );
    }
    eprintln!(
        "51 runs: TFLOP/s per device from the step time, largest error {:.2e} (today's convention), \
         {:.3}% (the published figure, the convention of its day)",
        max_now,
        100.0 * max_then
    );
}

#[test]
fn a_log_of_a_published_run_reads_back_as_measured() {
    // v5p 32B on one v5p-128: MaxText's line at the CSV's step time, read back, is this run.
    let run = all().iter().find(|r| r.id == "v5p-readme-32b-1xv5p-128").unwrap();
    let imported = import(run);
    let tflops = run.tflops_per_device_step_maxtext_now / run.step_time_s;
    let tokens = run.seq_len as f64 * run.per_device_batch / run.step_time_s;
    let text = format!(
        "completed step: 0, seconds: 61.000, TFLOP/s/device: 50.000, Tokens/s/device: 100.000, total_weights: 1, loss: 10.9\n\
         completed step: 1, seconds: {:.3}, TFLOP/s/device: {tflops:.3}, Tokens/s/device: {tokens:.3}, total_weights: 1, loss: 10.1\n",
        run.step_time_s
    );
    let out = shardcalc_core::maxtext::evaluate_run(&imported, Some(ParsedLog::parse(&text).unwrap())).unwrap();
    let cmp = out.maxtext_measured.unwrap();
    assert_eq!(cmp.measured.steps, [1]);
    assert!(cmp.notes.is_empty(), "the log's FLOPs per step are this run's: {:?}", cmp.notes);
    let step = cmp.terms.iter().find(|t| t.quantity == "seconds per step").unwrap();
    assert_eq!(step.measured, run.step_time_s);
    // A log of another batch is called out.
    let other = text.replace(&format!("{tflops:.3}"), &format!("{:.3}", tflops / 2.0));
    let log = out.maxtext_log.unwrap();
    let cmp = compare(ParsedLog::parse(&other).unwrap(), &log, &out.report.training.unwrap().breakdown).unwrap();
    assert_eq!(cmp.notes.len(), 1, "{:?}", cmp.notes);
}

#[test]
fn every_published_run_s_prediction_is_eval_s_for_its_printed_scenario() {
    // `shardcalc maxtext` prints its scenario; `shardcalc eval` reads that JSON back. For every
    // published setup (its first run: a search per run takes ~2 s in a debug build) the two
    // reports are the same, and the predicted log line is the plan's step.
    let mut seen = std::collections::BTreeSet::new();
    for run in all() {
        if !seen.insert(bundled().setup_of(&run.id).unwrap().0.id.clone()) {
            continue;
        }
        let imported = import(run);
        let out = shardcalc_core::maxtext::evaluate_run(&imported, None).unwrap();
        let printed = serde_json::to_string(&imported.scenario).unwrap();
        let read_back = shardcalc_core::scenario::Scenario::from_json(&printed).unwrap();
        let eval = shardcalc_core::report::evaluate(&read_back).unwrap();
        assert!(out.report == eval, "{}: maxtext's report differs from eval's", run.id);
        let (log, training) = (out.maxtext_log.unwrap(), eval.training.unwrap());
        assert_eq!(log.predicted.seconds, training.step_time_s.get(), "{}", run.id);
    }
    assert_eq!(seen.len(), blocks().len(), "every setup's command line checked");
}
