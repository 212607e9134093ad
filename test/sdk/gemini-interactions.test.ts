/**
 * The Google Gen AI SDK's Interactions client (`@google/genai`, `interactions.create({ stream:
 * true })`) against the replay server serving each `gemini-interactions` recording on
 * `POST /v1beta/interactions`: the objects it yields go to argstream (`fromAsyncIterable` →
 * `ProviderEventStream`), and the turn must be the MANIFEST's and the same as from the bytes
 * (`fetch` → `fromResponse`). What the SDK leaves to its caller — the text of the `text` deltas,
 * the argument text of the `arguments_delta`s joined and parsed at the end — is compared too.
 */
import { GoogleGenAI } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/errors.ts';
import { collectTurn } from '../../src/sinks/collect-turn.ts';
import { fromAsyncIterable } from '../../src/sources/iterable.ts';
import { fromResponse } from '../../src/sources/response.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import { manifestRecordings } from '../manifest.ts';
import { expectedArguments, manifestError } from '../providers/event-stream-helpers.ts';
import { closeServersAfterEach, replay, turnCalls } from './replay.ts';

closeServersAfterEach();

type SdkEvent = { event_type?: string; index?: number; step?: { type?: string; id?: string; name?: string }; delta?: { type?: string; text?: string; arguments?: string } };

async function sdkStream(baseUrl: string): Promise<AsyncIterable<SdkEvent>> {
  const ai = new GoogleGenAI({ apiKey: 'replay-key', httpOptions: { baseUrl } });
  return (await ai.interactions.create({ model: 'gemini-3-flash-preview', input: 'hi', stream: true })) as unknown as AsyncIterable<SdkEvent>;
}

describe('@google/genai interactions.create({ stream: true }) against the replay server', () => {
  const recordings = manifestRecordings('gemini-interactions');
  it.each(recordings.map((recording) => [recording.file, recording] as const))('%s', async (file, recording) => {
    const server = await replay(file, 'gemini-interactions');
    const fetched = await fetch(`${server.url}/v1beta/interactions`, { method: 'POST', body: '{}' });
    const fromBytes = collectTurn(fromResponse(fetched, { provider: 'gemini-interactions' })).then(
      (turn) => ({ turn }),
      (error: unknown) => ({ error }),
    );
    const sdk = collectTurn(fromAsyncIterable(await sdkStream(server.url)).pipeThrough(new ProviderEventStream({ provider: 'gemini-interactions' }))).then(
      (turn) => ({ turn }),
      (error: unknown) => ({ error }),
    );
    const [bytes, objects] = await Promise.all([fromBytes, sdk]);
    if (recording.errors !== undefined) {
      for (const result of [bytes, objects]) {
        expect('error' in result && result.error).toBeInstanceOf(ProviderError);
        expect('error' in result && result.error).toMatchObject({ provider: 'gemini-interactions', message: manifestError(recording.errors).message });
      }
      return;
    }
    if (!('turn' in bytes) || !('turn' in objects)) throw new Error('a turn was expected');
    const complete = recording.toolCalls.filter((c) => !c.remark?.startsWith('NOT valid JSON'));
    expect(turnCalls(objects.turn)).toEqual(complete.map((c) => ({ id: c.id, name: c.name, arguments: expectedArguments(c.args) })));
    expect(turnCalls(bytes.turn)).toEqual(turnCalls(objects.turn));
    expect(bytes.turn.text).toBe(objects.turn.text);
    expect(bytes.turn.rawFinishReason).toBe(JSON.parse(recording.finish));

    // What a caller of the SDK does by hand: the text deltas joined, each call's argument text joined and parsed once at its end
    // (the earlier revision sends no argument text: its calls come whole).
    if (file.includes('earlier-revision')) return;
    const text: string[] = [];
    const calls = new Map<number, { id: string; name: string; text: string }>();
    for await (const event of await sdkStream(server.url)) {
      if (event.event_type === 'step.start' && event.step?.type === 'function_call') calls.set(event.index ?? -1, { id: event.step.id ?? '', name: event.step.name ?? '', text: '' });
      if (event.event_type === 'step.delta' && event.delta?.type === 'text') text.push(event.delta.text ?? '');
      if (event.event_type === 'step.delta' && event.delta?.type === 'arguments_delta') {
        const call = calls.get(event.index ?? -1);
        if (call !== undefined) call.text += event.delta.arguments ?? '';
      }
    }
    expect(objects.turn.text).toBe(text.join(''));
    const byHand = [...calls.values()].filter((call) => !recording.toolCalls.find((c) => c.id === call.id)?.remark?.startsWith('NOT valid JSON'));
    expect(turnCalls(objects.turn)).toEqual(byHand.map((call) => ({ id: call.id, name: call.name, arguments: call.text === '' ? {} : (JSON.parse(call.text) as unknown) })));
  });
});
