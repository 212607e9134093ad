/**
 * A stand-in for a model's API whose next answer a test sets: the SSE events to stream, and the
 * points where it stops until the test lets it go on (the stepped model of browser.test.ts, made
 * to outlive one request, so that the servers pointed at it are started once for many tests).
 * Listens on 127.0.0.1.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One answer of the model: its events, and where it stops. */
export interface Script {
  /** Resolves once every event before stop `n` has been written (and flushed to the socket). */
  reached(n: number): Promise<void>;
  /** Go on from the stop the answer is at. */
  next(): void;
  /** Resolves once the answer ended: its last event written, or the client gone. */
  readonly ended: Promise<void>;
}

export interface ScriptedModel {
  /** The Messages endpoint: `http://127.0.0.1:PORT/v1/messages`. */
  readonly url: string;
  /** What the next request gets: `events` (one write each), stopping before each index in `stops` until `next()`. */
  play(events: readonly string[], stops?: readonly number[]): Script;
  close(): Promise<void>;
}

/** A promise and its resolve function (Promise.withResolvers, which Node 20 lacks). */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

interface Playing {
  readonly events: readonly string[];
  readonly stops: readonly number[];
  readonly arrivals: Array<{ promise: Promise<void>; resolve: () => void }>;
  go: { promise: Promise<void>; resolve: () => void };
  readonly ended: { promise: Promise<void>; resolve: () => void };
}

export async function startScriptedModel(): Promise<ScriptedModel> {
  let queued: Playing | undefined;
  const all = new Set<Playing>();
  const write = (response: ServerResponse, chunk: string) => new Promise<void>((resolve) => response.write(chunk, () => resolve()));
  const server = createServer(async (request, response) => {
    request.resume();
    const playing = queued;
    queued = undefined;
    if (playing === undefined) {
      response.writeHead(500, { 'content-type': 'application/json' }).end('{"type":"error","error":{"type":"api_error","message":"no script for this request"}}');
      return;
    }
    response.on('close', () => playing.ended.resolve());
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let i = 0; i < playing.events.length; i++) {
      const stop = playing.stops.indexOf(i);
      if (stop >= 0) {
        playing.arrivals[stop]!.resolve();
        await playing.go.promise;
        playing.go = deferred();
      }
      if (response.destroyed) return;
      await write(response, playing.events[i]!);
    }
    response.end();
    playing.ended.resolve();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/messages`,
    play(events, stops = []) {
      const playing: Playing = { events, stops, arrivals: stops.map(() => deferred()), go: deferred(), ended: deferred() };
      queued = playing;
      all.add(playing);
      return {
        reached: (n) => playing.arrivals[n]!.promise,
        next: () => playing.go.resolve(),
        ended: playing.ended.promise,
      };
    },
    close: () => {
      for (const playing of all) playing.go.resolve();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One SSE event of Anthropic's Messages stream. */
export function anthropicEvent(type: string, data: object): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/** A tool call of {@link anthropicTurn}: its argument JSON in `pieces`. */
export interface ScriptedCall {
  readonly id: string;
  readonly name: string;
  readonly pieces: readonly string[];
}

/**
 * A turn in Anthropic's wire format: a text, then each call in its own content block, one after
 * the other (as Anthropic streams parallel calls). With `cutAfter`, the stream is cut by an
 * `event: error` (the API overloaded) after that many argument pieces of the last call, and ends.
 */
export function anthropicTurn(text: string, calls: readonly ScriptedCall[], options: { cutAfter?: number } = {}): { events: string[]; firstPiece: number[] } {
  const events = [
    anthropicEvent('message_start', { message: { id: 'msg_test', type: 'message', role: 'assistant', content: [], model: 'test', stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } }),
    anthropicEvent('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    anthropicEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }),
    anthropicEvent('content_block_stop', { index: 0 }),
  ];
  const firstPiece: number[] = [];
  calls.forEach((call, i) => {
    const index = i + 1;
    const last = i === calls.length - 1;
    events.push(anthropicEvent('content_block_start', { index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } }));
    firstPiece.push(events.length);
    const pieces = last && options.cutAfter !== undefined ? call.pieces.slice(0, options.cutAfter) : call.pieces;
    for (const partial_json of pieces) events.push(anthropicEvent('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } }));
    if (!(last && options.cutAfter !== undefined)) events.push(anthropicEvent('content_block_stop', { index }));
  });
  if (options.cutAfter !== undefined) {
    events.push(anthropicEvent('error', { error: { type: 'overloaded_error', message: 'Overloaded' } }));
  } else {
    events.push(anthropicEvent('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 100 } }));
    events.push(anthropicEvent('message_stop', {}));
  }
  return { events, firstPiece };
}

/** One SSE event of OpenAI's Chat Completions stream: a chunk of choice 0. */
export function openaiChatChunk(delta: object, finishReason: string | null = null): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1767225600, model: 'test', choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] })}\n\n`;
}

/**
 * A turn in OpenAI's Chat Completions wire format with its calls streaming at the same time: a
 * text, then one piece of each call in turn (each call's first fragment carries its `index`, `id`
 * and name, as OpenAI's do; the later ones only its `index`), then `finish_reason: tool_calls`
 * and `[DONE]`. `pieceEvents[i][k]` is where piece `k` of call `i` is in `events`: a stop there
 * holds every later piece back, of both calls.
 */
export function openaiChatInterleavedTurn(text: string, calls: readonly ScriptedCall[]): { events: string[]; pieceEvents: number[][] } {
  const events = [openaiChatChunk({ role: 'assistant', content: '', refusal: null }), openaiChatChunk({ content: text })];
  const pieceEvents: number[][] = calls.map(() => []);
  for (let round = 0; calls.some((call) => round < call.pieces.length); round++) {
    calls.forEach((call, index) => {
      if (round === 0) events.push(openaiChatChunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
      if (round >= call.pieces.length) return;
      pieceEvents[index]!.push(events.length);
      events.push(openaiChatChunk({ tool_calls: [{ index, function: { arguments: call.pieces[round] } }] }));
    });
  }
  events.push(openaiChatChunk({}, 'tool_calls'), 'data: [DONE]\n\n');
  return { events, pieceEvents };
}
