/**
 * Readers for the untyped JSON that providers send: every adapter reads fields that may be
 * missing, `null`, or of an unexpected type, and must ignore what it does not know. Every field is
 * checked before it is used, and `null` reads like an absent field (several OpenAI-compatible
 * servers send `null`s).
 *
 * The lenient readers (`stringAt`, `numberAt`, …) read a field as absent when it is of another
 * type. The members of a record of a type an adapter knows are read with {@link membersOf}
 * instead, which refuses a member of the wrong type (and a missing one the record cannot do
 * without) with a `ProviderError` of type `'invalid-format'`; a record of a type the adapter does
 * not know is still ignored, as a provider may add types later.
 *
 * @module
 */
import { ProviderError, type ProviderName } from '../errors.ts';
import type { EventMetadata, Usage } from '../types.ts';

/** A decoded JSON object (or an SDK event object). */
export type JsonRecord = Readonly<Record<string, unknown>>;

/** True for a non-null, non-array object. */
export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value[key]` when it is an object, else `undefined`. */
export function recordAt(value: unknown, key: string): JsonRecord | undefined {
  if (!isRecord(value)) return undefined;
  const field = value[key];
  return isRecord(field) ? field : undefined;
}

/** `value[key]` when it is a string (possibly empty), else `undefined`. */
export function stringAt(value: unknown, key: string): string | undefined {
  if (!isRecord(value)) return undefined;
  const field = value[key];
  return typeof field === 'string' ? field : undefined;
}

/** The value when it is a non-empty string: `""` and `null` never count as a value. */
export function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** `value[key]` when it is a non-empty string: `""` and `null` never count as a value. */
export function nonEmptyStringAt(value: unknown, key: string): string | undefined {
  return nonEmptyString(stringAt(value, key));
}

/** `value[key]` when it is a finite number, else `undefined`. */
export function numberAt(value: unknown, key: string): number | undefined {
  if (!isRecord(value)) return undefined;
  const field = value[key];
  return typeof field === 'number' && Number.isFinite(field) ? field : undefined;
}

/**
 * Metadata from the given entries, without those whose value is `undefined` or `null`;
 * `undefined` when nothing is left, so that events without metadata carry no `metadata` key.
 */
export function metadataOf(entries: Readonly<Record<string, unknown>>): EventMetadata | undefined {
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(entries)) {
    const value = entries[key];
    if (value === undefined || value === null) continue;
    (out ??= {})[key] = value;
  }
  return out;
}

/**
 * Every {@link Usage} field, each one given: its value or `undefined`, so a provider cannot forget one.
 *
 * Not `{ [K in keyof Usage]-?: Usage[K] | undefined }`: `-?` on an optional property removes
 * `undefined` from the whole property type, the written `| undefined` included, unless
 * exactOptionalPropertyTypes is on. Our tsconfig turns it on, Deno's (and JSR's) defaults do not,
 * so every `usageOf` call failed `deno check` of a module importing `src/index.ts`. Mapping over
 * `Required<Usage>` needs no `-?`, so the type is the same under both.
 */
export type UsageFields = { readonly [K in keyof Required<Usage>]: Required<Usage>[K] | undefined };

/** A {@link Usage} without the fields that are `undefined` (exactOptionalPropertyTypes). */
export function usageOf(fields: UsageFields): Usage {
  const out: { -readonly [K in keyof Usage]: Usage[K] } = {};
  if (fields.inputTokens !== undefined) out.inputTokens = fields.inputTokens;
  if (fields.outputTokens !== undefined) out.outputTokens = fields.outputTokens;
  if (fields.totalTokens !== undefined) out.totalTokens = fields.totalTokens;
  if (fields.reasoningTokens !== undefined) out.reasoningTokens = fields.reasoningTokens;
  if (fields.cachedInputTokens !== undefined) out.cachedInputTokens = fields.cachedInputTokens;
  if (fields.raw !== undefined) out.raw = fields.raw;
  return out;
}

/** `a + b` where either may be missing; `undefined` only when both are. */
export function addCounts(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : a + b;
}

/** What a member must be: its JSON type, as a message names it. */
type MemberKind = 'a string' | 'a number' | 'an object' | 'an array';

function isKind(field: unknown, kind: MemberKind): boolean {
  switch (kind) {
    case 'a string':
      return typeof field === 'string';
    case 'a number':
      return typeof field === 'number' && Number.isFinite(field);
    case 'an object':
      return isRecord(field);
    case 'an array':
      return Array.isArray(field);
  }
}

/**
 * The checked readers of the members of a record of a known type, for one provider (see
 * {@link membersOf}). `where` names the record in the provider's own words (`content_block_delta`,
 * `a tool call`); messages quote no input. `null` reads like an absent member.
 */
export interface MemberReader {
  /** `value[key]` as a string. @throws {ProviderError} `'invalid-format'` when it is missing, `null` or not a string. */
  requiredString(value: JsonRecord, key: string, where: string): string;
  /** `value[key]` as a string, `undefined` when absent or `null`. @throws {ProviderError} `'invalid-format'` when it is anything else. */
  optionalString(value: JsonRecord, key: string, where: string): string | undefined;
  /** `value[key]` as a finite number. @throws {ProviderError} `'invalid-format'` when it is missing, `null` or not one. */
  requiredNumber(value: JsonRecord, key: string, where: string): number;
  /** `value[key]` as a finite number, `undefined` when absent or `null`. @throws {ProviderError} `'invalid-format'` when it is anything else. */
  optionalNumber(value: JsonRecord, key: string, where: string): number | undefined;
  /** `value[key]` as an object. @throws {ProviderError} `'invalid-format'` when it is missing, `null` or not an object. */
  requiredRecord(value: JsonRecord, key: string, where: string): JsonRecord;
  /** `value[key]` as an object, `undefined` when absent or `null`. @throws {ProviderError} `'invalid-format'` when it is anything else. */
  optionalRecord(value: JsonRecord, key: string, where: string): JsonRecord | undefined;
  /** `value[key]` as an array, `undefined` when absent or `null`. @throws {ProviderError} `'invalid-format'` when it is anything else. */
  optionalArray(value: JsonRecord, key: string, where: string): readonly unknown[] | undefined;
  /** The `'invalid-format'` error of a record of the wrong shape, `what` saying how (`a choice that is not an object`). */
  invalid(what: string, cause?: unknown): ProviderError;
}

/**
 * The checked member readers of `provider`'s records (see {@link MemberReader}): a record of a
 * known type whose member is missing or of the wrong type ends the stream in a `ProviderError` of
 * type `'invalid-format'` (the record it was read from as `cause`), rather than being skipped or
 * read on into a `TypeError`.
 */
export function membersOf(provider: ProviderName): MemberReader {
  function invalid(what: string, cause?: unknown): ProviderError {
    return new ProviderError(provider, 'invalid-format', `${provider}: ${what}`, cause === undefined ? undefined : { cause });
  }
  function member(value: JsonRecord, key: string, where: string, kind: MemberKind, required: boolean): unknown {
    const field = value[key];
    if (field === undefined || field === null) {
      if (required) throw invalid(`${where} without \`${key}\``, value);
      return undefined;
    }
    if (!isKind(field, kind)) throw invalid(`${where} whose \`${key}\` is not ${kind}`, value);
    return field;
  }
  return {
    requiredString: (value, key, where) => member(value, key, where, 'a string', true) as string,
    optionalString: (value, key, where) => member(value, key, where, 'a string', false) as string | undefined,
    requiredNumber: (value, key, where) => member(value, key, where, 'a number', true) as number,
    optionalNumber: (value, key, where) => member(value, key, where, 'a number', false) as number | undefined,
    requiredRecord: (value, key, where) => member(value, key, where, 'an object', true) as JsonRecord,
    optionalRecord: (value, key, where) => member(value, key, where, 'an object', false) as JsonRecord | undefined,
    optionalArray: (value, key, where) => member(value, key, where, 'an array', false) as readonly unknown[] | undefined,
    invalid,
  };
}

/**
 * `JSON.stringify(value)` of a value a provider sent whole (a tool call's `args` or `input`
 * object), `''` for a value JSON has no text for (`undefined`). `JSON.stringify` recurses: a value
 * nested a few thousand levels deep (well within `maxBufferedBytes`, and `JSON.parse` reads it)
 * overflows the call stack, and an SDK object may hold a cycle or a `BigInt`. Either is refused
 * here with a typed error, after as much work as the value's size: no `RangeError` or `TypeError`
 * reaches the stream.
 *
 * @param what The value, in a message (`the arguments of a tool call`).
 * @throws {ProviderError} type `'invalid-format'` for a value that cannot be written as JSON text
 *   (the `RangeError` or `TypeError` as `cause`).
 */
export function jsonTextOf(provider: ProviderName, value: unknown, what: string): string {
  try {
    return (JSON.stringify(value) as string | undefined) ?? '';
  } catch (cause) {
    if (cause instanceof RangeError) {
      throw new ProviderError(provider, 'invalid-format', `${provider}: ${what} could not be written as JSON text: nested too deeply, or too long`, { cause });
    }
    if (cause instanceof TypeError) {
      throw new ProviderError(provider, 'invalid-format', `${provider}: ${what} could not be written as JSON text: it holds a cycle or a BigInt`, { cause });
    }
    throw cause;
  }
}
