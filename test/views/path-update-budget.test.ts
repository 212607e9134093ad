/**
 * `PathUpdateBudget` in the encoders' `toolInputs: 'path-updates'` modes: a hostile call (10,000
 * small numbers, deep nesting), in deltas or in one record, stays within 4× the provider's bytes and
 * ends with its exact arguments; in one record its updates stop before the end.
 */
import { describe, expect, it } from 'vitest';
import { AG_UI_TOOL_INPUT, AgUiEncoder } from '../../src/bindings/ag-ui.ts';
import { TOOL_INPUT_UPDATES, UIMessageStreamEncoder } from '../../src/bindings/ai-sdk/server.ts';
import { JsonFragmentRebuilder, ProviderEventStream, type PathUpdate } from '../../src/index.ts';
import { settle, streamOf } from '../helpers.ts';

const MODES = {
  'ag-ui': () => new AgUiEncoder({ toolInputs: 'path-updates' }),
  'ui-message-stream': () => new UIMessageStreamEncoder({ toolInputs: 'path-updates' }),
} as const;

/** The records of an encoder's SSE body, parsed. */
function records(body: Uint8Array[]): Array<Record<string, any>> {
  const text = body.map((chunk) => new TextDecoder().decode(chunk)).join('');
  return text
    .split('\n\n')
    .filter((record) => record.startsWith('data: ') && record !== 'data: [DONE]')
    .map((record) => JSON.parse(record.slice('data: '.length)) as Record<string, any>);
}

const updatesOf = (record: Record<string, any>) => (record.type === 'CUSTOM' && record.name === AG_UI_TOOL_INPUT ? record.value : record.type === TOOL_INPUT_UPDATES ? record.data : undefined);

/** An Anthropic stream of one `write_file` call whose arguments arrive in `deltas`. */
function anthropic(deltas: readonly string[]): string {
  const record = (type: string, data: unknown) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
  let text = record('message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'm', stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } } });
  text += record('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_01', name: 'write_file', input: {} } });
  for (const delta of deltas) text += record('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: delta } });
  text += record('content_block_stop', { type: 'content_block_stop', index: 0 });
  text += record('message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } });
  return text + record('message_stop', { type: 'message_stop' });
}

describe('PathUpdateBudget in the path-updates modes', () => {
  for (const [mode, encoder] of Object.entries(MODES)) {
    for (const [what, args] of [
      ['10,000 small numbers in an array', JSON.stringify({ values: Array.from({ length: 10_000 }, (_, i) => i % 10) })],
      ['deep nesting', `{"a":${'['.repeat(200)}${Array(50).fill(0).join(',')}${']'.repeat(200)}}`],
    ] as const) {
      for (const [how, deltas] of [['in 1–3-character deltas', Array.from({ length: Math.ceil(args.length / 2) }, (_, i) => args.slice(2 * i, 2 * i + 2))], ['in one record', [args]]] as const) {
        it(`${mode}: ${what}, ${how}: within 4× the provider's bytes, the exact arguments in the end, updates the page applies`, async () => {
          const sse = anthropic(deltas);
          const body = (await settle(streamOf([sse]).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })).pipeThrough(encoder() as never))).values as Uint8Array[];
          const bytes = body.reduce((n, chunk) => n + chunk.byteLength, 0);
          expect(bytes).toBeLessThanOrEqual(4 * new TextEncoder().encode(sse).byteLength);
          const rebuilder = new JsonFragmentRebuilder();
          let text = '';
          let input: unknown;
          for (const record of records(body)) {
            const updates = updatesOf(record);
            if (updates !== undefined) for (const update of updates.updates as PathUpdate[]) rebuilder.push(update);
            if (record.type === 'TOOL_CALL_ARGS') text += record.delta;
            if (record.type === 'TOOL_CALL_END') input = JSON.parse(text);
            if (record.type === 'tool-input-available') input = record.input;
          }
          expect(input).toEqual(JSON.parse(args));
          // In one record the budget stops the updates before the end: the page has a prefix and the input whole.
          if (deltas.length === 1) expect(rebuilder.isComplete()).toBe(false);
        });
      }
    }
  }
});
