/**
 * Nothing secret leaves the server (issue 28, §1): what a page gets of an error — over SSE, NDJSON,
 * the AI SDK UI stream, and the event log with every resume — is its page record: argstream's
 * class, code, status, call and path, and a message argstream writes (or the application's
 * `onError`). A provider error's request body, URL, headers, an upstream `fetch`'s address, a
 * server's stack stay on the server; a forged record sets nothing the page did not ask for.
 */
import { createServer } from 'node:net';
import { APICallError } from 'ai';
import { APICallError as APICallError6 } from 'ai6';
import { APICallError as APICallError7 } from 'ai7';
import { describe, expect, it } from 'vitest';
import {
  ArgumentValidationError,
  EventLogError,
  EventStreamDecoder,
  EventStreamEncoder,
  JsonStreamError,
  MemoryEventLog,
  NdjsonDecoder,
  NdjsonEncoder,
  ProviderError,
  ProviderEventStream,
  RelayError,
  ToolCallArgumentsError,
  encodeError,
  isEventLogError,
  keepStream,
  newStreamId,
  serveStream,
  stopStream,
  type PipelineEvent,
} from '../../src/index.ts';
import { UIMessageChunkEncoder, UIMessageStreamEncoder } from '../../src/bindings/ai-sdk/index.ts';
import { AgUiEncoder } from '../../src/bindings/ag-ui.ts';
import { settle, streamOf } from '../helpers.ts';
import { bytesOf, eventsThen } from '../relay/relay-helpers.ts';

const utf8 = new TextDecoder();

/** What an AI SDK provider puts on an `APICallError`, each holding a secret a page must not see. */
const SECRETS = {
  system: 'SYSTEM-PROMPT-c0nfidential',
  user: 'USER-MESSAGE-private-diary',
  key: 'AIzaSyD-SECRET-GEMINI-KEY',
  cookie: 'session=COOKIE-SECRET-abc',
  apiKeyPrefix: 'sk-proj-SECRETPREFIX',
  body: 'RESPONSE-BODY-internal-trace-id',
};

function apiCallError(Class: typeof APICallError | typeof APICallError6 | typeof APICallError7): Error {
  return new Class({
    message: `Incorrect API key provided: ${SECRETS.apiKeyPrefix}`,
    url: `https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?key=${SECRETS.key}`,
    requestBodyValues: { systemInstruction: { parts: [{ text: SECRETS.system }] }, contents: [{ role: 'user', parts: [{ text: SECRETS.user }] }] },
    statusCode: 401,
    responseHeaders: { 'set-cookie': SECRETS.cookie, 'x-internal-host': '10.1.2.3:8443' },
    responseBody: `{"error":{"message":"API key not valid: ${SECRETS.key}","trace":"${SECRETS.body}"}}`,
    isRetryable: false,
    cause: new Error(`connect to 10.1.2.3:8443 with ${SECRETS.key}`),
  });
}

/** The AI SDK's `fullStream` parts of a turn that fails with `error` after some text. */
function aiSdkParts(error: Error): ReadableStream<object> {
  return streamOf<object>([
    { type: 'start' },
    { type: 'start-step', request: {}, warnings: [] },
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', text: 'Let me check.' },
    { type: 'text-end', id: 't' },
    { type: 'error', error },
  ]);
}

function providerEvents(error: Error): ReadableStream<PipelineEvent> {
  return aiSdkParts(error).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk' })) as ReadableStream<PipelineEvent>;
}

function expectNoSecret(text: string, what: string): void {
  for (const secret of Object.values(SECRETS)) expect(text, `${what}: ${secret}`).not.toContain(secret);
  for (const leak of ['10.1.2.3', 'generativelanguage', 'set-cookie', 'requestBodyValues', 'responseHeaders', '"stack"', '    at ']) expect(text, `${what}: ${leak}`).not.toContain(leak);
}

async function decoded(bytes: Uint8Array, decoder: TransformStream<Uint8Array, unknown>): Promise<unknown> {
  const { error } = await settle(streamOf([bytes]).pipeThrough(decoder));
  return error;
}

const VERSIONS = [
  ['ai 5', APICallError],
  ['ai 6', APICallError6],
  ['ai 7', APICallError7],
] as const;

describe("a provider's error (the AI SDK's APICallError) relayed to a page", () => {
  for (const [version, Class] of VERSIONS) {
    it(`EventStreamEncoder sends no secret of an ${version} APICallError; EventStreamDecoder gives a ProviderError with its status`, async () => {
      const bytes = await bytesOf(providerEvents(apiCallError(Class)).pipeThrough(new EventStreamEncoder()));
      const text = utf8.decode(bytes);
      expect(text).toContain('event: error');
      expectNoSecret(text, version);
      const error = await decoded(bytes, new EventStreamDecoder());
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ name: 'ProviderError', provider: 'ai-sdk', type: 'AI_APICallError', status: 401 });
      expect((error as Error).message).toBe('ai-sdk (HTTP 401): the provider reported an error "AI_APICallError"');
      expect((error as Error).cause).toBeUndefined();
    });

    it(`NdjsonEncoder sends no secret of an ${version} APICallError; NdjsonDecoder gives a ProviderError with its status`, async () => {
      const bytes = await bytesOf(providerEvents(apiCallError(Class)).pipeThrough(new NdjsonEncoder()));
      expectNoSecret(utf8.decode(bytes), version);
      const error = await decoded(bytes, new NdjsonDecoder());
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ provider: 'ai-sdk', status: 401 });
    });

    it(`UIMessageStreamEncoder's error chunk holds no secret of an ${version} APICallError`, async () => {
      const bytes = await bytesOf(providerEvents(apiCallError(Class)).pipeThrough(new UIMessageStreamEncoder()));
      const text = utf8.decode(bytes);
      expectNoSecret(text, version);
      expect(text).toContain('"type":"error","errorText":"ai-sdk (HTTP 401): the provider reported an error \\"AI_APICallError\\""');
    });

    it(`AgUiEncoder's RUN_ERROR holds no secret of an ${version} APICallError`, async () => {
      const text = utf8.decode(await bytesOf(providerEvents(apiCallError(Class)).pipeThrough(new AgUiEncoder())));
      expectNoSecret(text, version);
      expect(text).toContain('data: {"type":"RUN_ERROR","message":"ai-sdk (HTTP 401): the provider reported an error \\"AI_APICallError\\"","code":"AI_APICallError"}');
    });

    it(`keepStream and serveStream (MemoryEventLog) keep and serve no secret of an ${version} APICallError, to every resumer`, async () => {
      const log = new MemoryEventLog();
      try {
        const streamId = newStreamId();
        const kept = await keepStream(log, streamId, () => providerEvents(apiCallError(Class)));
        expect((await kept.done).status).toBe('failed');
        const stored = await log.read(streamId, 0, { follow: false });
        for await (const entry of stored) if (entry.kind === 'error') expectNoSecret(entry.data, `${version} stored`);
        for (const lastEventId of [undefined, '1']) {
          const request = new Request('https://app.example/api/chat', lastEventId === undefined ? {} : { headers: { 'last-event-id': lastEventId } });
          const response = await serveStream(log, streamId, request);
          const bytes = new Uint8Array(await response.arrayBuffer());
          expectNoSecret(utf8.decode(bytes), `${version} served after ${String(lastEventId)}`);
          const error = await decoded(bytes, new EventStreamDecoder());
          expect(error).toBeInstanceOf(ProviderError);
          expect(error).toMatchObject({ provider: 'ai-sdk', status: 401 });
        }
      } finally {
        await log.close();
      }
    });
  }

  it('the server keeps the whole error: the ProviderError of the stream has the APICallError as its cause', async () => {
    const cause = apiCallError(APICallError);
    const { error } = await settle(providerEvents(cause));
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).cause).toBe(cause);
    expect((error as ProviderError).message).toContain(SECRETS.apiKeyPrefix);
  });
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('an upstream fetch that fails', () => {
  it("EventStreamEncoder, NdjsonEncoder, UIMessageStreamEncoder and keepStream relay no address:port of a fetch to a closed port (an Error, 'the stream failed')", async () => {
    const port = await closedPort();
    const failure = await fetch(`http://127.0.0.1:${port}/v1/messages`).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TypeError);
    expect(String((failure as Error).cause)).toContain(`127.0.0.1:${port}`);
    const addresses = [`127.0.0.1:${port}`, `:${port}`, 'ECONNREFUSED', 'fetch failed'];
    for (const [what, encoder, decoder] of [
      ['SSE', new EventStreamEncoder<unknown>(), new EventStreamDecoder()],
      ['NDJSON', new NdjsonEncoder<unknown>(), new NdjsonDecoder()],
    ] as const) {
      const bytes = await bytesOf(eventsThen([], failure).pipeThrough(encoder));
      for (const address of addresses) expect(utf8.decode(bytes), `${what}: ${address}`).not.toContain(address);
      const error = await decoded(bytes, decoder as TransformStream<Uint8Array, unknown>);
      expect(Object.getPrototypeOf(error)).toBe(Error.prototype);
      expect(error).toMatchObject({ name: 'Error', message: 'the stream failed' });
    }
    const ui = utf8.decode(await bytesOf(eventsThen([], failure).pipeThrough(new UIMessageStreamEncoder() as never)));
    for (const address of addresses) expect(ui).not.toContain(address);
    expect(ui).toContain('"errorText":"the stream failed"');
    const agUi = utf8.decode(await bytesOf(eventsThen([], failure).pipeThrough(new AgUiEncoder() as never)));
    for (const address of addresses) expect(agUi).not.toContain(address);
    expect(agUi).toContain('{"type":"RUN_ERROR","message":"the stream failed","code":"Error"}');

    const log = new MemoryEventLog();
    try {
      const streamId = newStreamId();
      const kept = await keepStream(log, streamId, () => Promise.reject(failure));
      expect(await kept.done).toMatchObject({ status: 'failed', error: failure });
      const text = await (await serveStream(log, streamId, new Request('https://app.example/'))).text();
      for (const address of addresses) expect(text).not.toContain(address);
    } finally {
      await log.close();
    }
  });

  it("an application's own error goes as an Error with argstream's generic message, its text kept on the server", async () => {
    const secret = new Error('postgres://admin:hunter2@db.internal:5432 refused the connection');
    const text = utf8.decode(await bytesOf(eventsThen([], secret).pipeThrough(new EventStreamEncoder<unknown>())));
    expect(text).toBe('event: error\ndata: {"name":"Error","message":"the stream failed"}\n\n');
    expect(encodeError(secret)).toBe('{"name":"Error","message":"the stream failed"}');
  });
});

describe('a forged error record', () => {
  const forged = {
    name: 'ProviderError',
    message: 'forged',
    provider: 'anthropic',
    type: 'overloaded_error',
    status: 529,
    stack: 'Error: FORGED-STACK\n    at evil (https://evil.example/x.js:1:1)',
    __proto__: { polluted: true, status: 200 },
    constructor: 'FORGED-CONSTRUCTOR',
    toString: 'FORGED-TOSTRING',
    url: 'https://evil.example/',
    extra: 'FORGED-FIELD',
    cause: { name: 'Function', message: 'FORGED-CAUSE', stack: 'FORGED-CAUSE-STACK' },
  };
  // JSON text, so that "__proto__" is a member of its own, as a hostile server writes it.
  const data = JSON.stringify(forged).replace('"provider"', '"__proto__":{"polluted":true,"status":200},"provider"');

  function expectClean(error: unknown): void {
    expect(error).toBeInstanceOf(ProviderError);
    const e = error as ProviderError & Record<string, unknown>;
    expect(e.name).toBe('ProviderError');
    expect([e.provider, e.type, e.status, e.message]).toEqual(['anthropic', 'overloaded_error', 529, 'forged']);
    expect(e.stack ?? '').not.toContain('FORGED');
    expect(Object.getPrototypeOf(e)).toBe(ProviderError.prototype);
    expect(Object.hasOwn(e, '__proto__')).toBe(false);
    expect(e['polluted']).toBeUndefined();
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.hasOwn(e, 'constructor') || Object.hasOwn(e, 'toString')).toBe(false);
    expect(typeof e.toString).toBe('function');
    expect(e['url']).toBeUndefined();
    expect(e['extra']).toBeUndefined();
    expect(e.cause).toBeUndefined();
  }

  it('EventStreamDecoder: an event: error record sets no stack, prototype member, unknown field or cause of another class', async () => {
    expectClean(await decoded(new TextEncoder().encode(`event: error\ndata: ${data}\n\n`), new EventStreamDecoder()));
  });

  it('NdjsonDecoder: an error line sets no stack, prototype member, unknown field or cause of another class', async () => {
    expectClean(await decoded(new TextEncoder().encode(`{"type":"error","error":${data}}\n`), new NdjsonDecoder()));
  });

  it("a name that is not argstream's class (Function, TypeError, an unknown one) gives a plain Error named Error", async () => {
    for (const name of ['Function', 'Object', 'TypeError', 'SyntaxError', 'Whatever', '__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const error = await decoded(new TextEncoder().encode(`event: error\ndata: ${JSON.stringify({ name, message: 'm', code: 'x', stack: 'FORGED' })}\n\n`), new EventStreamDecoder());
      expect(Object.getPrototypeOf(error), name).toBe(Error.prototype);
      expect((error as Error).name, name).toBe('Error');
      expect((error as Error).stack, name).not.toContain('FORGED');
      expect(Object.keys(error as Error), name).toEqual([]);
    }
  });

  it('a field of the wrong kind is left out; a cause only when it is the record of an argstream class', async () => {
    const record = { name: 'ToolCallArgumentsError', message: 'm', toolCallId: { toString: 'x' }, toolName: 'f', index: '0', offset: 3, code: 'invalid-json', cause: { name: 'JsonStreamError', message: 'j', code: 'invalid-json', offset: 3, path: '/a', cause: { name: 'JsonStreamError', message: 'deeper' } } };
    const error = (await decoded(new TextEncoder().encode(`event: error\ndata: ${JSON.stringify(record)}\n\n`), new EventStreamDecoder())) as ToolCallArgumentsError;
    expect(error).toBeInstanceOf(ToolCallArgumentsError);
    expect([error.toolCallId, error.toolName, error.index, error.offset]).toEqual([undefined, 'f', undefined, 3]);
    expect(error.cause).toBeInstanceOf(JsonStreamError);
    expect((error.cause as JsonStreamError).path).toBe('/a');
    expect((error.cause as JsonStreamError).cause).toBeUndefined();
  });

  it('an error inside an event (a tool-call-failed) is read back the same way', async () => {
    const event = { type: 'tool-call-failed', index: 0, toolCallId: 'c', toolName: 'f', error: { name: 'JsonStreamError', message: 'm', code: 'invalid-json', offset: 1, path: '', stack: 'FORGED', extra: 1 }, $errors: ['/error'] };
    const { values } = await settle(streamOf([`id: 1\nevent: tool-call-failed\ndata: ${JSON.stringify(event)}\n\nevent: end\ndata: {}\n\n`]).pipeThrough(new EventStreamDecoder<unknown>()));
    const error = (values[0] as { error: JsonStreamError & { extra?: unknown } }).error;
    expect(error).toBeInstanceOf(JsonStreamError);
    expect(error.stack).not.toContain('FORGED');
    expect(error.extra).toBeUndefined();
  });
});

describe("an upstream AG-UI agent's RUN_ERROR relayed to a page", () => {
  it("EventStreamEncoder and AgUiEncoder send argstream's message for it, never the agent's own words", async () => {
    const agent = new TextEncoder().encode(
      [
        { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
        { type: 'RUN_ERROR', message: `upstream 10.1.2.3:8443 refused ${SECRETS.key} for ${SECRETS.user}`, code: 'upstream_refused' },
      ]
        .map((event) => `data: ${JSON.stringify(event)}\n\n`)
        .join(''),
    );
    const events = () => streamOf([agent]).pipeThrough(new ProviderEventStream({ provider: 'ag-ui' })) as ReadableStream<PipelineEvent>;
    const { error } = await settle(events());
    expect((error as Error).message).toContain(SECRETS.key);
    const agUi = utf8.decode(await bytesOf(events().pipeThrough(new AgUiEncoder())));
    expectNoSecret(agUi, 'AG-UI');
    expect(agUi).toContain('{"type":"RUN_ERROR","message":"ag-ui: the provider reported an error (\\"upstream_refused\\")","code":"upstream_refused"}');
    const sse = await bytesOf(events().pipeThrough(new EventStreamEncoder()));
    expectNoSecret(utf8.decode(sse), 'SSE');
    expect(await decoded(sse, new EventStreamDecoder())).toMatchObject({ name: 'ProviderError', provider: 'ag-ui', code: 'upstream_refused' });
  });
});

describe('onError: what the page is told, per error', () => {
  const onError = (error: unknown) => (error instanceof ProviderError && error.status === 401 ? 'Check the API key in the settings.' : undefined);

  it('EventStreamEncoder, NdjsonEncoder and UIMessageStreamEncoder send the message onError returns, argstream\'s when it returns undefined', async () => {
    const sse = await bytesOf(providerEvents(apiCallError(APICallError)).pipeThrough(new EventStreamEncoder({ onError })));
    expect(await decoded(sse, new EventStreamDecoder())).toMatchObject({ name: 'ProviderError', status: 401, message: 'Check the API key in the settings.' });
    const ndjson = await bytesOf(providerEvents(apiCallError(APICallError)).pipeThrough(new NdjsonEncoder({ onError })));
    expect(await decoded(ndjson, new NdjsonDecoder())).toMatchObject({ name: 'ProviderError', message: 'Check the API key in the settings.' });
    const ui = utf8.decode(await bytesOf(providerEvents(apiCallError(APICallError)).pipeThrough(new UIMessageStreamEncoder({ onError }))));
    expect(ui).toContain('"errorText":"Check the API key in the settings."');
    const agUi = utf8.decode(await bytesOf(providerEvents(apiCallError(APICallError)).pipeThrough(new AgUiEncoder({ onError }))));
    expect(agUi).toContain('{"type":"RUN_ERROR","message":"Check the API key in the settings.","code":"AI_APICallError"}');

    const other = new ProviderError('anthropic', 'overloaded_error', 'Overloaded', { status: 529 });
    const otherBytes = await bytesOf(eventsThen([], other).pipeThrough(new EventStreamEncoder<unknown>({ onError })));
    expect(await decoded(otherBytes, new EventStreamDecoder())).toMatchObject({ message: 'anthropic (HTTP 529): the provider reported an error "overloaded_error"' });
  });

  it('onError can let the provider\'s own words through, and is cut at 500 characters; one that throws counts as undefined', async () => {
    const own = new ProviderError('openai-chat', 'context_length_exceeded', "This model's maximum context length is 128000 tokens.", { status: 400 });
    const passOn = (error: unknown) => (error as Error).message;
    expect(new UIMessageChunkEncoder({ onError: passOn }).error(own)[2]).toEqual({ type: 'error', errorText: "This model's maximum context length is 128000 tokens." });
    const long = await bytesOf(eventsThen([], own).pipeThrough(new EventStreamEncoder<unknown>({ onError: () => 'x'.repeat(100_000) })));
    expect(((await decoded(long, new EventStreamDecoder())) as Error).message.length).toBe(500);
    const throwing = await bytesOf(eventsThen([], own).pipeThrough(new EventStreamEncoder<unknown>({ onError: () => { throw new Error('bug'); } })));
    expect(await decoded(throwing, new EventStreamDecoder())).toMatchObject({ message: 'openai-chat (HTTP 400): the provider reported an error "context_length_exceeded"' });
  });

  it('keepStream stores the message onError returns; every resumer gets it', async () => {
    const log = new MemoryEventLog();
    try {
      const streamId = newStreamId();
      const kept = await keepStream(log, streamId, () => providerEvents(apiCallError(APICallError)), { onError });
      await kept.done;
      for (const lastEventId of ['0', '1']) {
        const response = await serveStream(log, streamId, new Request('https://app.example/', { headers: { 'last-event-id': lastEventId } }));
        expect(await decoded(new Uint8Array(await response.arrayBuffer()), new EventStreamDecoder())).toMatchObject({ name: 'ProviderError', message: 'Check the API key in the settings.' });
      }
    } finally {
      await log.close();
    }
  });

  it('UIMessageStreamEncoder: the deprecated errorText still chooses the text, onError wins over it', () => {
    const error = new ProviderError('anthropic', 'overloaded_error', 'secret details');
    expect(new UIMessageChunkEncoder({ errorText: () => 'legacy' }).error(error)[2]).toEqual({ type: 'error', errorText: 'legacy' });
    expect(new UIMessageChunkEncoder({ errorText: () => 'legacy', onError: () => 'new' }).error(error)[2]).toEqual({ type: 'error', errorText: 'new' });
    expect(new UIMessageChunkEncoder().error(error)[2]).toEqual({ type: 'error', errorText: 'anthropic: the provider reported an error "overloaded_error"' });
  });
});

describe('EventLogError over the wire', () => {
  it('a stopped stream: the page gets an EventLogError (instanceof, status, isEventLogError) without errorClasses', async () => {
    const log = new MemoryEventLog();
    try {
      const streamId = newStreamId();
      const source = new ReadableStream<PipelineEvent>({ pull: () => new Promise(() => {}) });
      const kept = await keepStream(log, streamId, source);
      expect((await stopStream(log, streamId)).status).toBe(204);
      expect((await kept.done).status).toBe('stopped');
      const bytes = new Uint8Array(await (await serveStream(log, streamId, new Request('https://app.example/'))).arrayBuffer());
      const error = await decoded(bytes, new EventStreamDecoder());
      expect(error).toBeInstanceOf(EventLogError);
      expect(error).toMatchObject({ name: 'EventLogError', code: 'stopped', message: 'the stream was stopped' });
      expect((error as EventLogError).status).toBe(409);
      expect(isEventLogError(error, 'stopped')).toBe(true);
    } finally {
      await log.close();
    }
  });

  it('EventStreamEncoder and NdjsonEncoder: an EventLogError round-trips as its class', async () => {
    const sent = new EventLogError('unavailable', 'Redis did not answer at 10.0.0.5:6379', { cause: new Error('connect ECONNREFUSED 10.0.0.5:6379') });
    const sse = await bytesOf(eventsThen([], sent).pipeThrough(new EventStreamEncoder<unknown>()));
    expect(utf8.decode(sse)).not.toContain('10.0.0.5');
    const back = await decoded(sse, new EventStreamDecoder());
    expect(back).toBeInstanceOf(EventLogError);
    expect((back as EventLogError).status).toBe(503);
    expect(await decoded(await bytesOf(eventsThen([], sent).pipeThrough(new NdjsonEncoder<unknown>())), new NdjsonDecoder())).toBeInstanceOf(EventLogError);
  });
});

describe('bounded records', () => {
  it('a RelayError incomplete after a 1 MB id: its message is bounded, and relayed on it is a few hundred bytes without the id', async () => {
    const id = 'i'.repeat(1 << 20);
    const cut = await decoded(new TextEncoder().encode(`id: ${id}\ndata: {}\n\n`), new EventStreamDecoder());
    expect(cut).toBeInstanceOf(RelayError);
    expect((cut as RelayError).code).toBe('incomplete');
    expect((cut as RelayError).lastEventId).toBe(id);
    expect((cut as Error).message.length).toBeLessThanOrEqual(300);
    const relayed = await bytesOf(eventsThen([], cut).pipeThrough(new EventStreamEncoder<unknown>()));
    expect(relayed.length).toBeLessThan(300);
    const back = (await decoded(relayed, new EventStreamDecoder())) as RelayError;
    expect(back).toBeInstanceOf(RelayError);
    expect([back.code, back.lastEventId, back.message]).toEqual(['incomplete', undefined, 'the relayed stream was cut before its end']);
  });

  it('a call with a 1 MB name and id and 10,000 validation issues: a record of at most a few KB, a message of at most 500 characters quoting at most 30', async () => {
    const long = 'k'.repeat(1 << 20);
    const validation = new ArgumentValidationError({
      type: 'validation-error',
      index: 2,
      toolCallId: long,
      toolName: long,
      path: `/${long}`,
      issues: Array.from({ length: 10_000 }, (_, i) => ({ message: `Expected string, received "${long}"`, path: [long, i] })),
    });
    const argumentsError = new ToolCallArgumentsError(long, long, 3, new JsonStreamError('invalid-json', `Unexpected "${long}"`, 7, `/${long}`, { excerpt: long }));
    for (const error of [validation, argumentsError]) {
      const text = encodeError(error);
      expect(text.length, error.name).toBeLessThan(5_000);
      const record = JSON.parse(text) as { message: string };
      expect(record.message.length).toBeLessThanOrEqual(500);
      expect(record.message).not.toMatch(/k{31}/);
    }
    const back = (await decoded(new TextEncoder().encode(`event: error\ndata: ${encodeError(validation)}\n\n`), new EventStreamDecoder())) as ArgumentValidationError;
    expect(back).toBeInstanceOf(ArgumentValidationError);
    expect([back.index, back.toolCallId, back.issues.length]).toEqual([2, undefined, 10]);
    expect(back.issues[0]!.message.length).toBeLessThanOrEqual(200);
  });

  it('a relayed tool-call-failed keeps its JSON error whole for the page (class, code, offset, path, a 30-character excerpt)', async () => {
    const cause = new JsonStreamError('invalid-json', 'Expected a value at offset 5, got "}"', 5, '/a', { excerpt: '}' });
    const failed = { type: 'tool-call-failed', index: 0, toolCallId: 'c1', toolName: 'f', arguments: '{"a":}', error: new ToolCallArgumentsError('c1', 'f', 0, cause) };
    const bytes = await bytesOf(eventsThen([failed], undefined).pipeThrough(new EventStreamEncoder<unknown>()));
    const { values } = await settle(streamOf([bytes]).pipeThrough(new EventStreamDecoder<unknown>()));
    const error = (values[0] as { error: ToolCallArgumentsError }).error;
    expect(error).toBeInstanceOf(ToolCallArgumentsError);
    expect(error.cause).toBeInstanceOf(JsonStreamError);
    expect([error.toolCallId, error.toolName, error.index, error.offset, error.code, error.message]).toEqual(['c1', 'f', 0, 5, 'invalid-json', 'the arguments of tool call #0: the JSON text is not valid at offset 5, at "}"']);
  });
});
