/**
 * Readers for the untyped JSON that providers send: every adapter reads fields that may be
 * missing, `null`, or of an unexpected type, and must ignore what it does not know. Every field is
 * checked before it is used, and `null` reads like an absent field (several OpenAI-compatible
 * servers send `null`s).
 *
 * @module
 */
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
