/**
 * Shared by the relay tests: the events of every stage over the recordings, encoding them to
 * bytes, decoding bytes cut in given pieces, and a deep comparison that also checks the classes
 * of the errors inside.
 */
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket, connect } from 'node:net';
import { expect } from 'vitest';
import {
  ArgumentValidationStream,
  ConversationEventStream,
  FieldEventStream,
  PathUpdateStream,
  ProviderEventStream,
  TaggedToolCallStream,
  ToolCallDeltaStream,
  ToolCallProgressStream,
  type PipelineEvent,
  type ProviderName,
  type StandardSchema,
} from '../../src/index.ts';
import { errorClasses, errorRecord, pageErrorRecord, reviveError } from '../../src/relay/error-record.ts';
import { settle, streamOf } from '../helpers.ts';
import type { ManifestRecording } from '../manifest.ts';
import { PROVIDER_OF_DIR, recordingInput } from '../providers/event-stream-helpers.ts';

type AnyStage = { readonly writable: WritableStream<never>; readonly readable: ReadableStream<unknown> };

/** A schema that rejects every value, with issues at nested paths (keys, indices, `{key}` segments). */
export const rejectAll: StandardSchema = {
  '~standard': { version: 1, vendor: 'test', validate: () => ({ issues: [{ message: 'not allowed', path: ['content', 0, { key: 'x/y~z' }] }, { message: 'also wrong' }] }) },
};

/** Every stage (and a few chains), so that every event type of the vocabulary is made. */
export const STAGES: ReadonlyArray<readonly [string, ReadonlyArray<() => AnyStage>]> = [
  ['provider events', []],
  ['progress', [() => new ToolCallProgressStream()]],
  ['fields', [() => new FieldEventStream()]],
  ['path updates', [() => new PathUpdateStream()]],
  ['deltas', [() => new ToolCallDeltaStream({ messageId: 'msg_1' })]],
  ['validation errors', [() => new ToolCallProgressStream(), () => new ArgumentValidationStream({ schema: rejectAll })]],
  ['conversation+progress+passthrough', [() => new ConversationEventStream({ progress: true, passthrough: true, isolateErrors: true })]],
  ['conversation, repaired', [() => new ConversationEventStream({ repair: true })]],
  ['tagged → conversation', [() => new TaggedToolCallStream(), () => new ConversationEventStream({ isolateErrors: true, passthrough: true })]],
];

/** What a stage made: the events, and the error that ended them (`undefined` for none). */
export interface Made {
  readonly events: unknown[];
  readonly error: unknown;
}

/** The events (and error) of `stages` over `input` events or a recording. */
export async function made(source: ReadableStream<unknown>, stages: ReadonlyArray<() => AnyStage>): Promise<Made> {
  let stream = source;
  for (const make of stages) stream = stream.pipeThrough(make() as never);
  const { values, error } = await settle(stream);
  return { events: values, error };
}

export function recordingSource(recording: ManifestRecording): ReadableStream<unknown> {
  const provider = PROVIDER_OF_DIR[recording.dir] as ProviderName;
  return streamOf(recordingInput(recording)).pipeThrough(new ProviderEventStream({ provider }));
}

/** A stream of `events` that errors with `error` after them (or closes, when it is `undefined`). */
export function eventsThen(events: readonly unknown[], error: unknown): ReadableStream<unknown> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < events.length) controller.enqueue(events[i++]);
      else if (error === undefined) controller.close();
      else controller.error(error);
    },
  });
}

/** One byte array of everything a readable of bytes gave. */
export async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const { values, error } = await settle(stream);
  if (error !== undefined) throw error;
  const out = new Uint8Array(values.reduce((n, v) => n + v.length, 0));
  let at = 0;
  for (const v of values) {
    out.set(v, at);
    at += v.length;
  }
  return out;
}

/** Encode `made` with `encoder`: its bytes. */
export function encode(source: Made, encoder: ReadableWritablePair<Uint8Array, unknown>): Promise<Uint8Array> {
  return bytesOf(eventsThen(source.events, source.error).pipeThrough(encoder));
}

/** Decode `pieces` with `decoder`. */
export async function decode(pieces: ReadonlyArray<string | Uint8Array>, decoder: TransformStream<string | Uint8Array, unknown>): Promise<Made> {
  const { values, error } = await settle(streamOf(pieces).pipeThrough(decoder));
  return { events: values, error };
}

/** Every error inside `value`, with its path, in order. */
function errorsIn(value: unknown, path = '', out: Array<[string, Error]> = []): Array<[string, Error]> {
  if (value instanceof Error) {
    out.push([path, value]);
    if (value.cause !== undefined) errorsIn(value.cause, `${path}/cause`, out);
    return out;
  }
  if (typeof value === 'object' && value !== null) for (const [key, member] of Object.entries(value)) errorsIn(member, `${path}/${key}`, out);
  return out;
}

const CLASSES = errorClasses(undefined);

/** `value` with every error in it as a page gets it: its page record, read back. */
function pageView(value: unknown): unknown {
  if (value instanceof Error) return reviveError(errorRecord(value), CLASSES);
  if (Array.isArray(value)) return value.map(pageView);
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) copy[key] = pageView(member);
  return copy;
}

/**
 * What a page is promised of `made` (`EventStreamDecoder`, `NdjsonDecoder`): the same events, and
 * every error — inside them and the one that ended them — as its page record makes it again
 * (argstream's class and fields, argstream's message; `Error`, "the stream failed", for others).
 */
export function onPage(made: Made): Made {
  return { events: made.events.map(pageView), error: made.error === undefined ? undefined : reviveError(pageErrorRecord(made.error), CLASSES) };
}

/**
 * `actual` equals what the page is promised of `expected` ({@link onPage}): deep-equal
 * (`undefined` members as absent, `-0` as `-0`), every error in it of the same class (prototype)
 * with the same name, message, fields and cause.
 */
export function expectSame(actual: Made, sent: Made, how: string): void {
  const expected = onPage(sent);
  expect(actual.events, how).toEqual(expected.events);
  expect(actual.error, how).toEqual(expected.error);
  const want = [...errorsIn(expected.events), ...errorsIn(expected.error, 'error')];
  const got = [...errorsIn(actual.events), ...errorsIn(actual.error, 'error')];
  expect(got.map(([path, e]) => [path, Object.getPrototypeOf(e), e.name, e.message, { ...e }]), how).toEqual(
    want.map(([path, e]) => [path, Object.getPrototypeOf(e), e.name, e.message, { ...e }]),
  );
}

/** An Anthropic stream of one write_file call whose content is `size` characters, in `pieces` deltas. */
export function anthropicWriteFile(size: number, pieces: number): string {
  const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const content = Array.from({ length: size }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
  const json = JSON.stringify({ path: 'src/main.rs', content });
  const step = Math.ceil(json.length / pieces);
  const deltas: string[] = [];
  for (let i = 0; i < json.length; i += step) deltas.push(event('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: json.slice(i, i + step) } }));
  return [
    event('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude', content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } }),
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Writing the file.' } }),
    event('content_block_stop', { index: 0 }),
    event('content_block_start', { index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'write_file', input: {} } }),
    ...deltas.map((delta) => delta.replace('"index":0', '"index":1')),
    event('content_block_stop', { index: 1 }),
    event('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 30 } }),
    event('message_stop', {}),
  ].join('');
}

/**
 * A TCP proxy that, on connection n, passes `cuts[n]` bytes of the answer and then destroys both
 * sides (undefined: passes everything; 0: cuts once the request went through, before the first byte of the answer).
 */
export function proxy(target: string, cuts: ReadonlyArray<number | undefined>): Promise<{ url: string; server: TcpServer; connections: () => number }> {
  const { port } = new URL(target);
  let n = 0;
  const server = createTcpServer((client: Socket) => {
    const cut = cuts[n++];
    const upstream = connect(Number(port), '127.0.0.1');
    client.pipe(upstream);
    let passed = 0;
    upstream.on('data', (chunk: Buffer) => {
      if (cut === undefined) return void client.write(chunk);
      const room = cut - passed;
      if (room > 0) client.write(chunk.subarray(0, room));
      passed += chunk.length;
      if (passed >= cut) {
        client.destroy();
        upstream.destroy();
      }
    });
    upstream.on('end', () => client.end());
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    // 0: the request reaches the relay, and the connection dies before its answer.
    if (cut === 0) client.once('data', () => setTimeout(() => client.destroy(), 20));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, connections: () => n })));
}

/** A TCP front: each new connection goes to the relay `route` names; `cut()` ends every connection open now. */
export interface Front {
  readonly url: string;
  route: number;
  cut(): void;
  close(): void;
}

export function front(): Promise<Front> {
  const open = new Set<Socket>();
  const state = { route: 0 };
  const server: TcpServer = createTcpServer((client) => {
    const upstream = connect(state.route, '127.0.0.1');
    open.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.pipe(upstream).pipe(client);
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        get route() {
          return state.route;
        },
        set route(port: number) {
          state.route = port;
        },
        cut: () => {
          for (const socket of open) socket.destroy();
          open.clear();
        },
        close: () => {
          for (const socket of open) socket.destroy();
          server.close();
        },
      }),
    ),
  );
}

export type { PipelineEvent };
