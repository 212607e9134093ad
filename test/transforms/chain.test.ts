/**
 * Plain `pipeThrough` of stages is the platform's own; `chain` composes stages into one standard
 * `TransformStream` that runs their cores in one hop and keeps the stream protocol of a single
 * stage.
 */
import { describe, expect, it } from 'vitest';
import {
  ArgumentValidationStream,
  ConversationEventStream,
  FieldEventStream,
  JsonFragmentStream,
  JsonTextStream,
  ProviderEventStream,
  ToolCallArgumentsError,
  ToolCallProgressStream,
  chain,
  type PipelineEvent,
} from '../../src/index.ts';
import { joinAdjacentText } from '../../src/transforms/batch.ts';
import { args, finished, flush, readAll, recordingSource, settle, start, streamOf, text } from '../helpers.ts';

describe('chain', () => {
  it('chain: plain pipeThrough of stages is the platform\'s own: the readable piped from is locked, the result is the next stage\'s readable', () => {
    const progress = new ToolCallProgressStream();
    const fields = new FieldEventStream();
    const out = progress.readable.pipeThrough(fields);
    expect(out).toBe(fields.readable);
    expect(progress.readable.locked).toBe(true);
    expect(fields.writable.locked).toBe(true);
    expect(() => progress.readable.pipeThrough(new JsonTextStream() as never)).toThrow(TypeError);
    expect(() => progress.readable.getReader()).toThrow(TypeError);
  });

  it('chain: a stage\'s readable taken before it is piped into delivers', async () => {
    const stage = new JsonFragmentStream();
    const out = stage.readable;
    void streamOf(['[1,', '2]']).pipeThrough(stage);
    const fragments = await readAll(out);
    expect(fragments).toEqual(await readAll(streamOf(['[1,', '2]']).pipeThrough(new JsonFragmentStream())));
    expect(fragments.at(-1)).toEqual({ type: 'done' });
  });

  it('chain returns its first stage, extended, and consumes the others', async () => {
    const a = new ToolCallProgressStream();
    const b = new FieldEventStream({ keepProgress: false });
    const c = new ConversationEventStream();
    const all = chain(a, b, c);
    expect(all).toBe(a);
    expect(all).toBeInstanceOf(TransformStream);
    expect(all.writable.locked).toBe(false);
    expect(all.readable.locked).toBe(false);
    expect(b.writable.locked && b.readable.locked && c.writable.locked && c.readable.locked).toBe(true);
    const events: PipelineEvent[] = [start(0, 'c', 'write_file'), args(0, '{"path":"a.txt"}'), flush(0), finished('tool-calls', 'tool_use')];
    const out = await readAll(streamOf(events).pipeThrough(all));
    expect(out.map((e) => e.type)).toEqual(['field-start', 'field-delta', 'field-end', 'tool-call', 'finished']);
    expect(() => chain(new JsonTextStream() as never, a as never)).toThrow(/stage 2 \(ToolCallProgressStream\) is already in use/);
  });

  it('chain refuses no stage, a foreign stream, a stage in use or given twice, and leaves the others untouched', () => {
    expect(() => (chain as (...stages: unknown[]) => unknown)()).toThrow(TypeError);
    const fresh = new ToolCallProgressStream();
    expect(() => chain(fresh, new TransformStream() as never)).toThrow(/stage 2 \(TransformStream\) is not an argstream stage/);
    expect(fresh.writable.locked).toBe(false);
    const used = new FieldEventStream();
    used.writable.getWriter();
    expect(() => chain(fresh, used)).toThrow(/stage 2 \(FieldEventStream\) is already in use/);
    expect(() => chain(fresh, fresh as never)).toThrow(TypeError);
    expect(fresh.readable.locked).toBe(false);
    expect(chain(fresh)).toBe(fresh);
    expect(() => chain(fresh, new FieldEventStream(), fresh as never)).toThrow(/stage 3 is stage 1 again/);
    expect(fresh.writable.locked || fresh.readable.locked).toBe(false);
    void fresh.writable.getWriter().write(start(0, 'c', 'f'));
    expect(() => chain(fresh)).toThrow(/already in use/);
  });

  it('chain of chains runs every core in order', async () => {
    const events: PipelineEvent[] = [start(0, 'c', 'write_file'), args(0, '{"path":"a.'), args(0, 'txt"}'), flush(0), finished('tool-calls', 'tool_use')];
    const out = await readAll(streamOf(events).pipeThrough(chain(chain(new ToolCallProgressStream(), new FieldEventStream()), new ConversationEventStream())));
    const fields = out.filter((e) => e.type.startsWith('field-')).map((e) => (e.type === 'field-delta' ? `${e.key}:${e.text}` : e.type));
    expect(fields).toEqual(['field-start', 'path:a.', 'path:txt', 'field-end']);
    expect(out.filter((e) => e.type === 'tool-call')).toMatchObject([{ toolCallId: 'c', toolName: 'write_file', arguments: { path: 'a.txt' } }]);
    expect(out.at(-1)?.type).toBe('finished');
  });

  it('chain gives what the separate hops give, event for event', async () => {
    const events: PipelineEvent[] = [start(0, 'c', 'write_file'), args(0, '{"path":"a.'), text(1, 'hi'), args(0, 'txt","n":[1,'), args(0, '2]}'), flush(0), flush(1), finished('tool-calls', 'tool_use')];
    const fused = await readAll(streamOf(events).pipeThrough(chain(new ToolCallProgressStream(), new FieldEventStream({ keepProgress: false }), new ConversationEventStream())));
    const hops = await readAll(
      streamOf(events).pipeThrough(new ToolCallProgressStream(), {}).pipeThrough(new FieldEventStream({ keepProgress: false }), {}).pipeThrough(new ConversationEventStream(), {}),
    );
    // Separate hops see one progress event per chunk, so their field deltas are cut finer:
    // joined, the two are the same.
    expect(joinAdjacentText([...fused])).toEqual(joinAdjacentText([...hops]));
    expect(fused.map((e) => (e.type === 'field-delta' ? `${e.key}:${e.text}` : e.type))).toEqual([
      'field-start', 'path:a.', 'path:txt', 'field-end', 'field-start', 'n:[1', 'n:,2]', 'field-end', 'tool-call', 'message', 'finished',
    ]);
  });

  it('chain: an error in a later core comes after everything produced before it, and cancels the source', async () => {
    const { stream, log } = recordingSource<PipelineEvent>([start(0, 'c', 'f'), text(1, 'before'), args(0, '{"a":1,'), args(0, 'x'), args(0, '}'), flush(0)]);
    const { values, error } = await settle(stream.pipeThrough(chain(new ToolCallProgressStream(), new FieldEventStream({ keepProgress: false }))));
    expect(error).toBeInstanceOf(ToolCallArgumentsError);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(values.map((e) => e.type)).toEqual(['part', 'part', 'field-start', 'field-delta', 'field-end']);
    expect(log.cancelled).toBe(error);
  });

  it('chain: cancelling the reader cancels the source with the reason', async () => {
    const { stream, log } = recordingSource(['["a', 'b', 'c', 'd"]']);
    const reader = stream.pipeThrough(chain(new JsonFragmentStream(), new JsonTextStream())).getReader();
    await reader.read();
    await reader.cancel('enough');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(log.cancelled).toBe('enough');
  });

  it('chain joins the progress of one string that one input chunk makes, and never what the provider sent', async () => {
    const sse = ['{"path":"a', 'b', 'c"}'].map((t) => `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: t } })}\n\n`);
    const head = 'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}\n\n';
    // Complete streams (a stream cut before message_stop errors with truncated).
    const stop = 'event: message_stop\ndata: {"type":"message_stop"}\n\n';
    const body = head + sse.join('') + 'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n' + stop;
    const parts = await readAll(streamOf([body]).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })));
    expect(parts.filter((e) => e.type === 'part' && e.part.type === 'tool-call-arguments')).toHaveLength(3);
    const progress = await readAll(streamOf([body]).pipeThrough(chain(new ProviderEventStream({ provider: 'anthropic' }), new ToolCallProgressStream())));
    const strings = progress.filter((e) => e.type === 'tool-call-progress' && e.fragment.type === 'entry' && e.fragment.value.type === 'string');
    expect(strings).toEqual([{ type: 'tool-call-progress', index: 0, toolCallId: 't', toolName: 'f', fragment: { type: 'entry', key: 'path', value: { type: 'string', text: 'abc' } } }]);
    // One provider event per chunk: nothing to join.
    const live = await readAll(streamOf([head, ...sse, stop]).pipeThrough(chain(new ProviderEventStream({ provider: 'anthropic' }), new ToolCallProgressStream())));
    expect(live.filter((e) => e.type === 'tool-call-progress' && e.fragment.type === 'entry' && e.fragment.value.type === 'string')).toHaveLength(3);
  });
});

describe('Stage with a core that answers later', () => {
  const asyncSchema = (forbidden: string) => ({
    '~standard': {
      version: 1 as const,
      vendor: 'test',
      validate: async (value: unknown) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        const path = (value as { path?: unknown }).path;
        return typeof path === 'string' && path.startsWith(forbidden) ? { issues: [{ message: 'forbidden', path: ['path'] }] } : { value };
      },
    },
  });
  const events = (): PipelineEvent[] => [start(0, 'c', 'write_file'), args(0, '{"path":"/etc/x",'), text(1, 'between'), args(0, '"content":"y"}'), flush(0), flush(1), finished('tool-calls', 'tool_use')];

  it('ArgumentValidationStream with an async validator in a chain is waited for, and keeps the order', async () => {
    const validation = new ArgumentValidationStream({ schema: asyncSchema('/etc') });
    const chained = chain(new ToolCallProgressStream(), validation, new FieldEventStream());
    const fused = chained.readable;
    const writer = chained.writable.getWriter();
    const read = readAll(fused);
    for (const event of events()) await writer.write(event);
    await writer.close();
    const out = await read;
    const hops = await readAll(
      streamOf(events())
        .pipeThrough(new ToolCallProgressStream(), {})
        .pipeThrough(new ArgumentValidationStream({ schema: asyncSchema('/etc') }), {})
        .pipeThrough(new FieldEventStream(), {}),
    );
    expect(joinAdjacentText([...out])).toEqual(joinAdjacentText([...hops]));
    // The path's failure comes right after the field it ends, before the text that follows.
    const types = out.map((e) => (e.type === 'field-end' ? `field-end:${e.key}` : e.type === 'part' ? `part:${e.part.type}` : e.type));
    expect(types.indexOf('validation-error')).toBe(types.indexOf('field-end:path') + 1);
    expect(types.indexOf('validation-error')).toBeLessThan(types.indexOf('part:message'));
    expect(out.filter((e) => e.type === 'validation-error')).toHaveLength(1);
  });

  it('ArgumentValidationStream with an async validator and errorOnInvalid delivers what came before, then errors the chain', async () => {
    const { values, error } = await settle(
      streamOf(events()).pipeThrough(chain(new ToolCallProgressStream(), new ArgumentValidationStream({ schema: asyncSchema('/etc'), errorOnInvalid: true }))),
    );
    expect(error).toMatchObject({ name: 'ArgumentValidationError', path: '/path' });
    expect(values.map((e) => e.type)).toEqual(['part', 'tool-call-progress', 'tool-call-progress', 'tool-call-progress', 'tool-call-progress']);
  });
});
