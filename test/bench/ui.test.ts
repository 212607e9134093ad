/**
 * The UI benchmark's AI SDK workload (`bench/ui.ts`): the chunks are what the AI SDK's own chunk
 * schema accepts (what its HTTP transport checks), in the order its server sends them, and both
 * majors' `readUIMessageStream` turn them into the generated arguments.
 */
import { describe, expect, it } from 'vitest';
import { readUIMessageStream as read5, uiMessageChunkSchema as schema5 } from 'ai';
import { readUIMessageStream as read7, uiMessageChunkSchema as schema7 } from 'ai7';
import { uiMessageChunks, uiMessageChunkStream, uiWriteFileCall } from '../../bench/ui.ts';

const BYTES = 4_000;

describe('bench/ui.ts: uiMessageChunks', () => {
  const call = uiWriteFileCall(BYTES);
  const chunks = uiMessageChunks(BYTES, call);

  it('frames the call as the AI SDK server does: start, start-step, tool-input-start, a delta per argument delta, tool-input-available, finish-step, finish', () => {
    expect(chunks.map((chunk) => chunk.type).slice(0, 3)).toEqual(['start', 'start-step', 'tool-input-start']);
    expect(chunks.map((chunk) => chunk.type).slice(-3)).toEqual(['tool-input-available', 'finish-step', 'finish']);
    const deltas = chunks.filter((chunk) => chunk.type === 'tool-input-delta');
    expect(deltas).toHaveLength(call.deltas.length);
    expect(deltas.map((chunk) => chunk.inputTextDelta).join('')).toBe(call.text);
    const available = chunks.find((chunk) => chunk.type === 'tool-input-available');
    expect(available).toMatchObject({ toolName: 'write_file', input: call.expected });
    expect(available?.input).not.toBe(call.expected);
    expect(uiMessageChunks(BYTES)).toEqual(chunks);
  });

  it('is accepted by the chunk schema of ai 5 and of ai 7', async () => {
    for (const schema of [schema5(), schema7()]) {
      for (const chunk of chunks) {
        const result = await schema.validate?.(chunk);
        expect(result?.success, JSON.stringify(chunk).slice(0, 80)).toBe(true);
      }
    }
  });

  it('gives the generated arguments through readUIMessageStream of ai 5 and of ai 7', async () => {
    for (const read of [read5, read7] as ((options: { stream: ReadableStream<unknown>; terminateOnError: boolean }) => AsyncIterable<{ parts: { type: string; state?: string; input?: unknown }[] }>)[]) {
      let messages = 0;
      let last: { parts: { type: string; state?: string; input?: unknown }[] } | undefined;
      for await (const message of read({ stream: uiMessageChunkStream(chunks), terminateOnError: true })) {
        messages++;
        last = message;
      }
      expect(messages).toBeGreaterThan(call.deltas.length);
      const part = last?.parts.find((item) => item.type === 'tool-write_file');
      expect(part?.state).toBe('input-available');
      expect(part?.input).toEqual(call.expected);
    }
  });
});
