/**
 * What a page learns of an error, and how it becomes an error again: the one place that makes an
 * error's record for a page (the relay encoders, the event log, the AI SDK UI stream) and the one
 * that reads it back. Internal, but for {@link PageErrorOptions} and {@link ErrorClass}.
 *
 * The contract (DESIGN.md, property 10): a page gets an error's class (one of argstream's, else
 * `Error`; an abort is `AbortError`), the fields of that class listed in {@link PAGE_FIELDS} — code,
 * type, status, provider, the call, the JSON path and offset, each bounded — and a message
 * argstream writes from them (at most 500 characters, at most 30 of them quoted from model output),
 * or the application's (`onError`). Causes (one level, an argstream error's page record only),
 * request bodies, URLs, headers, addresses, stacks and the text of any other error stay on the
 * server, where the error keeps them for logging. A record read back can only set those fields on
 * one of those classes.
 *
 * @module
 */
import { ArgumentValidationError } from '../views/argument-validation-core.ts';
import { capMessage, excerpt, JsonStreamError, ProviderError, RelayError, ToolCallArgumentsError } from '../errors.ts';
import { TaggedToolCallError } from '../turn/tagged-tool-call-extractor.ts';
import { EventLogError } from './event-log-error.ts';

/** An error class the decoder can give back: only its prototype is used (its constructor is not called). */
export type ErrorClass = abstract new (...args: never[]) => Error;

/**
 * The message a page sees for an error, chosen by the application: called on the server with the
 * error as it is (its cause, status, headers all there); `undefined` sends argstream's message.
 */
export type PageErrorMessage = (error: unknown) => string | undefined;

/** What every encoder that sends errors to a page (and every event log that keeps them) accepts. */
export interface PageErrorOptions {
  /**
   * The message the page sees for an error that ends the stream (and, in the AI SDK UI stream, for
   * a call's `tool-input-error`), as the AI SDK's `toUIMessageStreamResponse({ onError })`: return
   * what the page may read, or `undefined` for argstream's message. Only the message changes —
   * the record's class and fields stay those of the error's page record; at most 500 characters
   * are sent. A function that throws counts as `undefined`.
   * @example
   * ```ts
   * // Show the provider's own words (they can quote an API key prefix: "Incorrect API key provided: sk-…").
   * new EventStreamEncoder({ onError: (error) => (error instanceof ProviderError && error.status === 429 ? error.message : undefined) });
   * ```
   * @default undefined (argstream's message: written from the error's class and fields; for an
   * error that is not argstream's, "the stream failed")
   */
  readonly onError?: PageErrorMessage;
  /**
   * The application's own error classes, by name, that may go to a page: an instance goes as
   * that name, with its own message (at most 500 characters), `code` and `status`. A page's
   * decoder given the same `errorClasses` gives it back as that class.
   * @default {} (an application's error goes as `Error`, "the stream failed")
   */
  readonly errorClasses?: Readonly<Record<string, ErrorClass>>;
}

/** Longest message a page gets. */
const MAX_PAGE_MESSAGE = 500;
/** Longest string field a page gets (longer ones are left out: a cut id would name another call). */
const MAX_FIELD = 256;
/** Longest JSON Pointer a page gets (`path`). */
const MAX_PATH = 1024;
/** Most validation issues a page gets, longest issue message, most segments of an issue's path. */
const MAX_ISSUES = 10;
const MAX_ISSUE_MESSAGE = 200;
const MAX_ISSUE_PATH = 16;

/** What a field of a page record holds. */
type FieldKind = 'string' | 'number' | 'boolean' | 'code' | 'excerpt' | 'issues';

/**
 * The fields of each class's page record, besides `name` and `message` (and `cause`, for the
 * classes whose cause is an argstream error). The writer takes only these, the reader sets only
 * these: one list, so both sides agree.
 */
const PAGE_FIELDS: Readonly<Record<string, Readonly<Record<string, FieldKind>>>> = {
  ProviderError: { provider: 'string', type: 'string', code: 'string', status: 'number' },
  JsonStreamError: { code: 'string', offset: 'number', path: 'string', excerpt: 'excerpt' },
  ToolCallArgumentsError: { toolCallId: 'string', toolName: 'string', index: 'number', offset: 'number', code: 'string' },
  ArgumentValidationError: { index: 'number', toolCallId: 'string', toolName: 'string', path: 'string', structured: 'boolean', issues: 'issues' },
  TaggedToolCallError: { code: 'string', toolCallId: 'string', toolName: 'string', index: 'number', offset: 'number', excerpt: 'excerpt' },
  RelayError: { code: 'string', lastEventId: 'string' },
  EventLogError: { code: 'string' },
};

/** The page fields of argstream's class `name`. */
function fieldsOf(name: string): Readonly<Record<string, FieldKind>> | undefined {
  return Object.hasOwn(PAGE_FIELDS, name) ? PAGE_FIELDS[name] : undefined;
}

/** The fields of an application's class given in `errorClasses`. */
const APP_FIELDS: Readonly<Record<string, FieldKind>> = { code: 'code', status: 'number' };

/** The classes whose cause is a field of their own (so it is enumerable, unlike `Error`'s). */
const FIELD_CAUSE = new Set<string>(['ToolCallArgumentsError', 'TaggedToolCallError']);

/** argstream's error classes, by name: what a page's decoder gives back without options. */
const KNOWN_CLASSES: ReadonlyArray<readonly [string, ErrorClass]> = [
  ['JsonStreamError', JsonStreamError],
  ['ProviderError', ProviderError],
  ['ToolCallArgumentsError', ToolCallArgumentsError],
  ['ArgumentValidationError', ArgumentValidationError],
  ['TaggedToolCallError', TaggedToolCallError],
  ['RelayError', RelayError],
  ['EventLogError', EventLogError],
  ['Error', Error],
];

/** The error classes by name: argstream's, then the caller's (which win). */
export function errorClasses(extra: Readonly<Record<string, ErrorClass>> | undefined): ReadonlyMap<string, ErrorClass> {
  const map = new Map<string, ErrorClass>(KNOWN_CLASSES);
  if (extra !== undefined) for (const [name, cls] of Object.entries(extra)) if (typeof cls === 'function') map.set(name, cls);
  return map;
}

// ---------------------------------------------------------------------------------------------
// Writing

/** argstream's class of `error` (its name), or `undefined` for any other error. */
function argstreamClass(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  for (const [name, cls] of KNOWN_CLASSES) if (cls !== Error && error instanceof cls) return name;
  return undefined;
}

/** Whether `reason` is a cancellation: an `AbortError` (a `DOMException`, or an error named so). */
function isAbortError(reason: unknown): boolean {
  return typeof reason === 'object' && reason !== null && (reason as { name?: unknown }).name === 'AbortError';
}

/** A value for a page, or `undefined` when it is not of its kind or too long. */
function fieldValue(kind: FieldKind, key: string, value: unknown): unknown {
  switch (kind) {
    case 'string':
      return typeof value === 'string' && value.length <= (key === 'path' ? MAX_PATH : MAX_FIELD) ? value : undefined;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? value : undefined;
    case 'code':
      return typeof value === 'number' && Number.isFinite(value) ? value : fieldValue('string', key, value);
    case 'excerpt':
      // At most 30 characters of model output (what the error's message quotes).
      return typeof value === 'string' ? excerpt(value) : undefined;
    case 'issues':
      return Array.isArray(value) ? value.slice(0, MAX_ISSUES).map(issueOf) : undefined;
  }
}

/** A validation issue for a page: its message and its path, bounded. */
function issueOf(issue: unknown): { message: string; path: Array<string | number> } {
  const { message, path } = (typeof issue === 'object' && issue !== null ? issue : {}) as { message?: unknown; path?: unknown };
  return {
    message: typeof message === 'string' ? capMessage(message, MAX_ISSUE_MESSAGE) : '',
    path: Array.isArray(path)
      ? path.slice(0, MAX_ISSUE_PATH).map((segment: unknown) => (typeof segment === 'number' && Number.isFinite(segment) ? segment : capMessage(String(segment), 64)))
      : [],
  };
}

/** `table[key]` when the table has it as its own (never a prototype member: keys come from the wire). */
function ownText(table: Readonly<Record<string, string>>, key: unknown): string | undefined {
  return typeof key === 'string' && Object.hasOwn(table, key) ? table[key] : undefined;
}

/** A string quoted in a message: at most 30 characters, control characters escaped. */
function quoted(text: unknown): string {
  return JSON.stringify(excerpt(String(text)));
}

const JSON_PROBLEMS: Readonly<Record<string, string>> = {
  'invalid-json': 'is not valid',
  'unexpected-end': 'ended before it was complete',
  'max-depth': 'nests deeper than its limit',
  'max-string-length': 'holds a string longer than its limit',
  'max-length': 'is longer than its limit',
  'max-buffered-length': 'is longer than its limit',
  closed: 'was written to after its end',
};

/** What went wrong with a JSON text: its problem, where, and at most 30 characters of it. */
function jsonProblem(code: unknown, offset: unknown, text: unknown): string {
  const at = typeof offset === 'number' ? ` at offset ${offset}` : '';
  return `${ownText(JSON_PROBLEMS, code) ?? `was refused (${quoted(code)})`}${at}${typeof text === 'string' && text !== '' ? `, at ${quoted(text)}` : ''}`;
}

const RELAY_PROBLEMS: Readonly<Record<string, string>> = {
  incomplete: 'the relayed stream was cut before its end',
  'invalid-data': 'the relayed stream held data its decoder cannot read',
  'not-sse': 'the relayed stream is not an event stream',
  'max-event-length': "a relayed event grew beyond the decoder's limit",
  'after-end': 'an event came after the end of the relayed stream',
  'invalid-event': 'an event could not be relayed',
  'invalid-last-event-id': 'the Last-Event-ID is not an id of the stream',
  'invalid-input': 'the relay was given neither text nor bytes',
  'out-of-sequence': "the relayed stream's event ids skipped or repeated events",
};

const LOG_PROBLEMS: Readonly<Record<string, string>> = {
  unavailable: 'the event log is unavailable',
  'not-found': 'no such stream: it never existed, or it expired',
  exists: 'the stream exists already',
  'producer-lost': "the stream's producer stopped before its end",
  'invalid-id': 'an id that is not one of the stream',
  'too-large': 'the stream grew beyond its size limit',
  stopped: 'the stream was stopped',
  lost: 'the event log lost events of the stream',
};

const PROVIDER_PROBLEMS: Readonly<Record<string, string>> = {
  aborted: 'the request was aborted',
  'invalid-stream': "the stream is not the provider's format",
  'invalid-format': 'a record of the stream has the wrong shape',
  'text-mismatch': "a call's final arguments do not continue the streamed ones",
};

/**
 * The message argstream writes for a page, from the class and the page record's fields only (so
 * a record read back and written again says the same).
 */
function pageMessage(name: string, record: Readonly<Record<string, unknown>>): string {
  const { code, type, offset, path } = record;
  const call = `tool call #${String(record['index'] ?? '?')}`;
  switch (name) {
    case 'ProviderError': {
      const http = typeof record['status'] === 'number' ? ` (HTTP ${record['status']})` : '';
      const coded = typeof code === 'string' && code !== type ? ` (${quoted(code)})` : '';
      const problem =
        code === 'truncated'
          ? 'the stream ended before its last record: it was cut, so the turn is incomplete'
          : (ownText(PROVIDER_PROBLEMS, type) ?? `the provider reported an error${typeof type !== 'string' || type === 'http-error' || type === 'error' ? '' : ` ${quoted(type)}`}`) + coded;
      return `${typeof record['provider'] === 'string' ? excerpt(record['provider']) : 'the provider'}${http}: ${problem}`;
    }
    case 'JsonStreamError':
      return `the JSON text ${jsonProblem(code, offset, record['excerpt'])}`;
    case 'ToolCallArgumentsError':
      if (code === 'duplicate-tool-call-id') return `${call} has the id of another call of the turn`;
      return `the arguments of ${call}: the JSON text ${jsonProblem(code, offset, (record['cause'] as Record<string, unknown> | undefined)?.['excerpt'])}`;
    case 'TaggedToolCallError':
      return `the tagged ${call} is invalid: ${code === 'invalid-json' ? `its JSON text ${jsonProblem(code, offset, record['excerpt'])}` : quoted(code)}`;
    case 'ArgumentValidationError': {
      const field = typeof path === 'string' && path !== '' ? ` (field ${quoted(path)})` : '';
      return `invalid ${record['structured'] === true ? 'structured output' : `arguments of ${call}`}${field}: see its issues`;
    }
    case 'RelayError': {
      const id = record['lastEventId'];
      return `${ownText(RELAY_PROBLEMS, code) ?? 'the relay failed'}${typeof id === 'string' && id.length <= 30 ? ` (after event ${id})` : ''}`;
    }
    case 'EventLogError':
      return ownText(LOG_PROBLEMS, code) ?? 'the event log failed';
    default:
      return 'the stream failed';
  }
}

/** What `onError` says of `error`: a string, or `undefined` (it returned none, or threw). */
function chosenMessage(error: unknown, onError: PageErrorMessage | undefined): string | undefined {
  if (onError === undefined) return undefined;
  try {
    const message = onError(error);
    return typeof message === 'string' ? message : undefined;
  } catch {
    return undefined;
  }
}

/** The page record of `error`, its cause at most `depth` levels below it. */
function recordOf(error: unknown, options: PageErrorOptions | undefined, depth: number): Record<string, unknown> {
  const chosen = chosenMessage(error, options?.onError);
  if (isAbortError(error)) return { name: 'AbortError', message: capMessage(chosen ?? 'the stream was aborted', MAX_PAGE_MESSAGE) };
  let name = argstreamClass(error);
  let fields = name === undefined ? undefined : fieldsOf(name);
  let own: string | undefined;
  if (name === undefined && error instanceof Error && options?.errorClasses !== undefined) {
    for (const [appName, cls] of Object.entries(options.errorClasses)) {
      if (typeof cls === 'function' && error instanceof cls) {
        name = appName;
        fields = APP_FIELDS;
        own = String(error.message);
        break;
      }
    }
  }
  if (name === undefined || fields === undefined || !(error instanceof Error)) {
    return { name: 'Error', message: capMessage(chosen ?? 'the stream failed', MAX_PAGE_MESSAGE) };
  }
  const record: Record<string, unknown> = { name, message: '' };
  for (const key of Object.keys(fields)) {
    const value = fieldValue(fields[key] as FieldKind, key, (error as unknown as Record<string, unknown>)[key]);
    if (value !== undefined) record[key] = value;
  }
  // A cause goes only when it is argstream's (the JSON error under a call's), as its page record.
  if (depth > 0 && argstreamClass(error.cause) !== undefined) record['cause'] = recordOf(error.cause, undefined, depth - 1);
  record['message'] = capMessage(chosen ?? own ?? pageMessage(name, record), MAX_PAGE_MESSAGE);
  return record;
}

/**
 * What a page may see of `error` (anything a stream failed with) as a plain JSON-able record:
 * `name` (argstream's class, `AbortError`, else `Error`), `message` (argstream's, or
 * `options.onError`'s; at most 500 characters), the fields of {@link PAGE_FIELDS} for its class
 * (strings over 256 characters left out — a path over 1,024), and, for an error whose cause is
 * an argstream error, that cause's page record (without its own cause). Nothing else: no stack,
 * cause, URL, header, body or other error's text.
 */
export function pageErrorRecord(error: unknown, options?: PageErrorOptions): Record<string, unknown> {
  return recordOf(error, options, 1);
}

/** The record an error inside an event is written as: its page record (argstream's message). */
export function errorRecord(error: Error): Record<string, unknown> {
  return recordOf(error, undefined, 1);
}

/** The message a page sees for `error`: that of its page record (for a format that carries only a text). */
export function pageErrorMessage(error: unknown, options?: PageErrorOptions): string {
  return recordOf(error, options, 0)['message'] as string;
}

// ---------------------------------------------------------------------------------------------
// Reading

/**
 * Make an error again from its record: an instance of the class of its `name` (argstream's, or the
 * caller's; `Error` for any other name), with its message and only the fields of that class's
 * page record, each of its kind; a cause only when it is the record of one of those classes, one
 * level deep. `stack`, prototype members, other fields and classes cannot be set from the wire.
 * An `AbortError` comes back as a `DOMException` of that name.
 * @throws {RelayError} `invalid-data` for a record that is not an object.
 */
export function reviveError(record: unknown, classes: ReadonlyMap<string, ErrorClass>): Error {
  return revive(record, classes, 1);
}

function revive(record: unknown, classes: ReadonlyMap<string, ErrorClass>, depth: number): Error {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    throw new RelayError('invalid-data', 'an error record is not an object');
  }
  const given = record as Record<string, unknown>;
  const message = typeof given['message'] === 'string' ? capMessage(given['message'], MAX_PAGE_MESSAGE) : '';
  const name = typeof given['name'] === 'string' ? given['name'] : 'Error';
  if (name === 'AbortError' && typeof DOMException === 'function') return new DOMException(message, 'AbortError');
  const cls = classes.get(name);
  if (cls === undefined || cls === Error) return new Error(message);
  // An error of that class without running its constructor (whose parameters differ from class to
  // class): Error's constructor gives the message and a stack of the page's own, the prototype
  // gives `instanceof`.
  const error = Reflect.construct(Error, [message], cls) as Error;
  const own = (key: string, value: unknown, enumerable = true) => Object.defineProperty(error, key, { value, enumerable, writable: true, configurable: true });
  own('name', name);
  // argstream's fields for argstream's class; a class of the caller's (even under one of argstream's names) has its own.
  const fields = KNOWN_CLASSES.some(([known, c]) => known === name && c === cls) ? (fieldsOf(name) ?? APP_FIELDS) : APP_FIELDS;
  for (const key of Object.keys(fields)) {
    const value = Object.hasOwn(given, key) ? fieldValue(fields[key] as FieldKind, key, given[key]) : undefined;
    // A field an instance always has (as its class declares it), `undefined` when not sent.
    if (value !== undefined || fields !== APP_FIELDS) own(key, value);
  }
  const cause = Object.hasOwn(given, 'cause') ? given['cause'] : undefined;
  if (depth > 0 && cause !== undefined) {
    const revived = cause instanceof Error ? cause : typeof cause === 'object' && cause !== null && !Array.isArray(cause) ? revive(cause, classes, depth - 1) : undefined;
    // Only one of argstream's classes (not `Error`, not the caller's) can be a cause.
    if (revived !== undefined && argstreamClass(revived) !== undefined) {
      if (revived === cause) delete (revived as { cause?: unknown }).cause;
      own('cause', revived, FIELD_CAUSE.has(name));
    }
  } else if (FIELD_CAUSE.has(name)) {
    own('cause', undefined);
  }
  return error;
}
