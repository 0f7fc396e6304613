// The tool registry's preload (www/host_bridge.js) fetches the registry's modules all at once
// instead of as a waterfall; its list must be exactly the registry's module graph, or a module
// would again be fetched late (a missing one) or for nothing (a stale one).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REGISTRY_MODULES } from '../../www/host_bridge.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Every module reachable from `start` through static relative imports, `start` first. */
function graph(start) {
  const seen = [];
  const visit = (file) => {
    if (seen.includes(file)) return;
    seen.push(file);
    const source = fs.readFileSync(path.join(repo, file), 'utf8');
    for (const [, spec] of source.matchAll(/^\s*import\s[^'"]*['"](\.{1,2}\/[^'"]+)['"]/gm)) {
      visit(path.posix.join(path.posix.dirname(file), spec));
    }
  };
  visit(start);
  return seen;
}

test("the registry preload list is exactly the registry's module graph", () => {
  const reachable = graph('www/tools/registry.js');
  assert.equal(REGISTRY_MODULES[0], 'www/tools/registry.js');
  assert.deepEqual([...REGISTRY_MODULES].sort(), [...reachable].sort());
});
