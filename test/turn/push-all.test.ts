/**
 * `TurnBuilder.pushAll`: what one input chunk made, pushed at once. Adjacent argument text of one
 * slot is parsed as one piece, so the pieces of progress differ in where they are cut, never in
 * what they say: after the stages' own joining of adjacent text, the outputs are the ones `push`
 * gives event by event.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { chain, ConversationEventStream, FieldEventStream, ProviderEventStream, TurnBuilder, type PipelineEvent } from '../../src/index.ts';
import { joinAdjacentText } from '../../src/transforms/batch.ts';
import { args, finished, flush, readAll, start, streamOf } from '../helpers.ts';

type Options = ConstructorParameters<typeof TurnBuilder>[0];

/** The events of `batches` through `push` one by one (the reference) and through `pushAll`, each batch joined as a stage joins it. */
function both(batches: readonly (readonly PipelineEvent[])[], options: Options): { each: unknown[]; all: unknown[]; eachError?: unknown; allError?: unknown } {
  const run = (pushAll: boolean): { out: unknown[]; error?: unknown } => {
    const builder = new TurnBuilder(options);
    const out: unknown[] = [];
    try {
      for (const batch of batches) {
        const made: PipelineEvent[] = [];
        try {
          if (pushAll) builder.pushAll(batch, made);
          else for (const event of batch) builder.push(event, made);
        } finally {
          out.push(...joinAdjacentText(made));
        }
      }
      out.push(...joinAdjacentText(builder.end()));
      return { out };
    } catch (error) {
      return { out, error };
    }
  };
  const each = run(false);
  const all = run(true);
  return { each: each.out, all: all.out, eachError: each.error, allError: all.error };
}

/** `text` cut at `cuts` (positions, any order), as argument parts of slot `index`. */
function cutInto(text: string, cuts: readonly number[], index: number): PipelineEvent[] {
  const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const point of [...points, text.length]) {
    if (point > from) pieces.push(text.slice(from, point));
    from = point;
  }
  return pieces.map((piece) => args(index, piece) as PipelineEvent);
}

/** `events` grouped into batches of the given sizes (the rest in one last batch). */
function grouped(events: readonly PipelineEvent[], sizes: readonly number[]): PipelineEvent[][] {
  const batches: PipelineEvent[][] = [];
  let at = 0;
  for (const size of sizes) {
    if (at >= events.length) break;
    batches.push(events.slice(at, at + size));
    at += size;
  }
  if (at < events.length) batches.push(events.slice(at));
  return batches;
}

/** An error's class, message and where it happened, without the excerpt. */
function described(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const cause = error.cause as { offset?: number; path?: string; code?: string; message?: string } | undefined;
  return { name: error.name, message: error.message, cause: cause && { message: cause.message, offset: cause.offset, path: cause.path, code: cause.code } };
}

const OPTIONS: readonly Options[] = [{ progress: true }, { progress: true, messages: false }, {}, { progress: true, isolateErrors: true }, { progress: true, repair: true }];

describe('TurnBuilder.pushAll', () => {
  it('gives push’s outputs, joined as a stage joins them, for any JSON cut anywhere and batched any way', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 3 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        fc.array(fc.integer({ min: 1, max: 12 }), { maxLength: 20 }),
        fc.constantFrom(...OPTIONS),
        (value, cuts, sizes, options) => {
          const text = JSON.stringify({ value });
          const events = [start(0, 'call_1', 'write_file') as PipelineEvent, ...cutInto(text, cuts, 0), flush(0) as PipelineEvent, finished('tool-calls', 'tool_use') as PipelineEvent];
          const { each, all, eachError, allError } = both(grouped(events, sizes), options);
          expect(all).toEqual(each);
          expect(allError).toEqual(eachError);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('fails where push fails, with what came before the error, for broken argument text', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('{"a": [1, 2,, 3]}', '{"path": "x", "content": "ab\\qcd"}', '{"a": 1} {"b": 2}', '{"a": tru}', '{"s": "\u0001"}'),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.array(fc.integer({ min: 1, max: 8 }), { maxLength: 8 }),
        fc.constantFrom(...OPTIONS),
        (text, cuts, sizes, options) => {
          const events = [start(0, 'c', 'f') as PipelineEvent, ...cutInto(text, cuts, 0), flush(0) as PipelineEvent];
          const { each, all, eachError, allError } = both(grouped(events, sizes), options);
          // The same events and the same error, up to the error's excerpt (the input text around
          // the offset, which depends on where the text was cut). Progress may stop one piece of
          // string earlier: a piece decoded together with the bad escape that ends it is not given.
          const settled = (out: readonly unknown[]) =>
            out
              .filter((event) => (event as { type: string }).type !== 'tool-call-progress')
              .map((event) => ('error' in (event as object) ? { ...(event as object), error: described((event as { error: unknown }).error) } : event));
          expect(settled(all)).toEqual(settled(each));
          expect(described(allError)).toEqual(described(eachError));
          if (options?.isolateErrors !== true) expect(allError).toBeInstanceOf(Error);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('joins only one slot’s adjacent parts of one kind: interleaved calls and structured text stay apart', () => {
    const batch: PipelineEvent[] = [
      start(0, 'a', 'f') as PipelineEvent,
      start(1, 'b', 'g') as PipelineEvent,
      args(0, '{"x": "1'),
      args(0, '2'),
      args(1, '{"y": '),
      args(0, '3"}'),
      args(1, '[true]}'),
      { type: 'part', index: 2, part: { type: 'structured', json: '{"s": ' } },
      { type: 'part', index: 2, part: { type: 'structured', json: '"t"}' } },
      flush(0) as PipelineEvent,
      flush(1) as PipelineEvent,
      flush(2) as PipelineEvent,
    ];
    const { each, all } = both([batch], { progress: true });
    expect(all).toEqual(each);
    expect(all).toContainEqual(expect.objectContaining({ type: 'tool-call', index: 0, arguments: { x: '123' } }));
    expect(all).toContainEqual(expect.objectContaining({ type: 'tool-call', index: 1, arguments: { y: [true] } }));
    expect(all).toContainEqual(expect.objectContaining({ type: 'structured', data: { s: 't' } }));
  });

  it('merges the parts’ metadata in order, as push does', () => {
    const batch: PipelineEvent[] = [
      start(0, 'c', 'f') as PipelineEvent,
      { type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: '{"a"' }, metadata: { first: 1, shared: 'one' } },
      { type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: ': 1' } },
      { type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: '}' }, metadata: { shared: 'two' } },
      flush(0) as PipelineEvent,
    ];
    const { each, all } = both([batch], {});
    expect(all).toEqual(each);
    expect(all).toContainEqual(expect.objectContaining({ type: 'tool-call', arguments: { a: 1 }, metadata: { first: 1, shared: 'two' } }));
    // The events given are not changed.
    expect(batch[1]).toEqual({ type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: '{"a"' }, metadata: { first: 1, shared: 'one' } });
  });

  it('with passthrough, or for a slot a stage before parses, passes the parts on as they came', () => {
    const batch: PipelineEvent[] = [start(0, 'c', 'f') as PipelineEvent, args(0, '{"a"'), args(0, ': 1'), args(0, '}'), flush(0) as PipelineEvent];
    const pass = both([batch], { progress: true, passthrough: true });
    expect(pass.all).toEqual(pass.each);
    expect(pass.all.filter((event) => (event as { type: string }).type === 'part').length).toBe(4);
    const reported: PipelineEvent[] = [
      { type: 'tool-call-progress', index: 0, toolCallId: 'c', toolName: 'f', fragment: { type: 'start', kind: 'object' } },
      args(0, '{"a"'),
      args(0, ': 1}'),
    ];
    const before = both([reported], { progress: true });
    expect(before.all).toEqual(before.each);
    expect(before.all.slice(1)).toEqual(reported.slice(1));
  });

  it('is what a fused chain runs: one network read of many deltas gives the same turn and fields as one delta a read', async () => {
    const deltas = ['{"path": "src/a.ts", "content": "', 'export const a', ' = \\"x\\";\\n', 'export const b = 2;', '"}'];
    const events = [
      `event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"claude","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}\n\n`,
      `event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"write_file","input":{}}}\n\n`,
      ...deltas.map((delta) => `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: delta } })}\n\n`),
      `event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n`,
      `event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9}}\n\n`,
      `event: message_stop\ndata: {"type":"message_stop"}\n\n`,
    ];
    const bytes = (reads: readonly string[]) => streamOf(reads.map((read) => new TextEncoder().encode(read)));
    const progressEvents = (out: readonly unknown[]) =>
      out.filter((event) => (event as { type: string }).type === 'tool-call-progress').length;
    const original = TurnBuilder.prototype.pushAll;
    const batches: number[] = [];
    const spy = vi.spyOn(TurnBuilder.prototype, 'pushAll').mockImplementation(function (this: TurnBuilder, events, out) {
      batches.push(events.length);
      return original.call(this, events, out);
    });
    const oneRead = await readAll(bytes([events.join('')]).pipeThrough(chain(new ProviderEventStream({ provider: 'anthropic' }), new ConversationEventStream({ progress: true }))));
    const eachRead = await readAll(bytes(events).pipeThrough(chain(new ProviderEventStream({ provider: 'anthropic' }), new ConversationEventStream({ progress: true }))));
    // The one read's events went to the builder at once; one event a read goes one by one.
    expect(batches.length).toBe(1);
    expect(batches[0]).toBeGreaterThan(deltas.length);
    spy.mockRestore();
    expect(oneRead.at(-2)).toEqual(eachRead.at(-2));
    expect(oneRead.at(-2)).toMatchObject({ type: 'tool-call', arguments: { path: 'src/a.ts', content: 'export const a = "x";\nexport const b = 2;' } });
    expect(progressEvents(oneRead)).toBeLessThan(progressEvents(eachRead));
    const fields = async (reads: readonly string[]) =>
      (await readAll(bytes(reads).pipeThrough(chain(new ProviderEventStream({ provider: 'anthropic' }), new FieldEventStream({ keepProgress: false })))))
        .filter((event) => (event as { type: string }).type === 'field-end');
    expect(await fields([events.join('')])).toEqual(await fields(events));
  });
});
