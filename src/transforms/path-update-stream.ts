/**
 * Path updates (the JsonFragment protocol) as a stream: a thin shell over {@link PathUpdateCore}.
 *
 * @module
 */
import type { PushCore } from '../core.ts';
import { Stage } from './stage.ts';
import {
  PathUpdateCore,
  type PathUpdateStreamInput,
  type PathUpdateStreamOptions,
  type PathUpdateStreamOutput,
} from '../views/path-update-core.ts';

export type { PathUpdateStreamInput, PathUpdateStreamOptions, PathUpdateStreamOutput };

/**
 * Fragments or pipeline events → flat {@link PathUpdate}s with JSON Pointer paths.
 *
 * - A stream of bare {@link StreamFragment}s is one document; its updates carry no call identity.
 * - Each `tool-call-progress` event is followed by its updates, each carrying the call's
 *   `toolCallId` (as known when the fragment was made, possibly `""` at first) and `index`;
 *   calls interleave freely. Raw argument parts with no progress stage before are parsed here
 *   first (into progress events, the updates, and each call's `tool-call` event).
 *   `structured-progress` events (structured output) likewise, their updates carrying `index` and
 *   `structured: true` instead of a `toolCallId`. Every other event (text and reasoning parts,
 *   `tool-call-start`, the call's `tool-call` event, `finished`, …) passes through unchanged and
 *   in place, so a downstream {@link ToolCallRebuilder} still sees tool names and the end of each
 *   call.
 *
 * The progress events and plain fragments it reads are passed on (before the updates they make),
 * so that any view can follow this one; `keepProgress: false` drops them — what a relay to a
 * browser's `ToolCallRebuilder` wants: the updates and the text, without the fragments twice. A
 * call whose progress never reaches this stage (after `ConversationEventStream` without
 * `progress`, or a view made with `keepProgress: false`) gets its updates from its `tool-call`
 * event, all at once. A stream with nothing this stage owns passes through unchanged.
 *
 * A `key` update is sent when its member's value begins (the fragments reveal the key then),
 * immediately before the value's first update. Per-call state, O(depth), is released at the
 * call's `json-complete` or its conversation event.
 *
 * The type parameter is what it reads, inferred from the stream it is piped from: after plain
 * fragments the output is fragments and updates, after pipeline events any pipeline event.
 *
 * `flush` emits nothing of its own: a document that is still open simply ends without
 * `json-complete` (the call's `tool-call-incomplete` says so). Fragments out of order error the
 * stream with a `TypeError`, after the updates made before it have been delivered.
 *
 * @example
 * ```ts
 * const updates = response.body!
 *   .pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))
 *   .pipeThrough(new PathUpdateStream({ keepProgress: false }));
 * for await (const update of updates) sse.send(JSON.stringify(update)); // a ToolCallRebuilder in the browser
 * ```
 */
export class PathUpdateStream<I extends PathUpdateStreamInput = PathUpdateStreamInput> extends Stage<I, PathUpdateStreamOutput<I>> {
  constructor(options: PathUpdateStreamOptions = {}) {
    super(new PathUpdateCore(options) as PushCore<PathUpdateStreamInput, unknown> as PushCore<I, PathUpdateStreamOutput<I>>);
  }
}
