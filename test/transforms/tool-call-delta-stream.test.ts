import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolCallDeltaStream, type StreamEvent, type StreamingToolCallEvent } from '../../src/index.ts';
import { args, cutAt, readAll, start, streamOf } from '../helpers.ts';
import { cutsFor, jsonText } from '../json/json-helpers.ts';
import { readableRecordings, recordingEvents } from './providers/event-stream-helpers.ts';


describe('ToolCallDeltaStream', () => {
  it("ToolCallDeltaStream emits the seed's delta sequence exactly as received, then one isComplete event", async () => {
    const chunks = ['{"', 'location', '":"', 'Boston', '"}'];
    const input = [start(0, 'call_1', 'get_weather'), ...chunks.map((c) => args(0, c)), { type: 'flush', index: 0 } as StreamEvent];
    const events = await readAll(streamOf(input).pipeThrough(new ToolCallDeltaStream({ messageId: 'msg_7' })));
    const base = { type: 'streaming-tool-call', index: 0, toolCallId: 'call_1', toolName: 'get_weather', messageId: 'msg_7' };
    expect(events).toEqual([
      { ...base, argumentsDelta: '', isComplete: false },
      ...chunks.map((c) => ({ ...base, argumentsDelta: c, isComplete: false })),
      { ...base, argumentsDelta: '', isComplete: true },
    ]);
    expect(events.map((e) => e.argumentsDelta).join('')).toBe('{"location":"Boston"}');
  });

  it('ToolCallDeltaStream never repairs: invalid or truncated argument text goes out as is', async () => {
    const input = [start(0, 'c', 'f'), args(0, '{"a": tru'), args(0, 'e, "b": "x'), { type: 'flush', index: 0 } as StreamEvent];
    const events = await readAll(streamOf(input).pipeThrough(new ToolCallDeltaStream({ announce: false })));
    expect(events.map((e) => [e.argumentsDelta, e.isComplete])).toEqual([
      ['{"a": tru', false],
      ['e, "b": "x', false],
      ['', true],
    ]);
    expect(events[0]).not.toHaveProperty('messageId');
  });

  it('ToolCallDeltaStream keeps the first non-empty id and name, announcing each as it becomes known', async () => {
    const input = [start(3, '', 'get'), args(3, '{}'), start(3, 'call_9', ''), start(3, 'other', 'x'), { type: 'flush', index: 3 } as StreamEvent];
    const events = await readAll(streamOf(input).pipeThrough(new ToolCallDeltaStream()));
    expect(events.map((e) => [e.toolCallId, e.toolName, e.argumentsDelta, e.isComplete])).toEqual([
      ['', 'get', '', false],
      ['', 'get', '{}', false],
      ['call_9', 'get', '', false],
      ['call_9', 'get', '', true],
    ]);
  });

  it('ToolCallDeltaStream ignores text, reasoning, structured slots, empty chunks and finished; an unflushed call gets no isComplete', async () => {
    const input: StreamEvent[] = [
      { type: 'part', index: 0, part: { type: 'message', text: 'hi' } },
      { type: 'part', index: 1, part: { type: 'structured', json: '{}' } },
      { type: 'flush', index: 0 },
      { type: 'flush', index: 1 },
      start(2, 'c', 'f'),
      args(2, ''),
      args(2, '{"a"'),
      { type: 'finished', reason: 'length' },
    ];
    const events = await readAll(streamOf(input).pipeThrough(new ToolCallDeltaStream({ announce: false })));
    expect(events.map((e) => [e.index, e.argumentsDelta, e.isComplete])).toEqual([[2, '{"a"', false]]);
  });

  it('ToolCallDeltaStream errors with a TypeError for input that is not a StreamEvent', async () => {
    const reader = streamOf([{ type: 'start', kind: 'object' }] as never[]).pipeThrough(new ToolCallDeltaStream()).getReader();
    await expect(reader.read()).rejects.toThrow(TypeError);
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
          const events = await readAll(streamOf(input).pipeThrough(new ToolCallDeltaStream()));
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
      const events = await readAll(recordingEvents(recording).pipeThrough(new ToolCallDeltaStream()));
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
    expect(events.some((e) => e.isComplete)).toBe(false);
    expect(events.map((e) => e.argumentsDelta).join('')).toBe('{"a":');
  });
});
