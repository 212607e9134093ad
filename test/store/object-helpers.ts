/**
 * What the tests of `ObjectStore` and `useObject` share: whether a partial object is a state the
 * final one passes through as its JSON text streams, and a `fetch` whose response body the test
 * feeds, that records the requests and what cancelled the body.
 */

/**
 * Whether `partial` is a state that `final` passes through while its JSON text streams in order:
 * a string a prefix of the final string; a number, boolean or `null` equal to the final one (never
 * a number cut short); an array no longer than the final one, every element equal to the final's
 * but the last, which is a prefix state of its counterpart; an object whose keys are the first keys
 * of the final object, in order, every member equal but the last, which is a prefix state. Returns
 * where it is not, or `undefined` when it is.
 */
export function prefixStateMismatch(partial: unknown, final: unknown, path = ''): string | undefined {
  if (typeof partial === 'string') return typeof final === 'string' && final.startsWith(partial) ? undefined : `${path || '/'}: ${JSON.stringify(partial)} does not begin ${JSON.stringify(final)}`;
  if (partial === null || typeof partial !== 'object') return Object.is(partial, final) ? undefined : `${path || '/'}: ${JSON.stringify(partial)} is not ${JSON.stringify(final)}`;
  if (Array.isArray(partial)) {
    if (!Array.isArray(final) || partial.length > final.length) return `${path || '/'}: ${JSON.stringify(partial)} is not a start of ${JSON.stringify(final)}`;
    for (let i = 0; i < partial.length; i++) {
      const last = i === partial.length - 1;
      const problem = last ? prefixStateMismatch(partial[i], final[i], `${path}/${i}`) : equalMismatch(partial[i], final[i], `${path}/${i}`);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (final === null || typeof final !== 'object' || Array.isArray(final)) return `${path || '/'}: an object where the final value is ${JSON.stringify(final)}`;
  const keys = Object.keys(partial);
  const finalKeys = Object.keys(final);
  if (keys.length > finalKeys.length || keys.some((key, i) => finalKeys[i] !== key)) return `${path || '/'}: keys ${JSON.stringify(keys)} are not the first of ${JSON.stringify(finalKeys)}`;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const last = i === keys.length - 1;
    const a = (partial as Record<string, unknown>)[key];
    const b = (final as Record<string, unknown>)[key];
    const problem = last ? prefixStateMismatch(a, b, `${path}/${key}`) : equalMismatch(a, b, `${path}/${key}`);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function equalMismatch(a: unknown, b: unknown, path: string): string | undefined {
  return JSON.stringify(a) === JSON.stringify(b) ? undefined : `${path}: ${JSON.stringify(a)} is not the final ${JSON.stringify(b)}`;
}

/** A response body the test feeds, and what cancelled it. */
export interface FedBody {
  readonly stream: ReadableStream<Uint8Array>;
  push(chunk: string | Uint8Array): void;
  close(): void;
  error(reason: unknown): void;
  /** The reasons it was cancelled with (by the reader, or by the request's abort). */
  readonly cancels: unknown[];
  /** Whether the stream is still open (neither closed, errored nor cancelled). */
  readonly open: boolean;
}

export function fedBody(): FedBody {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const cancels: unknown[] = [];
  let open = true;
  const utf8 = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    start: (c) => void (controller = c),
    cancel: (reason) => {
      open = false;
      cancels.push(reason);
    },
  });
  return {
    stream,
    push: (chunk) => controller.enqueue(typeof chunk === 'string' ? utf8.encode(chunk) : chunk),
    close: () => {
      open = false;
      controller.close();
    },
    error: (reason) => {
      open = false;
      controller.error(reason);
    },
    cancels,
    get open() {
      return open;
    },
  };
}

/** A request the fake `fetch` received. */
export interface FetchCall {
  readonly url: string;
  readonly init: RequestInit;
  /** The body, parsed. */
  readonly body: unknown;
  readonly headers: Record<string, string>;
}

/**
 * A `fetch` answering each request with what `respond` makes of it; as the platform's, an abort of
 * the request's signal rejects the pending `fetch` and errors a body still being read, with the
 * signal's reason.
 */
export function fakeFetch(respond: (call: FetchCall) => Response | Promise<Response>): typeof fetch & { readonly calls: FetchCall[] } {
  const calls: FetchCall[] = [];
  const fetcher = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const call: FetchCall = {
      url: String(input),
      init,
      body: typeof init.body === 'string' ? JSON.parse(init.body) : init.body,
      headers: Object.fromEntries(new Headers(init.headers).entries()),
    };
    calls.push(call);
    const signal = init.signal ?? undefined;
    if (signal?.aborted === true) throw signal.reason;
    const response = await respond(call);
    if (signal === undefined || signal === null || response.body === null) return response;
    // The platform errors the body of an aborted request: a pipe through a stream that does.
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const pipe = new AbortController();
    signal.addEventListener('abort', () => pipe.abort(signal.reason), { once: true });
    void response.body.pipeTo(writable, { signal: pipe.signal }).catch(() => undefined);
    return new Response(readable, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return Object.assign(fetcher, { calls });
}
