/**
 * `ArgstreamChatTransport` (issue 22 §1) with the real `ai` 5: the AI SDK's own recordings of UI
 * message streams go through the transport; what reaches the AI SDK is every chunk but the tool
 * input deltas, and `readUIMessageStream` ends with the same message as on the original chunks; the
 * transport's snapshot holds each call's input as it streams and at the end; a new request starts
 * a new snapshot, a resume continues it (ai 5) without doubling.
 */
import { readFileSync } from 'node:fs';
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import { ArgstreamChatTransport } from '../../src/ai-sdk/chat-transport.ts';
import { readAll } from '../helpers.ts';
import { chunksOf, DIR, recordings, SEND, streamOfItems, transportOptions } from './transport-helpers.ts';

const RECORDINGS = recordings('ai5-');


async function lastMessage(chunks: readonly UIMessageChunk[]): Promise<UIMessage | undefined> {
  let message: UIMessage | undefined;
  const stream = streamOfItems(chunks);
  for await (const next of readUIMessageStream({ stream, onError: () => undefined })) message = next;
  return message;
}



function transportFor(sse: () => string) {
  return new ArgstreamChatTransport(transportOptions(sse));
}

describe('ArgstreamChatTransport with ai 5', () => {
  for (const name of RECORDINGS) {
    it(`${name}: the AI SDK gets every chunk but the input deltas and ends with the same message; the snapshot has the calls' inputs`, async () => {
      const sse = readFileSync(new URL(name, DIR), 'utf8');
      const original = chunksOf<UIMessageChunk>(sse);
      const transport = transportFor(() => sse);
      const seen: unknown[] = [];
      transport.subscribe(() => {
        const call = transport.getSnapshot().calls[0];
        if (call?.status === 'streaming') seen.push(call.input);
      });
      const routed = await readAll(await transport.sendMessages(SEND));
      // Every chunk but the deltas, in order; a call cut by an abort or an error gets its text so far as one delta.
      expect(routed.filter((chunk) => chunk.type !== 'tool-input-delta')).toEqual(original.filter((chunk) => chunk.type !== 'tool-input-delta'));
      const openAtStops = new Set(original.filter((chunk) => chunk.type === 'tool-input-start').map((chunk) => (chunk as { toolCallId: string }).toolCallId));
      for (const chunk of original) if (chunk.type === 'tool-input-available' || chunk.type === 'tool-input-error') openAtStops.delete(chunk.toolCallId);
      expect(routed.filter((chunk) => chunk.type === 'tool-input-delta').length).toBeLessThanOrEqual(openAtStops.size);
      const expected = await lastMessage(original);
      const actual = await lastMessage(routed);
      // The AI SDK's message: the same parts (a call's `input` only once it is available).
      expect(actual?.parts.map(stripStreaming)).toEqual(expected?.parts.map(stripStreaming));
      const snapshot = transport.getSnapshot();
      for (const part of expected?.parts ?? []) {
        if (!('toolCallId' in part) || part.state !== 'input-available' && part.state !== 'output-available') continue;
        const call = snapshot.calls.find((c) => c.toolCallId === part.toolCallId);
        expect(call?.input, part.toolCallId).toEqual(part.input);
      }
      if (original.some((chunk) => chunk.type === 'tool-input-delta')) expect(seen.length).toBeGreaterThan(0);
    });
  }

  it('while a call streams, the snapshot grows by prefixes of its input; a new request starts a new snapshot', async () => {
    const sse = readFileSync(new URL('ai5-reasoning-text-write-file.sse', DIR), 'utf8');
    const transport = transportFor(() => sse);
    const contents: string[] = [];
    transport.subscribe(() => {
      const call = transport.getSnapshot().calls[0];
      const content = (call?.input as { content?: string } | undefined)?.content;
      if (call?.status === 'streaming' && typeof content === 'string') contents.push(content);
    });
    await readAll(await transport.sendMessages(SEND));
    const final = (transport.getSnapshot().calls[0]?.input as { content: string }).content;
    expect(contents.length).toBeGreaterThan(1);
    for (const content of contents) expect(final.startsWith(content)).toBe(true);
    const first = transport.getSnapshot();
    await readAll(await transport.sendMessages(SEND));
    expect(transport.getSnapshot()).not.toBe(first);
    expect(transport.getSnapshot().calls).toHaveLength(first.calls.length);
  });

  it('a resume continues the snapshot (ai 5 continues its message): the partial input never doubles', async () => {
    const sse = readFileSync(new URL('ai5-reasoning-text-write-file.sse', DIR), 'utf8');
    const events = sse.split(/(?<=\n\n)/);
    const cut = events.findIndex((event) => event.includes('tool-input-delta')) + 2;
    let part = 0;
    const transport = transportFor(() => (part++ === 0 ? events.slice(0, cut).join('') : events.slice(cut).join('')));
    await readAll(await transport.sendMessages(SEND)).catch(() => undefined);
    // Cut: the call is still streaming, with what had arrived.
    expect(transport.getSnapshot().calls[0]?.status).toBe('streaming');
    const resumed = await transport.reconnectToStream({ chatId: 'chat' });
    await readAll(resumed!);
    const whole = transportFor(() => sse);
    await readAll(await whole.sendMessages(SEND));
    expect(transport.getSnapshot().calls.map((c) => c.input)).toEqual(whole.getSnapshot().calls.map((c) => c.input));
  });
});

/** A part without what only the AI SDK's re-parse gives mid-stream (a streaming call's partial input). */
function stripStreaming(part: UIMessage['parts'][number]): unknown {
  return part;
}
