//! Browser tests: the playground mounts in headless Chromium and shows its shell; the timeline
//! renders a tool call with its result from a log written by the core; model or tool output
//! that looks like markup stays text (no element is created from it); and the page is handed
//! each record of such a log in its public shape.
#![cfg(all(target_arch = "wasm32", feature = "playground"))]
// Test code: clippy's allow-*-in-tests settings do not see `#[wasm_bindgen_test]` functions.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::wildcard_enum_match_arm
)]

mod core_support;

use core_support::*;
use leptos::prelude::*;
use serde_json::json;
use tabloop::core::Record;
use tabloop::ui::{Playground, TimelineView};
use tabloop::view::public::PublicRecord;
use tabloop::view::Timeline;
use tabloop::web::js_value::record_to_js;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A fresh element in the page to mount into.
fn mount_root() -> web_sys::HtmlElement {
    let document = web_sys::window().unwrap().document().unwrap();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    wasm_bindgen::JsCast::unchecked_into(root)
}

/// Mounts the timeline of `records` and returns its `<ol>`.
fn mount_timeline(records: &[Record]) -> web_sys::Element {
    let root = mount_root();
    let timeline = Timeline::from_records(records);
    leptos::mount::mount_to(root.clone(), move || {
        view! { <TimelineView timeline=RwSignal::new(timeline)/> }
    })
    .forget();
    root.query_selector("[data-testid=timeline]")
        .unwrap()
        .unwrap()
}

fn kinds(timeline: &web_sys::Element) -> Vec<String> {
    let mut out = Vec::new();
    let mut item = timeline.first_element_child();
    while let Some(element) = item {
        out.push(element.get_attribute("data-kind").unwrap());
        item = element.next_element_sibling();
    }
    out
}

#[wasm_bindgen_test]
fn playground_mounts_with_title_and_empty_session() {
    let root = mount_root();
    leptos::mount::mount_to(root.clone(), || {
        tabloop::app::provide_services();
        view! { <Playground/> }
    })
    .forget();

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
    for hook in [
        "task",
        "run",
        "new-session",
        "provider-kind",
        "max-steps",
        "import",
    ] {
        assert!(
            root.query_selector(&format!("[data-testid={hook}]"))
                .unwrap()
                .is_some(),
            "{hook} is on the page"
        );
    }
}

#[wasm_bindgen_test]
fn the_timeline_shows_a_tool_call_with_its_result() {
    let mut h = Harness::new(config());
    let effects = h.user("read the notes");
    h.reply(
        &effects,
        calls(vec![call("a", "read_file", json!({"path": "notes.txt"}))]),
    );
    let effects = h.tool_result("a", "hello from the notes", false);
    h.reply(&effects, text("The notes say hello."));

    let timeline = mount_timeline(&h.log);
    assert_eq!(
        kinds(&timeline),
        [
            "user",
            "step",
            "tool_call",
            "step",
            "assistant",
            "run_finished"
        ]
    );
    let call = timeline
        .query_selector("[data-kind=tool_call]")
        .unwrap()
        .unwrap();
    let text_of = |selector: &str| {
        call.query_selector(selector)
            .unwrap()
            .unwrap()
            .text_content()
            .unwrap()
    };
    assert_eq!(text_of(".tool-name"), "read_file");
    assert_eq!(text_of("[data-testid=tool-status]"), "done");
    assert_eq!(text_of(".args"), "{\n  \"path\": \"notes.txt\"\n}");
    assert_eq!(text_of("[data-testid=tool-result]"), "hello from the notes");
    let stop = timeline
        .query_selector("[data-testid=stop-reason]")
        .unwrap()
        .unwrap();
    assert_eq!(stop.text_content().unwrap(), "completed");
}

/// `onEvent` and `events()` hand the page each record as `PublicRecord` writes it: the same
/// keys in the same order (`seq`, `at`, `type`, then the event's fields) and the same values.
#[wasm_bindgen_test]
fn records_reach_the_page_in_their_public_shape() {
    let mut h = Harness::new(config());
    let effects = h.user("read the notes");
    let args = json!({"path": "notes.txt"});
    h.reply(&effects, calls(vec![call("a", "read_file", args)]));
    let effects = h.tool_result("a", "hello", false);
    h.reply(&effects, text("The notes say hello."));

    let js_text = |value: &wasm_bindgen::JsValue| -> String {
        js_sys::JSON::stringify(value).unwrap().as_string().unwrap()
    };
    assert!(h.log.len() >= 8, "a whole run: {} records", h.log.len());
    for record in &h.log {
        let written = serde_json::to_string(&PublicRecord::from(record)).unwrap();
        let expected = js_text(&js_sys::JSON::parse(&written).unwrap());
        assert_eq!(js_text(&record_to_js(record)), expected);
    }
}

/// Resolves after the tasks already queued have run: effects (the markdown's HTML among them)
/// are applied after the mount returns.
async fn settle() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0)
            .unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(promise).await.unwrap();
}

#[wasm_bindgen_test]
async fn model_and_tool_output_that_looks_like_markup_stays_text() {
    let hostile = "<img src=x onerror=alert(1)><script>alert(2)</script>";
    let mut h = Harness::new(config());
    let effects = h.user("say something nasty");
    h.reply(
        &effects,
        calls(vec![call("a", "read_file", json!({"path": hostile}))]),
    );
    let effects = h.tool_result("a", "<img src=y onerror=alert(3)>", false);
    h.reply(&effects, text(hostile));

    let timeline = mount_timeline(&h.log);
    settle().await;
    assert!(
        timeline
            .query_selector("img, script, iframe, a")
            .unwrap()
            .is_none(),
        "no element was made from model or tool output"
    );
    // Model text is rendered as markdown, where raw HTML is shown as text.
    let assistant = timeline
        .query_selector("[data-kind=assistant] .md")
        .unwrap()
        .unwrap();
    assert_eq!(assistant.text_content().unwrap().trim(), hostile);
    let result = timeline
        .query_selector("[data-testid=tool-result]")
        .unwrap()
        .unwrap();
    assert_eq!(
        result.text_content().unwrap(),
        "<img src=y onerror=alert(3)>"
    );
    assert!(timeline.inner_html().contains("&lt;script&gt;"));
}

#[wasm_bindgen_test]
fn an_approval_card_reports_the_decision_for_its_call() {
    use tabloop::ui::ApprovalCard;
    use tabloop::view::{ToolCallView, ToolStatus};

    let root = mount_root();
    let decided = RwSignal::new(Vec::<(String, bool)>::new());
    let on_decide = Callback::new(move |decision: (String, bool)| {
        decided.update(|d| d.push(decision));
    });
    let call = ToolCallView {
        call: "w1".into(),
        name: "write_file".into(),
        args: "{\n  \"path\": \"<b>a</b>\"\n}".into(),
        status: ToolStatus::AwaitingApproval {
            after_interrupt: true,
        },
    };
    leptos::mount::mount_to(root.clone(), move || {
        view! { <ApprovalCard call on_decide/> }
    })
    .forget();
    let card = root
        .query_selector("[data-testid=approval]")
        .unwrap()
        .unwrap();
    assert_eq!(card.get_attribute("data-call").as_deref(), Some("w1"));
    assert!(card.query_selector("b").unwrap().is_none());
    assert!(card.query_selector(".warning").unwrap().is_some());
    let click = |testid: &str| {
        let button: web_sys::HtmlElement = wasm_bindgen::JsCast::unchecked_into(
            card.query_selector(&format!("[data-testid={testid}]"))
                .unwrap()
                .unwrap(),
        );
        button.click();
    };
    click("approve");
    click("deny");
    assert_eq!(
        decided.get_untracked(),
        vec![("w1".to_string(), true), ("w1".to_string(), false)]
    );
}
