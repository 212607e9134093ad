/**
 * The AI SDK's own structured-output route for `ai` 7, unchanged by argstream: `streamText` with
 * `output: Output.object({ schema })` and `@ai-sdk/anthropic` 4, answered with
 * `createTextStreamResponse({ stream: toTextStream({ stream: result.stream }) })` (7's form of
 * `result.toTextStreamResponse()`, deprecated there) — the JSON text of the object as the model
 * writes it, which `useObject` reads. ai-sdk-6.mjs is the same route for `ai` 6.
 *
 * This repository installs ai 7 as `ai7` and `@ai-sdk/anthropic` 4 as `ai-sdk-anthropic4`:
 * serve.mjs links this file's imports to them, and tsconfig.json type-checks it against them.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createTextStreamResponse, Output, streamText, toTextStream } from 'ai';
import { recipe } from '../schema.ts';

/**
 * The `POST /api/recipe` handler (a web `Request` in, a web `Response` out).
 * @param {import('./options.ts').RecipeServerOptions} options
 * @returns {(request: Request) => Promise<Response>}
 */
export function recipeHandler(options) {
  const anthropic = createAnthropic({ apiKey: options.apiKey ?? 'not-needed-by-the-stand-in', ...(options.fetch === undefined ? {} : { fetch: options.fetch }) });
  return async (request) => {
    const { dish } = /** @type {{ dish?: unknown }} */ (await request.json());
    if (typeof dish !== 'string' || dish.trim() === '') return new Response('Say which dish to write a recipe for.', { status: 400 });
    const result = streamText({
      model: anthropic('claude-sonnet-4-5'),
      output: Output.object({ schema: recipe }),
      prompt: `Write a short recipe for ${dish}.`,
      abortSignal: request.signal, // the page's Stop ends the model's request too
    });
    return createTextStreamResponse({ stream: toTextStream({ stream: result.stream }) });
  };
}
