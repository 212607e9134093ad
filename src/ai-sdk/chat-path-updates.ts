/**
 * What `ArgstreamChatTransport` reads an argstream server's path updates with (`toolInputs:
 * 'path-updates'`: transient `data-argstream-tool-input` chunks): their checks, their events for
 * the store, and the store's reader of them with its reading of a call's input from fragments
 * (the calls of a response without them stream as raw text, which the store parses without
 * fragments). A chunk of its own, which the transport loads with the first response that sends
 * one: a server sends them only when asked. Internal.
 *
 * @module
 */
import { ProviderError } from '../errors.ts';
import { TOOL_INPUT_UPDATES } from '../providers/ai-sdk-ui.ts';
import { isRecord } from '../providers/json-access.ts';
import type { PathUpdate, PipelineEvent } from '../types.ts';

export { readFragments } from '../store/fragment-input.ts';
export { newPathUpdateFragments } from '../store/fragments.ts';

/**
 * The store's events of a chunk of path updates: each update with the call's id.
 * @throws {ProviderError} type `'invalid-format'` for a chunk without its `toolCallId` and a list of updates (objects).
 */
export function updateEvents(chunk: Readonly<Record<string, unknown>>): PipelineEvent[] {
  const data = chunk['data'];
  if (!isRecord(data) || typeof data['toolCallId'] !== 'string' || !Array.isArray(data['updates']) || !data['updates'].every(isRecord)) {
    throw new ProviderError('ai-sdk-ui', 'invalid-format', `ai-sdk-ui: a ${TOOL_INPUT_UPDATES} chunk without its toolCallId and updates`, { cause: chunk });
  }
  const { toolCallId, updates } = data as unknown as { toolCallId: string; updates: readonly PathUpdate[] };
  return updates.map((update) => ({ ...update, toolCallId }));
}

/** A chunk of path updates after the end of the message: nothing is added to a finished turn. */
export function updatesAfterEnd(chunk: Readonly<Record<string, unknown>>): ProviderError {
  return new ProviderError('ai-sdk-ui', 'after-end', `ai-sdk-ui: a "${TOOL_INPUT_UPDATES}" record came after the end of the stream ("finish"); nothing is added to a finished turn`, { cause: chunk });
}
