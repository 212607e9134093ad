/**
 * The AI SDK's structured output (`streamText({ output: Output.object({ schema }) })`) read by
 * argstream on the server, with `ai` 6 and `ai` 7 and their own providers: a real OpenAI Chat
 * recording (`@ai-sdk/openai` 3 and 4, `.chat()`) and a written Anthropic stream
 * (`@ai-sdk/anthropic` 3 and 4) whose pieces cut inside a number, an escape and a surrogate pair.
 * Every reading ends with the AI SDK's own `await result.output`:
 *
 * - `result.textStream` through `JsonValueStream({ snapshots: true })`: the linear equivalent of
 *   `partialOutputStream` (each state a state of the final object; no number cut short, where the
 *   AI SDK's partials show one);
 * - the stream parts (`fullStream`; ai 7's `stream`) through `ProviderEventStream({ provider:
 *   'ai-sdk', structuredOutput: true })`: `collectTurn`'s `structured`, field events, path updates
 *   marked `structured`, `ArgumentValidationStream({ structured })`, `TurnStore`;
 * - the UI message stream (`toUIMessageStreamResponse()`; ai 7's `createUIMessageStreamResponse`)
 *   through `fromResponse(…, { provider: 'ai-sdk-ui', structuredOutput: true })`;
 * - the text response `useObject` reads (`toTextStreamResponse()`; ai 7's
 *   `createTextStreamResponse`) through `ObjectStore`, with `onFinish` given the schema's object.
 */
import * as ai6 from 'ai6';
import * as ai7 from 'ai7';
import { createAnthropic as createAnthropic3 } from 'ai-sdk-anthropic3';
import { createAnthropic as createAnthropic4 } from 'ai-sdk-anthropic4';
import { createOpenAI as createOpenAI3 } from 'ai-sdk-openai3';
import { createOpenAI as createOpenAI4 } from 'ai-sdk-openai4';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { anthropicRecipeEvents } from '../../examples/ai-sdk-object/model.mjs';
import { collectTurn } from '../../src/sinks/collect-turn.ts';
import { fromResponse } from '../../src/sources/response.ts';
import { ObjectStore } from '../../src/store/object-store.ts';
import { TurnStore } from '../../src/store/source-reading.ts';
import { ArgumentValidationStream } from '../../src/transforms/argument-validation-stream.ts';
import { FieldEventStream } from '../../src/transforms/field-event-stream.ts';
import { JsonValueStream } from '../../src/transforms/json-value-stream.ts';
import { PathUpdateStream } from '../../src/transforms/path-update-stream.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import type { ArgumentValidationErrorEvent, FieldDeltaEvent, PathUpdate, PipelineEvent } from '../../src/types.ts';
import { readAll, readFixture } from '../helpers.ts';
import { prefixStateMismatch } from '../store/object-helpers.ts';

const location = z.object({ city: z.string(), temperature: z.number(), units: z.enum(['c', 'f']) });
const recipe = z.object({ title: z.string(), servings: z.number(), vegetarian: z.boolean(), steps: z.array(z.string()) });

/** The document of the Anthropic stream, in pieces of 4 characters also cut after the backslash of `\"` and of `\n`, twice inside 650 and inside `true`. */
const RECIPE = { title: 'Crêpes "fines" 🥞', servings: 650, vegetarian: true, steps: ['Whisk\nthe batter.', 'Cook each crêpe.'] };
const RECIPE_TEXT = JSON.stringify(RECIPE);
const RECIPE_PIECES = ((): string[] => {
  const cuts = [RECIPE_TEXT.indexOf('\\"') + 1, RECIPE_TEXT.indexOf('650') + 1, RECIPE_TEXT.indexOf('650') + 2, RECIPE_TEXT.indexOf('\\n') + 1, RECIPE_TEXT.indexOf('tru') + 3];
  for (let i = 4; i < RECIPE_TEXT.length; i += 4) cuts.push(i);
  const sorted = [...new Set(cuts)].sort((a, b) => a - b);
  return sorted.map((cut, i) => RECIPE_TEXT.slice(sorted[i - 1] ?? 0, cut)).concat(RECIPE_TEXT.slice(sorted.at(-1)));
})();

/** A `fetch` that answers every request with `body` as SSE. */
const sseFetch = (body: () => string | Uint8Array): typeof fetch => (async () => new Response(body() as BodyInit, { headers: { 'content-type': 'text/event-stream' } })) as unknown as typeof fetch;

interface Sdk {
  readonly major: 6 | 7;
  readonly streamText: typeof ai7.streamText;
  readonly Output: typeof ai7.Output;
  /** The part stream: ai 7's `stream` (`fullStream` is its deprecated alias), ai 6's `fullStream`. */
  parts(result: ReturnType<typeof ai7.streamText>): ReadableStream<unknown>;
  /** The UI message stream response of the major's current API. */
  uiResponse(result: ReturnType<typeof ai7.streamText>): Response;
  /** The text stream response `useObject` reads, in the major's current API. */
  textResponse(result: ReturnType<typeof ai7.streamText>): Response;
  readonly models: Record<'openai-chat' | 'anthropic', () => unknown>;
}

const OPENAI_RECORDING = (): Uint8Array => readFixture('providers/openai-chat/structured-output-json-schema.sse');
const ANTHROPIC_RECIPE = (): string => anthropicRecipeEvents(RECIPE_TEXT, RECIPE_PIECES).join('');

const SDKS: readonly Sdk[] = [
  {
    major: 6,
    streamText: ai6.streamText as unknown as typeof ai7.streamText,
    Output: ai6.Output as unknown as typeof ai7.Output,
    parts: (result) => (result as unknown as { fullStream: ReadableStream<unknown> }).fullStream,
    uiResponse: (result) => (result as unknown as { toUIMessageStreamResponse(): Response }).toUIMessageStreamResponse(),
    textResponse: (result) => result.toTextStreamResponse(),
    models: {
      'openai-chat': () => createOpenAI3({ apiKey: 'replay', fetch: sseFetch(OPENAI_RECORDING) }).chat('gpt-4o-2024-08-06'),
      anthropic: () => createAnthropic3({ apiKey: 'replay', fetch: sseFetch(ANTHROPIC_RECIPE) })('claude-sonnet-4-5'),
    },
  },
  {
    major: 7,
    streamText: ai7.streamText,
    Output: ai7.Output,
    parts: (result) => result.stream,
    uiResponse: (result) => ai7.createUIMessageStreamResponse({ stream: ai7.toUIMessageStream({ stream: result.stream }) }),
    textResponse: (result) => ai7.createTextStreamResponse({ stream: ai7.toTextStream({ stream: result.stream }) }),
    models: {
      'openai-chat': () => createOpenAI4({ apiKey: 'replay', fetch: sseFetch(OPENAI_RECORDING) }).chat('gpt-4o-2024-08-06'),
      anthropic: () => createAnthropic4({ apiKey: 'replay', fetch: sseFetch(ANTHROPIC_RECIPE) })('claude-sonnet-4-5'),
    },
  },
];

const CASES = [
  { model: 'openai-chat', schema: location, document: { city: 'San Francisco', temperature: 68, units: 'f' }, field: 'city' },
  { model: 'anthropic', schema: recipe, document: RECIPE, field: 'title' },
] as const;

for (const sdk of SDKS) {
  for (const c of CASES) {
    describe(`ai ${sdk.major}: streamText with Output.object, ${c.model}`, () => {
      const run = () => sdk.streamText({ model: sdk.models[c.model]() as never, prompt: 'hi', output: sdk.Output.object({ schema: c.schema }), maxRetries: 0 });

      it('textStream through JsonValueStream: every snapshot a state of the final object, which is the AI SDK’s own output', async () => {
        const result = run();
        const snapshots = await readAll(result.textStream.pipeThrough(new JsonValueStream({ snapshots: true, immutableSnapshots: true })));
        const output = await result.output;
        expect(output).toEqual(c.document);
        expect(snapshots.at(-1)).toEqual({ value: output, complete: true });
        expect(snapshots.filter((snapshot) => snapshot.complete)).toHaveLength(1);
        for (const { value } of snapshots) expect(prefixStateMismatch(value, output)).toBeUndefined();
      });

      it('partialOutputStream, the AI SDK’s own, for comparison: the same final object; with the Anthropic stream, a number cut short on the way', async () => {
        const partials: unknown[] = [];
        for await (const partial of run().partialOutputStream) partials.push(partial);
        expect(partials.at(-1)).toEqual(c.document);
        if (c.model === 'anthropic') expect(partials.some((partial) => (partial as { servings?: number }).servings === 6)).toBe(true);
      });

      it('the stream parts through ProviderEventStream({ provider: "ai-sdk", structuredOutput: true }): collectTurn, TurnStore', async () => {
        const result = run();
        const [forTurn, forStore] = sdk.parts(result).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk', structuredOutput: true })).tee();
        const store = new TurnStore({ schedule: 'sync' });
        const [turn, snapshot] = await Promise.all([collectTurn(forTurn), store.consume(forStore)]);
        expect(turn.structured).toEqual(await result.output);
        expect(turn.text).toBe('');
        expect(turn.finishReason).toBe('stop');
        expect(snapshot.status).toBe('done');
        expect(snapshot.structured).toEqual(c.document);
      });

      it('the stream parts: field events, path updates marked structured, validation against the schema', async () => {
        const events = await readAll(
          sdk
            .parts(run())
            .pipeThrough(new ProviderEventStream({ provider: 'ai-sdk', structuredOutput: true }))
            .pipeThrough(new ArgumentValidationStream({ structured: z.object({ [c.field]: z.number() }) }))
            .pipeThrough(new FieldEventStream())
            .pipeThrough(new PathUpdateStream()),
        );
        const fields = events.filter((event): event is FieldDeltaEvent => event.type === 'field-delta' && event.key === c.field);
        expect(fields.map((event) => event.text).join('')).toBe((c.document as Record<string, unknown>)[c.field]);
        const updates = events.filter((event): event is PathUpdate => event.type === 'path-update');
        expect(updates.every((update) => update.structured === true)).toBe(true);
        expect(updates.at(-1)).toMatchObject({ kind: 'json-complete' });
        // The schema says the field is a number: reported as the field completes, before the document.
        const invalid = events.findIndex((event) => event.type === 'validation-error');
        const structured = events.findIndex((event) => event.type === 'structured');
        expect(invalid).toBeGreaterThanOrEqual(0);
        expect(invalid).toBeLessThan(structured);
        expect(events[invalid] as ArgumentValidationErrorEvent).toMatchObject({ structured: true, path: `/${c.field}` });
        expect((events[structured] as PipelineEvent & { data: unknown }).data).toEqual(c.document);
      });

      it('the UI message stream through fromResponse({ provider: "ai-sdk-ui", structuredOutput: true })', async () => {
        const turn = await collectTurn(fromResponse(sdk.uiResponse(run()), { provider: 'ai-sdk-ui', structuredOutput: true }));
        expect(turn.structured).toEqual(c.document);
        expect(turn.text).toBe('');
      });

      it('the text response useObject reads, through ObjectStore: the object, and onFinish with the schema’s', async () => {
        const finishes: unknown[] = [];
        const response = sdk.textResponse(run());
        expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
        const store = new ObjectStore({ api: '/api/object', schema: c.schema, fetch: async () => response, onFinish: (event) => void finishes.push(event) });
        await store.submit({ prompt: 'hi' });
        expect(store.getSnapshot()).toEqual({ object: c.document, isLoading: false, error: undefined });
        expect(finishes).toEqual([{ object: c.document, error: undefined }]);
      });
    });
  }
}
