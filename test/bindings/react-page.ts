/**
 * The page of test/bindings/react.test.ts, bundled with React 19 or 18 (development builds) and
 * run in Chromium: `useTurn` in components mounted with `react-dom/client` under `StrictMode`,
 * then unmounted. It records what happened to each source; the test asserts on it.
 */
import { StrictMode, createElement as h, type ReactElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { flushSync } from 'react-dom';
import { useTurn, type TurnSource, type TurnSourceOptions } from '../../src/bindings/react.ts';
import { TurnStore } from '../../src/index.ts';
import { fedSource, isUnmountReason, message, NDJSON, ndjsonLine, settled } from './sources.ts';

function Turn({ source, options }: { source: TurnSource; options?: TurnSourceOptions }): ReactElement {
  const turn = useTurn(source, options);
  return h('p', { id: 'turn' }, `${turn.status}:${turn.text}`);
}

function mount(element: ReactElement): { root: Root; shown: () => string } {
  const container = document.createElement('div');
  document.body.append(container);
  const root = createRoot(container);
  flushSync(() => root.render(h(StrictMode, null, element)));
  return { root, shown: () => container.textContent ?? '' };
}

/** Wait until the page shows `text` (or give up after 5 s and say what it shows). */
async function until(shown: () => string, text: string): Promise<string> {
  const deadline = Date.now() + 5000;
  while (shown() !== text && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  return shown();
}

/** What a cancel reason was, as JSON can say it. */
const reasons = (list: readonly unknown[]) => list.map((reason) => (isUnmountReason(reason) ? 'unmount' : String(reason)));

async function streamSource() {
  const source = fedSource([message('a')]);
  const { root, shown } = mount(h(Turn, { source: source.stream, options: { schedule: 'sync' } }));
  const first = await until(shown, 'streaming:a');
  await settled();
  const cancelsWhileMounted = reasons(source.cancels);
  source.push(message('b'));
  const second = await until(shown, 'streaming:ab');
  root.unmount();
  const cancelsAtUnmount = reasons(source.cancels);
  await settled();
  return { first, second, cancelsWhileMounted, cancelsAtUnmount, cancels: reasons(source.cancels) };
}

async function responseSource() {
  const source = fedSource([ndjsonLine(message('a'))]);
  const request = new AbortController();
  const response = new Response(source.stream, { headers: NDJSON });
  const { root, shown } = mount(h(Turn, { source: response, options: { schedule: 'sync', request } }));
  const first = await until(shown, 'streaming:a');
  await settled();
  const cancelsWhileMounted = reasons(source.cancels);
  const abortedWhileMounted = request.signal.aborted;
  root.unmount();
  await settled();
  return { first, cancelsWhileMounted, abortedWhileMounted, cancels: reasons(source.cancels), request: request.signal.aborted ? reasons([request.signal.reason]) : [] };
}

async function storeSource() {
  const source = fedSource([message('a')]);
  const store = new TurnStore({ schedule: 'sync' });
  const consumed = store.consume(source.stream);
  const { root, shown } = mount(h(Turn, { source: store }));
  const first = await until(shown, 'streaming:a');
  root.unmount();
  await settled();
  const cancels = reasons(source.cancels);
  source.push(message('b'));
  source.close();
  const final = await consumed;
  return { first, cancels, status: final.status, text: final.text };
}

async function newSource() {
  const one = fedSource([message('one')]);
  const two = fedSource([message('two')]);
  const container = document.createElement('div');
  document.body.append(container);
  const root = createRoot(container);
  const shown = () => container.textContent ?? '';
  flushSync(() => root.render(h(StrictMode, null, h(Turn, { source: one.stream, options: { schedule: 'sync' } }))));
  const first = await until(shown, 'streaming:one');
  flushSync(() => root.render(h(StrictMode, null, h(Turn, { source: two.stream, options: { schedule: 'sync' } }))));
  const second = await until(shown, 'streaming:two');
  await settled();
  const result = { first, second, oneCancels: reasons(one.cancels), twoCancels: reasons(two.cancels) };
  root.unmount();
  await settled();
  return { ...result, twoCancelsAfterUnmount: reasons(two.cancels) };
}

async function checks() {
  const { version } = await import('react');
  return {
    react: version,
    stream: await streamSource(),
    response: await responseSource(),
    store: await storeSource(),
    newSource: await newSource(),
  };
}

(window as unknown as { argstreamChecks: typeof checks }).argstreamChecks = checks;
