/**
 * `ObjectStore` in Node, on a fake `fetch` whose bodies the tests feed: the request the AI SDK's
 * `useObject` makes, the object as the JSON text streams (every cutting, byte by byte, each
 * snapshot a state of the final object, against the AI SDK's own `parsePartialJson` of the same
 * text), `onFinish` with the schema's object, stop, a new submit, clear, and every way a response
 * goes wrong — each a typed `ObjectStreamError`, the body cancelled, in bounded memory.
 */
import { parsePartialJson } from 'ai7';
import { jsonSchema } from 'ai7';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { JsonStreamError } from '../../src/errors.ts';
import { ObjectStore, type ObjectFinishEvent, type ObjectStoreOptions } from '../../src/store/object-store.ts';
import { ObjectStreamError } from '../../src/store/object-stream-error.ts';
import { cutAt, oneByOne } from '../helpers.ts';
import { fakeFetch, fedBody, prefixStateMismatch, type FedBody } from './object-helpers.ts';

const recipe = z.object({ title: z.string(), servings: z.number(), vegan: z.boolean(), notes: z.null(), tags: z.array(z.string()), steps: z.array(z.object({ text: z.string(), minutes: z.number() })) });

const RECIPE = {
  title: 'Crêpes "fines" \\ 🥞',
  servings: 650,
  vegan: false,
  notes: null,
  tags: ['sweet', 'ça', 'クレープ'],
  steps: [
    { text: 'Whisk\nthe batter', minutes: 5 },
    { text: 'Rest it\t(1 h) \u2028', minutes: 60.5 },
    { text: 'Cook each 😋 crêpe', minutes: 1e1 },
  ],
};
const TEXT = JSON.stringify(RECIPE);
const BYTES = new TextEncoder().encode(TEXT);

/** A store on a fake fetch that answers with `body` (status 200) unless told otherwise. */
function storeOf(body: FedBody | (() => Response), options: Partial<ObjectStoreOptions<typeof recipe>> = {}) {
  const fetcher = fakeFetch(() => (typeof body === 'function' ? body() : new Response(body.stream, { headers: { 'content-type': 'text/plain; charset=utf-8' } })));
  const finishes: ObjectFinishEvent<z.infer<typeof recipe>>[] = [];
  const errors: ObjectStreamError[] = [];
  const store = new ObjectStore<typeof recipe, { dish: string }>({
    api: '/api/recipe',
    schema: recipe,
    fetch: fetcher,
    schedule: 'sync',
    onFinish: (event) => void finishes.push(event),
    onError: (error) => void errors.push(error),
    ...options,
  });
  const seen: unknown[] = [];
  store.subscribe(() => {
    const { object } = store.getSnapshot();
    if (object !== seen[seen.length - 1]) seen.push(object);
  });
  return { store, fetcher, finishes, errors, seen };
}

/** A body that holds `chunks`, then closes. */
function bodyOf(chunks: readonly (string | Uint8Array)[]): FedBody {
  const body = fedBody();
  for (const chunk of chunks) body.push(chunk);
  body.close();
  return body;
}

/** Wait until `ready()`; fails after 2 s. */
async function until(ready: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 2000;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within 2 s`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

describe('ObjectStore makes the request of the AI SDK’s useObject', () => {
  it('POSTs the input as JSON to api, with Content-Type, the headers (an object, Headers, a function, an async one), credentials and a signal', async () => {
    for (const headers of [{ authorization: 'Bearer t' }, new Headers({ authorization: 'Bearer t' }), () => ({ authorization: 'Bearer t' }), async () => new Headers({ authorization: 'Bearer t' })]) {
      const { store, fetcher } = storeOf(bodyOf([TEXT]), { headers, credentials: 'include' });
      await store.submit({ dish: 'crêpes' });
      expect(fetcher.calls).toHaveLength(1);
      const call = fetcher.calls[0]!;
      expect(call.url).toBe('/api/recipe');
      expect(call.init.method).toBe('POST');
      expect(call.init.credentials).toBe('include');
      expect(call.init.signal).toBeInstanceOf(AbortSignal);
      expect(call.body).toEqual({ dish: 'crêpes' });
      expect(call.headers).toEqual({ 'content-type': 'application/json', authorization: 'Bearer t' });
    }
  });

  it('shows initialValue before the first submit, and nothing once a submit starts', async () => {
    const body = fedBody();
    const { store } = storeOf(body, { initialValue: { title: 'Draft' } });
    expect(store.getSnapshot()).toEqual({ object: { title: 'Draft' }, isLoading: false, error: undefined });
    const done = store.submit({ dish: 'x' });
    expect(store.getSnapshot()).toEqual({ object: undefined, isLoading: true, error: undefined });
    body.push(TEXT);
    body.close();
    await done;
    expect(store.getSnapshot()).toEqual({ object: RECIPE, isLoading: false, error: undefined });
  });
});

describe('ObjectStore streams the object', () => {
  it('byte by byte: every snapshot is a state of the final object (no number cut short), the last equals JSON.parse, onFinish gets the schema’s object', async () => {
    const { store, finishes, errors, seen } = storeOf(bodyOf(oneByOne(BYTES)));
    await store.submit({ dish: 'crêpes' });
    expect(store.getSnapshot().object).toEqual(JSON.parse(TEXT));
    expect(store.getSnapshot().isLoading).toBe(false);
    for (const object of seen) if (object !== undefined) expect(prefixStateMismatch(object, RECIPE)).toBeUndefined();
    // The states a reader sees: the strings grow character by character, each scalar appears whole.
    expect(seen.filter((object) => (object as { servings?: number } | undefined)?.servings !== undefined).every((object) => (object as { servings: number }).servings === 650)).toBe(true);
    expect(seen.length).toBeGreaterThan(50);
    expect(finishes).toEqual([{ object: RECIPE, error: undefined }]);
    expect(errors).toEqual([]);
  });

  it('at every cut into two pieces (inside escapes, surrogate pairs and multi-byte characters) ends with the same object', async () => {
    for (let cut = 1; cut < BYTES.length; cut++) {
      const { store, finishes } = storeOf(bodyOf(cutAt(BYTES, [cut])));
      await store.submit({ dish: 'crêpes' });
      expect(store.getSnapshot().object, `cut at byte ${cut}`).toEqual(RECIPE);
      expect(finishes, `cut at byte ${cut}`).toEqual([{ object: RECIPE, error: undefined }]);
    }
  });

  it('shows, at every chunk of the text, a state of what the AI SDK’s parsePartialJson shows once the text is whole, and the same final object', async () => {
    // Three characters a piece, and a cut inside 650.
    const inNumber = TEXT.indexOf('650') + 1;
    const pieces = cutAt(TEXT, [...Array.from({ length: TEXT.length / 3 }, (_, i) => i * 3).filter((cut) => cut < inNumber), inNumber, ...Array.from({ length: TEXT.length / 3 }, (_, i) => i * 3).filter((cut) => cut > inNumber)]);
    const { store, seen } = storeOf(bodyOf(pieces));
    await store.submit({ dish: 'crêpes' });
    let text = '';
    const theirs: unknown[] = [];
    for (const piece of pieces) {
      text += piece;
      theirs.push((await parsePartialJson(text)).value);
    }
    expect(store.getSnapshot().object).toEqual(theirs.at(-1));
    for (const object of seen) if (object !== undefined) expect(prefixStateMismatch(object, theirs.at(-1))).toBeUndefined();
    // Where the AI SDK shows a number still arriving, argstream waits for it.
    expect(theirs.some((value) => (value as { servings?: number } | undefined)?.servings === 6)).toBe(true);
    expect(seen.some((value) => (value as { servings?: number } | undefined)?.servings === 6)).toBe(false);
  });

  it('keeps what did not change: a snapshot is the same object until a chunk changes it, a completed member keeps its identity', async () => {
    const body = fedBody();
    const { store } = storeOf(body);
    const done = store.submit({ dish: 'x' });
    body.push('{"tags":["a","b"],"title":"Cr');
    await until(() => (store.getSnapshot().object as { title?: string } | undefined)?.title === 'Cr', 'the first chunk');
    const first = store.getSnapshot();
    expect(store.getSnapshot()).toBe(first);
    body.push('êpes"');
    await until(() => store.getSnapshot() !== first, 'the second chunk');
    const second = store.getSnapshot();
    expect(second.object).toEqual({ tags: ['a', 'b'], title: 'Crêpes' });
    expect(second.object!.tags).toBe(first.object!.tags);
    expect(first.object).toEqual({ tags: ['a', 'b'], title: 'Cr' }); // never changed afterwards
    body.push(',"servings":1,"vegan":true,"notes":null,"steps":[]}');
    body.close();
    await done;
  });

  it('tells a schedule function once per batch of chunks, and the end at once', async () => {
    const body = fedBody();
    const scheduled: Array<() => void> = [];
    const { store, seen } = storeOf(body, { schedule: (notify) => void scheduled.push(notify) });
    const done = store.submit({ dish: 'x' });
    const before = seen.length;
    for (const piece of ['{"title":', '"a', 'b', 'c"']) body.push(piece);
    await until(() => (store.getSnapshot().object as { title?: string } | undefined)?.title === 'abc', 'the chunks');
    expect(scheduled).toHaveLength(1);
    expect(seen.length).toBe(before);
    scheduled[0]!();
    expect(seen.at(-1)).toEqual({ title: 'abc' });
    body.push(',"servings":1,"vegan":true,"notes":null,"tags":[],"steps":[]}');
    body.close();
    await done;
    expect(seen.at(-1)).toEqual({ title: 'abc', servings: 1, vegan: true, notes: null, tags: [], steps: [] });
  });

  it('gives onFinish the schema’s output (its transforms) while the snapshot keeps the JSON as it came; an AI SDK jsonSchema validates too', async () => {
    const shout = z.object({ title: z.string().transform((title) => title.toUpperCase()) });
    const finishes: unknown[] = [];
    const store = new ObjectStore({ api: '/a', schema: shout, schedule: 'sync', fetch: fakeFetch(() => new Response('{"title":"crêpes"}')), onFinish: (event) => void finishes.push(event) });
    await store.submit(undefined);
    expect(store.getSnapshot().object).toEqual({ title: 'crêpes' });
    expect(finishes).toEqual([{ object: { title: 'CRÊPES' }, error: undefined }]);

    const checked = jsonSchema<{ title: string }>({ type: 'object' }, { validate: (value) => ((value as { title?: unknown }).title === 'crêpes' ? { success: true, value: value as { title: string } } : { success: false, error: new Error('not crêpes') }) });
    const results: ObjectFinishEvent<{ title: string }>[] = [];
    for (const text of ['{"title":"crêpes"}', '{"title":"waffles"}']) {
      const aiStore = new ObjectStore({ api: '/a', schema: checked, fetch: fakeFetch(() => new Response(text)), onFinish: (event) => void results.push(event) });
      await aiStore.submit(undefined);
    }
    expect(results[0]).toEqual({ object: { title: 'crêpes' }, error: undefined });
    expect(results[1]!.object).toBeUndefined();
    expect(results[1]!.error).toMatchObject({ name: 'ObjectStreamError', code: 'invalid-object', message: 'the object does not match the schema: not crêpes' });
  });

  it('gives onFinish an invalid-object error with the schema’s issues for a document the schema refuses, and leaves `error` alone', async () => {
    const { store, finishes, errors } = storeOf(bodyOf(['{"title":42}']));
    await store.submit({ dish: 'x' });
    expect(store.getSnapshot()).toEqual({ object: { title: 42 }, isLoading: false, error: undefined });
    expect(errors).toEqual([]);
    expect(finishes).toHaveLength(1);
    const error = finishes[0]!.error!;
    expect(error).toBeInstanceOf(ObjectStreamError);
    expect(error.code).toBe('invalid-object');
    expect(error.issues!.map((issue) => issue.path)).toEqual(expect.arrayContaining([['title'], ['servings']]));
  });
});

describe('ObjectStore stops', () => {
  it('stop() aborts the request and cancels the body; the object so far stays, no error, no onFinish', async () => {
    const body = fedBody();
    const { store, fetcher, finishes, errors } = storeOf(body);
    const done = store.submit({ dish: 'x' });
    body.push('{"title":"Crêp');
    await until(() => store.getSnapshot().object !== undefined, 'the first chunk');
    store.stop();
    expect(store.getSnapshot()).toEqual({ object: { title: 'Crêp' }, isLoading: false, error: undefined });
    await done;
    expect(fetcher.calls[0]!.init.signal!.aborted).toBe(true);
    expect(body.open).toBe(false);
    expect(body.cancels).toHaveLength(1);
    expect(store.getSnapshot()).toEqual({ object: { title: 'Crêp' }, isLoading: false, error: undefined });
    expect(finishes).toEqual([]);
    expect(errors).toEqual([]);
    store.stop(); // nothing running: nothing changes
    expect(store.getSnapshot().object).toEqual({ title: 'Crêp' });
  });

  it('stop() before the response arrives aborts the fetch', async () => {
    let answer!: (response: Response) => void;
    const fetcher = fakeFetch(() => new Promise<Response>((resolve) => (answer = resolve)));
    const store = new ObjectStore({ api: '/a', schema: recipe, fetch: fetcher, schedule: 'sync' });
    const done = store.submit(1);
    await until(() => fetcher.calls.length === 1, 'the request');
    store.stop();
    const late = fedBody();
    answer(new Response(late.stream));
    await done;
    expect(fetcher.calls[0]!.init.signal!.aborted).toBe(true);
    expect(store.getSnapshot()).toEqual({ object: undefined, isLoading: false, error: undefined });
    await until(() => !late.open, 'the late body cancelled');
  });

  it('a new submit stops the request before it: the old body is cancelled, its chunks never show, its onFinish never runs', async () => {
    const bodies = [fedBody(), fedBody()];
    let n = 0;
    const fetcher = fakeFetch(() => new Response(bodies[n++]!.stream));
    const finishes: unknown[] = [];
    const store = new ObjectStore({ api: '/a', schema: recipe, fetch: fetcher, schedule: 'sync', onFinish: (event) => void finishes.push(event.object) });
    const first = store.submit('one');
    bodies[0]!.push('{"title":"one');
    await until(() => store.getSnapshot().object !== undefined, 'the first body');
    const second = store.submit('two');
    expect(store.getSnapshot()).toEqual({ object: undefined, isLoading: true, error: undefined });
    await first;
    expect(bodies[0]!.open).toBe(false);
    bodies[1]!.push(TEXT);
    bodies[1]!.close();
    await second;
    expect(store.getSnapshot()).toEqual({ object: RECIPE, isLoading: false, error: undefined });
    expect(finishes).toEqual([RECIPE]);
    expect(fetcher.calls.map((call) => call.body)).toEqual(['one', 'two']);
  });

  it('clear() stops and forgets the object and the error', async () => {
    const { store } = storeOf(bodyOf(['nope']));
    await store.submit({ dish: 'x' });
    expect(store.getSnapshot().error?.code).toBe('invalid-json');
    store.clear();
    expect(store.getSnapshot()).toEqual({ object: undefined, isLoading: false, error: undefined });
  });
});

describe('ObjectStore on a bad response: a typed ObjectStreamError in `error`, onError, the request ended', () => {
  it('an HTTP error status: code http-error, the status, the body’s text as the message (as the AI SDK’s useObject shows it); no onFinish', async () => {
    const { store, finishes, errors } = storeOf(() => new Response('Rate limited: try again in 20 s', { status: 429, statusText: 'Too Many Requests' }));
    await store.submit({ dish: 'x' });
    const { error, isLoading, object } = store.getSnapshot();
    expect(error).toBeInstanceOf(ObjectStreamError);
    expect(error).toMatchObject({ name: 'ObjectStreamError', code: 'http-error', status: 429, message: 'Rate limited: try again in 20 s' });
    expect([isLoading, object]).toEqual([false, undefined]);
    expect(errors).toEqual([error]);
    expect(finishes).toEqual([]);
  });

  it('an HTTP error without a body says the status; a long error body is read up to maxBytes and cut to 1000 characters', async () => {
    const empty = storeOf(() => new Response(null, { status: 503, statusText: 'Service Unavailable' }));
    await empty.store.submit({ dish: 'x' });
    expect(empty.store.getSnapshot().error).toMatchObject({ code: 'http-error', status: 503, message: 'the server answered 503 Service Unavailable' });

    const body = fedBody();
    const long = storeOf(() => new Response(body.stream, { status: 500 }), { maxBytes: 4096 });
    const done = long.store.submit({ dish: 'x' });
    for (let i = 0; i < 64 && body.open; i++) {
      body.push('x'.repeat(1024));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await done;
    const error = long.store.getSnapshot().error!;
    expect(error.code).toBe('http-error');
    expect(error.message.length).toBeLessThanOrEqual(1000);
    expect(body.open).toBe(false); // cancelled once maxBytes were read, not read to the end
  });

  it('a body that is not JSON (an HTML page served with 200): code invalid-json with the parser’s error, the body cancelled, onFinish with the error', async () => {
    const body = fedBody();
    const { store, fetcher, finishes, errors } = storeOf(body);
    const done = store.submit({ dish: 'x' });
    body.push('<!doctype html><p>Sorry</p>');
    await done;
    const error = store.getSnapshot().error!;
    expect(error).toMatchObject({ name: 'ObjectStreamError', code: 'invalid-json' });
    expect(error.cause).toBeInstanceOf(JsonStreamError);
    expect((error.cause as JsonStreamError).offset).toBe(0);
    await until(() => !body.open, 'the body cancelled');
    expect(fetcher.calls[0]!.init.signal!.aborted).toBe(true);
    expect(errors).toEqual([error]);
    expect(finishes).toEqual([{ object: undefined, error }]);
  });

  it('text after the object: invalid-json, the object kept', async () => {
    const { store } = storeOf(bodyOf(['{"title":"a"} {"title":"b"}']));
    await store.submit({ dish: 'x' });
    expect(store.getSnapshot()).toMatchObject({ object: { title: 'a' }, isLoading: false, error: { code: 'invalid-json' } });
  });

  it('a body that ends before its JSON does: unexpected-end, what arrived stays', async () => {
    const { store, finishes } = storeOf(bodyOf(['{"title":"Crê', 'pes","servings":65']));
    await store.submit({ dish: 'x' });
    expect(store.getSnapshot()).toMatchObject({ object: { title: 'Crêpes' }, isLoading: false, error: { code: 'unexpected-end' } });
    expect(finishes[0]!.error?.code).toBe('unexpected-end');
  });

  it('an empty body: unexpected-end', async () => {
    const { store } = storeOf(bodyOf([]));
    await store.submit({ dish: 'x' });
    expect(store.getSnapshot()).toMatchObject({ object: undefined, error: { code: 'unexpected-end' } });
  });

  it('a body beyond maxBytes: max-bytes, the body cancelled, nothing past the limit parsed', async () => {
    const body = fedBody();
    const { store } = storeOf(body, { maxBytes: 64 });
    const done = store.submit({ dish: 'x' });
    body.push('{"title":"');
    for (let i = 0; i < 1000 && body.open; i++) {
      body.push('y'.repeat(16));
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    await done;
    const { object, error } = store.getSnapshot();
    expect(error).toMatchObject({ code: 'max-bytes', message: 'the response grew beyond maxBytes (64)' });
    expect(body.open).toBe(false);
    expect((object as { title: string }).title.length).toBeLessThanOrEqual(64);
  });

  it('the JSON limits: max-depth, max-string-length, max-length', async () => {
    const cases = [
      [{ maxDepth: 3 }, '{"a":{"b":{"c":{"d":1}}}}', 'max-depth'],
      [{ maxStringLength: 4 }, '{"title":"Crêpes"}', 'max-string-length'],
      [{ maxLength: 10 }, '{"title":"Crêpes"}', 'max-length'],
    ] as const;
    for (const [limits, text, code] of cases) {
      const { store } = storeOf(bodyOf([text]), limits);
      await store.submit({ dish: 'x' });
      expect(store.getSnapshot().error?.code, code).toBe(code);
    }
  });

  it('a fetch that fails (a network error) and a body that breaks off: fetch-failed with the cause, the object so far kept', async () => {
    const network = new TypeError('Failed to fetch');
    const failed = storeOf(() => {
      throw network;
    });
    await failed.store.submit({ dish: 'x' });
    expect(failed.store.getSnapshot().error).toMatchObject({ code: 'fetch-failed', cause: network });
    expect(failed.finishes).toEqual([]);

    const body = fedBody();
    const broken = storeOf(body);
    const done = broken.store.submit({ dish: 'x' });
    body.push('{"title":"Cr');
    await until(() => broken.store.getSnapshot().object !== undefined, 'the first chunk');
    body.error(new TypeError('network error'));
    await done;
    expect(broken.store.getSnapshot()).toMatchObject({ object: { title: 'Cr' }, isLoading: false, error: { code: 'fetch-failed', message: 'the response broke off: network error' } });
  });

  it('a response without a body: no-body', async () => {
    const { store } = storeOf(() => new Response(null, { status: 200 }));
    await store.submit({ dish: 'x' });
    expect(store.getSnapshot().error?.code).toBe('no-body');
  });

  it('an input that is not JSON (a BigInt): fetch-failed, no request made', async () => {
    const { store, fetcher } = storeOf(bodyOf([TEXT]));
    await store.submit({ dish: 1n } as never);
    expect(store.getSnapshot().error).toMatchObject({ code: 'fetch-failed', message: expect.stringMatching(/^the input cannot be sent as JSON: /) });
    expect(fetcher.calls).toEqual([]);
  });

  it('a headers function that throws: fetch-failed, no request made', async () => {
    const { store, fetcher } = storeOf(bodyOf([TEXT]), {
      headers: () => {
        throw new Error('no token');
      },
    });
    await store.submit({ dish: 'x' });
    expect(store.getSnapshot().error).toMatchObject({ code: 'fetch-failed' });
    expect(fetcher.calls).toEqual([]);
  });
});

describe('ObjectStore refuses misuse at construction', () => {
  it('without api, with a schema that is none, a bad maxBytes or limit', () => {
    expect(() => new ObjectStore({ schema: recipe } as never)).toThrow(/give `api`/);
    expect(() => new ObjectStore({ api: '/a', schema: { type: 'object' } } as never)).toThrow(/neither a Standard Schema v1/);
    expect(() => new ObjectStore({ api: '/a', schema: null } as never)).toThrow(TypeError);
    expect(() => new ObjectStore({ api: '/a', schema: recipe, maxBytes: 0 })).toThrow(/maxBytes must be a positive integer/);
    expect(() => new ObjectStore({ api: '/a', schema: recipe, maxDepth: 0 })).toThrow(RangeError);
  });
});
