/**
 * `argstream/gemini-interactions`: `GEMINI_INTERACTIONS_PROVIDER`, the `'gemini-interactions'`
 * provider, which reads the stream of Gemini's Interactions API (its function calls' arguments
 * arrive as `arguments_delta`). `fromResponse(response, { provider: 'gemini-interactions' })` and
 * `new ProviderEventStream({ provider: 'gemini-interactions' })` load it by name;
 * `new ProviderEventDecoder({ provider: GEMINI_INTERACTIONS_PROVIDER })` (a decoder cannot wait
 * for a module) and a program that bundles it statically import it from here.
 *
 * @example
 * ```ts
 * import { ConversationEventStream, fromResponse } from 'argstream';
 * import { GEMINI_INTERACTIONS_PROVIDER } from 'argstream/gemini-interactions';
 *
 * const response = await fetch(url, { method: 'POST', headers, body });
 * for await (const event of fromResponse(response, { provider: GEMINI_INTERACTIONS_PROVIDER }, new ConversationEventStream())) {
 *   if (event.type === 'tool-call') console.log(event.toolName, event.arguments);
 * }
 * ```
 *
 * @module
 */
export { GEMINI_INTERACTIONS_PROVIDER } from '../providers/gemini-interactions.ts';
export type { ProviderDefinition } from '../providers/adapter.ts';
