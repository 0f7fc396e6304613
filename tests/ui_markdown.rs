//! Markdown for model text: what it renders (tables, code, lists, links, image placeholders) and
//! what it never lets through, checked on the HTML the renderer produces for a corpus of hostile
//! payloads (`tests/fixtures/hostile_markdown.json`, also run in the browser by
//! `tests/e2e/playground_markdown.test.mjs`).

#![allow(
    clippy::wildcard_enum_match_arm,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use pretty_assertions::assert_eq;
use tabloop::runtime::synthetic::replies_log;
use tabloop::view::{render_markdown, safe_url, Timeline, TimelineItem};

fn corpus() -> Vec<String> {
    serde_json::from_str(include_str!("fixtures/hostile_markdown.json")).unwrap()
}

#[path = "../fuzz/src/inert_html.rs"]
mod inert_html;
use inert_html::violations;

#[test]
fn the_corpus_holds_at_least_a_hundred_payloads() {
    assert!(corpus().len() >= 100, "{}", corpus().len());
}

#[test]
fn no_hostile_payload_yields_markup_of_its_own() {
    let mut failures = Vec::new();
    for (i, payload) in corpus().iter().enumerate() {
        let html = render_markdown(payload);
        let bad = violations(&html);
        if !bad.is_empty() {
            failures.push(format!("payload {i} {payload:?} -> {html:?}: {bad:?}"));
        }
    }
    assert_eq!(failures, Vec::<String>::new());
}

#[test]
fn the_checker_catches_what_it_is_for() {
    // The checker itself must fail on the things it guards against.
    assert!(!violations("<img src=\"x\">").is_empty());
    assert!(!violations("<p onclick=\"x\">").is_empty());
    assert!(
        !violations("<a href=\"javascript:x\" rel=\"noopener noreferrer\" target=\"_blank\">")
            .is_empty()
    );
    assert!(!violations("<a href=\"https://e.org/\">").is_empty());
    assert!(!violations("a < b").is_empty());
    assert!(violations("<p>a &lt; b</p>").is_empty());
}

#[test]
fn raw_html_is_shown_as_text() {
    assert_eq!(
        render_markdown("Hi <img src=x onerror=\"alert(1)\"> there"),
        "<p>Hi &lt;img src=x onerror=&quot;alert(1)&quot;&gt; there</p>"
    );
    assert_eq!(
        render_markdown("<script>alert(1)</script>"),
        "&lt;script&gt;alert(1)&lt;/script&gt;"
    );
}

#[test]
fn safe_links_open_in_a_new_tab_without_opener_and_unsafe_ones_lose_their_target() {
    assert_eq!(
        render_markdown("[docs](https://example.org/a?b=1&c=2 \"T\")"),
        "<p><a href=\"https://example.org/a?b=1&amp;c=2\" title=\"T\" rel=\"noopener noreferrer\" \
         target=\"_blank\">docs</a></p>"
    );
    assert_eq!(render_markdown("[x](javascript:alert(1))"), "<p>x</p>");
    assert_eq!(render_markdown("[x](data:text/html,hi)"), "<p>x</p>");
    assert_eq!(render_markdown("[x](/relative)"), "<p>x</p>");
    assert_eq!(safe_url(" JAVA\tSCRIPT:x"), None);
    assert_eq!(safe_url("HTTPS://e.org/"), Some("HTTPS://e.org/"));
    assert_eq!(safe_url("mailto:a@e.org"), Some("mailto:a@e.org"));
}

#[test]
fn images_become_a_click_to_load_placeholder() {
    assert_eq!(
        render_markdown("![a chart](https://img.example.org/c.png)"),
        "<p><button type=\"button\" class=\"md-image\" data-src=\"https://img.example.org/c.png\" \
         data-alt=\"a chart\">Load image: a chart <span class=\"md-host\">(img.example.org)</span>\
         </button></p>"
    );
    assert_eq!(
        render_markdown("![x](data:image/png;base64,AAAA)"),
        "<p>[x]</p>"
    );
}

#[test]
fn tables_code_blocks_and_lists_render() {
    assert_eq!(
        render_markdown("| a | b |\n|:--|--:|\n| 1 | 2 |"),
        "<div class=\"md-table\"><table><thead><tr><th class=\"left\">a</th><th class=\"right\">b\
         </th></tr></thead><tbody><tr><td class=\"left\">1</td><td class=\"right\">2</td></tr>\
         </tbody></table></div>"
    );
    assert_eq!(
        render_markdown("```rust\nfn main() {}\n```"),
        "<pre><code data-lang=\"rust\">fn main() {}\n</code></pre>"
    );
    assert_eq!(
        render_markdown("3. a\n4. b\n\n- [x] done\n- *em* **strong** `code`"),
        "<ol start=\"3\"><li>a</li><li>b</li></ol><ul><li>☑ done</li><li><em>em</em> \
         <strong>strong</strong> <code>code</code></li></ul>"
    );
    assert_eq!(render_markdown("# Title"), "<h3>Title</h3>");
}

#[test]
fn every_corpus_payload_reaches_the_timeline_as_one_model_message() {
    let texts = corpus();
    let timeline = Timeline::from_records(&replies_log("hostile", &texts));
    let shown: Vec<String> = timeline
        .items()
        .iter()
        .filter_map(|item| match item {
            TimelineItem::Assistant { text } => Some(text.clone()),
            _ => None,
        })
        .collect();
    // The timeline strips control tokens only; every payload arrives whole otherwise.
    assert_eq!(shown.len(), texts.len());
}
