import type { StreamEvent } from '../../types.ts';

/**
 * The synchronous core of one provider API: decoded records in, {@link StreamEvent}s out.
 *
 * A record is one SSE event's parsed `data` (with its `event:` name), one NDJSON line, one AWS
 * event-stream frame's payload (with its `:event-type`), or an object an official SDK yields
 * (then `event` is undefined and the adapter reads the type from the object itself).
 */
export interface ProviderAdapter {
  /** Translate one record. Throws `ProviderError` for an error the provider reports. */
  push(data: unknown, event?: string): StreamEvent[];
  /** The input ended: emit what is still open (a `finished` the provider never sent, …). */
  end(): StreamEvent[];
}
