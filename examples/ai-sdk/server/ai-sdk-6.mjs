// @ts-check
/**
 * The AI SDK's own chat server for `ai` 6, unchanged by argstream: `streamText` with
 * `@ai-sdk/anthropic` (3), answered with `result.toUIMessageStreamResponse()` — the route handler
 * of ai 6's chatbot guide (`convertToModelMessages` is asynchronous from ai 6 on). The page in
 * front of it (argstream-client/) is what argstream changes. ai-sdk-5.mjs and ai-sdk-7.mjs are
 * the same server for ai 5 and ai 7.
 *
 * This repository installs ai 6 as `ai6` and `@ai-sdk/anthropic` 3 as `ai-sdk-anthropic3`:
 * serve.mjs links this file's `ai` and `@ai-sdk/anthropic` to them, and `tsconfig.ai6.json`
 * type-checks it against them (not the repository's tsconfig, for which `ai` is ai 5).
 *
 * The `write_file` tool has no `execute`: the page runs it (its Save button) and sends the result
 * back with `addToolOutput`; the next request's messages carry it, and the model answers it.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { convertToModelMessages, jsonSchema, streamText, tool } from 'ai';
import * as z from 'zod';

/**
 * The `POST /api/chat` handler (a web `Request` in, a web `Response` out).
 * @param {import('./options.ts').AiSdkServerOptions} options
 * @returns {(request: Request) => Promise<Response>}
 */
export function aiSdkChatHandler(options) {
  const anthropic = createAnthropic({ apiKey: options.apiKey ?? 'not-needed-by-the-recording', ...(options.fetch === undefined ? {} : { fetch: options.fetch }) });
  const tools = {
    write_file: tool({
      description: 'Write a text file in the project, replacing it if it exists.',
      inputSchema: z.object({ path: z.string().describe('the path, from the project root'), content: z.string().describe("the file's whole content") }),
    }),
    ...Object.fromEntries(Object.entries(options.moreTools ?? {}).map(([name, schema]) => [name, tool({ inputSchema: jsonSchema(schema) })])),
  };
  return async (request) => {
    const { messages } = await request.json();
    const result = streamText({
      model: anthropic('claude-sonnet-4-5'),
      system: 'You write files with the write_file tool.',
      messages: await convertToModelMessages(messages),
      tools,
      maxOutputTokens: 8192,
    });
    return result.toUIMessageStreamResponse({ originalMessages: messages, onError: (error) => (error instanceof Error ? error.message : String(error)) });
  };
}
