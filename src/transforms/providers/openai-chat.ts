import type { ProviderAdapter } from './adapter.js';

/** Options of {@link createOpenAIChatAdapter}. */
export interface OpenAIChatAdapterOptions {}

/** The adapter of the `'openai-chat'` wire format (stub: emits nothing yet). */
export function createOpenAIChatAdapter(_options: OpenAIChatAdapterOptions = {}): ProviderAdapter {
  return {
    push: () => [],
    end: () => [],
  };
}
