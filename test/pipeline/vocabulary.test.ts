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
  ToolCallProgressStream,
  TurnBuilder,
  collectTurn,
  type PipelineEvent,
} from '../../src/index.ts';
import { args, finished, flush, readAll, start, streamOf, text } from '../helpers.ts';
import { bytesOf } from '../transforms/providers/event-stream-helpers.ts';

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

  it('FieldEventStream passes the text, the reasoning and the finished call through', async () => {
    const events = await readAll(provider().pipeThrough(new ToolCallProgressStream()).pipeThrough(new FieldEventStream()));
    const types = new Set(events.map((e) => (e.type === 'part' ? `part:${e.part.type}` : e.type)));
    expect([...types].sort()).toEqual(['field-delta', 'field-end', 'field-start', 'finished', 'flush', 'part:message', 'part:tool-call-start', 'tool-call']);
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
