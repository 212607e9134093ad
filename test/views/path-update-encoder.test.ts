import { describe, expect, it } from 'vitest';
import { PathUpdateEncoder } from '../../src/views/path-update-encoder.ts';
import { note, updatesOf } from './path-update-helpers.ts';

describe('PathUpdateEncoder', () => {
  it('PathUpdateEncoder flattens a flat object: key before each value, strings in pieces, json-complete last', () => {
    expect(updatesOf('{"path":"src/ma', 'in.rs","mode":420,"force":true,"owner":null}').map(note)).toEqual([
      'start-object ""',
      'key "/path" "path"',
      'start-string "/path"',
      'partial-string "/path" "src/ma"',
      'partial-string "/path" "in.rs"',
      'complete-string "/path"',
      'key "/mode" "mode"',
      'complete-number "/mode" 420',
      'key "/force" "force"',
      'complete-boolean "/force" true',
      'key "/owner" "owner"',
      'complete-null "/owner" null',
      'end-object ""',
      'json-complete ""',
    ]);
  });

  it('PathUpdateEncoder gives nested objects and arrays JSON Pointer paths with element indices', () => {
    expect(updatesOf('{"edits":[{"line":3,"text":"x"},[]],"meta":{}}').map(note)).toEqual([
      'start-object ""',
      'key "/edits" "edits"',
      'start-array "/edits"',
      'start-object "/edits/0"',
      'key "/edits/0/line" "line"',
      'complete-number "/edits/0/line" 3',
      'key "/edits/0/text" "text"',
      'start-string "/edits/0/text"',
      'partial-string "/edits/0/text" "x"',
      'complete-string "/edits/0/text"',
      'end-object "/edits/0"',
      'start-array "/edits/1"',
      'end-array "/edits/1"',
      'end-array "/edits"',
      'key "/meta" "meta"',
      'start-object "/meta"',
      'end-object "/meta"',
      'end-object ""',
      'json-complete ""',
    ]);
  });

  it('PathUpdateEncoder escapes ~ and / in keys (RFC 6901) and keeps the decoded key in textValue', () => {
    expect(updatesOf('{"a/b":1,"m~n":{"":2},"\\u002f":3}').map(note)).toEqual([
      'start-object ""',
      'key "/a~1b" "a/b"',
      'complete-number "/a~1b" 1',
      'key "/m~0n" "m~n"',
      'start-object "/m~0n"',
      'key "/m~0n/" ""',
      'complete-number "/m~0n/" 2',
      'end-object "/m~0n"',
      'key "/~1" "/"',
      'complete-number "/~1" 3',
      'end-object ""',
      'json-complete ""',
    ]);
  });

  it('PathUpdateEncoder handles root scalars and empty containers and strings', () => {
    expect(updatesOf('-0.50e1').map(note)).toEqual(['complete-number "" -0.50e1', 'json-complete ""']);
    expect(updatesOf('true').map(note)).toEqual(['complete-boolean "" true', 'json-complete ""']);
    expect(updatesOf('{}').map(note)).toEqual(['start-object ""', 'end-object ""', 'json-complete ""']);
    expect(updatesOf('[]').map(note)).toEqual(['start-array ""', 'end-array ""', 'json-complete ""']);
    expect(updatesOf('""').map(note)).toEqual(['start-string ""', 'complete-string ""', 'json-complete ""']);
    expect(updatesOf('[null, ""]').map(note)).toEqual([
      'start-array ""',
      'complete-null "/0" null',
      'start-string "/1"',
      'complete-string "/1"',
      'end-array ""',
      'json-complete ""',
    ]);
  });

  it('PathUpdateEncoder makes plain JSON objects with exactly the documented fields', () => {
    const updates = updatesOf('{"n":12345678901234567890,"s":"é"}');
    expect(updates).toEqual([
      { type: 'path-update', kind: 'start-object', path: '' },
      { type: 'path-update', kind: 'key', path: '/n', textValue: 'n' },
      { type: 'path-update', kind: 'complete-number', path: '/n', value: 12345678901234567890, raw: '12345678901234567890' },
      { type: 'path-update', kind: 'key', path: '/s', textValue: 's' },
      { type: 'path-update', kind: 'start-string', path: '/s' },
      { type: 'path-update', kind: 'partial-string', path: '/s', textValue: 'é' },
      { type: 'path-update', kind: 'complete-string', path: '/s' },
      { type: 'path-update', kind: 'end-object', path: '' },
      { type: 'path-update', kind: 'json-complete', path: '' },
    ]);
    for (const update of updates) expect(Object.getPrototypeOf(update)).toBe(Object.prototype);
  });

  it('PathUpdateEncoder refuses fragments out of order and anything after the document', () => {
    const encoder = new PathUpdateEncoder();
    expect(() => encoder.push({ type: 'string', text: 'x' })).toThrow(TypeError);
    expect(() => encoder.push({ type: 'done' })).toThrow(TypeError);
    encoder.push({ type: 'start', kind: 'array' });
    expect(() => encoder.push({ type: 'entry', key: 'a', value: { type: 'scalar', value: 1 } })).toThrow(TypeError);
    expect(() => encoder.push({ type: 'start', kind: 'object' })).toThrow(TypeError);
    encoder.push({ type: 'done' });
    expect(encoder.complete).toBe(true);
    expect(() => encoder.push({ type: 'start', kind: 'object' })).toThrow(/already complete/);
  });
});
