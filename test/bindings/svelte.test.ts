/**
 * `argstream/svelte`: `turnStore` keeps Svelte's store contract, checked with the `svelte/store` of
 * Svelte 5 (the root's) and of Svelte 3 and 4 (test/frameworks/svelte3-4, installed by `npm test`'s
 * pretest), and in a component compiled by Svelte 3's and 4's own compilers (`$turn`, rendered on
 * the server). The source is read from the first subscription and cancelled a macrotask after the
 * last one leaves — a `ReadableStream`, a `Response` (and its request) — while a `TurnStore` given
 * as the source is never cancelled.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as svelte5 from 'svelte/store';
import { afterAll, describe, expect, it } from 'vitest';
import { turnStore, type TurnReadable } from '../../src/bindings/svelte.ts';
import { TurnStore, type TurnSnapshot } from '../../src/index.ts';
import { fedSource, IN_CI, isUnmountReason, macrotask, message, NDJSON, ndjsonLine, settled } from './sources.ts';

const LEGACY = fileURLToPath(new URL('../frameworks/svelte3-4/node_modules/', import.meta.url));

/** What the tests use of a Svelte's `svelte/store`. */
interface SvelteStore {
  get<T>(store: { subscribe(run: (value: T) => void): () => void }): T;
  derived<S, T>(store: { subscribe(run: (value: S) => void): () => void }, fn: (value: S) => T): { subscribe(run: (value: T) => void): () => void };
}

interface Version {
  readonly name: string;
  /** The installed package's version must start with it. */
  readonly major: string;
  readonly dir: string | undefined;
  readonly store: string;
  readonly compiler?: string;
  readonly internal?: string;
}

const VERSIONS: readonly Version[] = [
  { name: 'Svelte 5', major: '5.', dir: undefined, store: 'svelte/store' },
  {
    name: 'Svelte 4',
    major: '4.',
    dir: `${LEGACY}svelte4/`,
    store: `${LEGACY}svelte4/src/runtime/store/index.js`,
    compiler: `${LEGACY}svelte4/src/compiler/index.js`,
    internal: `${LEGACY}svelte4/src/runtime/internal/index.js`,
  },
  {
    name: 'Svelte 3',
    major: '3.',
    dir: `${LEGACY}svelte3/`,
    store: `${LEGACY}svelte3/store/index.mjs`,
    compiler: `${LEGACY}svelte3/compiler.mjs`,
    internal: `${LEGACY}svelte3/internal/index.mjs`,
  },
];

/** Why a Svelte of test/frameworks/svelte3-4 is not there, or `undefined`. */
function missing(version: Version): string | undefined {
  if (version.dir === undefined) return undefined;
  if (existsSync(`${version.dir}package.json`) && existsSync(version.store)) return undefined;
  return `${version.name} is missing from test/frameworks/svelte3-4/node_modules: run \`npm test\` (it installs it) or \`node test/frameworks/install.mjs\``;
}

/** The version's `svelte/store`, or the test skipped saying what to install (failed in CI). */
async function storeOf(version: Version, context: { skip(note?: string): void }): Promise<SvelteStore> {
  const why = missing(version);
  if (why !== undefined) {
    if (IN_CI) throw new Error(why);
    context.skip(why);
  }
  if (version.dir === undefined) return svelte5 as unknown as SvelteStore;
  const { createRequire } = await import('node:module');
  const installed = createRequire(import.meta.url)(`${version.dir}package.json`) as { version: string };
  expect(installed.version.startsWith(version.major)).toBe(true);
  return (await import(/* @vite-ignore */ pathToFileURL(version.store).href)) as SvelteStore;
}

const COMPONENT = `<script>
  export let turn;
</script>
<p>{$turn.status}: {$turn.text}</p>
{#each $turn.calls as call (call.toolCallId)}<i>{call.toolName}</i>{/each}
`;

const temporary = mkdtempSync(join(tmpdir(), 'argstream-svelte-'));
afterAll(() => rmSync(temporary, { recursive: true, force: true }));

/** The component compiled for the server by `version`'s own compiler: `render(props) → { html }`. */
async function componentOf(version: Version): Promise<{ render(props: object): { html: string } }> {
  const { compile } = (await import(/* @vite-ignore */ pathToFileURL(version.compiler as string).href)) as {
    compile(source: string, options: object): { js: { code: string } };
  };
  const code = compile(COMPONENT, { generate: 'ssr', format: 'esm' }).js.code.replace('from "svelte/internal"', `from ${JSON.stringify(pathToFileURL(version.internal as string).href)}`);
  const file = join(temporary, `${version.name.replace(' ', '')}.mjs`);
  writeFileSync(file, code);
  return ((await import(/* @vite-ignore */ pathToFileURL(file).href)) as { default: { render(props: object): { html: string } } }).default;
}

for (const version of VERSIONS) {
  describe(`argstream/svelte with ${version.name}`, () => {
    it(`\`turnStore\` with ${version.name}'s svelte/store: get gives the snapshot, derived follows the turn, the last unsubscribe cancels the stream a macrotask later`, async (context) => {
      const { get, derived } = await storeOf(version, context);
      const source = fedSource([message('a')]);
      const turn = turnStore(source.stream, { schedule: 'sync' });
      const texts: string[] = [];
      const unsubscribe = derived(turn, (snapshot: TurnSnapshot) => snapshot.text).subscribe((text) => texts.push(text));
      await settled();
      expect(get(turn)).toMatchObject({ status: 'streaming', text: 'a' });
      source.push(message('b'));
      await settled();
      expect(texts).toEqual(['', 'a', 'ab']);
      expect(source.cancels).toEqual([]);
      unsubscribe();
      expect(source.cancels).toEqual([]);
      await settled();
      expect(source.cancels).toHaveLength(1);
      expect(isUnmountReason(source.cancels[0])).toBe(true);
    });

    it(`\`turnStore\` with ${version.name}: a subscriber back within the macrotask keeps the stream; one of two leaving cancels nothing`, async (context) => {
      const { derived } = await storeOf(version, context);
      const source = fedSource([message('a')]);
      const turn = turnStore(source.stream, { schedule: 'sync' });
      const first = turn.subscribe(() => undefined);
      const status = derived(turn, (snapshot: TurnSnapshot) => snapshot.status);
      const second = status.subscribe(() => undefined);
      first();
      await settled();
      expect(source.cancels).toEqual([]);
      second();
      const again = turn.subscribe(() => undefined);
      await settled();
      expect(source.cancels).toEqual([]);
      source.push(message('b'));
      await settled();
      let shown: TurnSnapshot | undefined;
      turn.subscribe((snapshot) => (shown = snapshot))();
      expect(shown?.text).toBe('ab');
      again();
      await settled();
      expect(source.cancels).toHaveLength(1);
    });

    it(`\`turnStore\` with ${version.name} of a Response: the last unsubscribe cancels its body and aborts the request given`, async (context) => {
      const { get, derived } = await storeOf(version, context);
      const source = fedSource([ndjsonLine(message('a'))]);
      const request = new AbortController();
      const turn = turnStore(new Response(source.stream, { headers: NDJSON }), { schedule: 'sync', request });
      const unsubscribe = derived(turn, (snapshot: TurnSnapshot) => snapshot.text).subscribe(() => undefined);
      await settled();
      expect(get(turn)).toMatchObject({ status: 'streaming', text: 'a' });
      unsubscribe();
      await settled();
      expect(isUnmountReason(request.signal.reason)).toBe(true);
      expect(source.cancels).toHaveLength(1);
      expect(isUnmountReason(source.cancels[0])).toBe(true);
    });

    it(`\`turnStore\` with ${version.name} of a TurnStore shows it, and its last unsubscribe neither cancels what fills it nor ends it`, async (context) => {
      const { get, derived } = await storeOf(version, context);
      const source = fedSource([message('a')]);
      const store = new TurnStore({ schedule: 'sync' });
      const consumed = store.consume(source.stream);
      const turn: TurnReadable = turnStore(store);
      const texts: string[] = [];
      const unsubscribe = derived(turn, (snapshot: TurnSnapshot) => snapshot.text).subscribe((text) => texts.push(text));
      await settled();
      expect(get(turn)).toBe(store.getSnapshot());
      source.push(message('b'));
      await settled();
      unsubscribe();
      await settled();
      expect(source.cancels).toEqual([]);
      source.push(message('c'));
      source.close();
      expect((await consumed).status).toBe('done');
      expect(texts).toEqual(['', 'a', 'ab']);
    });

    if (version.compiler !== undefined) {
      it(`\`turnStore\` in a component compiled by ${version.name}: $turn renders the snapshot, and the component's unsubscribe cancels the stream`, async (context) => {
        await storeOf(version, context);
        const Component = await componentOf(version);
        const store = new TurnStore();
        store.push(message('hello'));
        store.push({ type: 'part', index: 1, part: { type: 'tool-call-start', toolCallId: 'c1', toolName: 'write_file' } });
        const render = (turn: TurnReadable): string => Component.render({ turn }).html.replace(/\s+/g, ' ');
        expect(render(turnStore(store))).toBe('<p>streaming: hello</p> <i>write_file</i>');
        const source = fedSource([message('a')]);
        // Rendered on the server: subscribed for the render only, before anything was read.
        expect(render(turnStore(source.stream))).toBe('<p>waiting: </p> ');
        await macrotask();
        await settled();
        expect(source.cancels).toHaveLength(1);
        expect(isUnmountReason(source.cancels[0])).toBe(true);
      });
    }
  });
}
