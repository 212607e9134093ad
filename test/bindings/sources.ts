/**
 * What the binding tests share (in Node and, bundled, in the React page): a source the test feeds
 * event by event that records every cancel with its reason, and the reason a binding cancels with.
 */
import type { PipelineEvent } from '../../src/index.ts';

/** A `ReadableStream` that the test feeds and ends, recording each cancel's reason. */
export interface FedSource<T = PipelineEvent> {
  readonly stream: ReadableStream<T>;
  /** The reasons it was cancelled with, in order (one cancel at most reaches a source). */
  readonly cancels: unknown[];
  /** Enqueue a chunk (nothing once the stream was cancelled). */
  push(chunk: T): void;
  close(): void;
}

export function fedSource<T = PipelineEvent>(initial: readonly T[] = []): FedSource<T> {
  const cancels: unknown[] = [];
  let controller!: ReadableStreamDefaultController<T>;
  const stream = new ReadableStream<T>({
    start(c) {
      controller = c;
      for (const chunk of initial) c.enqueue(chunk);
    },
    cancel(reason) {
      cancels.push(reason);
    },
  });
  return {
    stream,
    cancels,
    push: (chunk) => {
      if (cancels.length === 0) controller.enqueue(chunk);
    },
    close: () => controller.close(),
  };
}

/** An event as a line of an argstream NDJSON relay. */
export const ndjsonLine = (event: PipelineEvent): Uint8Array => new TextEncoder().encode(`${JSON.stringify(event)}\n`);

/** The headers of an NDJSON relay response. */
export const NDJSON = { 'content-type': 'application/x-ndjson' };

/** A `message` part of slot 0. */
export const message = (text: string): PipelineEvent => ({ type: 'part', index: 0, part: { type: 'message', text } });

/** Let timers run: the release of a binding cancels its source one macrotask later. */
export const macrotask = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** A few macrotasks: what a test waits for before it says that something did not happen. */
export async function settled(): Promise<void> {
  for (let i = 0; i < 5; i++) await macrotask();
}

/** The reason a binding cancels the source with when the turn is no longer shown. */
export function isUnmountReason(reason: unknown): boolean {
  return reason instanceof DOMException && reason.name === 'AbortError' && reason.message === 'the component showing the turn went away';
}

/** Whether this is CI, where a framework that is not installed fails its tests instead of skipping them. */
export const IN_CI = ((ci) => ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0')((globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env['CI']);
