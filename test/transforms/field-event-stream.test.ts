import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FieldEventStream,
  IncrementalJsonParser,
  JsonFragmentStream,
  ToolCallProgressStream,
  type FieldEvent,
  type FieldEventStreamOutput,
  type JsonValue,
  type StreamEvent,
  type StreamFragment,
} from '../../src/index.ts';
import { cutAt, readAll, streamOf } from '../helpers.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import { chain } from '../../src/transforms/chain.ts';
import { afterUpstreamError } from './upstream-error.ts';
import { parseFragments } from '../json/json-helpers.ts';
import { expectedArguments, readableRecordings, recordingEvents, toolSlotsInFlushOrder } from '../providers/event-stream-helpers.ts';

import { brief, expectedFields, fieldEventsOf, fieldsOf, lastWins, textAndCuts } from '../views/field-helpers.ts';

describe('FieldEventStream', () => {
  it('FieldEventStream reproduces the seed example from fragments (a key travels with its value)', async () => {
    const events = await readAll(streamOf(['{"pat', 'h":"/tm', 'p/file"}']).pipeThrough(new JsonFragmentStream()).pipeThrough(new FieldEventStream()));
    expect(brief(fieldEventsOf(events))).toEqual(['start path', 'delta "/tm"', 'delta "p/file"', 'end path']);
  });

  describe('FieldEventStream on interleaved calls', () => {
    const part = (index: number, chunk: string): StreamEvent => ({ type: 'part', index, part: { type: 'tool-call-arguments', chunk } });
    const input: StreamEvent[] = [
      { type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: 'call_1', toolName: 'write_file' } },
      { type: 'part', index: 1, part: { type: 'tool-call-start', toolCallId: 'call_2', toolName: 'get_weather' } },
      part(0, '{"path":"a.'),
      part(1, '{"city":"Par'),
      part(0, 'txt"}'),
      { type: 'flush', index: 0 },
      part(1, 'is"}'),
      { type: 'flush', index: 1 },
      { type: 'finished', reason: 'tool-calls' },
    ];
    const a = { index: 0, toolCallId: 'call_1', toolName: 'write_file' };
    const b = { index: 1, toolCallId: 'call_2', toolName: 'get_weather' };
    /**
     * With `keepProgress: false`: progress replaced by field events; tool-call-start, the calls'
     * tool-call events (in place of their flushes) and finished passed through.
     */
    const expected = [
      input[0],
      input[1],
      // Both values are strings, and a field from fragments starts with its value: it says so.
      { type: 'field-start', ...a, key: 'path', string: true },
      { type: 'field-delta', ...a, key: 'path', text: 'a.' },
      { type: 'field-start', ...b, key: 'city', string: true },
      { type: 'field-delta', ...b, key: 'city', text: 'Par' },
      { type: 'field-delta', ...a, key: 'path', text: 'txt' },
      { type: 'field-end', ...a, key: 'path', string: true },
      { type: 'tool-call', ...a, arguments: { path: 'a.txt' } },
      { type: 'field-delta', ...b, key: 'city', text: 'is' },
      { type: 'field-end', ...b, key: 'city', string: true },
      { type: 'tool-call', ...b, arguments: { city: 'Paris' } },
      input[8],
    ];

    it('FieldEventStream with keepProgress: false replaces progress events with field events carrying the call id, name and index, and passes the rest through', async () => {
      const events = await readAll(streamOf(input).pipeThrough(new ToolCallProgressStream()).pipeThrough(new FieldEventStream({ keepProgress: false })));
      expect(events).toEqual(expected);
    });

    it('FieldEventStream with keepProgress: false parses raw argument parts itself when no progress stage came before: the same output', async () => {
      const events = await readAll(streamOf(input).pipeThrough(new FieldEventStream({ keepProgress: false })));
      expect(events).toEqual(expected);
    });

    it('FieldEventStream keeps each progress event before the field events it makes by default, so a later view still has them', async () => {
      for (const events of [
        await readAll(streamOf(input).pipeThrough(new FieldEventStream())),
        await readAll(streamOf(input).pipeThrough(new ToolCallProgressStream()).pipeThrough(new FieldEventStream())),
      ]) {
        expect(events.filter((e) => e.type !== 'tool-call-progress')).toEqual(expected);
        // The first chunk of call_1: each fragment, then the field event it makes.
        expect(events.slice(2, 7).map((e) => e.type)).toEqual(['tool-call-progress', 'tool-call-progress', 'field-start', 'tool-call-progress', 'field-delta']);
        expect(events[2]).toEqual({ type: 'tool-call-progress', ...a, fragment: { type: 'start', kind: 'object' } });
      }
    });
  });

  it('FieldEventStream gives structured-output fields with their slot index', async () => {
    const input: StreamEvent[] = [
      { type: 'part', index: 2, part: { type: 'structured', json: '{"title": "Du' } },
      { type: 'part', index: 2, part: { type: 'structured', json: 'ne", "year": 1965}' } },
      { type: 'flush', index: 2 },
    ];
    const events = await readAll(streamOf(input).pipeThrough(new ToolCallProgressStream()).pipeThrough(new FieldEventStream()));
    const fields = fieldEventsOf(events);
    expect(fieldsOf(fields).fields).toEqual([['title', 'Dune'], ['year', 1965]]);
    expect(fields.every((e) => e.index === 2 && e.toolCallId === undefined)).toBe(true);
    // The structured-progress is passed on; the slot's structured event (in place of its flush) passes through last.
    expect(events.filter((e) => !e.type.startsWith('field-') && e.type !== 'structured-progress')).toEqual([{ type: 'structured', index: 2, data: { title: 'Dune', year: 1965 } }]);
    const progress = await readAll(streamOf(input).pipeThrough(new ToolCallProgressStream()));
    expect(events.filter((e) => e.type === 'structured-progress')).toEqual(progress.filter((e) => e.type === 'structured-progress'));
    expect(events.at(-1)).toEqual({ type: 'structured', index: 2, data: { title: 'Dune', year: 1965 } });
  });

  it('FieldEventStream leaves the last field of a truncated call open and emits nothing at the end', async () => {
    const fragments: StreamFragment[] = [];
    const parser = new IncrementalJsonParser();
    fragments.push(...parser.push('{"a": 1, "content": "hel'));
    const events = await readAll(streamOf(fragments).pipeThrough(new FieldEventStream()));
    expect(fieldsOf(fieldEventsOf(events))).toEqual({ fields: [['a', 1]], open: ['content', 'hel'] });
  });

  it('FieldEventStream passes input it does not own through unchanged, even one that is neither a fragment nor an event', async () => {
    const input = [{ type: 'nonsense' }, { type: 'path-update', kind: 'json-complete', path: '' }] as never[];
    expect(await readAll(streamOf(input).pipeThrough(new FieldEventStream()))).toEqual(input);
  });

  it('FieldEventStream errors with a TypeError for fragments out of order', async () => {
    const events = streamOf<StreamFragment>([{ type: 'start', kind: 'object' }, { type: 'string', text: 'x' }]).pipeThrough(new FieldEventStream());
    await expect(readAll(events)).rejects.toThrow(TypeError);
  });

  it('FieldEventStream passes plain fragments on before the field events they make, unless keepProgress is false', async () => {
    const fragments = await readAll(streamOf(['{"a":"x"}']).pipeThrough(new JsonFragmentStream()));
    const events = await readAll(streamOf(fragments).pipeThrough(new FieldEventStream()));
    expect(events.filter((e) => !e.type.startsWith('field-'))).toEqual(fragments);
    expect(events.map((e) => e.type)).toEqual(['start', 'entry', 'field-start', 'entry', 'field-delta', 'entry', 'field-end', 'done']);
    const only = await readAll(streamOf(fragments).pipeThrough(new FieldEventStream({ keepProgress: false })));
    expect(only.map((e) => e.type)).toEqual(['field-start', 'field-delta', 'field-end']);
  });

  it('FieldEventStream: the same from fragments through the stream', async () => {
    await fc.assert(
      fc.asyncProperty(textAndCuts, async ([text, cuts]) => {
        const { fragments } = parseFragments(cutAt(text, cuts));
        const events = await readAll(streamOf(fragments).pipeThrough(new FieldEventStream()));
        const { fields, open } = fieldsOf(fieldEventsOf(events));
        expect(open).toBeUndefined();
        expect(lastWins(fields)).toEqual(lastWins(expectedFields(JSON.parse(text) as JsonValue)));
      }),
      { numRuns: 150 },
    );
  });

});

describe('FieldEventStream on the provider recordings', () => {
  for (const recording of readableRecordings().filter((r) => r.toolCalls.length > 0)) {
    it(`FieldEventStream gives the fields of each call of ${recording.file} as the manifest's arguments`, async () => {
      const [forFields, forSlots] = recordingEvents(recording).pipeThrough(new ToolCallProgressStream()).tee();
      const [output, all] = await Promise.all([readAll(forFields.pipeThrough(new FieldEventStream())), readAll(forSlots)]);
      // Every event passes through unchanged and in order, the progress events too (keepProgress).
      expect(output.filter((e) => !e.type.startsWith('field-'))).toEqual(all);
      const events = fieldEventsOf(output);
      const calls = toolSlotsInFlushOrder(all).map((index) => {
        const ofCall = events.filter((e) => e.index === index);
        const { fields, open } = fieldsOf(ofCall);
        // A truncated call: its complete fields, and the text of the open one.
        return open === undefined ? Object.fromEntries(fields) : [Object.fromEntries(fields), open];
      });
      const expected = recording.toolCalls.map((call) => {
        if (!call.remark?.startsWith('NOT valid JSON')) return expectedArguments(call.args);
        // Gemini Interactions: the text stops inside the string `content`, whose open field holds
        // the decoded text up to there.
        if (recording.dir === 'gemini-interactions') {
          const cut = JSON.parse(call.args + '"}') as { path: string; content: string };
          return [{ path: cut.path }, ['content', cut.content]];
        }
        // The manifest's text stops inside a string of the array: the open field holds the
        // array's JSON text (compact) up to there, without the closing '"]'.
        return [{ filename: 'taxes.txt' }, ['lines_of_text', JSON.stringify(JSON.parse(call.args + '"]}').lines_of_text).slice(0, -2)]];
      });
      expect(calls).toEqual(expected);
    });
  }
});

describe('FieldEventStream when the stage before it fails', () => {
  it('FieldEventStream gives a slow reader the upstream error itself, after a prefix of its field events (its queue dropped, as the standard says)', async () => {
    const DOC = ['{"a":"xy', 'z","b":[1,2]', ',"c":{"d":true}}'];
    const fragments = await readAll(streamOf(DOC).pipeThrough(new JsonFragmentStream()));
    // Cut after the fragment that opens "b": it ends "a" and starts "b" at once (two events).
    const opensB = fragments.findIndex((f) => f.type === 'entry' && f.key === 'b');
    const { expected, values, error, upstream } = await afterUpstreamError(fragments.slice(0, opensB + 1), () => new FieldEventStream());
    expect(values).toEqual(expected.slice(0, values.length));
    expect(expected.slice(-2)).toEqual([{ type: 'field-start', key: 'b' }, { type: 'field-delta', key: 'b', text: '[' }]);
    expect(error).toBe(upstream);
  });
});

describe('FieldEventStream when its reader cancels', () => {
  it('FieldEventStream passes the reader\'s cancel reason up to the source', async () => {
    let cancelled: unknown;
    let sent = 0;
    // An endless tool call: one argument piece per pull.
    const source = new ReadableStream<string>({
      pull(controller) {
        const delta = sent++ === 0 ? { tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{"x":"' } }] } : { tool_calls: [{ index: 0, function: { arguments: 'yy' } }] };
        controller.enqueue(`data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`);
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    // One hop: Node 20's TransformStream loses a cancel reason in chains of three or more plain
    // hops where a stage makes several chunks of one (it cancels the source with an internal
    // TypeError instead; fixed in Node 22+, never in Deno or Bun).
    const reader = source.pipeThrough(chain(new ProviderEventStream({ provider: 'openai-chat' }), new ToolCallProgressStream(), new FieldEventStream())).getReader();
    for (let i = 0; i < 3; i++) await reader.read();
    await reader.cancel('user stopped');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(cancelled).toBe('user stopped');
  });
});
