/**
 * What a page learns of an error, and how it becomes an error again: the one place that makes an
 * error's record for a page (the relay encoders, the event log, the AI SDK UI stream) and the one
 * that reads it back. Internal.
 *
 * @module
 */
import { ParseError } from 'eventsource-parser';
import { ArgumentValidationError } from '../views/argument-validation-core.ts';
import { JsonStreamError, ProviderError, ToolCallArgumentsError } from '../errors.ts';
import { TaggedToolCallError } from '../turn/tagged-tool-call-extractor.ts';
import { RelayError } from './relay-error.ts';

/** An error class the decoder can give back: only its prototype is used (its constructor is not called). */
export type ErrorClass = abstract new (...args: never[]) => Error;

/** argstream's error classes and the standard ones, by name. */
const KNOWN_CLASSES: ReadonlyArray<readonly [string, ErrorClass]> = [
  ['JsonStreamError', JsonStreamError],
  ['ProviderError', ProviderError],
  ['ToolCallArgumentsError', ToolCallArgumentsError],
  ['ArgumentValidationError', ArgumentValidationError],
  ['TaggedToolCallError', TaggedToolCallError],
  ['RelayError', RelayError],
  // What ProviderEventStream's SSE parser (eventsource-parser) reports, as the cause of a ProviderError.
  ['ParseError', ParseError],
  ['Error', Error],
  ['TypeError', TypeError],
  ['RangeError', RangeError],
  ['SyntaxError', SyntaxError],
  ['ReferenceError', ReferenceError],
  ['EvalError', EvalError],
  ['URIError', URIError],
];

/** Classes that declare `cause` as a field of their own (so it is enumerable, unlike `Error`'s). */
const FIELD_CAUSE = new Set<string>(['ToolCallArgumentsError', 'TaggedToolCallError']);

/** The error classes by name: the known ones, then the caller's (which win). */
export function errorClasses(extra: Readonly<Record<string, ErrorClass>> | undefined): ReadonlyMap<string, ErrorClass> {
  const map = new Map<string, ErrorClass>(KNOWN_CLASSES);
  if (extra !== undefined) for (const [name, cls] of Object.entries(extra)) map.set(name, cls);
  return map;
}

/** The plain record an error is written as. */
export function errorRecord(error: Error): Record<string, unknown> {
  const record: Record<string, unknown> = { name: String(error.name), message: String(error.message) };
  for (const key of Object.keys(error)) {
    if (key === 'stack' || key === 'name' || key === 'message') continue;
    record[key] = (error as unknown as Record<string, unknown>)[key];
  }
  // A `code` from a getter (DOMException) still says what went wrong.
  if (!('code' in record)) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' || typeof code === 'number') record['code'] = code;
  }
  if (!('cause' in record) && error.cause !== undefined) record['cause'] = error.cause;
  return record;
}

/** What an upstream failure that is not an `Error` is written as. */
export function reasonRecord(reason: unknown): Record<string, unknown> {
  if (reason instanceof Error) return errorRecord(reason);
  if (reason === undefined) return { name: 'Error', message: 'the stream was aborted' };
  let message: string;
  try {
    message = typeof reason === 'string' ? reason : JSON.stringify(reason) ?? String(reason);
  } catch {
    message = String(reason);
  }
  return { name: 'Error', message };
}

/** Make an error again from its record. */
export function reviveError(record: unknown, classes: ReadonlyMap<string, ErrorClass>): Error {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    throw new RelayError('invalid-data', 'an error record is not an object');
  }
  const fields = record as Record<string, unknown>;
  const name = typeof fields['name'] === 'string' ? fields['name'] : 'Error';
  const message = typeof fields['message'] === 'string' ? fields['message'] : '';
  const cls = classes.get(name) ?? Error;
  // An error of that class without running its constructor (whose parameters differ from class to
  // class): Error's constructor gives the message and a stack, the prototype gives `instanceof`.
  const error = Reflect.construct(Error, [message], cls) as Error;
  if (error.name !== name) Object.defineProperty(error, 'name', { value: name, enumerable: true, writable: true, configurable: true });
  for (const key of Object.keys(fields)) {
    if (key === 'name' || key === 'message') continue;
    const enumerable = key !== 'cause' || FIELD_CAUSE.has(name);
    Object.defineProperty(error, key, { value: fields[key], enumerable, writable: true, configurable: true });
  }
  return error;
}

