/**
 * `argstream/react` in Chromium, with React 19 (the root's) and React 18 (test/frameworks/react18):
 * test/bindings/react-page.ts mounts `useTurn` with `react-dom/client` under `StrictMode` and
 * unmounts it. A `ReadableStream` source, and a `Response`'s body and its request, are cancelled
 * once, after the unmount and not at StrictMode's extra one; a new source cancels the old one; a
 * `TurnStore` given as the source is never cancelled.
 */
import { describe, expect, it } from 'vitest';
import { reactPages, VARIANTS } from './react-pages.ts';

const pages = reactPages('./react-page.ts', 'argstream/react');

interface Observed {
  react: string;
  stream: { first: string; second: string; cancelsWhileMounted: string[]; cancelsAtUnmount: string[]; cancels: string[] };
  response: { first: string; cancelsWhileMounted: string[]; abortedWhileMounted: boolean; cancels: string[]; request: string[] };
  store: { first: string; cancels: string[]; status: string; text: string };
  newSource: { first: string; second: string; oneCancels: string[]; twoCancels: string[]; twoCancelsAfterUnmount: string[] };
}

describe('argstream/react in Chromium', () => {
  for (const variant of VARIANTS) {
    it(`\`useTurn\` with ${variant.name} under StrictMode: unmount cancels a ReadableStream, a Response's body and its request, once; a new source cancels the old; a TurnStore source is never cancelled`, async (context) => {
      const page = await pages.open(variant, context);
      const result = (await page.evaluate(() => (window as unknown as { argstreamChecks(): Promise<unknown> }).argstreamChecks())) as Observed;
      expect(result.react.startsWith(variant.major)).toBe(true);
      // StrictMode's extra unmount and mount do not cut the turn; the real unmount cancels once, a macrotask later.
      expect(result.stream).toEqual({ first: 'streaming:a', second: 'streaming:ab', cancelsWhileMounted: [], cancelsAtUnmount: [], cancels: ['unmount'] });
      expect(result.response).toEqual({ first: 'streaming:a', cancelsWhileMounted: [], abortedWhileMounted: false, cancels: ['unmount'], request: ['unmount'] });
      expect(result.store).toEqual({ first: 'streaming:a', cancels: [], status: 'done', text: 'ab' });
      expect(result.newSource).toEqual({ first: 'streaming:one', second: 'streaming:two', oneCancels: ['unmount'], twoCancels: [], twoCancelsAfterUnmount: ['unmount'] });
    });
  }
});
