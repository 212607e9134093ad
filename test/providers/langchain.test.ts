/**
 * `ProviderEventStream({ provider: 'langchain' })` on what the real LangChain.js packages yield
 * (`@langchain/core`, `@langchain/langgraph`, `@langchain/anthropic`, `@langchain/openai`), each
 * chat model answered by a provider recording of `test/fixtures/providers/` through its `fetch`
 * option (no network), and on the JSON lines recorded from them (`fixtures/providers/langchain/`,
 * made by its `record.mjs`):
 *
 * - every way LangChain streams (`model.stream()`, a LangGraph `StateGraph` in `streamMode:
 *   'messages'`, `streamEvents` v2, the content-block events of `model.streamEvents()` and of
 *   LangGraph's `version: 'v3'`) with `outputVersion` v0 and v1 gives the turn `collectTurn` gives
 *   on the provider's own recording: text, reasoning (and its signature), the calls with their
 *   exact arguments, the calls the provider ran, the finish reason;
 * - LangChain's own reading of the same chunks (`AIMessageChunk.concat`, then `tool_calls`) ends
 *   with the same arguments and usage;
 * - the rules of the adapter, each on LangChain's own objects where LangChain makes them: a traced
 *   run's `run-…` ids, `JSON.stringify(chunk)`, an agent that calls the model twice, custom tools,
 *   conflicting ids at one index, names that come late or never.
 */
import type { ChatAnthropic } from '@langchain/anthropic';
import { AIMessage, AIMessageChunk, ToolMessage } from '@langchain/core/messages';
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { tool } from '@langchain/core/tools';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ProviderError, type ProviderName } from '../../src/errors.ts';
import { collectTurn, type Turn } from '../../src/sinks/collect-turn.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import type { StreamEvent } from '../../src/types.ts';
import { readAll, readFixture, settle, streamOf } from '../helpers.ts';
import { chatModel, recordings, streamOf as langChainStream } from '../fixtures/providers/langchain/record.mjs';

type Recording = ReturnType<typeof recordings>[number];

/** The provider API each source recording is read with. */
function providerOf(file: string): ProviderName {
  if (file.startsWith('anthropic/')) return 'anthropic';
  if (file.startsWith('openai-responses/')) return 'openai-responses';
  return 'openai-chat';
}

/** The turn `collectTurn` gives on a provider recording. */
async function providerTurn(file: string): Promise<Turn> {
  return collectTurn(streamOf([readFixture(`providers/${file}`)]).pipeThrough(new ProviderEventStream({ provider: providerOf(file) })));
}

/** The turn of LangChain objects. */
async function langChainTurn(objects: readonly unknown[]): Promise<Turn> {
  return collectTurn(streamOf(objects as object[]).pipeThrough(new ProviderEventStream({ provider: 'langchain' })));
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

/** The objects of a stored recording, one a line. */
function storedObjects(name: string): object[] {
  return new TextDecoder()
    .decode(readFixture(`providers/langchain/${name}`))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as object);
}

/** What a turn must agree on: its text, reasoning (with signatures), calls, provider calls and ending. */
function shape(turn: Turn, { providerCalls = true, rawReason = true } = {}) {
  return {
    text: turn.text,
    reasoning: turn.reasoning,
    signatures: turn.events.flatMap((event) => (event.type === 'reasoning' && event.signature !== undefined ? [event.signature] : [])),
    toolCalls: turn.toolCalls.map((call) => ({ id: call.toolCallId, name: call.toolName, args: call.arguments })),
    providerToolCalls: providerCalls ? turn.providerToolCalls.map((call) => ({ id: call.toolCallId, name: call.toolName, args: call.arguments })) : [],
    incomplete: turn.incompleteToolCalls,
    failed: turn.failedToolCalls,
    finishReason: turn.finishReason,
    rawFinishReason: rawReason ? turn.rawFinishReason : undefined,
  };
}

/**
 * The turn the provider's recording gives, as LangChain can carry it: without tools bound,
 * ChatAnthropic's content is a string and the server tool's block is gone (its argument chunks,
 * nameless, are not a call); the content-block events carry LangChain's own finish reason, not
 * the provider's.
 */
function expectedShape(turn: Turn, recording: Recording) {
  return shape(turn, { providerCalls: recording.source.name !== 'no-tools-bound', rawReason: rawReasonKept(recording) });
}

/**
 * Whether LangChain carries the provider's own finish reason: not in the content-block events
 * (LangChain's normalized `reason`, with the provider's in `responseMetadata` only for some
 * integrations), nor in ChatOpenAI's chunks in LangGraph's `messages` mode (kept in the
 * generation's info, which that mode does not pass on).
 */
function rawReasonKept(recording: Recording): boolean {
  if (recording.mode === 'protocol' || recording.mode === 'graph-protocol') return false;
  return !(recording.mode === 'messages' && recording.source.provider === 'openai-chat');
}

describe('ProviderEventStream (langchain) on the real LangChain packages, replaying provider recordings', () => {
  for (const recording of recordings()) {
    const { source, mode, outputVersion, name } = recording;
    it(`ProviderEventStream (langchain) reads ${mode} ${outputVersion ?? ''} of ${source.file}${source.name ? ` (${source.name})` : ''} into the provider's own turn`, async () => {
      const expected = await providerTurn(source.file);
      const live = await collect(langChainStream(source, mode, outputVersion));
      const turn = await langChainTurn(live);
      const rawReason = rawReasonKept(recording);
      expect(shape(turn, { rawReason })).toEqual(expectedShape(expected, recording));
      if (!rawReason && mode === 'messages') expect(turn.rawFinishReason).toBeUndefined();
      // The JSON lines recorded from the same packages read the same: plain objects, no class.
      expect(shape(await langChainTurn(storedObjects(name)))).toEqual(shape(turn));
    });
  }
});

describe('ProviderEventStream (langchain) against LangChain\'s own reading of the chunks', () => {
  for (const recording of recordings().filter((r) => r.mode === 'stream')) {
    const { source, outputVersion } = recording;
    it(`AIMessageChunk.concat then tool_calls agrees with collectTurn on ${source.file}${source.name ? ` (${source.name})` : ''} ${outputVersion}`, async () => {
      const chunks = await collect<AIMessageChunk>(langChainStream(source, 'stream', outputVersion));
      const whole = chunks.reduce((left, right) => left.concat(right));
      const turn = await langChainTurn(chunks);
      expect(turn.toolCalls.map((call) => ({ id: call.toolCallId, name: call.toolName, args: call.arguments }))).toEqual(
        whole.tool_calls?.map((call) => ({ id: call.id, name: call.name, args: call.args })),
      );
      // The usage LangChain sums is the turn's (input and output counts, their details).
      expect(counts(turn.usage?.raw)).toEqual(counts(whole.usage_metadata));
      const usage = whole.usage_metadata as { input_tokens: number; output_tokens: number; total_tokens: number } | undefined;
      expect([turn.usage?.inputTokens, turn.usage?.outputTokens, turn.usage?.totalTokens]).toEqual([usage?.input_tokens, usage?.output_tokens, usage?.total_tokens]);
    });
  }
});

/** The numbers of a usage object by their path (`input_token_details.cache_read`): empty details count for nothing. */
function counts(usage: unknown, path = ''): Record<string, number> {
  const out: Record<string, number> = {};
  if (typeof usage !== 'object' || usage === null) return out;
  for (const [key, value] of Object.entries(usage)) {
    if (typeof value === 'number') out[`${path}${key}`] = value;
    else Object.assign(out, counts(value, `${path}${key}.`));
  }
  return out;
}

/** A `fetch` that answers the n-th request with the n-th recording. */
function replayInTurn(...files: string[]): () => Promise<Response> {
  let next = 0;
  return async () => {
    const file = files[next++];
    if (file === undefined) throw new Error('no more recordings to replay');
    return new Response(readFixture(`providers/${file}`) as Uint8Array<ArrayBuffer>, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
}

describe('ProviderEventStream (langchain) on LangChain objects of every kind', () => {
  const PARALLEL = { file: 'anthropic/text-then-2-parallel-tool-use.sse', provider: 'anthropic', tools: ['get_weather', 'get_time'] };
  const CHAT = { file: 'openai-chat/parallel-2-tool-calls.sse', provider: 'openai-chat', tools: ['GetWeatherArgs', 'get_stock_price'] };

  it('ProviderEventStream (langchain) reads a traced run, whose chunks carry the provider\'s id then `run-<uuid>`, as one message', async () => {
    class Tracer extends BaseCallbackHandler {
      name = 'tracer';
    }
    for (const source of [PARALLEL, CHAT]) {
      const chunks = await collect<AIMessageChunk>(await chatModel(source, 'v0').stream([{ role: 'user', content: 'Go on.' }], { callbacks: [new Tracer()] }));
      const ids = new Set(chunks.map((chunk) => chunk.id));
      // LangChain gave the chunks without a provider id the run's: two ids for one message.
      expect([...ids].some((id) => id?.startsWith('run-'))).toBe(true);
      expect([...ids].some((id) => id !== undefined && !id.startsWith('run-'))).toBe(true);
      expect(shape(await langChainTurn(chunks))).toEqual(shape(await providerTurn(source.file)));
    }
  });

  it('ProviderEventStream (langchain) reads JSON.stringify(chunk), LangChain\'s serialized form, as the chunk', async () => {
    for (const outputVersion of ['v0', 'v1']) {
      const chunks = await collect<AIMessageChunk>(langChainStream(PARALLEL, 'stream', outputVersion));
      const serialized = chunks.map((chunk) => JSON.parse(JSON.stringify(chunk)) as { lc: number; kwargs: object });
      expect(serialized[0]).toMatchObject({ lc: 1, type: 'constructor', id: ['langchain_core', 'messages', 'AIMessageChunk'] });
      expect(shape(await langChainTurn(serialized))).toEqual(shape(await providerTurn(PARALLEL.file)));
    }
  });

  it('ProviderEventStream (langchain) reads a LangGraph agent that calls the model, runs the tool, and calls it again: both messages, one turn', async () => {
    const getWeather = tool(async ({ location }: { location: string }) => `Sunny in ${location}`, {
      name: 'get_weather',
      description: 'The weather',
      schema: z.object({ location: z.string() }),
    });
    const first = 'anthropic/text-then-tool-use.sse';
    const second = 'anthropic/thinking-then-text.sse';
    for (const modes of [{ streamMode: 'messages' as const }, { streamMode: ['messages' as const, 'updates' as const] }]) {
      for (const outputVersion of ['v0', 'v1']) {
        const model = (chatModel({ file: first, provider: 'anthropic', tools: [] }, outputVersion, replayInTurn(first, second)) as ChatAnthropic).bindTools([getWeather]);
        const graph = new StateGraph(MessagesAnnotation)
          .addNode('agent', async (state) => ({ messages: [await model.invoke(state.messages)] }))
          .addNode('tools', new ToolNode([getWeather]))
          .addEdge(START, 'agent')
          .addConditionalEdges('agent', toolsCondition, ['tools', END])
          .addEdge('tools', 'agent')
          .compile();
        const parts = await collect(await graph.stream({ messages: [{ role: 'user', content: 'Weather in Paris?' }] }, modes as { streamMode: 'messages' }));
        const events = await readAll(streamOf(parts as object[]).pipeThrough(new ProviderEventStream({ provider: 'langchain' })));
        const turn = await collectTurn(streamOf(events));
        const [a, b] = [await providerTurn(first), await providerTurn(second)];
        expect(turn.text).toBe(a.text + b.text);
        expect(turn.reasoning).toBe(b.reasoning);
        expect(turn.toolCalls.map((call) => [call.toolCallId, call.toolName, call.arguments])).toEqual(a.toolCalls.map((call) => [call.toolCallId, call.toolName, call.arguments]));
        expect([turn.finishReason, turn.rawFinishReason]).toEqual(['stop', 'end_turn']);
        // The tool's result went by as a block of its own.
        const tools = events.filter((event) => event.type === 'flush' && event.metadata?.['blockType'] === 'tool');
        expect(tools.map((event) => (event.type === 'flush' ? (event.metadata?.['block'] as { content: unknown }).content : undefined))).toEqual(['Sunny in Paris']);
        // The first message's call completed before the second message began, not at the end.
        const callFlush = events.findIndex((event) => event.type === 'flush' && event.index === turn.toolCalls[0]?.index);
        const secondText = events.findIndex((event) => event.type === 'part' && event.part.type === 'reasoning');
        expect(callFlush).toBeGreaterThan(-1);
        expect(callFlush).toBeLessThan(secondText);
      }
    }
  });

  it('ProviderEventStream (langchain) ends a LangGraph message that lost its finish reason (ChatOpenAI in messages mode) with the graph, a call without arguments complete', async () => {
    const source = { file: 'openai-chat/parallel-2-tool-calls-empty-args-obfuscation.sse', provider: 'openai-chat', tools: ['a', 'b'] };
    const tuples = await collect<[AIMessageChunk, Record<string, unknown>]>(langChainStream(source, 'messages', 'v0'));
    expect(tuples.some(([chunk]) => chunk.response_metadata?.['finish_reason'] !== undefined)).toBe(false);
    const turn = await langChainTurn(tuples);
    expect(shape(turn, { rawReason: false })).toEqual(shape(await providerTurn(source.file), { rawReason: false }));
    expect(turn.rawFinishReason).toBeUndefined();
  });

  it('ProviderEventStream (langchain) reads LangGraph\'s multi-mode and subgraph parts, and the LangGraph SDK\'s `messages` parts', async () => {
    const tuples = storedObjects('openai-chat-parallel-2-tool-calls.messages-v0.jsonl');
    const expected = shape(await langChainTurn(tuples), { rawReason: false });
    const multi = [['updates', { agent: { messages: [] } }], ...tuples.map((tuple) => ['messages', tuple]), ['values', { messages: [] }]];
    expect(shape(await langChainTurn(multi), { rawReason: false })).toEqual(expected);
    const subgraphs = tuples.map((tuple) => [['parent:1'], 'messages', tuple]);
    expect(shape(await langChainTurn(subgraphs), { rawReason: false })).toEqual(expected);
    const sdk = [{ event: 'metadata', data: { run_id: 'r' } }, ...tuples.map((data) => ({ event: 'messages', data })), { event: 'end', data: null }];
    expect(shape(await langChainTurn(sdk), { rawReason: false })).toEqual(expected);
    const events = storedObjects('openai-chat-parallel-2-tool-calls.events-v1.jsonl').map((data) => ({ event: 'events', data }));
    expect(shape(await langChainTurn(events))).toEqual(shape(await providerTurn(CHAT.file)));
  });

  it('ProviderEventStream (langchain) refuses text and bytes: LangChain\'s streams are objects', async () => {
    for (const chunk of ['{"type":"ai"}', new TextEncoder().encode('{"type":"ai"}')]) {
      const { error } = await settle(streamOf<string | Uint8Array>([chunk]).pipeThrough(new ProviderEventStream({ provider: 'langchain' })));
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ provider: 'langchain', type: 'invalid-stream', code: 'invalid-input' });
      expect((error as Error).message).toMatch(/LangChain objects/);
    }
  });
});

/** Chunks of one message: `AIMessageChunk`s built by LangChain itself. */
function chunk(fields: Record<string, unknown>): AIMessageChunk {
  return new AIMessageChunk(fields as never);
}

const STOP = { response_metadata: { finish_reason: 'stop' } };

/** The calls of a turn as `[id, name, arguments]`. */
function calls(turn: Turn): unknown[] {
  return turn.toolCalls.map((call) => [call.toolCallId, call.toolName, call.arguments]);
}

/** LangChain's own calls of the chunks: `concat` then `tool_calls`. */
function langChainCalls(chunks: readonly AIMessageChunk[]): unknown[] {
  const whole = chunks.reduce((left, right) => left.concat(right));
  return (whole.tool_calls ?? []).map((call) => [call.id, call.name, call.args]);
}

describe('ProviderEventStream (langchain) merges tool call chunks as AIMessageChunk.concat does', () => {
  it('ProviderEventStream (langchain) continues a call on chunks with `id: ""` (OpenAI\'s continuations) and on chunks without an id', async () => {
    const chunks = [
      chunk({ content: '', tool_call_chunks: [{ index: 0, id: 'call_1', name: 'f', args: '' }] }),
      chunk({ content: '', tool_call_chunks: [{ index: 0, id: '', args: '{"a":' }] }),
      chunk({ content: '', tool_call_chunks: [{ index: 0, args: '1}' }] }),
      chunk({ content: '', ...STOP }),
    ];
    const turn = await langChainTurn(chunks);
    expect(calls(turn)).toEqual([['call_1', 'f', { a: 1 }]]);
    expect(calls(turn)).toEqual(langChainCalls(chunks));
  });

  it('ProviderEventStream (langchain) starts a new call when a chunk at the same index carries another id', async () => {
    const chunks = [
      chunk({ content: '', tool_call_chunks: [{ index: 0, id: 'call_1', name: 'f', args: '{"a":1}' }] }),
      chunk({ content: '', tool_call_chunks: [{ index: 0, id: 'call_2', name: 'g', args: '{"b":2}' }] }),
      chunk({ content: '', ...STOP }),
    ];
    const turn = await langChainTurn(chunks);
    expect(calls(turn)).toEqual([
      ['call_1', 'f', { a: 1 }],
      ['call_2', 'g', { b: 2 }],
    ]);
    expect(calls(turn)).toEqual(langChainCalls(chunks));
  });

  it('ProviderEventStream (langchain) keeps index 0 and index "0" apart, and reads a chunk with neither index nor id as a call of its own', async () => {
    const chunks = [
      chunk({ content: '', tool_call_chunks: [{ index: 0, id: 'call_1', name: 'f', args: '{"a":1}' }] }),
      chunk({ content: '', tool_call_chunks: [{ index: '0' as unknown as number, id: 'call_2', name: 'g', args: '{"b":2}' }] }),
      chunk({ content: '', tool_call_chunks: [{ id: 'call_3', name: 'h', args: '{}' }] }),
      chunk({ content: '', ...STOP }),
    ];
    const turn = await langChainTurn(chunks);
    expect(calls(turn)).toEqual([
      ['call_1', 'f', { a: 1 }],
      ['call_2', 'g', { b: 2 }],
      ['call_3', 'h', {}],
    ]);
    expect(calls(turn)).toEqual(langChainCalls(chunks));
  });

  it('ProviderEventStream (langchain) holds the arguments of a call whose name comes late, and drops a run that never gets one', async () => {
    const late = [
      chunk({ content: '', tool_call_chunks: [{ index: 0, args: '{"a":' }] }),
      chunk({ content: '', tool_call_chunks: [{ index: 0, id: 'call_1', name: 'f', args: '1}' }] }),
      chunk({ content: '', ...STOP }),
    ];
    const events = await readAll(streamOf(late).pipeThrough(new ProviderEventStream({ provider: 'langchain' })));
    expect(events.filter((event) => event.type === 'part').map((event) => (event.type === 'part' ? event.part : undefined))).toEqual([
      { type: 'tool-call-start', toolCallId: 'call_1', toolName: 'f' },
      { type: 'tool-call-arguments', chunk: '{"a":' },
      { type: 'tool-call-arguments', chunk: '1}' },
    ]);
    expect(calls(await langChainTurn(late))).toEqual(langChainCalls(late));
    const nameless = [chunk({ content: 'Hi', tool_call_chunks: [{ index: 1, args: '{"x":1}' }] }), chunk({ content: '', ...STOP })];
    const turn = await langChainTurn(nameless);
    expect([turn.text, turn.toolCalls, turn.incompleteToolCalls, turn.providerToolCalls]).toEqual(['Hi', [], [], []]);
    // LangChain does not make it a call either.
    expect(langChainCalls(nameless)).toEqual([]);
  });

  it('ProviderEventStream (langchain) does not read v1\'s `tool_call` content block with empty args as a call of its own', async () => {
    const chunks = [
      chunk({ content: [{ type: 'tool_call', id: 'call_1', name: 'f', args: {} }], tool_call_chunks: [{ index: 0, id: 'call_1', name: 'f', args: '' }], response_metadata: { output_version: 'v1' } }),
      chunk({ content: [{ type: 'tool_call_chunk', index: 0, args: '{"a":1}' }], tool_call_chunks: [{ index: 0, args: '{"a":1}' }], response_metadata: { output_version: 'v1' } }),
      chunk({ content: [], ...STOP }),
    ];
    expect(calls(await langChainTurn(chunks))).toEqual([['call_1', 'f', { a: 1 }]]);
  });

  it('ProviderEventStream (langchain) streams a custom tool\'s raw input as the {input} LangChain gives the tool', async () => {
    const input = 'print("héllo")\n\\ 🚀 "end"';
    const pieces = [input.slice(0, 5), input.slice(5, 20), input.slice(20, 21), input.slice(21)];
    const chunks = [
      chunk({ content: '', tool_call_chunks: [{ index: 0, id: 'call_1', name: 'python', args: '', isCustomTool: true } as never] }),
      ...pieces.map((args) => chunk({ content: '', tool_call_chunks: [{ index: 0, args, isCustomTool: true } as never] })),
      chunk({ content: '', ...STOP }),
    ];
    const turn = await langChainTurn(chunks);
    expect(calls(turn)).toEqual([['call_1', 'python', { input }]]);
    expect(calls(turn)).toEqual(langChainCalls(chunks));
  });

  it('ProviderEventStream (langchain) sends a whole AIMessage\'s calls whole, and fails its invalid ones alone', async () => {
    const message = new AIMessage({
      id: 'msg_1',
      content: 'Two calls.',
      tool_calls: [{ id: 'call_1', name: 'f', args: { a: [1, { b: 'é' }] }, type: 'tool_call' }],
      invalid_tool_calls: [{ id: 'call_2', name: 'g', args: '{"x":', error: 'Malformed args.', type: 'invalid_tool_call' }],
    });
    const turn = await langChainTurn([[message, { langgraph_step: 1, langgraph_node: 'agent' }]]);
    expect([turn.text, calls(turn)]).toEqual(['Two calls.', [['call_1', 'f', { a: [1, { b: 'é' }] }]]]);
    expect(turn.failedToolCalls.map((call) => [call.toolCallId, call.toolName, (call.error as ProviderError).type, (call.error as Error).message])).toEqual([
      ['call_2', 'g', 'invalid-tool-call', 'Malformed args.'],
    ]);
  });

  it('ProviderEventStream (langchain) passes a ToolMessage on as a block of its own and skips human messages', async () => {
    const events = await readAll(
      streamOf<object>([
        [{ type: 'human', content: 'Hi', id: 'h1' }, {}],
        [new ToolMessage({ content: '42', tool_call_id: 'call_1', id: 't1' }), {}],
      ]).pipeThrough(new ProviderEventStream({ provider: 'langchain' })),
    );
    expect(events).toEqual([{ type: 'flush', index: 0, metadata: { blockType: 'tool', block: expect.objectContaining({ content: '42', tool_call_id: 'call_1' }) } }]);
  });
});

describe('ProviderEventStream (langchain) ends, finish reasons and usage', () => {
  it('ProviderEventStream (langchain) maps each integration\'s finish reason, and `stop` after a call to tool-calls', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ response_metadata: { finish_reason: 'length' } }, 'length', 'length'],
      [{ response_metadata: { finish_reason: 'content_filter' } }, 'content-filter', 'content_filter'],
      [{ additional_kwargs: { stop_reason: 'max_tokens' } }, 'length', 'max_tokens'],
      [{ additional_kwargs: { stop_reason: 'refusal' } }, 'refusal', 'refusal'],
      [{ additional_kwargs: { stop_reason: 'pause_turn' } }, 'other', 'pause_turn'],
      [{ response_metadata: { finishReason: 'SAFETY' } }, 'content-filter', 'SAFETY'],
      [{ response_metadata: { stopReason: 'guardrail_intervened' } }, 'content-filter', 'guardrail_intervened'],
      [{ response_metadata: { done: true, done_reason: 'length' } }, 'length', 'length'],
      [{ response_metadata: { object: 'response', status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } }, 'length', 'max_output_tokens'],
      [{ response_metadata: { finish_reason: 'constructor' } }, 'other', 'constructor'],
      [{ response_metadata: { finish_reason: '__proto__' } }, 'other', '__proto__'],
    ];
    for (const [fields, reason, raw] of cases) {
      const turn = await langChainTurn([chunk({ content: 'x', ...fields })]);
      expect([turn.finishReason, turn.rawFinishReason]).toEqual([reason, raw]);
    }
    const gemini = await langChainTurn([chunk({ content: '', tool_call_chunks: [{ index: 0, id: 'c', name: 'f', args: '{}' }], response_metadata: { finishReason: 'STOP' } })]);
    expect([gemini.finishReason, gemini.rawFinishReason]).toEqual(['tool-calls', 'STOP']);
  });

  it('ProviderEventStream (langchain) refuses content after its message\'s finish reason, and reads usage after it', async () => {
    const usage = { input_tokens: 3, output_tokens: 2, total_tokens: 5 };
    const ok = await langChainTurn([chunk({ content: 'a', ...STOP }), chunk({ content: [{ type: 'text', text: '' }], usage_metadata: usage })]);
    expect([ok.text, ok.usage?.totalTokens]).toEqual(['a', 5]);
    const { values, error } = await settle(streamOf([chunk({ content: 'a', ...STOP }), chunk({ content: 'b' })]).pipeThrough(new ProviderEventStream({ provider: 'langchain' })));
    expect(error).toMatchObject({ provider: 'langchain', type: 'after-end' });
    expect(values.filter((event) => event.type === 'part')).toHaveLength(1);
  });

  it('ProviderEventStream (langchain) ends a message without a finish reason in a truncated error, after its events', async () => {
    const { values, error } = await settle(
      streamOf([chunk({ content: 'Hi', tool_call_chunks: [{ index: 0, id: 'c', name: 'f', args: '{"a":' }] })]).pipeThrough(new ProviderEventStream({ provider: 'langchain' })),
    );
    expect(error).toMatchObject({ provider: 'langchain', type: 'invalid-stream', code: 'truncated' });
    expect(values.some((event) => event.type === 'part' && event.part.type === 'tool-call-arguments')).toBe(true);
    const turn = await collectTurn(streamOf(values));
    expect(turn.incompleteToolCalls.map((call) => [call.toolCallId, call.partialArguments])).toEqual([['c', {}]]);
  });

  it('ProviderEventStream (langchain) keeps two streamEvents runs apart when their chunks interleave', async () => {
    const event = (runId: string, fields: Record<string, unknown>) => ({ event: 'on_chat_model_stream', run_id: runId, data: { chunk: chunk(fields) } });
    const end = (runId: string) => ({ event: 'on_chat_model_end', run_id: runId, data: {} });
    const turn = await langChainTurn([
      event('a', { content: '', tool_call_chunks: [{ index: 0, id: 'call_a', name: 'f', args: '{"x":' }] }),
      event('b', { content: '', tool_call_chunks: [{ index: 0, id: 'call_b', name: 'g', args: '{"y":' }] }),
      event('a', { content: '', tool_call_chunks: [{ index: 0, args: '1}' }] }),
      event('b', { content: '', tool_call_chunks: [{ index: 0, args: '2}' }] }),
      end('b'),
      end('a'),
    ]);
    expect(calls(turn)).toEqual([
      ['call_b', 'g', { y: 2 }],
      ['call_a', 'f', { x: 1 }],
    ]);
  });

  it('ProviderEventStream (langchain) refuses a content-block snapshot of a call\'s arguments that does not continue the text before it', async () => {
    const { error } = await settle(
      streamOf<object>([
        { event: 'message-start' },
        { event: 'content-block-start', index: 0, content: { type: 'tool_call_chunk', id: 'c', name: 'f', args: '' } },
        { event: 'content-block-delta', index: 0, delta: { type: 'block-delta', fields: { type: 'tool_call_chunk', args: '{"a":1' } } },
        { event: 'content-block-delta', index: 0, delta: { type: 'block-delta', fields: { type: 'tool_call_chunk', args: '{"b":2' } } },
      ]).pipeThrough(new ProviderEventStream({ provider: 'langchain' })),
    );
    expect(error).toMatchObject({ provider: 'langchain', type: 'text-mismatch' });
  });

  it('ProviderEventStream (langchain) ends in the ProviderError of an error event (the protocol\'s, the LangGraph SDK\'s), after what came before', async () => {
    const before = chunk({ content: 'partial' });
    for (const [record, type, message, code] of [
      [{ event: 'error', message: 'overloaded', code: '529' }, 'error', 'overloaded', '529'],
      [{ event: 'error', data: { error: 'GraphRecursionError', message: 'too deep' } }, 'GraphRecursionError', 'too deep', undefined],
    ] as const) {
      const { values, error } = await settle(streamOf<object>([before, record]).pipeThrough(new ProviderEventStream({ provider: 'langchain' })));
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ provider: 'langchain', type, message, code });
      expect(values.map((event: StreamEvent) => (event.type === 'part' && event.part.type === 'message' ? event.part.text : ''))).toContain('partial');
    }
    const { error } = await settle(streamOf<object>([{ event: 'messages/partial', data: [] }]).pipeThrough(new ProviderEventStream({ provider: 'langchain' })));
    expect(error).toMatchObject({ provider: 'langchain', type: 'invalid-format' });
    expect((error as Error).message).toMatch(/messages-tuple/);
  });
});
