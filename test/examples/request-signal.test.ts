/**
 * examples/ai-sdk-object's Node server hands its route a web `Request` whose `signal` aborts when the browser's
 * connection closes. A route keeps only `request.signal` (`streamText({ abortSignal })`), and
 * Node's `Request` is what makes that signal follow the server's controller: a `Request` garbage
 * collected while its response streams leaves the signal unaborted after a Stop, and the model's
 * request running (seen once in CI as a Stop that did not close the model's connection). The
 * server runs in a child `node --expose-gc` that collects garbage between the first bytes and the
 * client leaving.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Node's own behaviour, which the servers guard against: a dropped Request's signal stops following. */
const DROPPED = `
const gone = new AbortController();
const signal = (() => new Request('http://127.0.0.1/', { method: 'POST', body: 'x', signal: gone.signal }).signal)();
for (let i = 0; i < 5; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 10)); }
gone.abort();
console.log(JSON.stringify({ aborted: signal.aborted }));
`;

/**
 * examples/ai-sdk-object's server (ai 7's `streamText({ abortSignal: request.signal })` route) on a
 * model that sends its first events and then waits: the client reads the first bytes of the
 * recipe, the server collects garbage, the client leaves; the model's connection must close.
 */
const OBJECT_EXAMPLE = `
import { createServer } from 'node:http';
import { request as post } from 'node:http';
import { anthropicRecipeEvents, STAND_IN_RECIPE } from './examples/ai-sdk-object/model.mjs';
import { startObjectExample } from './examples/ai-sdk-object/serve.mjs';
const events = anthropicRecipeEvents(JSON.stringify(STAND_IN_RECIPE));
let closed = false;
const model = createServer((req, res) => {
  req.resume();
  res.on('close', () => { closed = true; });
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const event of events.slice(0, 8)) res.write(event);
});
await new Promise((r) => model.listen(0, '127.0.0.1', r));
const example = await startObjectExample({ client: 'argstream', major: 7, argstream: 'src', anthropicUrl: 'http://127.0.0.1:' + model.address().port + '/v1/messages' });
const url = new URL(example.url + '/api/recipe');
const client = post({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json' } });
client.end(JSON.stringify({ dish: 'bread' }));
const response = await new Promise((r) => client.on('response', r));
await new Promise((r) => response.once('data', r));
for (let i = 0; i < 5; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 20)); }
client.destroy();
const deadline = Date.now() + 5000;
while (!closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
console.log(JSON.stringify({ closed }));
model.closeAllConnections();
model.close();
await example.close();
`;

function run(script: string): Promise<Record<string, boolean>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`the child exited ${code}: ${out}${err}`));
      else resolve(JSON.parse(line) as Record<string, boolean>);
    });
  });
}

describe("a route's request.signal after garbage collection", () => {
  it("Node's Request: a Request dropped and collected no longer aborts its signal (what the servers guard against)", async () => {
    expect(await run(DROPPED)).toEqual({ aborted: false });
  }, 30_000);

  it("examples/ai-sdk-object's server: the page leaving after a collection aborts the route's signal, and the model's connection closes", async () => {
    expect(await run(OBJECT_EXAMPLE)).toEqual({ closed: true });
  }, 60_000);
});
