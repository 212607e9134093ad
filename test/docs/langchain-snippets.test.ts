/**
 * The snippets of docs/langchain.md, run as written with the real LangChain packages: their
 * `@langchain/anthropic` is the real `ChatAnthropic` answered by a provider recording (its `fetch`
 * option: no network), their `@langchain/langgraph-sdk` the real `Client` answered by a LangGraph
 * server's SSE made from the recorded `[chunk, metadata]` tuples. Each must end with the calls of
 * the recording (test/fixtures/providers/MANIFEST.md). Listed in snippets.test.ts.
 */
import { ChatAnthropic } from '@langchain/anthropic';
import * as langChainMessages from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import * as langGraph from '@langchain/langgraph';
import { Client } from '@langchain/langgraph-sdk';
import { describe, expect, it } from 'vitest';
import * as zod from 'zod';
import * as argstream from '../../src/index.ts';
import type { TurnSnapshot } from '../../src/index.ts';
import { readFixture } from '../helpers.ts';
import { manifestEntry } from '../manifest.ts';
import { runSnippet, snippetsOf, type Modules } from './snippets.ts';

/** Text, then two parallel calls: get_weather and get_time. */
const RECORDING = 'anthropic/text-then-2-parallel-tool-use.sse';
const calls = (file: string) => manifestEntry(file).toolCalls.map((call) => [call.name, JSON.parse(call.args)] as const);

/** A `fetch` that answers every request with the recording, as an SSE response. */
const replay = (file: string) => async () => new Response(readFixture(`providers/${file}`) as Uint8Array<ArrayBuffer>, { headers: { 'content-type': 'text/event-stream' } });

/** `ChatAnthropic` as the snippets construct it, answered by the recording. */
class ReplayChatAnthropic extends ChatAnthropic {
  constructor(fields: ConstructorParameters<typeof ChatAnthropic>[0] = {}) {
    super({ ...fields, apiKey: 'sk-ant-replay', maxRetries: 0, clientOptions: { fetch: replay(RECORDING) } });
  }
}

/**
 * A LangGraph server's answer to `runs.stream` with `streamMode: 'messages-tuple'`: SSE `messages`
 * events whose data is the recorded `[chunk, metadata]`, between `metadata` and `end`.
 */
const TUPLES = 'langchain/openai-chat-parallel-2-tool-calls.messages-v0.jsonl';
function langGraphServerSse(): string {
  const lines = new TextDecoder().decode(readFixture(`providers/${TUPLES}`)).split('\n').filter((line) => line !== '');
  return `event: metadata\ndata: {"run_id":"run-1","thread_id":"thread-1"}\n\n${lines.map((line) => `event: messages\ndata: ${line}\n\n`).join('')}event: end\ndata: null\n\n`;
}
class ReplayClient extends Client {
  constructor(config: ConstructorParameters<typeof Client>[0] = {}) {
    super({ ...config, apiKey: null, callerOptions: { fetch: async () => new Response(langGraphServerSse(), { headers: { 'content-type': 'text/event-stream' } }) } });
  }
}

const modules: Modules = {
  argstream,
  '@langchain/anthropic': { ChatAnthropic: ReplayChatAnthropic },
  '@langchain/core/messages': langChainMessages,
  '@langchain/langgraph': langGraph,
  '@langchain/langgraph-sdk': { Client: ReplayClient },
};

const langChainTools = [
  tool(async () => 'sunny', { name: 'get_weather', description: 'The weather', schema: zod.object({ location: zod.string(), unit: zod.string().optional() }) }),
  tool(async () => 'noon', { name: 'get_time', description: 'The time', schema: zod.object({ timezone: zod.string() }) }),
];

function recorder(): ((...args: unknown[]) => void) & { calls: unknown[][] } {
  const recorded: unknown[][] = [];
  return Object.assign((...args: unknown[]) => void recorded.push(args), { calls: recorded });
}

function scope() {
  return { langChainTools, chatModel: new ReplayChatAnthropic({ model: 'claude-sonnet-4-5' }).bindTools(langChainTools), question: 'Weather and time in New York?', render: recorder(), run: recorder() };
}

const snippets = snippetsOf('docs/langchain.md');
const snippet = (contains: string) => {
  const found = snippets.filter((s) => s.code.includes(contains));
  if (found.length !== 1) throw new Error(`docs/langchain.md: ${found.length} snippets contain ${contains}`);
  return found[0]!.code;
};

describe('docs/langchain.md, run as written', () => {
  it('a chat model\'s stream: progress while it streams, then each call exact', async () => {
    const names = scope();
    await runSnippet(snippet('await model.stream('), { modules, scope: names });
    expect(names.run.calls).toEqual(calls(RECORDING));
    expect(names.render.calls.length).toBeGreaterThan(2);
    for (const [toolCallId] of names.render.calls) expect(toolCallId).toMatch(/^toolu_/);
  });

  it('a LangGraph graph in messages mode, into a TurnStore', async () => {
    const names = scope();
    await runSnippet(snippet('new StateGraph(MessagesAnnotation)'), { modules, scope: names });
    const last = names.render.calls.at(-1)?.[0] as TurnSnapshot;
    expect(last.calls.map((call) => [call.toolName, call.input])).toEqual(calls(RECORDING));
    expect(last.status).toBe('done');
  });

  it('streamEvents v2', async () => {
    const names = scope();
    await runSnippet(snippet("{ version: 'v2' }"), { modules, scope: names });
    expect(names.run.calls).toEqual(calls(RECORDING));
  });

  it('content-block events, through fromAsyncIterable', async () => {
    const printed = await runSnippet(snippet('{ tools: langChainTools }'), { modules, scope: scope(), after: '__result(turn);' });
    const turn = printed.result[0] as argstream.Turn;
    expect(turn.toolCalls.map((call) => [call.toolName, call.arguments])).toEqual(calls(RECORDING));
  });

  it('a LangGraph server, through its SDK', async () => {
    const printed = await runSnippet(snippet('client.runs.stream'), { modules, scope: scope(), after: '__result(turn);' });
    const turn = printed.result[0] as argstream.Turn;
    expect(turn.toolCalls.map((call) => [call.toolName, call.arguments])).toEqual(calls('openai-chat/parallel-2-tool-calls.sse'));
  });

  it('LangChain\'s re-parse, and the TurnStore that replaces it, end with the same calls', async () => {
    const theirs = scope();
    await runSnippet(snippet('message.concat(chunk)'), { modules, scope: theirs });
    const lastTheirs = theirs.render.calls.at(-1)?.[0] as Array<{ name: string; args: unknown }>;
    expect(lastTheirs.map((call) => [call.name, call.args])).toEqual(calls(RECORDING));
    const ours = scope();
    await runSnippet(snippet('store.getSnapshot().calls'), { modules, scope: ours });
    const lastOurs = ours.render.calls.at(-1)?.[0] as TurnSnapshot['calls'];
    expect(lastOurs.map((call) => [call.toolName, call.input])).toEqual(calls(RECORDING));
    // Theirs renders at every chunk; the store's notifications are coalesced per frame (a replay
    // that arrives at once is one frame).
    expect(theirs.render.calls.length).toBeGreaterThan(2);
    expect(ours.render.calls.length).toBeGreaterThanOrEqual(1);
  });
});
