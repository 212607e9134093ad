import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { guessProvider, splitEvents, startReplayServer, type ReplayServer } from '../../src/cli/replay-server.ts';
import { listFixtures, readFixture } from '../helpers.ts';

const servers: ReplayServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(options: Parameters<typeof startReplayServer>[0]): Promise<ReplayServer> {
  const server = await startReplayServer(options);
  servers.push(server);
  return server;
}

/** POST with a JSON body; the response's status, headers and every chunk as it was read. */
function post(url: string, body = '{"model":"m","stream":true}'): Promise<{ status: number; headers: Record<string, unknown>; chunks: Buffer[] }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, chunks }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const anthropic = readFixture('providers/anthropic/text-then-tool-use.sse');

describe('startReplayServer', () => {
  it('startReplayServer serves the recording byte for byte on each provider path, with its content type', async () => {
    const cases: Array<[Parameters<typeof startReplayServer>[0]['provider'], string, string, string]> = [
      ['anthropic', 'anthropic/text-then-tool-use.sse', '/v1/messages', 'text/event-stream; charset=utf-8'],
      ['openai-chat', 'openai-chat/single-tool-call.sse', '/v1/chat/completions', 'text/event-stream; charset=utf-8'],
      ['openai-responses', 'openai-responses/function-call.sse', '/v1/responses', 'text/event-stream; charset=utf-8'],
      ['gemini', 'gemini/function-call-whole-args-crlf.sse', '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', 'text/event-stream; charset=utf-8'],
      ['ollama', 'ollama/docs-chat-stream-tool-call.ndjson', '/api/chat', 'application/x-ndjson'],
      ['bedrock', 'bedrock/text-then-tool-use.eventstream', '/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse-stream', 'application/vnd.amazon.eventstream'],
      ['cohere', 'cohere/v2-tool-call-no-args.sse', '/v2/chat', 'text/event-stream; charset=utf-8'],
      ['gemini-interactions', 'gemini-interactions/docs-streaming-count-to-25.sse', '/v1beta/interactions', 'text/event-stream; charset=utf-8'],
    ];
    for (const [provider, file, path, contentType] of cases) {
      const recording = readFixture(`providers/${file}`);
      const server = await start({ recording, provider });
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const response = await post(server.url + path);
      expect(response.status, file).toBe(200);
      expect(response.headers['content-type'], file).toBe(contentType);
      expect(new Uint8Array(Buffer.concat(response.chunks)), file).toEqual(recording);
    }
  });

  it('startReplayServer answers 404 with a JSON message elsewhere, and 405 for another method on its path', async () => {
    const server = await start({ recording: anthropic, provider: 'anthropic' });
    const missing = await post(`${server.url}/v1/chat/completions`);
    expect(missing.status).toBe(404);
    const body = JSON.parse(Buffer.concat(missing.chunks).toString('utf8'));
    expect(body.error.message).toBe('argstream replay serves the anthropic recording at POST /v1/messages; got POST /v1/chat/completions');
    const get = await fetch(`${server.url}/v1/messages`);
    expect(get.status).toBe(405);
    expect(get.headers.get('content-type')).toBe('application/json');
  });

  it('startReplayServer sends one provider event per write by default, and chunkSize bytes per write when given', async () => {
    const recording = new TextEncoder().encode('event: a\ndata: {"x":1}\n\nevent: b\r\ndata: {"y":2}\r\n\r\ndata: {"z":3}\r\rdata: [DONE]\n\n');
    expect(splitEvents(recording, 'anthropic').map((chunk) => new TextDecoder().decode(chunk))).toEqual([
      'event: a\ndata: {"x":1}\n\n',
      'event: b\r\ndata: {"y":2}\r\n\r\n',
      'data: {"z":3}\r\r',
      'data: [DONE]\n\n',
    ]);
    expect(splitEvents(new TextEncoder().encode('{"a":1}\n{"b":2}\n{"c"'), 'ollama').map((chunk) => new TextDecoder().decode(chunk))).toEqual([
      '{"a":1}\n',
      '{"b":2}\n',
      '{"c"',
    ]);
    const frames = splitEvents(readFixture('providers/bedrock/text-then-tool-use.eventstream'), 'bedrock');
    const decoded = readFixture('providers/bedrock/text-then-tool-use.decoded.jsonl');
    expect(frames.length).toBe(new TextDecoder().decode(decoded).trim().split('\n').length);

    // Paced writes arrive as separate reads on loopback.
    const paced = await start({ recording, provider: 'anthropic', chunkDelayMs: 20 });
    const response = await post(`${paced.url}/v1/messages`);
    expect(response.chunks.map((chunk) => chunk.toString('utf8'))).toEqual([
      'event: a\ndata: {"x":1}\n\n',
      'event: b\r\ndata: {"y":2}\r\n\r\n',
      'data: {"z":3}\r\r',
      'data: [DONE]\n\n',
    ]);
    const sized = await start({ recording, provider: 'anthropic', chunkSize: 10, chunkDelayMs: 20 });
    const bySize = await post(`${sized.url}/v1/messages`);
    expect(recording.length).toBe(80);
    expect(bySize.chunks.map((chunk) => chunk.length)).toEqual([10, 10, 10, 10, 10, 10, 10, 10]);
  });

  it('startReplayServer answers an error status with the recording as the body', async () => {
    const body = new TextEncoder().encode('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}');
    const server = await start({ recording: body, provider: 'anthropic', status: 529 });
    const response = await post(`${server.url}/v1/messages`);
    expect(response.status).toBe(529);
    expect(response.headers['content-type']).toBe('application/json');
    expect(Buffer.concat(response.chunks).toString('utf8')).toBe(new TextDecoder().decode(body));

    const bedrock = await start({
      recording: new TextEncoder().encode('{"message":"Too many requests"}'),
      provider: 'bedrock',
      status: 429,
      headers: { 'x-amzn-errortype': 'ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/' },
    });
    const throttled = await post(`${bedrock.url}/model/m/converse-stream`);
    expect(throttled.status).toBe(429);
    expect(throttled.headers['x-amzn-errortype']).toBe('ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/');
  });

  it('startReplayServer stops writing when the client goes away, and close() ends open connections', async () => {
    const server = await start({ recording: anthropic, provider: 'anthropic', chunkDelayMs: 50 });
    const controller = new AbortController();
    const response = await fetch(`${server.url}/v1/messages`, { method: 'POST', body: '{}', signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
    const open = await fetch(`${server.url}/v1/messages`, { method: 'POST', body: '{}' });
    const openReader = open.body!.getReader();
    await openReader.read();
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    await expect((async () => { for (;;) if ((await openReader.read()).done) return 'ended'; })()).rejects.toThrow();
  });

  it('startReplayServer refuses a provider without a wire format and bad pacing options', async () => {
    await expect(startReplayServer({ recording: anthropic, provider: 'ai-sdk' as never })).rejects.toThrow(TypeError);
    await expect(startReplayServer({ recording: anthropic, provider: 'anthropic', chunkSize: 0 })).rejects.toThrow(RangeError);
    await expect(startReplayServer({ recording: anthropic, provider: 'anthropic', chunkDelayMs: -1 })).rejects.toThrow(RangeError);
  });
});

describe('guessProvider', () => {
  it('guessProvider names the provider of every recording in the provider directories', () => {
    const expected: Record<string, string> = {
      anthropic: 'anthropic',
      'openai-chat': 'openai-chat',
      'openai-compatible': 'openai-chat',
      'openai-responses': 'openai-responses',
      gemini: 'gemini',
      ollama: 'ollama',
      mistral: 'openai-chat',
      cohere: 'cohere',
      'gemini-interactions': 'gemini-interactions',
    };
    for (const [dir, provider] of Object.entries(expected)) {
      for (const file of listFixtures(`providers/${dir}`).filter((name) => !/\.(?:md|mjs)$/.test(name))) {
        expect(guessProvider(readFixture(`providers/${dir}/${file}`)), `${dir}/${file}`).toBe(provider);
      }
    }
    for (const file of listFixtures('providers/bedrock').filter((name) => name.endsWith('.eventstream'))) {
      expect(guessProvider(readFixture(`providers/bedrock/${file}`)), file).toBe('bedrock');
    }
    // AG-UI's events, and the objects @ag-ui/client yields written one a line.
    for (const file of listFixtures('providers/ag-ui').filter((name) => name.endsWith('.sse'))) {
      const bytes = readFixture(`providers/ag-ui/${file}`);
      expect(guessProvider(bytes), file).toBe('ag-ui');
      const lines = new TextDecoder().decode(bytes).split('\n').filter((line) => line.startsWith('data: ')).map((line) => line.slice(6));
      expect(guessProvider(lines.join('\n')), `${file} as NDJSON`).toBe('ag-ui');
    }
  });

  it('guessProvider reads error bodies, SDK NDJSON and says undefined for what it does not know', () => {
    expect(guessProvider('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')).toBe('anthropic');
    expect(guessProvider('{"error":{"message":"Incorrect API key","type":"invalid_request_error","code":"invalid_api_key"}}')).toBe('openai-chat');
    expect(guessProvider('[{"error":{"code":429,"message":"Quota","status":"RESOURCE_EXHAUSTED"}}]')).toBe('gemini');
    expect(guessProvider('{"error":"model \\"x\\" not found"}')).toBe('ollama');
    expect(guessProvider('{"type":"message_start","message":{"id":"m"}}\n{"type":"content_block_start","index":0}\n')).toBe('anthropic');
    // Gemini's Interactions API: by `event_type` (its error event too), or by the SSE event name alone.
    expect(guessProvider('{"index":0,"step":{"type":"thought"},"event_type":"step.start"}\n')).toBe('gemini-interactions');
    expect(guessProvider('data: {"error":{"code":"resource_exhausted","message":"Quota"},"event_type":"error"}\n\n')).toBe('gemini-interactions');
    expect(guessProvider('event: content.delta\ndata: {"index":0,"delta":{"type":"text","text":"a"}}\n\n')).toBe('gemini-interactions');
    expect(guessProvider('<html>Bad gateway</html>')).toBeUndefined();
    expect(guessProvider('')).toBeUndefined();
  });
});
