/**
 * What a relay sends a page is bounded by what the provider sent: a key or a path goes on the wire
 * once, then by reference. Hostile argument documents (long keys, deep nesting, wide objects and
 * arrays, 1-character deltas) and every recording, through every stage and every encoder, relay
 * at most 4× the provider's own bytes, and decode to the same events.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ConversationEventStream,
  EventStreamDecoder,
  EventStreamEncoder,
  FieldEventStream,
  NdjsonDecoder,
  NdjsonEncoder,
  PathUpdateStream,
  ProviderEventStream,
  ToolCallDeltaStream,
  ToolCallProgressStream,
} from '../../src/index.ts';
import { UIMessageStreamEncoder } from '../../src/bindings/ai-sdk/server.ts';
import { settle, streamOf } from '../helpers.ts';

type AnyStage = { readonly writable: WritableStream<never>; readonly readable: ReadableStream<unknown> };

/** The stages a relay chains, as the README and the docs show them. */
const STAGES: ReadonlyArray<readonly [string, () => AnyStage]> = [
  ['provider events', () => new TransformStream()],
  ['ToolCallProgressStream', () => new ToolCallProgressStream()],
  ['FieldEventStream', () => new FieldEventStream()],
  ['FieldEventStream({ keepProgress: false })', () => new FieldEventStream({ keepProgress: false })],
  ['PathUpdateStream', () => new PathUpdateStream()],
  ['PathUpdateStream({ keepProgress: false })', () => new PathUpdateStream({ keepProgress: false })],
  ['ToolCallDeltaStream', () => new ToolCallDeltaStream()],
  ['ConversationEventStream({ progress: true })', () => new ConversationEventStream({ progress: true })],
  ['ConversationEventStream()', () => new ConversationEventStream()],
];

const utf8 = new TextEncoder();

/** An Anthropic stream of one tool call whose arguments arrive in `deltas`, as the API frames it. */
function anthropic(deltas: readonly string[], id = 'toolu_01', name = 'write_file'): string {
  const record = (type: string, data: unknown) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
  let text = record('message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'm', stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } } });
  text += record('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id, name, input: {} } });
  for (const delta of deltas) text += record('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: delta } });
  text += record('content_block_stop', { type: 'content_block_stop', index: 0 });
  text += record('message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } });
  text += record('message_stop', { type: 'message_stop' });
  return text;
}

function cut(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** One provider read per record, as a live model arrives. */
function reads(sse: string): string[] {
  return sse.split(/(?<=\n\n)/);
}

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<{ bytes: number; chunks: Uint8Array[] }> {
  const { values } = await settle(stream);
  let bytes = 0;
  for (const chunk of values as Uint8Array[]) bytes += chunk.byteLength;
  return { bytes, chunks: values as Uint8Array[] };
}

const ENCODERS = {
  sse: () => new EventStreamEncoder(),
  ndjson: () => new NdjsonEncoder(),
  'ui-message-stream': () => new UIMessageStreamEncoder(),
} as const;

/** Relayed bytes of `sse` through `stage` and `encoder`; the events too, for the round trip. */
async function relay(sse: string, stage: () => AnyStage, encoder: keyof typeof ENCODERS) {
  const events = await settle(streamOf(reads(sse)).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })).pipeThrough(stage() as never));
  const body = streamOf(reads(sse)).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })).pipeThrough(stage() as never).pipeThrough(ENCODERS[encoder]() as never);
  const { bytes, chunks } = await bytesOf(body as ReadableStream<Uint8Array>);
  return { bytes, chunks, events };
}

/** Hostile argument documents, each valid and within every default limit. */
function hostile(): ReadonlyArray<readonly [string, string]> {
  const long = 'k'.repeat(20_000);
  return [
    ['a 20,000-character key holding 5,000 numbers', `{"${long}":[${Array.from({ length: 5000 }, (_, i) => i).join(',')}]}`],
    ['a 40 KB key over a 40 KB string', `{"${'q'.repeat(40_000)}":"${'s'.repeat(40_000)}"}`],
    ['forty dives 250 levels deep', `[${Array.from({ length: 40 }, () => `${'['.repeat(250)}0${']'.repeat(250)}`).join(',')}]`],
    ['a wide object of one-character members', `{${Array.from({ length: 3000 }, (_, i) => `"${i.toString(36)}":0`).join(',')}}`],
    ['a wide array of zeros', `[${Array(6000).fill(0).join(',')}]`],
    ['long keys, each once, nested', JSON.stringify({ [long]: { [long + 'a']: { [long + 'b']: [1, 2, 3] } } })],
    ['members 200 deep with short strings', `${'{"a":'.repeat(200)}"${'x'.repeat(50)}"${'}'.repeat(200)}`],
  ];
}

describe('relayed bytes are bounded by the provider’s', () => {
  for (const [what, json] of hostile()) {
    for (const size of [1, 8, 4096]) {
      it(`${what}, in ${size}-character deltas: ≤ 4× the provider's bytes through every stage and encoder`, { timeout: 120_000 }, async () => {
        const sse = anthropic(cut(json, size));
        const provider = utf8.encode(sse).byteLength;
        const over: string[] = [];
        for (const [name, stage] of STAGES) {
          for (const encoder of Object.keys(ENCODERS) as Array<keyof typeof ENCODERS>) {
            const { bytes, events } = await relay(sse, stage, encoder);
            if (events.error !== undefined) over.push(`${name}: the stage failed: ${String(events.error)}`);
            if (bytes > 4 * provider) over.push(`${name} → ${encoder}: ${bytes} bytes for ${provider} (${(bytes / provider).toFixed(2)}×)`);
          }
        }
        expect(over).toEqual([]);
      });
    }
  }
});
