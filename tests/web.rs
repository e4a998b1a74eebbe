//! Component and canvas tests, run in headless Chromium by wasm-bindgen-test-runner:
//! `cargo test -p shardcalc --target wasm32-unknown-unknown` (see .cargo/config.toml).
#![cfg(target_arch = "wasm32")]

use shardcalc::{draw, App, INITIAL_SEQ_LEN};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{Event, EventInit, HtmlCanvasElement, HtmlElement, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

fn document() -> web_sys::Document {
    web_sys::window()
        .and_then(|w| w.document())
        .expect("a browser document")
}

/// A fresh `<div>` appended to `<body>`, so each test mounts into its own subtree.
fn fresh_container() -> HtmlElement {
    let doc = document();
    let div: HtmlElement = doc.create_element("div").unwrap().unchecked_into();
    doc.body().expect("a <body>").append_child(&div).unwrap();
    div
}

fn find<T: JsCast>(root: &HtmlElement, selector: &str) -> T {
    root.query_selector(selector)
        .unwrap()
        .unwrap_or_else(|| panic!("no element matches {selector}"))
        .unchecked_into()
}

/// Types a value into an input the way a person would, as far as Leptos can tell.
fn set_input(input: &HtmlInputElement, value: &str) {
    input.set_value(value);
    let init = EventInit::new();
    init.set_bubbles(true);
    let event = Event::new_with_event_init_dict("input", &init).unwrap();
    input.dispatch_event(&event).unwrap();
}

#[wasm_bindgen_test]
async fn app_shows_core_result_and_follows_the_input() {
    let container = fresh_container();
    leptos::mount::mount_to(container.clone(), App).forget();
    leptos::task::tick().await;

    let result: HtmlElement = find(&container, "#result");
    assert_eq!(
        result.text_content().unwrap(),
        shardcalc_core::placeholder_describe(INITIAL_SEQ_LEN)
    );

    let input: HtmlInputElement = find(&container, "#seq-len");
    set_input(&input, "8192");
    leptos::task::tick().await;
    assert_eq!(
        result.text_content().unwrap(),
        shardcalc_core::placeholder_describe(8192.0)
    );

    // Text that does not parse leaves the last good value in place.
    set_input(&input, "");
    leptos::task::tick().await;
    assert_eq!(
        result.text_content().unwrap(),
        shardcalc_core::placeholder_describe(8192.0)
    );
}

#[wasm_bindgen_test]
fn draw_paints_the_canvas() {
    let canvas: HtmlCanvasElement = document()
        .create_element("canvas")
        .unwrap()
        .unchecked_into();
    canvas.set_width(320);
    canvas.set_height(200);
    fresh_container().append_child(&canvas).unwrap();

    let blank = canvas.to_data_url().unwrap();
    draw(&canvas, 2048.0).expect("draw succeeds");
    assert_ne!(
        canvas.to_data_url().unwrap(),
        blank,
        "draw() left the canvas blank"
    );
}
