import type { ProviderAdapter } from './adapter.js';

/** Options of {@link createOllamaAdapter}. */
export interface OllamaAdapterOptions {}

/** The adapter of the `'ollama'` wire format (stub: emits nothing yet). */
export function createOllamaAdapter(_options: OllamaAdapterOptions = {}): ProviderAdapter {
  return {
    push: () => [],
    end: () => [],
  };
}
