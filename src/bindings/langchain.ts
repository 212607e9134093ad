/**
 * `argstream/langchain`: `LANGCHAIN_PROVIDER`, the `'langchain'` provider, which reads LangChain.js's
 * stream objects (a chat model's `AIMessageChunk`s, LangGraph's `[chunk, metadata]` tuples,
 * `streamEvents`' chat-model events). `new ProviderEventStream({ provider: 'langchain' })` loads it
 * by name; `new ProviderEventDecoder({ provider: LANGCHAIN_PROVIDER })` (a decoder cannot wait for a
 * module) and a program that bundles it statically import it from here. No LangChain package is
 * needed: its objects are read by their fields.
 *
 * @example
 * ```ts
 * import { ProviderEventStream, collectTurn, fromAsyncIterable } from 'argstream';
 * import { LANGCHAIN_PROVIDER } from 'argstream/langchain';
 *
 * const chunks = await model.stream(messages);
 * const turn = await collectTurn(fromAsyncIterable(chunks).pipeThrough(new ProviderEventStream({ provider: LANGCHAIN_PROVIDER })));
 * ```
 *
 * @module
 */
export { LANGCHAIN_PROVIDER } from '../providers/langchain.ts';
export type { ProviderDefinition } from '../providers/adapter.ts';
