/**
 * The stream shell every fusable stage shares: chained argstream stages run in one hop, and the
 * fused chain keeps the stream protocol of a single stage.
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
  type PipelineEvent,
} from '../../src/index.ts';
import { joinAdjacentText } from '../../src/transforms/batch.ts';
import { args, finished, flush, readAll, recordingSource, settle, start, streamOf, text } from '../helpers.ts';

describe('Stage fusion', () => {
  it('ToolCallProgressStream piped into FieldEventStream runs in the same stream: one readable, the second writable locked', () => {
    const progress = new ToolCallProgressStream();
    const fields = new FieldEventStream();
    const out = progress.readable.pipeThrough(fields);
    expect(out).toBe(progress.readable);
    expect(fields.readable).toBe(out);
    expect(fields.writable.locked).toBe(true);
  });

  it('Stage pipes as separate hops when given pipe options, when read from already, or into a foreign TransformStream', async () => {
    const a = new ToolCallProgressStream();
    const b = new FieldEventStream();
    expect(a.readable.pipeThrough(b, {})).toBe(b.readable);
    const c = new ToolCallProgressStream();
    const identity = new TransformStream<PipelineEvent, PipelineEvent>();
    expect(c.readable.pipeThrough(identity)).toBe(identity.readable);
    // A stage whose output has started is not fused any more.
    const d = new JsonFragmentStream();
    const writer = d.writable.getWriter();
    void writer.write('[1,');
    const reader = d.readable.getReader();
    await reader.read();
    reader.releaseLock();
    const e = new JsonTextStream();
    expect(d.readable.pipeThrough(e)).toBe(e.readable);
  });

  it('Stage: a fused chain gives what the separate hops give, event for event', async () => {
    const events: PipelineEvent[] = [start(0, 'c', 'write_file'), args(0, '{"path":"a.'), text(1, 'hi'), args(0, 'txt","n":[1,'), args(0, '2]}'), flush(0), flush(1), finished('tool-calls', 'tool_use')];
    const fused = await readAll(streamOf(events).pipeThrough(new ToolCallProgressStream()).pipeThrough(new FieldEventStream()).pipeThrough(new ConversationEventStream()));
    const hops = await readAll(streamOf(events).pipeThrough(new ToolCallProgressStream(), {}).pipeThrough(new FieldEventStream(), {}).pipeThrough(new ConversationEventStream(), {}));
    // Separate hops see one progress event per chunk, so their field deltas are cut finer:
    // joined, the two are the same.
    expect(joinAdjacentText([...fused])).toEqual(joinAdjacentText([...hops]));
    expect(fused.map((e) => (e.type === 'field-delta' ? `${e.key}:${e.text}` : e.type))).toEqual([
      'field-start', 'path:a.', 'path:txt', 'field-end', 'field-start', 'n:[1', 'n:,2]', 'field-end', 'tool-call', 'message', 'finished',
    ]);
  });

  it('Stage: an error in a later core of a fused chain comes after everything produced before it, and cancels the source', async () => {
    const { stream, log } = recordingSource<PipelineEvent>([start(0, 'c', 'f'), text(1, 'before'), args(0, '{"a":1,'), args(0, 'x'), args(0, '}'), flush(0)]);
    const { values, error } = await settle(stream.pipeThrough(new ToolCallProgressStream()).pipeThrough(new FieldEventStream()));
    expect(error).toBeInstanceOf(ToolCallArgumentsError);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(values.map((e) => e.type)).toEqual(['part', 'part', 'field-start', 'field-delta', 'field-end']);
    expect(log.cancelled).toBe(error);
  });

  it('Stage: cancelling the reader of a fused chain cancels the source with the reason', async () => {
    const { stream, log } = recordingSource(['["a', 'b', 'c', 'd"]']);
    const reader = stream.pipeThrough(new JsonFragmentStream()).pipeThrough(new JsonTextStream()).getReader();
    await reader.read();
    await reader.cancel('enough');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(log.cancelled).toBe('enough');
  });

  it('Stage joins the progress of one string that one input chunk makes, and never what the provider sent', async () => {
    const sse = ['{"path":"a', 'b', 'c"}'].map((t) => `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: t } })}\n\n`);
    const head = 'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}\n\n';
    const body = head + sse.join('') + 'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n';
    const parts = await readAll(streamOf([body]).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })));
    expect(parts.filter((e) => e.type === 'part' && e.part.type === 'tool-call-arguments')).toHaveLength(3);
    const progress = await readAll(streamOf([body]).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })).pipeThrough(new ToolCallProgressStream()));
    const strings = progress.filter((e) => e.type === 'tool-call-progress' && e.fragment.type === 'entry' && e.fragment.value.type === 'string');
    expect(strings).toEqual([{ type: 'tool-call-progress', index: 0, toolCallId: 't', toolName: 'f', fragment: { type: 'entry', key: 'path', value: { type: 'string', text: 'abc' } } }]);
    // One provider event per chunk: nothing to join.
    const live = await readAll(streamOf([head, ...sse]).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })).pipeThrough(new ToolCallProgressStream()));
    expect(live.filter((e) => e.type === 'tool-call-progress' && e.fragment.type === 'entry' && e.fragment.value.type === 'string')).toHaveLength(3);
  });
});

describe('Stage fusion after the input ended', () => {
  it('Stage does not fuse into a stage whose input already ended, so the later stage still ends', async () => {
    const first = new JsonFragmentStream({ allowTruncated: true });
    const writer = first.writable.getWriter();
    await writer.close(); // no input at all: nothing enqueued, but the input ended
    const text = new JsonTextStream({ repair: true });
    const out = first.readable.pipeThrough(text);
    expect(out).toBe(text.readable);
    expect(await readAll(out)).toEqual([]);
    expect(text.truncated).toBe(true);
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

  it('ArgumentValidationStream with an async validator fuses with the stages around it and keeps the order', async () => {
    const validation = new ArgumentValidationStream({ schema: asyncSchema('/etc') });
    const progress = new ToolCallProgressStream();
    const fused = progress.readable.pipeThrough(validation).pipeThrough(new FieldEventStream());
    expect(fused).toBe(progress.readable);
    const writer = progress.writable.getWriter();
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

  it('ArgumentValidationStream with an async validator and errorOnInvalid delivers what came before, then errors the fused chain', async () => {
    const { values, error } = await settle(
      streamOf(events()).pipeThrough(new ToolCallProgressStream()).pipeThrough(new ArgumentValidationStream({ schema: asyncSchema('/etc'), errorOnInvalid: true })),
    );
    expect(error).toMatchObject({ name: 'ArgumentValidationError', path: '/path' });
    expect(values.map((e) => e.type)).toEqual(['part', 'tool-call-progress', 'tool-call-progress', 'tool-call-progress', 'tool-call-progress']);
  });
});
