// Checks markdown as the playground draws it: only the renderer's own tags and attributes, safe
// links and image placeholders; shared by the markdown e2e test and the output drill.

/** Tags and attributes the renderer writes (as in tests/ui_markdown.rs). */
export const ALLOWED = {
  P: [], H3: [], H4: [], H5: [], H6: [], BLOCKQUOTE: [], PRE: [], CODE: ['data-lang'], OL: ['start'],
  UL: [], LI: [], DIV: ['class'], TABLE: [], THEAD: [], TBODY: [], TR: [], TH: ['class'], TD: ['class'],
  EM: [], STRONG: [], DEL: [], SUP: [], SUB: [], BR: [], HR: [], A: ['href', 'title', 'rel', 'target'],
  BUTTON: ['type', 'class', 'data-src', 'data-alt', 'title'], SPAN: ['class'],
};

/** Checks the markdown drawn right now; returns the assistant item indices seen and problems. */
export async function inspectWindow(page, allowed) {
  return page.evaluate((allowed) => {
    const seen = [];
    const bad = [];
    for (const li of document.querySelectorAll('[data-testid=timeline] > li[data-kind=assistant]')) {
      seen.push(Number(li.dataset.index));
      for (const el of li.querySelectorAll('.md *')) {
        const ok = allowed[el.tagName];
        if (!ok) { bad.push(`<${el.tagName}> in item ${li.dataset.index}`); continue; }
        for (const attr of el.getAttributeNames()) {
          if (!ok.includes(attr)) bad.push(`<${el.tagName} ${attr}> in item ${li.dataset.index}`);
        }
        const href = el.getAttribute('href');
        if (href !== null && !/^(https?:|mailto:)/i.test(href)) bad.push(`unsafe link ${href}`);
        const src = el.getAttribute('data-src');
        if (src !== null && !/^https?:/i.test(src)) bad.push(`unsafe image ${src}`);
        if (el.tagName === 'A' && (el.rel !== 'noopener noreferrer' || el.target !== '_blank')) {
          bad.push(`link without rel/target: ${el.outerHTML}`);
        }
      }
    }
    return { seen, bad };
  }, allowed);
}

/**
 * Scrolls the playground's whole timeline from the top, inspecting every window of model
 * messages that gets drawn; stops at the end once `expected` messages were seen.
 */
export async function scanTimeline(page, expected) {
  const seen = new Set();
  const problems = [];
  await page.$eval('.timeline-scroll', (el) => { el.scrollTop = 0; });
  for (let i = 0; i < 400; i++) {
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const { seen: s, bad } = await inspectWindow(page, ALLOWED);
    s.forEach((x) => seen.add(x));
    problems.push(...bad);
    const done = await page.$eval('.timeline-scroll', (el) => {
      const atEnd = el.scrollTop + el.clientHeight >= el.scrollHeight - 2;
      el.scrollTop += el.clientHeight * 0.8;
      return atEnd;
    });
    if (done && seen.size >= expected) break;
  }
  return { seen, problems };
}
