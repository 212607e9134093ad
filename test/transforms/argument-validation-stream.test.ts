import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ArgumentValidationStream, validateArguments } from '../../src/transforms/argument-validation-stream.ts';
import { ArgumentValidationError, type StandardSchema, type StandardSchemaResult } from '../../src/views/argument-validation-core.ts';
import { ToolCallRebuilder } from '../../src/sinks/tool-call-rebuilder.ts';
import { PathUpdateStream } from '../../src/transforms/path-update-stream.ts';
import { ToolCallProgressStream } from '../../src/transforms/tool-call-progress-stream.ts';
import type { ArgumentValidationErrorEvent, StreamEvent, StreamFragment } from '../../src/types.ts';
import { args, flush, readAll, start, streamOf } from '../helpers.ts';
import { afterUpstreamError } from './upstream-error.ts';


const FORBIDDEN = 'writes under /etc are forbidden';
const ZodWriteFile = z.object({
  path: z.string().refine((path) => !path.startsWith('/etc'), FORBIDDEN),
  content: z.string(),
  mode: z.number().int().optional(),
});
const ValibotWriteFile = v.object({
  path: v.pipe(
    v.string(),
    v.check((path) => !path.startsWith('/etc'), FORBIDDEN),
  ),
  content: v.string(),
  mode: v.optional(v.pipe(v.number(), v.integer())),
});

const writeToEtc: StreamEvent[] = [
  start(0, 'call_w', 'write_file'),
  args(0, '{"path":"/etc/pa'),
  args(0, 'sswd","content":"root:x:0:0'),
  args(0, ':root:/root:/bin/sh\\n"}'),
  flush(0),
];

/** A compact line per output: the event type, the progress path and leaf, or the validation error. */
function lines(events: ReadonlyArray<{ readonly type: string }>): string[] {
  return events.map((event) => {
    if (event.type === 'validation-error') {
      const e = event as ArgumentValidationErrorEvent;
      return `INVALID ${e.toolCallId} ${JSON.stringify(e.path)} ${e.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`;
    }
    if (event.type === 'tool-call-progress') {
      let fragment = (event as unknown as { fragment: StreamFragment }).fragment;
      let path = '';
      while (fragment.type === 'entry' || fragment.type === 'item') {
        path += `/${fragment.type === 'entry' ? fragment.key : fragment.index}`;
        fragment = fragment.value;
      }
      return `progress ${path} ${fragment.type}`;
    }
    return event.type;
  });
}

async function run(events: readonly StreamEvent[], stage: TransformStream<any, any>) {
  return readAll(streamOf(events).pipeThrough(new ToolCallProgressStream()).pipeThrough(stage));
}

describe('ArgumentValidationStream', () => {
  for (const [vendor, schema] of [
    ['zod', ZodWriteFile],
    ['valibot', ValibotWriteFile],
  ] as const) {
    it(`ArgumentValidationStream reports a forbidden write_file path (${vendor}) before the first content fragment`, async () => {
      const out = await run(writeToEtc, new ArgumentValidationStream({ tools: { write_file: schema } }));
      const shown = lines(out);
      const invalid = `INVALID call_w "/path" path: ${FORBIDDEN}`;
      expect(shown.indexOf(invalid)).toBeGreaterThan(-1);
      expect(shown.indexOf(invalid)).toBe(shown.indexOf('progress /path done') + 1);
      expect(shown.indexOf(invalid)).toBeLessThan(shown.indexOf('progress /content start'));
      // The complete arguments are checked too, after the root's done; the path is not reported a
      // second time there, and nothing else fails: no whole-document report. The flush became the call's tool-call event.
      expect(shown.slice(-3)).toEqual(['progress /content done', 'progress  done', 'tool-call']);
      expect(out.filter((e) => e.type === 'validation-error')).toHaveLength(1);
      expect(out.find((e) => e.type === 'validation-error')).toEqual({
        type: 'validation-error',
        index: 0,
        toolCallId: 'call_w',
        toolName: 'write_file',
        path: '/path',
        issues: [{ message: FORBIDDEN, path: ['path'] }],
      });
    });

    it(`ArgumentValidationStream passes valid arguments (${vendor}) through unchanged, with no report`, async () => {
      const events = [start(0, 'ok', 'write_file'), args(0, '{"path":"src/main.rs","content":"fn main() {}","mode":420}'), flush(0)];
      const validated = await run(events, validateArguments(schema));
      const plain = await readAll(streamOf(events).pipeThrough(new ToolCallProgressStream()));
      expect(validated).toEqual(plain);
    });

    it(`ArgumentValidationStream reports a field only once it is complete, never a missing or unfinished one (${vendor})`, async () => {
      const events = [start(0, 'c', 'write_file'), args(0, '{"path":"a.txt","mode":'), args(0, '4.5'), args(0, ',"content":"x'), args(0, 'y"}'), flush(0)];
      const shown = lines(await run(events, new ArgumentValidationStream({ tools: { write_file: schema } })));
      const reports = shown.filter((line) => line.startsWith('INVALID'));
      // Once: the whole document's check leaves out the field already reported.
      expect(reports).toHaveLength(1);
      expect(reports[0]).toMatch(/^INVALID c "\/mode" mode: /);
      // The number is complete at its terminator: the report follows it, before `content` begins.
      expect(shown.indexOf(reports[0] as string)).toBe(shown.indexOf('progress /mode done') + 1);
      expect(shown.indexOf(reports[0] as string)).toBeLessThan(shown.indexOf('progress /content start'));
    });
  }

  it('ArgumentValidationStream validates the completed fields with a whole schema that has no field access, reporting only the new field', async () => {
    const calls: unknown[] = [];
    // A hand-written Standard Schema: an object with a string `path` (not under /etc) and a string `content`.
    const opaque: StandardSchema = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate(value): StandardSchemaResult {
          calls.push(structuredClone(value));
          const object = value as Record<string, unknown>;
          const issues = [];
          if (typeof object.path !== 'string') issues.push({ message: 'path: expected a string', path: ['path'] });
          else if (object.path.startsWith('/etc')) issues.push({ message: FORBIDDEN, path: [{ key: 'path' }] });
          if (typeof object.content !== 'string') issues.push({ message: 'content: expected a string', path: ['content'] });
          return issues.length > 0 ? { issues } : { value };
        },
      },
    };
    const out = await run(writeToEtc, new ArgumentValidationStream({ schema: opaque }));
    // The path once: the whole's verdict on it was reported for the field.
    expect(lines(out).filter((line) => line.startsWith('INVALID'))).toEqual([`INVALID call_w "/path" path: ${FORBIDDEN}`]);
    // Validated: {path} when path completed, {path, content} when content did, then the whole.
    expect(calls).toEqual([
      { path: '/etc/passwd' },
      { path: '/etc/passwd', content: 'root:x:0:0:root:/root:/bin/sh\n' },
      { path: '/etc/passwd', content: 'root:x:0:0:root:/root:/bin/sh\n' },
    ]);
  });

  it('ArgumentValidationStream uses explicit field schemas, and only them, before the whole', async () => {
    const out = await run(
      writeToEtc,
      new ArgumentValidationStream({ tools: { write_file: { fields: { content: z.string().max(5) }, schema: z.object({ path: z.string() }) } } }),
    );
    expect(lines(out).filter((line) => line.startsWith('INVALID'))).toEqual([
      expect.stringMatching(/^INVALID call_w "\/content" content: Too big/),
    ]);
  });

  it('ArgumentValidationStream keeps the order with async validators (same output as sync)', async () => {
    const delayed = (schema: StandardSchema, ms: number): StandardSchema => ({
      '~standard': {
        version: 1,
        vendor: 'delayed',
        validate: (value) => new Promise((resolve) => setTimeout(() => resolve(schema['~standard'].validate(value) as StandardSchemaResult), ms)),
      },
    });
    const events = [
      start(0, 'a', 'write_file'),
      start(1, 'b', 'write_file'),
      args(0, '{"path":"/etc/x",'),
      args(1, '{"path":"/etc/y","content":"1"}'),
      args(0, '"content":2}'),
      flush(0),
      flush(1),
    ];
    const fields = { path: ZodWriteFile.shape.path, content: ZodWriteFile.shape.content };
    const sync = await run(events, new ArgumentValidationStream({ tools: { write_file: { fields, schema: ZodWriteFile } } }));
    const async = await run(
      events,
      new ArgumentValidationStream({
        tools: { write_file: { fields: { path: delayed(fields.path, 15), content: delayed(fields.content, 1) }, schema: delayed(ZodWriteFile, 5) } },
      }),
    );
    expect(lines(async)).toEqual(lines(sync));
    // Each failing field once; the wholes of a and b fail only on fields already reported.
    expect(lines(sync).filter((line) => line.startsWith('INVALID'))).toEqual([
      `INVALID a "/path" path: ${FORBIDDEN}`,
      `INVALID b "/path" path: ${FORBIDDEN}`,
      expect.stringMatching(/^INVALID a "\/content" content: Invalid input/),
    ]);
  });

  it('ArgumentValidationStream with errorOnInvalid errors the stream after the completing fragment, before the content streams', async () => {
    const stream = streamOf(writeToEtc)
      .pipeThrough(new ToolCallProgressStream())
      .pipeThrough(new ArgumentValidationStream({ tools: { write_file: ValibotWriteFile }, errorOnInvalid: true }));
    const seen: Array<{ readonly type: string }> = [];
    const reader = stream.getReader();
    let error: unknown;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        seen.push(value);
      }
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ArgumentValidationError);
    expect(error).toMatchObject({ toolCallId: 'call_w', toolName: 'write_file', index: 0, path: '/path', issues: [{ message: FORBIDDEN, path: ['path'] }] });
    expect((error as Error).message).toBe(`Invalid argument /path for tool call call_w (write_file): ${FORBIDDEN} at path`);
    expect(lines(seen).at(-1)).toBe('progress /path done');
    expect(lines(seen)).not.toContain('progress /content start');
  });

  it('ArgumentValidationStream validates each call with its own tool schema and leaves other tools alone', async () => {
    const events = [
      start(0, 'r', 'read_file'),
      start(1, 'w', 'write_file'),
      start(2, 'x', 'toString'),
      args(0, '{"path":"/etc/hosts"}'),
      args(1, '{"path":"/etc/hosts","content":""}'),
      args(2, '{"path":1}'),
      flush(0),
      flush(1),
      flush(2),
    ];
    const out = await run(events, new ArgumentValidationStream({ tools: { write_file: ZodWriteFile, read_file: z.object({ path: z.string() }) } }));
    expect(lines(out).filter((line) => line.startsWith('INVALID'))).toEqual([`INVALID w "/path" path: ${FORBIDDEN}`]);
  });

  it('ArgumentValidationStream checks a call with no arguments as {} at its tool-call event', async () => {
    const out = await run([start(0, 'e', 'write_file'), flush(0)], new ArgumentValidationStream({ tools: { write_file: ZodWriteFile } }));
    const report = out.find((e) => e.type === 'validation-error') as ArgumentValidationErrorEvent;
    expect(report.path).toBe('');
    expect(report.issues.map((i) => i.path)).toEqual([['path'], ['content']]);
    expect(lines(out)).toEqual(['part', 'tool-call', expect.stringMatching(/^INVALID e ""/)]);
  });

  it('ArgumentValidationStream reports nested issue paths from the root, escaped pointers for odd keys', async () => {
    const schema = z.object({ 'a/b': z.object({ list: z.array(z.number()) }) });
    const out = await run([start(0, 'n', 't'), args(0, '{"a/b":{"list":[1,"2"]}}'), flush(0)], validateArguments(schema));
    const reports = out.filter((e) => e.type === 'validation-error') as ArgumentValidationErrorEvent[];
    // Reported for its field only: the whole document's check leaves out the issues under "a/b".
    expect(reports.map((r) => [r.path, r.issues.map((i) => i.path)])).toEqual([['/a~1b', [['a/b', 'list', 1]]]]);
  });

  it('ArgumentValidationStream errors the stream when a validator throws, after what came before', async () => {
    const throwing: StandardSchema = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: () => {
          throw new Error('validator broke');
        },
      },
    };
    const stream = streamOf(writeToEtc).pipeThrough(new ToolCallProgressStream()).pipeThrough(validateArguments({ fields: { path: throwing } }));
    const seen: Array<{ readonly type: string }> = [];
    const error = await (async () => {
      const reader = stream.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return undefined;
          seen.push(value);
        }
      } catch (e) {
        return e;
      }
    })();
    expect((error as Error).message).toBe('validator broke');
    expect(lines(seen).at(-1)).toBe('progress /path done');
  });

  it('ArgumentValidationStream reports in the whole document only the issues under keys not reported for their field', async () => {
    // `path` fails as a field; `content` is missing, which only the whole can see.
    const out = await run([start(0, 'm', 'write_file'), args(0, '{"path":"/etc/x"}'), flush(0)], new ArgumentValidationStream({ tools: { write_file: ZodWriteFile } }));
    const reports = out.filter((e): e is ArgumentValidationErrorEvent => e.type === 'validation-error');
    expect(reports.map((r) => [r.path, r.issues.map((i) => i.path)])).toEqual([
      ['/path', [['path']]],
      ['', [['content']]],
    ]);
  });

  it('ArgumentValidationStream parses raw argument parts itself when no progress stage came before: the same output', async () => {
    for (const events of [writeToEtc, [start(0, 'e', 'write_file'), flush(0)]]) {
      const alone = await readAll(streamOf(events).pipeThrough(new ArgumentValidationStream({ tools: { write_file: ZodWriteFile } })));
      const after = await run(events, new ArgumentValidationStream({ tools: { write_file: ZodWriteFile } }));
      expect(alone).toEqual(after);
      expect(alone.some((e) => e.type === 'part' && e.part.type === 'tool-call-arguments')).toBe(false);
    }
  });

  it('ArgumentValidationStream passes every event through unchanged and in order, adding only its reports', async () => {
    const input = [{ type: 'part', index: 1, part: { type: 'message', text: 'hi' } }, { type: 'field-start', key: 'x' }, { type: 'nonsense' }, flush(1), { type: 'finished', reason: 'stop' }] as StreamEvent[];
    expect(await readAll(streamOf(input).pipeThrough(new ArgumentValidationStream({ schema: ZodWriteFile })))).toEqual(input);
  });

  it('ArgumentValidationStream refuses options without any schema', () => {
    expect(() => new ArgumentValidationStream({})).toThrow(/tools.*schema/);
  });

  it('ArgumentValidationStream chains before PathUpdateStream: the browser gets the report between the updates', async () => {
    const out = await readAll(
      streamOf(writeToEtc)
        .pipeThrough(new ToolCallProgressStream())
        .pipeThrough(new ArgumentValidationStream({ tools: { write_file: ZodWriteFile } }))
        .pipeThrough(new PathUpdateStream({ relativePaths: false, keepProgress: false })),
    );
    const wire = JSON.parse(JSON.stringify(out)) as Array<{ type: string; kind?: string; path?: string }>;
    const report = wire.findIndex((e) => e.type === 'validation-error');
    expect(wire[report - 1]).toMatchObject({ type: 'path-update', kind: 'complete-string', path: '/path' });
    expect(wire[report + 1]).toMatchObject({ type: 'path-update', kind: 'key', path: '/content' });
    const calls = new ToolCallRebuilder();
    const results = wire.map((event) => calls.push(event));
    expect(results.at(-1)).toBeUndefined();
    expect(results.find((call) => call?.isComplete())?.value).toEqual({ path: '/etc/passwd', content: 'root:x:0:0:root:/root:/bin/sh\n' });
  });
});

describe('ArgumentValidationStream when the stage before it fails', () => {
  it('ArgumentValidationStream gives a slow reader the upstream error itself, after a prefix of its event and validation errors (its queue dropped, as the standard says)', async () => {
    const events: StreamEvent[] = [start(0, 'c', 'write_file'), args(0, '{"path":"/etc/passwd",'), args(0, '"content":"x"}'), flush(0)];
    const all = await readAll(streamOf(events).pipeThrough(new ToolCallProgressStream()));
    // Cut after the fragment that completes "path": the event and its validation error go out together.
    const pathDone = all.findIndex((e) => e.type === 'tool-call-progress' && e.fragment.type === 'entry' && e.fragment.key === 'path' && e.fragment.value.type === 'done');
    const { expected, values, error, upstream } = await afterUpstreamError(all.slice(0, pathDone + 1), () => new ArgumentValidationStream({ tools: { write_file: ZodWriteFile } }));
    expect(values).toEqual(expected.slice(0, values.length));
    expect(expected.at(-1)).toMatchObject({ type: 'validation-error', path: '/path' });
    expect(error).toBe(upstream);
  });
});

describe('ArgumentValidationStream when the tool name comes after the first argument fragment', () => {
  it('ArgumentValidationStream validates a call whose name arrives after its first arguments, fields included', async () => {
    const validationErrors = async (events: StreamEvent[]) =>
      (await readAll(streamOf(events).pipeThrough(new ToolCallProgressStream()).pipeThrough(new ArgumentValidationStream({ tools: { write_file: ZodWriteFile } }))))
        .filter((e) => e.type === 'validation-error')
        .map((e) => [e.path, e.toolCallId, e.toolName]);
    const expected = [['/path', 'c', 'write_file']];
    // The name after the first piece of arguments (the id and the name split over deltas).
    expect(await validationErrors([start(0, 'c', ''), args(0, '{"path":"/etc/passwd",'), start(0, '', 'write_file'), args(0, '"content":"x"}'), flush(0)])).toEqual(expected);
    // The whole start after the first piece.
    expect(await validationErrors([args(0, '{"path":"/etc/passwd",'), start(0, 'c', 'write_file'), args(0, '"content":"x"}'), flush(0)])).toEqual(expected);
    // A name learned only while the last field streams still checks the fields completed before it.
    expect(await validationErrors([start(0, 'c', ''), args(0, '{"path":"/etc/passwd","content":"x'), start(0, '', 'write_file'), args(0, '"}'), flush(0)])).toEqual(expected);
  });
});

describe('ArgumentValidationStream and a call cut before its first argument byte', () => {
  it('ArgumentValidationStream does not check a call flushed at the end of input without arguments as {}', async () => {
    const validationErrors = async (events: StreamEvent[]) =>
      (await readAll(streamOf(events).pipeThrough(new ToolCallProgressStream()).pipeThrough(new ArgumentValidationStream({ tools: { write_file: ZodWriteFile } }))))
        .filter((e) => e.type === 'validation-error')
        .map((e) => e.path);
    // Cut: like any call cut off before its document closed, it is not validated.
    expect(await validationErrors([start(0, 'c', 'write_file'), flush(0, { endOfInput: true })])).toEqual([]);
    // Closed by the provider without arguments: checked as {}.
    expect(await validationErrors([start(0, 'c', 'write_file'), flush(0)])).toEqual(['']);
  });
});
