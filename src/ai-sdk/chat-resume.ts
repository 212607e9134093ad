/**
 * `ArgstreamChatTransport`'s own resume of a cut response: asking for it again within the bounds.
 * A chunk of its own, which the transport starts loading with its first response: a page loads it
 * after it rendered, and before a cut needs it.
 *
 * @module
 */
import { RelayError } from '../errors.ts';
import { RetryPolicy, type RetryOptions } from '../relay/retry-policy.ts';

/**
 * One response's resumes: the request the AI SDK's `reconnectToStream` sends, the server's way,
 * and the state of the attempts (kept here, for the reader to end a wait or a request at once).
 */
export interface Resumer {
  /** The bounds of the resumes. */
  readonly options: RetryOptions;
  /** Whether the server replays a response from its start on a resume. */
  readonly replay: boolean;
  /** The AI SDK's resume request (`HttpChatTransport.reconnectToStream`) with `signal`: settles once it has its response. */
  readonly reconnect: (signal: AbortSignal) => Promise<unknown>;
  /**
   * The resumes' probes, by their request's signal: the transport's `fetch` gives each its
   * response, and hands the AI SDK's transport what it returns.
   */
  readonly probes: WeakMap<AbortSignal, (response: Response) => Response>;
  retries?: RetryPolicy;
  /** Ends the wait before a resume and the resume's request at once (the user stopped, the stream was cancelled). */
  interrupt?: () => void;
}

/**
 * Ask for the response again until a body comes, within the bounds: a network error, a 5xx (or
 * 408, 425, 429) or a response without a body is tried again; a 204 (no active stream:
 * `RelayError` `'incomplete'`), another status (`'invalid-input'`), the bounds run out
 * (`'incomplete'`, the last failure as `cause`) or the user's stop (`stopped()`) end the response.
 * `cause` is what cut it (`undefined`: the body ended before the message's end).
 */
export async function reopenResponse(resumer: Resumer, cause: unknown, stopped: () => boolean): Promise<ReadableStream<Uint8Array>> {
  const retries = (resumer.retries ??= new RetryPolicy(resumer.options, 'ArgstreamChatTransport'));
  let attempt: AbortController | undefined;
  resumer.interrupt = () => {
    retries.interrupt();
    attempt?.abort();
  };
  // What the AI SDK's `Chat` takes for the user's stop, whatever stopped it.
  const stop = (): unknown => new DOMException('the stream was stopped', 'AbortError');
  let error: unknown = cause ?? new RelayError('incomplete', 'the response ended before its end (no finish chunk)');
  for (;;) {
    const step = retries.next(error);
    if ('exhausted' in step) {
      const { attempts, elapsedMs } = step.exhausted;
      throw new RelayError('incomplete', `the response was cut and could not be resumed: ${attempts} ${attempts === 1 ? 'attempt' : 'attempts'} in ${elapsedMs} ms`, { cause: error });
    }
    await retries.sleep(step.delayMs);
    if (stopped()) throw stop();
    attempt = new AbortController();
    let status: number | undefined;
    let body: ReadableStream<Uint8Array> | null = null;
    // The body is kept for the reader, not handed to the AI SDK's transport: given none, it
    // throws after its checks of the status (a 204 is `null` before them), and parses nothing.
    resumer.probes.set(attempt.signal, (response) => {
      status = response.status;
      if (!response.ok || status === 204) return response;
      body = response.body;
      return new Response(null, { status });
    });
    try {
      await resumer.reconnect(attempt.signal);
    } catch (failure) {
      error = failure;
    } finally {
      resumer.probes.delete(attempt.signal);
    }
    const got = body as ReadableStream<Uint8Array> | null;
    if (stopped()) {
      void got?.cancel().catch(() => undefined);
      throw stop();
    }
    if (got !== null) return got;
    if (status === 204) throw new RelayError('incomplete', 'the server has no active stream to resume (204): the response ends where it was cut', { cause });
    // No response (a network error), a response without a body, a 5xx: asked again.
    if (status === undefined || status < 300 || status >= 500 || status === 408 || status === 425 || status === 429) continue;
    throw new RelayError('invalid-input', `the server answered the resume with ${status}`, { cause: error });
  }
}
