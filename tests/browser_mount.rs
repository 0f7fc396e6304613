//! Browser test: the playground mounts in headless Chromium and shows its shell.
#![cfg(target_arch = "wasm32")]
// Test code: clippy's allow-*-in-tests settings do not see `#[wasm_bindgen_test]` functions.
#![allow(clippy::unwrap_used)]

use leptos::prelude::*;
use tabloop::ui::Playground;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn playground_mounts_with_title_and_empty_session() {
    let document = web_sys::window().unwrap().document().unwrap();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    let root: web_sys::HtmlElement = wasm_bindgen::JsCast::unchecked_into(root);
    leptos::mount::mount_to(root.clone(), || view! { <Playground/> }).forget();

    let title = root.query_selector("h1").unwrap().unwrap();
    assert_eq!(title.text_content().unwrap(), "tabloop");
    let empty = root
        .query_selector("[data-testid=empty-session]")
        .unwrap()
        .unwrap();
    assert_eq!(
        empty.text_content().unwrap(),
        "Start a task to begin a session."
    );
}
