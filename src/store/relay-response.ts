/**
 * The reading of an argstream relay's `Response`: its SSE or NDJSON decoder, with the batch reader
 * of the relay's wire form. `TurnStore.consume` reads a `Response` without a `decoder` with it; the
 * framework bindings load it (a dynamic import: a bundler makes it a chunk of its own) when they
 * are first given such a `Response`, or no source yet. Internal.
 *
 * @module
 */
import { RelayError } from '../errors.ts';
import { EventStreamDecoderCore } from '../relay/event-stream-decoder.ts';
import { NdjsonDecoderCore } from '../relay/ndjson.ts';
import type { OpenedResponse } from './turn-store.ts';

/** The body of an argstream relay's `Response` and its decoder: SSE, or NDJSON by its `content-type`. */
export async function openRelay(response: Response): Promise<OpenedResponse> {
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new RelayError('invalid-input', `the relay answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
  }
  if (response.body === null) throw new RelayError('invalid-input', 'the relay response has no body');
  const type = response.headers.get('content-type') ?? '';
  const core = /ndjson|jsonl|json-seq/i.test(type) ? new NdjsonDecoderCore<unknown>({}) : new EventStreamDecoderCore<unknown>({});
  return { reader: response.body.getReader(), core };
}
