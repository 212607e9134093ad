import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  collectTurn,
  TaggedToolCallError,
  TaggedToolCallStream,
  ToolCallArgumentsError,
  type FlushEvent,
  type PipelineEvent,
  type StreamEvent,
  type TaggedToolCallStreamOptions,
} from '../../src/index.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import { TaggedToolCallExtractor } from '../../src/turn/tagged-tool-call-extractor.ts';
import { args, cutAt, finished, flush, oneByOne, readAll, readFixture, settle, start, streamOf, text as msg } from '../helpers.ts';
import { afterUpstreamError } from './upstream-error.ts';
import { cutsFor, jsonText } from '../json/json-helpers.ts';
import { readManifest } from '../manifest.ts';
import { PROVIDER_OF_DIR } from '../providers/event-stream-helpers.ts';

const STOP = finished('stop', 'stop');

/** Run message chunks of slot 0 through the core, chunk by chunk; then flush slot 0. */
function extract(chunks: readonly string[], options: TaggedToolCallStreamOptions = {}): PipelineEvent[] {
  const extractor = new TaggedToolCallExtractor(options);
  const out: PipelineEvent[] = [];
  for (const chunk of chunks) extractor.push(msg(0, chunk), out);
  extractor.push(flush(0), out);
  extractor.end(out as StreamEvent[]);
  return out;
}

/** What each pushed chunk produced, separately (promptness). */
function perChunk(chunks: readonly string[], options: TaggedToolCallStreamOptions = {}): PipelineEvent[][] {
  const extractor = new TaggedToolCallExtractor(options);
  return [...chunks.map((chunk) => extractor.push(msg(0, chunk))), extractor.push(flush(0))];
}

/** Adjacent message text and argument chunks of the same slot merged: the same for every cutting. */
function merged(events: readonly PipelineEvent[]): PipelineEvent[] {
  const out: PipelineEvent[] = [];
  for (const event of events) {
    const last = out[out.length - 1];
    if (event.type === 'part' && last?.type === 'part' && last.index === event.index && event.metadata === undefined && last.metadata === undefined) {
      if (event.part.type === 'message' && last.part.type === 'message') {
        out[out.length - 1] = msg(event.index, last.part.text + event.part.text);
        continue;
      }
      if (event.part.type === 'tool-call-arguments' && last.part.type === 'tool-call-arguments') {
        out[out.length - 1] = args(event.index, last.part.chunk + event.part.chunk);
        continue;
      }
    }
    out.push(event);
  }
  return out;
}

/** The error a failed call's flush carries. */
function callError(events: readonly PipelineEvent[], index: number): TaggedToolCallError {
  const event = events.find((e): e is FlushEvent => e.type === 'flush' && e.index === index);
  const error = event?.metadata?.['toolCallError'];
  if (!(error instanceof TaggedToolCallError)) throw new Error(`slot ${index} has no toolCallError`);
  return error;
}

/** The events without the flush metadata (for comparing the shape of a failed call). */
function shapes(events: readonly PipelineEvent[]): PipelineEvent[] {
  return events.map((e) => (e.type === 'flush' ? flush(e.index) : e));
}


describe('TaggedToolCallStream', () => {
  it('TaggedToolCallStream turns the seed example into a message, a tool-call-start and the raw argument deltas', () => {
    // Seed 002, 6.1: the deltas `{"` + `location` + `":"` + `Boston` + `"}`, here written by a
    // model inside <tool_call> tags and cut into tokens the way a server streams them.
    const chunks = ['Let me check the weather.\n<tool', '_call>\n{"name": "get_weather", "arguments": ', '{"', 'location', '":"', 'Boston', '"}', '}\n</tool_call>'];
    expect(perChunk(chunks)).toEqual([
      [msg(0, 'Let me check the weather.\n')],
      [start(-1, 'call_0', 'get_weather')],
      [args(-1, '{"')],
      [args(-1, 'location')],
      [args(-1, '":"')],
      [args(-1, 'Boston')],
      [args(-1, '"}')],
      [flush(-1)],
      [flush(0)],
    ]);
  });

  it('TaggedToolCallStream feeds collectTurn: the call with its arguments, the message without the tags', async () => {
    const turn = await collectTurn(
      streamOf<StreamEvent>([
        msg(0, 'Checking.\n<tool_call>{"name": "get_weather", "arguments": {"location": "Bos'),
        msg(0, 'ton", "unit": "C"}}</tool_call>\nDone.'),
        flush(0),
        STOP,
      ]).pipeThrough(new TaggedToolCallStream()),
    );
    expect(turn.text).toBe('Checking.\n\nDone.');
    expect(turn.toolCalls).toEqual([{ type: 'tool-call', index: -1, toolCallId: 'call_0', toolName: 'get_weather', arguments: { location: 'Boston', unit: 'C' } }]);
    expect(turn.finishReason).toBe('stop');
  });

  it('TaggedToolCallStream gives the same events under every cutting of a message with calls (adjacent text and argument chunks merged)', () => {
    const message =
      'Sure < sure. <tool_c> no tag. ' +
      '<tool_call>\n{"name": "write_file", "arguments": {"path": "a.txt", "content": "x </tool_call> \\"q\\" \\u00e9\\\\"}}\n</tool_call>' +
      ' then <<tool_call>{"arguments" :[1, -2.5e3, true, null] , "name":"sum"}</tool_call>done<to';
    const expected = [
      msg(0, 'Sure < sure. <tool_c> no tag. '),
      start(-1, 'call_0', 'write_file'),
      args(-1, '{"path": "a.txt", "content": "x </tool_call> \\"q\\" \\u00e9\\\\"}'),
      flush(-1),
      msg(0, ' then <'),
      start(-2, 'call_1', 'sum'),
      args(-2, '[1, -2.5e3, true, null]'),
      flush(-2),
      msg(0, 'done<to'),
      flush(0),
    ];
    expect(merged(extract([message]))).toEqual(expected);
    expect(merged(extract(oneByOne(message)))).toEqual(expected);
    for (let a = 1; a < message.length; a++) {
      for (let b = a + 1; b < message.length; b += 3) {
        const events = merged(extract(cutAt(message, [a, b])));
        if (JSON.stringify(events) !== JSON.stringify(expected)) expect({ cuts: [a, b], events }).toEqual({ cuts: [a, b], events: expected });
      }
    }
  });

  it('TaggedToolCallStream passes look-alike text through as soon as it proves not to be a tag, and only holds a possible tag start', () => {
    expect(perChunk(['a < b', ' <tool', '_c', 'x and <tool_call', ' no', ' <', '/tool_call> stays'])).toEqual([
      [msg(0, 'a < b')],
      [msg(0, ' ')],
      [],
      [msg(0, '<tool_cx and ')],
      [msg(0, '<tool_call no')],
      [msg(0, ' ')],
      [msg(0, '</tool_call> stays')],
      [flush(0)],
    ]);
    // Held text is released when its slot is flushed, before the flush.
    expect(perChunk(['end <tool_ca'])).toEqual([[msg(0, 'end ')], [msg(0, '<tool_ca'), flush(0)]]);
    // `<<` and a tag right after the held `<`.
    expect(merged(extract(['1 <', '<', 'tool_call>{"name":"n"}</tool_call>2']))).toEqual([msg(0, '1 <'), start(-1, 'call_0', 'n'), flush(-1), msg(0, '2'), flush(0)]);
  });

  it('TaggedToolCallStream extracts several calls in one message and keeps the text between and after them in order', () => {
    const message =
      '<tool_call>{"name":"a","arguments":{}}</tool_call>\n<tool_call>{"name":"b","arguments":{"x":1}}</tool_call> and ' +
      '<tool_call>{"name":"c"}</tool_call>.';
    expect(extract([message])).toEqual([
      start(-1, 'call_0', 'a'),
      args(-1, '{}'),
      flush(-1),
      msg(0, '\n'),
      start(-2, 'call_1', 'b'),
      args(-2, '{"x":1}'),
      flush(-2),
      msg(0, ' and '),
      start(-3, 'call_2', 'c'),
      flush(-3),
      msg(0, '.'),
      flush(0),
    ]);
  });

  it('TaggedToolCallStream sends tool-call-start as soon as the name is complete, before the arguments', () => {
    expect(perChunk(['<tool_call>{"name": "wri', 'te_file"', ', "arguments": {"content": "line 1', '\\nline 2"}}</tool_call>'])).toEqual([
      [],
      [start(-1, 'call_0', 'write_file')],
      [args(-1, '{"content": "line 1')],
      [args(-1, '\\nline 2"}'), flush(-1)],
      [flush(0)],
    ]);
  });

  it('TaggedToolCallStream holds arguments written before the name, and sends them right after tool-call-start when the name arrives', () => {
    expect(perChunk(['<tool_call>{"arguments": {"a": [1, ', '2]}, "na', 'me": "pick"', ' }</tool_call>'])).toEqual([
      [],
      [],
      [start(-1, 'call_0', 'pick'), args(-1, '{"a": [1, 2]}')],
      [flush(-1)],
      [flush(0)],
    ]);
  });

  it('TaggedToolCallStream slices a scalar or string arguments value exactly, without the whitespace around it', () => {
    expect(merged(extract(['<tool_call>{"name":"n","arguments": 12', ' ,"x":1}</tool_call>']))).toEqual([start(-1, 'call_0', 'n'), args(-1, '12'), flush(-1), flush(0)]);
    expect(merged(extract(['<tool_call>{"name":"n","arguments":"{\\"a\\":1}"\n}\n</tool_call>']))).toEqual([start(-1, 'call_0', 'n'), args(-1, '"{\\"a\\":1}"'), flush(-1), flush(0)]);
    // A root number is complete at its terminator, cut anywhere; no name: the call fails after its arguments.
    const message = '<tool_call>{"arguments":-0.5e+2}</tool_call>';
    const events = extract(oneByOne(message), { toolCallId: () => 'id' });
    expect(shapes(merged(events))).toEqual([start(-1, 'id', ''), args(-1, '-0.5e+2'), flush(-1), flush(0)]);
  });

  it('TaggedToolCallStream reports malformed JSON as a failed call, and the message goes on after the close tag', async () => {
    const message = 'A<tool_call>{"name": "x", "arguments": {"a": 1,}}</tool_call>B';
    const events = extract([message]);
    expect(shapes(events)).toEqual([msg(0, 'A'), start(-1, 'call_0', 'x'), args(-1, '{"a": 1,'), flush(-1), msg(0, 'B'), flush(0)]);
    const error = callError(events, -1);
    expect([error.code, error.offset, error.toolCallId, error.toolName, error.index]).toEqual(['invalid-json', 35, 'call_0', 'x', -1]);
    expect(error.cause?.path).toBe('/arguments');
    // Every cutting reports the same error at the same offset.
    for (const chunks of [oneByOne(message), cutAt(message, [20, 40])]) {
      const again = extract(chunks);
      expect(shapes(merged(again))).toEqual(shapes(merged(events)));
      expect([callError(again, -1).code, callError(again, -1).offset]).toEqual(['invalid-json', 35]);
    }
    // The turn builder reports it as failed, with the extractor's typed error.
    const turn = await collectTurn(streamOf([msg(0, message), flush(0), STOP]).pipeThrough(new TaggedToolCallStream()), { isolateErrors: true });
    expect(turn.text).toBe('AB');
    expect(turn.toolCalls).toEqual([]);
    expect(turn.failedToolCalls).toHaveLength(1);
    expect(turn.failedToolCalls[0]).toMatchObject({ toolCallId: 'call_0', toolName: 'x', index: -1 });
    expect(turn.failedToolCalls[0]?.error).toBeInstanceOf(TaggedToolCallError);
    expect((turn.failedToolCalls[0]?.error as TaggedToolCallError).code).toBe('invalid-json');
    // Without isolateErrors the turn fails, as for native calls with invalid arguments.
    await expect(collectTurn(streamOf([msg(0, message), flush(0)]).pipeThrough(new TaggedToolCallStream()))).rejects.toBeInstanceOf(TaggedToolCallError);
  });

  it('TaggedToolCallStream drops the text of a broken call up to its close tag, whatever the body holds', () => {
    const events = extract(['<tool_call>{"name": "x" oops <b>{}</b></tool_call>after <tool_call>{"name":"y"}</tool_call>']);
    expect(shapes(events)).toEqual([start(-1, 'call_0', 'x'), flush(-1), msg(0, 'after '), start(-2, 'call_1', 'y'), flush(-2), flush(0)]);
    expect([callError(events, -1).code, callError(events, -1).offset]).toEqual(['invalid-json', 13]);
  });

  it('TaggedToolCallStream reports a missing, empty or non-string name, a body that is not an object, and duplicate keys', () => {
    const cases: Array<[string, string, StreamEvent[]]> = [
      ['{"arguments": {"a": 1}}', 'missing-name', [start(-1, 'call_0', ''), args(-1, '{"a": 1}'), flush(-1)]],
      ['{"name": "", "arguments": {}}', 'invalid-name', [start(-1, 'call_0', ''), flush(-1)]],
      ['{"name": 7, "arguments": {}}', 'invalid-name', [start(-1, 'call_0', ''), flush(-1)]],
      ['{"name": {"n": "x"}}', 'invalid-name', [start(-1, 'call_0', ''), flush(-1)]],
      ['["x", {}]', 'not-an-object', [start(-1, 'call_0', ''), flush(-1)]],
      ['"x"', 'not-an-object', [start(-1, 'call_0', ''), flush(-1)]],
      ['{"name": "x", "arguments": {}, "name": "y"}', 'duplicate-key', [start(-1, 'call_0', 'x'), args(-1, '{}'), flush(-1)]],
      ['{"arguments": [1], "arguments": [2], "name": "x"}', 'duplicate-key', [start(-1, 'call_0', ''), args(-1, '[1]'), flush(-1)]],
    ];
    for (const [body, code, expected] of cases) {
      const message = `<tool_call>${body}</tool_call>ok`;
      for (const chunks of [[message], oneByOne(message)]) {
        const events = extract(chunks);
        expect(shapes(merged(events)), body).toEqual([...expected, msg(0, 'ok'), flush(0)]);
        expect(callError(events, -1).code, body).toBe(code);
      }
    }
  });

  it('TaggedToolCallStream reports text between the object and the close tag', () => {
    const events = extract(['<tool_call>{"name":"x"} }</tool_call>z']);
    expect(shapes(events)).toEqual([start(-1, 'call_0', 'x'), flush(-1), msg(0, 'z'), flush(0)]);
    expect([callError(events, -1).code, callError(events, -1).offset]).toEqual(['unexpected-text', 13]);
  });

  it('TaggedToolCallStream reports an unterminated call when its slot is flushed or the input ends, keeping what was read', async () => {
    const events = extract(['Hi <tool_call>{"name": "write_file", "arguments": {"content": "abc']);
    expect(shapes(events)).toEqual([msg(0, 'Hi '), start(-1, 'call_0', 'write_file'), args(-1, '{"content": "abc'), flush(-1), flush(0)]);
    expect([callError(events, -1).code, callError(events, -1).offset]).toEqual(['unterminated', 52]);
    // A complete object without its close tag is unterminated too (by default).
    expect(callError(extract(['<tool_call>{"name":"x"}\n</tool_c']), -1).code).toBe('unterminated');
    // Never flushed: the stream's end closes the call.
    const output = await readAll(streamOf([msg(0, '<tool_call>{"name":"x","argu')]).pipeThrough(new TaggedToolCallStream()));
    expect(shapes(output)).toEqual([start(-1, 'call_0', 'x'), flush(-1)]);
    expect(callError(output, -1).code).toBe('unterminated');
  });

  it('TaggedToolCallStream with requireCloseTag: false accepts a complete object whose close tag never came (a stop sequence)', async () => {
    const options = { requireCloseTag: false };
    expect(extract(['<tool_call>{"name":"x","arguments":{"a":1}}\n'], options)).toEqual([start(-1, 'call_0', 'x'), args(-1, '{"a":1}'), flush(-1), flush(0)]);
    expect(callError(extract(['<tool_call>{"name":"x","arguments":{"a":1}'], options), -1).code).toBe('unterminated');
    const turn = await collectTurn(streamOf([msg(0, '<tool_call>{"name":"x","arguments":{"a":1}}'), flush(0)]).pipeThrough(new TaggedToolCallStream(options)));
    expect(turn.toolCalls.map((c) => [c.toolName, c.arguments])).toEqual([['x', { a: 1 }]]);
  });

  it('TaggedToolCallStream fails a call whose arguments waiting for the name exceed maxBufferedLength', () => {
    const events = extract(['<tool_call>{"arguments": "0123456789", "name": "x"}</tool_call>.'], { maxBufferedLength: 8 });
    expect(shapes(events)).toEqual([start(-1, 'call_0', ''), flush(-1), msg(0, '.'), flush(0)]);
    expect(callError(events, -1).code).toBe('max-buffered-length');
    // The limit does not apply once the name is known.
    expect(merged(extract(['<tool_call>{"name": "x", "arguments": "0123456789"}</tool_call>'], { maxBufferedLength: 8 }))).toEqual([
      start(-1, 'call_0', 'x'),
      args(-1, '"0123456789"'),
      flush(-1),
      flush(0),
    ]);
  });

  it('TaggedToolCallStream applies the JSON limits to the call body', () => {
    const events = extract(['<tool_call>{"name":"x","arguments":{"a":[[1]]}}</tool_call>'], { maxDepth: 3 });
    expect(shapes(events)).toEqual([start(-1, 'call_0', 'x'), args(-1, '{"a":['), flush(-1), flush(0)]);
    expect([callError(events, -1).code, callError(events, -1).offset]).toEqual(['max-depth', 30]);
  });

  it('TaggedToolCallStream takes custom tag names and ids', () => {
    const options = { openTag: '[TOOL_CALLS]', closeTag: '[/TOOL_CALLS]', toolCallId: (n: number) => `tc-${n + 1}` };
    const message = 'x [TOOL] <tool_call>[TOOL_CALLS] {"name":"f","arguments":{"q":"[/TOOL_CALLS]"}} [/TOOL_CALLS]y';
    for (const chunks of [[message], oneByOne(message)]) {
      expect(merged(extract(chunks, options))).toEqual([
        msg(0, 'x [TOOL] <tool_call>'),
        start(-1, 'tc-1', 'f'),
        args(-1, '{"q":"[/TOOL_CALLS]"}'),
        flush(-1),
        msg(0, 'y'),
        flush(0),
      ]);
    }
    expect(merged(extract(['<function_call>{"name":"g"}</function_call>'], { openTag: '<function_call>', closeTag: '</function_call>' }))).toEqual([
      start(-1, 'call_0', 'g'),
      flush(-1),
      flush(0),
    ]);
  });

  it('TaggedToolCallStream passes reasoning, native tool calls, structured parts and finished through, and follows each message slot on its own', () => {
    const input: StreamEvent[] = [
      { type: 'part', index: 0, part: { type: 'reasoning', text: 'think <tool_call>{"name":"no"}</tool_call>' } },
      flush(0),
      msg(1, 'one <tool_'),
      msg(2, 'two <tool_call>{"name":"b"'),
      msg(1, 'call>{"name":"a"}</tool_call>'),
      start(3, 'native_1', 'search'),
      args(3, '{"q":1}'),
      flush(3),
      msg(2, '}</tool_call>!'),
      flush(2),
      flush(1),
      { type: 'part', index: 4, part: { type: 'structured', json: '{"s":"<tool_call>"}' }, metadata: { m: 1 } },
      STOP,
    ];
    const extractor = new TaggedToolCallExtractor();
    const out: StreamEvent[] = [];
    for (const event of input) extractor.push(event, out);
    extractor.end(out);
    expect(out).toEqual([
      input[0],
      flush(0),
      msg(1, 'one '),
      // Slot 2's open tag and name come first: it is call_0.
      msg(2, 'two '),
      start(-1, 'call_0', 'b'),
      start(-2, 'call_1', 'a'),
      flush(-2),
      start(3, 'native_1', 'search'),
      args(3, '{"q":1}'),
      flush(3),
      flush(-1),
      msg(2, '!'),
      flush(2),
      flush(1),
      input[11],
      STOP,
    ]);
  });

  it('TaggedToolCallStream keeps the metadata of message parts', () => {
    const extractor = new TaggedToolCallExtractor();
    expect(extractor.push({ type: 'part', index: 0, part: { type: 'message', text: 'a<tool_call>{"name":"x"}</tool_call>b' }, metadata: { id: 'm1' } })).toEqual([
      { type: 'part', index: 0, part: { type: 'message', text: 'a' }, metadata: { id: 'm1' } },
      start(-1, 'call_0', 'x'),
      flush(-1),
      { type: 'part', index: 0, part: { type: 'message', text: 'b' }, metadata: { id: 'm1' } },
    ]);
  });

  it('TaggedToolCallStream refuses invalid options with a message that says how to fix them', () => {
    expect(() => new TaggedToolCallStream({ openTag: '' })).toThrow(/openTag must be a non-empty string/);
    expect(() => new TaggedToolCallStream({ closeTag: ' </x>' })).toThrow(/closeTag must not begin with whitespace/);
    expect(() => new TaggedToolCallStream({ maxBufferedLength: -1 })).toThrow(/maxBufferedLength/);
    expect(() => new TaggedToolCallStream({ maxDepth: 0 })).toThrow(/maxDepth/);
  });

  it('TaggedToolCallStream passes cancellation to its source', async () => {
    let reason: unknown;
    const source = new ReadableStream<StreamEvent>({
      pull: (controller) => controller.enqueue(msg(0, 'x')),
      cancel: (r) => {
        reason = r;
      },
    });
    const reader = source.pipeThrough(new TaggedToolCallStream()).getReader();
    await reader.read();
    await reader.cancel('stop');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(reason).toBe('stop');
  });

  // Arbitrary text outside the tags (full of look-alikes) and arbitrary calls, under arbitrary cuttings.
  const outsideText = fc
    .array(fc.oneof(fc.constantFrom('<', '<tool', '_call', '>', '<tool_call', '</tool_call>', '<tool_c', 'a', ' ', '\n', 'é', '😀', '{"name":"x"}'), fc.string({ maxLength: 4 })), { maxLength: 5 })
    .map((pieces) => pieces.join(''))
    .filter((text) => !text.includes('<tool_call>'));
  const ws = fc.array(fc.constantFrom(' ', '\n', '\t', '\r'), { maxLength: 2 }).map((a) => a.join(''));
  const call = fc.record({ name: fc.string({ minLength: 1, maxLength: 6 }), argumentsText: jsonText, nameFirst: fc.boolean(), ws1: ws, ws2: ws });
  const turn = fc.tuple(outsideText, fc.array(fc.tuple(call, outsideText), { maxLength: 3 })).chain(([first, rest]) => {
    let message = first;
    for (const [c, after] of rest) {
      const name = JSON.stringify(c.name);
      const body = c.nameFirst
        ? `${c.ws1}{"name":${c.ws2}${name},${c.ws1}"arguments":${c.argumentsText}}${c.ws2}`
        : `{${c.ws2}"arguments"${c.ws1}:${c.argumentsText},"name":${name}${c.ws1}}`;
      message += `<tool_call>${body}</tool_call>${after}`;
    }
    return fc.tuple(fc.constant({ first, rest, message }), cutsFor(message.length));
  });

  it('TaggedToolCallStream (property): message text is the text outside the tags, argument chunks are exactly the arguments text, collectTurn gives the calls', async () => {
    await fc.assert(
      fc.asyncProperty(turn, async ([{ first, rest, message }, cuts]) => {
        const chunks = cutAt(message, cuts);
        const output = await readAll(streamOf([...chunks.map((chunk) => msg(0, chunk)), flush(0), STOP]).pipeThrough(new TaggedToolCallStream()));
        const expected: StreamEvent[] = [];
        if (first !== '') expected.push(msg(0, first));
        rest.forEach(([c, after], n) => {
          const argumentsText = c.argumentsText.replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, '');
          expected.push(start(-(n + 1), `call_${n}`, c.name), args(-(n + 1), argumentsText), flush(-(n + 1)));
          if (after !== '') expected.push(msg(0, after));
        });
        expected.push(flush(0), STOP);
        expect(merged(output)).toEqual(expected);
        expect(merged(output).filter((e) => e.type === 'part' && e.part.type === 'message').map((e) => (e.type === 'part' && e.part.type === 'message' ? e.part.text : '')).join('')).toBe(
          first + rest.map(([, after]) => after).join(''),
        );
        const collected = await collectTurn(streamOf(output));
        expect(collected.text).toBe(first + rest.map(([, after]) => after).join(''));
        expect(collected.toolCalls.map((t) => ({ id: t.toolCallId, name: t.toolName, arguments: t.arguments }))).toEqual(
          rest.map(([c], n) => ({ id: `call_${n}`, name: c.name, arguments: JSON.parse(c.argumentsText) })),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('TaggedToolCallStream finishes what a slot that was never flushed holds before passing finished on', () => {
    const extractor = new TaggedToolCallExtractor();
    const out = [msg(0, 'a <tool'), msg(1, '<tool_call>{"name":"x"'), STOP].flatMap((event) => extractor.push(event));
    expect(shapes(out)).toEqual([msg(0, 'a '), start(-1, 'call_0', 'x'), msg(0, '<tool'), flush(-1), STOP]);
    expect(callError(out, -1).code).toBe('unterminated');
  });

  it('TaggedToolCallStream passes events it does not own through unchanged and in order (events of other stages, other parts)', async () => {
    const foreign = [
      { type: 'tool-call-progress', index: 3, toolCallId: 'c', toolName: 'f', fragment: { type: 'start', kind: 'object' } },
      { type: 'field-start', index: 3, toolCallId: 'c', toolName: 'f', key: 'a' },
      { type: 'tool-call', index: 3, toolCallId: 'c', toolName: 'f', arguments: {} },
    ] as PipelineEvent[];
    const extractor = new TaggedToolCallExtractor();
    expect(foreign.flatMap((event) => extractor.push(event))).toEqual(foreign);
    const input = [msg(0, 'a '), foreign[0] as PipelineEvent, start(3, 'c', 'f'), args(3, '{}'), msg(0, 'b'), foreign[2] as PipelineEvent, flush(0), STOP];
    expect(merged(await readAll(streamOf(input).pipeThrough(new TaggedToolCallStream())))).toEqual([
      msg(0, 'a '),
      foreign[0],
      start(3, 'c', 'f'),
      args(3, '{}'),
      msg(0, 'b'),
      foreign[2],
      flush(0),
      STOP,
    ]);
  });

  it('TaggedToolCallStream after ProviderEventStream: a model writing tags in an Ollama stream gives ordinary tool calls', async () => {
    const contents = ['I will look.', '\n<tool', '_call>\n{"name": "read_file", "arguments": {"pa', 'th": "src/a.ts"}}\n</tool_call>'];
    const line = (content: string, done: boolean) =>
      JSON.stringify({ model: 'qwen3', created_at: '2025-01-01T00:00:00Z', message: { role: 'assistant', content }, ...(done ? { done_reason: 'stop' } : {}), done }) + '\n';
    const ndjson = contents.map((content) => line(content, false)).join('') + line('', true);
    const turn = await collectTurn(streamOf([ndjson]).pipeThrough(new ProviderEventStream({ provider: 'ollama' })).pipeThrough(new TaggedToolCallStream()));
    expect(turn.text).toBe('I will look.\n');
    expect(turn.toolCalls.map(({ toolCallId: id, toolName: name, arguments: a }) => ({ id, name, a }))).toEqual([{ id: 'call_0', name: 'read_file', a: { path: 'src/a.ts' } }]);
    expect(turn.finishReason).toBe('stop');
  });

  // No recording holds a tagged call: the stage must leave every one of them exactly as it was.
  const recordings = readManifest().filter((r) => r.dir in PROVIDER_OF_DIR);
  it('TaggedToolCallStream leaves every provider recording without tags unchanged', async () => {
    expect(recordings.length).toBeGreaterThan(20);
    let total = 0;
    for (const recording of recordings) {
      const provider = PROVIDER_OF_DIR[recording.dir]!;
      const bytes = readFixture(`providers/${recording.file}`);
      const plain = await settle(streamOf([bytes]).pipeThrough(new ProviderEventStream({ provider })));
      const tagged = await settle(streamOf([bytes]).pipeThrough(new ProviderEventStream({ provider })).pipeThrough(new TaggedToolCallStream()));
      expect(tagged, recording.file).toEqual(plain);
      total += plain.values.length;
    }
    expect(total).toBeGreaterThan(500);
  });
});

describe('TaggedToolCallStream when the stage before it fails', () => {
  it('TaggedToolCallStream gives a slow reader the upstream error itself, after a prefix of its events (its queue dropped, as the standard says)', async () => {
    // One message part gives text, a call (start, arguments, flush) and more text at once.
    const input = [msg(0, 'Let me look. <tool_call>{"name":"get","arguments":{"q":"x"}}</tool_call> Done.')];
    const { expected, values, error, upstream } = await afterUpstreamError(input, () => new TaggedToolCallStream());
    expect(values).toEqual(expected.slice(0, values.length));
    expect(expected.length).toBeGreaterThan(3);
    expect(error).toBe(upstream);
  });
});
