/**
 * `ToolCallProgressStream` on every recording: the progress fragments of each call, fed to a
 * `FragmentAggregator`, give that call's final arguments (the MANIFEST's), under every cutting;
 * the argument parts are replaced by that progress and each call's flush by its `tool-call` event.
 */
import { describe, expect, it } from 'vitest';
import { FragmentAggregator } from '../../src/json/fragment-aggregator.ts';
import type { ProviderName } from '../../src/errors.ts';
import { ProviderEventStream, type ProviderEventStreamInput } from '../../src/transforms/provider-event-stream.ts';
import { ToolCallProgressStream, type ToolCallProgressStreamOutput } from '../../src/transforms/tool-call-progress-stream.ts';
import type { StreamEvent } from '../../src/types.ts';
import { cuttings, readAll, readFixture, streamOf } from '../helpers.ts';
import { type ManifestRecording, readManifest } from '../manifest.ts';
import { PROVIDER_OF_DIR, sdkObjectsOf, streamCuttings } from '../providers/event-stream-helpers.ts';

const RECORDINGS = readManifest().filter((r) => r.dir in PROVIDER_OF_DIR && r.toolCalls.length > 0);

async function progressOf(provider: ProviderName, chunks: readonly ProviderEventStreamInput[]): Promise<ToolCallProgressStreamOutput[]> {
  return readAll(streamOf(chunks).pipeThrough(new ProviderEventStream({ provider })).pipeThrough(new ToolCallProgressStream()));
}

/** Per content slot, the aggregated value of its progress fragments (in order of first fragment). */
function aggregate(outputs: readonly ToolCallProgressStreamOutput[]): Map<number, { toolCallId: string; value: unknown }> {
  const calls = new Map<number, { aggregator: FragmentAggregator; toolCallId: string }>();
  for (const output of outputs) {
    if (output.type !== 'tool-call-progress') continue;
    let call = calls.get(output.index);
    if (call === undefined) {
      call = { aggregator: new FragmentAggregator(), toolCallId: output.toolCallId };
      calls.set(output.index, call);
    }
    expect(output.toolCallId).toBe(call.toolCallId);
    call.aggregator.push(output.fragment);
  }
  return new Map([...calls].map(([index, call]) => [index, { toolCallId: call.toolCallId, value: call.aggregator.snapshot() }]));
}

/** The tool-call slots of the passed-through events, in order of their start. */
function callSlots(outputs: readonly ToolCallProgressStreamOutput[]): number[] {
  const slots: number[] = [];
  for (const output of outputs) {
    if (output.type === 'part' && output.part.type === 'tool-call-start' && !slots.includes(output.index)) slots.push(output.index);
  }
  return slots;
}

function expectManifestArguments(recording: ManifestRecording, outputs: readonly ToolCallProgressStreamOutput[]): void {
  const values = aggregate(outputs);
  const slots = callSlots(outputs);
  expect(slots).toHaveLength(recording.toolCalls.length);
  recording.toolCalls.forEach((expected, i) => {
    const progress = values.get(slots[i] as number);
    if (expected.args === '') {
      // No argument text, no fragments: the turn reads `{}`.
      expect(progress).toBeUndefined();
      return;
    }
    // A call sent without arguments (Gemini's `{name}` only) has no fragments and reads `{}`.
    expect(progress?.value ?? {}).toEqual(JSON.parse(expected.args));
    if (expected.id !== '' && progress !== undefined) expect(progress.toolCallId).toBe(expected.id);
  });
}

/** The tool calls of the output's `tool-call` events are the manifest's, in order. */
function expectManifestCalls(recording: ManifestRecording, outputs: readonly ToolCallProgressStreamOutput[]): void {
  const calls = outputs.flatMap((o) => (o.type === 'tool-call' ? [o] : []));
  expect(calls.map((c) => c.toolName)).toEqual(recording.toolCalls.map((c) => c.name));
  recording.toolCalls.forEach((expected, i) => {
    const call = calls[i];
    expect(call?.arguments).toEqual(expected.args === '' ? {} : JSON.parse(expected.args));
    if (expected.id !== '') expect(call?.toolCallId).toBe(expected.id);
  });
  expect(outputs.some((o) => o.type === 'tool-call-incomplete' || o.type === 'tool-call-failed')).toBe(false);
}

/**
 * What `ToolCallProgressStream` makes of `events` besides progress: the argument parts dropped
 * and the flush of each tool-call or structured slot replaced by that slot's conversation event.
 */
function replacedByProgress(events: readonly StreamEvent[]): unknown[] {
  const kinds = new Map<number, 'tool-call' | 'structured'>();
  for (const event of events) {
    if (event.type !== 'part') continue;
    if (event.part.type === 'tool-call-start' || event.part.type === 'tool-call-arguments') kinds.set(event.index, 'tool-call');
    else if (event.part.type === 'structured') kinds.set(event.index, 'structured');
  }
  return events.flatMap((event) => {
    if (event.type === 'part' && (event.part.type === 'tool-call-arguments' || event.part.type === 'structured')) return [];
    if (event.type === 'flush' && kinds.has(event.index)) return [expect.objectContaining({ type: kinds.get(event.index), index: event.index })];
    return [event];
  });
}

describe('ToolCallProgressStream on every recording with tool calls', () => {
  for (const recording of RECORDINGS) {
    if (recording.toolCalls.some((c) => c.remark?.startsWith('NOT valid JSON'))) continue;
    const provider = PROVIDER_OF_DIR[recording.dir] as ProviderName;
    describe(recording.file, () => {
      if (!recording.file.endsWith('.jsonl')) {
        const bytes = readFixture(`providers/${recording.file}`);
        const all = recording.dir === 'bedrock' ? cuttings(bytes) : streamCuttings(bytes);
        for (const [cutting, chunks] of all as Array<[string, ProviderEventStreamInput[]]>) {
          it(`ToolCallProgressStream fragments aggregate to each call's manifest arguments (${cutting})`, async () => {
            const outputs = await progressOf(provider, chunks);
            expectManifestArguments(recording, outputs);
            expectManifestCalls(recording, outputs);
            // Every input event but the argument parts and the flushes of argument slots passes
            // through, in order; each of those flushes is replaced by its slot's conversation event.
            const passed = outputs.filter((o) => o.type !== 'tool-call-progress' && o.type !== 'structured-progress');
            expect(passed).toEqual(replacedByProgress(await readAll(streamOf(chunks).pipeThrough(new ProviderEventStream({ provider })))));
          });
        }
      }
      it('ToolCallProgressStream fragments aggregate to the manifest arguments for the objects an SDK yields', async () => {
        const outputs = await progressOf(provider, sdkObjectsOf(recording.file));
        expectManifestArguments(recording, outputs);
        expectManifestCalls(recording, outputs);
      });
    });
  }
});

describe('ToolCallProgressStream on interleaved and long calls', () => {
  it('ToolCallProgressStream keeps parallel calls apart when their chunks interleave', async () => {
    // The two streamed calls of openai-chat/parallel-2-tool-calls.sse, their chunks alternated.
    const events = await readAll(
      streamOf([readFixture('providers/openai-chat/parallel-2-tool-calls.sse')]).pipeThrough(new ProviderEventStream({ provider: 'openai-chat' })),
    );
    const parts = events.filter((e) => e.type === 'part');
    const first = parts.filter((e) => e.index === 0);
    const second = parts.filter((e) => e.index === 1);
    const interleaved: StreamEvent[] = [];
    for (let i = 0; i < Math.max(first.length, second.length); i++) interleaved.push(...[first[i], second[i]].filter((e) => e !== undefined));
    interleaved.push({ type: 'flush', index: 0 }, { type: 'flush', index: 1 });
    const outputs = await readAll(streamOf(interleaved).pipeThrough(new ToolCallProgressStream()));
    const progress = outputs.filter((o) => o.type === 'tool-call-progress');
    // Fragments of the two calls really alternate.
    expect(new Set(progress.slice(0, 6).map((o) => o.index))).toEqual(new Set([0, 1]));
    const values = aggregate(outputs);
    expect(values.get(0)).toEqual({ toolCallId: 'call_JMW1whyEaYG438VE1OIflxA2', value: { city: 'Edinburgh', country: 'GB', units: 'c' } });
    expect(values.get(1)).toEqual({ toolCallId: 'call_DNYTawLBoN8fj3KN6qU9N1Ou', value: { ticker: 'AAPL', exchange: 'NASDAQ' } });
  });

  it('ToolCallProgressStream shows a short argument complete before a long one that follows it ends (truncated recording)', async () => {
    const outputs = await progressOf('anthropic', [readFixture('providers/anthropic/tool-use-truncated-max-tokens.sse')]);
    const filenameDone = outputs.findIndex(
      (o) => o.type === 'tool-call-progress' && o.fragment.type === 'entry' && o.fragment.key === 'filename' && o.fragment.value.type === 'done',
    );
    const contentPieces = outputs.flatMap((o, i) =>
      o.type === 'tool-call-progress' && o.fragment.type === 'entry' && o.fragment.key === 'lines_of_text' && o.fragment.value.type === 'item' ? [i] : [],
    );
    expect(filenameDone).toBeGreaterThan(-1);
    expect(filenameDone).toBeLessThan(contentPieces[0] as number);
    expect(filenameDone).toBeLessThan(contentPieces.at(-1) as number);
    // The raw argument parts are replaced by the progress.
    expect(outputs.some((o) => o.type === 'part' && o.part.type === 'tool-call-arguments')).toBe(false);
    // The cut call's progress stops where its text stops: no error, no made-up close.
    expect(aggregate(outputs).get(1)?.value).toEqual({
      filename: 'taxes.txt',
      lines_of_text: ['# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s', '', '## INTRODUCTION', '', 'Filing taxes'],
    });
    // It ends as tool-call-incomplete with the stop reason, just before finished.
    expect(outputs.slice(-2).map((o) => o.type)).toEqual(['tool-call-incomplete', 'finished']);
    expect(outputs.at(-2)).toMatchObject({ index: 1, toolCallId: 'toolu_01EKqbqmZrGRXy18eN7m9kvY', toolName: 'make_file', path: '/lines_of_text/4', stopReason: 'max_tokens' });
  });

  it('ToolCallProgressStream with repair ends the cut call as a tool-call marked truncated, closed where it stopped', async () => {
    const outputs = await readAll(
      streamOf([readFixture('providers/anthropic/tool-use-truncated-max-tokens.sse')])
        .pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))
        .pipeThrough(new ToolCallProgressStream({ repair: true })),
    );
    expect(outputs.some((o) => o.type === 'tool-call-incomplete')).toBe(false);
    expect(outputs.find((o) => o.type === 'tool-call')).toEqual(
      expect.objectContaining({
        type: 'tool-call',
        index: 1,
        toolCallId: 'toolu_01EKqbqmZrGRXy18eN7m9kvY',
        toolName: 'make_file',
        truncated: true,
        arguments: {
          filename: 'taxes.txt',
          lines_of_text: ['# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s', '', '## INTRODUCTION', '', 'Filing taxes'],
        },
      }),
    );
  });
});
