import type { ProviderAdapter } from './adapter.js';

/** Options of {@link createGeminiAdapter}. */
export interface GeminiAdapterOptions {}

/** The adapter of the `'gemini'` wire format (stub: emits nothing yet). */
export function createGeminiAdapter(_options: GeminiAdapterOptions = {}): ProviderAdapter {
  return {
    push: () => [],
    end: () => [],
  };
}
