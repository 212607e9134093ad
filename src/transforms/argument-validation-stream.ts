/**
 * Early validation of tool-call arguments as a stream: a thin shell over
 * {@link ArgumentValidationCore}.
 *
 * @module
 */
import type { StageCore } from '../core.ts';
import { Stage } from './stage.ts';
import {
  ArgumentValidationCore,
  type ArgumentValidationStreamInput,
  type ArgumentValidationStreamOptions,
  type ArgumentValidationStreamOutput,
  type ToolArgumentsSchema,
} from '../views/argument-validation-core.ts';

export type { ArgumentValidationStreamInput, ArgumentValidationStreamOptions, ArgumentValidationStreamOutput };

/**
 * Validates tool-call arguments while they stream in, against a Standard Schema per tool (zod,
 * valibot, arktype, … — any object with `~standard.validate`; no dependency on any of them).
 * Reads any pipeline event and passes every one through unchanged, adding `validation-error`
 * events; raw argument parts that no stage before parsed are parsed here first (they become
 * progress events and each call's `tool-call` event, as after `ToolCallProgressStream`). A call
 * the provider runs itself (`providerExecuted`, e.g. a web search) is not validated: the schemas
 * are the application's.
 *
 * - **A field as soon as it is complete.** When a top-level member of the arguments object is
 *   complete, it is validated at once, so a `write_file` to a forbidden path is reported before
 *   the first fragment of its content passes. Field schemas come from the tool's `fields`; else,
 *   for a whole schema that exposes its fields as Standard Schemas (zod's `shape`, valibot's
 *   `entries`), from there — exact, since an object schema checks each field with its own schema;
 *   else the completed fields so far (never the field in progress) are validated as an object
 *   with the whole schema, and only issues whose path starts at the field that just completed are
 *   reported. That last mode never reports a field that is not complete, but a schema whose
 *   verdict on one field depends on another (a cross-field refinement, a union without a
 *   discriminator) may report that field early or late.
 * - **The whole when it is complete**, with the tool's whole schema; a call with no arguments at
 *   all is checked as `{}` at its `tool-call` event (a call cut before its first byte is
 *   `tool-call-incomplete` instead), and so is a call whose progress never reached this stage (a
 *   stage before made with `keepProgress: false`; its fields are then not checked one by one). A
 *   call cut off before its document closed is not checked. Structured output likewise, at its
 *   `structured` event.
 * - **Report.** A failure is a `validation-error` event right after the event that completed the
 *   value, with `path` the field's JSON Pointer (`""` for the whole) and the issues (paths from
 *   the arguments' root). With `errorOnInvalid`, the stream errors with an
 *   {@link ArgumentValidationError} instead, after everything before it has been delivered.
 *
 * - **Structured output.** With `structured`, the JSON document of a response that was asked for
 *   JSON (`structured-progress` events, or `structured` parts parsed here) is validated the same
 *   way, its errors marked `structured: true` with `toolCallId` and `toolName` `""`.
 *
 * Async validators keep the order: the stage waits for each result before it takes the next
 * event (backpressure reaches the source; nothing is queued aside). Sync validators cost no
 * microtask. A validator that throws errors the stream. `flush` adds nothing.
 *
 * Each validated call keeps its arguments in an aggregator until they complete (validation needs
 * the values); calls of tools without a schema cost nothing. With `tools`, a call whose name
 * comes after its first fragments is followed until the name is known; the fields completed by
 * then are validated at that moment.
 *
 * @example
 * ```ts
 * const WriteFile = z.object({ path: z.string().refine((p) => !p.startsWith('/etc'), 'forbidden path'), content: z.string() });
 * const events = response.body!
 *   .pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))
 *   .pipeThrough(new ToolCallProgressStream())
 *   .pipeThrough(new ArgumentValidationStream({ tools: { write_file: WriteFile } }));
 * for await (const event of events) {
 *   if (event.type === 'validation-error') abort(event.toolCallId, event.issues);
 * }
 * ```
 */
export class ArgumentValidationStream extends Stage<ArgumentValidationStreamInput, ArgumentValidationStreamOutput> {
  constructor(options: ArgumentValidationStreamOptions) {
    super(new ArgumentValidationCore(options) as StageCore<ArgumentValidationStreamInput, ArgumentValidationStreamOutput>);
  }
}

/**
 * One Standard Schema for the arguments of every tool call: `new ArgumentValidationStream({
 * schema, ...options })`. Use the class with `tools` for a schema per tool.
 *
 * @example
 * ```ts
 * const calls = response.body!
 *   .pipeThrough(new ProviderEventStream({ provider: 'openai-chat' }))
 *   .pipeThrough(new ToolCallProgressStream())
 *   .pipeThrough(validateArguments(v.object({ path: v.pipe(v.string(), v.check((p) => !p.startsWith('/etc'))) })));
 * ```
 */
export function validateArguments(
  schema: ToolArgumentsSchema,
  options: Omit<ArgumentValidationStreamOptions, 'schema'> = {},
): ArgumentValidationStream {
  return new ArgumentValidationStream({ ...options, schema });
}
