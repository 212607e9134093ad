/**
 * The field-event core (axio's ToolArgStream): the fragments of one document → `field-start`,
 * `field-delta` and `field-end` events for its top-level members. Internal to
 * `FieldEventStream`, and public for callers that push text themselves.
 *
 * @module
 */
import type { FieldEvent, FieldEventSource, FieldStartEvent, StreamFragment } from '../types.ts';
import { JsonWriter } from '../json/json-writer.ts';
import { newPlace, placeOf } from '../json/deep-fragment.ts';
import { FragmentCollector } from '../json/incremental-json-parser.ts';
import { JsonScanner, type JsonLimits } from '../json/scanner.ts';

/** Options of {@link FieldEventParser}: the limits of its text parser. */
export interface FieldEventParserOptions extends JsonLimits {}

const NO_SOURCE: FieldEventSource = {};

/** How the open field's value is being written. */
const PENDING = 0; // the key is known, the value has not begun
const STRING = 1; // a string: deltas are decoded text
const JSON_TEXT = 2; // anything else: deltas are JSON text from the writer

/** Drives the core from the scanner directly, so a key is announced at its closing quote. */
class FieldVisitor extends FragmentCollector {
  events: FieldEvent[] = [];
  readonly #core: FieldEventParser;

  constructor(core: FieldEventParser) {
    super();
    this.#core = core;
  }

  protected override deliver(fragment: StreamFragment): void {
    this.#core.pushFragment(fragment, this.events);
  }

  override key(key: string): void {
    if (this.scanner.kinds.length === 1) this.#core.announceKey(key, this.events);
  }
}

/**
 * Field-level events for the top-level members of one JSON document (axio's ToolArgStream):
 * `field-start {key}` when a member's key is complete, `field-delta {key, text}` with pieces of
 * its value, `field-end {key}` when the value is complete.
 *
 * - A **string** value arrives as decoded text (no quotes, escapes resolved), as promptly as the
 *   parser gives it.
 * - **Any other value** arrives as JSON text re-serialized from its fragments (keys and strings
 *   escaped by `JSON.stringify`, numbers as written, no whitespace), each piece as soon as it is
 *   known — `{"re` of a nested key is held until the key is complete. The deltas of a field
 *   concatenate to text that `JSON.parse`s to exactly that field's value.
 * - A **root that is not an object** is one field with the empty key `""` (a root string as
 *   decoded text, an array or scalar as JSON text). An empty object produces no events.
 * - A duplicate key is a new field with the same key (`JSON.parse` keeps the last).
 * - A lone surrogate escape (`"\uD83D"` without its low half) stays a lone surrogate, as
 *   `JSON.parse` reads it (ToolArgStream substitutes U+FFFD; exactness wins here).
 *
 * Fed text ({@link push}), a key is announced at its closing quote; fed fragments
 * ({@link pushFragment}), with the first fragment of its value (fragments carry keys only with
 * their values). Within one `push`, adjacent deltas of a field are merged.
 *
 * @throws {JsonStreamError} from `push`/`end` for invalid or (at `end`) incomplete text.
 * @throws {TypeError} from `pushFragment` for fragments out of order.
 * @example
 * ```ts
 * const parser = new FieldEventParser();
 * parser.push('{"path":"/tmp/f'); // field-start path, field-delta "/tmp/f"
 * parser.push('oo.py"}');          // field-delta "oo.py", field-end path
 * parser.currentKey;               // "path"
 * ```
 */
export class FieldEventParser {
  readonly #limits: JsonLimits;
  #visitor: FieldVisitor | undefined;
  /**
   * The identity copied into every event from now on (`FieldEventStream` sets the tool call's);
   * empty by default.
   */
  source: FieldEventSource = NO_SOURCE;

  /** 0: nothing yet; 1: the root is an object; 2: the root is one field with the key `""`. */
  #root = 0;
  #complete = false;
  #open = false;
  #mode = PENDING;
  #key = '';
  #writer: JsonWriter | undefined;
  readonly #place = newPlace();

  constructor(options: FieldEventParserOptions = {}) {
    this.#limits = options;
  }

  /**
   * The key of the field being parsed, or of the last field that started once it has ended (as
   * ToolArgStream's `current_key`); `''` before the first field and for a non-object root. Use
   * {@link inField} to tell the two apart.
   */
  get currentKey(): string {
    return this.#key;
  }

  /** True while a field has started and not ended. */
  get inField(): boolean {
    return this.#open;
  }

  /** True once the document is complete. */
  get complete(): boolean {
    return this.#complete;
  }

  /**
   * Parse the next chunk of JSON text; appends the events it completes to `out` (returned). If
   * it throws, `out` still holds the events before the error.
   */
  push(chunk: string | Uint8Array, out: FieldEvent[] = []): FieldEvent[] {
    const visitor = this.#textVisitor();
    visitor.events = out;
    visitor.scanner.push(chunk);
    return out;
  }

  /** The text is complete: appends the last events (a root number), or throws `unexpected-end`. */
  end(out: FieldEvent[] = []): FieldEvent[] {
    const visitor = this.#textVisitor();
    visitor.events = out;
    visitor.scanner.end();
    return out;
  }

  #textVisitor(): FieldVisitor {
    if (this.#visitor === undefined) {
      if (this.#root !== 0) throw new TypeError('FieldEventParser: push() text or pushFragment() fragments, not both');
      const visitor = new FieldVisitor(this);
      visitor.scanner = new JsonScanner(visitor, this.#limits);
      this.#visitor = visitor;
    }
    return this.#visitor;
  }

  /**
   * A top-level key is complete (text input): start its field before its value begins.
   * @internal called by the parser's own scanner visitor
   */
  announceKey(key: string, out: FieldEvent[]): void {
    this.#startField(key, out);
  }

  /** Apply one fragment of the document; appends the events it completes to `out` (returned). */
  pushFragment(fragment: StreamFragment, out: FieldEvent[] = []): FieldEvent[] {
    if (this.#complete) throw new TypeError('FieldEventParser: the document is already complete');
    if (this.#root === 0) {
      if (fragment.type === 'start' && fragment.kind === 'object') {
        this.#root = 1;
        return out;
      }
      if (fragment.type !== 'start' && fragment.type !== 'scalar') return misplaced(fragment);
      this.#root = 2;
      this.#startField('', out);
      const start = out.length - 1;
      this.#value(fragment, 0, out);
      if (this.#mode === STRING) out[start] = { ...(out[start] as FieldStartEvent), string: true };
      if (!this.#open) this.#complete = true;
      return out;
    }
    if (this.#root === 2) {
      this.#value(fragment, 0, out);
      if (!this.#open) this.#complete = true;
      return out;
    }
    if (fragment.type === 'entry') {
      if (this.#open) {
        if (fragment.key !== this.#key) return misplaced(fragment);
        this.#value(fragment, 1, out);
        return out;
      }
      this.#startField(fragment.key, out);
      const start = out.length - 1;
      this.#value(fragment, 1, out);
      // From fragments a field starts with its value's first fragment: say whether it is a string.
      if (this.#mode === STRING) out[start] = { ...(out[start] as FieldStartEvent), string: true };
      return out;
    }
    if (fragment.type === 'done' && !this.#open) {
      this.#complete = true;
      return out;
    }
    return misplaced(fragment);
  }

  #startField(key: string, out: FieldEvent[]): void {
    this.#open = true;
    this.#mode = PENDING;
    this.#key = key;
    this.#writer = undefined;
    out.push({ type: 'field-start', ...this.source, key });
  }

  /** A fragment of the open field's value, inside `outer` wrappers (the field's own `entry`, if any). */
  #value(fragment: StreamFragment, outer: number, out: FieldEvent[]): void {
    if (this.#mode === PENDING) {
      const { leaf, depth } = placeOf(fragment, this.#place);
      if (depth === outer && leaf.type === 'start' && leaf.kind === 'string') {
        this.#mode = STRING;
        return;
      }
      this.#mode = JSON_TEXT;
      this.#writer = new JsonWriter();
    }
    if (this.#mode === STRING) {
      const { leaf, depth } = placeOf(fragment, this.#place);
      if (depth !== outer) misplaced(fragment);
      else if (leaf.type === 'string') this.#delta(leaf.text, out);
      else if (leaf.type === 'done') this.#endField(true, out);
      else misplaced(fragment);
      return;
    }
    const writer = this.#writer as JsonWriter;
    const text = writer.push(fragment, outer);
    if (text !== '') this.#delta(text, out);
    if (writer.complete) this.#endField(false, out);
  }

  #delta(text: string, out: FieldEvent[]): void {
    const last = out[out.length - 1];
    // `out` may hold other calls' events (a chain runs every call of one read into one list): a
    // delta joins only one of this same field.
    const source = this.source;
    if (last !== undefined && last.type === 'field-delta' && last.key === this.#key && last.index === source.index && last.toolCallId === source.toolCallId && last.toolName === source.toolName) {
      out[out.length - 1] = { ...last, text: last.text + text };
    } else out.push({ type: 'field-delta', ...this.source, key: this.#key, text });
  }

  #endField(string: boolean, out: FieldEvent[]): void {
    this.#open = false;
    this.#writer = undefined;
    out.push({ type: 'field-end', ...this.source, key: this.#key, string });
  }
}

function misplaced(fragment: StreamFragment): never {
  throw new TypeError(`FieldEventParser: fragment out of order: ${JSON.stringify(fragment).slice(0, 80)}`);
}
