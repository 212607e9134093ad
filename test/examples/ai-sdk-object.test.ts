/**
 * examples/ai-sdk-object in Chromium: the AI SDK's own structured-output route of `ai` 6
 * (`streamText` with `Output.object`, `@ai-sdk/anthropic` 3, `toTextStreamResponse()`) and of `ai`
 * 7 (`@ai-sdk/anthropic` 4, `createTextStreamResponse(toTextStream(…))`), each in front of the same
 * page on two hooks: the AI SDK's own `useObject` (`@ai-sdk/react` 3 and 4: the reference) and
 * argstream's (`argstream/react`, from src/). The route's model is an Anthropic endpoint on
 * loopback that writes the recipe of examples/ai-sdk-object/model.mjs and stops at chosen points
 * until the test lets it go on (scripted-model.ts); one Chromium for every page.
 *
 * - the recipe streams: at a stop inside `"servings":650` the AI SDK's page shows `servings: 6`
 *   (its repaired parse), argstream's nothing of it; at a stop inside a step both show the same
 *   prefix of it; both end with exactly the recipe and `onFinish` gets it from the schema; every
 *   object argstream's page rendered is a state of the final one;
 * - Stop ends the request (the model's connection closes) and keeps the object, without an error
 *   or `onFinish`; hiding argstream's hook (an unmount) ends it too;
 * - the route's HTTP error (400 with a text) is the page's `error` with that text, argstream's an
 *   `ObjectStreamError` with code `http-error`;
 * - a model that answers with prose instead of JSON: argstream's page shows an `invalid-json`
 *   error (the AI SDK's shows no error and no object).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAND_IN_RECIPE, anthropicRecipeEvents } from '../../examples/ai-sdk-object/model.mjs';
import { startObjectExample, type ObjectExample } from '../../examples/ai-sdk-object/serve.mjs';
import { chromiumMissing, launchChromium } from '../runtimes/chromium/run.ts';
import { execute, waitInPage, type BrowserSession } from '../runtimes/harness.ts';
import { prefixStateMismatch } from '../store/object-helpers.ts';
import { browserOf, consoleProblems, recordConsole, send, until as untilShown } from './page-harness.ts';
import { startScriptedModel, type ScriptedModel } from './scripted-model.ts';

interface Combo {
  readonly name: string;
  readonly client: 'ai-sdk' | 'argstream';
  readonly major: 6 | 7;
}

const COMBOS: readonly Combo[] = [
  { name: "the AI SDK's useObject (@ai-sdk/react 3), an ai 6 route", client: 'ai-sdk', major: 6 },
  { name: "argstream's useObject, an ai 6 route", client: 'argstream', major: 6 },
  { name: "the AI SDK's useObject (@ai-sdk/react 4), an ai 7 route", client: 'ai-sdk', major: 7 },
  { name: "argstream's useObject, an ai 7 route", client: 'argstream', major: 7 },
];

/** What the AI SDK's Anthropic provider of each major says it is (its `user-agent`). */
const PROVIDER_OF_MAJOR = { 6: /^ai-sdk\/anthropic\/3\.\d+\.\d+ /, 7: /^ai-sdk-anthropic\/4\.\d+\.\d+ / } as const;

const RECIPE = STAND_IN_RECIPE;
const TEXT = JSON.stringify(RECIPE);
/** Where the text is cut: after the `6` of `650`, and after `Let it rest` in the second step. */
const IN_NUMBER = TEXT.indexOf('"servings":650') + '"servings":6'.length;
const IN_STEP = TEXT.indexOf('Let it rest') + 'Let it rest'.length;
/** The text in pieces of 6 characters, cut also at the two places above. */
const PIECES = (() => {
  const cuts = new Set([IN_NUMBER, IN_STEP]);
  for (let i = 6; i < TEXT.length; i += 6) cuts.add(i);
  const sorted = [...cuts].sort((a, b) => a - b);
  return sorted.map((cut, i) => TEXT.slice(sorted[i - 1] ?? 0, cut)).concat(TEXT.slice(sorted.at(-1)));
})();
/** The index of the event after the piece that ends at `offset`: where the model stops (two events come before the pieces). */
const stopAfter = (offset: number): number => {
  let sent = 0;
  for (let k = 0; k < PIECES.length; k++) {
    sent += PIECES[k]!.length;
    if (sent === offset) return 2 + k + 1;
  }
  throw new Error(`no piece ends at ${offset}`);
};

/** What the page shows. */
function shown(session: BrowserSession) {
  return session.evaluate(() => {
    const text = (id: string) => document.getElementById(id)?.textContent ?? null;
    const object = text('object');
    const finished = text('finished');
    return {
      setup: text('versions') ?? '',
      status: document.getElementById('status')?.dataset['status'],
      error: text('error'),
      code: document.getElementById('error')?.dataset['code'] ?? null,
      object: object === null ? undefined : (JSON.parse(object) as unknown),
      finished: finished === null ? null : (JSON.parse(finished) as { object: unknown; error: string | null }),
      states: (window as unknown as { objectStates?: string[] }).objectStates ?? [],
      title: text('title'),
    };
  });
}

type Shown = Awaited<ReturnType<typeof shown>>;

const until = (session: BrowserSession, ready: (page: Shown) => boolean, what: string, timeoutMs = 15_000): Promise<Shown> => untilShown(session, shown, ready, what, timeoutMs);

/** Resolves with `promise`, or fails after `ms` saying `what` did not happen. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

let model: ScriptedModel;
let session: BrowserSession | undefined;
const examples = new Map<string, ObjectExample>();

beforeAll(async () => {
  const starting: Array<Promise<void>> = [startScriptedModel().then((m) => void (model = m))];
  if (chromiumMissing() === undefined) starting.push(launchChromium().then((s) => void (session = s)));
  await Promise.all(starting);
  // One after the other: each bundles a page (2 cores).
  for (const combo of COMBOS) examples.set(combo.name, await startObjectExample({ client: combo.client, major: combo.major, argstream: 'src', anthropicUrl: model.url }));
}, 180_000);

afterAll(async () => {
  await session?.close();
  for (const example of examples.values()) await example.close();
  await model?.close();
}, 30_000);

const chromium = { name: 'Chromium', missing: chromiumMissing };

function exampleOf(combo: Combo): ObjectExample {
  const example = examples.get(combo.name);
  if (example === undefined) throw new Error(`the example for ${combo.name} did not start`);
  return example;
}

describe('examples/ai-sdk-object without a browser', () => {
  it('type-checks against ai 7 with @ai-sdk/react 4 and against ai 6 with @ai-sdk/react 3: both hooks fit one UseObject shape', async () => {
    const tsc = new URL('../../node_modules/typescript/bin/tsc', import.meta.url).pathname;
    const results = await Promise.all(
      ['examples/ai-sdk-object', 'examples/ai-sdk-object/tsconfig.ai6.json'].map((project) => execute(process.execPath, [tsc, '-p', project, '--noEmit'], { timeoutMs: 90_000 })),
    );
    for (const result of results) expect(result.stdout + result.stderr).toBe('');
  }, 120_000);

  it('bundles the hook of the page: the AI SDK page has parsePartialJson’s repair, argstream’s page no `ai` at all', async () => {
    for (const combo of COMBOS) {
      const bundle = await (await fetch(`${exampleOf(combo).url}/app.js`)).text();
      expect(bundle.includes('class ObjectStore') || /ObjectStore = class/.test(bundle), combo.name).toBe(combo.client === 'argstream');
      expect(/\bfixJson\b/.test(bundle), combo.name).toBe(combo.client === 'ai-sdk');
    }
  });

  it('the stand-in model answers without a key: the route streams the recipe’s JSON text', async () => {
    for (const major of [6, 7] as const) {
      const example = await startObjectExample({ client: 'argstream', major, argstream: 'src', delayMs: 0 });
      try {
        const response = await fetch(`${example.url}/api/recipe`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ dish: 'crêpes' }) });
        expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
        expect(JSON.parse(await response.text())).toEqual(RECIPE);
        expect(example.modelRequests.at(-1).output_config.format.type).toBe('json_schema');
        expect(example.modelUserAgents.at(-1)).toMatch(PROVIDER_OF_MAJOR[major]);
      } finally {
        await example.close();
      }
    }
  });
});

describe('examples/ai-sdk-object in Chromium', () => {
  for (const combo of COMBOS) {
    describe(combo.name, () => {
      it('streams the recipe: a cut number never shown by argstream, a growing step, then exactly the recipe and onFinish with it', async (context) => {
        const page = browserOf(chromium, session, context);
        const example = exampleOf(combo);
        const script = model.play(anthropicRecipeEvents(TEXT, PIECES), [stopAfter(IN_NUMBER), stopAfter(IN_STEP)]);
        const requestsBefore = example.requests.length;
        await send(page, `${example.url}/`);
        expect((await shown(page)).setup).toContain(`ai ${combo.major}`);

        await script.reached(0);
        // Inside "servings":650 — the AI SDK repairs the cut number to 6; argstream waits for it.
        const inNumber = await until(page, (p) => p.title === RECIPE.title, 'the title');
        const expectedInNumber = combo.client === 'ai-sdk' ? { title: RECIPE.title, servings: 6 } : { title: RECIPE.title };
        expect((await until(page, (p) => JSON.stringify(p.object) === JSON.stringify(expectedInNumber), `${JSON.stringify(expectedInNumber)} at the cut number`)).status).toBe('loading');
        expect(inNumber.error).toBeNull();

        script.next();
        await script.reached(1);
        const inStep = { ...RECIPE, steps: [RECIPE.steps[0], 'Let it rest'] };
        const mid = await until(page, (p) => JSON.stringify(p.object) === JSON.stringify(inStep), 'the second step so far');
        expect(mid.status).toBe('loading');
        expect(mid.finished).toBeNull();

        script.next();
        const end = await until(page, (p) => p.status === 'idle' && p.finished !== null, 'the end of the stream');
        expect(end.object).toEqual(RECIPE);
        expect(end.error).toBeNull();
        expect(end.finished).toEqual({ object: RECIPE, error: null });
        if (combo.client === 'argstream') {
          const states = end.states.map((state) => JSON.parse(state) as unknown).filter((state) => state !== null);
          expect(states.length).toBeGreaterThan(2);
          for (const state of states) expect(prefixStateMismatch(state, RECIPE)).toBeUndefined();
        }
        expect(example.requests.slice(requestsBefore)).toEqual([{ dish: 'crêpes' }]);
        expect(example.modelRequests.at(-1).output_config.format.type).toBe('json_schema');
        expect(example.modelUserAgents.at(-1)).toMatch(PROVIDER_OF_MAJOR[combo.major]);
        await script.ended;
        expect(page.problems()).toEqual([]);
        expect(await consoleProblems(page)).toEqual([]);
      });

      it('Stop ends the request — the model’s connection closes — and keeps the object, with no error and no onFinish', async (context) => {
        const page = browserOf(chromium, session, context);
        const example = exampleOf(combo);
        const script = model.play(anthropicRecipeEvents(TEXT, PIECES), [stopAfter(IN_STEP)]);
        const problemsBefore = page.problems().length;
        await send(page, `${example.url}/`);
        await script.reached(0);
        const inStep = { ...RECIPE, steps: [RECIPE.steps[0], 'Let it rest'] };
        await until(page, (p) => JSON.stringify(p.object) === JSON.stringify(inStep), 'the second step so far');
        await page.click('#stop');
        const stopped = await until(page, (p) => p.status === 'idle', 'the stop');
        await within(script.ended, 10_000, "the model's connection closing after Stop");
        script.next();
        expect(stopped.object).toEqual(inStep);
        expect(stopped.error).toBeNull();
        expect(stopped.finished).toBeNull();
        const after = await shown(page);
        expect([after.object, after.error, after.finished, after.status]).toEqual([inStep, null, null, 'idle']);
        expect(page.problems().slice(problemsBefore)).toEqual([]);
        expect(await consoleProblems(page)).toEqual([]);
      });

      if (combo.client === 'argstream') {
        it('unmounting the hook (Hide) ends its request: the model’s connection closes', async (context) => {
          const page = browserOf(chromium, session, context);
          const example = exampleOf(combo);
          const script = model.play(anthropicRecipeEvents(TEXT, PIECES), [stopAfter(IN_STEP)]);
          await send(page, `${example.url}/`);
          await script.reached(0);
          await until(page, (p) => p.title === RECIPE.title, 'the title');
          await page.click('#toggle');
          await until(page, (p) => p.title === null, 'the recipe hidden');
          await within(script.ended, 10_000, "the model's connection closing after the unmount");
          script.next();
          expect(await consoleProblems(page)).toEqual([]);
        });
      }

      it('shows the route’s HTTP error (400, a text) as the hook’s error', async (context) => {
        const page = browserOf(chromium, session, context);
        const example = exampleOf(combo);
        await page.goto(`${example.url}/`);
        await waitInPage(page, () => document.querySelector('#ask button[type="submit"]') !== null, 15_000, 'the Send button');
        await recordConsole(page);
        const modelCalls = example.modelRequests.length;
        await page.evaluate(() => void ((document.getElementById('dish') as HTMLInputElement).value = ''));
        await page.click('#ask button[type="submit"]');
        const failed = await until(page, (p) => p.error !== null, 'the error');
        expect(failed.status).toBe('idle');
        expect(failed.object).toBeNull();
        expect(failed.finished).toBeNull();
        expect(example.modelRequests.length).toBe(modelCalls);
        if (combo.client === 'argstream') {
          expect(failed.error).toBe('ObjectStreamError: Say which dish to write a recipe for.');
          expect(failed.code).toBe('http-error');
        } else {
          expect(failed.error).toBe('Error: Say which dish to write a recipe for.');
        }
        expect(await consoleProblems(page)).toEqual([]);
      });

      it('a model that writes prose instead of JSON: argstream shows invalid-json (the AI SDK shows no error and no object)', async (context) => {
        const page = browserOf(chromium, session, context);
        const example = exampleOf(combo);
        const script = model.play(anthropicRecipeEvents("I can't write recipes, sorry.", ["I can't ", 'write recipes, sorry.']));
        await send(page, `${example.url}/`);
        const end = await until(page, (p) => p.status === 'idle' && (p.error !== null || p.finished !== null), 'the end of the answer');
        await script.ended;
        expect(end.object).toBeNull();
        if (combo.client === 'argstream') {
          expect(end.code).toBe('invalid-json');
          expect(end.error).toMatch(/^ObjectStreamError: the response is not the JSON of an object: /);
        } else {
          expect(end.error).toBeNull();
        }
      });
    });
  }
});
