import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/errors.ts';
import { ProviderEventDecoder } from '../../src/providers/provider-event-decoder.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import type { StreamEvent } from '../../src/types.ts';
import { cuttings, oneByOne, readFixture, streamOf } from '../helpers.ts';
import { readManifest } from '../manifest.ts';
import { eventsOf, PROVIDER_OF_DIR, runStream, textOf } from './event-stream-helpers.ts';

const encode = (text: string): Uint8Array<ArrayBuffer> => new TextEncoder().encode(text);

const ANTHROPIC = 'anthropic/text-then-tool-use.sse';

/** Run the synchronous core over `chunks`: the events emitted and the error thrown, if any. */
function runCore(provider: 'anthropic' | 'ollama' | 'openai-chat', chunks: readonly (string | Uint8Array)[]) {
  const core = new ProviderEventDecoder({ provider });
  const events: StreamEvent[] = [];
  try {
    // Each call appends to `events`; when it throws, what it produced before the error is there.
    for (const chunk of chunks) core.push(chunk, events);
    core.end(events);
  } catch (error) {
    return { events, error };
  }
  return { events, error: undefined };
}

const parts = (events: readonly StreamEvent[]): StreamEvent[] => events.filter((e) => e.type === 'part');

describe('ProviderEventStream framing', () => {
  it('ProviderEventStream decodes UTF-8 split inside a character', async () => {
    // The stream ends with its terminal event: one cut before it is a truncation (truncation.test.ts).
    const text = 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"héllo 🦀 “x”"}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n';
    const bytes = encode(text);
    for (const [cutting, chunks] of cuttings(bytes)) {
      const events = await eventsOf('anthropic', chunks);
      expect(events[0], cutting).toEqual({ type: 'part', index: 0, part: { type: 'message', text: 'héllo 🦀 “x”' } });
    }
  });

  it('ProviderEventStream accepts text chunks (after a TextDecoderStream) and mixed text and bytes', async () => {
    const text = textOf(ANTHROPIC);
    const fromBytes = await eventsOf('anthropic', [encode(text)]);
    expect(await eventsOf('anthropic', oneByOne(text))).toEqual(fromBytes);
    const half = Math.floor(text.length / 2);
    expect(await eventsOf('anthropic', [encode(text.slice(0, half)), text.slice(half)])).toEqual(fromBytes);
    const piped = streamOf<BufferSource>([encode(text)]).pipeThrough(new TextDecoderStream()).pipeThrough(new ProviderEventStream({ provider: 'anthropic' }));
    const events: StreamEvent[] = [];
    for await (const event of piped) events.push(event);
    expect(events).toEqual(fromBytes);
  });

  it('ProviderEventStream skips comments and keep-alives and reads a last event without its blank line', async () => {
    // The last event, without its blank line, is the terminal one (the stream is complete).
    const text = ': OPENROUTER PROCESSING\n\n:\n\nevent: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}\n\n: ping\n\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"b"}}\n\ndata: {"type":"message_stop"}';
    for (const [cutting, chunks] of cuttings(text)) {
      expect(parts(await eventsOf('anthropic', chunks)), cutting).toEqual([
        { type: 'part', index: 0, part: { type: 'message', text: 'a' } },
        { type: 'part', index: 0, part: { type: 'message', text: 'b' } },
      ]);
    }
  });

  it('ProviderEventStream stops at data: [DONE] and ignores whatever follows', async () => {
    const text = 'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}\n\ndata: [DONE]\n\nthis is not SSE\ndata: {broken';
    for (const [cutting, chunks] of cuttings(text)) {
      const { events, error } = await runStream('anthropic', chunks);
      expect(error, cutting).toBeUndefined();
      expect(events, cutting).toEqual([
        { type: 'part', index: 0, part: { type: 'message', text: 'a' } },
        // The block was never stopped: its flush comes from the end of input, and says so.
        { type: 'flush', index: 0, metadata: { endOfInput: true } },
      ]);
    }
  });

  it('ProviderEventStream reads every recording the same whether cut or not (NDJSON for Ollama)', async () => {
    for (const file of ['ollama/real-chat-stream-text.ndjson', 'ollama/docs-chat-stream-tool-call.ndjson']) {
      const bytes = readFixture(`providers/${file}`);
      const whole = await eventsOf('ollama', [bytes]);
      expect(whole.length, file).toBeGreaterThan(0);
      for (const [cutting, chunks] of cuttings(bytes)) expect(await eventsOf('ollama', chunks), `${file} ${cutting}`).toEqual(whole);
      // A last line without its newline, and CRLF line endings, read the same.
      const text = textOf(file);
      expect(await eventsOf('ollama', [text.trimEnd()])).toEqual(whole);
      expect(await eventsOf('ollama', [text.replace(/\n/g, '\r\n')])).toEqual(whole);
    }
  });
});

describe('ProviderEventStream framing of every SSE and NDJSON recording', () => {
  for (const recording of readManifest()) {
    // SSE and NDJSON only: Bedrock's binary framing is tested in bedrock.test.ts; LangChain's
    // objects have no framing (langchain.test.ts).
    const provider = recording.dir === 'bedrock' || recording.dir === 'langchain' ? undefined : PROVIDER_OF_DIR[recording.dir];
    if (provider === undefined) continue;
    it(`ProviderEventStream reads ${recording.file} the same under every cutting, without a framing error`, async () => {
      const bytes = readFixture(`providers/${recording.file}`);
      const whole = await runStream(provider, [bytes]);
      expect(whole.error === undefined || (whole.error as ProviderError).type !== 'invalid-stream').toBe(true);
      expect(whole.events.length > 0 || whole.error !== undefined).toBe(true);
      for (const [cutting, chunks] of cuttings(bytes, 5)) {
        const cut = await runStream(provider, chunks);
        expect(cut.events, cutting).toEqual(whole.events);
        expect(cut.error, cutting).toEqual(whole.error);
      }
    });
  }
});

describe('ProviderEventStream on malformed input', () => {
  it('ProviderEventStream errors with truncated at every cut inside an event, and between events before the terminal one', () => {
    const text = textOf(ANTHROPIC);
    const full = runCore('anthropic', [text]);
    expect(full.error).toBeUndefined();
    // Before the first data line nothing has arrived; from the data line of the message_delta
    // with the stop reason on, the stream is complete (message_stop brings nothing more).
    const first = text.indexOf('\ndata:');
    const terminal = text.indexOf('data: {"type":"message_delta"');
    expect(text.slice(terminal)).toMatch(/^data: .*"stop_reason":"tool_use"/);
    // Where a cut leaves only whole records: at the start of an event, or right after a data line.
    const clean = new Set<number>([0, text.length]);
    const eventStarts = [0];
    for (let at = text.indexOf('\n\n'); at !== -1; at = text.indexOf('\n\n', at + 1)) {
      clean.add(at); // after the data line, before its newline
      clean.add(at + 1); // after the data line's newline
      clean.add(at + 2); // at the next event
      eventStarts.push(at + 2);
    }
    // "event", "event:" and "event: " name no event: nothing of the event has arrived yet.
    for (const start of eventStarts) for (const length of [5, 6, 7]) clean.add(start + length);
    let truncations = 0;
    for (let at = 0; at <= text.length; at++) {
      const { events, error } = runCore('anthropic', [text.slice(0, at)]);
      if (clean.has(at) && (at < first || at > terminal)) {
        expect(error, `cut at ${at}`).toBeUndefined();
      } else if (clean.has(at)) {
        // Between two events, before the terminal one: cut too, said so.
        expect(error, `cut at ${at}`).toMatchObject({ type: 'invalid-stream', code: 'truncated', message: expect.stringMatching(/before `message_stop`.*cut between two records/) });
        truncations++;
      } else {
        expect(error, `cut at ${at}`).toBeInstanceOf(ProviderError);
        expect(error, `cut at ${at}`).toMatchObject({ type: 'invalid-stream', code: 'truncated' });
        truncations++;
      }
      // Whatever was delivered is what the whole stream delivers first.
      expect(parts(events), `cut at ${at}`).toEqual(parts(full.events).slice(0, parts(events).length));
    }
    expect(truncations).toBeGreaterThan(text.length * 0.9);
  });

  it('ProviderEventStream delivers the events before a cut event, then errors', async () => {
    const text = textOf(ANTHROPIC);
    const cut = text.indexOf('partial_json":"ar"') + 5;
    for (const [cutting, chunks] of cuttings(text.slice(0, cut))) {
      const { events, error } = await runStream('anthropic', chunks);
      expect(error, cutting).toMatchObject({ provider: 'anthropic', type: 'invalid-stream', code: 'truncated' });
      expect((error as Error).message.length).toBeLessThan(120);
      expect(events.map((e) => (e.type === 'part' && e.part.type === 'tool-call-arguments' ? e.part.chunk : e.type))).toEqual([
        'part',
        'part',
        'flush',
        'part',
        '{"locati',
        'on": "P',
      ]);
    }
  });

  it('ProviderEventStream errors with not-sse on a garbage line, after the events before it', async () => {
    const text = textOf(ANTHROPIC).replace('event: content_block_stop', 'this line is garbage\nevent: content_block_stop');
    for (const [cutting, chunks] of cuttings(text)) {
      const { events, error } = await runStream('anthropic', chunks);
      expect(parts(events), cutting).toHaveLength(2);
      expect(error, cutting).toMatchObject({ type: 'invalid-stream', code: 'not-sse' });
      expect((error as Error).message).toContain('"this line is garbage"');
    }
  });

  it('ProviderEventStream errors with not-json on a data line that is not JSON, quoting at most 30 characters', async () => {
    const secret = 'x'.repeat(200);
    const text = `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}\n\ndata: {oops ${secret}\n\n`;
    const { events, error } = await runStream('anthropic', [text]);
    expect(events).toEqual([{ type: 'part', index: 0, part: { type: 'message', text: 'a' } }]);
    expect(error).toMatchObject({ type: 'invalid-stream', code: 'not-json' });
    expect((error as Error).message).toContain('"{oops xxxxxxxxxxxxxxxxxxxxxxxx…"');
    expect((error as Error).message).not.toContain('x'.repeat(31));
  });

  it('ProviderEventStream reports a named error event with a plain-text payload as the provider error', async () => {
    const { events, error } = await runStream('anthropic', [
      'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}\n\nevent: error\ndata: Overloaded\n\n',
    ]);
    expect(parts(events)).toHaveLength(1);
    expect(error).toMatchObject({ provider: 'anthropic', type: 'error', message: 'anthropic sent an error event: "Overloaded"' });
  });

  it('ProviderEventStream errors with not-sse on an HTML page served where SSE was expected', async () => {
    const html = '<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n<body>nginx</body></html>\n';
    for (const [cutting, chunks] of cuttings(encode(html))) {
      const { events, error } = await runStream('openai-responses', chunks);
      expect(events, cutting).toEqual([]);
      expect(error, cutting).toMatchObject({ provider: 'openai-responses', type: 'invalid-stream', code: 'not-sse' });
      expect((error as Error).message, cutting).toContain('<!DOCTYPE html>');
    }
    // Without a single line break too.
    const oneLine = await runStream('anthropic', ['<html>Service Unavailable</html>']);
    expect(oneLine.error).toMatchObject({ code: 'not-sse' });
    // NDJSON: the first line is not JSON.
    const ndjson = await runStream('ollama', [html]);
    expect(ndjson.error).toMatchObject({ provider: 'ollama', type: 'invalid-stream', code: 'not-json' });
  });

  it('ProviderEventStream errors with truncated on an NDJSON stream cut inside its last line', async () => {
    const text = textOf('ollama/real-chat-stream-text.ndjson');
    const cut = text.lastIndexOf('\n', text.length - 2) + 20;
    const { events, error } = await runStream('ollama', [text.slice(0, cut)]);
    expect(events.length).toBeGreaterThan(0);
    expect(error).toMatchObject({ provider: 'ollama', type: 'invalid-stream', code: 'truncated' });
  });

  it('ProviderEventStream errors with max-buffered-bytes on an endless line', async () => {
    const endless = `data: {"text":"${'a'.repeat(5000)}`;
    const stream = streamOf([endless.slice(0, 3000), endless.slice(3000)]).pipeThrough(
      new ProviderEventStream({ provider: 'anthropic', maxBufferedBytes: 4096 }),
    );
    await expect(stream.getReader().read()).rejects.toMatchObject({ type: 'invalid-stream', code: 'max-buffered-bytes' });
    const ndjson = streamOf([`{"a":"${'a'.repeat(5000)}`]).pipeThrough(new ProviderEventStream({ provider: 'ollama', maxBufferedBytes: 4096 }));
    await expect(ndjson.getReader().read()).rejects.toMatchObject({ code: 'max-buffered-bytes' });
  });

  it('ProviderEventStream refuses chunks that are neither bytes, text nor objects', async () => {
    const { error } = await runStream('anthropic', [42 as unknown as object]);
    expect(error).toMatchObject({ type: 'invalid-stream', code: 'invalid-input' });
  });

  it('ProviderEventStream fails fast on an unknown provider or a bad limit', () => {
    expect(() => new ProviderEventStream({ provider: 'openai' as never })).toThrow(/unknown provider "openai"; use one of anthropic/);
    expect(() => new ProviderEventStream({ provider: 'anthropic', maxBufferedBytes: 0 })).toThrow(RangeError);
  });
});

describe('ProviderEventStream as a stream citizen', () => {
  it('ProviderEventStream gives a slow reader every event before the error', async () => {
    const text = `${textOf(ANTHROPIC)}event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n`;
    // One chunk: all events are enqueued at once, then the error follows.
    const reader = streamOf([encode(text)]).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })).getReader();
    const events: StreamEvent[] = [];
    let error: unknown;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      try {
        const { done, value } = await reader.read();
        if (done) break;
        events.push(value);
      } catch (e) {
        error = e;
        break;
      }
    }
    expect(events).toHaveLength(10);
    expect(events.at(-1)).toMatchObject({ type: 'finished', reason: 'tool-calls' });
    expect(error).toMatchObject({ type: 'overloaded_error' });
  });

  it('ProviderEventStream keeps backpressure: it reads no further than the reader asks', async () => {
    let pulled = 0;
    const text = textOf(ANTHROPIC);
    const chunks = text.split(/(?<=\n\n)/);
    const source = new ReadableStream<string>(
      {
        pull(controller) {
          if (pulled < chunks.length) controller.enqueue(chunks[pulled++] as string);
          else controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    const reader = source.pipeThrough(new ProviderEventStream({ provider: 'anthropic' })).getReader();
    await reader.read();
    await new Promise((resolve) => setTimeout(resolve, 20));
    // A few chunks in flight in the pipe's queues, not the whole body.
    expect(pulled).toBeLessThan(8);
    await reader.cancel();
  });

  it('ProviderEventStream passes cancellation to the source, and its own error too', async () => {
    const reasons: unknown[] = [];
    const source = (chunks: string[]) =>
      new ReadableStream<string>({
        pull(controller) {
          // Keep-alive comments forever after the chunks: the source never ends by itself.
          controller.enqueue(chunks.shift() ?? ': keep-alive\n\n');
        },
        cancel(reason) {
          reasons.push(reason);
        },
      });
    const text = textOf(ANTHROPIC);
    const cancelled = source([text.slice(0, 300), text.slice(300)]).pipeThrough(new ProviderEventStream({ provider: 'anthropic' }));
    const reader = cancelled.getReader();
    await reader.read();
    await reader.cancel('user stopped');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(reasons).toEqual(['user stopped']);

    const failing = source(['garbage\n', text]).pipeThrough(new ProviderEventStream({ provider: 'anthropic' }));
    await expect(failing.getReader().read()).rejects.toBeInstanceOf(ProviderError);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(reasons[1]).toBeInstanceOf(ProviderError);
  });

  it('ProviderEventStream rejects writes after an error', async () => {
    const stream = new ProviderEventStream({ provider: 'anthropic' });
    const writer = stream.writable.getWriter();
    const read = stream.readable.getReader().read();
    await writer.write('garbage\n').catch(() => undefined);
    await expect(read).rejects.toBeInstanceOf(ProviderError);
    await expect(writer.write('data: {}\n\n')).rejects.toBeInstanceOf(ProviderError);
  });
});

describe('ProviderEventStream and a byte order mark', () => {
  const body = 'data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';

  it('ProviderEventStream ignores a leading U+FEFF in text input, as the SSE spec says', async () => {
    const expected = await eventsOf('openai-chat', [body]);
    expect(expected.map((e) => e.type)).toEqual(['part', 'flush', 'finished']);
    for (const [cutting, chunks] of cuttings(`\uFEFF${body}`)) {
      expect(await eventsOf('openai-chat', chunks), cutting).toEqual(expected);
    }
    // A BOM before the first line in bytes is removed by the UTF-8 decoding, as before.
    expect(await eventsOf('openai-chat', [encode(`\uFEFF${body}`)])).toEqual(expected);
  });

  it('ProviderEventStream ignores a leading U+FEFF before the first NDJSON line', async () => {
    const line = '{"message":{"role":"assistant","content":"hi"},"done":false}\n{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}\n';
    const expected = await eventsOf('ollama', [line]);
    expect(await eventsOf('ollama', [`\uFEFF${line}`])).toEqual(expected);
    expect(await eventsOf('ollama', ['\uFEFF', line])).toEqual(expected);
  });

  it('ProviderEventStream keeps a U+FEFF that is not at the start of the input', async () => {
    const first = 'data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n';
    const { events, error } = await runStream('openai-chat', [first, `\uFEFF${body}`]);
    expect(events.map((e) => e.type)).toEqual(['part']);
    expect(error).toMatchObject({ type: 'invalid-stream', code: 'not-sse' });
  });
});

describe('ProviderEventStream and zero-length chunks', () => {
  it('ProviderEventStream ignores zero-length chunks of either kind, even between the bytes of one character', async () => {
    const text = 'data: {"choices":[{"index":0,"delta":{"content":"é🦀"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
    const expected = await eventsOf('openai-chat', [text]);
    const chunks = oneByOne(encode(text)).flatMap((byte) => [byte, '', new Uint8Array(0)]);
    expect(await eventsOf('openai-chat', ['', new Uint8Array(0), ...chunks])).toEqual(expected);
  });
});
