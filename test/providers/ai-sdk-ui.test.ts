/**
 * `ProviderEventStream({provider: 'ai-sdk-ui'})`: the UI message streams the AI SDK's own server
 * sends (`streamText` of `ai` 5, 6 and 7 → `toUIMessageStreamResponse()`, recorded in
 * `test/fixtures/ai-sdk-ui/`), decoded under every cutting, against what the AI SDK itself ends
 * with on the same bytes (`parseJsonEventStream` with the package's chunk schema, as its HTTP
 * transport reads a response, then `readUIMessageStream`); the errors; the chunks passed on.
 */
import { parseJsonEventStream as parse5, readUIMessageStream as read5, uiMessageChunkSchema as schema5 } from 'ai';
import { parseJsonEventStream as parse6, readUIMessageStream as read6, uiMessageChunkSchema as schema6 } from 'ai6';
import { parseJsonEventStream as parse7, readUIMessageStream as read7, uiMessageChunkSchema as schema7 } from 'ai7';
import { describe, expect, it } from 'vitest';
import { guessProvider } from '../../src/cli/guess-provider.ts';
import { inspect } from '../../src/cli/inspect.ts';
import { UIMessageStreamEncoder } from '../../src/ai-sdk/ui-message-stream-encoder.ts';
import { ProviderError } from '../../src/errors.ts';
import { EventStreamEncoder } from '../../src/relay/event-stream-encoder.ts';
import { TurnStore } from '../../src/store/source-reading.ts';
import { IncompleteToolCallError } from '../../src/store/turn-store.ts';
import { ProviderEventDecoder } from '../../src/providers/provider-event-decoder.ts';
import { collectTurn } from '../../src/sinks/collect-turn.ts';
import { fromResponse } from '../../src/sources/response.ts';
import { ConversationEventStream } from '../../src/transforms/conversation-event-stream.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import type { FlushEvent, PipelineEvent, StreamEvent } from '../../src/types.ts';
import { FIXTURES, cuttings, listFixtures, readAll, readFixture, settle, streamOf } from '../helpers.ts';
import type { UIPart } from '../ai-sdk/transport-helpers.ts';

const RECORDINGS = listFixtures('ai-sdk-ui').filter((file) => file.endsWith('.sse'));
type Major = 5 | 6 | 7;
const MAJORS = [5, 6, 7] as const;
const majorOf = (file: string): Major => Number(/^ai([567])-/.exec(file)?.[1]) as Major;
/** Each major's reader: its `parseJsonEventStream` with its chunk schema (its HTTP transport), and `readUIMessageStream`. */
const READERS = {
  5: { parse: parse5, schema: schema5, read: read5 },
  6: { parse: parse6, schema: schema6, read: read6 },
  7: { parse: parse7, schema: schema7, read: read7 },
} as const;
/** The message of the `aborted` ProviderError for each major's recorded abort: its chunk's reason (ai 5's has none). */
const ABORT_MESSAGE = { 5: 'the AI SDK server aborted the response', 6: 'This operation was aborted', 7: 'AbortError: This operation was aborted' } as const;

/** One part of a final message, as both sides are compared (ids of text and reasoning aside). */
type ComparedPart =
  | { type: 'text' | 'reasoning'; text: string }
  | {
      type: 'tool';
      toolCallId: string;
      toolName: string;
      /** `call`: complete input; `incomplete`: cut while streaming; `failed`: the AI SDK's tool-input-error. */
      state: 'call' | 'incomplete' | 'failed';
      input?: unknown;
      output?: unknown;
      errorText?: string | undefined;
      providerExecuted?: true;
    };

/** The AI SDK's final message, as compared. */
function aiSdkParts(parts: readonly UIPart[]): ComparedPart[] {
  const out: ComparedPart[] = [];
  for (const part of parts) {
    if (part.type === 'text' || part.type === 'reasoning') out.push({ type: part.type, text: part.text ?? '' });
    else if (part.type === 'dynamic-tool' || part.type.startsWith('tool-')) {
      // `output-error`: input the AI SDK refused (tool-input-error), or a call whose execution failed.
      const state = part.state === 'input-streaming' ? 'incomplete' : part.state === 'output-error' ? 'failed' : 'call';
      out.push({
        type: 'tool',
        toolCallId: part.toolCallId ?? '',
        toolName: part.type === 'dynamic-tool' ? (part.toolName ?? '') : part.type.slice('tool-'.length),
        state,
        ...(state === 'failed' ? { errorText: part.errorText } : { input: part.input }),
        ...(part.state === 'output-available' ? { output: part.output } : {}),
        ...(part.providerExecuted === true ? { providerExecuted: true as const } : {}),
      });
    }
  }
  return out;
}

/**
 * argstream's message, as compared: the text of each text and reasoning slot (from the parts, so
 * text streamed before an error counts), each call from its conversation event, results joined to
 * their call by id (a provider-run call's `provider-tool-result`, the output of a call the AI SDK
 * server ran from the `tool-output-available` chunk passed on).
 */
function argstreamParts(events: readonly PipelineEvent[]): ComparedPart[] {
  const slots = new Map<number, ComparedPart>();
  const calls = new Map<string, Extract<ComparedPart, { type: 'tool' }>>();
  for (const event of events) {
    if (event.type === 'part' && (event.part.type === 'message' || event.part.type === 'reasoning')) {
      const type = event.part.type === 'message' ? 'text' : 'reasoning';
      const slot = slots.get(event.index) ?? { type, text: '' };
      (slot as { text: string }).text += event.part.text;
      slots.set(event.index, slot);
    } else if (event.type === 'tool-call' || event.type === 'provider-tool-call' || event.type === 'tool-call-failed' || event.type === 'tool-call-incomplete') {
      const call: Extract<ComparedPart, { type: 'tool' }> = {
        type: 'tool',
        toolCallId: event.toolCallId,
        toolName: event.toolName,
        state: event.type === 'tool-call-failed' ? 'failed' : event.type === 'tool-call-incomplete' ? 'incomplete' : 'call',
        ...(event.type === 'tool-call-failed'
          ? { errorText: event.error.message }
          : { input: event.type === 'tool-call-incomplete' ? event.partialArguments : event.arguments }),
        ...(event.type === 'provider-tool-call' || ('providerExecuted' in event && event.providerExecuted === true) ? { providerExecuted: true as const } : {}),
      };
      slots.set(event.index, call);
      calls.set(event.toolCallId, call);
    } else if (event.type === 'provider-tool-result') {
      const call = calls.get(event.toolCallId);
      if (call !== undefined) call.output = event.result;
    } else if (event.type === 'flush' && event.metadata?.['blockType'] === 'tool-output-available') {
      const block = event.metadata['block'] as { toolCallId: string; output: unknown };
      const call = calls.get(block.toolCallId);
      if (call !== undefined) call.output = block.output;
    } else if (event.type === 'flush' && event.metadata?.['blockType'] === 'tool-output-error') {
      // The execution of a call by the AI SDK server failed: its part is `output-error` there.
      const block = event.metadata['block'] as { toolCallId: string; errorText: string };
      const call = calls.get(block.toolCallId);
      if (call !== undefined) {
        call.state = 'failed';
        call.errorText = block.errorText;
        delete call.input;
      }
    }
  }
  return [...slots.entries()].sort((a, b) => a[0] - b[0]).map(([, part]) => part);
}

/** What the AI SDK (of the recording's major) ends with, reading `chunks` as its HTTP transport does. */
async function aiSdkMessage(major: Major, chunks: readonly Uint8Array[]): Promise<{ parts: UIPart[]; errors: string[] }> {
  const parse = READERS[major].parse as (options: { stream: ReadableStream<Uint8Array>; schema: unknown }) => ReadableStream<{ success: boolean; value?: unknown }>;
  const read = READERS[major].read as (options: { stream: ReadableStream<unknown>; onError?: (error: unknown) => void }) => AsyncIterable<{ parts: UIPart[] }>;
  const schema = READERS[major].schema();
  const results = parse({ stream: streamOf(chunks), schema });
  const stream = results.pipeThrough(
    new TransformStream<{ success: boolean; value?: unknown }, unknown>({
      transform(result, controller) {
        if (!result.success) throw new Error('a chunk the AI SDK rejects');
        controller.enqueue(result.value);
      },
    }),
  );
  const errors: string[] = [];
  let last: { parts: UIPart[] } = { parts: [] };
  for await (const message of read({ stream, onError: (error) => errors.push(String((error as Error).message)) })) last = message;
  return { parts: last.parts, errors };
}

/** argstream's events for `chunks`: the decoder's and the conversation builder's (errors isolated), and the stream's error. */
async function argstreamEvents(chunks: ReadonlyArray<Uint8Array | string | object>): Promise<{ events: PipelineEvent[]; error: unknown }> {
  const { values, error } = await settle(
    streamOf(chunks).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' })).pipeThrough(new ConversationEventStream({ passthrough: true, isolateErrors: true })),
  );
  return { events: values, error };
}

/** The recording's chunks, as its SSE `data:` records. */
function chunksOf(file: string): Array<{ type: string } & Record<string, unknown>> {
  const text = new TextDecoder().decode(readFixture(`ai-sdk-ui/${file}`));
  return text
    .split('\n\n')
    .map((record) => record.replace(/^data: /, ''))
    .filter((data) => data !== '' && data !== '[DONE]')
    .map((data) => JSON.parse(data) as { type: string } & Record<string, unknown>);
}

describe("ProviderEventStream({provider: 'ai-sdk-ui'}) on the AI SDK's own UI message streams", () => {
  it('the recordings are there, of every major', () => {
    for (const major of MAJORS) expect(RECORDINGS.filter((file) => file.startsWith(`ai${major}-`)), `ai ${major}`).toHaveLength(7);
    expect(RECORDINGS).toHaveLength(21);
  });

  for (const file of RECORDINGS) {
    const bytes = readFixture(`ai-sdk-ui/${file}`);
    it.each(cuttings(bytes))(`${file}: %s, the text and the calls the AI SDK ends with`, async (_name, chunks) => {
      const sdk = await aiSdkMessage(majorOf(file), chunks);
      const { events, error } = await argstreamEvents(chunks);
      const aborted = file.includes('abort');
      // An abort errors argstream's stream: the call it cut is no conversation event (TurnStore
      // keeps its partial input: see 'ai-sdk-ui errors'), where the AI SDK keeps an input-streaming part.
      expect(argstreamParts(events)).toEqual(aiSdkParts(sdk.parts).filter((part) => !(aborted && part.type === 'tool' && part.state === 'incomplete')));
      // The AI SDK's `error` chunk is argstream's ProviderError, and so is its abort; every other recording reads to its end.
      if (sdk.errors.length > 0) {
        expect(error).toBeInstanceOf(ProviderError);
        expect(error).toMatchObject({ provider: 'ai-sdk-ui', type: 'error', message: sdk.errors[0] });
      } else if (aborted) {
        expect(error).toBeInstanceOf(ProviderError);
        expect(error).toMatchObject({ provider: 'ai-sdk-ui', type: 'aborted' });
      } else expect(error).toBeUndefined();
    });
  }

  it.each(RECORDINGS)('%s: the chunk objects read as the bytes do', async (file) => {
    const fromBytes = await argstreamEvents([readFixture(`ai-sdk-ui/${file}`)]);
    const fromObjects = await argstreamEvents(chunksOf(file));
    expect(fromObjects).toEqual(fromBytes);
  });

  it.each(RECORDINGS.filter((file) => !file.includes('error-after-text') && !file.includes('abort')))('%s: fromResponse reads the response, and collectTurn has the calls', async (file) => {
    const response = new Response(new Uint8Array(readFixture(`ai-sdk-ui/${file}`)), { headers: { 'content-type': 'text/event-stream', 'x-vercel-ai-ui-message-stream': 'v1' } });
    const turn = await collectTurn(fromResponse(response, { provider: 'ai-sdk-ui' }), { isolateErrors: true });
    const expected = argstreamParts((await argstreamEvents([readFixture(`ai-sdk-ui/${file}`)])).events);
    expect(turn.toolCalls.map((call) => call.toolCallId)).toEqual(expected.filter((part) => part.type === 'tool' && part.state === 'call' && part.providerExecuted !== true).map((part) => (part as { toolCallId: string }).toolCallId));
    expect(turn.text).toBe(expected.filter((part) => part.type === 'text').map((part) => (part as { text: string }).text).join(''));
  });

  it('reasoning, text, then a streamed write_file call: the exact arguments, the finish reason, the message id', async () => {
    for (const major of MAJORS) {
      const turn = await collectTurn(streamOf([readFixture(`ai-sdk-ui/ai${major}-reasoning-text-write-file.sse`)]).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' })));
      expect(turn.reasoning).toBe('The user wants a Rust hello world.');
      expect(turn.text).toBe("I'll write the file now.");
      expect(turn.toolCalls).toEqual([
        expect.objectContaining({ toolCallId: 'call_1', toolName: 'write_file', arguments: { path: 'src/main.rs', content: 'fn main() {\n    println!("héllo, \\"wörld\\" 🚀");\n}\n' } }),
      ]);
      expect(turn.finishReason).toBe('tool-calls');
      const events = await readAll(streamOf([readFixture(`ai-sdk-ui/ai${major}-reasoning-text-write-file.sse`)]).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' })));
      expect(events.at(-1)).toEqual({ type: 'finished', reason: 'tool-calls', rawReason: 'tool-calls', metadata: { messageId: `msg-${major}-reasoning-text-write-file` } });
    }
  });

  it('the reasoning signature in the provider metadata is the reasoning event\'s', async () => {
    const turn = await collectTurn(streamOf([readFixture('ai-sdk-ui/ai7-reasoning-text-write-file.sse')]).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' })));
    expect(turn.events.find((event) => event.type === 'reasoning')).toMatchObject({ signature: 'sig-1' });
  });

  it('a call the provider runs is a provider tool call with its result, never an application call', async () => {
    for (const major of MAJORS) {
      const turn = await collectTurn(streamOf([readFixture(`ai-sdk-ui/ai${major}-provider-executed-web-search.sse`)]).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' })));
      expect(turn.toolCalls).toEqual([]);
      expect(turn.providerToolCalls).toEqual([
        { toolCallId: 'srv_1', toolName: 'web_search', arguments: { query: 'rust hello world' }, result: [{ url: 'https://doc.rust-lang.org/', title: 'Rust' }] },
      ]);
      expect(turn.text).toBe('Found it.');
    }
  });
});

describe('ai-sdk-ui errors', () => {
  it('an error chunk is a ProviderError after everything before it', async () => {
    for (const major of MAJORS) {
      const { values, error } = await settle(streamOf([readFixture(`ai-sdk-ui/ai${major}-error-after-text.sse`)]).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' })));
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ provider: 'ai-sdk-ui', type: 'error', message: 'Overloaded: try again later', cause: { type: 'error', errorText: 'Overloaded: try again later' } });
      expect(values.flatMap((event) => (event.type === 'part' && event.part.type === 'message' ? [event.part.text] : [])).join('')).toBe('Let me think about it.');
    }
  });

  it('tool-input-error is a failed call, by default and with isolateErrors: a tool-call-failed with its ProviderError, and the turn goes on', async () => {
    for (const major of MAJORS) {
      const bytes = readFixture(`ai-sdk-ui/ai${major}-tool-input-error.sse`);
      const errorText = chunksOf(`ai${major}-tool-input-error.sse`).find((chunk) => chunk.type === 'tool-input-error')?.['errorText'];
      const strict = await settle(streamOf([bytes]).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' })).pipeThrough(new ConversationEventStream()));
      expect(strict.error).toBeUndefined();
      const failed = strict.values.find((event) => event.type === 'tool-call-failed') as { error: unknown } | undefined;
      expect(failed?.error).toBeInstanceOf(ProviderError);
      expect(failed?.error).toMatchObject({ provider: 'ai-sdk-ui', type: 'tool-input-error', message: errorText, cause: { type: 'tool-input-error', toolCallId: 'call_1', input: { path: 42 } } });
      expect(strict.values.filter((event) => event.type === 'message')).toEqual([expect.objectContaining({ text: 'Here.' })]);

      const turn = await collectTurn(streamOf([bytes]).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' })), { isolateErrors: true });
      expect(turn.toolCalls).toEqual([]);
      expect(turn.failedToolCalls).toEqual([expect.objectContaining({ type: 'tool-call-failed', toolCallId: 'call_1', toolName: 'write_file', error: failed?.error })]);
      expect(turn.finishReason).toBe('tool-calls');
    }
  });

  it('a tool-input-error of a call that never streamed opens it and fails it, with no arguments', async () => {
    const events = await readAll(
      streamOf<object>([{ type: 'tool-input-error', toolCallId: 'c9', toolName: 'nope', input: '{"broken', errorText: 'Model tried to call unavailable tool' }, { type: 'finish' }]).pipeThrough(
        new ProviderEventStream({ provider: 'ai-sdk-ui' }),
      ),
    );
    expect(events.slice(0, 2)).toEqual([
      { type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: 'c9', toolName: 'nope' } },
      { type: 'flush', index: 0, metadata: { toolCallError: expect.any(ProviderError) } },
    ]);
    const turn = await collectTurn(streamOf(events), { isolateErrors: true });
    expect(turn.failedToolCalls.map((call) => call.error.message)).toEqual(['Model tried to call unavailable tool']);
  });

  it("abort is a ProviderError 'aborted' with the abort's reason, after everything before it: collectTurn rejects with it, TurnStore shows it with the cut call's partial input", async () => {
    for (const major of MAJORS) {
      const file = `ai${major}-abort-mid-call.sse`;
      const abort = chunksOf(file).find((chunk) => chunk.type === 'abort');
      const { values, error } = await settle(streamOf([readFixture(`ai-sdk-ui/${file}`)]).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' })));
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({
        provider: 'ai-sdk-ui',
        type: 'aborted',
        message: ABORT_MESSAGE[major],
        cause: abort,
      });
      expect(values.some((event) => event.type === 'finished')).toBe(false);
      expect(values.flatMap((event) => (event.type === 'part' && event.part.type === 'tool-call-arguments' ? [event.part.chunk] : [])).join('')).toBe('{"path":"src/main.rs","content":"fn main() {\\n');
      await expect(collectTurn(streamOf([readFixture(`ai-sdk-ui/${file}`)]).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' })))).rejects.toMatchObject({ type: 'aborted' });
      const store = new TurnStore();
      const snapshot = await store.consume(new Response(new Uint8Array(readFixture(`ai-sdk-ui/${file}`))), { decoder: new ProviderEventDecoder({ provider: 'ai-sdk-ui' }) });
      expect(snapshot.status).toBe('error');
      expect(snapshot.error).toMatchObject({ provider: 'ai-sdk-ui', type: 'aborted' });
      expect(snapshot.text).toBe('Writing.');
      expect(snapshot.calls).toEqual([
        expect.objectContaining({ toolCallId: 'call_1', toolName: 'write_file', status: 'failed', input: { path: 'src/main.rs', content: 'fn main() {\n' }, error: snapshot.error }),
      ]);
    }
  });

  it('an abort relayed goes on as one: an argstream relay sends the ProviderError, a UIMessageStreamEncoder the abort chunk the server sent', async () => {
    for (const major of MAJORS) {
      const file = `ai${major}-abort-mid-call.sse`;
      const abort = chunksOf(file).find((chunk) => chunk.type === 'abort');
      const events = () => streamOf([readFixture(`ai-sdk-ui/${file}`)]).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' }));
      const relayed = await new TurnStore().consume(new Response(events().pipeThrough(new EventStreamEncoder()), { headers: { 'content-type': 'text/event-stream' } }));
      expect(relayed.status).toBe('error');
      expect(relayed.error).toBeInstanceOf(ProviderError);
      expect(relayed.error).toMatchObject({ provider: 'ai-sdk-ui', type: 'aborted' });
      expect(relayed.calls).toEqual([expect.objectContaining({ status: 'failed', input: { path: 'src/main.rs', content: 'fn main() {\n' } })]);
      const text = new TextDecoder().decode(new Uint8Array((await readAll(events().pipeThrough(new UIMessageStreamEncoder({ major })))).flatMap((bytes) => [...bytes])));
      const chunks = text.split('\n\n').filter((record) => record.startsWith('data: ') && record !== 'data: [DONE]').map((record) => JSON.parse(record.slice(6)) as { type: string });
      // The abort goes on as one; its reason (ai 6's and 7's chunks have one) is argstream's words for the page, not the server's.
      expect(abort).toEqual(major === 5 ? { type: 'abort' } : { type: 'abort', reason: expect.any(String) });
      expect(chunks.at(-1)).toEqual(major === 5 ? abort : { type: 'abort', reason: 'ai-sdk-ui: the request was aborted' });
      expect(chunks.some((chunk) => chunk.type === 'error')).toBe(false);
    }
  });

  it('a chunk that is not an object is ignored; text that is not SSE is refused as any provider\'s', async () => {
    const { error } = await settle(streamOf(['<html>502 Bad Gateway</html>']).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' })));
    expect(error).toMatchObject({ provider: 'ai-sdk-ui', type: 'invalid-stream', code: 'not-sse' });
  });
});

describe('ai-sdk-ui chunks argstream does not model are passed on', () => {
  const chunks = [
    { type: 'start', messageId: 'm1', messageMetadata: { model: 'x', a: { b: 1 } } },
    { type: 'start-step' },
    { type: 'data-weather', id: 'w1', data: { city: 'Paris' } },
    { type: 'source-url', sourceId: 's1', url: 'https://example.com', title: 'Example' },
    { type: 'text-start', id: '0' },
    { type: 'text-delta', id: '0', delta: 'Hi' },
    { type: 'text-end', id: '0', providerMetadata: { p: { x: 1 } } },
    { type: 'file', url: 'data:text/plain;base64,SGk=', mediaType: 'text/plain' },
    { type: 'message-metadata', messageMetadata: { a: { c: 2 } } },
    { type: 'finish-step' },
    { type: 'start-step' },
    // The same text id in the next step is a new slot.
    { type: 'text-start', id: '0' },
    { type: 'text-delta', id: '0', delta: ' there' },
    { type: 'text-end', id: '0' },
    { type: 'custom-future-chunk', whatever: true },
    { type: 'finish-step' },
    { type: 'finish', finishReason: 'stop', messageMetadata: { done: true } },
  ];

  it('each in order as a flush of its own slot with {blockType, block}; message id and merged message metadata on finished', async () => {
    const events = await readAll(streamOf<object>(chunks).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' })));
    const passed = events.filter((event): event is FlushEvent => event.type === 'flush' && event.metadata?.['blockType'] !== undefined);
    expect(passed.map((event) => event.metadata?.['block'])).toEqual(chunks.filter((chunk) => !/^(text-|finish$)/.test(chunk.type)));
    expect(new Set(events.filter((event) => event.type !== 'finished').map((event) => (event as { index: number }).index)).size).toBe(passed.length + 2);
    expect(events.at(-1)).toEqual({
      type: 'finished',
      reason: 'stop',
      rawReason: 'stop',
      metadata: { messageId: 'm1', messageMetadata: { model: 'x', a: { b: 1, c: 2 }, done: true } },
    });
    expect(events.find((event) => event.type === 'flush' && event.index === 4)).toEqual({ type: 'flush', index: 4, metadata: { providerMetadata: { p: { x: 1 } } } });
    const turn = await collectTurn(streamOf(events));
    expect(turn.events.filter((event) => event.type === 'message').map((event) => (event as { text: string }).text)).toEqual(['Hi', ' there']);
  });

  it('finish without a reason (early ai 5): tool-calls when the last step called a tool of the application, else stop; unknown and interrupted are other', async () => {
    const finish = async (input: object[]) => (await readAll(streamOf(input).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' })))).at(-1) as StreamEvent;
    const call = [
      { type: 'tool-input-available', toolCallId: 'c1', toolName: 't', input: {} },
      { type: 'tool-output-available', toolCallId: 'c1', output: 1 },
    ];
    expect(await finish([{ type: 'start-step' }, ...call, { type: 'finish-step' }, { type: 'finish' }])).toEqual({ type: 'finished', reason: 'tool-calls' });
    expect(await finish([{ type: 'start-step' }, ...call, { type: 'finish-step' }, { type: 'start-step' }, { type: 'finish-step' }, { type: 'finish' }])).toEqual({ type: 'finished', reason: 'stop' });
    expect(await finish([{ type: 'finish', finishReason: 'unknown' }])).toEqual({ type: 'finished', reason: 'other', rawReason: 'unknown' });
    expect(await finish([{ type: 'finish', finishReason: 'interrupted' }])).toEqual({ type: 'finished', reason: 'other', rawReason: 'interrupted' });
    expect(await finish([{ type: 'finish', finishReason: 'length' }])).toEqual({ type: 'finished', reason: 'length', rawReason: 'length' });
  });

  it('a tool-output-error of a provider-run call is its result with isError; a preliminary output is passed on', async () => {
    const turn = await collectTurn(
      streamOf<object>([
        { type: 'tool-input-start', toolCallId: 'p1', toolName: 'code', providerExecuted: true },
        { type: 'tool-input-delta', toolCallId: 'p1', inputTextDelta: '{"code":"1/0"}' },
        { type: 'tool-input-available', toolCallId: 'p1', toolName: 'code', input: { code: '1/0' }, providerExecuted: true },
        { type: 'tool-output-available', toolCallId: 'p1', output: { partial: true }, providerExecuted: true, preliminary: true },
        { type: 'tool-output-error', toolCallId: 'p1', errorText: 'ZeroDivisionError', providerExecuted: true },
        { type: 'finish', finishReason: 'stop' },
      ]).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' })),
    );
    expect(turn.providerToolCalls).toEqual([{ toolCallId: 'p1', toolName: 'code', arguments: { code: '1/0' }, result: 'ZeroDivisionError', isError: true }]);
  });

  it("ai 6's and 7's inputEncoding 'text': the raw text deltas are the call's string argument, as ai 6 and 7 read them", async () => {
    const chunks = [
      { type: 'start' },
      { type: 'start-step' },
      { type: 'tool-input-start', toolCallId: 'x1', toolName: 'apply_patch', inputEncoding: 'text' },
      { type: 'tool-input-delta', toolCallId: 'x1', inputTextDelta: '*** Begin "Patch"\n' },
      { type: 'tool-input-delta', toolCallId: 'x1', inputTextDelta: '+ \\ 🚀 \u0001 end' },
      { type: 'tool-input-available', toolCallId: 'x1', toolName: 'apply_patch', input: '*** Begin "Patch"\n+ \\ 🚀 \u0001 end' },
      { type: 'finish-step' },
      { type: 'finish', finishReason: 'tool-calls' },
    ];
    const turn = await collectTurn(streamOf<object>(chunks).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' })));
    expect(turn.toolCalls.map((call) => call.arguments)).toEqual(['*** Begin "Patch"\n+ \\ 🚀 \u0001 end']);
    for (const read of [read6, read7 as unknown as typeof read6]) {
      let last: { parts: UIPart[] } = { parts: [] };
      for await (const message of read({ stream: streamOf<never>(chunks as never[]) })) last = message as { parts: UIPart[] };
      expect(last.parts.find((part) => part.type === 'tool-apply_patch')?.input).toEqual(turn.toolCalls[0]?.arguments);
    }
  });

});

describe("ProviderEventStream({provider: 'ai-sdk-ui'}): tool-input-available completes the call with the input the AI SDK keeps", () => {
  /** A call of `t` whose deltas are `deltas`, completed by `tool-input-available` with `input`; then the finish. */
  const callWith = (deltas: readonly string[], input: unknown, encoding?: 'text') => [
    { type: 'tool-input-start', toolCallId: 'c1', toolName: 't', ...(encoding ? { inputEncoding: encoding } : {}) },
    ...deltas.map((inputTextDelta) => ({ type: 'tool-input-delta', toolCallId: 'c1', inputTextDelta })),
    { type: 'tool-input-available', toolCallId: 'c1', toolName: 't', input },
    { type: 'finish', finishReason: 'tool-calls' },
  ];
  const argumentChunks = (events: readonly StreamEvent[]) => events.flatMap((event) => (event.type === 'part' && event.part.type === 'tool-call-arguments' ? [event.part.chunk] : []));
  /** What the AI SDK (ai 7) ends the call with on the same chunks. */
  const aiSdkInput = async (chunks: readonly object[]) => {
    let last: { parts: UIPart[] } = { parts: [] };
    for await (const message of read7({ stream: streamOf<never>(chunks as never[]) })) last = message as { parts: UIPart[] };
    return last.parts.find((part) => part.type === 'tool-t')?.input;
  };

  it('tool-input-available after deltas that stopped short of its input: the rest of the input\'s JSON as one more argument chunk, the call complete with the input the AI SDK keeps', async () => {
    const chunks = callWith(['{"country":', '"Potato'], { country: 'PotatoLand', n: [1, 2] });
    const events = await readAll(streamOf<object>(chunks).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' })));
    expect(argumentChunks(events)).toEqual(['{"country":', '"Potato', 'Land","n":[1,2]}']);
    const turn = await collectTurn(streamOf(events));
    expect(turn.toolCalls.map((call) => call.arguments)).toEqual([{ country: 'PotatoLand', n: [1, 2] }]);
    expect(turn.incompleteToolCalls).toEqual([]);
    expect(turn.toolCalls[0]?.arguments).toEqual(await aiSdkInput(chunks));
  });

  it('tool-input-available whose input serializes to the deltas\' text adds nothing', async () => {
    const events = await readAll(streamOf<object>(callWith(['{"a":', '1}'], { a: 1 })).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' })));
    expect(argumentChunks(events)).toEqual(['{"a":', '1}']);
  });

  it("tool-input-available whose input's JSON the deltas are not a prefix of: the streamed arguments stand (same value, other text), nothing is appended", async () => {
    // Spaces and an escape the AI SDK's re-serialization does not write: the same value.
    const same = callWith(['{ "a" : "\\u00e9",', ' "b": [ 1 ] }'], { a: 'é', b: [1] });
    const events = await readAll(streamOf<object>(same).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' })));
    expect(argumentChunks(events)).toEqual(['{ "a" : "\\u00e9",', ' "b": [ 1 ] }']);
    expect((await collectTurn(streamOf(events))).toolCalls.map((call) => call.arguments)).toEqual([await aiSdkInput(same)]);
    // Deltas cut short in text that differs from the input's JSON: nothing can complete them, the call is incomplete.
    const cut = await collectTurn(streamOf<object>(callWith(['{ "a": "x'], { a: 'xy' })).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' })), { isolateErrors: true });
    expect(cut.toolCalls).toEqual([]);
    expect(cut.incompleteToolCalls.map((call) => call.partialArguments)).toEqual([{ a: 'x' }]);
  });

  it('tool-input-available serializes its input once, at the call\'s end, however many deltas came before', async () => {
    let serialized = 0;
    const input = { toJSON: () => (serialized++, { s: 'x'.repeat(2000) }) };
    const deltas = ['{"s":"', ...Array.from({ length: 1000 }, () => 'x')];
    const decoder = new ProviderEventDecoder({ provider: 'ai-sdk-ui' });
    const out: StreamEvent[] = [];
    const chunks = callWith(deltas, input);
    for (const chunk of chunks.slice(0, -2)) decoder.push(chunk, out);
    expect(serialized).toBe(0);
    for (const chunk of chunks.slice(-2)) decoder.push(chunk, out);
    expect(serialized).toBe(1);
    expect(argumentChunks(out).join('')).toBe(JSON.stringify({ s: 'x'.repeat(2000) }));
  });

  it("ai 7's inputEncoding 'text': tool-input-available completes raw text that stopped short of its string input, or that never streamed, as ai 7 keeps it", async () => {
    for (const deltas of [['*** Begin'], []]) {
      const chunks = callWith(deltas, '*** Begin "Patch"\n🚀', 'text');
      const turn = await collectTurn(streamOf<object>(chunks).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' })));
      expect(turn.toolCalls.map((call) => call.arguments)).toEqual(['*** Begin "Patch"\n🚀']);
      expect(turn.toolCalls[0]?.arguments).toEqual(await aiSdkInput(chunks));
    }
  });

  it('a repeated tool-input-available, or a delta after it, changes nothing', async () => {
    const turn = await collectTurn(
      streamOf<object>([
        { type: 'tool-input-start', toolCallId: 'c1', toolName: 't' },
        { type: 'tool-input-delta', toolCallId: 'c1', inputTextDelta: '{"a":1}' },
        { type: 'tool-input-available', toolCallId: 'c1', toolName: 't', input: { a: 1 } },
        { type: 'tool-input-delta', toolCallId: 'c1', inputTextDelta: 'garbage' },
        { type: 'tool-input-available', toolCallId: 'c1', toolName: 't', input: { a: 2 } },
        { type: 'finish', finishReason: 'tool-calls' },
      ]).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' })),
    );
    expect(turn.toolCalls.map((call) => [call.toolCallId, call.arguments])).toEqual([['c1', { a: 1 }]]);
  });
});

describe('argstream inspect recognises a UI message stream', () => {
  it.each(RECORDINGS)('%s: guessed as ai-sdk-ui', (file) => {
    expect(guessProvider(readFixture(`ai-sdk-ui/${file}`))).toBe('ai-sdk-ui');
  });

  it('the other providers\' recordings are not taken for one', () => {
    for (const dir of listFixtures('providers').filter((name) => !name.includes('.'))) {
      for (const file of listFixtures(`providers/${dir}`)) expect(guessProvider(readFixture(`providers/${dir}/${file}`)), `${dir}/${file}`).not.toBe('ai-sdk-ui');
    }
  });

  it('inspect --view turn prints the write_file call of a recording, exit 0; an abort exits 1 with its reason', async () => {
    const run = async (file: string) => {
      let stdout = '';
      let stderr = '';
      const code = await inspect(
        { provider: undefined, view: 'turn', json: true, input: `${FIXTURES}ai-sdk-ui/${file}` },
        { write: (text) => void (stdout += text), color: false, columns: undefined },
        { write: (text) => void (stderr += text), color: false, columns: undefined },
        process.stdin,
      );
      return { code, stdout, stderr };
    };
    const ok = await run('ai7-reasoning-text-write-file.sse');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('"write_file"');
    expect(ok.stdout).toContain('src/main.rs');
    // The server's abort is an error it sent: exit 1, with its reason.
    expect(await run('ai7-abort-mid-call.sse')).toMatchObject({ code: 1, stderr: 'argstream: ai-sdk-ui error aborted: AbortError: This operation was aborted\n' });
    expect(await run('ai6-abort-mid-call.sse')).toMatchObject({ code: 1, stderr: 'argstream: ai-sdk-ui error aborted: This operation was aborted\n' });
    expect(await run('ai5-abort-mid-call.sse')).toMatchObject({ code: 1, stderr: 'argstream: ai-sdk-ui error aborted: the AI SDK server aborted the response\n' });
  });
});
