import { TaggedToolCallExtractor, type TaggedToolCallOptions } from '../turn/tagged-tool-call-extractor.ts';
import type { PipelineEvent } from '../types.ts';
import { Stage } from './stage.ts';

/** Options of {@link TaggedToolCallStream}. */
export interface TaggedToolCallStreamOptions extends TaggedToolCallOptions {}

/**
 * Prompt-engineered tool calls as ordinary tool calls: takes
 * `<tool_call>{"name": …, "arguments": …}</tool_call>` out of `message` parts and emits each call
 * on a content slot of its own, as a provider with native tool calling would.
 *
 * - **Tags never reach the message.** Text before, between and after calls stays on its message
 *   slot, in order. Text that could be the start of an open tag (`<`, `<tool_c`) is held back only
 *   while it still could be one — at most `openTag.length - 1` characters — and goes out as soon
 *   as a character proves otherwise, or when the slot is flushed.
 * - **Prompt.** `tool-call-start {id, name}` goes out as soon as the name's closing quote
 *   arrives, and the arguments stream as `tool-call-arguments` chunks while the model writes them.
 *   The chunks are slices of the model's text: concatenated, they are exactly the JSON text of
 *   the `arguments` value (without the whitespace around it), never re-serialised or repaired. A
 *   string written for `arguments` (`"arguments": "{\"a\":1}"`) stays that string. A call without
 *   `arguments` has no argument chunks (the turn builder reads it as `{}`).
 * - **Name after arguments.** When `name` follows `arguments` in the object, the argument text is
 *   held back until the name arrives (up to `maxBufferedLength`), then goes out as one chunk right
 *   after `tool-call-start`: every call begins with its start, as native calls do.
 * - **Call end.** The JSON decides where the object ends (a close tag inside a string is data);
 *   only whitespace may come between the object and the close tag. The call's slot is flushed
 *   when the close tag has been read.
 * - **Slots and ids.** Calls get the slots −1, −2, … in order of appearance (providers number
 *   theirs from 0, so they never collide, and every other event keeps its slot) and the ids
 *   `call_0`, `call_1`, … (option `toolCallId`).
 * - **Errors are per call, never a stream error.** Invalid JSON in the tag, a body that is not an
 *   object, a missing, empty or non-string `name`, a duplicate `name`/`arguments`, text between
 *   the object and the close tag, a call still open when its message slot is flushed or the input
 *   ends (`unterminated`), or too much buffered text: the call's slot gets its `tool-call-start`
 *   (with the name if it was read), the arguments read so far and a `flush` whose
 *   `metadata.toolCallError` is a {@link TaggedToolCallError}. The turn builder reports such a
 *   call as `tool-call-failed` (with `isolateErrors`) or fails with that error — never as a call
 *   to run. After an error inside the body, the text up
 *   to and including the next close tag is dropped as the rest of the broken call.
 * - `reasoning` parts, native tool-call parts, `structured` parts, flushes and `finished` pass
 *   through untouched.
 *
 * `flush` (end of input), and `finished`: message slots that were never flushed release their
 * held-back text, and a call still open there fails as `unterminated`, before the `finished`
 * event; the message slots themselves stay unflushed, as they came.
 *
 * @throws {TypeError | RangeError} from the constructor, for invalid options.
 * @example
 * ```ts
 * const turn = await collectTurn(
 *   response.body!
 *     .pipeThrough(new ProviderEventStream({ provider: 'ollama' }))
 *     .pipeThrough(new TaggedToolCallStream()),
 *   { isolateErrors: true },
 * );
 * for (const call of turn.toolCalls) await run(call.toolName, call.arguments);
 * ```
 */
export class TaggedToolCallStream extends Stage<PipelineEvent, PipelineEvent> {
  constructor(options: TaggedToolCallStreamOptions = {}) {
    super(new TaggedToolCallExtractor(options));
  }
}
