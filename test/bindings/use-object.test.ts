/**
 * `useObject` of `argstream/react` in Chromium, with React 19 (the root's) and React 18
 * (test/frameworks/react18): test/bindings/use-object-page.ts mounts it under `StrictMode` on a fake
 * `fetch`. A submit from a mount effect survives StrictMode's extra unmount and mount (its second
 * run stops the first before any request: one request, which ends with the object); the real
 * unmount aborts
 * the request a macrotask later; options are the latest render's; stop, a new submit, clear and an
 * invalid body do what `ObjectStore` does.
 */
import { describe, expect, it } from 'vitest';
import { reactPages, VARIANTS } from './react-pages.ts';

const pages = reactPages('./use-object-page.ts', 'useObject');

const state = (object: unknown, isLoading: boolean, error: string | null) => JSON.stringify({ object, isLoading, error });

describe('useObject (argstream/react) in Chromium', () => {
  for (const variant of VARIANTS) {
    it(`with ${variant.name} under StrictMode: a mount-time submit ends with the object, unmount aborts the request, options are the latest render's, stop / submit / clear`, async (context) => {
      const page = await pages.open(variant, context);
      const result = (await page.evaluate(() => (window as unknown as { argstreamChecks(): Promise<unknown> }).argstreamChecks())) as {
        react: string;
        submitOnMount: { loading: string; done: string; calls: Array<{ body: unknown; aborted: boolean | null }> };
        unmount: { partial: string; abortedWhileMounted: boolean; abortedAtUnmount: boolean; aborted: boolean; bodyOpen: boolean };
        latestOptions: { finished: string[]; urls: string[] };
        stopSubmitClear: { stopped: string; stoppedAborted: boolean; supersededAborted: boolean; invalid: string; cleared: string };
      };
      expect(result.react.startsWith(variant.major)).toBe(true);
      // StrictMode runs the mount effect twice, at once: the second submit stops the first before
      // its request is made; one request, which ends with the object.
      expect(result.submitOnMount).toEqual({
        loading: state(null, true, null),
        done: state({ title: 'Crêpes', steps: ['Whisk'] }, false, null),
        calls: [{ body: { dish: 'on mount' }, aborted: false }],
      });
      expect(result.unmount).toEqual({ partial: state({ title: 'Cr' }, true, null), abortedWhileMounted: false, abortedAtUnmount: false, aborted: true, bodyOpen: false });
      expect(result.latestOptions).toEqual({ finished: ['second:One', 'second:Two'], urls: ['/api/one', '/api/two'] });
      expect(result.stopSubmitClear).toEqual({
        stopped: state({ title: 'On' }, false, null),
        stoppedAborted: true,
        supersededAborted: true,
        invalid: state(null, false, 'invalid-json'),
        cleared: state(null, false, null),
      });
      expect(page.problems()).toEqual([]);
    });
  }
});
