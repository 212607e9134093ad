/**
 * Reading the untyped JSON records providers send: every field is checked before it is used, and
 * `null` is treated like an absent field (several OpenAI-compatible servers send `null`s).
 *
 * @module
 */

/** A JSON object (not an array, not `null`). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The field as an object, or `undefined`. */
export function recordField(value: unknown, key: string): Record<string, unknown> | undefined {
  if (!isRecord(value)) return undefined;
  const field = value[key];
  return isRecord(field) ? field : undefined;
}

/** The value if it is a non-empty string: `""` and `null` mean "not sent". */
export function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The value if it is a finite number. */
export function finiteNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Copy the entries whose value is not `undefined` (for `exactOptionalPropertyTypes` objects). */
export function definedEntries<T extends Record<string, unknown>>(object: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) if (value !== undefined) out[key] = value;
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}
