/**
 * The page of test/bindings/use-object.test.ts, bundled with React 19 or 18 (development builds)
 * and run in Chromium: argstream's `useObject` in components mounted with `react-dom/client` under
 * `StrictMode`, on a fake `fetch` whose bodies the page feeds. It records what happened to each
 * request; the test asserts on it.
 */
import { StrictMode, createElement as h, useEffect, type ReactElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { flushSync } from 'react-dom';
import * as z from 'zod';
import { useObject, type UseObjectHelpers, type UseObjectOptions } from '../../src/bindings/react.ts';
import { fakeFetch, fedBody, type FedBody } from '../store/object-helpers.ts';
import { settled } from './sources.ts';

const schema = z.object({ title: z.string(), steps: z.array(z.string()) });
type Helpers = UseObjectHelpers<z.infer<typeof schema>, { dish: string }>;
type Options = Omit<UseObjectOptions<typeof schema>, 'schema'>;

/** A fake fetch that answers each request with a new body the page feeds. */
function server() {
  const bodies: FedBody[] = [];
  const fetch = fakeFetch(() => {
    const body = fedBody();
    bodies.push(body);
    return new Response(body.stream, { headers: { 'content-type': 'text/plain; charset=utf-8' } });
  });
  return { fetch, bodies };
}

/** Shows the hook's state as JSON, and hands its helpers to the test. */
function Recipe({ options, helpers, submitOnMount }: { options: Options; helpers: { current?: Helpers }; submitOnMount?: boolean }): ReactElement {
  const result = useObject<typeof schema, z.infer<typeof schema>, { dish: string }>({ ...options, schema });
  helpers.current = result;
  useEffect(() => {
    if (submitOnMount === true) result.submit({ dish: 'on mount' });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per mount, as an application writes it
  }, []);
  return h('pre', null, JSON.stringify({ object: result.object ?? null, isLoading: result.isLoading, error: result.error?.code ?? null }));
}

function mount(element: ReactElement): { root: Root; shown: () => string; render: (element: ReactElement) => void } {
  const container = document.createElement('div');
  document.body.append(container);
  const root = createRoot(container);
  const render = (next: ReactElement) => flushSync(() => root.render(h(StrictMode, null, next)));
  render(element);
  return { root, render, shown: () => container.textContent ?? '' };
}

/** Wait until the page shows `state` (or give up after 5 s and say what it shows). */
async function until(shown: () => string, state: object): Promise<string> {
  const text = JSON.stringify(state);
  const deadline = Date.now() + 5000;
  while (shown() !== text && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  return shown();
}

/** A submit from a mount effect: StrictMode's extra unmount and mount do not leave it stopped. */
async function submitOnMount() {
  const { fetch, bodies } = server();
  const { root, shown } = mount(h(Recipe, { options: { api: '/api/recipe', fetch, schedule: 'sync' }, helpers: {}, submitOnMount: true }));
  const loading = await until(shown, { object: null, isLoading: true, error: null });
  await settled();
  const last = bodies.at(-1)!;
  last.push('{"title":"Crêpes","steps":["Whisk"]}');
  last.close();
  const done = await until(shown, { object: { title: 'Crêpes', steps: ['Whisk'] }, isLoading: false, error: null });
  const calls = fetch.calls.map((call) => ({ body: call.body, aborted: call.init.signal?.aborted ?? null }));
  root.unmount();
  return { loading, done, calls };
}

/** The component goes away: its request ends a macrotask later (not at StrictMode's extra unmount). */
async function unmount() {
  const { fetch, bodies } = server();
  const helpers: { current?: Helpers } = {};
  const { root, shown } = mount(h(Recipe, { options: { api: '/api/recipe', fetch, schedule: 'sync' }, helpers }));
  helpers.current!.submit({ dish: 'crêpes' });
  await until(shown, { object: null, isLoading: true, error: null });
  await settled();
  bodies[0]!.push('{"title":"Cr');
  const partial = await until(shown, { object: { title: 'Cr' }, isLoading: true, error: null });
  const abortedWhileMounted = fetch.calls[0]!.init.signal!.aborted;
  root.unmount();
  const abortedAtUnmount = fetch.calls[0]!.init.signal!.aborted;
  await settled();
  return { partial, abortedWhileMounted, abortedAtUnmount, aborted: fetch.calls[0]!.init.signal!.aborted, bodyOpen: bodies[0]!.open };
}

/** Options are the latest render's: `onFinish` given after the submit is the one called; `api` at the next submit. */
async function latestOptions() {
  const { fetch, bodies } = server();
  const helpers: { current?: Helpers } = {};
  const finished: string[] = [];
  const options = (name: string, api: string): Options => ({ api, fetch, schedule: 'sync', onFinish: ({ object }) => void finished.push(`${name}:${object?.title}`) });
  const { root, render, shown } = mount(h(Recipe, { options: options('first', '/api/one'), helpers }));
  helpers.current!.submit({ dish: 'one' });
  await until(shown, { object: null, isLoading: true, error: null });
  render(h(Recipe, { options: options('second', '/api/two'), helpers }));
  await settled();
  bodies[0]!.push('{"title":"One","steps":[]}');
  bodies[0]!.close();
  await until(shown, { object: { title: 'One', steps: [] }, isLoading: false, error: null });
  await settled();
  helpers.current!.submit({ dish: 'two' });
  await until(shown, { object: null, isLoading: true, error: null });
  await settled();
  bodies[1]!.push('{"title":"Two","steps":[]}');
  bodies[1]!.close();
  await until(shown, { object: { title: 'Two', steps: [] }, isLoading: false, error: null });
  await settled();
  root.unmount();
  return { finished, urls: fetch.calls.map((call) => call.url) };
}

/** stop keeps the object, a new submit stops the one before it, clear forgets; an invalid body shows its code. */
async function stopSubmitClear() {
  const { fetch, bodies } = server();
  const helpers: { current?: Helpers } = {};
  const { root, shown } = mount(h(Recipe, { options: { api: '/api/recipe', fetch, schedule: 'sync' }, helpers }));
  helpers.current!.submit({ dish: 'one' });
  await settled();
  bodies[0]!.push('{"title":"On');
  await until(shown, { object: { title: 'On' }, isLoading: true, error: null });
  helpers.current!.stop();
  const stopped = await until(shown, { object: { title: 'On' }, isLoading: false, error: null });
  await settled();
  const stoppedAborted = fetch.calls[0]!.init.signal!.aborted;
  helpers.current!.submit({ dish: 'two' });
  await settled();
  bodies[1]!.push('{"title":"Tw');
  await until(shown, { object: { title: 'Tw' }, isLoading: true, error: null });
  helpers.current!.submit({ dish: 'three' });
  await settled();
  const supersededAborted = fetch.calls[1]!.init.signal!.aborted;
  bodies[2]!.push('<html>');
  const invalid = await until(shown, { object: null, isLoading: false, error: 'invalid-json' });
  helpers.current!.clear();
  const cleared = await until(shown, { object: null, isLoading: false, error: null });
  root.unmount();
  return { stopped, stoppedAborted, supersededAborted, invalid, cleared };
}

async function checks() {
  const { version } = await import('react');
  return { react: version, submitOnMount: await submitOnMount(), unmount: await unmount(), latestOptions: await latestOptions(), stopSubmitClear: await stopSubmitClear() };
}

(window as unknown as { argstreamChecks: typeof checks }).argstreamChecks = checks;
