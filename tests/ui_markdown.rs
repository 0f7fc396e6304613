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

/// Tags the renderer may write, with the attributes each may carry.
const ALLOWED: &[(&str, &[&str])] = &[
    ("p", &[]),
    ("h3", &[]),
    ("h4", &[]),
    ("h5", &[]),
    ("h6", &[]),
    ("blockquote", &[]),
    ("pre", &[]),
    ("code", &["data-lang"]),
    ("ol", &["start"]),
    ("ul", &[]),
    ("li", &[]),
    ("div", &["class"]),
    ("table", &[]),
    ("thead", &[]),
    ("tbody", &[]),
    ("tr", &[]),
    ("th", &["class"]),
    ("td", &["class"]),
    ("em", &[]),
    ("strong", &[]),
    ("del", &[]),
    ("sup", &[]),
    ("sub", &[]),
    ("br", &[]),
    ("hr", &[]),
    ("a", &["href", "title", "rel", "target"]),
    (
        "button",
        &["type", "class", "data-src", "data-alt", "title"],
    ),
    ("span", &["class"]),
];

/// One tag of the output: name, attributes (name, raw value) and whether it closes.
#[derive(Debug)]
struct TagSeen {
    name: String,
    closing: bool,
    attrs: Vec<(String, String)>,
}

/// Reads every tag of `html`. Text between tags must hold no `<` (the renderer escapes it), so
/// every `<` starts a tag; quoted attribute values must hold no raw `"`, `<` or `>`.
fn tags(html: &str) -> Result<Vec<TagSeen>, String> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let close = after.find('>').ok_or("a `<` that opens no tag")?;
        let inner = &after[..close];
        rest = &after[close + 1..];
        let (closing, inner) = match inner.strip_prefix('/') {
            Some(i) => (true, i),
            None => (false, inner),
        };
        let name_end = inner.find(' ').unwrap_or(inner.len());
        let name = inner[..name_end].to_string();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(format!("not a tag name: {inner:?}"));
        }
        let mut attrs = Vec::new();
        let mut a = inner[name_end..].trim_start();
        while !a.is_empty() {
            let eq = a
                .find("=\"")
                .ok_or(format!("attribute without a value: {a:?}"))?;
            let attr = a[..eq].to_string();
            let value_and_rest = &a[eq + 2..];
            let end = value_and_rest.find('"').ok_or("unterminated value")?;
            attrs.push((attr, value_and_rest[..end].to_string()));
            a = value_and_rest[end + 1..].trim_start();
        }
        out.push(TagSeen {
            name,
            closing,
            attrs,
        });
    }
    Ok(out)
}

/// Every way `html` could be unsafe, as sentences (empty = safe).
fn violations(html: &str) -> Vec<String> {
    let seen = match tags(html) {
        Ok(t) => t,
        Err(e) => return vec![e],
    };
    let mut bad = Vec::new();
    for tag in seen {
        let Some((_, attrs)) = ALLOWED.iter().find(|(n, _)| *n == tag.name) else {
            bad.push(format!("tag <{}> is not ours", tag.name));
            continue;
        };
        if tag.closing && !tag.attrs.is_empty() {
            bad.push(format!("closing </{}> with attributes", tag.name));
        }
        for (attr, value) in &tag.attrs {
            if !attrs.contains(&attr.as_str()) {
                bad.push(format!("<{} {attr}> is not allowed", tag.name));
            }
            let lower = value.to_ascii_lowercase();
            if matches!(attr.as_str(), "href" | "data-src")
                && !(lower.starts_with("https://")
                    || lower.starts_with("http://")
                    || (attr == "href" && lower.starts_with("mailto:")))
            {
                bad.push(format!(
                    "<{} {attr}={value:?}> has an unsafe target",
                    tag.name
                ));
            }
        }
        if tag.name == "a" && !tag.closing {
            let has = |k: &str, v: &str| tag.attrs.iter().any(|(a, x)| a == k && x == v);
            if !has("rel", "noopener noreferrer") || !has("target", "_blank") {
                bad.push(format!("link without rel/target: {:?}", tag.attrs));
            }
        }
    }
    bad
}

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
