#!/usr/bin/env node
// Writes the site's own content policy into the built page (trunk's post_build hook runs it on
// the staged index.html; `node scripts/site-policy.mjs FILE` on any built page). It
//   - puts a Content-Security-Policy <meta> first in <head>: scripts only from the page's origin
//     and the inline loader trunk emits, pinned by its SHA-256 (no other inline script, no
//     'unsafe-eval'; 'wasm-unsafe-eval' is what compiling the app's WebAssembly needs), no
//     plug-ins, no <base>, no form posts, and Trusted Types required for every script and HTML
//     sink with two policies admitted: `default` (script URLs: same origin or blob: only,
//     www/policy/trusted_types.js) and `tabloop-markdown` (www/policy/markdown_html.js);
//   - adds Subresource Integrity (sha384) to the page's own <script src> tags that lack it
//     (trunk already adds it to what it emits: the stylesheet, tabloop.js, its snippets and the
//     wasm).
// Providers, MCP servers and models may live at any URL a person gives, so connect-src admits
// any http(s) origin; that is the product, not an oversight. A <meta> policy cannot carry
// frame-ancestors: README.md's "Deploying" section lists the headers a host should send.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The directives, given the hashes of the page's inline scripts. */
export function policy(scriptHashes) {
  const hashes = scriptHashes.map((h) => `'sha256-${h}'`).join(' ');
  return [
    "default-src 'self'",
    `script-src 'self' 'wasm-unsafe-eval' ${hashes}`.trim(),
    // Leptos sets a few style attributes (meter widths, indentation); no script can come of it.
    "style-src 'self' 'unsafe-inline'",
    // A model's markdown image is fetched only after a click, from wherever it points.
    "img-src 'self' data: blob: https: http:",
    "font-src 'self'",
    "media-src 'self' data: blob:",
    // ws: on loopback only: `trunk serve`'s live reload (scripts/serve.sh).
    "connect-src 'self' https: http: data: blob: ws://127.0.0.1:* ws://localhost:*",
    "worker-src 'self' blob:",
    "child-src 'self' blob:",
    // The eval tool's sandboxed frame (www/sandbox/sandbox.html, with its own stricter policy).
    "frame-src 'self'",
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "require-trusted-types-for 'script'",
    'trusted-types default tabloop-markdown',
  ].join('; ');
}

const sha = (algorithm, data) => crypto.createHash(algorithm).update(data).digest('base64');

/** The page with its policy and integrity attributes; `dir` resolves relative script sources. */
export function applyPolicy(html, dir) {
  // Drop a policy written by an earlier run, so running twice changes nothing.
  html = html.replace(/\s*<meta http-equiv="Content-Security-Policy"[^>]*>/i, '');
  const hashes = [];
  for (const match of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    const [, attrs, body] = match;
    if (/\bsrc\s*=/.test(attrs)) continue;
    if (/type\s*=\s*["']?(application\/ld\+json|text\/template)/i.test(attrs)) continue;
    hashes.push(sha('sha256', body));
  }
  html = html.replace(/<script\b([^>]*\bsrc\s*=\s*"([^"]+)"[^>]*)>/gi, (tag, attrs, src) => {
    if (/\bintegrity\s*=/.test(attrs) || /^[a-z]+:/i.test(src) || src.startsWith('//')) return tag;
    const file = path.join(dir, src.split(/[?#]/)[0]);
    if (!fs.existsSync(file)) throw new Error(`site-policy: ${src} is not in ${dir}`);
    const integrity = `sha384-${sha('sha384', fs.readFileSync(file))}`;
    return `<script${attrs} integrity="${integrity}" crossorigin="anonymous">`;
  });
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy(hashes)}">`;
  const charset = /<meta charset="[^"]*"\s*\/?>/i;
  if (!charset.test(html)) throw new Error('site-policy: the page has no <meta charset>');
  return html.replace(charset, (m) => `${m}\n    ${meta}`);
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname);
if (isMain) {
  const file = process.argv[2] ?? path.join(process.env.TRUNK_STAGING_DIR ?? 'dist', 'index.html');
  const html = fs.readFileSync(file, 'utf8');
  fs.writeFileSync(file, applyPolicy(html, path.dirname(file)));
  console.log(`[site-policy] ${file}: content policy and integrity written`);
}
