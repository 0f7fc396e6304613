//! Model text drawn as markdown. The HTML comes from [`render_markdown`], which escapes every
//! character of the text and writes only its own small set of tags, so nothing the model wrote
//! becomes markup. A remote image is a button until clicked; only then is an `<img>` made.
//! The HTML reaches the DOM through the page's one HTML-writing Trusted Types policy
//! (www/policy/markdown_html.js); the site's content policy refuses any other.

use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsCast;

#[wasm_bindgen(module = "/www/policy/markdown_html.js")]
extern "C" {
    /// Sets the element's children to the renderer's HTML through the `tabloop-markdown` policy.
    #[wasm_bindgen(js_name = setMarkdownHtml)]
    fn set_markdown_html(element: &web_sys::Element, html: &str);
}

use crate::view::{render_markdown, safe_url};

/// Markdown of a model message (`<div class="md">`).
#[component]
pub fn MarkdownText(
    /// The message text.
    text: String,
) -> impl IntoView {
    let html = render_markdown(&text);
    let node = NodeRef::<html::Div>::new();
    Effect::new(move |_| {
        if let Some(element) = node.get() {
            set_markdown_html(&element, &html);
        }
    });
    view! { <div class="md" node_ref=node on:click=load_image></div> }
}

/// Replaces a clicked image placeholder with the image it names.
fn load_image(ev: leptos::ev::MouseEvent) {
    let Some(button) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .and_then(|e| e.closest("button.md-image").ok().flatten())
    else {
        return;
    };
    ev.prevent_default();
    // The renderer only writes safe sources; checked again because the DOM is not ours alone.
    let Some(src) = button
        .get_attribute("data-src")
        .filter(|s| safe_url(s).is_some())
    else {
        return;
    };
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(img) = document.create_element("img") else {
        return;
    };
    let alt = button.get_attribute("data-alt").unwrap_or_default();
    let made = img
        .set_attribute("alt", &alt)
        .and_then(|()| img.set_attribute("referrerpolicy", "no-referrer"))
        .and_then(|()| img.set_attribute("class", "md-loaded"))
        .and_then(|()| img.set_attribute("src", &src))
        .and_then(|()| button.replace_with_with_node_1(&img));
    if made.is_err() {
        web_sys::console::warn_1(&"could not load the image".into());
    }
}
