//! What "inert HTML" means for the markdown renderer's output: only its own tags and attributes,
//! every `<` of the text escaped, links and image sources http(s) (or mailto for links), links
//! opening apart. Shared by tests/ui_markdown.rs (the hostile corpus) and the markdown fuzz
//! target (fuzz/src/checks.rs), which include this file.

/// Tags the renderer may write, with the attributes each may carry.
pub const ALLOWED: &[(&str, &[&str])] = &[
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
pub struct TagSeen {
    /// The tag's name.
    pub name: String,
    /// Whether it is a closing tag.
    pub closing: bool,
    /// Its attributes: name and raw value.
    pub attrs: Vec<(String, String)>,
}

/// Reads every tag of `html`. Text between tags must hold no `<` (the renderer escapes it), so
/// every `<` starts a tag; quoted attribute values must hold no raw `"`, `<` or `>`.
pub fn tags(html: &str) -> Result<Vec<TagSeen>, String> {
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
pub fn violations(html: &str) -> Vec<String> {
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
