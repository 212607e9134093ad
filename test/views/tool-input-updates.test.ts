/**
 * `ToolInputUpdates`: one call's input text, piece by piece, as the path updates its relay sends —
 * all of them for a call streamed in pieces, none once the text stops parsing (but, with
 * `updatesBeforeError`, those the failing piece made before the error), none past the budget.
 */
import { describe, expect, it } from 'vitest';
import type { PathUpdate } from '../../src/index.ts';
import { ToolInputUpdates } from '../../src/views/tool-input-updates.ts';

const kinds = (updates: readonly PathUpdate[] | undefined) => updates?.map((update) => update.kind);

/** A piece whose text stops parsing at its last character (`x` where `,` or `}` must come), with enough text before to pay for its updates. */
const BROKEN = `{"note":"${'y'.repeat(300)}","a":[1,2] x`;
const BROKEN_KINDS = ['start-object', 'key', 'start-string', 'partial-string', 'complete-string', 'key', 'start-array', 'complete-number', 'complete-number', 'end-array'];

describe('ToolInputUpdates', () => {
  it('ToolInputUpdates gives each piece of a call streamed in pieces its updates, as they complete', () => {
    const updates = new ToolInputUpdates(false, true);
    expect(kinds(updates.push('{"path":"a.txt",', true, 0, 'call_1'))).toEqual(['start-object', 'key', 'start-string', 'partial-string', 'complete-string']);
    expect(kinds(updates.push('"n":[1,', true, 1, 'call_1'))).toEqual(['key', 'start-array', 'complete-number']);
    expect(kinds(updates.push('2]}', true, 2, 'call_1'))).toEqual(['complete-number', 'end-array', 'end-object', 'json-complete']);
  });

  it('ToolInputUpdates with updatesBeforeError: the piece that stops parsing still gives the updates it made before the error, then none', () => {
    const updates = new ToolInputUpdates(false, true);
    expect(kinds(updates.push(BROKEN, true, 0, 'call_1'))).toEqual(BROKEN_KINDS);
    expect(updates.push('}', true, 1, 'call_1')).toBeUndefined();
  });

  it('ToolInputUpdates without updatesBeforeError: the piece that stops parsing gives none, nor any after it', () => {
    const updates = new ToolInputUpdates(true, false);
    expect(updates.push(BROKEN, true, 0, 'call_1')).toBeUndefined();
    expect(updates.push('}', true, 1, 'call_1')).toBeUndefined();
  });

  it('ToolInputUpdates holds what its budget does not cover, and sends it with a later piece once the text has paid for it', () => {
    const updates = new ToolInputUpdates(false, true);
    // 40 one-digit numbers in one piece: 40 updates of ~40 characters, far over 3 × 81 + 384 + 32.
    const numbers = Array.from({ length: 40 }, (_, i) => i % 10).join(',');
    expect(updates.push(`[${numbers},`, false, 0, 'call_1')).toBeUndefined();
    // A long string in the same read pays 3 characters for each of its own.
    const paid = updates.push(`"${'x'.repeat(2000)}"]`, false, 0, 'call_1');
    expect(kinds(paid)?.filter((kind) => kind === 'complete-number')).toHaveLength(40);
    expect(kinds(paid)?.at(-1)).toBe('json-complete');
  });
});
