//! The bands of headline numbers (step 3 of issue 8).

use shardcalc_core::scenario::training_report;
use shardcalc_core::scenario::Scenario;
use shardcalc_core::validation::bands::{serving_bands, training_bands, BandTerm};
use shardcalc_core::validation::scenarios::run_scenario;
use shardcalc_core::validation::{runs, PredictionMode};

fn bands_of(
    s: &Scenario,
) -> (shardcalc_core::training::TrainingReport, shardcalc_core::validation::bands::TrainingBands) {
    let m = s.validate().unwrap();
    let hw = s.validate_hardware().unwrap();
    let shown = training_report(&m, hw.as_ref(), s).unwrap().unwrap();
    let b = training_bands(&m, hw.as_ref().unwrap(), s, &shown).unwrap();
    (shown, b)
}

/// The band spans the roofline, the calibrated value and its residual range; the value
/// shown follows the mode; MFU's band is step time's, inverted.
#[test]
fn training_band_spans_ideal_and_calibrated() {
    let run = runs::get("v5e-readme-64b-32xv5e-256").unwrap();
    for mode in PredictionMode::ALL {
        let s = run_scenario(run, mode).unwrap();
        let (shown, b) = bands_of(&s);
        let st = &b.step_time_s;
        assert!(
            (st.value - shown.step_time_s.get()).abs() < 1e-9 * st.value,
            "{mode:?}: the band is about the number shown"
        );
        assert!(st.ideal < st.calibrated && st.low <= st.ideal && st.high >= st.calibrated, "{st:?}");
        assert_eq!(
            st.dominant,
            BandTerm::Matmul,
            "the sustained matmul fraction moves the step most: {:?}",
            st.contributions
        );
        assert!(b.mfu.low <= b.mfu.value && b.mfu.value <= b.mfu.high);
        // The residual spread is the calibrated value's, inside the envelope, in each
        // number's own direction (MFU falls as the step grows).
        let (lo, hi) = st.spread.unwrap();
        assert!(st.low <= lo && lo < st.calibrated && st.calibrated < hi && hi <= st.high, "{st:?}");
        let (lo, hi) = b.mfu.spread.unwrap();
        assert!(b.mfu.low <= lo && lo < b.mfu.calibrated && b.mfu.calibrated < hi && hi <= b.mfu.high, "{:?}", b.mfu);
        assert!(
            (b.mfu.ideal * st.ideal - b.mfu.calibrated * st.calibrated).abs() < 1e-9,
            "MFU × step time is constant"
        );
        assert!(b.days.is_none());
    }
}

/// What the band claims, checked against the measurements: the measured step time of
/// at least three quarters of the published runs lies inside its band.
#[test]
fn measured_step_times_fall_inside_their_bands() {
    let mut inside = 0;
    for r in runs::all() {
        let (_, b) = bands_of(&run_scenario(r, PredictionMode::Calibrated).unwrap());
        for band in [&b.step_time_s, &b.mfu, &b.tokens_per_s] {
            let all = [band.value, band.ideal, band.calibrated, band.low, band.high];
            assert!(all.iter().all(|x| x.is_finite() && *x > 0.0), "{}: {band:?}", r.id);
            assert!(band.low <= band.value && band.value <= band.high, "{}: {band:?}", r.id);
        }
        if (b.step_time_s.low..=b.step_time_s.high).contains(&r.step_time_s) {
            inside += 1;
        }
    }
    let n = runs::all().len();
    eprintln!("{inside} of {n} measured step times inside their bands");
    assert!(inside * 4 >= n * 3, "{inside} of {n} measured step times inside their bands");
}

/// A searched plan is banded on the mesh the search picked; the dominant term changes
/// with the bottleneck: on a many-slice run with little compute per chip, DCN.
#[test]
fn searched_plans_and_dcn_bound_runs() {
    let mut s = run_scenario(runs::get("a3-16vm-llama2-7b").unwrap(), PredictionMode::Calibrated).unwrap();
    let (_, b) = bands_of(&s);
    assert!(b.step_time_s.contributions.iter().any(|(t, d)| *t == BandTerm::ScaleOut && *d > 0.0));
    s.training.as_mut().unwrap().mesh = None;
    s.training.as_mut().unwrap().token_budget = Some(1e12);
    let (shown, b) = bands_of(&s);
    assert!((b.step_time_s.value - shown.step_time_s.get()).abs() < 1e-9 * b.step_time_s.value);
    let days = b.days.unwrap();
    assert!(days.low <= days.value && days.value <= days.high && days.ideal < days.calibrated);
}

/// Serving: the calibrated evaluation derates HBM bandwidth and peak FLOP/s by serving's
/// fitted fractions, so a weight-loading-bound decode step widens by the HBM fraction and
/// says HBM binds; TTFT of a long prompt is compute-bound and widens by the matmul
/// fraction.
#[test]
fn serving_band_names_hbm_when_loading_binds() {
    let json = r#"{"model":{"preset":"llama-3-8b"},"workload":{"per_device_batch":1,"seq_len":4096},
        "hardware":{"chip":{"preset":"tpu-v5e"},"topology":{"axes":[{"name":"x","size":2},{"name":"y","size":2}]}},
        "inference":{"prompt_len":8192,"output_len":256,"batch":1}}"#;
    let mut s = Scenario::from_json(json).unwrap();
    let m = s.validate().unwrap();
    let b = serving_bands(&m, &s).unwrap().unwrap();
    assert_eq!(b.decode_step_s.dominant, BandTerm::Hbm, "{:?}", b.decode_step_s);
    let hbm = shardcalc_core::efficiency::serving::bundled().hbm;
    let step = b.decode_step_s.calibrated / b.decode_step_s.ideal;
    assert!(hbm < 1.0 && (step * hbm - 1.0).abs() <= 1e-3, "{step} vs 1 / {hbm}");
    assert_eq!(b.ttft_s.dominant, BandTerm::Matmul);
    assert!(b.decode_step_s.spread.is_none(), "serving bands carry no residual spread (yet)");
    // The catalog prices the v5e: cost per million generated tokens moves against throughput.
    let cost = b.decode_usd_per_million_tokens.as_ref().unwrap();
    let tps = &b.tokens_per_s_per_chip;
    assert!(
        (cost.calibrated * tps.calibrated - cost.ideal * tps.ideal).abs() <= 1e-9 * cost.ideal * tps.ideal,
        "{cost:?} {tps:?}"
    );
    let ratio = b.ttft_s.calibrated / b.ttft_s.ideal;
    let matmul = shardcalc_core::efficiency::serving::bundled().matmul;
    assert!(ratio > 1.0 && ratio <= 1.0 / matmul + 1e-9, "{ratio}");
    // The calibrated mode's serving report is the derated one.
    s.conventions.prediction = PredictionMode::Calibrated;
    let r = shardcalc_core::scenario::inference_report(&m, &s).unwrap().unwrap();
    assert!((r.prefill.ttft_s.get() - b.ttft_s.calibrated).abs() < 1e-12);
}
