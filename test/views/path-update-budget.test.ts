/**
 * `PathUpdateBudget` in the encoders' `toolInputs: 'path-updates'` modes:
 *
 * - ordinary calls lose nothing: for every recording whose calls stream in pieces, and a 20 KB
 *   `write_file` in 3–11-character deltas, each call gets every path update the mode makes without a
 *   budget, in the same records, counted independently (a parser and a `PathUpdateEncoder` over each
 *   piece of the call's argument text); the first record of two recordings waits for the next piece;
 * - a hostile call (10,000 small numbers, deep nesting), in deltas or in one record, stays within 4×
 *   the provider's bytes and ends with its exact arguments; in one record its updates stop early;
 * - a call whose updates stop midway ends with its exact arguments through the `ai-sdk-ui` and
 *   `ag-ui` adapters and in `ArgstreamChatTransport`'s snapshot.
 */
import { describe, expect, it } from 'vitest';
import { ArgstreamChatTransport } from '../../src/ai-sdk/chat-transport.ts';
import { AG_UI_TOOL_INPUT, AgUiEncoder } from '../../src/bindings/ag-ui.ts';
import { TOOL_INPUT_UPDATES, UIMessageStreamEncoder } from '../../src/bindings/ai-sdk/server.ts';
import { IncrementalJsonParser } from '../../src/json/incremental-json-parser.ts';
import { ConversationEventStream, JsonFragmentRebuilder, ProviderEventStream, collectTurn, type PathUpdate, type PipelineEvent, type ProviderName, type StreamFragment } from '../../src/index.ts';
import { PathUpdateEncoder } from '../../src/views/path-update-encoder.ts';
import { readAll, settle, streamOf } from '../helpers.ts';
import { PROVIDER_OF_DIR, readableRecordings, recordingInput } from '../providers/event-stream-helpers.ts';

const MODES = {
  'ag-ui': () => new AgUiEncoder({ toolInputs: 'path-updates' }),
  'ui-message-stream': () => new UIMessageStreamEncoder({ toolInputs: 'path-updates' }),
} as const;

/** Chunks of bytes as one. */
function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const all = new Uint8Array(chunks.reduce((n, chunk) => n + chunk.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return all;
}

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

/**
 * Per call slot, the updates each non-empty piece of its argument text makes without a budget (a
 * list per piece that makes any), and how many pieces it came in; a call whose text stops parsing
 * counts what came before.
 */
function unbudgeted(events: readonly PipelineEvent[]): Map<number, { records: PathUpdate[][]; pieces: number }> {
  const calls = new Map<number, { parser: IncrementalJsonParser; encoder: PathUpdateEncoder; broken: boolean; records: PathUpdate[][]; pieces: number }>();
  for (const event of events) {
    if (event.type !== 'part' || event.part.type !== 'tool-call-arguments' || event.part.chunk === '') continue;
    let call = calls.get(event.index);
    if (call === undefined) calls.set(event.index, (call = { parser: new IncrementalJsonParser(), encoder: new PathUpdateEncoder(), broken: false, records: [], pieces: 0 }));
    call.pieces++;
    if (call.broken) continue;
    const fragments: StreamFragment[] = [];
    try {
      call.parser.push(event.part.chunk, fragments);
    } catch {
      call.broken = true;
    }
    const updates: PathUpdate[] = [];
    for (const fragment of fragments) call.encoder.push(fragment, updates);
    if (updates.length > 0) call.records.push(updates);
  }
  return calls;
}

/** The calls' ids by slot, from their starts. */
function idsOf(events: readonly PipelineEvent[]): Map<number, string> {
  const ids = new Map<number, string>();
  for (const event of events) if (event.type === 'part' && event.part.type === 'tool-call-start' && event.part.toolCallId !== '' && !ids.has(event.index)) ids.set(event.index, event.part.toolCallId);
  return ids;
}

/** `text` cut in pieces of 3 to 11 characters, as a model's tokens. */
function tokens(text: string): string[] {
  const out: string[] = [];
  for (let i = 0, k = 0; i < text.length; k++) {
    const size = 3 + ((k * 7) % 9);
    out.push(text.slice(i, i + size));
    i += size;
  }
  return out;
}

const WRITE_FILE = JSON.stringify({
  path: 'src/main.rs',
  content: Array.from({ length: 500 }, (_, i) => `    let line_${i} = "value \\"${i}\\"\tünïcödé";\n`).join('').slice(0, 20_000),
});

/** Recordings whose calls stream, where the first record of a call is too dense for the text before it and waits for the next piece. */
const FIRST_RECORD_WAITS = new Set(['gemini/vertex-partial-args-nested-unicode.sse', 'gemini/vertex-partial-args-numbers-no-terminal.sse']);

describe('PathUpdateBudget in the path-updates modes', () => {
  for (const [mode, encoder] of Object.entries(MODES)) {
    it(`${mode}: a call streamed in 3 pieces or more (every recording, a 20 KB write_file) gets every path update in the same records`, { timeout: 120_000 }, async () => {
      const inputs: Array<[string, ProviderName, () => ReadableStream<unknown>]> = [['write_file 20 KB', 'anthropic', () => streamOf([anthropic(tokens(WRITE_FILE))])]];
      for (const recording of readableRecordings()) inputs.push([recording.file, PROVIDER_OF_DIR[recording.dir] as ProviderName, () => streamOf(recordingInput(recording))]);
      const differ: string[] = [];
      const checked: string[] = [];
      for (const [name, provider, input] of inputs) {
        const events = (await settle(input().pipeThrough(new ProviderEventStream({ provider })))).values as PipelineEvent[];
        const ids = idsOf(events);
        // Calls that complete (a cut call's last updates may wait for text that never comes).
        const turn = (await settle(streamOf(events).pipeThrough(new ConversationEventStream()))).values as PipelineEvent[];
        const complete = new Set(turn.flatMap((event) => (event.type === 'tool-call' || event.type === 'provider-tool-call' ? [event.index] : [])));
        const expected = [...unbudgeted(events)].filter(([index, call]) => call.pieces >= 3 && complete.has(index) && ids.has(index));
        if (expected.length === 0) continue;
        const sent = records((await settle(streamOf(events).pipeThrough(encoder() as never))).values as Uint8Array[]).flatMap((record) => {
          const updates = updatesOf(record);
          return updates === undefined ? [] : [updates as { toolCallId: string; updates: PathUpdate[] }];
        });
        for (const [index, call] of expected) {
          const mine = sent.filter((record) => record.toolCallId === ids.get(index));
          checked.push(`${name}#${index}`);
          if (JSON.stringify(mine.flatMap((record) => record.updates)) !== JSON.stringify(call.records.flat())) differ.push(`${name}#${index}: updates lost`);
          const records = FIRST_RECORD_WAITS.has(name) ? call.records.length - 1 : call.records.length;
          if (mine.length !== records) differ.push(`${name}#${index}: ${mine.length} records, ${call.records.length} without a budget`);
        }
      }
      expect(differ).toEqual([]);
      expect(checked).toContain('write_file 20 KB#0');
      expect(checked.length).toBeGreaterThan(40);
    });

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

describe('a call whose updates stop at their budget, read back', () => {
  // A first piece that fits (with a number written `1.0`), then 10,000 numbers in one piece.
  const deltas = ['{"a":1.0,"c":[', `${Array(10_000).fill('1.50').join(',')}]}`];
  const args = JSON.parse(deltas.join('')) as unknown;

  it("ProviderEventStream({ provider: 'ai-sdk-ui' }) ends with the exact arguments", async () => {
    const body = streamOf([anthropic(deltas)]).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })).pipeThrough(new UIMessageStreamEncoder({ toolInputs: 'path-updates' }));
    const chunks = (await settle(body)).values as Uint8Array[];
    expect(records(chunks).filter((record) => updatesOf(record) !== undefined).length).toBe(1);
    const turn = await collectTurn(streamOf(chunks).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' })));
    expect(turn.toolCalls.map((call) => call.arguments)).toEqual([args]);
  });

  it('ArgstreamChatTransport: the snapshot shows the call streaming with what the updates gave, then complete with the exact input', async () => {
    const body = streamOf([anthropic(deltas)]).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })).pipeThrough(new UIMessageStreamEncoder({ toolInputs: 'path-updates' }));
    const events = new TextDecoder().decode(concat((await settle(body)).values as Uint8Array[])).split(/(?<=\n\n)/);
    const transport = new ArgstreamChatTransport({
      api: 'http://127.0.0.1/api/chat',
      schedule: 'sync',
      fetch: async () =>
        new Response(
          new ReadableStream<Uint8Array>({
            pull(controller) {
              const event = events.shift();
              if (event === undefined) controller.close();
              else controller.enqueue(new TextEncoder().encode(event));
            },
          }),
        ),
    });
    const seen: unknown[] = [];
    transport.subscribe(() => {
      for (const call of transport.getSnapshot().calls) if (call.status === 'streaming') seen.push(structuredClone(call.input));
    });
    await readAll(await transport.sendMessages({ trigger: 'submit-message', chatId: 'c', messageId: undefined, messages: [], abortSignal: undefined }));
    expect(seen).toContainEqual({ a: 1, c: [] });
    expect(transport.getSnapshot().calls.map((call) => [call.status, call.input])).toEqual([['complete', args]]);
  });

  it("ProviderEventStream({ provider: 'ag-ui' }) ends with the exact arguments", async () => {
    const body = streamOf([anthropic(deltas)]).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })).pipeThrough(new AgUiEncoder({ toolInputs: 'path-updates' }));
    const chunks = (await settle(body)).values as Uint8Array[];
    expect(records(chunks).filter((record) => updatesOf(record) !== undefined).length).toBe(1);
    const turn = await collectTurn(streamOf(chunks).pipeThrough(new ProviderEventStream({ provider: 'ag-ui' })));
    expect(turn.toolCalls.map((call) => call.arguments)).toEqual([args]);
  });
});
