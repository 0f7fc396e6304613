// Owns the playground page's Trusted Types default policy. The page's content policy
// (scripts/site-policy.mjs writes it into dist/index.html) sets `require-trusted-types-for
// 'script'`, so every sink that turns a string into code or markup needs a trusted value. This
// module is the page's first script and creates the `default` policy, which the browser asks
// whenever a plain string reaches such a sink:
//   - a script URL (the engine's workers, wllama's worker) passes when it is this page's origin
//     or a blob: URL;
//   - HTML passes only when it is inert: Leptos builds its views from static <template> markup
//     set with innerHTML, so markup itself must pass, but no script-bearing element, no event
//     handler attribute and no javascript: URL does;
//   - a script string (eval, new Function, a string timer) never passes.
// A refused value makes the sink throw, and the page stays as it was. The one place that writes
// HTML made from outside text, the markdown of a model's reply, has its own named policy
// (www/policy/markdown_html.js) over the renderer's escaped output.

const trusted = globalThis.trustedTypes;

/** The URL itself when it is same-origin or blob:, else null (the sink then refuses it). */
export function scriptUrl(url) {
  let parsed;
  try {
    parsed = new URL(String(url), document.baseURI);
  } catch {
    return null;
  }
  if (parsed.protocol === 'blob:' || parsed.origin === location.origin) return parsed.href;
  console.warn(`tabloop: refused a script from ${parsed.origin}`);
  return null;
}

const SCRIPT_ELEMENTS = /<\s*\/?\s*(script|iframe|frame|frameset|object|embed|applet|base|meta|link|portal|noscript|xmp|plaintext)\b/i;
const HANDLER = /[\s/"'`]on[a-z]+\s*=/i;
const SCRIPT_URL = /(java|vb)script:/i;

/** Numeric and the common named character references decoded, so they cannot hide a word. */
function decoded(html) {
  return html
    .replace(/&#x([0-9a-f]+);?/gi, (_, hex) => String.fromCodePoint(Math.min(parseInt(hex, 16), 0x10ffff)))
    .replace(/&#(\d+);?/g, (_, dec) => String.fromCodePoint(Math.min(Number(dec), 0x10ffff)))
    .replace(/&(colon|tab|newline);/gi, (_, name) => ({ colon: ':', tab: '\t', newline: '\n' })[name.toLowerCase()]);
}

/** The markup itself when nothing in it can run script, else null (the sink then refuses it). */
export function inertHtml(html) {
  const text = String(html);
  const plain = decoded(text).replace(/[\u0000-\u0020]/g, '');
  if (SCRIPT_ELEMENTS.test(text) || HANDLER.test(text) || HANDLER.test(decoded(text)) || SCRIPT_URL.test(plain)) {
    console.warn('tabloop: refused markup that could run script');
    return null;
  }
  return text;
}

if (trusted && !trusted.defaultPolicy) {
  try {
    trusted.createPolicy('default', { createScriptURL: scriptUrl, createHTML: inertHtml });
  } catch (error) {
    console.warn('tabloop: the Trusted Types default policy could not be created', error);
  }
}
