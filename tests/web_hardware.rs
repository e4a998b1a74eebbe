//! Component tests of the hardware & collectives page, run in headless Chromium by
//! wasm-bindgen-test-runner: `cargo test -p shardcalc --target wasm32-unknown-unknown --test
//! web_hardware`. Each test mounts the page in its own container and drives it the way a
//! person would (typing fires `input`, choosing fires `change`, buttons are clicked); the
//! expected numbers come from core or from the book.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use leptos::prelude::*;
use shardcalc::components::scene_canvas;
use shardcalc::views::hardware::HardwareView;
use shardcalc::views::View;
use shardcalc::App;
use shardcalc_charts::roofline_chart;
use shardcalc_core::dtype::DType;
use shardcalc_core::hardware::catalog;
use shardcalc_core::scenario::Sections;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{HtmlElement, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

mod support;
use support::{document, Page};

/// The hardware page, settled for three ticks after every action.
async fn open() -> Page {
    Page::mount(|| view! { <App url_sync=false sections=Sections::HARDWARE_QUESTIONS view=View::Hardware><HardwareView /></App> }.into_any(), 3).await
}

#[wasm_bindgen_test]
async fn defaults_reproduce_the_books_v5e_numbers() {
    let page = open().await;
    assert!(page.text("#spec-chip").starts_with("TPU v5e"), "{}", page.text("#spec-chip"));
    // The book's spec table value, with its other value (8.2e11) listed and the row marked.
    let hbm = page.text("#spec-hbm-bandwidth");
    assert!(hbm.contains("810.0 GB/s") && hbm.contains("820.0 GB/s"), "{hbm}");
    assert!(page.find::<HtmlElement>("#spec-hbm-bandwidth").class_name().contains("disagree"));
    assert!(page.text("#spec-disagreements").contains("Sources disagree"));
    // Book 1.1: critical intensity about 240 against HBM (1.97e14 / 8.1e11 = 243.2).
    assert!(page.text("#intensity-table").contains("243.2"));
    // Book 3.2 Pop Quiz 2: AllGather_Y of 34 MB on a v5e 8x4 without wraparound, ~560 µs.
    let row = page.text("#collective-result-0");
    assert!(row.contains("559 µs") && row.contains("bandwidth-bound"), "{row}");
    // The default matmul X[256, 8192] · W[8192, 32768] is just compute-bound (246.6 > 243.2).
    assert_eq!(page.text("#roofline-bound"), "compute");
    assert_eq!(page.text("#roofline-critical_batch_approx"), "243.2");
    // Both charts are drawn as SVG, and chapter 3's table is there.
    assert!(page.html("#chart-roofline").contains("attainable FLOP/s"));
    assert!(page.html("#chart-collective-times").contains("array size V"));
    assert!(page.text("#collective-summary-table").contains("AllGather / 4 for a bidirectional ring"));
}

#[wasm_bindgen_test]
async fn editing_the_op_changes_the_bound_and_the_chart() {
    let page = open().await;
    let before = page.html("#chart-roofline");
    page.type_into("#roofline-b", "128").await;
    assert_eq!(page.text("#roofline-bound"), "HBM bandwidth");
    assert_ne!(page.html("#chart-roofline"), before, "the roofline chart follows the op");
    // Book Exercise 1.2: int8 weights with bf16 compute are compute-bound above ~120.
    page.choose("#roofline-rhs", "int8").await;
    assert_eq!(page.text("#roofline-critical_batch_approx"), "121.6");
    // A raw op: 1e12 FLOPs over 1e10 HBM bytes is HBM-bound (intensity 100).
    page.choose("#roofline-kind", "op").await;
    page.type_into("#roofline-flops", "1e12").await;
    page.type_into("#roofline-hbm_bytes", "1e10").await;
    assert_eq!(page.text("#roofline-intensity"), "100.0");
    assert_eq!(page.text("#roofline-bound"), "HBM bandwidth");
    // Host bytes on a chip whose PCIe is known are fine; text that does not read is refused.
    page.type_into("#roofline-flops", "abc").await;
    assert!(page.text("#roofline-flops-error").contains("not a number"), "{}", page.text("#roofline-flops-error"));
    assert_eq!(page.text("#roofline-intensity"), "100.0", "the results keep the last valid op");
}

#[wasm_bindgen_test]
async fn another_chip_changes_the_spec_table_and_the_intensities() {
    let page = open().await;
    page.choose("#hw-chip", "tpu-v6e").await;
    assert!(page.text("#spec-chip").starts_with("TPU v6e (Trillium)"));
    // MaxText guide: Trillium's critical ICI intensity is about 5100 over 2 links.
    assert!(page.text("#intensity-table").contains("5,111"), "{}", page.text("#intensity-table"));
    page.choose("#hw-chip", "tpu-v7x").await;
    // Ironwood guide: one-dimensional intensity about 11,500; two chiplets.
    assert!(page.text("#intensity-table").contains("11,535"));
    assert!(page.exists("#hardware-topology-chiplets"));
    page.choose("#hardware-topology-chiplets", "chiplet").await;
    assert!(page.text("#topology-table").contains("d2d"), "{}", page.text("#topology-table"));
    page.choose("#hw-chip", "h100-sxm").await;
    assert!(page.text("#topology-table").contains("nvlink"));
    // NVLink carries NCCL's 0.6 µs per step (chips.json): the chart says where the floor ends.
    let caption = page.text("#chart-collective-times + figcaption");
    assert!(
        caption.contains("The latency floor (hops × per-hop latency) ends") && caption.contains("over nvlink"),
        "{caption}"
    );
}

#[wasm_bindgen_test]
async fn a_custom_chip_is_edited_field_by_field_with_messages() {
    let page = open().await;
    assert!(!page.exists("#chip-hbm-bandwidth"));
    // The bundled chip's citations (kept apart from its numbers in the build, joined on this
    // page only: `catalog::with_provenance`) are in the spec table, and a copy keeps them.
    let cited = |t: &str| t.contains("How to Scale Your Model") && t.contains("tpu_info.py");
    assert!(cited(&page.text("#spec-table")), "{}", page.text("#spec-table"));
    page.click("#chip-customize").await;
    assert!(cited(&page.text("#spec-table")), "{}", page.text("#spec-table"));
    let input: HtmlInputElement = page.find("#chip-hbm-bandwidth");
    assert_eq!(input.value(), "810");
    page.type_into("#chip-hbm-bandwidth", "1620").await;
    assert!(page.text("#intensity-table").contains("121.6"), "{}", page.text("#intensity-table"));
    assert!(page.text("#spec-hbm-bandwidth").contains("edited in shardcalc"));
    for bad in ["abc", "-3", "1e400", ""] {
        page.type_into("#chip-hbm-bandwidth", bad).await;
        let msg = page.text("#chip-hbm-bandwidth-error");
        assert!(!msg.is_empty(), "no message for {bad:?}");
        assert!(page.find::<HtmlElement>("#chip-hbm-bandwidth-field").class_name().contains("invalid"));
        assert!(page.text("#intensity-table").contains("121.6"), "the last valid chip stays after {bad:?}");
    }
    // Core's validation speaks at the field too: a rate below 1 B/s.
    page.type_into("#chip-hbm-bandwidth", "1e-12").await;
    assert!(
        page.text("#chip-hbm-bandwidth-error").contains("from 1 to 1e30"),
        "{}",
        page.text("#chip-hbm-bandwidth-error")
    );
    page.type_into("#chip-hbm-bandwidth", "1620").await;
    assert_eq!(page.text("#chip-hbm-bandwidth-error"), "");
    // A switch fabric turns the chip into a GPU-like one; the name is editable.
    page.type_into("#chip-name", "My chip").await;
    assert!(page.text("#spec-chip").starts_with("My chip"));
    page.choose("#chip-scale_up-fabric", "switch").await;
    assert!(page.text("#topology-table").contains("switch"), "{}", page.text("#topology-table"));
}

#[wasm_bindgen_test]
async fn topology_overrides_and_collectives() {
    let page = open().await;
    // Book 2.2: an axis of 8 on a v5e has no wraparound; forcing one is refused at the field.
    page.choose("#axis-0-wraparound", "on").await;
    assert!(
        page.text("#axis-0-wraparound-error").contains("full axis of 16"),
        "{}",
        page.text("#axis-0-wraparound-error")
    );
    // A full 16x16 wraps: the AllGather over y becomes a ring.
    page.type_into("#hw-shape", "16x16").await;
    assert!(page.text("#topology-table").contains("ring (wraparound)"));
    // A link override halves the bandwidth of y: the AllGather over y takes longer.
    let before = page.text("#collective-result-0");
    page.type_into("#axis-1-link_one_way", "22.5").await;
    assert_ne!(page.text("#collective-result-0"), before);
    page.type_into("#axis-1-link_one_way", "fast").await;
    assert!(page.text("#axis-1-link_one_way-error").contains("not a number"));
    // Add a collective, size it, turn it into an AllToAll, then remove it.
    page.click("#collective-add").await;
    assert!(page.exists("#collective-result-2"));
    page.type_into("#collective-2-array_bytes", "1GB").await;
    assert!(page.text("#collective-result-2").contains("1 GB"), "{}", page.text("#collective-result-2"));
    page.choose("#collective-2-kind", "all_to_all").await;
    assert!(page.text("#collective-result-2").contains("AllToAll"));
    page.type_into("#collective-2-array_bytes", "12 parsecs").await;
    assert!(!page.text("#collective-2-array_bytes-error").is_empty());
    // Unchecking the only axis is refused with a message.
    let only: HtmlInputElement = page.find("#collective-0-axes-x");
    assert!(!only.checked());
    page.click("#collective-0-axes-y").await;
    assert!(
        page.text("#collective-0-axes-error").contains("at least one axis"),
        "{}",
        page.text("#collective-0-axes-error")
    );
    page.click("#collective-2-remove").await;
    assert!(!page.exists("#collective-result-2"));
}

#[wasm_bindgen_test]
fn png_export_paints_the_scene() {
    let chip = catalog::get("tpu-v5e").expect("bundled chip");
    let scene = roofline_chart(&chip, None, DType::Bf16).scene();
    let canvas = scene_canvas(&scene).expect("a canvas");
    assert_eq!((canvas.width(), canvas.height()), (scene.width, scene.height));
    let url = canvas.to_data_url().expect("a data URL");
    assert!(url.starts_with("data:image/png;base64,"));
    // Not blank: a white canvas of the same size encodes much shorter.
    let blank = document().create_element("canvas").unwrap().unchecked_into::<web_sys::HtmlCanvasElement>();
    blank.set_width(scene.width);
    blank.set_height(scene.height);
    assert!(url.len() > 4 * blank.to_data_url().unwrap().len());
}

/// The page's defaults (the book's v5e 8×4, its collectives and roofline op) are shown, not
/// written: the link to another page carries the scenario as it came until the user edits.
#[wasm_bindgen_test]
async fn the_page_s_defaults_are_shown_not_written_until_an_edit() {
    let page = open().await;
    let shared = |page: &Page| {
        let href = page.attr("#nav-training", "href");
        let link = href.split_once("#s=").map(|(_, l)| l.to_string()).unwrap_or_default();
        shardcalc_core::permalink::decode(&link).expect("the link decodes")
    };
    assert!(page.text("#spec-chip").starts_with("TPU v5e"));
    assert_eq!(shared(&page), shardcalc_core::scenario::Scenario::default(), "nothing written by opening the page");
    page.type_into("#hw-shape", "4x4").await;
    let s = shared(&page);
    let hw = s.hardware.expect("an edit shares what the page shows");
    assert_eq!(hw.chip, shardcalc_core::hardware::query::ChipSource::Preset("tpu-v5e".into()));
    assert_eq!(hw.topology.map(|t| t.devices()), Some(16.0));
}

/// A link override that reads but overflows once scaled (1e300 GB/s is infinite bytes/s) is
/// refused at its input, not stored as infinity (which JSON writes as null, "absent").
#[wasm_bindgen_test]
async fn a_non_finite_link_override_is_refused_at_its_input() {
    let page = open().await;
    page.type_into("#axis-1-link_one_way", "22.5").await;
    let before = page.text("#topology-table");
    page.type_into("#axis-1-link_one_way", "1e300").await;
    let e = page.text("#axis-1-link_one_way-error");
    assert!(e.contains("too large"), "{e}");
    assert_eq!(page.text("#topology-table"), before, "the override stays at 22.5 GB/s");
    let href = page.attr("#nav-training", "href");
    let link = href.split_once("#s=").map(|(_, l)| l.to_string()).unwrap_or_default();
    let s = shardcalc_core::permalink::decode(&link).expect("the link decodes");
    let axis = s.hardware.and_then(|h| h.topology).map(|t| t.axes[1].link_one_way);
    assert_eq!(axis, Some(Some(shardcalc_core::units::BytesPerSec(22.5e9))));
}
