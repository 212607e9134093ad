/**
 * The Google Gen AI SDK (`@google/genai`) against the replay server: `models.generateContentStream`
 * with `httpOptions.baseUrl`, its chunks fed to argstream, and argstream's turn compared with what
 * the SDK exposes on those chunks (`functionCalls`, `text`, `finishReason`) and with the MANIFEST.
 */
import { GoogleGenAI, type GenerateContentResponse } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { collectTurn } from '../../src/sinks/collect-turn.ts';
import { fromAsyncIterable } from '../../src/sources/iterable.ts';
import { fromResponse } from '../../src/sources/response.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import { manifestRecordings } from '../manifest.ts';
import { closeServersAfterEach, replay, turnCalls } from './replay.ts';

closeServersAfterEach();

/** Without `retryOptions` the SDK makes one request and never retries. */
function client(baseUrl: string): GoogleGenAI {
  return new GoogleGenAI({ apiKey: 'replay-key', httpOptions: { baseUrl } });
}

async function sdkChunks(baseUrl: string): Promise<GenerateContentResponse[]> {
  const chunks: GenerateContentResponse[] = [];
  for await (const chunk of await client(baseUrl).models.generateContentStream({ model: 'gemini-replay', contents: 'hi' })) chunks.push(chunk);
  return chunks;
}

describe('Google Gen AI SDK against the replay server', () => {
  // The SDK always asks for `alt=sse`: the JSON-array form (a `.json` recording) is not its wire format.
  const sse = manifestRecordings('gemini').filter((recording) => recording.file.endsWith('.sse'));
  it.each(sse.map((recording) => [recording.file, recording] as const))('%s', async (file, recording) => {
    const server = await replay(file, 'gemini');
    const chunks = await sdkChunks(server.url);
    const stream = await client(server.url).models.generateContentStream({ model: 'gemini-replay', contents: 'hi' });
    const turn = await collectTurn(fromAsyncIterable(stream).pipeThrough(new ProviderEventStream({ provider: 'gemini' })));
    const fetched = await fetch(`${server.url}/v1beta/models/gemini-replay:streamGenerateContent?alt=sse`, { method: 'POST', body: '{}' });
    const fromFetch = await collectTurn(fromResponse(fetched, { provider: 'gemini' }));

    // argstream: the MANIFEST's calls (Gemini sends no ids: argstream makes call_<n>_<name>).
    const expected = recording.toolCalls.map((call) => ({ name: call.name, arguments: JSON.parse(call.args) }));
    expect(turn.toolCalls.map((call) => ({ name: call.toolName, arguments: call.arguments }))).toEqual(expected);
    expect(turnCalls(fromFetch)).toEqual(turnCalls(turn));
    expect(fromFetch.text).toBe(turn.text);

    // The SDK: its chunks' text joined, their function calls, the last finishReason.
    const sdkText = chunks.map((chunk) => chunk.candidates?.[0]?.content?.parts?.filter((part) => part.text !== undefined && !part.thought).map((part) => part.text).join('') ?? '').join('');
    const sdkCalls = chunks.flatMap((chunk) => chunk.functionCalls ?? []);
    const finishReason = chunks.map((chunk) => chunk.candidates?.[0]?.finishReason).filter((reason) => reason !== undefined).pop();
    expect(turn.text).toBe(sdkText);
    expect(turn.rawFinishReason).toBe(finishReason);
    if (file.startsWith('gemini/vertex-partial-args')) {
      // Vertex `partialArgs`: the SDK hands over each fragment as a function call without `args`
      // (assembling them is left to the caller); argstream assembles them into the MANIFEST's calls.
      expect(sdkCalls.length).toBeGreaterThan(expected.length);
      expect(sdkCalls.some((call) => call.args === undefined)).toBe(true);
      expect(new Set(sdkCalls.filter((call) => call.name).map((call) => call.name))).toEqual(new Set(expected.map((call) => call.name)));
    } else {
      expect(sdkCalls.map((call) => ({ name: call.name, arguments: call.args ?? {} }))).toEqual(expected);
    }
  });

  it.each([
    [400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.'],
    [429, 'RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).'],
  ] as const)('an HTTP %i error: fromResponse gives a ProviderError with the status, Gemini status and message', async (status, type, message) => {
    const body = JSON.stringify([{ error: { code: status, message, status: type } }], null, 2);
    const { startReplayServer } = await import('../../src/cli/replay-server.ts');
    const server = await startReplayServer({ recording: new TextEncoder().encode(body), provider: 'gemini', status });
    try {
      const sdkError = await sdkChunks(server.url).then(() => undefined, (error: unknown) => error);
      expect(sdkError).toMatchObject({ name: 'ApiError', status });
      expect((sdkError as Error).message).toContain(message);
      const response = await fetch(`${server.url}/v1beta/models/m:streamGenerateContent?alt=sse`, { method: 'POST', body: '{}' });
      const error = await collectTurn(fromResponse(response, { provider: 'gemini' })).then(() => undefined, (caught: unknown) => caught);
      expect(error).toMatchObject({ name: 'ProviderError', provider: 'gemini', status, type, code: String(status) });
      expect((error as Error).message).toContain(message);
    } finally {
      await server.close();
    }
  });
});
