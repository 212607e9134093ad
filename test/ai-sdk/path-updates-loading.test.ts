/**
 * `ArgstreamChatTransport` loads its store's reader of path updates (`toolInputs: 'path-updates'`)
 * with the first response that sends one: what arrives from that chunk on waits for the load, and
 * is then read as it would have been at once — the same chunks for the AI SDK, in the same order,
 * an error among them in its place, and the same snapshots. Each test runs on a fresh copy of the
 * transport's modules, so that its first path update finds the reader not loaded yet.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ArgstreamChatTransport as Transport } from '../../src/ai-sdk/chat-transport.ts';
import { streamOf } from '../helpers.ts';
import { SEND, until } from './transport-helpers.ts';

let ArgstreamChatTransport: typeof Transport;
/** What the load of the reader of path updates waits for (opened at once unless a test holds it). */
let gate: Promise<void>;

beforeEach(async () => {
  vi.resetModules();
  gate = Promise.resolve();
  vi.doMock('../../src/store/fragments.ts', async (importOriginal) => {
    await gate;
    return importOriginal();
  });
  ({ ArgstreamChatTransport } = await import('../../src/ai-sdk/chat-transport.ts'));
});

const sse = (chunks: readonly unknown[]): string => chunks.map((chunk) => `data: ${typeof chunk === 'string' ? chunk : JSON.stringify(chunk)}\n\n`).join('');

const updates = (toolCallId: string, list: ReadonlyArray<Record<string, unknown>>) => ({
  type: 'data-argstream-tool-input',
  id: `u-${toolCallId}`,
  transient: true,
  data: { toolCallId, updates: list.map((update) => ({ type: 'path-update', ...update })) },
});

/** A call's input `{"path":"a.txt","n":1}` as path updates, in two chunks, between other chunks. */
const CHUNKS = [
  { type: 'start', messageId: 'm' },
  { type: 'start-step' },
  { type: 'tool-input-start', toolCallId: 'c', toolName: 'write' },
  updates('c', [
    { path: '', kind: 'start-object' },
    { path: '/path', kind: 'key', textValue: 'path' },
    { path: '/path', kind: 'start-string' },
    { path: '/path', kind: 'partial-string', textValue: 'a.t' },
  ]),
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', delta: 'hi' },
  updates('c', [
    { path: '/path', kind: 'partial-string', textValue: 'xt' },
    { path: '/path', kind: 'complete-string' },
    { path: '/n', kind: 'key', textValue: 'n' },
    { path: '/n', kind: 'complete-number', value: 1, raw: '1' },
    { path: '', kind: 'end-object' },
  ]),
  { type: 'text-end', id: 't' },
  { type: 'tool-input-available', toolCallId: 'c', toolName: 'write', input: { path: 'a.txt', n: 1 } },
  { type: 'finish-step' },
  { type: 'finish' },
];

/** A transport whose every request is answered with the body `reads()` gives, one read each. */
function transportAnswering(reads: () => string[]) {
  return new ArgstreamChatTransport({
    api: 'http://127.0.0.1/api/chat',
    schedule: 'sync',
    reconnect: false,
    fetch: async () => new Response(streamOf(reads().map((text) => new TextEncoder().encode(text))), { headers: { 'content-type': 'text/event-stream' } }),
  });
}

/** The chunks the AI SDK reads from one response, the inputs the snapshot showed, and how it ended. */
async function readResponse(transport: Transport) {
  // The input at each change, as JSON text (a change of identity alone is not counted).
  const inputs: string[] = [];
  const unsubscribe = transport.subscribe(() => {
    const input = transport.getSnapshot().calls[0]?.input;
    if (input !== undefined && JSON.stringify(input) !== inputs.at(-1)) inputs.push(JSON.stringify(input));
  });
  const stream = await transport.sendMessages(SEND);
  const chunks: unknown[] = [];
  let error: unknown;
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
  } catch (caught) {
    error = caught;
  }
  unsubscribe();
  return { chunks, inputs, error, snapshot: transport.getSnapshot() };
}

describe('ArgstreamChatTransport loads the reader of path updates with the first response that sends one', () => {
  it('a response read in one piece: the AI SDK gets every chunk in order, the snapshot the call input', async () => {
    const transport = transportAnswering(() => [sse([...CHUNKS, '[DONE]'])]);
    const first = await readResponse(transport);
    expect(first.error).toBeUndefined();
    expect(first.chunks).toEqual(CHUNKS);
    expect(first.snapshot.status).toBe('done');
    expect(first.snapshot.text).toBe('hi');
    expect(first.snapshot.calls).toMatchObject([{ toolCallId: 'c', toolName: 'write', status: 'complete', input: { path: 'a.txt', n: 1 } }]);
    expect(first.inputs.at(-1)).toBe('{"path":"a.txt","n":1}');
    // Loaded now: the same response is read at once, to the same chunks and snapshots.
    const second = await readResponse(transport);
    expect(second.chunks).toEqual(first.chunks);
    expect(second.inputs).toEqual(first.inputs);
    expect(second.snapshot.calls).toEqual(first.snapshot.calls);
  });

  it('one SSE event per read: the updates make the input grow by prefixes, as once loaded', async () => {
    const transport = transportAnswering(() => [...CHUNKS, '[DONE]'].map((chunk) => sse([chunk])));
    const first = await readResponse(transport);
    expect(first.chunks).toEqual(CHUNKS);
    expect(first.inputs).toEqual(['{}', '{"path":""}', '{"path":"a.t"}', '{"path":"a.txt"}', '{"path":"a.txt","n":1}']);
    const second = await readResponse(transport);
    expect(second.inputs).toEqual(first.inputs);
  });

  it('an error in the read that waits comes after the chunks before it, as once loaded', async () => {
    const body = sse([CHUNKS[0], CHUNKS[2], CHUNKS[3], CHUNKS[4], CHUNKS[5], 'not json', CHUNKS[6]]);
    const transport = transportAnswering(() => [body]);
    const first = await readResponse(transport);
    // The chunks before the error are enqueued before the stream errors (which drops those not read yet).
    expect([CHUNKS[0], CHUNKS[2], CHUNKS[3], CHUNKS[4], CHUNKS[5]].slice(0, first.chunks.length)).toEqual(first.chunks);
    expect(first.error).toMatchObject({ name: 'ProviderError', provider: 'ai-sdk-ui', type: 'invalid-stream', code: 'not-json' });
    expect(first.snapshot.status).toBe('error');
    expect(first.snapshot.calls).toMatchObject([{ toolCallId: 'c', status: 'failed', input: { path: 'a.t' } }]);
    const second = await readResponse(transport);
    expect(second.chunks).toEqual(first.chunks);
    expect(second.error).toMatchObject({ code: 'not-json', message: (first.error as Error).message });
    expect(second.snapshot.calls).toEqual(first.snapshot.calls);
  });

  it('a chunk of updates without its list, or after the end, errors as once loaded', async () => {
    const malformed = { type: 'data-argstream-tool-input', data: { toolCallId: 'c' } };
    for (const [body, expected] of [
      [sse([CHUNKS[0], CHUNKS[2], malformed]), { type: 'invalid-format', message: 'ai-sdk-ui: a data-argstream-tool-input chunk without its toolCallId and updates' }],
      [sse([CHUNKS[0], { type: 'finish' }, CHUNKS[3]]), { type: 'after-end', message: 'ai-sdk-ui: a "data-argstream-tool-input" record came after the end of the stream ("finish"); nothing is added to a finished turn' }],
    ] as const) {
      vi.resetModules();
      ({ ArgstreamChatTransport } = await import('../../src/ai-sdk/chat-transport.ts'));
      const transport = transportAnswering(() => [body]);
      const first = await readResponse(transport);
      expect(first.error).toMatchObject({ name: 'ProviderError', provider: 'ai-sdk-ui', ...expected });
      expect(first.snapshot.status).toBe('error');
      const second = await readResponse(transport);
      expect(second.error).toMatchObject({ name: 'ProviderError', provider: 'ai-sdk-ui', ...expected });
      expect(second.chunks).toEqual(first.chunks);
    }
  });

  it('a stop while it loads ends the response as stopped: what waited is not read', async () => {
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    const controller = new AbortController();
    const transport = transportAnswering(() => [sse(CHUNKS.slice(0, 6)), sse([...CHUNKS.slice(6), '[DONE]'])]);
    const stream = await transport.sendMessages({ ...SEND, abortSignal: controller.signal });
    const reader = stream.getReader();
    const read = reader.read();
    // The first read ends after the first chunk of updates, which waits for its reader.
    await until(transport, (snapshot) => snapshot.calls.length === 1);
    controller.abort();
    await reader.cancel();
    open();
    expect(await read).toEqual({ done: true, value: undefined });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const snapshot = transport.getSnapshot();
    expect(snapshot.status).toBe('done');
    expect(snapshot.text).toBe('');
    expect(snapshot.calls).toMatchObject([{ toolCallId: 'c', status: 'failed', input: {} }]);
  });

  it('a reader that cannot be loaded fails the snapshot with its error; the AI SDK gets every chunk', async () => {
    const lost = new TypeError('Failed to fetch dynamically imported module');
    gate = Promise.reject(lost);
    gate.catch(() => undefined);
    const transport = transportAnswering(() => [sse([...CHUNKS, '[DONE]'])]);
    const response = await readResponse(transport);
    expect(response.error).toBeUndefined();
    expect(response.chunks).toEqual(CHUNKS);
    expect(response.snapshot.status).toBe('error');
    // The load's error (vitest wraps what a mocked module's factory throws).
    expect(response.snapshot.error).toBeInstanceOf(Error);
    expect(response.snapshot.calls).toMatchObject([{ toolCallId: 'c', status: 'failed', error: response.snapshot.error }]);
  });
});
