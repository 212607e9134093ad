// @ts-check
/**
 * The AI SDK's own chat server for `ai` 5, unchanged by argstream: `streamText` with
 * `@ai-sdk/anthropic` (2), answered with `result.toUIMessageStreamResponse()` — the route handler
 * of ai 5's chatbot guide. The page in front of it (argstream-client/) is what argstream changes.
 * ai-sdk-7.mjs is the same server as ai 7 writes it.
 *
 * The `write_file` tool has no `execute`: the page runs it (its Save button) and sends the result
 * back with `addToolResult`; the next request's messages carry it, and the model answers it.
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
      messages: convertToModelMessages(messages),
      tools,
      maxOutputTokens: 8192,
    });
    return result.toUIMessageStreamResponse({ originalMessages: messages, onError: (error) => (error instanceof Error ? error.message : String(error)) });
  };
}
