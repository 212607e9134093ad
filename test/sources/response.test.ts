import { describe, expect, it } from 'vitest';
import { ProviderError, type ProviderName } from '../../src/errors.ts';
import { collectTurn } from '../../src/sinks/collect-turn.ts';
import { ConversationEventStream } from '../../src/transforms/conversation-event-stream.ts';
import { FieldEventStream } from '../../src/transforms/field-event-stream.ts';
import { EventStreamEncoder } from '../../src/relay/event-stream-encoder.ts';
import { ArgumentValidationStream } from '../../src/transforms/argument-validation-stream.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import { fromResponse } from '../../src/sources/response.ts';
import { listFixtures, readAll, readFixture, recordingSource, settle, streamOf } from '../helpers.ts';
import { PROVIDER_OF_DIR } from '../providers/event-stream-helpers.ts';

const encode = (text: string) => new TextEncoder().encode(text);

function recordings(): Array<[string, Exclude<ProviderName, 'ai-sdk'>]> {
  const out: Array<[string, Exclude<ProviderName, 'ai-sdk'>]> = [];
  for (const [dir, provider] of Object.entries(PROVIDER_OF_DIR) as Array<[string, Exclude<ProviderName, 'ai-sdk'>]>) {
    // LangChain's objects have no HTTP response (fromResponse refuses 'langchain').
    if (provider === 'langchain') continue;
    // Recordings only: not the SDK-shaped `.jsonl` objects, nor a folder's README or record script.
    for (const file of listFixtures(`providers/${dir}`)) if (!/\.(?:jsonl|md|mjs)$/.test(file)) out.push([`providers/${dir}/${file}`, provider]);
  }
  return out;
}

/** A response whose body arrives in reads of `size` bytes. */
function response(bytes: Uint8Array, init: ResponseInit = {}, size = 7): Response {
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.slice(i, i + size));
  return new Response(streamOf(chunks), init);
}

describe('fromResponse', () => {
  it.each(recordings())('fromResponse gives the events (and the error) ProviderEventStream gives: %s', async (file, provider) => {
    const bytes = readFixture(file);
    const expected = await settle(streamOf([bytes]).pipeThrough(new ProviderEventStream({ provider })));
    const actual = await settle(fromResponse(response(bytes), { provider }));
    // Reads of 7 bytes join differently: compare the events with adjacent text joined on both sides.
    expect(joinText(actual.values)).toEqual(joinText(expected.values));
    expect(actual.error === undefined).toBe(expected.error === undefined);
    if (expected.error !== undefined) expect(actual.error).toMatchObject({ name: (expected.error as Error).name, message: (expected.error as Error).message });
  });

  const errorBodies: Array<[string, Exclude<ProviderName, 'ai-sdk'>, number, string, Record<string, string>, Partial<ProviderError>, string]> = [
    [
      'Anthropic',
      'anthropic',
      529,
      '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}',
      {},
      { type: 'overloaded_error', code: undefined },
      'anthropic HTTP 529: overloaded_error: Overloaded',
    ],
    [
      'OpenAI',
      'openai-chat',
      401,
      '{\n  "error": {\n    "message": "Incorrect API key provided: sk-replay.",\n    "type": "invalid_request_error",\n    "param": null,\n    "code": "invalid_api_key"\n  }\n}\n',
      {},
      { type: 'invalid_request_error', code: 'invalid_api_key' },
      'openai-chat HTTP 401: invalid_request_error: Incorrect API key provided: sk-replay.',
    ],
    [
      'OpenAI Responses',
      'openai-responses',
      429,
      '{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}',
      {},
      { type: 'requests', code: 'rate_limit_exceeded' },
      'openai-responses HTTP 429: requests: Rate limit reached',
    ],
    [
      'Gemini',
      'gemini',
      400,
      '{\n  "error": {\n    "code": 400,\n    "message": "API key not valid. Please pass a valid API key.",\n    "status": "INVALID_ARGUMENT"\n  }\n}\n',
      {},
      { type: 'INVALID_ARGUMENT', code: '400' },
      'gemini HTTP 400: INVALID_ARGUMENT: API key not valid. Please pass a valid API key.',
    ],
    [
      'Gemini (in an array)',
      'gemini',
      429,
      '[{\n  "error": {\n    "code": 429,\n    "message": "Resource has been exhausted (e.g. check quota).",\n    "status": "RESOURCE_EXHAUSTED"\n  }\n}\n]',
      {},
      { type: 'RESOURCE_EXHAUSTED', code: '429' },
      'gemini HTTP 429: RESOURCE_EXHAUSTED: Resource has been exhausted (e.g. check quota).',
    ],
    ['Ollama', 'ollama', 404, '{"error":"model \\"llama9\\" not found, try pulling it first"}', {}, { type: 'error', code: undefined }, 'ollama HTTP 404: model "llama9" not found, try pulling it first'],
    [
      'Bedrock',
      'bedrock',
      400,
      '{"message":"The provided model identifier is invalid."}',
      { 'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/' },
      { type: 'ValidationException', code: undefined },
      'bedrock HTTP 400: ValidationException: The provided model identifier is invalid.',
    ],
    [
      'a proxy page',
      'anthropic',
      502,
      '<html>\n<head><title>502 Bad Gateway</title></head>\n<body>…</body></html>',
      {},
      { type: 'http-error', code: undefined },
      'anthropic HTTP 502 Bad Gateway: "<html> <head><title>502 Bad Ga…"',
    ],
    ['an empty body', 'openai-chat', 503, '', {}, { type: 'http-error' }, 'openai-chat HTTP 503 Service Unavailable (empty body)'],
  ];

  it.each(errorBodies)('fromResponse turns %s error bodies into a ProviderError with the status, type, code and message', async (_, provider, status, body, headers, fields, message) => {
    const statusText = status === 502 ? 'Bad Gateway' : status === 503 ? 'Service Unavailable' : '';
    const { values, error } = await settle(fromResponse(response(encode(body), { status, statusText, headers }), { provider }));
    expect(values).toEqual([]);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider, status, ...fields });
    expect((error as Error).message).toBe(message);
  });

  it('ProviderEventStream fed an error body errors with the same ProviderError, without the status', async () => {
    for (const [, provider, status, body, headers, fields, message] of errorBodies) {
      if (provider === 'bedrock' || fields.type === 'http-error') continue; // no header to read / not JSON
      const { error } = await settle(streamOf([encode(body)]).pipeThrough(new ProviderEventStream({ provider })));
      expect(error, body).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ provider, status: undefined, ...fields });
      expect((error as Error).message).toBe(message.replace(` HTTP ${status}`, ''));
      void headers;
    }
    // Bedrock: the body's message, cut anywhere, instead of a frame error.
    const bedrock = await settle(streamOf([encode('{"message":"The security token'), encode(' included in the request is invalid."}')]).pipeThrough(new ProviderEventStream({ provider: 'bedrock' })));
    expect(bedrock.error).toMatchObject({ name: 'ProviderError', type: 'error', message: 'bedrock: The security token included in the request is invalid.' });
  });

  it('fromResponse reads an error status even with a streaming content type, and at most 64 KiB of the body', async () => {
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(16 * 1024).fill(0x61));
      },
    });
    const { error } = await settle(fromResponse(new Response(endless, { status: 500, statusText: 'Internal Server Error', headers: { 'content-type': 'text/event-stream' } }), { provider: 'anthropic' }));
    expect(error).toMatchObject({ name: 'ProviderError', status: 500, type: 'http-error', message: 'anthropic HTTP 500 Internal Server Error: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…"' });
    expect(pulled).toBeLessThan(8);
  });

  it('fromResponse: cancelling the stream cancels the body, before and after the first read; a decoding error cancels it too', async () => {
    const bytes = readFixture('providers/anthropic/text-then-tool-use.sse');
    const chunks = Array.from({ length: 20 }, (_, i) => bytes.slice(i * 64, (i + 1) * 64));
    const early = recordingSource(chunks);
    await fromResponse(new Response(early.stream), { provider: 'anthropic' }).cancel('stop');
    expect(early.log.cancelled).toBe('stop');

    const late = recordingSource(chunks);
    const reader = fromResponse(new Response(late.stream), { provider: 'anthropic' }).getReader();
    await reader.read();
    await reader.cancel('enough');
    expect(late.log.cancelled).toBe('enough');

    const bad = recordingSource([encode('data: {"type":"message_start"}\n\n'), encode('data: not json\n\n'), encode('data: {}\n\n')]);
    const { values, error } = await settle(fromResponse(new Response(bad.stream), { provider: 'anthropic' }));
    expect(values).toEqual([]);
    expect(error).toMatchObject({ name: 'ProviderError', code: 'not-json' });
    expect(bad.log.cancelled).toBe(error);
  });

  it('fromResponse: events before a decoding error are delivered, then the error', async () => {
    const body = encode(
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\nevent: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}\n\ndata: not json\n\n',
    );
    const { values, error } = await settle(fromResponse(new Response(body), { provider: 'anthropic' }));
    expect(values).toEqual([{ type: 'part', index: 0, part: { type: 'message', text: 'Hello' } }]);
    expect(error).toMatchObject({ name: 'ProviderError', code: 'not-json' });
  });

  it('fromResponse: stages given after the options run in its read (no stream hop), with the same events as separate hops', async () => {
    const bytes = readFixture('providers/anthropic/text-then-2-parallel-tool-use.sse');
    const conversation = new ConversationEventStream({ progress: true });
    const fields = new FieldEventStream();
    const fused = fromResponse(response(bytes), { provider: 'anthropic' }, conversation, fields);
    expect(conversation.writable.locked && fields.readable.locked).toBe(true);
    expect(() => fromResponse(response(bytes), { provider: 'anthropic' }, conversation)).toThrow(/already in use/);
    const separate = streamOf([bytes])
      .pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))
      .pipeThrough(new ConversationEventStream({ progress: true }), {})
      .pipeThrough(new FieldEventStream(), {});
    expect(joinText(await readAll(fused))).toEqual(joinText(await readAll(separate)));
    const turn = await collectTurn(fromResponse(response(bytes), { provider: 'anthropic' }, new ConversationEventStream()));
    expect(turn.toolCalls.map((call) => call.toolName)).toEqual(['get_weather', 'get_time']);
  });

  it('fromResponse: an async validator given as a stage is waited for, and its events keep their order', async () => {
    const bytes = readFixture('providers/anthropic/text-then-tool-use.sse');
    const berlin = {
      '~standard': {
        version: 1 as const,
        vendor: 'test',
        validate: async (value: unknown) => {
          await new Promise((resolve) => setTimeout(resolve, 1));
          return value === 'Berlin' ? { value } : { issues: [{ message: 'not Berlin' }] };
        },
      },
    };
    const options = { tools: { get_weather: { fields: { location: berlin } } } };
    const fused = await readAll(fromResponse(response(bytes), { provider: 'anthropic' }, new ArgumentValidationStream(options)));
    const separate = await readAll(streamOf([bytes]).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })).pipeThrough(new ArgumentValidationStream(options), {}));
    const types = fused.map((event) => event.type);
    expect(types.filter((type) => type === 'validation-error')).toEqual(['validation-error']);
    expect(types.indexOf('validation-error')).toBeLessThan(types.indexOf('finished'));
    expect(joinText(fused)).toEqual(joinText(separate));
  });

  it('fromResponse refuses ai-sdk, langchain, unknown providers and a body already read', async () => {
    expect(() => fromResponse(new Response('x'), { provider: 'ai-sdk' })).toThrow(TypeError);
    expect(() => fromResponse(new Response('x'), { provider: 'langchain' })).toThrow(/'langchain' is not an HTTP API/);
    expect(() => fromResponse(new Response('x'), { provider: 'mistral' as never })).toThrow(TypeError);
    const used = new Response('data: {}\n\n');
    await used.text();
    expect(() => fromResponse(used, { provider: 'anthropic' })).toThrow('fromResponse: the response body was already read');
  });

  it('fromResponse is a plain ReadableStream: pipeThrough locks it and returns the stage\'s readable', () => {
    const source = fromResponse(new Response('data: {}\n\n'), { provider: 'anthropic' });
    const stage = new ConversationEventStream();
    expect(source.pipeThrough(stage)).toBe(stage.readable);
    expect(source.locked).toBe(true);
    expect(() => source.getReader()).toThrow(TypeError);
  });

  it('fromResponse: a body that fails while no one reads ends the stream then (its read kept ahead), with no unhandled rejection', async () => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown): void => {
      rejections.push(reason);
    };
    process.on('unhandledRejection', onRejection);
    try {
      const sse = (event: object): string => `event: ${(event as { type: string }).type}\ndata: ${JSON.stringify(event)}\n\n`;
      const first =
        sse({ type: 'message_start', message: { id: 'm', model: 'x', usage: { input_tokens: 1, output_tokens: 1 } } }) +
        sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) +
        sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } });
      for (const encoder of [false, true]) {
        let body!: ReadableStreamDefaultController<Uint8Array>;
        const cancelled: unknown[] = [];
        const source = new ReadableStream<Uint8Array>({ start: (controller) => void (body = controller), cancel: (reason) => void cancelled.push(reason) });
        body.enqueue(encode(first));
        const stream: ReadableStream<unknown> = encoder
          ? fromResponse(new Response(source), { provider: 'anthropic' }, new FieldEventStream(), new EventStreamEncoder())
          : fromResponse(new Response(source), { provider: 'anthropic' });
        const reader = stream.getReader();
        expect((await reader.read()).done).toBe(false);
        // Nothing reads now; the body's next read is pending (kept ahead) when it fails.
        await new Promise((resolve) => setTimeout(resolve, 5));
        const cut = new Error('the connection was cut');
        body.error(cut);
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (encoder) {
          // An encoder's stream ends with the error's page record, then closes.
          const last = await reader.read();
          expect(new TextDecoder().decode(last.value as Uint8Array)).toMatch(/^event: error\n/);
          expect((await reader.read()).done).toBe(true);
        } else await expect(reader.read()).rejects.toBe(cut);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(rejections).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });

  it('fromResponse: a response without a body is an empty stream', async () => {
    expect(await readAll(fromResponse(new Response(null), { provider: 'openai-chat' }))).toEqual([]);
  });
});

/** Events with the text of adjacent parts of the same slot joined (reads cut text differently). */
function joinText(events: readonly unknown[]): unknown[] {
  const out: Array<Record<string, unknown>> = [];
  for (const event of events as Array<Record<string, unknown>>) {
    const last = out.at(-1);
    const part = event['part'] as Record<string, unknown> | undefined;
    const lastPart = last?.['part'] as Record<string, unknown> | undefined;
    if (event['type'] === 'part' && last?.['type'] === 'part' && last['index'] === event['index'] && part !== undefined && lastPart !== undefined && part['type'] === lastPart['type'] && event['metadata'] === undefined) {
      const key = typeof part['text'] === 'string' ? 'text' : typeof part['chunk'] === 'string' ? 'chunk' : undefined;
      if (key !== undefined) {
        out[out.length - 1] = { ...last, part: { ...lastPart, [key]: `${lastPart[key] as string}${part[key] as string}` } };
        continue;
      }
    }
    if (event['type'] === 'field-delta' && last?.['type'] === 'field-delta' && last['toolCallId'] === event['toolCallId'] && last['key'] === event['key']) {
      out[out.length - 1] = { ...last, text: `${last['text'] as string}${event['text'] as string}` };
      continue;
    }
    if (event['type'] === 'tool-call-progress' || event['type'] === 'structured-progress') continue;
    out.push(event);
  }
  return out;
}
