/**
 * examples/react (with React 19 and React 18), examples/vue and examples/svelte in every browser
 * engine: Chromium (playwright-core), Firefox (puppeteer-core, WebDriver BiDi) and WebKit
 * (WebKitGTK's MiniBrowser under WebKitWebDriver and Xvfb), started by the runners of
 * test/runtimes/ as browser.test.ts starts them: one browser per engine for every page, the page
 * reused. Each example is served once by examples/shared/serve.mjs (argstream and its bindings
 * bundled from src/, the edge function run in Node) in front of one model that the tests script:
 * it streams the events a test gives it and stops at chosen points until the test lets it go on.
 * DOM assertions only:
 *
 * - one write_file call: right after its path (the path, complete; no content yet), twice in the
 *   middle of its content (exactly the characters sent so far, then more of them), then the end
 *   (the ✓ and exactly the arguments);
 * - two write_file calls and a call of another tool: the second file streams beside the first,
 *   which is complete, and the other tool shows its name and its input as JSON;
 * - two write_file calls streaming at the same time, their fragments interleaved (OpenAI Chat
 *   Completions, through the relay at /api/openai/chat): twice in the middle, both on the page,
 *   each with its own path and exactly its own content so far, neither ✓; then both ✓ with
 *   exactly their arguments;
 * - an `event: error` from the model in the middle of the content: the ProviderError on the page,
 *   the call failed with what had arrived of it;
 * - a second Send in the middle of a turn: the new turn replaces it, and the model's first request
 *   ends (the page cancelled it, and the relay passed the cancellation on).
 *
 * The pages run the frameworks' development builds (React in StrictMode): nothing may be logged
 * as an error or a warning while a turn streams.
 *
 * React 18 cannot be installed beside the root's React 19: it is test/frameworks/react18's own
 * package (installed by test/frameworks/install.mjs), and the React example is bundled a second
 * time with `react` and `react-dom` resolved there.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFrameworkExample, type FrameworkExample } from '../../examples/shared/serve.mjs';
import { TurnStore, defineTools } from '../../src/index.ts';
import type { BrowserSession } from '../runtimes/harness.ts';
import { execute, withTimeout } from '../runtimes/harness.ts';
import { describeInEngine, ENGINES, consoleProblems, IN_CI, send as sendOn, until as untilShown } from './page-harness.ts';
import { anthropicTurn, openaiChatInterleavedTurn, startScriptedModel, type ScriptedModel } from './scripted-model.ts';

const REACT18 = fileURLToPath(new URL('../frameworks/react18/', import.meta.url));

/** The React of test/frameworks/react18, or why it is not there. */
function react18Missing(): string | undefined {
  const manifest = `${REACT18}node_modules/react-dom/package.json`;
  if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version.startsWith('18.')) return undefined;
  return 'React 18 is missing from test/frameworks/react18/node_modules: run `npm test` (it installs it) or `node test/frameworks/install.mjs` (npm ci there)';
}

interface Variant {
  readonly name: string;
  readonly framework: 'react' | 'vue' | 'svelte';
  readonly reactDir?: string;
  readonly missing?: () => string | undefined;
}

const VARIANTS: readonly Variant[] = [
  { name: 'React 19', framework: 'react' },
  { name: 'React 18', framework: 'react', reactDir: REACT18, missing: react18Missing },
  { name: 'Vue 3', framework: 'vue' },
  { name: 'Svelte 5', framework: 'svelte' },
];

/** The call the model writes, by hand: escapes, quotes, non-ASCII and an emoji in the content. */
const EXPECTED = {
  path: 'src/greet.rs',
  content: 'pub fn greet(name: &str) -> String {\n    format!("héllo, {name} 👋 \\"friend\\"\\n")\n}\n\n#[test]\nfn greets() {\n    assert_eq!(greet("ana"), "héllo, ana 👋 \\"friend\\"\\n");\n}\n',
};
const SECOND = { path: 'tests/greet.rs', content: 'use crate::greet;\n\n#[test]\nfn greets_bob() {\n    assert!(greet("bob").starts_with("héllo, bob"));\n}\n' };
const OTHER = { command: 'cargo test', cwd: '.' };
const TEXT = "I'll add the greeting function.";

/** Model-sized pieces of a call's argument JSON. */
const piecesOf = (value: object) => JSON.stringify(value).match(/[\s\S]{1,7}/g)!;

/**
 * What a page must show of a string field once `raw` (its JSON text so far, after the opening
 * quote) has arrived: every complete character — a split escape and the first half of a surrogate
 * pair are held back, nothing else.
 */
function decodedPrefix(raw: string): string {
  for (let end = raw.length; end >= 0; end--) {
    try {
      const text = JSON.parse(`"${raw.slice(0, end)}"`) as string;
      return /[\uD800-\uDBFF]$/.test(text) ? text.slice(0, -1) : text;
    } catch {
      // An escape cut in the middle: shorter.
    }
  }
  return '';
}

/** Where the argument text of `value` reaches `length` characters: how many of its pieces that takes. */
function piecesFor(pieces: readonly string[], length: number): number {
  let k = 0;
  for (let sent = 0; sent < length; k++) sent += pieces[k]!.length;
  return k;
}

/** What the page shows of `value`'s content after `k` of its pieces. */
function contentAfter(pieces: readonly string[], k: number): string {
  const text = pieces.slice(0, k).join('');
  const start = text.indexOf('"content":"');
  return start < 0 ? '' : decodedPrefix(text.slice(start + '"content":"'.length));
}

// ---------------------------------------------------------------------------------------------
// The page

/** What the page shows: the status, the text, each call, the error. */
function shown(session: BrowserSession) {
  return session.evaluate(() => {
    const status = document.getElementById('status');
    const calls = Array.from(document.querySelectorAll<HTMLElement>('#calls article.call')).map((call) => ({
      tool: call.dataset['tool'],
      id: call.dataset['id'],
      state: call.dataset['state'],
      pathLine: call.querySelector('.path')?.textContent?.trim() ?? null,
      path: call.querySelector('.path-value')?.textContent ?? null,
      pathComplete: call.querySelector('.path-value')?.hasAttribute('data-complete') ?? false,
      content: call.querySelector('.content-value')?.textContent ?? null,
      contentComplete: call.querySelector('.content-value')?.hasAttribute('data-complete') ?? false,
      input: call.querySelector('.input')?.textContent ?? null,
      check: call.querySelector('.check')?.textContent ?? null,
      error: call.querySelector('.call-error')?.textContent ?? null,
    }));
    return {
      status: status?.dataset['state'],
      statusText: status?.textContent?.trim() ?? '',
      message: document.getElementById('message')?.textContent ?? '',
      calls,
      error: document.getElementById('error')?.textContent ?? null,
    };
  });
}

type Shown = Awaited<ReturnType<typeof shown>>;

/** Poll what the page shows until `ready` says so; fails with the last thing shown. */
const until = (session: BrowserSession, ready: (page: Shown) => boolean, what: string, timeoutMs = 15_000): Promise<Shown> => untilShown(session, shown, ready, what, timeoutMs);

/** Open the page and press Send, as a user would. */
const send = (session: BrowserSession, example: FrameworkExample): Promise<void> => sendOn(session, `${example.url}/`);


// ---------------------------------------------------------------------------------------------

let model: ScriptedModel;
const examples = new Map<string, FrameworkExample>();

beforeAll(async () => {
  model = await startScriptedModel();
  for (const variant of VARIANTS) {
    if (variant.missing?.() !== undefined) continue;
    // One model behind both relays: it answers any path, in the format of the events it is given.
    const options = { framework: variant.framework, argstream: 'src', anthropicUrl: model.url, openaiUrl: model.url.replace('/v1/messages', '/v1/chat/completions') } as const;
    examples.set(variant.name, await startFrameworkExample(variant.reactDir === undefined ? options : { ...options, reactDir: variant.reactDir }));
  }
}, 60_000);

afterAll(async () => {
  for (const example of examples.values()) await example.close();
  await model?.close();
});

/** A variant's server, or the test skipped with what to install (failed in CI). */
function exampleOf(variant: Variant, context: { skip(note?: string): void }): FrameworkExample {
  const why = variant.missing?.();
  if (why !== undefined) {
    if (IN_CI) throw new Error(`${variant.name} is required in CI: ${why}`);
    console.warn(`skipped: ${why}`);
    context.skip(why);
  }
  const example = examples.get(variant.name);
  if (example === undefined) throw new Error(`the ${variant.name} example did not start`);
  return example;
}

describe('the framework examples, without a browser', () => {
  it('examples/react type-checks: a call narrowed by its toolName has the input of its zod schema', async () => {
    const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
    const result = await execute(process.execPath, [tsc, '-p', 'examples/react', '--noEmit'], { timeoutMs: 60_000 });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('examples/vue type-checks with vue-tsc, its components and templates included: a call narrowed by its toolName has the input of its zod schema', async () => {
    const vueTsc = fileURLToPath(new URL('../../node_modules/vue-tsc/bin/vue-tsc.js', import.meta.url));
    const result = await execute(process.execPath, [vueTsc, '-p', 'examples/vue', '--noEmit'], { timeoutMs: 120_000 });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  }, 150_000);

  it('examples/svelte type-checks with svelte-check, its components included, without an error or a warning', async () => {
    const svelteCheck = fileURLToPath(new URL('../../node_modules/svelte-check/bin/svelte-check', import.meta.url));
    const workspace = fileURLToPath(new URL('../../examples/svelte/', import.meta.url));
    const result = await execute(process.execPath, [svelteCheck, '--workspace', workspace, '--tsconfig', `${workspace}tsconfig.json`, '--output', 'machine', '--fail-on-warnings'], { timeoutMs: 120_000 });
    // The machine output's last line counts what was checked and found.
    expect(result.stdout).toMatch(/COMPLETED \d+ FILES 0 ERRORS 0 WARNINGS/);
    expect(result.stdout).toMatch(/COMPLETED ([1-9]\d*) FILES/);
    expect(result.code).toBe(0);
  }, 150_000);

  it('bundles the React example with React 18 from test/frameworks/react18, and with the root React 19 otherwise', async (context) => {
    const react19 = await (await fetch(`${exampleOf(VARIANTS[0]!, context).url}/app.js`)).text();
    const react18 = await (await fetch(`${exampleOf(VARIANTS[1]!, context).url}/app.js`)).text();
    const rootVersion = (JSON.parse(readFileSync(new URL('../../node_modules/react/package.json', import.meta.url), 'utf8')) as { version: string }).version;
    expect(react19).toContain(`"${rootVersion}"`);
    expect(react18).toMatch(/"18\.\d+\.\d+"/);
    expect(react18).not.toContain(`"${rootVersion}"`);
  });

  it('serve.mjs streams its scripted turns when started without a model: a sentence and two write_file calls, interleaved at /api/openai/chat', async () => {
    const example = await startFrameworkExample({ framework: 'svelte', argstream: 'src', delayMs: 0 });
    try {
      const page = await fetch(`${example.url}/`);
      expect(await page.text()).toContain('<script type="module" src="/app.js"></script>');
      expect((await fetch(`${example.url}/style.css`)).status).toBe(200);
      const response = await fetch(`${example.url}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"prompt":"Write a word counter"}' });
      const tools = defineTools({ write_file: { '~standard': { version: 1, vendor: 'test', validate: (value: unknown) => ({ value }) } } });
      const turn = await new TurnStore({ tools, schedule: 'sync' }).consume(response);
      expect(turn.status).toBe('done');
      expect(turn.text).toMatch(/word counter/);
      expect(turn.calls.map((call) => [call.toolName, call.status, (call.input as { path?: string }).path])).toEqual([
        ['write_file', 'complete', 'src/main.rs'],
        ['write_file', 'complete', 'README.md'],
      ]);

      // The same files from the OpenAI relay, both calls streaming at once: the second call's
      // content grows before the first call is complete.
      const openai = await fetch(`${example.url}/api/openai/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"prompt":"Write a word counter"}' });
      const store = new TurnStore({ tools, schedule: 'sync' });
      let overlapped = false;
      store.subscribe(() => {
        const [first, second] = store.getSnapshot().calls;
        if (first?.status === 'streaming' && ((second?.input as { content?: string } | undefined)?.content ?? '') !== '') overlapped = true;
      });
      const interleaved = await store.consume(openai);
      expect(interleaved.status).toBe('done');
      expect(interleaved.calls.map((call) => [call.toolName, call.status, call.input])).toEqual(turn.calls.map((call) => ['write_file', 'complete', call.input]));
      expect(overlapped).toBe(true);
    } finally {
      await example.close();
    }
  });
});

for (const engine of ENGINES) {
  describeInEngine(engine, `the framework examples in ${engine.name}`, (browser) => {

    for (const variant of VARIANTS) {
      describe(variant.name, () => {
        it('shows the write_file path first, then its content growing as it streams, then the ✓ and exactly the arguments', async (context) => {
          const page = browser(context);
          const example = exampleOf(variant, context);
          const pieces = piecesOf(EXPECTED);
          const argumentText = pieces.join('');
          const pathEnd = argumentText.indexOf('","content":"') + 1;
          const contentStart = pathEnd + ',"content":"'.length;
          // Stop 0 right after the path's closing quote, before the content's key is complete;
          // stops 1 and 2 inside the content, 40 and 120 characters of its JSON text in.
          const stops = [piecesFor(pieces, pathEnd), piecesFor(pieces, contentStart + 40), piecesFor(pieces, contentStart + 120)];
          expect(pieces.slice(0, stops[0]).join('').length, 'stop 0 comes before the content key is complete').toBeLessThan(contentStart - 2);
          const { events, firstPiece } = anthropicTurn(TEXT, [{ id: 'toolu_file_1', name: 'write_file', pieces }]);
          const script = model.play(events, stops.map((k) => firstPiece[0]! + k));
          const problemsBefore = page.problems().length;
          await send(page, example);

          // Everything sent before a stop reaches the page; nothing after it can.
          await script.reached(0);
          const path = await until(page, (p) => p.calls[0]?.pathComplete === true, 'the path, complete');
          expect(path.status).toBe('streaming');
          expect(path.message).toBe(TEXT);
          expect(path.calls).toHaveLength(1);
          expect(path.calls[0]).toMatchObject({ tool: 'write_file', id: 'toolu_file_1', state: 'streaming', path: EXPECTED.path, pathLine: `creating ${EXPECTED.path}`, content: null, check: null });

          script.next();
          await script.reached(1);
          const first = await until(page, (p) => p.calls[0]?.content === contentAfter(pieces, stops[1]!), `the content's first ${contentAfter(pieces, stops[1]!).length} characters`);
          expect(first.calls[0]!.content!.length).toBeGreaterThan(0);
          expect(first.calls[0]).toMatchObject({ state: 'streaming', contentComplete: false, check: null });

          script.next();
          await script.reached(2);
          const second = await until(page, (p) => p.calls[0]?.content === contentAfter(pieces, stops[2]!), `the content's first ${contentAfter(pieces, stops[2]!).length} characters`);
          expect(second.calls[0]!.content!.length).toBeGreaterThan(first.calls[0]!.content!.length);
          expect(second.calls[0]!.content!.length).toBeLessThan(EXPECTED.content.length);
          expect(EXPECTED.content.startsWith(second.calls[0]!.content!)).toBe(true);
          expect(second.status).toBe('streaming');
          expect(second.calls[0]).toMatchObject({ state: 'streaming', contentComplete: false, check: null });

          script.next();
          const end = await until(page, (p) => p.status !== 'streaming', 'the end of the stream');
          expect(end.status, end.statusText).toBe('done');
          expect(end.error).toBeNull();
          expect(end.calls).toHaveLength(1);
          expect(end.calls[0]).toMatchObject({ state: 'complete', check: '✓', path: EXPECTED.path, content: EXPECTED.content, pathComplete: true, contentComplete: true, error: null });
          expect(page.problems().slice(problemsBefore)).toEqual([]);
          expect(await consoleProblems(page)).toEqual([]);
        });

        it('shows a second write_file call streaming beside the first, and a call of another tool as its name and JSON input', async (context) => {
          const page = browser(context);
          const example = exampleOf(variant, context);
          const second = piecesOf(SECOND);
          const calls = [
            { id: 'toolu_file_1', name: 'write_file', pieces: piecesOf(EXPECTED) },
            { id: 'toolu_file_2', name: 'write_file', pieces: second },
            { id: 'toolu_run_1', name: 'run_command', pieces: piecesOf(OTHER) },
          ];
          const { events, firstPiece } = anthropicTurn(TEXT, calls);
          const contentStart = JSON.stringify(SECOND).indexOf('"content":"') + '"content":"'.length;
          const stop = piecesFor(second, contentStart + 30);
          const script = model.play(events, [firstPiece[1]! + stop]);
          const problemsBefore = page.problems().length;
          await send(page, example);

          await script.reached(0);
          const middle = await until(page, (p) => p.calls[1]?.content === contentAfter(second, stop), 'the second file in the middle of its content');
          expect(middle.status).toBe('streaming');
          expect(middle.calls.map((call) => call.id)).toEqual(['toolu_file_1', 'toolu_file_2']);
          expect(middle.calls[0]).toMatchObject({ state: 'complete', check: '✓', path: EXPECTED.path, content: EXPECTED.content });
          expect(middle.calls[1]).toMatchObject({ state: 'streaming', check: null, path: SECOND.path, pathComplete: true, contentComplete: false });
          expect(middle.calls[1]!.content!.length).toBeGreaterThan(0);
          expect(middle.calls[1]!.content!.length).toBeLessThan(SECOND.content.length);

          script.next();
          const end = await until(page, (p) => p.status !== 'streaming', 'the end of the stream');
          expect(end.status, end.statusText).toBe('done');
          expect(end.calls.map((call) => [call.id, call.tool, call.state, call.check])).toEqual([
            ['toolu_file_1', 'write_file', 'complete', '✓'],
            ['toolu_file_2', 'write_file', 'complete', '✓'],
            ['toolu_run_1', 'run_command', 'complete', '✓'],
          ]);
          expect(end.calls[0]).toMatchObject({ path: EXPECTED.path, content: EXPECTED.content });
          expect(end.calls[1]).toMatchObject({ path: SECOND.path, content: SECOND.content });
          expect(JSON.parse(end.calls[2]!.input!)).toEqual(OTHER);
          expect(page.problems().slice(problemsBefore)).toEqual([]);
          expect(await consoleProblems(page)).toEqual([]);
        });

        it('shows two write_file calls streaming at the same time (OpenAI Chat Completions, fragments interleaved) side by side, each with its own path and content, then both ✓', async (context) => {
          const page = browser(context);
          const example = exampleOf(variant, context);
          const files = [EXPECTED, SECOND];
          const pieces = files.map(piecesOf);
          const ids = ['call_file_1', 'call_file_2'];
          const { events, pieceEvents } = openaiChatInterleavedTurn(TEXT, files.map((_, i) => ({ id: ids[i]!, name: 'write_file', pieces: pieces[i]! })));
          // Two stops, 25 and then 70 characters into the second file's content (JSON text); the
          // first file is a piece ahead, since each round sends its piece first.
          const contentStart = JSON.stringify(SECOND).indexOf('"content":"') + '"content":"'.length;
          const stops = [25, 70].map((n) => pieceEvents[1]![piecesFor(pieces[1]!, contentStart + n)]!);
          /** What each file's content is on the page once the events before `stop` have arrived. */
          const contentsAt = (stop: number) => pieces.map((list, i) => contentAfter(list, pieceEvents[i]!.filter((event) => event < stop).length));
          const [before, later] = stops.map(contentsAt);
          files.forEach((file, i) => {
            expect(before![i]!.length, `file ${i} at stop 0: in its content`).toBeGreaterThan(0);
            expect(later![i]!.length, `file ${i}: more at stop 1`).toBeGreaterThan(before![i]!.length);
            expect(later![i]!.length, `file ${i} at stop 1: not at its end`).toBeLessThan(file.content.length);
          });
          const script = model.play(events, stops);
          const problemsBefore = page.problems().length;
          await sendOn(page, `${example.url}/?endpoint=/api/openai/chat`);

          for (const [n, contents] of [before!, later!].entries()) {
            await script.reached(n);
            const middle = await until(page, (p) => p.calls.length === 2 && p.calls.every((call, i) => call.content === contents[i]), `both files at stop ${n}: ${contents.map((c) => c.length).join(' and ')} characters`);
            expect(middle.status).toBe('streaming');
            expect(middle.message).toBe(TEXT);
            expect(middle.calls.map((call) => [call.id, call.tool, call.state, call.check, call.path, call.pathComplete, call.contentComplete])).toEqual([
              [ids[0], 'write_file', 'streaming', null, EXPECTED.path, true, false],
              [ids[1], 'write_file', 'streaming', null, SECOND.path, true, false],
            ]);
            files.forEach((file, i) => {
              const content = middle.calls[i]!.content!;
              expect(file.content.startsWith(content) && content.length > 0 && content.length < file.content.length, `file ${i}: a proper prefix of its own content`).toBe(true);
            });
            script.next();
          }

          const end = await until(page, (p) => p.status !== 'streaming', 'the end of the stream');
          expect(end.status, end.statusText).toBe('done');
          expect(end.error).toBeNull();
          expect(end.calls).toEqual(
            files.map((file, i) => ({
              tool: 'write_file',
              id: ids[i],
              state: 'complete',
              pathLine: `creating ${file.path}`,
              path: file.path,
              pathComplete: true,
              content: file.content,
              contentComplete: true,
              input: null,
              check: '✓',
              error: null,
            })),
          );
          expect(page.problems().slice(problemsBefore)).toEqual([]);
          expect(await consoleProblems(page)).toEqual([]);
        });

        it("shows the model's error (an `event: error` in the middle of the content) and keeps what had arrived of the call", async (context) => {
          const page = browser(context);
          const example = exampleOf(variant, context);
          const pieces = piecesOf(EXPECTED);
          const contentStart = JSON.stringify(EXPECTED).indexOf('"content":"') + '"content":"'.length;
          const cut = piecesFor(pieces, contentStart + 50);
          const { events } = anthropicTurn(TEXT, [{ id: 'toolu_file_1', name: 'write_file', pieces }], { cutAfter: cut });
          model.play(events);
          await send(page, example);

          const end = await until(page, (p) => p.status === 'error', 'the error');
          expect(end.error).toMatch(/^ProviderError: anthropic: the provider reported an error "overloaded_error"/); // argstream's words: "Overloaded" stays on the server
          expect(end.message).toBe(TEXT);
          expect(end.calls).toHaveLength(1);
          expect(end.calls[0]).toMatchObject({ state: 'failed', check: null, path: EXPECTED.path, content: contentAfter(pieces, cut) });
          expect(end.calls[0]!.error).toMatch(/^ProviderError: anthropic: the provider reported an error "overloaded_error"/);
          expect(await consoleProblems(page)).toEqual([]);
        });

        it("replaces the turn on a second Send, and the first response's stream is cancelled up to the model", async (context) => {
          const page = browser(context);
          const example = exampleOf(variant, context);
          const pieces = piecesOf(EXPECTED);
          const first = anthropicTurn(TEXT, [{ id: 'toolu_first', name: 'write_file', pieces }]);
          const held = model.play(first.events, [first.firstPiece[0]! + piecesFor(pieces, 30)]);
          await send(page, example);
          await held.reached(0);
          await until(page, (p) => p.calls[0]?.id === 'toolu_first' && p.calls[0].content !== null, 'the first turn in the middle of its content');

          const other = { path: 'src/other.rs', content: 'fn other() {}\n' };
          model.play(anthropicTurn('Another file.', [{ id: 'toolu_second', name: 'write_file', pieces: piecesOf(other) }]).events);
          await page.click('#ask button[type="submit"]');
          const end = await until(page, (p) => p.status === 'done' && p.calls[0]?.id === 'toolu_second', 'the second turn, done');
          expect(end.message).toBe('Another file.');
          expect(end.calls).toHaveLength(1);
          expect(end.calls[0]).toMatchObject({ state: 'complete', check: '✓', path: other.path, content: other.content });
          // The page cancelled the first response's body; the relay cancelled the model's request.
          await withTimeout(held.ended, 10_000, "the model's first request ending");
          expect(await consoleProblems(page)).toEqual([]);
        });
      });
    }
  });
}
