/** Helpers of the field-event tests: field events in short, and the fields they make. */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { FieldEvent, FieldEventStreamOutput, JsonValue } from '../../src/index.ts';
import { cutsFor, jsonText } from '../json/json-helpers.ts';

export const RUNS = { numRuns: 300 };
export const textAndCuts = jsonText.chain((text) => fc.tuple(fc.constant(text), cutsFor(text.length)));

/** The field events of an output (everything else passed through). */
export function fieldEventsOf(events: readonly FieldEventStreamOutput[]): FieldEvent[] {
  return events.filter((e): e is FieldEvent => e.type.startsWith('field-'));
}

/** `start path`, `delta "…"`, `end path`: the events in short. */
export function brief(events: readonly FieldEvent[]): string[] {
  return events.map((e) => (e.type === 'field-delta' ? `delta ${JSON.stringify(e.text)}` : `${e.type.slice(6)} ${e.key}`));
}

/**
 * The fields of a run of field events, in order: each field's key and value (its deltas joined,
 * parsed as JSON unless the field was a string). Checks the event protocol on the way: start,
 * deltas of the same key, end; no delta outside a field.
 */
export function fieldsOf(events: readonly FieldEvent[]): { fields: Array<[string, JsonValue]>; open: [string, string] | undefined } {
  const fields: Array<[string, JsonValue]> = [];
  let open: [string, string] | undefined;
  for (const event of events) {
    if (event.type === 'field-start') {
      expect(open).toBeUndefined();
      open = [event.key, ''];
    } else {
      expect(open?.[0]).toBe(event.key);
      if (event.type === 'field-delta') {
        expect(event.text).not.toBe('');
        (open as [string, string])[1] += event.text;
      } else {
        const [key, text] = open as [string, string];
        fields.push([key, event.string ? text : (JSON.parse(text) as JsonValue)]);
        open = undefined;
      }
    }
  }
  return { fields, open };
}

/** What `JSON.parse` makes of the document, as fields: an object's members, or `[['', value]]`. */
export function expectedFields(value: JsonValue): Array<[string, JsonValue]> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return Object.entries(value);
  return [['', value]];
}

/** Fields with duplicate keys resolved as `JSON.parse` does (the last wins), sorted by key. */
export function lastWins(fields: ReadonlyArray<[string, JsonValue]>): Array<[string, JsonValue]> {
  const map = new Map<string, JsonValue>();
  for (const [key, value] of fields) map.set(key, value);
  return [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

