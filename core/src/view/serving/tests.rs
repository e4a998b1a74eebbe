use super::*;
use crate::inference::search::{DeploymentMode, SearchOptions};
use crate::inference::targets::ServingTargets;

#[test]
fn the_default_view_serves_the_book_s_workload_with_bands() {
    let s = Scenario::default();
    let eval = evaluate(&s).unwrap();
    assert_eq!(eval.plan.serving.batch, crate::inference::defaults::DEFAULT_BATCH);
    let b = eval.bands.unwrap();
    assert_eq!(b.decode_step_s.value, eval.plan.decode.step.step_time_s.get(), "ideal mode shows the roofline");
    assert!(b.decode_step_s.calibrated >= b.decode_step_s.ideal);
    assert_eq!(for_scenario(&s).unwrap(), None);
    let v = serde_json::to_value(evaluate(&s).unwrap()).unwrap();
    assert!(v["decode"]["step_time_s"].is_f64() && v["bands"]["decode_step_s"]["value"].is_f64());
    assert!(search_key(&s).is_none() && search(&s).unwrap().is_none(), "no search asked for");
}

/// LLaMA 3-8B at 10 requests per second under a 2 s p99 and a 50 ms TPOT, searched over a
/// TPU v5e and an H100 (`modes` as given).
fn searching(modes: Vec<DeploymentMode>) -> Scenario {
    let mut s = with_defaults(&Scenario::default());
    let i = s.inference.as_mut().unwrap();
    i.prompt_len = 2048;
    i.request_rate = Some(10.0);
    i.targets = ServingTargets { ttft_p50_s: None, ttft_p99_s: Some(2.0), tpot_s: Some(0.05) };
    i.search =
        Some(SearchOptions { chips: vec!["tpu-v5e".into(), "h100-sxm".into()], modes, ..SearchOptions::default() });
    s
}

/// The stages give what `evaluate` gives; the key ignores what the search does not read
/// (the batch, speculative decoding, the topology) and not what it does (the rate).
#[test]
fn the_search_stage_equals_the_whole_evaluation_and_its_key_ignores_the_batch() {
    let s = searching(Vec::new());
    let whole = evaluate(&s).unwrap();
    let found = search(&search_key(&s).unwrap()).unwrap().unwrap();
    assert_eq!(whole.plan.search.as_ref(), Some(&found));
    assert!(found.feasible > 0 && found.best.is_some(), "{}", found.explanation);
    let mut staged = plan(&s).unwrap();
    assert_eq!(staged.plan.search, None, "the plan stage never searches");
    staged.plan.search = Some(found);
    assert_eq!(staged, whole);

    let mut other = s.clone();
    let i = other.inference.as_mut().unwrap();
    i.batch = Some(7);
    i.speculative = Some(crate::inference::speculative::Speculative {
        draft_len: 4,
        acceptance: 0.8,
        draft: crate::inference::speculative::DraftCost::CostRatio(0.05),
    });
    crate::field::apply(&mut other, "hardware.topology", "2x2").unwrap();
    assert_eq!(search_key(&other), search_key(&s));
    crate::field::apply(&mut other, "inference.request_rate", "11").unwrap();
    assert_ne!(search_key(&other), search_key(&s));
}

/// The bands evaluate the other prediction mode without searching again: the same bands as
/// the scenario without its search.
#[test]
fn bands_do_not_depend_on_the_search() {
    let s = searching(Vec::new());
    let mut bare = s.clone();
    bare.inference.as_mut().unwrap().search = None;
    assert_eq!(plan(&s).unwrap().bands, plan(&bare).unwrap().bands);
}

/// Opening the cheapest co-located deployment: the scenario's own continuous-batching plan
/// at the request rate then needs the row's servers, on the row's chip and mesh, at the
/// row's cost.
#[test]
fn opening_a_colocated_row_reproduces_its_servers_and_cost() {
    let s = searching(vec![DeploymentMode::Colocated]);
    let report = search(&s).unwrap().unwrap();
    for row in report.ranked.iter().take(3) {
        let mut opened = s.clone();
        let caveats = open(&mut opened, row).unwrap();
        assert!(caveats.is_empty(), "{caveats:?}");
        let eval = plan(&opened).unwrap();
        let at = eval.plan.continuous_batching.at_request_rate.as_ref().unwrap();
        let d = at.deployment.as_ref().unwrap_or_else(|| panic!("{:?}", at.impossible));
        assert_eq!(d.servers, row.decode.servers, "{row:?}");
        assert_eq!(eval.plan.serving.topology, row.decode.topology);
        assert_eq!(d.chips_per_server, row.decode.chips_per_server);
        let cost = d.usd_per_hour.unwrap();
        assert!((cost - row.usd_per_hour).abs() <= 1e-9 * cost, "{cost} vs {}", row.usd_per_hour);
        assert_eq!(search_key(&opened), search_key(&s), "opening never changes what the search reads");
    }
}

/// Opening the cheapest disaggregated deployment: the scenario's own disaggregation at the
/// request rate is the row's "x prefill : y decode", at the row's cost.
#[test]
fn opening_a_disaggregated_row_reproduces_its_pools() {
    let s = searching(vec![DeploymentMode::Disaggregated]);
    let report = search(&s).unwrap().unwrap();
    assert!(!report.ranked.is_empty(), "{}", report.explanation);
    let mut exact = 0;
    for row in report.ranked.iter().take(3) {
        let mut opened = s.clone();
        let caveats = open(&mut opened, row).unwrap();
        let eval = plan(&opened).unwrap();
        let g = &eval.plan.disaggregation;
        let d = g.deployment.as_ref().unwrap_or_else(|| panic!("{:?}", g.impossible));
        if caveats.is_empty() {
            assert_eq!(Some(&d.ratio), row.ratio.as_ref(), "{row:?}");
            let cost = d.usd_per_hour.unwrap();
            assert!((cost - row.usd_per_hour).abs() <= 1e-9 * cost, "{cost} vs {}", row.usd_per_hour);
            assert!((d.ttft.p99_s - row.ttft_p99_s).abs() <= 1e-9 * row.ttft_p99_s);
            exact += 1;
        }
        let p = row.prefill.as_ref().unwrap();
        assert_eq!(
            (g.prefill_pool.chip.as_str(), g.prefill_pool.topology.as_str()),
            (p.chip.as_str(), p.topology.as_str())
        );
        assert_eq!(g.prefill_batch, p.batch.unwrap());
    }
    assert!(exact > 0, "no row opened exactly");
}

/// A row of a chip the catalog does not have is refused on `inference.search`, and the
/// scenario is left alone.
#[test]
fn an_unknown_chip_is_refused() {
    let s = searching(Vec::new());
    let mut row = search(&s).unwrap().unwrap().ranked[0].clone();
    row.decode.chip = "tpu-v99".into();
    let mut t = s.clone();
    let e = open(&mut t, &row).unwrap_err();
    assert_eq!(e.0[0].field, "inference.search");
    assert_eq!(t, s);
}
