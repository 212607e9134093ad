/**
 * `ConversationEventStream` after `ProviderEventStream` on streams that go wrong: cut inside an
 * event, garbage lines, an HTML page where SSE was expected, a stream that just stops inside a
 * tool call. The stream errors with a typed error, and the reader — even a slow one — gets every
 * conversation event completed before it.
 */
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/errors.ts';
import { ProviderEventDecoder } from '../../src/providers/provider-event-decoder.ts';
import { TurnBuilder } from '../../src/turn/ai-sdk-parts.ts';
import { collectTurn } from '../../src/sinks/collect-turn.ts';
import { ConversationEventStream } from '../../src/transforms/conversation-event-stream.ts';
import { ProviderEventStream, type ProviderEventStreamInput } from '../../src/transforms/provider-event-stream.ts';
import type { ProviderName } from '../../src/errors.ts';
import type { PipelineEvent, StreamEvent } from '../../src/types.ts';
import { args, finished, flush, readAll, readFixture, start, streamOf, text } from '../helpers.ts';
import { type ManifestRecording, readManifest } from '../manifest.ts';
import { cutInsideLastLine, PROVIDER_OF_DIR, sdkObjectsOf, textOf } from '../providers/event-stream-helpers.ts';

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Read {
  readonly events: Array<{ type: string } & Record<string, unknown>>;
  readonly error?: unknown;
}

/** Read a stream to its end or its error, pausing after each chunk like a reader that renders. */
async function readSlowly<T>(stream: ReadableStream<T>, ms = 2): Promise<{ values: T[]; error?: unknown }> {
  const values: T[] = [];
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { values };
      values.push(value);
      await pause(ms);
    }
  } catch (error) {
    return { values, error };
  }
}

/** Input through `ProviderEventStream` then `ConversationEventStream`, read slowly. */
async function conversation(provider: ProviderName, chunks: readonly ProviderEventStreamInput[]): Promise<Read> {
  const { values, error } = await readSlowly(
    streamOf(chunks).pipeThrough(new ProviderEventStream({ provider })).pipeThrough(new ConversationEventStream()),
  );
  return { events: values as unknown as Read['events'], ...(error === undefined ? {} : { error }) };
}

/** The SSE text up to and including the first event whose text contains `marker` (cut at an event boundary). */
function sseThrough(text: string, marker: string): string {
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`marker not found: ${marker}`);
  const end = /\r?\n\r?\n/g;
  end.lastIndex = at;
  const boundary = end.exec(text);
  if (boundary === null) throw new Error('no event boundary after the marker');
  return text.slice(0, boundary.index + boundary[0].length);
}

// Text recordings, cut inside their last line: not Bedrock's binary frames, nor LangChain's objects
// (cut between objects in test/relay/truncation.test.ts).
const RECORDINGS = readManifest().filter((r) => r.dir in PROVIDER_OF_DIR && r.dir !== 'bedrock' && r.dir !== 'langchain');

describe('ConversationEventStream on recordings cut inside their last event', () => {
  for (const recording of RECORDINGS) {
    it(`ConversationEventStream delivers the complete events before the cut of ${recording.file}, then a typed error`, async () => {
      const provider = PROVIDER_OF_DIR[recording.dir] as ProviderName;
      const whole = await collectTurn(streamOf(sdkObjectsOf(recording.file)).pipeThrough(new ProviderEventStream({ provider }))).catch(() => undefined);
      const { events, error } = await conversation(provider, [cutInsideLastLine(readFixture(`providers/${recording.file}`))]);
      expect(error).toBeInstanceOf(ProviderError);
      if (recording.errors === undefined) expect(error).toMatchObject({ provider, type: 'invalid-stream', code: 'truncated' });
      expect(events.some((e) => e.type === 'finished')).toBe(false);
      // What came is the start of the complete turn: nothing reordered, nothing made up.
      if (whole !== undefined) expect(events).toEqual(whole.events.slice(0, events.length));
      // Calls that came are complete and are the manifest's first ones.
      const calls = events.flatMap((e) => (e.type === 'tool-call' ? [e] : []));
      expect(calls.map((c) => c['toolName'])).toEqual(recording.toolCalls.slice(0, calls.length).map((c) => c.name));
    });
  }

  it('ConversationEventStream delivers the text and the tool call of text-then-tool-use when message_stop is cut', async () => {
    const { events, error } = await conversation('anthropic', [cutInsideLastLine(readFixture('providers/anthropic/text-then-tool-use.sse'))]);
    expect(events).toEqual([
      { type: 'message', index: 0, text: "I'll check the current weather in Paris for you." },
      { type: 'tool-call', index: 1, toolCallId: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', toolName: 'get_weather', arguments: { location: 'Paris' } },
    ]);
    expect(error).toMatchObject({ provider: 'anthropic', type: 'invalid-stream', code: 'truncated' });
  });
});

describe('ConversationEventStream on malformed input', () => {
  it('ConversationEventStream delivers what was complete before a garbage line, then errors with not-sse', async () => {
    const text = sseThrough(textOf('anthropic/text-then-tool-use.sse'), '"content_block_stop"');
    const { events, error } = await conversation('anthropic', [`${text}<<< garbage >>>\n\n`, textOf('anthropic/text-then-tool-use.sse').slice(text.length)]);
    expect(events).toEqual([{ type: 'message', index: 0, text: "I'll check the current weather in Paris for you." }]);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ type: 'invalid-stream', code: 'not-sse' });
  });

  it('ConversationEventStream errors with not-json for a data line that is not JSON, after what came before', async () => {
    const text = sseThrough(textOf('openai-chat/parallel-2-tool-calls.sse'), '"finish_reason":"tool_calls"');
    const { events, error } = await conversation('openai-chat', [`${text}data: {"choices": [oops\n\n`]);
    expect(events.map((e) => [e.type, e['toolName']])).toEqual([
      ['tool-call', 'GetWeatherArgs'],
      ['tool-call', 'get_stock_price'],
    ]);
    expect(error).toMatchObject({ provider: 'openai-chat', type: 'invalid-stream', code: 'not-json' });
  });

  const html = '<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n<body><h1>502 Bad Gateway</h1></body></html>\n';
  for (const provider of ['anthropic', 'openai-chat', 'openai-responses', 'gemini'] as const) {
    it(`ConversationEventStream errors with not-sse for an HTML page where ${provider} SSE was expected`, async () => {
      for (const chunks of [[html], [new TextEncoder().encode(html)], [...html]]) {
        const { events, error } = await conversation(provider, chunks);
        expect(events).toEqual([]);
        expect(error).toBeInstanceOf(ProviderError);
        expect(error).toMatchObject({ provider, type: 'invalid-stream', code: 'not-sse' });
        expect((error as Error).message).toContain('<!DOCTYPE html>');
      }
    });
  }

  it('ConversationEventStream errors with not-json for an HTML page where Ollama NDJSON was expected', async () => {
    const { events, error } = await conversation('ollama', [html]);
    expect(events).toEqual([]);
    expect(error).toMatchObject({ provider: 'ollama', type: 'invalid-stream', code: 'not-json' });
  });
});

describe('ConversationEventStream on streams that just stop inside a tool call', () => {
  const cases: Array<{ file: string; marker: string; path: string; partial: unknown; before?: unknown[] }> = [
    {
      file: 'anthropic/text-then-tool-use.sse',
      marker: 'on\\": \\"P',
      path: '/location',
      partial: { location: 'P' },
      before: [{ type: 'message', index: 0, text: "I'll check the current weather in Paris for you." }],
    },
    { file: 'openai-chat/single-tool-call.sse', marker: '"arguments":"Ed"', path: '/city', partial: { city: 'Ed' } },
    { file: 'openai-responses/function-call.sse', marker: '"delta":"France"', path: '/country', partial: { country: 'France' } },
    { file: 'gemini/vertex-partial-args-two-calls.sse', marker: '"stringValue":"Boston"', path: '/location', partial: { location: 'Boston' } },
  ];
  for (const { file, marker, path, partial, before = [] } of cases) {
    it(`ConversationEventStream never reports the call of ${file} cut at an event boundary as complete: the stream errors with truncated`, async () => {
      const recording = readManifest().find((r) => r.file === file) as ManifestRecording;
      const provider = PROVIDER_OF_DIR[recording.dir] as ProviderName;
      const expected = recording.toolCalls[0];
      // Cut before the provider's terminal event: the decoder errors with truncated after what
      // arrived (the call is still open: it is never a tool-call).
      const { events, error } = await conversation(provider, [sseThrough(textOf(file), marker)]);
      expect(error).toMatchObject({ provider, type: 'invalid-stream', code: 'truncated' });
      expect(events).toEqual(before);
      const turn = collectTurn(streamOf([sseThrough(textOf(file), marker)]).pipeThrough(new ProviderEventStream({ provider })));
      await expect(turn).rejects.toMatchObject({ provider, type: 'invalid-stream', code: 'truncated' });
      // The same cut call with the stream's end said (the decoder's own cut is not in question
      // here): incomplete, with where it stopped.
      const builder = new TurnBuilder();
      const out: PipelineEvent[] = [];
      const decoder = new ProviderEventDecoder({ provider });
      for (const event of decoder.push(sseThrough(textOf(file), marker))) builder.push(event, out);
      try {
        for (const event of decoder.end()) builder.push(event, out);
      } catch {
        // truncated, as above; what it flushed first is in `out`
      }
      builder.end(out);
      expect(out.filter((e) => e.type === 'tool-call-incomplete' || e.type === 'tool-call')).toEqual([
        expect.objectContaining({
          type: 'tool-call-incomplete',
          ...(expected?.id === '' ? {} : { toolCallId: expected?.id }),
          toolName: expected?.name,
          partialArguments: partial,
          path,
          stopReason: undefined,
        }),
      ]);
    });
  }
});

describe('ConversationEventStream keeps what it produced when the stream before it errors', () => {
  const events: StreamEvent[] = [
    { type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: 'call_1', toolName: 'write_file' } },
    { type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: '{"path":"a.txt","content":"hel' } },
    { type: 'flush', index: 0 },
    { type: 'finished', reason: 'length', rawReason: 'max_tokens' },
  ];
  /** A source that gives `events` and then fails on the next read (like a body whose connection drops). */
  const failingSource = () => {
    let next = 0;
    return new ReadableStream<StreamEvent>({
      pull(controller) {
        if (next < events.length) controller.enqueue(events[next++] as StreamEvent);
        else controller.error(new Error('connection reset'));
      },
    });
  };

  it('ConversationEventStream gives a slow reader the upstream error itself, after a prefix of what it produced (its queue dropped, as the standard says)', async () => {
    const { values, error } = await readSlowly(failingSource().pipeThrough(new ConversationEventStream()), 5);
    expect(['tool-call-incomplete', 'finished'].slice(0, values.length)).toEqual(values.map((e) => e.type));
    expect(error).toEqual(new Error('connection reset'));
  });

  it('ConversationEventStream with passthrough releases the incomplete call with its stop reason, then finished, before an upstream error', async () => {
    const core = new TurnBuilder({ passthrough: true, messages: true });
    const values = [...events.flatMap((event) => core.push(event)), ...core.end()];
    // The incomplete call waits for the stop reason; finished comes after the call it released.
    expect(values.map((e) => e.type)).toEqual(['part', 'part', 'flush', 'tool-call-incomplete', 'finished']);
    expect(values[3]).toMatchObject({ type: 'tool-call-incomplete', toolCallId: 'call_1', stopReason: 'max_tokens' });
    const { values: read, error } = await readSlowly(failingSource().pipeThrough(new ConversationEventStream({ passthrough: true })), 5);
    expect(values.slice(0, read.length)).toEqual(read);
    expect(error).toEqual(new Error('connection reset'));
  });

  it('ProviderEventStream: an error of the body reaches the reader itself, after a prefix of the events (as any TransformStream, a pipe abort drops what was not read)', async () => {
    const body = textOf('anthropic/text-then-tool-use.sse');
    let sent = false;
    const source = new ReadableStream<string>({
      pull(controller) {
        if (!sent) controller.enqueue(body);
        else controller.error(new Error('connection reset'));
        sent = true;
      },
    });
    const { values, error } = await readSlowly(source.pipeThrough(new ProviderEventStream({ provider: 'anthropic' })), 0);
    const all = new ProviderEventDecoder({ provider: 'anthropic' }).push(body);
    expect(all.filter((e) => e.type === 'finished')).toHaveLength(1);
    expect(all.slice(0, values.length)).toEqual(values);
    expect(error).toEqual(new Error('connection reset'));
  });

  it('ConversationEventStream still ends at once when its reader cancels', async () => {
    const stream = streamOf(events).pipeThrough(new ConversationEventStream());
    const reader = stream.getReader();
    await reader.cancel('done');
    await expect(reader.closed).resolves.toBeUndefined();
  });
});

describe('ConversationEventStream in a pipeline of stages', () => {
  it('ConversationEventStream with passthrough emits a slot\'s conversation event before its flush, and finished after the incomplete calls it releases', async () => {
    const input = [text(0, 'hi'), flush(0), start(1, 'c', 'f'), args(1, '{"x":1}'), flush(1), start(2, 'd', 'g'), args(2, '{"y":'), flush(2), finished('length', 'max_tokens')];
    const out = await readAll(streamOf(input).pipeThrough(new ConversationEventStream({ passthrough: true })));
    expect(out).toEqual([
      text(0, 'hi'),
      { type: 'message', index: 0, text: 'hi' },
      flush(0),
      start(1, 'c', 'f'),
      args(1, '{"x":1}'),
      { type: 'tool-call', index: 1, toolCallId: 'c', toolName: 'f', arguments: { x: 1 } },
      flush(1),
      start(2, 'd', 'g'),
      args(2, '{"y":'),
      flush(2),
      { type: 'tool-call-incomplete', index: 2, toolCallId: 'd', toolName: 'g', partialArguments: {}, path: '/y', stopReason: 'max_tokens' },
      finished('length', 'max_tokens'),
    ]);
  });

  it('ConversationEventStream passes the events of other stages through and does not report a slot a stage before reported', async () => {
    const before = { type: 'tool-call', index: 0, toolCallId: 'c', toolName: 'f', arguments: { x: 1 } } as const;
    const foreign = { type: 'field-start', index: 0, toolCallId: 'c', toolName: 'f', key: 'x' } as const;
    const input = [start(0, 'c', 'f'), foreign, before, flush(0), text(1, 'ok'), flush(1), finished('tool-calls', 'tool_use')];
    const out = await readAll(streamOf(input).pipeThrough(new ConversationEventStream()));
    expect(out).toEqual([foreign, before, { type: 'message', index: 1, text: 'ok' }, finished('tool-calls', 'tool_use')]);
  });
});
