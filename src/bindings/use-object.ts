/**
 * `useObject` of `argstream/react`: the AI SDK's `useObject`, with the response parsed once.
 *
 * @module
 */
import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { ObjectStore, type DeepPartial, type InferObject, type ObjectFinishEvent, type ObjectSchema, type ObjectStoreOptions } from '../store/object-store.ts';
import type { ObjectStreamError } from '../store/object-stream-error.ts';

/**
 * Options of {@link useObject}: the AI SDK's (`api`, `schema`, `initialValue`, `fetch`, `headers`,
 * `credentials`, `onFinish`, `onError`), and argstream's limits and `schedule` (see
 * `ObjectStoreOptions`). Read at each `submit`, from the latest render.
 */
export interface UseObjectOptions<S extends ObjectSchema, RESULT = InferObject<S>> extends Omit<ObjectStoreOptions<S>, 'initialValue' | 'onFinish'> {
  /** The object before the first `submit`. @default undefined */
  readonly initialValue?: DeepPartial<RESULT>;
  /** Called once the body ended, with the schema's object or the error that left none (see `ObjectStoreOptions.onFinish`). */
  readonly onFinish?: (event: ObjectFinishEvent<RESULT>) => void | PromiseLike<void>;
}

/** What {@link useObject} returns: the AI SDK's `useObject` helpers. */
export interface UseObjectHelpers<RESULT, INPUT> {
  /** POST `input` as JSON to `api`, and stream the answer into `object` (a running request is stopped first). */
  readonly submit: (input: INPUT) => void;
  /** The object so far: partial while it streams, `undefined` before its first character. */
  readonly object: DeepPartial<RESULT> | undefined;
  /** Why the latest request failed (an `ObjectStreamError` with a `code`), or `undefined`. */
  readonly error: ObjectStreamError | undefined;
  /** A request is running. */
  readonly isLoading: boolean;
  /** End the running request at once (its `fetch` is aborted); the object so far stays. */
  readonly stop: () => void;
  /** Stop, and forget the object and the error. */
  readonly clear: () => void;
}

/**
 * The AI SDK's `useObject` hook (`@ai-sdk/react`; `experimental_useObject` in `ai` 6), backed by
 * argstream's `ObjectStore`: the same options, the same helpers, the same request (a POST of the
 * input as JSON) and the same response (the JSON text of one object, as
 * `streamText({ output: Output.object({ schema }) }).toTextStreamResponse()` sends it) — so a page
 * switches by changing its import — but the text is parsed once as it arrives, where the AI SDK
 * re-parses all of it at every chunk, and the component re-renders at most once per frame.
 *
 * What differs: numbers, booleans and `null` appear once complete (the AI SDK shows `6` of a `650`
 * still arriving); a body that is not one JSON document, an HTTP error status, a network error or
 * a body beyond `maxBytes` is an `ObjectStreamError` in `error` (the AI SDK leaves the object
 * `undefined` without an error for a body that does not parse); a new `submit` and the component's
 * unmount stop the running request; there is no `id` (sharing one object between components):
 * share the component's state instead.
 * @example
 * ```tsx
 * import { useObject } from 'argstream/react'; // was: import { useObject } from '@ai-sdk/react';
 * const recipe = z.object({ title: z.string(), steps: z.array(z.string()) });
 * function Recipe() {
 *   const { object, submit, isLoading, error, stop } = useObject({ api: '/api/recipe', schema: recipe });
 *   return (
 *     <>
 *       <button onClick={() => submit({ dish: 'pancakes' })} disabled={isLoading}>Cook</button>
 *       {isLoading && <button onClick={stop}>Stop</button>}
 *       {error && <p>{error.message}</p>}
 *       <h2>{object?.title}</h2>
 *       <ol>{object?.steps?.map((step, i) => <li key={i}>{step}</li>)}</ol>
 *     </>
 *   );
 * }
 * ```
 */
export function useObject<S extends ObjectSchema, RESULT = InferObject<S>, INPUT = unknown>(options: UseObjectOptions<S, RESULT>): UseObjectHelpers<RESULT, INPUT> {
  const latest = useRef(options);
  latest.current = options;
  // The store reads its options when it needs them: through this, the latest render's.
  const [store] = useState(() => new ObjectStore<S, INPUT>(new Proxy({}, { get: (_, key) => (latest.current as unknown as Record<PropertyKey, unknown>)[key] }) as ObjectStoreOptions<S>));
  // A request ends with the component; not at React's development-mode extra unmount, which is
  // followed at once by a mount: the stop waits a macrotask for it.
  const stopping = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    clearTimeout(stopping.current);
    return () => {
      stopping.current = setTimeout(() => store.stop(), 0);
    };
  }, [store]);
  const actions = useMemo(
    () => ({
      submit: (input: INPUT) => void store.submit(input),
      stop: () => store.stop(),
      clear: () => store.clear(),
    }),
    [store],
  );
  const snapshot = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
  return { object: snapshot.object as DeepPartial<RESULT> | undefined, error: snapshot.error, isLoading: snapshot.isLoading, ...actions };
}
