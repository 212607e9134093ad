/**
 * The relay decoders on what a hostile or broken server (or a proxy) sends: forged batches,
 * nesting far beyond the limits, references to nothing, runs with nothing to repeat, lines that
 * never end. Every case is a typed `RelayError` with a code, after the events before it, in bounded
 * time — never a `TypeError` or a `RangeError`.
 */
import { describe, expect, it } from 'vitest';
import { EventStreamDecoder, EventStreamEncoder, NdjsonDecoder, RelayError, TurnStore } from '../../src/index.ts';
import { settle, streamOf } from '../helpers.ts';

async function sse(text: string, options = {}) {
  return settle(streamOf([text]).pipeThrough(new EventStreamDecoder(options)));
}

async function ndjson(text: string) {
  return settle(streamOf([text]).pipeThrough(new NdjsonDecoder()));
}

/** A batch record, then the end. */
const record = (data: string, id = 1) => `id: ${id}\ndata: ${data}\n\nevent: end\ndata: {}\n\n`;

describe('EventStreamDecoder and NdjsonDecoder refuse forged batches with a typed error', () => {
  const forged: ReadonlyArray<readonly [string, string, string]> = [
    ['an unknown entry code', '[[0],[99,1]]', 'invalid-data'],
    ['a number where an entry belongs', '[[0],5]', 'invalid-data'],
    ['null where an entry belongs', '[[0],null]', 'invalid-data'],
    ['a string numbered before it was sent', '[[0],[2,0,7,"f"]]', 'invalid-data'],
    ['a context never defined', '[[0],[3,4,-2,1]]', 'invalid-data'],
    ['a context of the wrong shape', '[[0],[3,{"a":1},-2,1]]', 'invalid-data'],
    ['a path from a node never made', '[[0],[3,[0,"c","f",28,null],[999,0],1]]', 'invalid-data'],
    ['the parent of the root', '[[0],[3,[0,"c","f",28,null],-3,1]]', 'invalid-data'],
    ['the next element after no element', '[[0],[3,[0,"c","f",28,null],-1,1]]', 'invalid-data'],
    ['a run with nothing to repeat', '[[0],[4,1,2,3]]', 'invalid-data'],
    ['progress of no context', '[[0],[13,-2,1]]', 'invalid-data'],
    ['a field delta of no field', '[[0],[11,"x"]]', 'invalid-data'],
    ['a path update of no document', '[[0],[12,0,""]]', 'invalid-data'],
    ['the next element after no path', '[[0],[8,[0,"c",null,12,null],6,"a","x"],[14,6,"y"]]', 'invalid-data'],
    ['a number literal that is no number', '[[0],[3,[0,"c","f",28,null],-2,["1x"]]]', 'invalid-data'],
    ['a part of an unknown kind', '[[0],[1,0,"q","text"]]', 'invalid-data'],
    ['metadata that is not an object', '[[0],[10,0,"x"]]', 'invalid-data'],
    ['a leaf of no kind', '[[0],[3,[0,"c","f",28,null],-2,{"x":1}]]', 'invalid-data'],
    ['a run of more entries than were written', '[[0],[1,0,"m","a"],[15,3,1]]', 'invalid-data'],
    ['a run copying from farther back than 256 entries', `[[0],[1,0,"m","a"],[15,1,299],[15,257,1]]`, 'invalid-data'],
    ['a run replacing in a group longer than 32', `[[0],[1,0,"m","a"],[15,1,40],[16,33,"a","b"]]`, 'invalid-data'],
    ['a run with fewer values than its entries hold', '[[0],[1,0,"m","a"],[17,1,2,"b"]]', 'invalid-data'],
    ['a run with values left over', '[[0],[1,0,"m","a"],[17,1,1,"b","c"]]', 'invalid-data'],
    ['a run with a value that is a number but 0', '[[0],[1,0,"m","a"],[17,1,1,7]]', 'invalid-data'],
    ['a run repeated no times', '[[0],[1,0,"m","a"],[15,1,0]]', 'invalid-data'],
    ['a run repeated a fraction of a time', '[[0],[1,0,"m","a"],[15,1,1.5]]', 'invalid-data'],
    ['a run replacing the empty string', '[[0],[1,0,"m","a"],[16,1,"","b"]]', 'invalid-data'],
    ['a run replacing by a number', '[[0],[1,0,"m","a"],[16,1,"a",7]]', 'invalid-data'],
    ['a run over an entry with an object inside', '[[0],[1,0,"m","a",{"k":"a"}],[16,1,"a","b"]]', 'invalid-data'],
    ['a run over an event written whole', '[[0],{"type":"custom","x":"a"},[15,1,3]]', 'invalid-data'],
    ['runs standing for more than 65,536 entries in one record', '[[0],[1,0,"m","a"],[15,1,60000],[15,1,6000]]', 'invalid-data'],
  ];
  for (const [what, data, code] of forged) {
    it(`${what}: RelayError '${code}'`, async () => {
      for (const decoded of [await sse(record(data)), await ndjson(`${data}\n{"type":"end"}\n`)]) {
        expect(decoded.error).toBeInstanceOf(RelayError);
        expect(decoded.error).toMatchObject({ code });
      }
    });
  }

  it('runs stand for the entries they repeat: literal ones, and ones with a string replaced, from history that moves on', async () => {
    const data = '[[0],[1,0,"m","ab"],[1,0,"r","x"],[15,2,4],[16,1,"x","y","z"],[17,3,3,0,"q",0,"w","m","e"]]';
    const decoded = await sse(record(data));
    expect(decoded.error).toBeUndefined();
    const texts = decoded.values.map((event) => (event as { part: { type: string; text: string } }).part).map((part) => `${part.type[0]}:${part.text}`);
    // [15,2,4]: four entries, each the one two before it; [16,1,…]: the last entry with x made y,
    // then y made z; [17,3,3,…]: three entries, each the one three before it with its values given
    // (kind and text; 0 keeps one).
    expect(texts).toEqual(['m:ab', 'r:x', 'm:ab', 'r:x', 'm:ab', 'r:x', 'r:y', 'r:z', 'r:q', 'r:w', 'm:e']);
  });

  it('a record of runs as large as the limit allows decodes in bounded time, and one more entry is refused', async () => {
    const runs = Array(16).fill('[15,1,4095]').join(',');
    const started = Date.now();
    const decoded = await sse(record(`[[0],[1,0,"m","a"],${runs}]`));
    expect(decoded.error).toBeUndefined();
    expect(decoded.values).toHaveLength(1 + 16 * 4095);
    expect(Date.now() - started).toBeLessThan(10_000);
    const over = await sse(record(`[[0],[1,0,"m","a"],${runs},[15,1,17]]`));
    expect(over.error).toMatchObject({ name: 'RelayError', code: 'invalid-data' });
  });

  it('a path 20,000 levels deep is refused at maxDepth (RelayError max-depth), and allowed when the page raises it', async () => {
    const steps = Array(20_000).fill(0).join(',');
    const data = `[[0],[3,[0,"c","f",28,null],[0,${steps}],1]]`;
    expect((await sse(record(data))).error).toMatchObject({ name: 'RelayError', code: 'max-depth' });
    const raised = await sse(record(data), { maxDepth: 30_000 });
    expect(raised.error).toBeUndefined();
    expect(raised.values).toHaveLength(1);
  });

  it('snapshots nested 20,000 deep (the previous form) are RelayError max-depth, not a RangeError', async () => {
    let snapshot = '{"type":"message","index":0,"text":"x"}';
    for (let i = 0; i < 20_000; i++) snapshot = `{"type":"snapshot","events":[${snapshot}]}`;
    const decoded = await sse(`id: 1\nevent: snapshot\ndata: {"events":[${snapshot}]}\n\nevent: end\ndata: {}\n\n`);
    expect(decoded.error).toMatchObject({ name: 'RelayError', code: 'max-depth' });
    const lines = await ndjson(`{"type":"snapshot","events":[${snapshot}]}\n{"type":"end"}\n`);
    expect(lines.error).toMatchObject({ name: 'RelayError', code: 'max-depth' });
  });

  it('TurnStore reading such a relay ends in the same typed error', async () => {
    const steps = Array(20_000).fill(0).join(',');
    const store = new TurnStore();
    const snapshot = await store.consume(new Response(record(`[[0],[2,0,"c","f"],[3,[0,"c","f",28,null],[0,${steps}],1]]`), { headers: { 'content-type': 'text/event-stream' } }));
    expect(snapshot.status).toBe('error');
    expect(snapshot.error).toMatchObject({ name: 'RelayError', code: 'max-depth' });
  });

  it('the events before a forged entry are delivered first', async () => {
    const decoded = await sse(`id: 1\ndata: [[0],[1,0,"m","hello"]]\n\nid: 2\ndata: [[99]]\n\nevent: end\ndata: {}\n\n`);
    expect(decoded.values).toEqual([{ type: 'part', index: 0, part: { type: 'message', text: 'hello' } }]);
    expect(decoded.error).toMatchObject({ name: 'RelayError', code: 'invalid-data' });
  });

  it('a 1 MB id line then a cut: RelayError incomplete with a bounded message', async () => {
    const id = '9'.repeat(1_000_000);
    const decoded = await sse(`id: ${id}\ndata: [[0],[1,0,"m","a"]]\n\n`);
    expect(decoded.error).toMatchObject({ name: 'RelayError', code: 'incomplete' });
    expect((decoded.error as Error).message.length).toBeLessThanOrEqual(300);
  });

  it('a batch written by a new encoder resets the tables: two responses read by one decoder come back whole', async () => {
    // The second continues the first's ids, as a resume does (a new encoder, a new response).
    let firstId = 1;
    const encode = async (events: unknown[]) => {
      const encoder = new EventStreamEncoder<unknown>({ firstId });
      firstId += events.length;
      const { values } = await settle(streamOf(events).pipeThrough(encoder));
      return new TextDecoder().decode(Buffer.concat(values as Uint8Array[])).replace('event: end\ndata: {}\n\n', '');
    };
    const a = { type: 'field-delta', key: 'content', text: 'one', index: 1, toolCallId: 'call_a', toolName: 'write_file' };
    const b = { type: 'field-delta', key: 'content', text: 'two', index: 1, toolCallId: 'call_b', toolName: 'write_file' };
    const decoded = await sse(`${await encode([a])}${await encode([b])}event: end\ndata: {}\n\n`);
    expect(decoded.error).toBeUndefined();
    expect(decoded.values).toEqual([a, b]);
  });
});
