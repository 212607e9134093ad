/**
 * What `ProviderEventStream` accepts besides the provider's own framing: the NDJSON of event
 * objects an SDK's `toReadableStream()` writes, Gemini's JSON-array stream, and HTTP error bodies
 * (a `curl` of a failed request), each cut anywhere.
 */
import { describe, expect, it } from 'vitest';
import type { ProviderName } from '../../src/errors.ts';
import { ProviderEventDecoder } from '../../src/providers/provider-event-decoder.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import { cuttings, listFixtures, readFixture, settle, streamOf } from '../helpers.ts';

const SSE_DIRS: Record<string, Exclude<ProviderName, 'ai-sdk'>> = {
  anthropic: 'anthropic',
  'openai-chat': 'openai-chat',
  'openai-responses': 'openai-responses',
  gemini: 'gemini',
  'gemini-interactions': 'gemini-interactions',
};

/** The JSON `data` of each SSE event of a recording (what an SDK yields as objects). */
function dataObjects(sse: string): unknown[] {
  const out: unknown[] = [];
  for (const event of sse.split(/\r\n\r\n|\n\n|\r\r/)) {
    const data = event
      .split(/\r\n|\n|\r/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n');
    if (data.trim() !== '' && data !== '[DONE]') out.push(JSON.parse(data));
  }
  return out;
}

async function events(chunks: Array<string | Uint8Array>, provider: ProviderName) {
  return settle(streamOf(chunks).pipeThrough(new ProviderEventStream({ provider })));
}

/** Events with adjacent text of one slot joined: different cuttings join differently. */
function joined(values: readonly unknown[]): string {
  const out: Array<Record<string, unknown>> = [];
  for (const event of values as Array<Record<string, unknown>>) {
    const last = out.at(-1);
    const part = event['part'] as Record<string, string> | undefined;
    const lastPart = last?.['part'] as Record<string, string> | undefined;
    if (last && part && lastPart && event['type'] === 'part' && last['type'] === 'part' && last['index'] === event['index'] && part['type'] === lastPart['type'] && !event['metadata']) {
      const key = 'text' in part ? 'text' : 'chunk' in part ? 'chunk' : undefined;
      if (key) {
        out[out.length - 1] = { ...last, part: { ...lastPart, [key]: lastPart[key] + part[key] } };
        continue;
      }
    }
    out.push(event);
  }
  return JSON.stringify(out);
}

// The SSE recordings (Gemini's JSON-array one is read like them by the tests on every recording).
const recordings = Object.entries(SSE_DIRS).flatMap(([dir, provider]) =>
  listFixtures(`providers/${dir}`)
    .filter((file) => file.endsWith('.sse'))
    .map((file) => [`providers/${dir}/${file}`, provider] as const),
);

describe('ProviderEventStream input forms', () => {
  it.each(recordings)('ProviderEventStream reads the NDJSON of event objects (an SDK toReadableStream) like the SSE, cut anywhere: %s', async (file, provider) => {
    const sse = new TextDecoder().decode(readFixture(file));
    const expected = await events([sse], provider);
    const objects = dataObjects(sse);
    const ndjson = new TextEncoder().encode(`\n${objects.map((object) => JSON.stringify(object)).join('\n')}\n`);
    for (const [name, chunks] of cuttings(ndjson, 3)) {
      const actual = await events(chunks, provider);
      expect(joined(actual.values), name).toBe(joined(expected.values));
      expect(String(actual.error), name).toBe(String(expected.error));
    }
  });

  it.each(recordings.filter(([file]) => file.includes('/gemini/')))('ProviderEventStream reads Gemini\'s JSON-array stream (no alt=sse) like the SSE: %s', async (file) => {
    const sse = new TextDecoder().decode(readFixture(file));
    const expected = await events([sse], 'gemini');
    const array = `[${dataObjects(sse).map((object) => JSON.stringify(object, null, 2)).join(',\r\n')}]`;
    for (const [name, chunks] of cuttings(new TextEncoder().encode(array), 5)) {
      const actual = await events(chunks, 'gemini');
      expect(joined(actual.values), name).toBe(joined(expected.values));
    }
  });

  it('ProviderEventDecoder emits each element of Gemini\'s JSON array as soon as it is complete, not at the end', () => {
    const objects = dataObjects(new TextDecoder().decode(readFixture('providers/gemini/function-call-whole-args-crlf.sse')));
    const reference = new ProviderEventDecoder({ provider: 'gemini' });
    const perRecord = objects.map((object) => reference.push(object as object, []));
    const decoder = new ProviderEventDecoder({ provider: 'gemini' });
    expect(decoder.push('[', [])).toEqual([]);
    objects.forEach((object, i) => {
      const text = JSON.stringify(object, null, 2);
      // All of an element but its last brace completes nothing; the brace completes it.
      expect(decoder.push(`${i === 0 ? '' : ',\r\n'}${text.slice(0, -1)}`, []), `element ${i}`).toEqual([]);
      expect(decoder.push(text.slice(-1), []), `element ${i}`).toEqual(perRecord[i]);
    });
    expect(decoder.push('\n]\n', [])).toEqual([]);
    expect(decoder.end([])).toEqual(reference.end([]));
  });

  it('ProviderEventDecoder refuses a JSON array cut inside an element, and text after it', () => {
    const cut = new ProviderEventDecoder({ provider: 'gemini' });
    cut.push('[{"candidates": [{"content": {"parts": [{"text": "a"}]}}]}, {"cand', []);
    expect(() => cut.end([])).toThrow(expect.objectContaining({ type: 'invalid-stream', code: 'truncated' }));
    const after = new ProviderEventDecoder({ provider: 'gemini' });
    expect(() => after.push('[{"candidates": []}] x', [])).toThrow(expect.objectContaining({ type: 'invalid-stream', code: 'not-json' }));
  });

  it('ProviderEventStream fed an HTTP error body (cut anywhere) errors with the provider\'s type and message, not an SSE error', async () => {
    const bodies: Array<[ProviderName, string, string, string]> = [
      ['anthropic', '{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_1"}', 'authentication_error', 'anthropic: authentication_error: invalid x-api-key'],
      ['openai-chat', '{\n    "error": {\n        "message": "You exceeded your current quota.",\n        "type": "insufficient_quota",\n        "param": null,\n        "code": "insufficient_quota"\n    }\n}\n', 'insufficient_quota', 'openai-chat: insufficient_quota: You exceeded your current quota.'],
      ['gemini', '[{\n  "error": {\n    "code": 503,\n    "message": "The model is overloaded. Please try again later.",\n    "status": "UNAVAILABLE"\n  }\n}\n]', 'UNAVAILABLE', 'gemini: UNAVAILABLE: The model is overloaded. Please try again later.'],
      ['ollama', '{"error":"model \\"x\\" not found"}\n', 'error', 'ollama: model "x" not found'],
      ['bedrock', '{"message":"Too many requests, please wait before trying again."}', 'error', 'bedrock: Too many requests, please wait before trying again.'],
    ];
    for (const [provider, body, type, message] of bodies) {
      for (const [name, chunks] of cuttings(new TextEncoder().encode(body), 11)) {
        const { values, error } = await events(chunks, provider);
        expect(values, `${provider} ${name}`).toEqual([]);
        expect(error, `${provider} ${name}`).toMatchObject({ name: 'ProviderError', provider, type, message });
      }
    }
  });

  it('ProviderEventStream: JSON that is neither events nor an error body, or not JSON, is still refused with a typed error', async () => {
    const cut = await events(['{"type": "message_start", "mess'], 'anthropic');
    expect(cut.error).toMatchObject({ name: 'ProviderError', type: 'invalid-stream', code: 'truncated' });
    const notJson = await events(['{\n  "type": "message_start",\n  "mess'], 'anthropic');
    expect(notJson.error).toMatchObject({ name: 'ProviderError', type: 'invalid-stream', code: 'not-json' });
    expect((notJson.error as Error).message).toBe('anthropic: expected an SSE stream, got text that is not JSON: "{ "type": "message_start", "me…"');
    const html = await events(['<html>Bad gateway</html>'], 'openai-chat');
    expect(html.error).toMatchObject({ name: 'ProviderError', type: 'invalid-stream', code: 'not-sse' });
    const events2 = await events(['{"type":"message_start","message":{"id":"m","usage":{}}}\nnot json\n'], 'anthropic');
    expect(events2.error).toMatchObject({ name: 'ProviderError', type: 'invalid-stream', code: 'not-json' });
  });

  it('ProviderEventStream: a complete (non-streaming) response says to ask for stream: true', async () => {
    const bodies: Array<[ProviderName, string]> = [
      ['anthropic', '{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"Hi"}],"stop_reason":"end_turn"}'],
      ['openai-chat', '{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}]}'],
      ['openai-responses', '{\n  "id": "resp_1",\n  "object": "response",\n  "status": "completed",\n  "output": []\n}'],
    ];
    for (const [provider, body] of bodies) {
      const { error } = await events([body], provider);
      expect(error, provider).toMatchObject({ name: 'ProviderError', type: 'invalid-stream', code: 'not-sse' });
      expect((error as Error).message).toBe(`${provider}: got a complete response, not a stream: request it with \`stream: true\``);
    }
  });
});
