// Owns the one place the app writes HTML: the markdown of a model's text. The HTML comes from
// the Rust renderer (src/view/markdown.rs), which escapes every character of the text and writes
// only its own small set of tags; it reaches the DOM through the `tabloop-markdown` Trusted Types
// policy, the only policy besides `default` that the page's content policy admits.

let policy;

function markdownPolicy() {
  if (policy === undefined) {
    policy = null;
    const trusted = globalThis.trustedTypes;
    if (trusted) {
      try {
        policy = trusted.createPolicy('tabloop-markdown', { createHTML: (html) => html });
      } catch (error) {
        // A page whose own policy does not admit this name: the plain string is tried below.
        console.warn('tabloop: the markdown Trusted Types policy could not be created', error);
      }
    }
  }
  return policy;
}

/** Sets `element`'s children to `html`, the renderer's output. */
export function setMarkdownHtml(element, html) {
  const p = markdownPolicy();
  element.innerHTML = p ? p.createHTML(html) : html;
}
