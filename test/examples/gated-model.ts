/**
 * A stand-in for a model's API that streams given SSE events and stops after a chosen one until
 * the test says go: what lets a test look at a client in the middle of a stream without relying
 * on timing. Listens on 127.0.0.1.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running gated model. */
export interface GatedModel {
  /** The Messages endpoint: `http://127.0.0.1:PORT/v1/messages`. */
  readonly url: string;
  /** Resolves once the events before the hold have been written (and flushed to the socket). */
  readonly held: Promise<void>;
  /** Let the rest of the events go. */
  release(): void;
  /** Resolves when the client closed the connection before the last event was written. */
  readonly abandoned: Promise<void>;
  close(): Promise<void>;
}

/** Serve `events` (one write each) to the first request, holding after the first `holdAfter`. */
export async function startGatedModel(events: readonly string[], holdAfter: number): Promise<GatedModel> {
  let reachHold!: () => void;
  const held = new Promise<void>((resolve) => (reachHold = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let abandon!: () => void;
  const abandoned = new Promise<void>((resolve) => (abandon = resolve));
  const write = (response: import('node:http').ServerResponse, chunk: string) => new Promise<void>((resolve) => response.write(chunk, () => resolve()));
  const server = createServer(async (request, response) => {
    request.resume();
    let complete = false;
    response.on('close', () => {
      if (!complete) abandon();
    });
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let i = 0; i < events.length; i++) {
      if (i === holdAfter) {
        reachHold();
        await gate;
      }
      if (response.destroyed) return;
      await write(response, events[i] as string);
    }
    if (holdAfter >= events.length) reachHold();
    complete = true;
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/messages`,
    held,
    release,
    abandoned,
    close: () => {
      release();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A turn in Anthropic's wire format: a text, then one tool call whose argument JSON comes in `pieces`. */
export function anthropicToolTurn(text: string, call: { id: string; name: string }, pieces: readonly string[]): string[] {
  const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  return [
    event('message_start', { message: { id: 'msg_test', type: 'message', role: 'assistant', content: [], model: 'test', stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } }),
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }),
    event('content_block_stop', { index: 0 }),
    event('content_block_start', { index: 1, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } }),
    ...pieces.map((partial_json) => event('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json } })),
    event('content_block_stop', { index: 1 }),
    event('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 100 } }),
    event('message_stop', {}),
  ];
}

/** Where the tool call's argument pieces begin in {@link anthropicToolTurn}'s events. */
export const FIRST_ARGUMENT_EVENT = 5;
