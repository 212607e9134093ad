/**
 * `argstream/react`: a streaming turn in a React component (React 18 and 19).
 *
 * @module
 */
import { useEffect, useMemo, useRef, useSyncExternalStore } from 'react';
import { hold, storeFor, type TurnSource, type TurnSourceOptions } from '../store/connect.ts';
import { TextBlocks } from '../store/text-blocks.ts';
import type { ToolSchemas } from '../store/tools.ts';
import type { TurnSnapshot } from '../store/turn-store.ts';

export type { ExternalTurn, TurnSource, TurnSourceOptions } from '../store/connect.ts';
export { useObject } from './use-object.ts';
export type { UseObjectHelpers, UseObjectOptions } from './use-object.ts';

/**
 * The snapshot of a streaming turn, re-rendered as it changes (at most once per animation frame by
 * default): `useSyncExternalStore` over a `TurnStore`.
 *
 * `source` is a `ReadableStream` of events, a `Response` (an argstream relay's; with `decoder`,
 * a provider's own), a `TurnStore`, or anything else that keeps a snapshot (`ExternalTurn`, such as
 * `ArgstreamChatTransport`: shown as it is, typed by its own tools, so `useTurn(transport)` needs
 * no options); keep it stable (state, not a new stream per render): a new source is a new turn. The stream is read while the component is mounted and cancelled when it
 * unmounts (not by the extra unmount of React's development mode). Options are read when the
 * source changes.
 * @example
 * ```tsx
 * const tools = defineTools({ write_file: z.object({ path: z.string(), content: z.string() }) });
 * function Answer({ response }: { response: Response }) {
 *   const turn = useTurn(response, { tools });
 *   return turn.calls.map((call) =>
 *     call.toolName === 'write_file' ? <File key={call.toolCallId} path={call.input.path} content={call.input.content} done={call.status === 'complete'} /> : null,
 *   );
 * }
 * ```
 */
export function useTurn<T extends ToolSchemas = {}>(source: TurnSource<T>, options: TurnSourceOptions<T> = {}): TurnSnapshot<T> {
  // eslint-disable-next-line react-hooks/exhaustive-deps -- options are read with the source
  const store = useMemo(() => storeFor(source, options), [source]);
  useEffect(() => hold(store, source, options), [store]);
  return useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
}

/**
 * A growing text — a file's content as its call streams — as blocks of whole lines
 * (`TextBlocks`): render each block as its own memoised element and a frame lays out only the
 * last one, where one text node would be laid out whole at every change.
 * @example
 * ```tsx
 * const Block = memo(({ text }: { text: string }) => <div className="line-block">{text}</div>);
 * function Content({ text }: { text: string | undefined }) {
 *   return <pre>{useTextBlocks(text).map((block, i) => <Block key={i} text={block} />)}</pre>;
 * }
 * ```
 */
export function useTextBlocks(text: string | undefined, blockSize?: number): readonly string[] {
  const blocks = useRef<TextBlocks | undefined>(undefined);
  blocks.current ??= new TextBlocks(blockSize);
  return blocks.current.update(text ?? '');
}
