//! The training view in headless Chromium (wasm-bindgen-test):
//! `cargo test -p shardcalc --target wasm32-unknown-unknown --test web_training`
//! (`--release` for the timings the README quotes: the shipped page's optimisation).
//!
//! Each test mounts the page in its own container (removed at the end) and drives it as a
//! person would: typing fires `input`, choosing fires `change`, buttons are clicked.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use leptos::prelude::*;
use shardcalc::views::training::TrainingView;
use shardcalc::views::View;
use shardcalc::App;
use shardcalc_charts::training::mesh_label;
use shardcalc_core::flops::FlopConvention;
use shardcalc_core::hardware::catalog;
use shardcalc_core::hardware::query::ResolvedHardware;
use shardcalc_core::hardware::topology::Topology;
use shardcalc_core::presets;
use shardcalc_core::scenario::Sections;
use shardcalc_core::training::plan;
use shardcalc_core::training::section::{GlobalBatch, TrainingSection};
use shardcalc_core::validation::calibration::section_for;
use shardcalc_core::validation::PredictionMode;
use shardcalc_core::view::training::StepAccount;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{HtmlCanvasElement, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

mod support;
use support::{document, Page};

/// The training page, settled for two ticks after every action (a change may rebuild the
/// form: an effect scheduled by the first tick).
async fn open() -> Page {
    Page::mount(
        || {
            view! { <App url_sync=false sections=Sections::TRAINING view=View::Training><TrainingView /></App> }
                .into_any()
        },
        2,
    )
    .await
}

/// The page's plan of `section` for `preset` on a v5p slice of `shape`, from core, in the
/// page's default prediction: the calibrated one (issue 16).
fn expected(preset: &str, shape: &[u64], section: &TrainingSection) -> shardcalc_core::training::TrainingReport {
    let chip = catalog::get("tpu-v5p").unwrap();
    let axes = Topology::tpu_slice(shape, 1).resolve(&chip).unwrap();
    let hw = ResolvedHardware { chip, axes };
    let section = section_for(section, &hw.chip, PredictionMode::Calibrated);
    plan(&presets::get(preset).unwrap().config, &hw, &section, FlopConvention::MaxText).unwrap()
}

#[wasm_bindgen_test]
async fn the_default_page_shows_core_s_plan_thresholds_and_charts() {
    let page = open().await;
    // Core's defaults: LLaMA 3 8B, 2^20 tokens of 4096 on a v5p 4×4×4, 15T tokens.
    let want = expected("llama-3-8b", &[4, 4, 4], &TrainingSection::default());
    assert_eq!(page.text("#training-mesh-value"), mesh_label(&want.mesh.degrees));
    assert!(page.text("#training-days-value").ends_with(" days"), "{}", page.text("#training-days-value"));
    assert_eq!(page.text("#training-binding"), want.thresholds.explanation);
    assert_eq!(page.text("#training-bound-detail"), want.bound.explanation);
    let stats = page.text("#training-search-stats");
    assert!(stats.contains(&shardcalc_charts::format::thousands(want.search.as_ref().unwrap().evaluated)), "{stats}");
    // Ten ranked rows, each explorable; the first is the best.
    assert!(page.exists("#training-ranked-explore-9") && !page.exists("#training-ranked-explore-10"));
    // Each chart drawn once on its canvas, at the size and with the title of the catalog's
    // chart of the same name (what "Download SVG" and `shardcalc chart` draw).
    for id in ["training-step", "training-memory", "training-mfu", "training-pareto"] {
        let canvas: HtmlCanvasElement = page.find(&format!("#chart-{id}"));
        assert_eq!(page.attr(&format!("#chart-{id}"), "data-draws"), "1", "{id}");
        let chart = shardcalc_charts::catalog::build(id, &shardcalc_core::scenario::Scenario::default()).unwrap();
        assert_eq!((canvas.width(), canvas.height()), chart.size(), "{id}");
        assert_eq!(page.attr(&format!("#chart-{id}"), "aria-label"), chart.title(), "{id}");
    }
    assert!(!page.exists("#training-conflicts"));
}

#[wasm_bindgen_test]
async fn editing_the_batch_and_the_topology_replans_and_redraws() {
    let page = open().await;
    let step_before = page.text("#training-step-time-value");
    let drawn_before = page.find::<HtmlCanvasElement>("#chart-training-step").to_data_url().unwrap();
    page.type_into("#training-global_batch", "4194304").await;
    let s = TrainingSection { global_batch: GlobalBatch::Tokens(4_194_304.0), ..TrainingSection::default() };
    let want = expected("llama-3-8b", &[4, 4, 4], &s);
    assert_eq!(page.text("#training-mesh-value"), mesh_label(&want.mesh.degrees));
    assert_ne!(page.text("#training-step-time-value"), step_before);
    assert_ne!(page.find::<HtmlCanvasElement>("#chart-training-step").to_data_url().unwrap(), drawn_before);
    assert_eq!(page.attr("#chart-training-step", "data-draws"), "2");
    // A bigger slice: 512 chips.
    page.type_into("#hw-shape", "8x8x8").await;
    let want = expected("llama-3-8b", &[8, 8, 8], &s);
    assert_eq!(page.text("#training-mesh-value"), mesh_label(&want.mesh.degrees));
    assert_eq!(page.text("#training-binding"), want.thresholds.explanation);
    // The batch in sequences: the same 1,024 sequences, the same plan.
    page.choose("#training-global_batch-unit", "sequences").await;
    assert_eq!(page.find::<HtmlInputElement>("#training-global_batch").value(), "1024");
    assert_eq!(page.text("#training-mesh-value"), mesh_label(&want.mesh.degrees));
}

#[wasm_bindgen_test]
async fn invalid_text_is_explained_at_its_field_and_the_page_lives() {
    let page = open().await;
    let before = page.text("#training-step-time-value");
    for (bad, says) in [
        ("abc", "is not a number"),
        ("-4", "must not be negative"),
        ("0", "must be at least 1"),
        ("1e400", "too large"),
    ] {
        page.type_into("#training-seq_len", bad).await;
        let error = page.text("#training-seq_len-error");
        assert!(error.contains("training.seq_len") && error.contains(says), "{bad}: {error}");
        assert_eq!(page.find::<HtmlInputElement>("#training-seq_len").value(), bad, "the text stays");
        assert_eq!(page.text("#training-step-time-value"), before, "the plan stays");
    }
    page.type_into("#training-token_budget", "lots").await;
    assert!(page.text("#training-token_budget-error").contains("training.token_budget"));
    // The page still answers.
    page.type_into("#training-seq_len", "8192").await;
    assert_eq!(page.text("#training-seq_len-error"), "");
    assert_ne!(page.text("#training-step-time-value"), before);
}

#[wasm_bindgen_test]
async fn an_explored_mesh_that_conflicts_says_with_what_and_how_to_fix_it() {
    let page = open().await;
    page.click("#training-explore-start").await;
    let best = page.text("#training-mesh-value");
    assert!(page.exists("#training-mesh-tp"));
    assert!(page.text("#training-compare").contains(&format!("yours: {best}")));
    // TP 3 on 64 chips: the product is wrong and 3 divides neither 32 heads nor F. (The
    // best may be any mesh: DP 64 with ZeRO-1 since the search tries ZeRO stages.)
    page.type_into("#training-mesh-dp", "1").await;
    page.type_into("#training-mesh-fsdp", "16").await;
    page.type_into("#training-mesh-tp", "3").await;
    let conflict = page.text("#training-explore-conflict");
    assert!(conflict.contains("hardware.topology") && conflict.contains("64 devices"), "{conflict}");
    assert!(page.exists("#training-conflicts"));
    assert!(page.text("#training-explored-error").contains("cannot be planned"));
    // Multiply to 64 with TP 3 still wrong: now the message is at TP, naming the heads.
    page.type_into("#hw-shape", "4x4x6").await;
    page.type_into("#training-mesh-fsdp", "32").await;
    let tp = page.text("#training-mesh-tp-conflict");
    assert!(tp.contains("model.attention.num_heads") && tp.contains("tp = 1, 2"), "{tp}");
    // Fixed: TP 4 and FSDP takes the rest, one microbatch (the best's count need not
    // divide the 11 sequences of a shard of 24).
    page.type_into("#training-mesh-tp", "4").await;
    page.click("#training-mesh-fill").await;
    page.type_into("#training-microbatches", "1").await;
    assert_eq!(page.find::<HtmlInputElement>("#training-mesh-fsdp").value(), "24");
    assert!(!page.exists("#training-conflicts"), "{}", page.text("#training-conflicts"));
    assert!(page.text("#training-compare").contains("yours: fsdp 24 × tp 4"));
    page.click("#training-explore-stop").await;
    assert!(page.exists("#training-explore-start"));
}

#[wasm_bindgen_test]
async fn the_training_state_and_remat_change_the_memory() {
    let page = open().await;
    page.click("#training-explore-start").await;
    let memory = page.text("#training-compare");
    page.choose("#training-optimizer", "adam_master").await;
    assert_ne!(page.text("#training-compare"), memory, "fp32 master weights add memory");
    page.choose("#training-remat", "custom").await;
    assert!(page.exists("#training-remat-custom"));
    page.choose("#training-remat-query_proj", "device").await;
    assert!(page.text("#training-compare").contains("custom"));
    // Unticking every policy the search tries is refused at the field.
    for id in [
        "none",
        "minimal_with_context",
        "minimal",
        "save_dot_with_context_except_mlp",
        "save_dot_except_mlpwi",
        "save_dot_except_mlp",
        "save_qkv_proj",
        "qkv_proj_offloaded",
        "save_out_proj",
        "minimal_offloaded",
    ] {
        page.click(&format!("#training-search-remat-{id}")).await;
    }
    assert_eq!(page.text("#training-search-remat-full-error"), "");
    page.click("#training-search-remat-full").await;
    assert!(page.text("#training-search-remat-full-error").contains("training.search.remat"));
}

/// The reference search (LLaMA-3-70B, 4M tokens of 4096, a 16×20×28 TPU v5p pod,
/// calibrated as the page runs it) timed with `performance.now()`, alone and as the page
/// does it on an input change: measurements printed, not assertions on time (the release
/// build's figures come from `bench-browser`, docs/browser-bench.md).
#[wasm_bindgen_test]
async fn the_reference_search_is_timed_in_the_browser() {
    let model = presets::get("llama-3-70b").expect("preset").config;
    let chip = catalog::get("tpu-v5p").expect("chip");
    let axes = Topology::tpu_slice(&[16, 20, 28], 1).resolve(&chip).expect("topology");
    let hw = ResolvedHardware { chip, axes };
    let written = TrainingSection::new(GlobalBatch::Tokens(4_194_304.0), 4096);
    let section = section_for(&written, &hw.chip, PredictionMode::Calibrated);
    let perf = web_sys::window().expect("window").performance().expect("performance");
    let summary = |mut t: Vec<f64>| {
        t.sort_by(f64::total_cmp);
        let p95 = t[(t.len() * 95).div_ceil(100) - 1];
        format!("median {:.1} ms, p95 {p95:.1} ms, min {:.1} ms over {} runs", t[t.len() / 2], t[0], t.len())
    };
    let mut times = Vec::new();
    let mut evaluated = 0;
    for _ in 0..30 {
        let t0 = perf.now();
        let r = plan(&model, &hw, &section, FlopConvention::MaxText).expect("plans");
        times.push(perf.now() - t0);
        evaluated = r.search.map_or(0, |s| s.evaluated);
    }
    wasm_bindgen_test::console_log!(
        "training search, llama-3-70b on v5p 16x20x28, 4M tokens: {evaluated} configurations; {}",
        summary(times)
    );
    assert!(evaluated > 0);

    // The page on the same case: a batch typed in, until every output and chart is updated.
    let page = open().await;
    page.choose("#preset", "llama-3-70b").await;
    page.type_into("#hw-shape", "16x20x28").await;
    let mut times = Vec::new();
    for i in 0..12 {
        let batch = if i % 2 == 0 { "4194304" } else { "8388608" };
        let t0 = perf.now();
        page.type_into("#training-global_batch", batch).await;
        times.push(perf.now() - t0);
    }
    let best = page.text("#training-mesh-value");
    wasm_bindgen_test::console_log!(
        "training page, batch typed on that case -> every output and chart updated: {}; best {best}",
        summary(times)
    );
    assert!(!best.is_empty());
}

/// Issue 16: the headline is the calibrated prediction, with the ideal roofline beside it as
/// the bound (`#<id>-roofline`); issue 8: step time, throughput, MFU, days and cost carry
/// their band: the calibrated value as the headline writes it, its p10–p90 range over the
/// held-back runs around it, the roofline, and the dominant term. The switch shows the
/// roofline itself, and back.
#[wasm_bindgen_test]
async fn the_headline_is_calibrated_with_the_roofline_beside_it_and_bands_that_follow_the_switch() {
    use shardcalc::views::training::headline::seconds;
    use shardcalc_charts::format::{grouped, significant};
    use shardcalc_core::validation::bands::training_bands_of;
    let page = open().await;
    let section = TrainingSection::default();
    let chip = catalog::get("tpu-v5p").unwrap();
    let hw = ResolvedHardware { axes: Topology::tpu_slice(&[4, 4, 4], 1).resolve(&chip).unwrap(), chip };
    let m = presets::get("llama-3-8b").unwrap().config;
    let bands = |mode: PredictionMode| {
        let shown = plan(&m, &hw, &section_for(&section, &hw.chip, mode), FlopConvention::MaxText).unwrap();
        (training_bands_of(&m, &hw, &section, FlopConvention::MaxText, mode, &shown).unwrap(), shown)
    };
    assert!(page.find::<HtmlInputElement>("#prediction-calibrated").checked(), "calibrated by default");
    let (b, shown) = bands(PredictionMode::Calibrated);
    let value = page.text("#training-step-time-value");
    assert_eq!(value, seconds(shown.step_time_s.get()));
    assert_eq!(value, seconds(b.step_time_s.calibrated), "the headline is the calibrated value");
    // The roofline beside each number the calibration moves: below the step time and the
    // days and cost, above the throughput and MFU.
    let r = &shown.roofline;
    assert!(r.step_time_s.get() < shown.step_time_s.get() && r.mfu > shown.mfu);
    let account = StepAccount::of(&shown);
    let bound = |x: String| format!("roofline {x}: the bound no run beats");
    for (id, want) in [
        ("training-step-time", seconds(r.step_time_s.get())),
        ("training-tokens-per-s", format!("{} tokens/s", grouped(r.tokens_per_s, 0))),
        ("training-mfu", format!("{}%", significant(100.0 * r.mfu, 3))),
        ("training-days", format!("{} days", significant(account.roofline_days.unwrap(), 3))),
        ("training-cost", format!("${}", shardcalc_charts::format::short_count(account.roofline_cost_usd.unwrap()))),
    ] {
        assert_eq!(page.text(&format!("#{id}-roofline")), bound(want), "{id}");
        let t = page.text(&format!("#{id}-band"));
        assert!(
            t.starts_with("calibrated ") && t.contains("p10–p90 of held-back runs") && t.contains("dominant: "),
            "{id}: {t}"
        );
    }
    assert!(!page.exists("#training-mesh-roofline") && !page.exists("#training-memory-band"));
    let text = page.text("#training-step-time-band");
    assert!(
        text.starts_with(&format!("calibrated {value} ("))
            && text.contains(&format!("; roofline {};", seconds(b.step_time_s.ideal))),
        "{text}"
    );
    let (lo, hi) = b.step_time_s.spread.unwrap();
    assert!(lo < b.step_time_s.calibrated && b.step_time_s.calibrated < hi);

    // The roofline itself: its own search, and the card says it is the bound.
    page.click("#prediction-ideal").await;
    let (b, shown) = bands(PredictionMode::Ideal);
    assert_eq!(page.text("#training-step-time-value"), seconds(shown.step_time_s.get()));
    assert_eq!(page.text("#training-step-time-roofline"), "the ideal roofline, the bound no run beats");
    let st = &b.step_time_s;
    let (lo, hi) = st.spread.unwrap();
    assert_eq!(
        page.text("#training-step-time-band"),
        format!(
            "calibrated {} ({}–{}, p10–p90 of held-back runs); roofline {} shown; dominant: {}",
            seconds(st.calibrated),
            seconds(lo),
            seconds(hi),
            seconds(st.ideal),
            st.dominant.label()
        )
    );
    page.click("#prediction-calibrated").await;
    assert_eq!(page.text("#training-step-time-value"), value);
}

/// Issue 16: where the step goes, as core's account says it (`StepAccount`): the sentence
/// citing each term's source, the table of every term with its exact seconds, what it
/// counts and its source, the chart of every term, and the explored mesh's terms beside.
#[wasm_bindgen_test]
async fn where_the_step_goes_lists_every_term_with_its_source() {
    use shardcalc::views::training::headline::seconds;
    let page = open().await;
    let want = expected("llama-3-8b", &[4, 4, 4], &TrainingSection::default());
    let account = StepAccount::of(&want);
    assert_eq!(page.text("#training-step-explanation"), account.explanation);
    let table = page.text("#training-step-terms");
    let taking_time: Vec<_> = account.terms.iter().filter(|t| t.seconds > 0.0).collect();
    assert!(taking_time.len() >= 5, "matmuls, attention, elementwise, loss, optimizer at least: {taking_time:?}");
    for t in &taking_time {
        for part in [&t.label, &t.counts, &t.source, &seconds(t.seconds)] {
            assert!(table.contains(part.as_str()), "{}: {part} not in {table}", t.key);
        }
    }
    assert!(table.contains("= step time") && table.contains(&seconds(want.step_time_s.get())));
    assert!(table.contains("roofline (the bound)") && table.contains(&seconds(want.roofline.step_time_s.get())));
    assert_eq!(page.attr("#chart-training-step", "data-draws"), "1");
    // A mesh of one's own: its column and its chart bars beside the best's.
    page.click("#training-explore-start").await;
    page.type_into("#training-mesh-dp", "1").await;
    page.type_into("#training-mesh-fsdp", "16").await;
    page.type_into("#training-mesh-tp", "4").await;
    let table = page.text("#training-step-terms");
    assert!(table.contains("yours: fsdp 16 × tp 4") && table.contains("TP comms exposed"), "{table}");
    assert!(page.draws("#chart-training-step") >= 2);
}

/// Issue 16's new inputs are fields: the search's ZeRO stages, schedules and virtual stages,
/// the HBM kept free, the MoE kernel and the overlap fraction; the search's rules and skips
/// are shown; ranked rows carry their ZeRO stage and schedule, and "Explore" takes them into
/// the explored mesh's own fields; one layer's working set is a table.
#[wasm_bindgen_test]
async fn the_search_s_choices_are_fields_and_its_rules_and_rows_show_them() {
    let page = open().await;
    let want = expected("llama-3-8b", &[4, 4, 4], &TrainingSection::default());
    let search = want.search.as_ref().unwrap();
    let rules = page.text("#training-search-constraints");
    for c in &search.constraints {
        assert!(rules.contains(c.as_str()), "{c}");
    }
    let skipped = page.text("#training-search-skipped");
    assert!(skipped.contains(&shardcalc_charts::format::thousands(search.skipped.identical)), "{skipped}");
    let ranked = page.text("#training-ranked");
    assert!(ranked.contains("ZeRO") && ranked.contains("Schedule"), "{ranked}");
    // One layer's working set, in the comparison (GB per device, from core's `memory.layer`).
    let compare = page.text("#training-compare");
    let weights =
        format!("{} GB", shardcalc_charts::format::significant(want.memory.layer.weights_bytes.get() / 1e9, 3));
    assert!(
        compare.contains("one layer's gathered weights (FSDP)") && compare.contains(&weights),
        "{weights}: {compare}"
    );

    // Only ZeRO-3, then none (refused at the field, naming the list).
    for z in ["0", "1", "2"] {
        page.click(&format!("#training-search-zero_stages-{z}")).await;
    }
    assert!(page.text("#training-search-constraints").contains("ZeRO stages 3 (search.zero_stages)"));
    page.click("#training-search-zero_stages-3").await;
    assert!(page.text("#training-search-zero_stages-3-error").contains("training.search.zero_stages"));
    page.click("#training-search-zero_stages-3").await;
    assert_eq!(page.text("#training-search-zero_stages-3-error"), "");
    page.click("#training-search-schedules-gpipe").await;
    page.type_into("#training-search-max_virtual_stages", "4").await;
    let rules = page.text("#training-search-constraints");
    assert!(rules.contains("schedules one_f_one_b, interleaved, gpipe") && rules.contains("v from 2 to 4"), "{rules}");
    page.type_into("#training-reserved_hbm_fraction", "0.5").await;
    assert!(page.text("#training-search-constraints").contains("reserved_hbm_fraction 0.5"));
    page.type_into("#training-reserved_hbm_fraction", "1").await;
    assert!(page.text("#training-reserved_hbm_fraction-error").contains("training.reserved_hbm_fraction"));
    page.type_into("#training-reserved_hbm_fraction", "0.05").await;
    page.choose("#training-moe_kernel", "padded").await;
    assert_eq!(page.text("#training-moe_kernel-error"), "");
    let step = page.text("#training-step-time-value");
    page.type_into("#training-efficiency-overlap", "0").await;
    assert_ne!(page.text("#training-step-time-value"), step, "no overlap: every collective serialised");

    // The explored mesh's ZeRO stage and schedule: fields only while a mesh is explored,
    // set from the ranked row explored.
    assert!(!page.exists("#training-zero_stage") && !page.exists("#training-pipeline-schedule"));
    let rows = page.text("#training-search-stats");
    assert!(rows.contains("configurations timed"), "{rows}");
    page.click("#training-ranked-explore-0").await;
    assert!(page.exists("#training-zero_stage") && page.exists("#training-pipeline-schedule"));
    let shown = page.find::<web_sys::HtmlSelectElement>("#training-zero_stage").value();
    assert!(["0", "1", "2", "3"].contains(&shown.as_str()), "{shown}");
    assert!(!page.exists("#training-pipeline-virtual_stages") || page.exists("#training-pipeline-schedule"));
}

/// The Ironwood fields (SparseCore offload) render through the field groups where the chip
/// has SparseCores: off by default on a v5p, on by default on TPU7x; absent on a GPU.
#[wasm_bindgen_test]
async fn ironwood_s_sparse_core_field_shows_where_the_chip_has_sparse_cores() {
    let page = open().await;
    let offload = "#training-overlap-sparse_core";
    assert!(page.exists(offload) && !page.find::<HtmlInputElement>(offload).checked(), "a v5p: off by default");
    page.choose("#hw-chip", "tpu-v7x").await;
    assert!(page.find::<HtmlInputElement>(offload).checked(), "TPU7x's default");
    page.choose("#hw-chip", "h100-sxm").await;
    assert!(!page.exists(offload));
}

/// The form is HTML text with one handler (docs/size.md, "Training form, session 14"): a
/// refused text marks its field invalid (class and `aria-invalid`) until it reads; a
/// checkbox and a drop-down reach the plan; the summary's buttons focus the field (or group) they name;
/// the explored mesh's box follows the problems; the custom remat editor
/// comes and goes with the policy.
#[wasm_bindgen_test]
async fn the_form_s_one_handler_validates_writes_and_points_at_fields() {
    let page = open().await;
    // A refused value: message, invalid field, the text kept; then fixed.
    page.type_into("#training-global_batch", "1e999").await;
    assert!(
        page.text("#training-global_batch-error").contains("training.global_batch"),
        "{}",
        page.text("#training-global_batch-error")
    );
    assert_eq!(page.attr("#training-global_batch", "aria-invalid"), "true");
    assert!(page.exists(".field.invalid #training-global_batch"));
    assert_eq!(page.find::<HtmlInputElement>("#training-global_batch").value(), "1e999");
    page.type_into("#training-global_batch", "2097152").await;
    assert_eq!(page.text("#training-global_batch-error"), "");
    assert_eq!(page.attr("#training-global_batch", "aria-invalid"), "false");
    assert!(!page.exists(".field.invalid #training-global_batch"));
    let s = TrainingSection { global_batch: GlobalBatch::Tokens(2_097_152.0), ..TrainingSection::default() };
    assert_eq!(page.text("#training-mesh-value"), mesh_label(&expected("llama-3-8b", &[4, 4, 4], &s).mesh.degrees));

    // A checkbox reaches the plan: gradients that occupy HBM add memory.
    let memory = page.text("#training-memory-value");
    assert!(page.find::<HtmlInputElement>("#training-store_gradients").checked());
    page.click("#training-store_gradients").await;
    assert_ne!(page.text("#training-memory-value"), memory);
    assert_eq!(page.text("#training-store_gradients-error"), "");

    // A mesh that does not multiply to the chips: the summary names it and its button
    // focuses the field; a slice the mesh does not fit shows under the topology too.
    page.click("#training-explore-start").await;
    page.type_into("#training-mesh-tp", "3").await;
    assert!(page.exists("#training-conflicts"));
    let button = page.find::<web_sys::HtmlElement>("#training-conflicts button[data-focus]");
    let target = button.get_attribute("data-focus").unwrap();
    button.click();
    page.settle().await;
    let focused = document().active_element().expect("a focused element");
    assert!(
        page.find::<web_sys::Element>(&format!("#{target}")).contains(Some(&focused)),
        "{target}: {}",
        focused.id()
    );
    assert_eq!(focused.tag_name(), "INPUT");
    assert!(
        page.text("#training-explore-conflict").contains("64 devices"),
        "{}",
        page.text("#training-explore-conflict")
    );
    page.type_into("#training-mesh-tp", "1").await;
    assert!(!page.exists("#training-conflicts"), "{}", page.text("#training-conflicts"));
    assert_eq!(page.text("#training-explore-conflict"), "");
    // The topology's box (planning problems of `hardware.topology`) is under the picker.
    assert!(page.exists("#hw-shape-conflict"));

    // The custom editor shows for a custom policy only; a preset keeps the choice.
    page.choose("#training-remat", "custom").await;
    assert!(page.exists("#training-remat-custom"));
    page.choose("#training-remat", "full").await;
    assert!(!page.exists("#training-remat-custom"));
    assert_eq!(page.find::<web_sys::HtmlSelectElement>("#training-remat").value(), "full");
}
