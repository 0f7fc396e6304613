// Real models on a task that cannot be done (the scenario `unsolvable`: read a file that is not
// there and report what it sets): the bundled model in the tab, and the same GGUF served by
// llama.cpp (llama-cpp-python's OpenAI-compatible server) reached as a remote provider. Each run
// must end inside its budget with `gave_up`, `no_progress` or another runtime stop, and a
// `stuck_on`. Full scale only; the llama.cpp half needs the venv scripts/bench-local.sh builds.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCENARIOS, runScenarios } from '../../benches/scenarios/local_model.mjs';
import { launchBrowser } from '../e2e/support/browser.mjs';
import { openEmbed } from '../e2e/support/embed.mjs';
import { freePort } from '../e2e/support/free_port.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const VENV_PYTHON = path.join(os.homedir(), '.cache/tabloop/llamacpp-venv/bin/python');
const MODEL = path.join(repo, 'www/models/smollm2-135m-instruct-q8_0.gguf');
const CONCEDED = ['gave_up', 'no_progress', 'consecutive_errors', 'needs_human'];

/** Starts llama.cpp's server on the bundled model; resolves to { url, stop }. */
async function llamaServer() {
  const port = await freePort();
  const child = spawn(VENV_PYTHON, ['-m', 'llama_cpp.server', '--model', MODEL, '--host', '127.0.0.1', '--port', String(port),
    '--chat_format', 'chatml-function-calling', '--n_ctx', '8192', '--n_threads', '2'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.on('data', (d) => { log = (log + d).slice(-4000); });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 120; i += 1) {
    try {
      if ((await fetch(`${url}/v1/models`)).ok) return { url, stop: () => child.kill() };
    } catch { /* not up yet */ }
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  child.kill();
  throw new Error(`llama.cpp server did not start: ${log.slice(-500)}`);
}

/**
 * The unsolvable scenario against llama.cpp's server, through the public API. `verified`: a
 * final answer counts only once a finish verifier passed (`requireFinish`), and this one cannot
 * pass: the file it would check does not exist.
 */
async function unsolvableOnServer(site, url, verified) {
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext();
    const page = await openEmbed(context, site);
    const { task, maxSteps } = SCENARIOS.unsolvable;
    return await page.evaluate(async ({ url, task, maxSteps, verified }) => {
      if (verified) {
        await tabloop.registerTool({
          name: 'finish',
          description: 'Verifies the answer before the task can end.',
          parameters: { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] },
          permission: 'allow',
          execute: async () => {
            throw new Error('/config/settings.json does not exist, so no port number can be confirmed');
          },
        });
      }
      const agent = await tabloop.createAgent({
        session: `giveup-real-llamacpp-${verified ? 'verified' : 'plain'}`,
        provider: { kind: 'openai', baseUrl: `${url}/v1`, apiKey: 'none', model: 'smollm2' },
        tools: verified ? ['vfs', 'finish'] : ['vfs'],
        requireFinish: verified,
        budget: { maxSteps, maxWallMs: 600_000 },
      });
      const outcome = await agent.run(task);
      const events = await agent.events();
      agent.close();
      const replies = events.filter((e) => e.type === 'model_replied');
      return {
        stop: outcome.stopReason,
        steps: replies.length,
        stuckOn: outcome.handoff?.stuck_on ?? [],
        answer: outcome.finalText ?? '',
        calls: replies.flatMap((e) => e.reply?.tool_calls ?? []).map((c) => `${c.name}(${c.arguments})`),
      };
    }, { url, task, maxSteps, verified });
  } finally {
    await browser.close();
  }
}

const described = (run) => `stop: ${run.stop} after ${run.steps} model replies; calls: ${run.calls.slice(0, 4).join(' ') || 'none'}; stuck_on: ${run.stuckOn.slice(0, 2).join(' / ') || '(none)'}; answer: ${run.answer.slice(0, 120)}`;

export async function realModelGiveup({ site, figures }) {
  const { maxSteps } = SCENARIOS.unsolvable;
  const [tab] = await runScenarios(['unsolvable'], { log: () => {} });
  figures.add('giveup', `in-tab model (SmolLM2-135M) on an unsolvable task: ends inside ${maxSteps} steps by a runtime stop or a give-up, with a stuck_on`, tab.ok ? 1 : 0, { eq: 1 }, tab.why);
  if (!fs.existsSync(VENV_PYTHON)) {
    figures.add('giveup', 'llama.cpp server on an unsolvable task: not run (no llama-cpp-python venv; scripts/bench-local.sh builds it)', 0);
    return;
  }
  const server = await llamaServer();
  try {
    // As a person would first try it: a final answer in prose is accepted as the run's end, so
    // a model that answers without looking ends `completed` (the premature exit; reported).
    const plain = await unsolvableOnServer(site, server.url, false);
    figures.add('giveup', 'llama.cpp server (same GGUF), plain: stop reason', plain.stop, null, described(plain));
    // With the premature exit closed (requireFinish and a verifier), the run must end inside
    // its budget by a runtime stop or a give-up, with a stuck_on.
    const run = await unsolvableOnServer(site, server.url, true);
    const ok = CONCEDED.includes(run.stop) && run.stuckOn.length > 0;
    figures.add('giveup', `llama.cpp server (same GGUF) with requireFinish: ends inside ${maxSteps} steps by a runtime stop or a give-up, with a stuck_on`, ok ? 1 : 0, { eq: 1 }, described(run));
  } finally {
    server.stop();
  }
}
