/**
 * `ObjectStore`: the object of a structured-output response as it streams — what the AI SDK's
 * `useObject` shows — parsed once, linearly, for any UI.
 *
 * @module
 */
import { JsonStreamError } from '../errors.ts';
import { IncrementalJsonValueParser } from '../json/incremental-json-value-parser.ts';
import type { JsonLimits } from '../json/scanner.ts';
import type { JsonValue } from '../types.ts';
import type { StandardSchemaResult } from '../views/argument-validation-core.ts';
import { ObjectStreamError } from './object-stream-error.ts';
import type { SchemaOutput, StandardSchemaV1 } from './tools.ts';

/**
 * A schema of the AI SDK's own kind (`jsonSchema<T>(…)`, `zodSchema(…)`): its type in `_type`,
 * and an optional `validate` that answers `{ success, value }` or `{ success: false, error }`.
 */
export interface AiSdkSchema<T = unknown> {
  readonly _type: T;
  readonly validate?: (value: unknown) => AiSdkValidation<T> | PromiseLike<AiSdkValidation<T>>;
  readonly jsonSchema: unknown;
}

/** What an {@link AiSdkSchema}'s `validate` answers. */
export type AiSdkValidation<T> = { readonly success: true; readonly value: T } | { readonly success: false; readonly error: Error };

/**
 * The schema of the object: a Standard Schema v1 (zod ≥ 3.24, valibot ≥ 1, arktype ≥ 2, …) or an
 * AI SDK schema (`jsonSchema<T>(…)`). It types the object and validates the complete one.
 */
export type ObjectSchema = StandardSchemaV1 | AiSdkSchema;

/** The type of a complete object of schema `S`: a Standard Schema's output, an AI SDK schema's `_type`. */
export type InferObject<S> = S extends StandardSchemaV1 ? SchemaOutput<S> : S extends { readonly _type: infer T } ? T : unknown;

/**
 * What an object of type `T` may look like while it streams: the AI SDK's `DeepPartial`, member
 * for member (every member optional, array elements possibly `undefined`), so that code written
 * against the AI SDK's `useObject` compiles against argstream's. argstream shows numbers, booleans
 * and `null` only once complete; a string may be a prefix of its final text.
 */
export type DeepPartial<T> = T extends
  | null
  | undefined
  | string
  | number
  | boolean
  | symbol
  | bigint
  | void
  | Date
  | RegExp
  | ((...args: never[]) => unknown)
  | (new (...args: never[]) => unknown)
  ? T
  : T extends Map<infer K, infer V>
    ? {} & Map<DeepPartial<K>, DeepPartial<V>>
    : T extends Set<infer I>
      ? {} & Set<DeepPartial<I>>
      : T extends ReadonlyMap<infer K, infer V>
        ? {} & ReadonlyMap<DeepPartial<K>, DeepPartial<V>>
        : T extends ReadonlySet<infer I>
          ? {} & ReadonlySet<DeepPartial<I>>
          : T extends object
            ? T extends ReadonlyArray<infer I>
              ? I[] extends T
                ? readonly I[] extends T
                  ? ReadonlyArray<DeepPartial<I | undefined>>
                  : Array<DeepPartial<I | undefined>>
                : PartialObject<T>
              : PartialObject<T>
            : unknown;

/** Every member of `T` optional and partial. */
type PartialObject<T extends object> = { [K in keyof T]?: DeepPartial<T[K]> };

/** A value, a promise of it, or a function giving either: read at each request. */
export type Resolvable<T> = T | PromiseLike<T> | (() => T | PromiseLike<T>);

/** What `onFinish` is given once the body ended. */
export interface ObjectFinishEvent<T> {
  /** The complete object as the schema gives it back (after its transforms), or `undefined`. */
  readonly object: T | undefined;
  /**
   * Why there is none: the schema refused the document (`invalid-object`), or the body was not one
   * whole JSON document (`invalid-json`, `unexpected-end`, a limit).
   */
  readonly error: ObjectStreamError | undefined;
}

/** When the store tells its listeners (as `TurnStore`'s `schedule`). */
export type ObjectStoreSchedule = 'frame' | 'task' | 'sync' | ((notify: () => void) => void);

/** Options of {@link ObjectStore}: the AI SDK's `useObject` options, and argstream's limits. */
export interface ObjectStoreOptions<S extends ObjectSchema = ObjectSchema> extends JsonLimits {
  /** Where `submit` POSTs its input as JSON: an endpoint that answers with the JSON text of the object (`toTextStreamResponse()`). */
  readonly api: string;
  /** The object's schema: it types the object, and validates the complete one for `onFinish`. */
  readonly schema: S;
  /** The object before the first request (and after none came yet). @default undefined */
  readonly initialValue?: DeepPartial<InferObject<S>>;
  /** The `fetch` to call (a test's, one that adds authentication). @default globalThis.fetch */
  readonly fetch?: typeof globalThis.fetch;
  /** Headers of each request, after `Content-Type: application/json`; a function is called at each request. */
  readonly headers?: Resolvable<Record<string, string> | Headers>;
  /** The request's credentials mode. @default the platform's ('same-origin') */
  readonly credentials?: RequestCredentials;
  /**
   * Called once the body ended: with the schema's object, or with the error that left none (the
   * schema's issues, a body that was not one whole JSON document). Not called when the request
   * failed before the body (`onError` only) nor when it was stopped.
   */
  readonly onFinish?: (event: ObjectFinishEvent<InferObject<S>>) => void | PromiseLike<void>;
  /** Called with the error that the snapshot's `error` shows (never for a stop). */
  readonly onError?: (error: ObjectStreamError) => void;
  /**
   * Longest body, in bytes (an error body too): a longer one ends the request with `max-bytes`.
   * @default 16 MiB (16 777 216)
   */
  readonly maxBytes?: number;
  /** When listeners are told of changes; the end of a request is told at once. @default 'frame' */
  readonly schedule?: ObjectStoreSchedule;
}

/** The object so far: what a UI renders. Immutable; a new object whenever something changed. */
export interface ObjectSnapshot<T> {
  /**
   * The object so far (`undefined` before its first character): each snapshot's value is never
   * changed afterwards and shares every unchanged object and array with the previous one. The
   * JSON as it came, not passed through the schema (`onFinish` gets the schema's).
   */
  readonly object: DeepPartial<T> | undefined;
  /** A request is running. */
  readonly isLoading: boolean;
  /** Why the latest request failed; `undefined` while it runs, after it ended well, or was stopped. */
  readonly error: ObjectStreamError | undefined;
}

/** One request: its abort controller. */
interface Running {
  readonly controller: AbortController;
}

const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;

/**
 * The client of a structured-output endpoint, for any UI: `submit(input)` POSTs the input as JSON,
 * and the response body — the JSON text of one object, as the AI SDK's
 * `streamText({ output: Output.object({ schema }) }).toTextStreamResponse()` (or ai 5 and 6's
 * `streamObject`) sends it — is parsed as it arrives, each byte once, into the snapshot's
 * `object`. `subscribe` and `getSnapshot` are React's `useSyncExternalStore` contract;
 * `useObject` (`argstream/react`) wraps it with the AI SDK's `useObject` shape.
 *
 * Where the AI SDK re-parses the whole text at every chunk (`parsePartialJson`: quadratic), this
 * parses each chunk once and builds a snapshot at most once per notification (per frame by
 * default), sharing what did not change. Numbers, `true`, `false` and `null` show once complete
 * (never the `6` of a `650` still arriving); a string grows.
 *
 * A new `submit` stops the request before it; `stop()` ends the request (the `fetch` is aborted,
 * the object so far stays, no error); a body that is not one JSON document, an HTTP error status,
 * a network error or a body longer than `maxBytes` ends it with an {@link ObjectStreamError} in
 * `error`.
 * @example
 * ```ts
 * const store = new ObjectStore({ api: '/api/recipe', schema: z.object({ title: z.string(), steps: z.array(z.string()) }) });
 * store.subscribe(() => render(store.getSnapshot().object)); // { title: 'Pan', steps: ['Heat'] } so far
 * await store.submit({ prompt: 'pancakes' });
 * ```
 */
export class ObjectStore<S extends ObjectSchema = ObjectSchema, Input = unknown> {
  readonly #options: ObjectStoreOptions<S>;
  readonly #schedule: (notify: () => void) => void;
  readonly #listeners = new Set<() => void>();
  #request: Running | undefined;
  /** The parser whose value the snapshot shows (the latest request's, also once it ended). */
  #parser: IncrementalJsonValueParser | undefined;
  #object: unknown;
  #isLoading = false;
  #error: ObjectStreamError | undefined;
  #dirty = false;
  #scheduled = false;
  /** Counts the notifications told at once: a scheduled one made before the latest of them is stale. */
  #told = 0;
  #snapshot: ObjectSnapshot<InferObject<S>>;

  /**
   * @throws {TypeError} without an `api`, or with a `schema` that is neither a Standard Schema nor
   *   an AI SDK schema, or a `maxBytes` that is not a positive integer.
   * @throws {RangeError} for a `maxDepth`, `maxStringLength` or `maxLength` that is not a positive number.
   */
  constructor(options: ObjectStoreOptions<S>) {
    if (typeof options?.api !== 'string') throw new TypeError('ObjectStore: give `api`, the endpoint that streams the object');
    const schema = options.schema as Partial<StandardSchemaV1 & AiSdkSchema> | null | undefined;
    if (typeof schema !== 'object' || schema === null || (typeof schema['~standard']?.validate !== 'function' && !('jsonSchema' in schema))) {
      throw new TypeError('ObjectStore: `schema` is neither a Standard Schema v1 (zod ≥ 3.24, valibot ≥ 1, arktype ≥ 2) nor an AI SDK schema (jsonSchema, zodSchema)');
    }
    const maxBytes = options.maxBytes;
    if (maxBytes !== undefined && (!Number.isInteger(maxBytes) || maxBytes <= 0)) throw new TypeError(`ObjectStore: maxBytes must be a positive integer, not ${String(maxBytes)}`);
    void new IncrementalJsonValueParser(limitsOf(options)); // the limits are checked here, not at the first submit
    this.#options = options;
    this.#schedule = scheduler(options.schedule ?? 'frame');
    this.#object = options.initialValue;
    this.#snapshot = Object.freeze({ object: this.#object as DeepPartial<InferObject<S>> | undefined, isLoading: false, error: undefined });
  }

  /**
   * Listen for changes (React's `useSyncExternalStore` contract); returns the unsubscribe function.
   * Bound to the store: pass it as it is.
   */
  readonly subscribe = (listener: () => void): (() => void) => {
    const entry = (): void => listener();
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  };

  /** The object so far: the same snapshot until something changed. Bound to the store: pass it as it is. */
  readonly getSnapshot = (): ObjectSnapshot<InferObject<S>> => {
    if (this.#dirty) {
      this.#dirty = false;
      const object = this.#parser === undefined ? this.#object : this.#parser.snapshot();
      const previous = this.#snapshot;
      if (object !== previous.object || this.#isLoading !== previous.isLoading || this.#error !== previous.error) {
        this.#snapshot = Object.freeze({ object: object as DeepPartial<InferObject<S>> | undefined, isLoading: this.#isLoading, error: this.#error });
      }
    }
    return this.#snapshot;
  };

  /**
   * POST `input` (as JSON) to `api` and read the answer into the snapshot, replacing the object
   * and the error of the request before (which is stopped if it still runs). Resolves once the
   * request ended, whichever way: an error of the request is in the snapshot and goes to
   * `onError`; it rejects only with what `onFinish` or `onError` throw.
   */
  async submit(input: Input): Promise<void> {
    this.#stopRequest();
    const parser = new IncrementalJsonValueParser({ ...limitsOf(this.#options), immutableSnapshots: true });
    const request: Running = { controller: new AbortController() };
    this.#request = request;
    this.#parser = undefined;
    this.#object = undefined;
    this.#error = undefined;
    this.#isLoading = true;
    this.#changed(true);
    const options = this.#options;
    const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    const current = (): boolean => this.#request === request;
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    let stage: 'request' | 'body' = 'request';
    try {
      let body: string;
      try {
        body = JSON.stringify(input);
      } catch (error) {
        throw new ObjectStreamError('fetch-failed', `the input cannot be sent as JSON: ${messageOf(error)}`, { cause: error });
      }
      const headers = await resolve(options.headers);
      if (!current()) return;
      const fetcher = options.fetch ?? globalThis.fetch;
      let response: Response;
      try {
        response = await fetcher(options.api, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...plainHeaders(headers) },
          ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
          signal: request.controller.signal,
          body,
        });
      } catch (error) {
        throw current() ? new ObjectStreamError('fetch-failed', `the request failed: ${messageOf(error)}`, { cause: error }) : error;
      }
      if (!current()) {
        await response.body?.cancel().catch(() => undefined);
        return;
      }
      if (!response.ok) throw await httpError(response, maxBytes, current);
      if (response.body === null) throw new ObjectStreamError('no-body', 'the response has no body');
      reader = response.body.getReader();
      stage = 'body';
      this.#parser = parser;
      let bytes = 0;
      for (;;) {
        let read: ReadableStreamReadResult<Uint8Array>;
        try {
          read = await reader.read();
        } catch (error) {
          throw current() ? new ObjectStreamError('fetch-failed', `the response broke off: ${messageOf(error)}`, { cause: error }) : error;
        }
        if (!current()) {
          void reader.cancel().catch(() => undefined);
          return;
        }
        if (read.done) break;
        bytes += read.value.byteLength;
        if (bytes > maxBytes) throw new ObjectStreamError('max-bytes', `the response grew beyond maxBytes (${maxBytes})`);
        parser.push(read.value);
        this.#changed(false);
      }
      parser.end();
    } catch (error) {
      if (!current()) return;
      const failure = toObjectError(error);
      this.#request = undefined;
      this.#isLoading = false;
      this.#error = failure;
      if (reader !== undefined) void reader.cancel(failure).catch(() => undefined);
      request.controller.abort(failure);
      this.#changed(true);
      options.onError?.(failure);
      if (stage === 'body') await options.onFinish?.({ object: undefined, error: failure });
      return;
    }
    // The document is complete: the request is over, the object final; then the schema's word.
    this.#request = undefined;
    this.#isLoading = false;
    this.#changed(true);
    if (options.onFinish !== undefined) {
      const value = parser.snapshot() as JsonValue;
      await options.onFinish(await validate(options.schema, value));
    }
  }

  /** End the running request, if any: its `fetch` is aborted, the object so far stays, no error. */
  stop(): void {
    if (!this.#stopRequest()) return;
    this.#isLoading = false;
    this.#changed(true);
  }

  /** Stop, and forget the object and the error. */
  clear(): void {
    this.#stopRequest();
    this.#parser = undefined;
    this.#object = undefined;
    this.#error = undefined;
    this.#isLoading = false;
    this.#changed(true);
  }

  /** Abort the running request; whether there was one. */
  #stopRequest(): boolean {
    const request = this.#request;
    if (request === undefined) return false;
    this.#request = undefined;
    request.controller.abort(new DOMException('the request was stopped', 'AbortError'));
    return true;
  }

  /** Something changed: tell the listeners `now`, or at the next scheduled moment. */
  #changed(now: boolean): void {
    this.#dirty = true;
    if (this.#listeners.size === 0) return;
    if (now) {
      this.#told++;
      this.#scheduled = false;
      for (const listener of [...this.#listeners]) listener();
      return;
    }
    if (this.#scheduled) return;
    this.#scheduled = true;
    const told = this.#told;
    this.#schedule(() => {
      if (told !== this.#told) return; // told since, at once
      this.#scheduled = false;
      for (const listener of [...this.#listeners]) listener();
    });
  }
}

function limitsOf(options: JsonLimits): JsonLimits {
  const limits: { -readonly [K in keyof JsonLimits]: JsonLimits[K] } = {};
  if (options.maxDepth !== undefined) limits.maxDepth = options.maxDepth;
  if (options.maxStringLength !== undefined) limits.maxStringLength = options.maxStringLength;
  if (options.maxLength !== undefined) limits.maxLength = options.maxLength;
  return limits;
}

async function resolve<T>(value: Resolvable<T> | undefined): Promise<T | undefined> {
  return typeof value === 'function' ? await (value as () => T | PromiseLike<T>)() : await value;
}

function plainHeaders(headers: Record<string, string> | Headers | undefined): Record<string, string> {
  if (headers === undefined) return {};
  if (typeof Headers !== 'undefined' && headers instanceof Headers) return Object.fromEntries(headers.entries());
  return headers as Record<string, string>;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An error of the request or the body as an {@link ObjectStreamError}. */
function toObjectError(error: unknown): ObjectStreamError {
  if (error instanceof ObjectStreamError) return error;
  if (error instanceof JsonStreamError && error.code !== 'closed') {
    const what = error.code === 'unexpected-end' ? 'the response ended before its JSON did' : 'the response is not the JSON of an object';
    return new ObjectStreamError(error.code, `${what}: ${error.message}`, { cause: error });
  }
  return new ObjectStreamError('fetch-failed', `reading the response failed: ${messageOf(error)}`, { cause: error });
}

/** The error of a response whose status is not 2xx: its body's text (at most `maxBytes` of it) is the message. */
async function httpError(response: Response, maxBytes: number, current: () => boolean): Promise<ObjectStreamError> {
  let text = '';
  const reader = response.body?.getReader();
  if (reader !== undefined) {
    const decoder = new TextDecoder();
    let bytes = 0;
    try {
      for (let read = await reader.read(); !read.done && current(); read = await reader.read()) {
        const room = maxBytes - bytes;
        bytes += read.value.byteLength;
        text += decoder.decode(read.value.byteLength > room ? read.value.subarray(0, room) : read.value, { stream: true });
        if (bytes >= maxBytes) break;
      }
      text += decoder.decode();
    } catch {
      // What arrived of the error body is what there is.
    } finally {
      void reader.cancel().catch(() => undefined);
    }
  }
  const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  return new ObjectStreamError('http-error', text.trim() === '' ? `the server answered ${status}` : text, { status: response.status });
}

/** The schema's verdict on the complete document, as `onFinish` is given it. */
async function validate<S extends ObjectSchema>(schema: S, value: JsonValue): Promise<ObjectFinishEvent<InferObject<S>>> {
  const standard = (schema as Partial<StandardSchemaV1>)['~standard'];
  try {
    if (standard !== undefined && typeof standard.validate === 'function') {
      const result: StandardSchemaResult = await standard.validate(value);
      if (result.issues === undefined) return { object: result.value as InferObject<S>, error: undefined };
      const first = result.issues[0];
      return { object: undefined, error: new ObjectStreamError('invalid-object', `the object does not match the schema${first === undefined ? '' : `: ${first.message}`}`, { issues: result.issues }) };
    }
    const check = (schema as AiSdkSchema).validate;
    if (check === undefined) return { object: value as InferObject<S>, error: undefined };
    const result = await check(value);
    if (result.success) return { object: result.value as InferObject<S>, error: undefined };
    return { object: undefined, error: new ObjectStreamError('invalid-object', `the object does not match the schema: ${result.error.message}`, { cause: result.error }) };
  } catch (error) {
    return { object: undefined, error: new ObjectStreamError('invalid-object', `the schema threw: ${messageOf(error)}`, { cause: error }) };
  }
}

function scheduler(schedule: ObjectStoreSchedule): (notify: () => void) => void {
  if (typeof schedule === 'function') return schedule;
  if (schedule === 'sync') return (notify) => notify();
  const frame = (globalThis as { requestAnimationFrame?: (callback: () => void) => unknown }).requestAnimationFrame;
  if (schedule === 'frame' && typeof frame === 'function') return (notify) => void frame.call(globalThis, notify);
  return (notify) => void setTimeout(notify, 0);
}
