// The MCP reference server that exercises every protocol feature, npm
// @modelcontextprotocol/server-everything (pinned in package.json), run as its own process with
// its Streamable HTTP transport (stateful sessions, resumable streams, permissive CORS) on a
// free loopback port. Its output is kept, for a failing test to show.
import { spawn } from 'node:child_process';
import { freePort } from './free_port.mjs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const entry = path.join(repo, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** Starts server-everything; resolves `{url, output, close}` once it listens. */
export async function startEverythingServer() {
  const port = await freePort();
  const child = spawn(process.execPath, [entry, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = [];
  const collect = (chunk) => output.push(chunk.toString());
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server-everything did not start:\n${output.join('')}`)), 20_000);
    const check = () => {
      if (output.join('').includes('listening on port')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited (${code}):\n${output.join('')}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    output: () => output.join(''),
    close: () => new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}
