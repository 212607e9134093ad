/**
 * What a relay sends a page is bounded by what the provider sent: a key, a path or a call's
 * identity goes on the wire once, then by number; a read's events go as one record. Hostile
 * argument documents (long keys, deep nesting, wide objects and arrays) streamed as a model
 * streams them (a token or a few per record: up to 32 characters, 1 included) relay at most 4× the
 * provider's own bytes through every stage and every encoder, and decode to the same events; so
 * does every recording, and so do the same documents in records of any size up to a whole document in
 * one record (Gemini without `partialArgs`), where runs of entries made from earlier ones keep the
 * events of each scalar from costing several times its characters.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AG_UI_TOOL_INPUT, AgUiEncoder } from '../../src/bindings/ag-ui.ts';
import { TOOL_INPUT_UPDATES, UIMessageStreamEncoder } from '../../src/bindings/ai-sdk/server.ts';
import {
  ConversationEventStream,
  EventStreamDecoder,
  EventStreamEncoder,
  FieldEventStream,
  JsonFragmentRebuilder,
  NdjsonDecoder,
  NdjsonEncoder,
  PathUpdateStream,
  ProviderEventStream,
  ToolCallDeltaStream,
  ToolCallProgressStream,
  type PathUpdate,
  type ProviderName,
} from '../../src/index.ts';
import { paced } from '../ai-sdk/transport-helpers.ts';
import { settle, streamOf } from '../helpers.ts';
import { PROVIDER_OF_DIR, readableRecordings, recordingInput } from '../providers/event-stream-helpers.ts';
import { expectSame } from '../relay/relay-helpers.ts';

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

const ENCODERS = {
  sse: () => new EventStreamEncoder(),
  ndjson: () => new NdjsonEncoder(),
  'ui-message-stream': () => new UIMessageStreamEncoder(),
  // A path update per scalar, within each call's budget (PathUpdateBudget); the input whole at the end.
  'ui-message-stream path-updates': () => new UIMessageStreamEncoder({ toolInputs: 'path-updates' }),
  'ag-ui': () => new AgUiEncoder(),
  'ag-ui path-updates': () => new AgUiEncoder({ toolInputs: 'path-updates' }),
} as const;
type EncoderName = keyof typeof ENCODERS;
const DECODERS: Partial<Record<EncoderName, () => TransformStream<Uint8Array, unknown>>> = {
  sse: () => new EventStreamDecoder() as unknown as TransformStream<Uint8Array, unknown>,
  ndjson: () => new NdjsonDecoder() as unknown as TransformStream<Uint8Array, unknown>,
};

const utf8 = new TextEncoder();

/** An Anthropic stream of one tool call whose arguments arrive in `deltas`, framed as the API frames it. */
function anthropic(deltas: readonly string[], id = 'toolu_01A09q90qw90lq917835lq9', name = 'write_file'): string {
  const record = (type: string, data: unknown) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
  let text = record('message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'm', stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } } });
  text += record('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id, name, input: {} } });
  for (const delta of deltas) text += record('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: delta } });
  text += record('content_block_stop', { type: 'content_block_stop', index: 0 });
  text += record('message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } });
  text += record('message_stop', { type: 'message_stop' });
  return text;
}

/** A Gemini stream (no `partialArgs`) of one call whose arguments are `json` (wrapped in an object unless it is one), in one record. */
function gemini(json: string): string {
  const args = json.trimStart().startsWith('{') ? json : `{"value":${json}}`;
  const call = `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"write_file","args":${args}}}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":5,"totalTokenCount":10},"modelVersion":"gemini-2.5-flash"}`;
  return `data: ${call}\r\n\r\n`;
}

/** `text` cut after each of `sizes` characters (the sizes repeat). */
function cut(text: string, sizes: readonly number[]): string[] {
  const out: string[] = [];
  for (let i = 0, k = 0; i < text.length; k++) {
    const size = sizes[k % sizes.length] as number;
    out.push(text.slice(i, i + size));
    i += size;
  }
  return out;
}

/** One provider read per record, a macrotask apart, as a live model arrives. */
const live = paced;

interface Relayed {
  readonly bytes: number;
  readonly body: Uint8Array;
}

async function relay(input: () => ReadableStream<unknown>, provider: ProviderName, stage: () => AnyStage, encoder: EncoderName): Promise<Relayed> {
  const body = input().pipeThrough(new ProviderEventStream({ provider })).pipeThrough(stage() as never).pipeThrough(ENCODERS[encoder]() as never) as ReadableStream<Uint8Array>;
  const { values } = await settle(body);
  const chunks = values as Uint8Array[];
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return { bytes: all.byteLength, body: all };
}

/** Every stage × encoder over `sse`: the ratios over `limit`, and (SSE, NDJSON) the events decoded against the stage's own. */
async function check(sse: string, limit: number, roundTrip: boolean, source: ProviderName = 'anthropic'): Promise<string[]> {
  const provider = utf8.encode(sse).byteLength;
  const over: string[] = [];
  // The calls' exact arguments, for what a page of path updates ends with.
  const calls = roundTrip ? (await settle(live(sse).pipeThrough(new ProviderEventStream({ provider: source })).pipeThrough(new ConversationEventStream()))).values.flatMap((event) => ((event as { type: string }).type === 'tool-call' ? [(event as { arguments: unknown }).arguments] : [])) : undefined;
  for (const [name, stage] of STAGES) {
    const sent = roundTrip ? await settle(live(sse).pipeThrough(new ProviderEventStream({ provider: source })).pipeThrough(stage() as never)) : undefined;
    for (const encoder of Object.keys(ENCODERS) as EncoderName[]) {
      const { bytes, body } = await relay(() => live(sse), source, stage, encoder);
      if (process.env.WIRE_REPORT !== undefined) console.log(`ratio\t${name}\t${encoder}\t${(bytes / provider).toFixed(2)}`);
      if (bytes > limit * provider) over.push(`${name} → ${encoder}: ${bytes} bytes for ${provider} (${(bytes / provider).toFixed(2)}×)`);
      const decoder = DECODERS[encoder];
      if (calls !== undefined && encoder.endsWith('path-updates')) {
        const page = pathUpdatePage(body);
        expect(page.map((call) => call.input), `${name} → ${encoder}: the final inputs`).toEqual(calls);
        for (const call of page) if (call.rebuilt !== undefined) expect(call.rebuilt, `${name} → ${encoder}: what the updates rebuilt`).toEqual(call.input);
      }
      if (sent !== undefined && decoder !== undefined) {
        const got = await settle(streamOf([body]).pipeThrough(decoder()));
        expectSame({ events: got.values, error: got.error }, { events: sent.values, error: sent.error }, `${name} → ${encoder}`);
      }
    }
  }
  return over;
}

/**
 * What a page of a path-updates encoder ends with, per call in the order they end: the value its
 * updates rebuilt (`JsonFragmentRebuilder`, as the docs' page does), when they completed it, and the
 * input that came whole (AG-UI's `TOOL_CALL_ARGS` before `TOOL_CALL_END`, the UI stream's
 * `tool-input-available`).
 */
function pathUpdatePage(body: Uint8Array): Array<{ rebuilt: unknown; input: unknown }> {
  const rebuilders = new Map<string, JsonFragmentRebuilder>();
  const args = new Map<string, string>();
  const ended: Array<{ rebuilt: unknown; input: unknown }> = [];
  const rebuilt = (toolCallId: string) => {
    const rebuilder = rebuilders.get(toolCallId);
    return rebuilder !== undefined && rebuilder.isComplete() ? rebuilder.value : undefined;
  };
  for (const record of new TextDecoder().decode(body).split('\n\n')) {
    if (!record.startsWith('data: ') || record === 'data: [DONE]') continue;
    const event = JSON.parse(record.slice('data: '.length)) as Record<string, any>;
    const updates = event.type === 'CUSTOM' && event.name === AG_UI_TOOL_INPUT ? event.value : event.type === TOOL_INPUT_UPDATES ? event.data : undefined;
    if (updates !== undefined) {
      let rebuilder = rebuilders.get(updates.toolCallId);
      if (rebuilder === undefined) rebuilders.set(updates.toolCallId, (rebuilder = new JsonFragmentRebuilder()));
      for (const update of updates.updates as PathUpdate[]) rebuilder.push(update);
    } else if (event.type === 'TOOL_CALL_ARGS') args.set(event.toolCallId, (args.get(event.toolCallId) ?? '') + event.delta);
    else if (event.type === 'TOOL_CALL_END') ended.push({ rebuilt: rebuilt(event.toolCallId), input: JSON.parse(args.get(event.toolCallId) ?? '') });
    else if (event.type === 'tool-input-available') ended.push({ rebuilt: rebuilt(event.toolCallId), input: event.input });
  }
  return ended;
}

/** Hostile argument documents, each valid and within every default limit, of about `size` characters. */
function hostile(size: number): ReadonlyArray<readonly [string, string]> {
  const key = 'k'.repeat(size / 4);
  const count = Math.floor(size / 8);
  return [
    ['a long key holding numbers', `{"${key}":[${Array.from({ length: count }, (_, i) => i).join(',')}]}`],
    ['a long key over a long string', `{"${'q'.repeat(size / 2)}":"${'s'.repeat(size / 2)}"}`],
    ['dives 250 levels deep', `[${Array.from({ length: Math.max(1, Math.floor(size / 500)) }, () => `${'['.repeat(250)}0${']'.repeat(250)}`).join(',')}]`],
    ['a wide object of one-character members', `{${Array.from({ length: count }, (_, i) => `"${i.toString(36)}":0`).join(',')}}`],
    ['a wide array of zeros', `[${Array(count * 2).fill(0).join(',')}]`],
    ['long keys, each once, nested', JSON.stringify({ [key]: { [`${key}a`]: { [`${key}b`]: [1, 2, 3] } } })],
    ['members 200 deep around a string', `${'{"a":'.repeat(200)}"${'x'.repeat(50)}"${'}'.repeat(200)}`],
    ['objects in an array, keys repeated', JSON.stringify(Array.from({ length: count / 4 }, (_, i) => ({ path: `src/${i}.ts`, line: i, ok: i % 2 === 0 })))],
  ];
}

describe('relayed bytes are bounded by the provider’s', () => {
  for (const [what, json] of hostile(4000)) {
    it(`${what}, streamed in 1-character deltas: ≤ 4× the provider's bytes through every stage and encoder, and the same events back`, { timeout: 120_000 }, async () => {
      expect(await check(anthropic(cut(json, [1])), 4, true)).toEqual([]);
    });
  }

  it('fast-check: any JSON value, or a hostile document, cut into deltas of 1 to 32 characters (a token or a few): ≤ 4× through every stage and encoder', { timeout: 300_000 }, async () => {
    const documents = fc.oneof(
      fc.json({ maxDepth: 6 }),
      fc.constantFrom(...hostile(1200).map(([, json]) => json)),
      fc.tuple(fc.string({ minLength: 1, maxLength: 400 }), fc.array(fc.integer(), { maxLength: 60 })).map(([k, v]) => JSON.stringify({ [k]: v })),
    );
    await fc.assert(
      fc.asyncProperty(documents, fc.array(fc.integer({ min: 1, max: 32 }), { minLength: 1, maxLength: 8 }), async (json, sizes) => {
        expect(await check(anthropic(cut(json, sizes)), 4, false)).toEqual([]);
      }),
      { numRuns: Number(process.env.WIRE_RUNS ?? 25) },
    );
  });

  it('every recording, through every stage and encoder, relays at most 4× its own bytes', { timeout: 300_000 }, async () => {
    const over: string[] = [];
    for (const recording of readableRecordings()) {
      const provider = PROVIDER_OF_DIR[recording.dir] as ProviderName;
      const input = recordingInput(recording);
      const own = input.reduce((n, chunk) => n + (chunk instanceof Uint8Array ? chunk.byteLength : utf8.encode(JSON.stringify(chunk)).byteLength), 0);
      for (const [name, stage] of STAGES) {
        for (const encoder of Object.keys(ENCODERS) as EncoderName[]) {
          const { bytes } = await relay(() => streamOf(input), provider, stage, encoder);
          if (bytes > 4 * own) over.push(`${recording.file}: ${name} → ${encoder}: ${bytes} bytes for ${own} (${(bytes / own).toFixed(2)}×)`);
        }
      }
    }
    expect(over).toEqual([]);
  });

  // A whole document in one provider record has no per-token framing to pay for the events it
  // makes: there a run of entries made from earlier ones (a dive, an array of numbers, rows of the
  // same shape with their values given anew: batch-repeat.ts) goes as one entry the page expands.
  for (const [what, json] of hostile(8000)) {
    it(`${what}, in one record: ≤ 4× the provider's bytes through every stage and encoder, and the same events back (Anthropic, Gemini)`, { timeout: 240_000 }, async () => {
      expect(await check(anthropic([json]), 4, true)).toEqual([]);
      expect(await check(gemini(json), 4, true, 'gemini')).toEqual([]);
    });
  }

  /** Documents for the properties: any JSON value, the hostile ones, rows of varied shapes, nested arrays. */
  const documents = () =>
    fc.oneof(
      fc.json({ maxDepth: 6 }),
      fc.constantFrom(...hostile(2000).map(([, json]) => json)),
      fc.array(fc.record({ name: fc.string({ maxLength: 6 }), n: fc.integer(), ok: fc.boolean(), list: fc.array(fc.integer({ min: 0, max: 99 }), { maxLength: 6 }) }), { minLength: 20, maxLength: 80 }).map((rows) => JSON.stringify(rows)),
      fc.array(fc.constantFrom('[', ']', '0', ','), { minLength: 1, maxLength: 400 }).map((tokens) => {
        // Arrays nested and repeated at random, kept valid.
        let text = '';
        let depth = 0;
        for (const token of tokens) {
          if (token === '[') text += (text.endsWith('[') || text === '' ? '' : text.endsWith(',') ? '' : ',') + '[', depth++;
          else if (token === ']' && depth > 0 && !text.endsWith(',')) text += ']', depth--;
          else if (token === '0' && (text === '' ? false : text.endsWith('[') || text.endsWith(','))) text += '0';
          else if (token === ',' && depth > 0 && !text.endsWith('[') && !text.endsWith(',')) text += ',';
        }
        if (text === '' || text.endsWith(',')) text = text === '' ? '[' : text + '0';
        if (!text.startsWith('[')) text = `[${text}`, depth++;
        return text + ']'.repeat(depth);
      }),
    );

  it('fast-check: any JSON value or hostile document in one record: ≤ 4× through every stage and encoder, and the same events back (Anthropic, and Gemini, whose arguments are not a string)', { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(documents(), async (json) => {
        expect(await check(anthropic([json]), 4, true)).toEqual([]);
        expect(await check(gemini(json), 4, true, 'gemini')).toEqual([]);
      }),
      { numRuns: Number(process.env.WIRE_RUNS ?? 25) },
    );
  });

  it('fast-check: the same documents in records of any size (1 to 4096 characters of arguments): ≤ 4× through every stage and encoder, and the same events back', { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(documents(), fc.array(fc.integer({ min: 1, max: 4096 }), { minLength: 1, maxLength: 8 }), async (json, sizes) => {
        expect(await check(anthropic(cut(json, sizes)), 4, true)).toEqual([]);
      }),
      { numRuns: Number(process.env.WIRE_RUNS ?? 25) },
    );
  });
});
