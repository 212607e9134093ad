/**
 * A full garbage collection with no call in flight must not throw away the code V8 optimised for
 * the decoder, the turn builder and the path-update encoder: the hidden classes of their instances
 * die with the last instance, and V8 deoptimises what was optimised for them, so the next call ran
 * in the interpreter (`npm run bench`, "first run after a full GC"). Checked in a child process
 * with `--allow-natives-syntax` (V8's own optimisation status, no timing).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));

const SCRIPT = `
const { PathUpdateEncoder, ProviderEventDecoder, TurnBuilder } = await import(${JSON.stringify(DIST)});
const encoder = new TextEncoder();
const sse = (name, data) => encoder.encode('event: ' + name + '\\ndata: ' + JSON.stringify(data) + '\\n\\n');
const argumentText = '{"path":"src/a.ts","content":"export const a = [1, 2];\\\\n"}';
const reads = [
  sse('message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } } }),
  sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'write_file', input: {} } }),
  ...argumentText.match(/.{1,7}/g).map((chunk) => sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: chunk } })),
  sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
  sse('message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } }),
  sse('message_stop', { type: 'message_stop' }),
];
// One call, as a server runs it: nothing of it stays alive afterwards.
function call() {
  const decoder = new ProviderEventDecoder({ provider: 'anthropic' });
  const builder = new TurnBuilder({ progress: true });
  const paths = new PathUpdateEncoder();
  let toolCall;
  let updates = 0;
  const take = (events) => {
    for (const event of events) {
      for (const output of builder.push(event)) {
        if (output.type === 'tool-call-progress') updates += paths.push(output.fragment).length;
        else if (output.type === 'tool-call') toolCall = output;
      }
    }
  };
  for (const read of reads) take(decoder.push(read));
  take(decoder.end());
  take(builder.end());
  return { path: toolCall.arguments.path, complete: paths.complete, updates };
}
const hot = { decoder: ProviderEventDecoder.prototype.push, builder: TurnBuilder.prototype.push, encoder: PathUpdateEncoder.prototype.push };
for (const f of Object.values(hot)) %PrepareFunctionForOptimization(f);
for (let i = 0; i < 20; i++) call();
for (const f of Object.values(hot)) %OptimizeFunctionOnNextCall(f);
const result = call();
const optimized = () => Object.fromEntries(Object.entries(hot).map(([name, f]) => [name, (%GetOptimizationStatus(f) & 16) !== 0]));
const before = optimized();
gc();
const after = optimized();
console.log(JSON.stringify({ result, before, after }));
`;

describe('retain (src/retain.ts)', () => {
  it('ProviderEventDecoder, TurnBuilder and PathUpdateEncoder stay optimised through a full GC once every instance is gone', () => {
    const output = execFileSync(process.execPath, ['--allow-natives-syntax', '--expose-gc', '--input-type=module', '-e', SCRIPT], {
      encoding: 'utf8',
    });
    const { result, before, after } = JSON.parse(output.trim().split('\n').at(-1) as string) as {
      result: { path: string; complete: boolean; updates: number };
      before: Record<string, boolean>;
      after: Record<string, boolean>;
    };
    expect(result.path).toBe('src/a.ts');
    expect(result.complete).toBe(true);
    expect(result.updates).toBeGreaterThan(5);
    expect(before).toEqual({ decoder: true, builder: true, encoder: true });
    expect(after).toEqual({ decoder: true, builder: true, encoder: true });
  });
});
