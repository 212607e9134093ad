/**
 * `argstream/vue`: a streaming turn in a Vue 3 component, as a `shallowRef`.
 *
 * @module
 */
import { onScopeDispose, shallowRef, toValue, watch, type MaybeRefOrGetter, type ShallowRef } from 'vue';
import { hold, storeFor, type TurnSource, type TurnSourceOptions } from '../store/connect.ts';
import type { ToolSchemas } from '../store/tools.ts';
import type { TurnSnapshot } from '../store/turn-store.ts';

export type { ExternalTurn, TurnSource, TurnSourceOptions } from '../store/connect.ts';

/**
 * The snapshot of a streaming turn as a read-only `shallowRef`, replaced as the turn changes (at
 * most once per animation frame by default); every unchanged part keeps its identity, so child
 * components of unchanged calls do not update.
 *
 * `source` is a `ReadableStream` of events, a `Response` (an argstream relay's; with `decoder`, a
 * provider's own), a `TurnStore` or another `ExternalTurn` (`ArgstreamChatTransport`: shown as it
 * is, typed by its own tools, so `useTurn(transport)` needs no options), or a ref or getter of one:
 * a new source is a new turn. The
 * stream is read while the calling scope (the component) lives and cancelled when it is disposed.
 * @example
 * ```vue
 * <script setup lang="ts">
 * const response = shallowRef<Response>();
 * const turn = useTurn(response, { tools });
 * async function ask(prompt: string) { response.value = await fetch('/api/chat', { method: 'POST', body: prompt }); }
 * </script>
 * <template>
 *   <article v-for="call in turn.calls" :key="call.toolCallId">{{ call.toolName }} {{ call.status }}</article>
 * </template>
 * ```
 */
export function useTurn<T extends ToolSchemas = {}>(
  source: MaybeRefOrGetter<TurnSource<T>>,
  options: TurnSourceOptions<T> = {},
): Readonly<ShallowRef<TurnSnapshot<T>>> {
  const snapshot = shallowRef<TurnSnapshot<T>>(undefined as unknown as TurnSnapshot<T>);
  let stop: (() => void) | undefined;
  const follow = (next: TurnSource<T>): void => {
    stop?.();
    const store = storeFor(next, options);
    snapshot.value = store.getSnapshot();
    const unsubscribe = store.subscribe(() => {
      snapshot.value = store.getSnapshot();
    });
    const release = hold(store, next, options);
    stop = () => {
      unsubscribe();
      release();
    };
  };
  watch(() => toValue(source), follow, { immediate: true });
  onScopeDispose(() => {
    stop?.();
    stop = undefined;
  });
  return snapshot;
}
