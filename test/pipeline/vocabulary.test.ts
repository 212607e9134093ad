/**
 * The defects of the first toolkit, each as it was met chaining the README's stages: every test
 * here failed before the pipeline had one vocabulary.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ArgumentValidationCore,
  ArgumentValidationStream,
  CoalesceStream,
  Coalescer,
  ConversationEventStream,
  FieldEventCore,
  FieldEventStream,
  FragmentValueCore,
  IncrementalJsonParser,
  JsonFragmentStream,
  JsonTextCore,
  JsonTextStream,
  JsonValueCore,
  PathUpdateCore,
  PathUpdateStream,
  ProviderEventDecoder,
  ProviderEventStream,
  TaggedToolCallExtractor,
  ToolCallDeltaCore,
  ToolCallDeltaStream,
  ToolCallProgressStream,
  TurnBuilder,
  collectTurn,
  type PipelineEvent,
} from '../../src/index.ts';
import { args, finished, flush, readAll, start, streamOf, text } from '../helpers.ts';
import { bytesOf } from '../providers/event-stream-helpers.ts';

const RECORDING = 'anthropic/text-then-2-parallel-tool-use.sse';
const provider = () => streamOf([bytesOf(RECORDING)]).pipeThrough(new ProviderEventStream({ provider: 'anthropic' }));

describe('One vocabulary', () => {
  it('collectTurn reads the output of ToolCallProgressStream, ConversationEventStream and the views after them', async () => {
    const plain = await collectTurn(provider());
    expect(plain.toolCalls.map((c) => c.toolName)).toEqual(['get_weather', 'get_time']);
    for (const events of [
      provider().pipeThrough(new ToolCallProgressStream()),
      provider().pipeThrough(new ConversationEventStream({ progress: true })),
      provider().pipeThrough(new ToolCallProgressStream()).pipeThrough(new FieldEventStream()),
      provider().pipeThrough(new ConversationEventStream({ progress: true })).pipeThrough(new PathUpdateStream()),
    ]) {
      expect(await collectTurn(events as ReadableStream<PipelineEvent>)).toEqual(plain);
    }
  });

  it('FieldEventStream passes the text, the reasoning, the progress and the finished call through', async () => {
    const events = await readAll(provider().pipeThrough(new ToolCallProgressStream()).pipeThrough(new FieldEventStream()));
    const types = new Set(events.map((e) => (e.type === 'part' ? `part:${e.part.type}` : e.type)));
    expect([...types].sort()).toEqual(['field-delta', 'field-end', 'field-start', 'finished', 'flush', 'part:message', 'part:tool-call-start', 'tool-call', 'tool-call-progress']);
  });

  it('ToolCallProgressStream and PathUpdateStream replace the raw argument parts instead of passing them through', async () => {
    const raw = (await readAll(provider())).filter((e) => e.type === 'part' && e.part.type === 'tool-call-arguments');
    expect(raw.length).toBeGreaterThan(10);
    for (const events of [provider().pipeThrough(new ToolCallProgressStream()), provider().pipeThrough(new ToolCallProgressStream()).pipeThrough(new PathUpdateStream())]) {
      const all = await readAll(events as ReadableStream<PipelineEvent>);
      expect(all.filter((e) => e.type === 'part' && e.part.type === 'tool-call-arguments')).toEqual([]);
    }
  });

  it('CoalesceStream after ToolCallProgressStream merges the progress of each string', async () => {
    // One provider event per chunk, as a live stream delivers them.
    const sse = new TextDecoder().decode(bytesOf(RECORDING)).split(/(?<=\n\n)/);
    const live = () => streamOf(sse).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })).pipeThrough(new ToolCallProgressStream());
    const before = await readAll(live());
    const after = await readAll(live().pipeThrough(new CoalesceStream({ maxDelayMs: Infinity })));
    const progress = (events: readonly PipelineEvent[]) => events.filter((e) => e.type === 'tool-call-progress').length;
    expect(progress(after)).toBeLessThan(progress(before));
    expect(await collectTurn(streamOf(after))).toEqual(await collectTurn(streamOf(before)));
  });

  it('a tool call is named toolCallId/toolName in its start, progress, field, delta and conversation events and in the Turn', async () => {
    const events = await readAll(provider().pipeThrough(new ToolCallProgressStream()).pipeThrough(new FieldEventStream({ keepProgress: true })));
    const named = events.filter((e) => ['tool-call-progress', 'field-start', 'tool-call'].includes(e.type) || (e.type === 'part' && e.part.type === 'tool-call-start'));
    for (const event of named) {
      const call = event.type === 'part' ? (event.part as { toolCallId: string; toolName: string }) : (event as unknown as { toolCallId: string; toolName: string });
      expect(call.toolCallId).toMatch(/^toolu_/);
      expect(['get_weather', 'get_time']).toContain(call.toolName);
      expect(event).not.toHaveProperty('id');
      expect(event).not.toHaveProperty('name');
    }
    const turn = await collectTurn(provider());
    expect(turn.toolCalls[0]).toMatchObject({ toolCallId: 'toolu_01YUs66wivdF51ENZFX8gX9S', toolName: 'get_weather' });
  });

  it('JsonTextStream with repair closes a truncated document after JsonFragmentStream({ allowTruncated: true }), and says so', async () => {
    const textStream = new JsonTextStream({ repair: true });
    const out = (await readAll(streamOf(['{"path":"a.txt","content":"line 1\\nli']).pipeThrough(new JsonFragmentStream({ allowTruncated: true })).pipeThrough(textStream))).join('');
    expect(JSON.parse(out)).toEqual({ path: 'a.txt', content: 'line 1\nli' });
    expect(textStream.truncated).toBe(true);
    expect(textStream.truncation).toEqual({ path: '/content', closing: '"}' });
    // Without allowTruncated the parser's unexpected-end still errors the stream.
    await expect(readAll(streamOf(['{"a":']).pipeThrough(new JsonFragmentStream()).pipeThrough(new JsonTextStream({ repair: true })))).rejects.toMatchObject({ code: 'unexpected-end' });
  });

  it('ArgumentValidationStream reports a failing field once, not again with the whole document', async () => {
    const WriteFile = z.object({ path: z.string().refine((p) => !p.startsWith('/etc'), 'forbidden path'), content: z.string() });
    const events = await readAll(
      streamOf<PipelineEvent>([start(0, 'c', 'write_file'), args(0, '{"path":"/etc/passwd",'), args(0, '"content":"x"}'), flush(0), finished('tool-calls', 'tool_use')]).pipeThrough(
        new ArgumentValidationStream({ tools: { write_file: WriteFile } }),
      ),
    );
    const errors = events.filter((e) => e.type === 'validation-error');
    expect(errors).toEqual([{ type: 'validation-error', index: 0, toolCallId: 'c', toolName: 'write_file', path: '/path', issues: [{ message: 'forbidden path', path: ['path'] }] }]);
  });
});

describe('Provider-run calls and refusals', () => {
  const SEARCH = 'anthropic/handmade-server-web-search-then-text.sse';
  const search = () => streamOf([bytesOf(SEARCH)]).pipeThrough(new ProviderEventStream({ provider: 'anthropic' }));
  const searchCall = { toolCallId: 'srvtoolu_01FYcUbzEaqqQh1WBRj1QX3h', toolName: 'web_search' };

  it('a server tool call is never in turn.toolCalls: it is in providerToolCalls, joined with its result, after every stage', async () => {
    const plain = await collectTurn(search());
    expect(plain.toolCalls).toEqual([]);
    expect(plain.incompleteToolCalls).toEqual([]);
    expect(plain.providerToolCalls).toEqual([
      {
        ...searchCall,
        arguments: { query: 'San Francisco weather today' },
        result: [
          { type: 'web_search_result', title: 'National Weather Service', url: 'https://forecast.weather.gov/MapClick.php?lat=37.7771&lon=-122.4196', encrypted_content: 'ErgBCioIBxgCIiQ0NGFl', page_age: '1 week ago' },
          { type: 'web_search_result', title: 'San Francisco Bay Area weather forecast – NBC Bay Area', url: 'https://www.nbcbayarea.com/weather/', encrypted_content: 'EsAECioIBxgCIiQ0NGFl', page_age: null },
        ],
      },
    ]);
    expect(plain.events.map((e) => e.type)).toEqual(['provider-tool-call', 'provider-tool-result', 'message']);
    for (const events of [
      search().pipeThrough(new ToolCallProgressStream()),
      search().pipeThrough(new ConversationEventStream({ progress: true, passthrough: true })),
      search().pipeThrough(new FieldEventStream()),
      search().pipeThrough(new PathUpdateStream()),
      search().pipeThrough(new ToolCallDeltaStream()),
      search().pipeThrough(new ToolCallDeltaStream()).pipeThrough(new ToolCallProgressStream()),
    ]) {
      expect(await collectTurn(events as ReadableStream<PipelineEvent>)).toEqual(plain);
    }
  });

  it('a provider-run call says so in its start part, progress, raw deltas and conversation event; its result passes every stage', async () => {
    const events = await readAll(search().pipeThrough(new ToolCallDeltaStream()).pipeThrough(new ToolCallProgressStream()).pipeThrough(new FieldEventStream({ keepProgress: true })));
    const deltas = events.filter((e) => e.type === 'streaming-tool-call');
    expect(deltas.length).toBeGreaterThan(2);
    for (const delta of deltas) expect(delta).toMatchObject({ ...searchCall, providerExecuted: true });
    const progress = events.filter((e) => e.type === 'tool-call-progress');
    expect(progress.length).toBeGreaterThan(2);
    for (const event of progress) expect(event).toMatchObject({ ...searchCall, providerExecuted: true });
    expect(events.filter((e) => e.type === 'field-start').map((e) => (e as { key: string }).key)).toEqual(['query']);
    expect(events.filter((e) => e.type === 'provider-tool-call')).toMatchObject([{ ...searchCall, index: 0, arguments: { query: 'San Francisco weather today' } }]);
    expect(events.filter((e) => e.type === 'tool-call')).toEqual([]);
    const raw = (await readAll(search())).filter((e) => e.type === 'part' && e.part.type !== 'message');
    expect(raw[0]).toEqual({ type: 'part', index: 0, part: { ...searchCall, type: 'tool-call-start', providerExecuted: true }, metadata: { blockType: 'server_tool_use' } });
    // The result part passes the stages that do not parse arguments; the views that parse them
    // (on the turn builder) report it as its conversation event, as they report calls.
    for (const [stage, reported] of [
      [new ToolCallDeltaStream(), false],
      [new CoalesceStream({ maxDelayMs: Infinity }), false],
      [new FieldEventStream(), true],
      [new PathUpdateStream(), true],
    ] as const) {
      const passed = await readAll(search().pipeThrough(stage as never) as ReadableStream<PipelineEvent>);
      const parts = passed.filter((e) => e.type === 'part' && e.part.type === 'provider-tool-result');
      const results = passed.filter((e) => e.type === 'provider-tool-result');
      expect([parts.length, results.length]).toEqual(reported ? [0, 1] : [1, 0]);
    }
  });

  it('ArgumentValidationStream leaves a provider-run call alone: the schemas are the application\'s', async () => {
    const rejectAll = z.object({ never: z.string() });
    for (const events of [
      search().pipeThrough(new ArgumentValidationStream({ schema: rejectAll })),
      search().pipeThrough(new ToolCallProgressStream()).pipeThrough(new ArgumentValidationStream({ schema: rejectAll, tools: { web_search: rejectAll } })),
    ]) {
      const all = await readAll(events as ReadableStream<PipelineEvent>);
      expect(all.filter((e) => e.type === 'validation-error')).toEqual([]);
      expect(all.filter((e) => e.type === 'provider-tool-call')).toHaveLength(1);
    }
    // The same schema does reject an application's call.
    const app = await readAll(provider().pipeThrough(new ArgumentValidationStream({ schema: rejectAll })));
    expect(app.filter((e) => e.type === 'validation-error').length).toBeGreaterThan(0);
  });

  it('a provider-run call cut off is incomplete with providerExecuted, and never in turn.incompleteToolCalls', async () => {
    const events: PipelineEvent[] = [
      { type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: 'ws_1', toolName: 'web_search', providerExecuted: true } },
      args(0, '{"query":"weath'),
    ];
    const out = await readAll(streamOf(events).pipeThrough(new ConversationEventStream()));
    expect(out).toEqual([
      { type: 'tool-call-incomplete', index: 0, toolCallId: 'ws_1', toolName: 'web_search', providerExecuted: true, partialArguments: { query: 'weath' }, path: '/query', stopReason: undefined },
    ]);
    const turn = await collectTurn(streamOf(events));
    expect(turn.incompleteToolCalls).toEqual([]);
    expect(turn.providerToolCalls).toEqual([{ toolCallId: 'ws_1', toolName: 'web_search', arguments: { query: 'weath' }, incomplete: true }]);
  });

  it('a refusal is its own part and event, never message text, and the turn says so', async () => {
    const refusal = () => streamOf([bytesOf('openai-chat/refusal.sse')]).pipeThrough(new ProviderEventStream({ provider: 'openai-chat' }));
    const parts = (await readAll(refusal())).filter((e) => e.type === 'part');
    expect(new Set(parts.map((e) => (e.type === 'part' ? e.part.type : '')))).toEqual(new Set(['refusal']));
    const events = await readAll(refusal().pipeThrough(new ConversationEventStream()));
    expect(events.filter((e) => e.type !== 'finished')).toEqual([
      { type: 'refusal', index: 0, text: "I'm sorry, I can't assist with that request.", metadata: { choiceIndex: 0 } },
    ]);
    const turn = await collectTurn(refusal());
    expect([turn.text, turn.refusal, turn.finishReason]).toEqual(['', "I'm sorry, I can't assist with that request.", 'stop']);
    // The stages that do not own text pass refusal parts through.
    const fields = await readAll(refusal().pipeThrough(new FieldEventStream()));
    expect(fields.filter((e) => e.type === 'part')).toEqual(parts);
    // Anthropic's refusal is a stop reason: its text (written before the stop) stays message text.
    const stopped = await collectTurn(streamOf([bytesOf('anthropic/handmade-stop-reason-refusal.sse')]).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })));
    expect([stopped.text, stopped.refusal, stopped.finishReason, stopped.rawFinishReason]).toEqual(['Here is', 'Here is', 'refusal', 'refusal']);
    expect((await collectTurn(provider())).refusal).toBeUndefined();
  });
});

describe('Push cores', () => {
  it('every stage has an exported core with push(input) → outputs and end() → outputs', () => {
    const decoder = new ProviderEventDecoder({ provider: 'anthropic' });
    const events = [...decoder.push(bytesOf(RECORDING)), ...decoder.end()];
    const run = <I, O>(core: { push(input: I): O[]; end(): O[] }, inputs: readonly I[]): O[] => [...inputs.flatMap((input) => core.push(input)), ...core.end()];
    const turn = run(new TurnBuilder(), events);
    expect(turn.filter((e) => e.type === 'tool-call')).toHaveLength(2);
    expect(run(new FieldEventCore(), events).filter((e) => e.type === 'field-start').map((e) => (e as { key: string }).key)).toEqual(['location', 'unit', 'timezone']);
    expect(run(new PathUpdateCore(), events).filter((e) => e.type === 'path-update' && e.kind === 'json-complete')).toHaveLength(2);
    expect(run(new ToolCallDeltaCore(), events).filter((e) => e.type === 'streaming-tool-call' && e.isComplete)).toHaveLength(2);
    expect(run(new TaggedToolCallExtractor(), events)).toEqual(events);
    expect(run(new Coalescer(), events).length).toBeLessThanOrEqual(events.length);
    const fragments = run(new IncrementalJsonParser(), ['{"a":[1,', '"x"]}']);
    expect(run(new FragmentValueCore(), fragments).at(-1)).toEqual({ value: { a: [1, 'x'] }, complete: true });
    expect(run(new JsonTextCore(), fragments).join('')).toBe('{"a":[1,"x"]}');
    expect(run(new JsonValueCore(), ['{"a":[1,', '"x"]}']).at(-1)).toEqual({ value: { a: [1, 'x'] }, complete: true });
  });

  it('ArgumentValidationCore returns its outputs at once for synchronous validators and a promise of them for async ones', async () => {
    const events: PipelineEvent[] = [start(0, 'c', 'write_file'), args(0, '{"path":"/etc/x"}'), flush(0)];
    const sync = new ArgumentValidationCore({ schema: z.object({ path: z.string().refine((p) => !p.startsWith('/etc'), 'forbidden') }) });
    const outputs = events.flatMap((event) => sync.push(event) as PipelineEvent[]);
    expect(outputs.filter((e) => e.type === 'validation-error').map((e) => (e as { path: string }).path)).toEqual(['/path']);
    const asyncCore = new ArgumentValidationCore({ schema: z.object({ path: z.string().refine(async (p) => !p.startsWith('/etc'), 'forbidden') }) });
    const settled: PipelineEvent[] = [];
    let promised = 0;
    for (const event of events) {
      const result = asyncCore.push(event);
      if (result instanceof Promise) promised++;
      settled.push(...(await result)); // the next event waits for this one
    }
    expect(promised).toBeGreaterThan(0);
    expect(settled.filter((e) => e.type === 'validation-error').map((e) => (e as { path: string }).path)).toEqual(['/path']);
    expect(settled.filter((e) => e.type !== 'validation-error').map((e) => e.type)).toEqual(['part', 'tool-call-progress', 'tool-call-progress', 'tool-call-progress', 'tool-call-progress', 'tool-call-progress', 'tool-call']);
  });

  it('TurnBuilder without streams gives the turn collectTurn gives', async () => {
    const builder = new TurnBuilder({ progress: true });
    const out: PipelineEvent[] = [];
    for (const event of await readAll(provider())) builder.push(event, out);
    builder.end(out);
    const turn = await collectTurn(provider());
    expect(out.filter((e) => e.type === 'tool-call')).toEqual(turn.toolCalls);
    expect(out.filter((e) => e.type === 'message').map((e) => (e as { text: string }).text).join('')).toBe(turn.text);
  });

  it('ConversationEventStream passes other stages\' events and text it does not own', async () => {
    const events = await readAll(streamOf<PipelineEvent>([text(0, 'a'), flush(0), { type: 'field-start', key: 'k' }, finished('stop', 'end_turn')]).pipeThrough(new ConversationEventStream()));
    expect(events.map((e) => e.type)).toEqual(['message', 'field-start', 'finished']);
  });
});
