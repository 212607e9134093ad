import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ConversationEventStream,
  ToolCallDeltaStream,
  ToolCallProgressStream,
  type PipelineEvent,
  type StreamEvent,
  type StreamingToolCallEvent,
} from '../../src/index.ts';
import { args, cutAt, finished, flush, readAll, start, streamOf } from '../helpers.ts';
import { cutsFor, jsonText } from '../json/json-helpers.ts';
import { readableRecordings, recordingEvents } from '../providers/event-stream-helpers.ts';

/** The streaming-tool-call events of an output. */
const deltasOf = (events: readonly PipelineEvent[]): StreamingToolCallEvent[] => events.filter((e): e is StreamingToolCallEvent => e.type === 'streaming-tool-call');

describe('ToolCallDeltaStream', () => {
  it("ToolCallDeltaStream replaces the call's parts with the seed's delta sequence exactly as received, then one isComplete event before the flush", async () => {
    const chunks = ['{"', 'location', '":"', 'Boston', '"}'];
    const input = [start(0, 'call_1', 'get_weather'), ...chunks.map((c) => args(0, c)), { type: 'flush', index: 0 } as StreamEvent];
    const events = await readAll(streamOf(input).pipeThrough(new ToolCallDeltaStream({ messageId: 'msg_7' })));
    const base = { type: 'streaming-tool-call', index: 0, toolCallId: 'call_1', toolName: 'get_weather', messageId: 'msg_7' };
    expect(events).toEqual([
      { ...base, argumentsDelta: '', isComplete: false },
      ...chunks.map((c) => ({ ...base, argumentsDelta: c, isComplete: false })),
      { ...base, argumentsDelta: '', isComplete: true },
      { type: 'flush', index: 0 },
    ]);
    expect(deltasOf(events).map((e) => e.argumentsDelta).join('')).toBe('{"location":"Boston"}');
  });

  it('ToolCallDeltaStream never repairs: invalid or truncated argument text goes out as is', async () => {
    const input = [start(0, 'c', 'f'), args(0, '{"a": tru'), args(0, 'e, "b": "x'), { type: 'flush', index: 0 } as StreamEvent];
    const events = deltasOf(await readAll(streamOf(input).pipeThrough(new ToolCallDeltaStream({ announce: false }))));
    expect(events.map((e) => [e.argumentsDelta, e.isComplete])).toEqual([
      ['{"a": tru', false],
      ['e, "b": "x', false],
      ['', true],
    ]);
    expect(events[0]).not.toHaveProperty('messageId');
  });

  it('ToolCallDeltaStream keeps the first non-empty id and name, announcing each as it becomes known', async () => {
    const input = [start(3, '', 'get'), args(3, '{}'), start(3, 'call_9', ''), start(3, 'other', 'x'), { type: 'flush', index: 3 } as StreamEvent];
    const events = deltasOf(await readAll(streamOf(input).pipeThrough(new ToolCallDeltaStream())));
    expect(events.map((e) => [e.toolCallId, e.toolName, e.argumentsDelta, e.isComplete])).toEqual([
      ['', 'get', '', false],
      ['', 'get', '{}', false],
      ['call_9', 'get', '', false],
      ['call_9', 'get', '', true],
    ]);
  });

  it('ToolCallDeltaStream passes text, reasoning, structured slots, their flushes and finished through, skips empty chunks; an unflushed call gets no isComplete', async () => {
    const input: StreamEvent[] = [
      { type: 'part', index: 0, part: { type: 'message', text: 'hi' } },
      { type: 'part', index: 4, part: { type: 'reasoning', text: 'hm' } },
      { type: 'part', index: 1, part: { type: 'structured', json: '{}' } },
      { type: 'flush', index: 0 },
      { type: 'flush', index: 1 },
      start(2, 'c', 'f'),
      args(2, ''),
      args(2, '{"a"'),
      { type: 'finished', reason: 'length' },
    ];
    const events = await readAll(streamOf(input).pipeThrough(new ToolCallDeltaStream({ announce: false })));
    // The call's tool-call-start and argument parts are replaced; everything else is unchanged and in order.
    expect(events).toEqual([
      input[0],
      input[1],
      input[2],
      input[3],
      input[4],
      { type: 'streaming-tool-call', index: 2, toolCallId: 'c', toolName: 'f', argumentsDelta: '{"a"', isComplete: false },
      input[8],
    ]);
  });

  it('ToolCallDeltaStream passes input it does not own through unchanged, even a bare fragment', async () => {
    const input = [{ type: 'start', kind: 'object' }, { type: 'field-start', key: 'a' }] as never[];
    expect(await readAll(streamOf(input).pipeThrough(new ToolCallDeltaStream()))).toEqual(input);
  });

  it('ToolCallDeltaStream: for interleaved calls cut anywhere, each call concatenates to its text', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(jsonText.chain((text) => fc.tuple(fc.constant(text), cutsFor(text.length))), { minLength: 1, maxLength: 4 }),
        fc.integer(),
        async (calls, seed) => {
          // Interleave the calls' chunks in an order drawn from the seed, each call's own order kept.
          const queues = calls.map(([text, cuts], i) => [start(i, `call_${i}`, `tool_${i}`), ...cutAt(text, cuts).map((c) => args(i, c))]);
          const input: StreamEvent[] = [];
          let s = seed >>> 0;
          while (queues.some((q) => q.length > 0)) {
            s = (Math.imul(s, 1103515245) + 12345) >>> 0;
            const open = queues.map((q, i) => [q, i] as const).filter(([q]) => q.length > 0);
            const [queue, i] = open[s % open.length] as (typeof open)[number];
            input.push(queue.shift() as StreamEvent);
            if (queue.length === 0) input.push({ type: 'flush', index: i });
          }
          const events = deltasOf(await readAll(streamOf(input).pipeThrough(new ToolCallDeltaStream())));
          calls.forEach(([text], i) => {
            const ofCall = events.filter((e) => e.toolCallId === `call_${i}`);
            expect(ofCall.map((e) => e.argumentsDelta).join('')).toBe(text);
            expect(ofCall.filter((e) => e.isComplete)).toHaveLength(1);
            expect(ofCall[ofCall.length - 1]?.isComplete).toBe(true);
            expect(ofCall.every((e) => e.toolName === `tool_${i}` && e.index === i)).toBe(true);
          });
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('ToolCallDeltaStream on the provider recordings', () => {
  for (const recording of readableRecordings().filter((r) => r.toolCalls.length > 0)) {
    it(`ToolCallDeltaStream: the deltas of each call of ${recording.file} concatenate to the manifest's arguments`, async () => {
      const output = await readAll(recordingEvents(recording).pipeThrough(new ToolCallDeltaStream()));
      const events = deltasOf(output);
      // No argument part and no tool-call-start is left: the deltas replaced them.
      expect(output.some((e) => e.type === 'part' && (e.part.type === 'tool-call-start' || e.part.type === 'tool-call-arguments'))).toBe(false);
      // Calls in the order of their completion events, as the manifest lists them.
      const completed = events.filter((e) => e.isComplete);
      const calls = completed.map((done) => {
        const ofCall = events.filter((e: StreamingToolCallEvent) => e.index === done.index);
        expect(ofCall[ofCall.length - 1]).toBe(done);
        return { id: done.toolCallId, name: done.toolName, args: ofCall.map((e) => e.argumentsDelta).join('') };
      });
      expect(calls.map((c) => c.name)).toEqual(recording.toolCalls.map((c) => c.name));
      recording.toolCalls.forEach((expected, i) => {
        const call = calls[i] as { id: string; args: string };
        if (expected.id !== '') expect(call.id).toBe(expected.id);
        // Gemini's argument-less call has no argument text on the wire; the manifest writes `{}`.
        if (call.args === '' && expected.args === '{}') return;
        expect(call.args).toBe(expected.args);
      });
    });
  }
});

describe('ToolCallDeltaStream and the end of input', () => {
  it('ToolCallDeltaStream sends no isComplete for a call the provider never closed (flushed at the end of input)', async () => {
    const events = await readAll(
      streamOf<StreamEvent>([start(0, 'c', 'f'), args(0, '{"a":'), { type: 'flush', index: 0, metadata: { endOfInput: true } }]).pipeThrough(new ToolCallDeltaStream()),
    );
    expect(deltasOf(events).some((e) => e.isComplete)).toBe(false);
    expect(deltasOf(events).map((e) => e.argumentsDelta).join('')).toBe('{"a":');
    // The flush passes through.
    expect(events.at(-1)).toEqual({ type: 'flush', index: 0, metadata: { endOfInput: true } });
  });
});

describe('ToolCallDeltaStream after a progress stage', () => {
  it('ToolCallDeltaStream writes the progress fragments as JSON text and completes the call at its tool-call event', async () => {
    const chunks = ['{"path": "a', '.txt", "n": [1, ', 'true]}'];
    const input = [start(0, 'c', 'write'), ...chunks.map((c) => args(0, c)), flush(0), finished('tool-calls', 'tool_use')];
    const events = await readAll(streamOf(input).pipeThrough(new ToolCallProgressStream()).pipeThrough(new ToolCallDeltaStream({ announce: false })));
    const deltas = deltasOf(events);
    // No whitespace, and the same value as the raw text.
    expect(deltas.map((e) => e.argumentsDelta).join('')).toBe('{"path":"a.txt","n":[1,true]}');
    expect(deltas.filter((e) => e.isComplete)).toEqual([
      { type: 'streaming-tool-call', index: 0, toolCallId: 'c', toolName: 'write', argumentsDelta: '', isComplete: true },
    ]);
    // The progress and the tool-call event pass through, the isComplete event right before the tool-call.
    const call = events.findIndex((e) => e.type === 'tool-call');
    expect(events[call - 1]).toBe(deltas.at(-1));
    expect(events.slice(call)).toEqual([
      { type: 'tool-call', index: 0, toolCallId: 'c', toolName: 'write', arguments: { path: 'a.txt', n: [1, true] } },
      finished('tool-calls', 'tool_use'),
    ]);
    expect(events.filter((e) => e.type === 'tool-call-progress').length).toBeGreaterThan(0);
    // The tool-call-start part is replaced here too (announce is off: by nothing).
    expect(events.some((e) => e.type === 'part')).toBe(false);
  });

  it('ToolCallDeltaStream completes a call it never saw start (a builder before took its start part) from its tool-call event', async () => {
    const input = [start(0, 'c', 'now'), flush(0), start(1, 'd', 'write'), args(1, '{"a":1}'), flush(1), finished('tool-calls', 'tool_use')];
    const events = await readAll(streamOf(input).pipeThrough(new ConversationEventStream()).pipeThrough(new ToolCallDeltaStream()));
    expect(deltasOf(events)).toEqual([
      { type: 'streaming-tool-call', index: 0, toolCallId: 'c', toolName: 'now', argumentsDelta: '', isComplete: true },
      { type: 'streaming-tool-call', index: 1, toolCallId: 'd', toolName: 'write', argumentsDelta: '{"a":1}', isComplete: false },
      { type: 'streaming-tool-call', index: 1, toolCallId: 'd', toolName: 'write', argumentsDelta: '', isComplete: true },
    ]);
  });
});
