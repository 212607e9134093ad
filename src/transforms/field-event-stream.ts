import { FieldEventParser } from '../json/field-event-parser.ts';
import type { StreamFragment } from '../types.ts';
import type { FieldEvent } from '../view-types.ts';
import { drainingTransformer, runStep } from './fail-after-drain.ts';
import type { ToolCallProgressStreamOutput } from './tool-call-progress-stream.ts';

/**
 * What {@link FieldEventStream} reads: the fragments of one document, or the output of
 * `ToolCallProgressStream` (of which it uses the progress events).
 */
export type FieldEventStreamInput = StreamFragment | ToolCallProgressStreamOutput;

/** Options of {@link FieldEventStream} (none yet; reserved). */
export interface FieldEventStreamOptions {}

/**
 * Field-level events (axio's ToolArgStream) for the top-level members of tool-call arguments:
 * `field-start {key}`, `field-delta {key, text}`, `field-end {key}`, with the semantics of
 * {@link FieldEventParser}: string values as decoded text, any other value as JSON text that
 * parses to exactly that value, a non-object root as one field with the key `""`.
 *
 * It reads either of two inputs, told apart by their `type`:
 * - **Plain fragments** (`JsonFragmentStream`'s output): one document; the events carry no
 *   identity.
 * - **`tool-call-progress` events** (`ToolCallProgressStream`'s output, passed as is): one
 *   document per call, interleaved freely; every event carries the call's `index`, `toolCallId`
 *   and `toolName` (as known when it is emitted). `structured-progress` events give field events
 *   of the structured-output document with its `index`. Every other event (`part`, `flush`,
 *   `finished`) is consumed: a `flush` releases its slot's state; nothing else is forwarded.
 *
 * A field starts with the first fragment of its value (the key travels with it). `flush` emits
 * nothing: a document that stopped early leaves its last field without a `field-end`.
 *
 * @throws {TypeError} (erroring the stream) for fragments out of order.
 * @example
 * ```ts
 * const fields = response.body!
 *   .pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))
 *   .pipeThrough(new ToolCallProgressStream())
 *   .pipeThrough(new FieldEventStream());
 * for await (const event of fields) {
 *   if (event.type === 'field-start') process.stdout.write(`\n${event.key}: `);
 *   else if (event.type === 'field-delta') process.stdout.write(event.text);
 * }
 * ```
 */
export class FieldEventStream extends TransformStream<FieldEventStreamInput, FieldEvent> {
  constructor(_options: FieldEventStreamOptions = {}) {
    /** One core per content slot; `-1` holds the plain-fragment document. */
    const documents = new Map<number, FieldEventParser>();
    const documentOf = (index: number): FieldEventParser => {
      let parser = documents.get(index);
      if (parser === undefined) {
        parser = new FieldEventParser();
        documents.set(index, parser);
      }
      return parser;
    };
    const apply = (input: FieldEventStreamInput, out: FieldEvent[]): void => {
      switch (input.type) {
        case 'tool-call-progress': {
          const parser = documentOf(input.index);
          const source = parser.source;
          if (source.toolCallId !== input.toolCallId || source.toolName !== input.toolName) {
            parser.source = { index: input.index, toolCallId: input.toolCallId, toolName: input.toolName };
          }
          parser.pushFragment(input.fragment, out);
          if (parser.complete) documents.delete(input.index);
          return;
        }
        case 'structured-progress': {
          const parser = documentOf(input.index);
          if (parser.source.index === undefined) parser.source = { index: input.index };
          parser.pushFragment(input.fragment, out);
          if (parser.complete) documents.delete(input.index);
          return;
        }
        case 'flush':
          documents.delete(input.index);
          return;
        case 'part':
        case 'finished':
          return;
        case 'start':
        case 'string':
        case 'scalar':
        case 'entry':
        case 'item':
        case 'done':
          // A complete plain document stays, so that fragments after it are refused.
          documentOf(-1).pushFragment(input, out);
          return;
        default:
          input satisfies never;
          throw new TypeError(`FieldEventStream: expected a fragment or a progress event, got ${JSON.stringify(input).slice(0, 60)}`);
      }
    };
    super(
      drainingTransformer({
        transform: (input, controller) => runStep(controller, (out) => apply(input, out)),
      }),
    );
  }
}
