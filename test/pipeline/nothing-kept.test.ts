/**
 * Nothing outlives its stream (DESIGN.md, property 9): once a stream has ended and the caller has
 * dropped it, no module of argstream keeps the stream, its stages, its cores, the options the
 * caller gave (a validator), the input or what it produced. Checked in a child process with
 * `--expose-gc`, with `WeakRef`s to everything a request touches.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DIST = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

const SCRIPT = `
const lib = await import(${JSON.stringify(DIST)});
const encoder = new TextEncoder();
const sse = (name, data) => 'event: ' + name + '\\ndata: ' + JSON.stringify(data) + '\\n\\n';
const body = () => encoder.encode([
  sse('message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } } }),
  sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'write_file', input: {} } }),
  sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"path":"a.ts","content":"' + 'x'.repeat(1000) } }),
  sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '"}' } }),
  sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
  sse('message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } }),
  sse('message_stop', { type: 'message_stop' }),
].join(''));
const refs = {};
const keep = (name, value) => { refs[name] = new WeakRef(value); return value; };
const schema = keep('schema', { '~standard': { version: 1, vendor: 'test', validate: (value) => ({ value }) } });

async function drain(stream) {
  const reader = stream.getReader();
  for (;;) { const { done, value } = await reader.read(); if (done) return; keep('lastEvent', value); }
}
async function requests() {
  // Cores, as a synchronous caller uses them.
  const decoder = keep('decoder', new lib.ProviderEventDecoder({ provider: 'anthropic' }));
  const builder = keep('builder', new lib.TurnBuilder({ progress: true }));
  for (const event of decoder.push(keep('chunk', body()))) builder.push(event);
  for (const event of decoder.end()) builder.push(event);
  builder.end();
  // A chain of stages from a body.
  const stages = [new lib.ProviderEventStream({ provider: 'anthropic' }), new lib.ConversationEventStream({ progress: true }), new lib.ArgumentValidationStream({ tools: { write_file: schema } })];
  keep('stage', stages[1]);
  await drain(keep('bodyStream', new Response(body()).body).pipeThrough(keep('chain', lib.chain(...stages))));
  // fromResponse with stages, and collectTurn.
  const turn = keep('turn', await lib.collectTurn(keep('fromResponse', lib.fromResponse(new Response(body()), { provider: 'anthropic' }, new lib.FieldEventStream()))));
  if (turn.toolCalls.length !== 1 || turn.toolCalls[0].arguments.path !== 'a.ts') throw new Error('the turn lacks its call');
  // Plain pipeThrough of separate stages, and a path view.
  await drain(new Response(body()).body.pipeThrough(new lib.ProviderEventStream({ provider: 'anthropic' })).pipeThrough(keep('paths', new lib.PathUpdateStream())));
}
await requests();
// Let the streams' promise jobs and timers settle, then collect.
await new Promise((resolve) => setTimeout(resolve, 50));
for (let i = 0; i < 3; i++) { gc(); await new Promise((resolve) => setTimeout(resolve, 10)); }
console.log(JSON.stringify(Object.entries(refs).filter(([, ref]) => ref.deref() !== undefined).map(([name]) => name)));
`;

describe('nothing outlives its stream', () => {
  it('cores, stages, chains, fromResponse, collectTurn and the caller\'s validator are all collected once a request has ended', () => {
    const output = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', SCRIPT], { encoding: 'utf8' });
    const alive = JSON.parse(output.trim().split('\n').at(-1) as string) as string[];
    // `schema` is held by the script itself (a module constant): everything else must be gone.
    expect(alive).toEqual(['schema']);
  });
});
