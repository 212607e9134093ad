import { describe, expect, it } from 'vitest';
import {
  collectTurn,
  ConversationEventStream,
  FieldEventStream,
  FragmentAggregator,
  PathUpdateStream,
  ProviderEventStream,
  ToolCallDeltaStream,
  ToolCallArgumentsError,
  ToolCallProgressStream,
  type StreamEvent,
  type ToolCallArgumentProgress,
} from '../../src/index.ts';
import { args, finished, flush, readAll, start, streamOf, text } from '../helpers.ts';


describe('collectTurn', () => {
  it('collectTurn assembles text, reasoning with its signature, and tool calls with parsed arguments', async () => {
    const turn = await collectTurn(
      streamOf<StreamEvent>([
        { type: 'part', index: 0, part: { type: 'reasoning', text: 'Let me ' } },
        { type: 'part', index: 0, part: { type: 'reasoning', text: 'think.' } },
        flush(0, { signature: 'sig-123' }),
        text(1, 'Writing '),
        text(1, 'the file.'),
        flush(1),
        start(2, 'call_1', 'write_file'),
        args(2, '{"path":"src/ma'),
        args(2, 'in.rs","content":"fn main() {}\\n"}'),
        flush(2),
        start(3, 'call_2', 'list'),
        flush(3),
        { type: 'finished', reason: 'tool-calls', rawReason: 'tool_use', usage: { inputTokens: 3, outputTokens: 9 } },
      ]),
    );
    expect(turn.text).toBe('Writing the file.');
    expect(turn.reasoning).toBe('Let me think.');
    expect(turn.events[0]).toMatchObject({ type: 'reasoning', text: 'Let me think.', signature: 'sig-123' });
    expect(turn.toolCalls.map(({ toolCallId: id, toolName: name, arguments: a }) => ({ id, name, a }))).toEqual([
      { id: 'call_1', name: 'write_file', a: { path: 'src/main.rs', content: 'fn main() {}\n' } },
      { id: 'call_2', name: 'list', a: {} },
    ]);
    expect([turn.finishReason, turn.rawFinishReason, turn.usage]).toEqual(['tool-calls', 'tool_use', { inputTokens: 3, outputTokens: 9 }]);
  });

  it('collectTurn merges split identities: the first non-empty id and name win, "" never overwrites', async () => {
    const turn = await collectTurn(streamOf([start(0, '', 'get'), start(0, 'call_9', ''), start(0, 'other', 'x'), args(0, '{}'), flush(0)]));
    expect(turn.toolCalls[0]).toMatchObject({ toolCallId: 'call_9', toolName: 'get', arguments: {} });
  });

  it('collectTurn never reports a truncated call as complete: it is incomplete, with path and stop reason', async () => {
    const turn = await collectTurn(streamOf([start(0, 'c', 'write_file'), args(0, '{"path":"a.txt","content":"hel'), flush(0), finished('length', 'max_tokens')]));
    expect(turn.toolCalls).toEqual([]);
    expect(turn.incompleteToolCalls).toEqual([
      { type: 'tool-call-incomplete', index: 0, toolCallId: 'c', toolName: 'write_file', partialArguments: { path: 'a.txt', content: 'hel' }, path: '/content', stopReason: 'max_tokens' },
    ]);
    expect(turn.finishReason).toBe('length');
  });

  it('collectTurn reports a call cut by a stream that just stops as incomplete, with no finish reason', async () => {
    const turn = await collectTurn(streamOf([start(0, 'c', 'f'), args(0, '{"a":[1,2')]));
    // A number is complete at the end of input; the array and the object are not.
    expect(turn.incompleteToolCalls[0]).toMatchObject({ toolCallId: 'c', path: '/a', stopReason: undefined, partialArguments: { a: [1, 2] } });
    expect(turn.finishReason).toBeUndefined();
  });

  it('collectTurn with repair closes a truncated call and marks it truncated', async () => {
    const turn = await collectTurn(streamOf([start(0, 'c', 'f'), args(0, '{"a":[1,2'), flush(0), finished('length', 'length')]), { repair: true });
    expect(turn.toolCalls).toEqual([{ type: 'tool-call', index: 0, toolCallId: 'c', toolName: 'f', arguments: { a: [1, 2] }, truncated: true }]);
    expect(turn.incompleteToolCalls).toEqual([]);
  });

  it('collectTurn rejects with a ToolCallArgumentsError naming the call and the offset', async () => {
    const error = await collectTurn(streamOf([start(0, 'call_x', 'f'), args(0, '{"a":'), args(0, ' tru}'), flush(0)])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolCallArgumentsError);
    expect(error).toMatchObject({ toolCallId: 'call_x', toolName: 'f', index: 0, offset: 9, code: 'invalid-json' });
    expect((error as Error).message).toContain('call_x');
  });

  it('collectTurn with isolateErrors reports just the broken call as failed and keeps the rest of the turn', async () => {
    const turn = await collectTurn(
      streamOf([start(0, 'bad', 'f'), start(1, 'good', 'g'), args(0, '{"a":"x"y'), args(1, '{"b":1}'), args(0, '}'), flush(0), flush(1), text(2, 'done'), flush(2), finished('tool-calls', 'tool_calls')]),
      { isolateErrors: true },
    );
    expect(turn.failedToolCalls.map((c) => [c.toolCallId, (c.error as ToolCallArgumentsError).offset])).toEqual([['bad', 8]]);
    expect(turn.toolCalls.map((c) => [c.toolCallId, c.arguments])).toEqual([['good', { b: 1 }]]);
    expect(turn.text).toBe('done');
  });

  it('collectTurn parses structured output into structured {data}', async () => {
    const turn = await collectTurn(streamOf<StreamEvent>([{ type: 'part', index: 0, part: { type: 'structured', json: '{"ok":' } }, { type: 'part', index: 0, part: { type: 'structured', json: 'true}' } }, flush(0)]));
    expect(turn.events).toEqual([{ type: 'structured', index: 0, data: { ok: true } }]);
  });
});

describe('ToolCallProgressStream', () => {
  it('ToolCallProgressStream replaces argument parts with per-call fragments that aggregate to the arguments, and each flush with its tool-call event', async () => {
    const input = [start(1, 'a', 'write'), start(2, 'b', 'read'), args(1, '{"path":"x.rs",'), args(2, '{"path":'), args(1, '"content":"lo'), args(2, '"y.rs"}'), args(1, 'ng"}'), flush(1), flush(2), finished('tool-calls', 'tool_calls')];
    const out = await readAll(streamOf(input).pipeThrough(new ToolCallProgressStream()));
    // No raw argument part and no flush of a call is left: tool-call-start and finished pass through.
    expect(out.filter((e) => e.type !== 'tool-call-progress')).toEqual([
      start(1, 'a', 'write'),
      start(2, 'b', 'read'),
      { type: 'tool-call', index: 1, toolCallId: 'a', toolName: 'write', arguments: { path: 'x.rs', content: 'long' } },
      { type: 'tool-call', index: 2, toolCallId: 'b', toolName: 'read', arguments: { path: 'y.rs' } },
      finished('tool-calls', 'tool_calls'),
    ]);
    const progress = out.filter((e): e is ToolCallArgumentProgress => e.type === 'tool-call-progress');
    const values = new Map<string, unknown>();
    for (const id of ['a', 'b']) {
      const aggregator = new FragmentAggregator();
      for (const p of progress.filter((e) => e.toolCallId === id)) {
        const value = aggregator.push(p.fragment);
        if (value !== undefined) values.set(id, value);
      }
    }
    expect(Object.fromEntries(values)).toEqual({ a: { path: 'x.rs', content: 'long' }, b: { path: 'y.rs' } });
    expect(progress.every((p) => p.toolName === (p.toolCallId === 'a' ? 'write' : 'read'))).toBe(true);
    // Each call's fragments all come before its tool-call event.
    const lastProgressOfA = out.map((e) => e.type === 'tool-call-progress' && e.index === 1).lastIndexOf(true);
    expect(lastProgressOfA).toBeLessThan(out.findIndex((e) => e.type === 'tool-call' && e.index === 1));
  });

  it('ToolCallProgressStream lets a renderer see a short argument complete before a long one ends', async () => {
    const chunks = ['{"path":"src/', 'main.rs","content":"', ...Array.from({ length: 50 }, () => 'x'.repeat(20)), '"}'];
    const out = await readAll(streamOf([start(0, 'c', 'write_file'), ...chunks.map((c) => args(0, c)), flush(0)]).pipeThrough(new ToolCallProgressStream()));
    const order = out.map((e, i) => ({ e, i })).filter(({ e }) => e.type === 'tool-call-progress') as Array<{ e: ToolCallArgumentProgress; i: number }>;
    const pathDone = order.find(({ e }) => e.fragment.type === 'entry' && e.fragment.key === 'path' && e.fragment.value.type === 'done')!;
    const contentPieces = order.filter(({ e }) => e.fragment.type === 'entry' && e.fragment.key === 'content' && e.fragment.value.type === 'string');
    expect(out.some((e) => e.type === 'part' && e.part.type === 'tool-call-arguments')).toBe(false);
    expect(pathDone.i).toBeLessThan(contentPieces[0]!.i);
    // Right after the path's last piece, which the chunk that closed it made.
    expect(out[pathDone.i - 1]).toEqual({ type: 'tool-call-progress', index: 0, toolCallId: 'c', toolName: 'write_file', fragment: { type: 'entry', key: 'path', value: { type: 'string', text: 'main.rs' } } });
    expect(contentPieces.length).toBe(50); // the content streams: one piece per chunk, no buffering
    expect(out.at(-1)).toEqual({ type: 'tool-call', index: 0, toolCallId: 'c', toolName: 'write_file', arguments: { path: 'src/main.rs', content: 'x'.repeat(1000) } });
  });

  it('ToolCallProgressStream errors the stream with a ToolCallArgumentsError for invalid arguments', async () => {
    const reader = streamOf([start(0, 'c', 'f'), args(0, '[1,,')]).pipeThrough(new ToolCallProgressStream()).getReader();
    const seen: string[] = [];
    const error = await (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return undefined;
        seen.push(value.type);
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolCallArgumentsError);
    // The tool-call-start part, then the fragments made before the error (the argument part is replaced).
    expect(seen).toEqual(['part', 'tool-call-progress', 'tool-call-progress', 'tool-call-progress']);
  });
});

describe('ConversationEventStream', () => {
  it('ConversationEventStream emits one conversation event per flushed slot and the finished event', async () => {
    const out = await readAll(streamOf([text(0, 'hi'), flush(0), start(1, 'c', 'f'), args(1, '{"x":1}'), flush(1), finished('tool-calls', 'tool_calls')]).pipeThrough(new ConversationEventStream()));
    expect(out).toEqual([
      { type: 'message', index: 0, text: 'hi' },
      { type: 'tool-call', index: 1, toolCallId: 'c', toolName: 'f', arguments: { x: 1 } },
      { type: 'finished', reason: 'tool-calls', rawReason: 'tool_calls' },
    ]);
  });

  it('ConversationEventStream can add progress from the same parse', async () => {
    const out = await readAll(streamOf([start(0, 'c', 'f'), args(0, '{"x":"y"}'), flush(0)]).pipeThrough(new ConversationEventStream({ progress: true })));
    expect(out.map((e) => e.type)).toEqual(['tool-call-progress', 'tool-call-progress', 'tool-call-progress', 'tool-call-progress', 'tool-call-progress', 'tool-call']);
  });
});

describe('collectTurn edge values', () => {
  it('collectTurn keeps a null or scalar argument document as it is (only no arguments at all mean {})', async () => {
    const turn = await collectTurn(streamOf([start(0, 'a', 'f'), args(0, 'null'), flush(0), start(1, 'b', 'g'), args(1, ' 42 '), flush(1), start(2, 'c', 'h'), args(2, '  '), flush(2)]));
    expect(turn.toolCalls.map((c) => c.arguments)).toEqual([null, 42, {}]);
  });
});

describe('collectTurn and the end of input', () => {
  it('collectTurn reports a call cut before its first argument byte as incomplete, not as {}', async () => {
    const cut = await collectTurn(streamOf([start(0, 'c', 'write_file'), { type: 'flush', index: 0, metadata: { endOfInput: true } }]));
    expect(cut.toolCalls).toEqual([]);
    expect(cut.incompleteToolCalls).toMatchObject([{ toolCallId: 'c', toolName: 'write_file', partialArguments: undefined, path: '' }]);
    // Closed by the provider, the same call has no arguments: {}.
    const closed = await collectTurn(streamOf([start(0, 'c', 'list'), flush(0)]));
    expect(closed.toolCalls.map((c) => c.arguments)).toEqual([{}]);
  });
});

describe('ConversationEventStream when finished comes before a flush', () => {
  it('ConversationEventStream reports a call cut off at its flush when finished already came, not only at the end of input', async () => {
    const events = [start(0, 'c', 'write_file'), args(0, '{"path":"a.txt","content":"hel'), finished('length', 'max_tokens'), flush(0)];
    let next = 0;
    // The source stays open after the events: what the stage emits must not wait for its end.
    const source = new ReadableStream<(typeof events)[number]>({
      pull(controller) {
        if (next < events.length) controller.enqueue(events[next++] as (typeof events)[number]);
      },
    });
    const reader = source.pipeThrough(new ConversationEventStream()).getReader();
    expect((await reader.read()).value).toMatchObject({ type: 'finished', rawReason: 'max_tokens' });
    const incomplete = await Promise.race([reader.read(), new Promise((resolve) => setTimeout(() => resolve('nothing yet'), 50))]);
    expect(incomplete).toEqual({
      done: false,
      value: { type: 'tool-call-incomplete', index: 0, toolCallId: 'c', toolName: 'write_file', partialArguments: { path: 'a.txt', content: 'hel' }, path: '/content', stopReason: 'max_tokens' },
    });
    await reader.cancel();
  });
});

describe('collectTurn and slots never flushed', () => {
  it('collectTurn reports a call never flushed and without arguments as incomplete when the input ends, not as {}', async () => {
    const turn = await collectTurn(streamOf([start(0, 'c', 'write_file')]));
    expect(turn.toolCalls).toEqual([]);
    expect(turn.incompleteToolCalls).toMatchObject([{ toolCallId: 'c', toolName: 'write_file', partialArguments: undefined, path: '' }]);
    // A complete document is still a call, flushed or not.
    const complete = await collectTurn(streamOf([start(0, 'c', 'list'), args(0, '{}')]));
    expect(complete.toolCalls.map((c) => c.arguments)).toEqual([{}]);
  });
});

describe('collectTurn after any stage', () => {
  it('collectTurn gives the same turn from the output of any stage as from the provider events', async () => {
    const input: StreamEvent[] = [
      text(0, 'Writing.'),
      flush(0),
      start(1, 'a', 'write_file'),
      start(2, 'b', 'list'),
      args(1, '{"path":"x.rs",'),
      args(1, '"content":"fn"}'),
      flush(1),
      flush(2),
      start(3, 'c', 'cut'),
      args(3, '{"n":[1'),
      flush(3),
      finished('length', 'max_tokens'),
    ];
    const plain = await collectTurn(streamOf(input));
    expect(plain.toolCalls.map((c) => [c.toolCallId, c.arguments])).toEqual([
      ['a', { path: 'x.rs', content: 'fn' }],
      ['b', {}],
    ]);
    expect(plain.incompleteToolCalls.map((c) => [c.toolCallId, c.partialArguments, c.stopReason])).toEqual([['c', { n: [1] }, 'max_tokens']]);
    for (const stage of [
      () => new ToolCallProgressStream(),
      () => new ConversationEventStream({ progress: true, passthrough: true }),
      () => new FieldEventStream(),
      () => new PathUpdateStream(),
      () => new ToolCallDeltaStream(),
    ]) {
      const turn = await collectTurn(streamOf(input).pipeThrough(stage() as TransformStream<StreamEvent, { readonly type: string }>));
      expect(turn, stage().constructor.name).toEqual(plain);
    }
  });
});

describe('collectTurn and arguments cut inside their first value', () => {
  it('collectTurn reports arguments cut inside a literal or number (t, tr, nul, fal, -) as incomplete, never as {}', async () => {
    for (const cut of ['t', 'tr', 'nul', 'fal', '-', ' tr']) {
      const turn = await collectTurn(streamOf([start(0, 'c', 'f'), args(0, cut), flush(0), finished('length', 'max_tokens')]));
      expect(turn.toolCalls, JSON.stringify(cut)).toEqual([]);
      expect(turn.incompleteToolCalls, JSON.stringify(cut)).toMatchObject([{ toolCallId: 'c', toolName: 'f', stopReason: 'max_tokens' }]);
    }
    // Text that is no JSON prefix fails; no text at all (or only whitespace) is still {}.
    const broken = await collectTurn(streamOf([start(0, 'c', 'f'), args(0, 'tx'), flush(0)]), { isolateErrors: true });
    expect(broken.toolCalls).toEqual([]);
    expect(broken.events.map((e) => e.type)).toContain('tool-call-failed');
    const none = await collectTurn(streamOf([start(0, 'a', 'f'), flush(0), start(1, 'b', 'g'), args(1, ' '), flush(1)]));
    expect(none.toolCalls.map((c) => c.arguments)).toEqual([{}, {}]);
    // With repair, a cut literal is still never a clean {}: it is marked truncated.
    const repaired = await collectTurn(streamOf([start(0, 'c', 'f'), args(0, 'tr'), flush(0)]), { repair: true });
    expect(repaired.toolCalls.every((c) => 'truncated' in c && c.truncated === true)).toBe(true);
  });

  it('collectTurn reports an Anthropic tool_use cut at partial_json "tr" by max_tokens as incomplete', async () => {
    const body = [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"x","stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}\n\n',
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}\n\n',
      `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: 'tr' } })}\n\n`,
      'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":5}}\n\n',
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    ].join('');
    const turn = await collectTurn(streamOf([body]).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })));
    expect(turn.toolCalls).toEqual([]);
    expect(turn.incompleteToolCalls).toMatchObject([{ toolCallId: 'toolu_1', toolName: 'f', stopReason: 'max_tokens' }]);
  });
});
