/**
 * The AI SDK's own structured-output route for `ai` 6, unchanged by argstream: `streamText` with
 * `output: Output.object({ schema })` (`streamObject` is deprecated in 6) and `@ai-sdk/anthropic`
 * 3, answered with `result.toTextStreamResponse()` — the JSON text of the object as the model
 * writes it, which `useObject` reads. ai-sdk-7.mjs is the same route for `ai` 7.
 *
 * This repository installs ai 6 as `ai6` and `@ai-sdk/anthropic` 3 as `ai-sdk-anthropic3`:
 * serve.mjs links this file's imports to them, and tsconfig.ai6.json type-checks it against them.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { Output, streamText } from 'ai';
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
    return result.toTextStreamResponse();
  };
}
