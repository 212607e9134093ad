/**
 * The field view as a stream: a thin shell over {@link FieldEventCore}.
 *
 * @module
 */
import type { PushCore } from '../core.ts';
import { Stage } from './stage.ts';
import {
  FieldEventCore,
  type FieldEventStreamInput,
  type FieldEventStreamOptions,
  type FieldEventStreamOutput,
} from '../views/field-event-core.ts';

export type { FieldEventStreamInput, FieldEventStreamOptions, FieldEventStreamOutput };

/**
 * Field-level events (axio's ToolArgStream) for the top-level members of tool-call arguments:
 * `field-start {key}`, `field-delta {key, text}`, `field-end {key}`, with the semantics of
 * {@link FieldEventParser}: string values as decoded text, any other value as JSON text that
 * parses to exactly that value, a non-object root as one field with the key `""`.
 *
 * It reads either of two inputs:
 * - **Plain fragments** (`JsonFragmentStream`'s output): one document; the events carry no
 *   identity.
 * - **Pipeline events**: each `tool-call-progress` event (from `ToolCallProgressStream`,
 *   `ConversationEventStream({progress: true})` or another view) is followed by the field events
 *   it completes, each with the call's `index`, `toolCallId` and `toolName` (as known when it is
 *   emitted); calls interleave freely; `structured-progress` gives the field events of a
 *   structured-output document with its `index`. Raw argument parts with no progress stage before
 *   are parsed here first (they become progress events, the same field events, and each call's
 *   `tool-call` event). Everything else — text, reasoning, `tool-call-start`, the call's
 *   `tool-call` event, `finished`, other views — passes through unchanged and in order.
 *
 * The progress events and plain fragments it reads are passed on (before the field events they
 * make), so that any view can follow this one; `keepProgress: false` drops them. A call whose
 * progress never reaches this stage (after `ConversationEventStream` without `progress`, or a view
 * made with `keepProgress: false`) gets its field events from its `tool-call` event, all at once
 * (numbers then written as `JSON.stringify` writes them). A stream with nothing this stage owns
 * passes through unchanged.
 *
 * A field starts with the first fragment of its value (the key travels with it). `flush` emits
 * nothing of its own: a document that stopped early leaves its last field without a `field-end`
 * (the call's `tool-call-incomplete` says so).
 *
 * The type parameter is what it reads, inferred from the stream it is piped from: after plain
 * fragments the output is fragments and field events, after pipeline events any pipeline event.
 *
 * @throws {TypeError} (erroring the stream) for fragments out of order.
 * @example
 * ```ts
 * const events = response.body!
 *   .pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))
 *   .pipeThrough(new FieldEventStream());
 * for await (const event of events) {
 *   if (event.type === 'field-start') process.stdout.write(`\n${event.key}: `);
 *   else if (event.type === 'field-delta') process.stdout.write(event.text);
 *   else if (event.type === 'tool-call') await run(event.toolName, event.arguments);
 * }
 * ```
 */
export class FieldEventStream<I extends FieldEventStreamInput = FieldEventStreamInput> extends Stage<I, FieldEventStreamOutput<I>> {
  constructor(options: FieldEventStreamOptions = {}) {
    super(new FieldEventCore(options) as PushCore<FieldEventStreamInput, unknown> as PushCore<I, FieldEventStreamOutput<I>>);
  }
}
