/**
 * An argstream server's path updates of a call's input (`UIMessageStreamEncoder`'s `toolInputs:
 * 'path-updates'`) as the call's argument text, for the `'ai-sdk-ui'` adapter of
 * `ProviderEventStream`. Internal.
 *
 * @module
 */
import { ProviderError, excerpt } from '../errors.ts';
import type { StreamEvent } from '../types.ts';
import { partEvent } from './adapter.ts';
import { TOOL_INPUT_UPDATES, type UpdateText, type UpdatesCall } from './ai-sdk-ui.ts';
import { type JsonRecord, isRecord, recordAt, stringAt } from './json-access.ts';

/**
 * An argstream server's path updates of a call's input (a `TOOL_INPUT_UPDATES` chunk): its
 * argument text, as deltas would be (the `'ai-sdk-ui'` adapter's `readUpdates`). Updates of a call
 * already complete (`callOf` gives none) are dropped: they would make arguments the AI SDK never had.
 * @throws {ProviderError} type `'invalid-stream'` (code `'invalid-input'`) for a chunk without a
 * list of updates, or an update argstream does not know.
 */
export function readPathUpdates(chunk: JsonRecord, out: StreamEvent[], callOf: (toolCallId: string, out: StreamEvent[]) => UpdatesCall | undefined): void {
  const data = recordAt(chunk, 'data');
  const toolCallId = stringAt(data, 'toolCallId') ?? '';
  const list = data?.['updates'];
  if (!Array.isArray(list)) throw unreadable(chunk, 'no list of updates');
  const call = callOf(toolCallId, out);
  if (call === undefined) return;
  const writer = (call.updates ??= new PathUpdateText());
  let text = '';
  for (const update of list) if (!isRecord(update) || update['structured'] !== true) text += writer.push(update);
  if (text === '') return;
  call.streamed.push(text);
  out.push(partEvent(call.index, { type: 'tool-call-arguments', chunk: text }));
}

/** A JSON number literal, as a path update's `raw` must be (it becomes argument text as written). */
const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/**
 * Path updates of one call's input → its JSON text, piece by piece, for the parser downstream.
 * Keys and strings are written by `JSON.stringify` and numbers only as JSON literals (as
 * `JSON.stringify` writes their values), so no update can write structure its kind does not say;
 * updates in an order no encoder makes give text the parser downstream rejects (invalid arguments,
 * as any such text). O(depth) state.
 */
export class PathUpdateText implements UpdateText {
  /** The open containers: whether each is an object, and how many members or items it has so far. */
  readonly #open: Array<{ readonly object: boolean; count: number }> = [];
  #key = '';

  /** The text `update` adds. @throws {ProviderError} for an update argstream does not know. */
  push(update: unknown): string {
    const kind = stringAt(update, 'kind');
    switch (kind) {
      case 'key':
        this.#key = stringAt(update, 'textValue') ?? '';
        return '';
      case 'start-object':
      case 'start-array': {
        const text = `${this.#place()}${kind === 'start-object' ? '{' : '['}`;
        this.#open.push({ object: kind === 'start-object', count: 0 });
        return text;
      }
      case 'end-object':
      case 'end-array':
        this.#open.pop();
        return kind === 'end-object' ? '}' : ']';
      case 'start-string':
        return `${this.#place()}"`;
      case 'partial-string':
        return JSON.stringify(stringAt(update, 'textValue') ?? '').slice(1, -1);
      case 'complete-string':
        return '"';
      case 'complete-number': {
        const raw = stringAt(update, 'raw');
        const value = isRecord(update) ? update['value'] : undefined;
        // As `JSON.stringify` writes its value (`1.0` as `1`): the same number, and text that stays a
        // prefix of the input's JSON when the server's updates of a call stop at their budget and
        // `tool-input-available` completes it. `-0` and literals beyond a double's range as written.
        const number = +(raw as string);
        const literal =
          raw !== undefined && JSON_NUMBER.test(raw) ? (isFinite(number) && 1 / number !== -Infinity ? String(number) : raw) : typeof value === 'number' && Number.isFinite(value) ? String(value) : undefined;
        if (literal === undefined) throw unreadable(update, 'a number that is not a JSON number');
        return `${this.#place()}${literal}`;
      }
      case 'complete-boolean': {
        const value = isRecord(update) ? update['value'] : undefined;
        if (typeof value !== 'boolean') throw unreadable(update, 'a boolean that is not one');
        return `${this.#place()}${String(value)}`;
      }
      case 'complete-null':
        return `${this.#place()}null`;
      case 'json-complete':
        return '';
      default:
        throw unreadable(update, `an update of kind "${excerpt(kind ?? '')}"`);
    }
  }

  /** What goes before a value: a comma after the container's previous member, and a member's key. */
  #place(): string {
    const parent = this.#open.at(-1);
    if (parent === undefined) return '';
    const comma = parent.count++ > 0 ? ',' : '';
    return parent.object ? `${comma}${JSON.stringify(this.#key)}:` : comma;
  }
}

function unreadable(update: unknown, what: string): ProviderError {
  return new ProviderError('ai-sdk-ui', 'invalid-stream', `ai-sdk-ui: a ${TOOL_INPUT_UPDATES} chunk holds ${what}`, { code: 'invalid-input', cause: update });
}
