/**
 * Structured output (`ProviderEventStream`'s `structuredOutput`): the structured-output recordings
 * of every provider replayed whole, byte by byte, at random cuts and as SDK objects, read to one
 * `structured` document; its progress, fields, path updates and validation; refusals, cut-off
 * and invalid documents. Expected documents are written by hand from each recording's source (the
 * SDK's own parse where it printed one).
 */
import { readFileSync } from 'node:fs';
import { transform } from 'esbuild';
import { describe, expect, it } from 'vitest';
import * as zod from 'zod';
import { z } from 'zod';
import * as argstream from '../../src/index.ts';
import { ToolCallArgumentsError } from '../../src/errors.ts';
import { collectTurn } from '../../src/sinks/collect-turn.ts';
import { fromResponse } from '../../src/sources/response.ts';
import { ArgumentValidationStream } from '../../src/transforms/argument-validation-stream.ts';
import { FieldEventStream } from '../../src/transforms/field-event-stream.ts';
import { PathUpdateStream } from '../../src/transforms/path-update-stream.ts';
import { ProviderEventDecoder } from '../../src/providers/provider-event-decoder.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import { TurnBuilder } from '../../src/turn/ai-sdk-parts.ts';
import type { ProviderName } from '../../src/errors.ts';
import type { ArgumentValidationErrorEvent, FieldEvent, JsonValue, PathUpdate, PipelineEvent } from '../../src/types.ts';
import { cuttings, readAll, streamOf } from '../helpers.ts';
import { bytesOf, sdkObjectsOf } from '../providers/event-stream-helpers.ts';

interface Case {
  readonly file: string;
  readonly provider: ProviderName;
  /** The document, written by hand from the recording's source. */
  readonly data: JsonValue;
  /** A top-level string field and its value, to watch complete before the end of input. */
  readonly field: readonly [string, string];
}

const CASES: readonly Case[] = [
  {
    // openai-python's snapshot parses it to Location(city='San Francisco', temperature=68.0, units='f').
    file: 'openai-chat/structured-output-json-schema.sse',
    provider: 'openai-chat',
    data: { city: 'San Francisco', temperature: 68, units: 'f' },
    field: ['city', 'San Francisco'],
  },
  {
    // SwiftAgent's test expects temperatureCelsius 22.0 and condition "Partly Cloudy".
    file: 'openai-responses/structured-output-json-schema-after-reasoning.sse',
    provider: 'openai-responses',
    data: { temperatureCelsius: 22, condition: 'Partly Cloudy' },
    field: ['condition', 'Partly Cloudy'],
  },
  {
    file: 'anthropic/handmade-structured-output-text-json.sse',
    provider: 'anthropic',
    data: { name: 'John Smith', email: 'john@example.com', plan_interest: 'Enterprise', demo_requested: true },
    field: ['email', 'john@example.com'],
  },
  {
    file: 'gemini/handmade-structured-output-json-array-crlf.sse',
    provider: 'gemini',
    data: [
      { recipeName: 'Chocolate Chip Cookies', ingredients: ['1 cup butter', '2 cups flour', '1 cup sugar'] },
      { recipeName: 'Crème Brûlée Cookies', ingredients: ['½ cup cream', '1 egg yolk'] },
    ],
    field: ['', ''],
  },
  {
    file: 'ollama/handmade-chat-stream-format-json-schema.ndjson',
    provider: 'ollama',
    data: { name: 'Canada', capital: 'Ottawa', languages: ['English', 'French'] },
    field: ['capital', 'Ottawa'],
  },
];

const structured = (provider: ProviderName) => new ProviderEventStream({ provider, structuredOutput: true });

describe('structured output on every provider recording', () => {
  for (const c of CASES) {
    describe(c.file, () => {
      const bytes = bytesOf(c.file);

      for (const [cutting, chunks] of cuttings(bytes, 7)) {
        it(`collectTurn gives the document as Turn.structured, no message text (${cutting})`, async () => {
          const turn = await collectTurn(streamOf(chunks).pipeThrough(structured(c.provider)));
          expect(turn.structured).toEqual(c.data);
          expect(turn.text).toBe('');
          expect(turn.toolCalls).toEqual([]);
          expect(turn.events.filter((e) => e.type === 'structured')).toHaveLength(1);
          expect(turn.events.filter((e) => e.type === 'message')).toEqual([]);
          expect(turn.finishReason).toBe('stop');
        });
      }

      it('reads the SDK objects of the recording to the same document', async () => {
        const turn = await collectTurn(streamOf(sdkObjectsOf(c.file)).pipeThrough(structured(c.provider)));
        expect(turn.structured).toEqual(c.data);
        expect(turn.text).toBe('');
      });

      it('fromResponse takes the option too', async () => {
        const turn = await collectTurn(fromResponse(new Response(new Uint8Array(bytes)), { provider: c.provider, structuredOutput: true }));
        expect(turn.structured).toEqual(c.data);
      });

      it('without the option the same text is the message, and Turn.structured is undefined', async () => {
        const turn = await collectTurn(streamOf([bytes]).pipeThrough(new ProviderEventStream({ provider: c.provider })));
        expect(JSON.parse(turn.text)).toEqual(c.data);
        expect(turn.structured).toBeUndefined();
      });

      it('streams structured-progress while the bytes arrive, byte by byte', () => {
        const decoder = new ProviderEventDecoder({ provider: c.provider, structuredOutput: true });
        const builder = new TurnBuilder({ progress: true });
        const outputs: PipelineEvent[] = [];
        let beforeLastByte = 0;
        for (let i = 0; i < bytes.length; i++) {
          for (const event of decoder.push(bytes.subarray(i, i + 1))) builder.push(event, outputs);
          if (i === bytes.length - 2) beforeLastByte = outputs.filter((e) => e.type === 'structured-progress').length;
        }
        for (const event of decoder.end()) builder.push(event, outputs);
        builder.end(outputs);
        const progress = outputs.filter((e) => e.type === 'structured-progress');
        expect(beforeLastByte).toBeGreaterThan(4);
        expect(progress.every((e) => e.index === progress[0]?.index)).toBe(true);
        const final = outputs.findIndex((e) => e.type === 'structured');
        expect(outputs[final]).toMatchObject({ type: 'structured', data: c.data });
        // Every fragment goes before the document's event.
        expect(outputs.indexOf(progress[progress.length - 1] as PipelineEvent)).toBeLessThan(final);
      });

      it('FieldEventStream gives the field events of the document', async () => {
        const events = (await readAll(streamOf([bytes]).pipeThrough(structured(c.provider)).pipeThrough(new FieldEventStream()))) as Array<PipelineEvent | FieldEvent>;
        const fields = events.filter((e): e is FieldEvent => e.type === 'field-start' || e.type === 'field-delta' || e.type === 'field-end');
        const [key, value] = c.field;
        if (Array.isArray(c.data)) {
          // A root that is not an object is one field with key ''.
          expect(fields[0]).toMatchObject({ type: 'field-start', key: '' });
          expect(JSON.parse(fields.filter((e) => e.type === 'field-delta').map((e) => (e as { text: string }).text).join(''))).toEqual(c.data);
        } else {
          expect(fields.filter((e) => e.type === 'field-start').map((e) => e.key)).toEqual(Object.keys(c.data as object));
          const text = fields.filter((e) => e.type === 'field-delta' && e.key === key).map((e) => (e as { text: string }).text).join('');
          expect(text).toBe(value);
          expect(fields.find((e) => e.type === 'field-end' && e.key === key)).toMatchObject({ string: true, index: expect.any(Number) });
        }
        expect(events.find((e) => e.type === 'structured')).toMatchObject({ data: c.data });
      });

      it('PathUpdateStream gives path updates marked structured, ending with json-complete', async () => {
        const events = await readAll(streamOf([bytes]).pipeThrough(structured(c.provider)).pipeThrough(new PathUpdateStream({ relativePaths: false })));
        const updates = events.filter((e): e is PathUpdate => e.type === 'path-update');
        expect(updates.length).toBeGreaterThan(3);
        expect(updates.every((u) => u.structured === true && typeof u.index === 'number' && u.toolCallId === undefined)).toBe(true);
        expect(updates[0]?.kind).toBe(Array.isArray(c.data) ? 'start-array' : 'start-object');
        expect(updates[updates.length - 1]).toMatchObject({ kind: 'json-complete', path: '' });
        const [key, value] = c.field;
        if (key !== '') {
          const pieces = updates.filter((u) => u.kind === 'partial-string' && u.path === `/${key}`).map((u) => (u as { textValue: string }).textValue);
          expect(pieces.join('')).toBe(value);
        }
      });
    });
  }
});

describe('structured output: validation with ArgumentValidationStream({structured})', () => {
  const file = 'openai-chat/structured-output-json-schema.sse';
  const run = async (schema: argstream.ToolArgumentsSchema) =>
    readAll(streamOf([bytesOf(file)]).pipeThrough(structured('openai-chat')).pipeThrough(new ArgumentValidationStream({ structured: schema })));

  it('reports each failing field as it completes, before the document, marked structured', async () => {
    const events = await run(z.object({ city: z.string(), temperature: z.number().max(40), units: z.enum(['c']) }));
    const errors = events.filter((e): e is ArgumentValidationErrorEvent => e.type === 'validation-error');
    expect(errors.map((e) => [e.path, e.structured, e.toolCallId, e.toolName])).toEqual([
      ['/temperature', true, '', ''],
      ['/units', true, '', ''],
    ]);
    const document = events.findIndex((e) => e.type === 'structured');
    expect(events.indexOf(errors[1] as PipelineEvent)).toBeLessThan(document);
    // The whole is checked too, but a field already reported is not reported twice.
    expect(errors.every((e) => e.path !== '')).toBe(true);
  });

  it('reports nothing for a document that satisfies the schema', async () => {
    const events = await run(z.object({ city: z.string(), temperature: z.number(), units: z.enum(['c', 'f']) }));
    expect(events.filter((e) => e.type === 'validation-error')).toEqual([]);
  });

  it('checks the whole when no field schema can be found, and errors the stream with errorOnInvalid', async () => {
    const whole = z.object({ city: z.string(), temperature: z.number() }).refine((v) => v.temperature < 50, 'too hot');
    const events = await run({ schema: whole });
    expect(events.filter((e) => e.type === 'validation-error')).toMatchObject([{ path: '', structured: true, issues: [{ message: 'too hot' }] }]);
    const failing = streamOf([bytesOf(file)])
      .pipeThrough(structured('openai-chat'))
      .pipeThrough(new ArgumentValidationStream({ structured: { schema: whole }, errorOnInvalid: true }));
    await expect(readAll(failing)).rejects.toMatchObject({ name: 'ArgumentValidationError', structured: true, message: 'Invalid structured output #0: too hot' });
  });

  it('leaves structured output alone with only tool schemas, and tool calls alone with only `structured`', async () => {
    const events = await readAll(
      streamOf([bytesOf(file)]).pipeThrough(structured('openai-chat')).pipeThrough(new ArgumentValidationStream({ schema: z.object({ never: z.string() }) })),
    );
    expect(events.filter((e) => e.type === 'validation-error')).toEqual([]);
    const calls = await readAll(
      streamOf([bytesOf('openai-chat/single-tool-call.sse')])
        .pipeThrough(structured('openai-chat'))
        .pipeThrough(new ArgumentValidationStream({ structured: z.object({ never: z.string() }) })),
    );
    expect(calls.some((e) => e.type === 'tool-call')).toBe(true);
    expect(calls.filter((e) => e.type === 'validation-error')).toEqual([]);
  });
});

describe('structured output: what is not a document', () => {
  it('a refusal stays a refusal (openai-python test_parse_pydantic_model_refusal, sent with response_format)', async () => {
    const turn = await collectTurn(streamOf([bytesOf('openai-chat/refusal.sse')]).pipeThrough(structured('openai-chat')));
    expect(turn.structured).toBeUndefined();
    expect(turn.refusal).toBe("I'm sorry, I can't assist with that request.");
    expect(turn.text).toBe('');
    expect(turn.failedToolCalls).toEqual([]);
  });

  it('a Responses refusal part stays a refusal (hand-written events of the documented refusal shape)', async () => {
    const event = (data: object) => `event: ${(data as { type: string }).type}\ndata: ${JSON.stringify(data)}\n\n`;
    const item = { id: 'msg_1', type: 'message', status: 'in_progress', content: [], role: 'assistant' };
    const sse = [
      event({ type: 'response.output_item.added', output_index: 0, item }),
      event({ type: 'response.content_part.added', item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'refusal', refusal: '' } }),
      event({ type: 'response.refusal.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: "I can't" }),
      event({ type: 'response.refusal.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: ' help with that.' }),
      event({ type: 'response.refusal.done', item_id: 'msg_1', output_index: 0, content_index: 0, refusal: "I can't help with that." }),
      event({ type: 'response.output_item.done', output_index: 0, item: { ...item, status: 'completed', content: [{ type: 'refusal', refusal: "I can't help with that." }] } }),
      event({ type: 'response.completed', response: { id: 'resp_1', object: 'response', status: 'completed', output: [] } }),
    ].join('');
    const turn = await collectTurn(streamOf([sse]).pipeThrough(structured('openai-responses')));
    expect(turn.refusal).toBe("I can't help with that.");
    expect(turn.structured).toBeUndefined();
    expect(turn.failedToolCalls).toEqual([]);
  });

  it('reasoning stays reasoning, tool calls stay tool calls', async () => {
    const sse = [
      'event: message_start',
      'data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}',
      '',
      'event: content_block_start',
      'data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}',
      '',
      'event: content_block_delta',
      'data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Plan: {not json"}}',
      '',
      'event: content_block_stop',
      'data: {"type":"content_block_stop","index":0}',
      '',
      'event: content_block_start',
      'data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}',
      '',
      'event: content_block_delta',
      'data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"{\\"ok\\": true}"}}',
      '',
      'event: content_block_stop',
      'data: {"type":"content_block_stop","index":1}',
      '',
      'event: message_delta',
      'data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}',
      '',
      'event: message_stop',
      'data: {"type":"message_stop"}',
      '',
      '',
    ].join('\n');
    const turn = await collectTurn(streamOf([sse]).pipeThrough(structured('anthropic')));
    expect(turn.reasoning).toBe('Plan: {not json');
    expect(turn.structured).toEqual({ ok: true });
    const calls = await collectTurn(streamOf([bytesOf('openai-chat/parallel-2-tool-calls.sse')]).pipeThrough(structured('openai-chat')));
    expect(calls.toolCalls).toHaveLength(2);
    expect(calls.structured).toBeUndefined();
  });

  it('a document cut by max_tokens is incomplete (openai-python test_parse_max_tokens_reached, sent with response_format)', async () => {
    const turn = await collectTurn(streamOf([bytesOf('openai-chat/finish-length.sse')]).pipeThrough(structured('openai-chat')));
    expect(turn.structured).toBeUndefined();
    expect(turn.finishReason).toBe('length');
    expect(turn.incompleteToolCalls).toMatchObject([{ toolCallId: '', toolName: '', stopReason: 'length' }]);
    expect(turn.toolCalls).toEqual([]);
  });

  const notJson = [
    'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Sure! "},"finish_reason":null}]}',
    '',
    'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"{\\"a\\": 1}"},"finish_reason":null}]}',
    '',
    'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
    '',
    'data: [DONE]',
    '',
    '',
  ].join('\n');

  it('text that is not JSON fails the turn as invalid arguments do (ToolCallArgumentsError)', async () => {
    const failing = collectTurn(streamOf([notJson]).pipeThrough(structured('openai-chat')));
    await expect(failing).rejects.toBeInstanceOf(ToolCallArgumentsError);
    await expect(failing).rejects.toMatchObject({ toolCallId: '', toolName: '', index: 0 });
  });

  it('with isolateErrors it is a tool-call-failed with empty id and name, and the turn goes on', async () => {
    const turn = await collectTurn(streamOf([notJson]).pipeThrough(structured('openai-chat')), { isolateErrors: true });
    expect(turn.structured).toBeUndefined();
    expect(turn.failedToolCalls).toMatchObject([{ type: 'tool-call-failed', index: 0, toolCallId: '', toolName: '' }]);
    expect(turn.finishReason).toBe('stop');
  });
});

describe('docs/providers.md: Structured output', () => {
  const readme = readFileSync(new URL('../../docs/providers.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Structured output'));
  const end = section.indexOf('\n## ', 3);
  const block = /```ts\n([\s\S]*?)```/.exec(end === -1 ? section : section.slice(0, end))?.[1] ?? '';

  it('the snippet prints the document of the recording and no validation error', async () => {
    expect(block).toContain('structuredOutput: true');
    const { code } = await transform(block, { loader: 'ts', format: 'esm' });
    const body = code
      .replace(/^import \* as (\w+) from "([^"]+)";$/gm, (_, star: string, from: string) => `const ${star} = __import(${JSON.stringify(from)});`)
      .replace(/^import \{([^}]*)\} from "([^"]+)";$/gm, (_, names: string, from: string) => `const {${names.replace(/ as /g, ': ')}} = __import(${JSON.stringify(from)});`);
    const modules: Record<string, unknown> = { argstream, zod: { ...zod, z } };
    const log: unknown[][] = [];
    const error: unknown[][] = [];
    let requested: { url: string; body: unknown } | undefined;
    const fakeFetch = async (url: string, init: RequestInit) => {
      requested = { url, body: JSON.parse(String(init.body)) };
      return new Response(new Uint8Array(bytesOf('openai-chat/structured-output-json-schema.sse')));
    };
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => (...values: unknown[]) => Promise<void>;
    await new AsyncFunction('__import', 'fetch', 'console', 'process', body)(
      (name: string) => modules[name],
      fakeFetch,
      { log: (...a: unknown[]) => log.push(a), error: (...a: unknown[]) => error.push(a) },
      { env: {} },
    );
    expect(requested?.url).toBe('https://api.openai.com/v1/chat/completions');
    expect(requested?.body).toMatchObject({ stream: true, response_format: { type: 'json_schema' } });
    expect(error).toEqual([]);
    expect(log).toEqual([[{ city: 'San Francisco', temperature: 68, units: 'f' }]]);
  });
});
