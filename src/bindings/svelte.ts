/**
 * `argstream/svelte`: a streaming turn as a Svelte store (Svelte 5 with runes, and Svelte 3 and 4:
 * the store contract is the same, and each is tested).
 *
 * @module
 */
import { hold, storeFor, type TurnSource, type TurnSourceOptions } from '../store/connect.ts';
import type { ToolSchemas } from '../store/tools.ts';
import type { TurnSnapshot } from '../store/turn-store.ts';

export type { ExternalTurn, TurnSource, TurnSourceOptions } from '../store/connect.ts';

/** A readable Svelte store (the store contract: `subscribe(run)` calls `run` at once and at each change). */
export interface TurnReadable<T extends ToolSchemas = {}> {
  subscribe(run: (snapshot: TurnSnapshot<T>) => void): () => void;
}

/**
 * The snapshot of a streaming turn as a Svelte store: in a component, `$turn` is the snapshot,
 * replaced as the turn changes (at most once per animation frame by default), unchanged parts
 * keeping their identity. It implements Svelte's store contract itself, so it needs no import of
 * Svelte and works in runes mode (`$turn` in markup and in `$derived`) as in older components.
 *
 * `source` is a `ReadableStream` of events, a `Response` (an argstream relay's; with `decoder`, a
 * provider's own), a `TurnStore` or another `ExternalTurn` (`ArgstreamChatTransport`: shown as it
 * is, typed by its own tools, so `turnStore(transport)` needs no options). The stream is read from the first subscription and cancelled
 * when the last subscriber leaves (the component is destroyed).
 * @example
 * ```svelte
 * <script lang="ts">
 *   import { turnStore } from 'argstream/svelte';
 *   let { response }: { response: Response } = $props();
 *   const turn = $derived(turnStore(response, { tools }));
 * </script>
 * {#each $turn.calls as call (call.toolCallId)}<p>{call.toolName}: {call.status}</p>{/each}
 * ```
 */
export function turnStore<T extends ToolSchemas = {}>(source: TurnSource<T>, options: TurnSourceOptions<T> = {}): TurnReadable<T> {
  const store = storeFor(source, options);
  return {
    subscribe(run) {
      let last = store.getSnapshot();
      run(last);
      const unsubscribe = store.subscribe(() => {
        const next = store.getSnapshot();
        if (next === last) return;
        last = next;
        run(next);
      });
      const release = hold(store, source, options);
      return () => {
        unsubscribe();
        release();
      };
    },
  };
}
