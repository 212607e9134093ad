import { crc32 as zlibCrc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/errors.ts';
import type { FinishReason } from '../../src/types.ts';
import { cuttings } from '../helpers.ts';
import { type ManifestRecording, manifestRecordings } from '../manifest.ts';
import {
  type Assembly,
  assembleEvents,
  bytesOf,
  concatBytes,
  encodeFrame,
  eventFrame,
  eventsOf,
  frameOffsets,
  runStream,
  sdkObjectsOf,
  unflushedSlots,
} from './event-stream-helpers.ts';


/** Bedrock stop reasons and what they normalize to (from the API reference). */
const FINISH: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool-calls',
  max_tokens: 'length',
  guardrail_intervened: 'content-filter',
  content_filtered: 'content-filter',
};

type Payload = { contentBlockIndex?: number; delta?: { text?: string; reasoningContent?: { text?: string; signature?: string } } };

/** Test-side oracle: text, reasoning and signature per contentBlockIndex, from SDK-shaped objects. */
function blockTexts(objects: readonly object[]): Map<number, { text: string; reasoning: string; signature: string }> {
  const blocks = new Map<number, { text: string; reasoning: string; signature: string }>();
  for (const object of objects as Array<{ contentBlockDelta?: Payload }>) {
    const payload = object.contentBlockDelta;
    if (payload?.contentBlockIndex === undefined) continue;
    const block = blocks.get(payload.contentBlockIndex) ?? { text: '', reasoning: '', signature: '' };
    blocks.set(payload.contentBlockIndex, block);
    block.text += payload.delta?.text ?? '';
    block.reasoning += payload.delta?.reasoningContent?.text ?? '';
    block.signature += payload.delta?.reasoningContent?.signature ?? '';
  }
  return blocks;
}

function expectManifest(assembly: Assembly, recording: ManifestRecording, objects: readonly object[]): void {
  expect(unflushedSlots(assembly)).toEqual([]);
  expect(assembly.toolCalls.map((c) => ({ id: c.id, name: c.name, index: c.index, args: c.args }))).toEqual(
    recording.toolCalls.map((c) => ({ id: c.id, name: c.name, index: c.index, args: c.args })),
  );
  const rawReason = JSON.parse(recording.finish) as string;
  expect(assembly.finished).toMatchObject({ reason: FINISH[rawReason], rawReason });
  for (const [index, block] of blockTexts(objects)) {
    const slot = assembly.slots.find((s) => s.index === index);
    expect(slot?.text).toBe(block.text);
    expect(slot?.reasoning).toBe(block.reasoning);
    expect(slot?.flushMetadata?.signature).toBe(block.signature === '' ? undefined : block.signature);
  }
}

describe('ProviderEventStream with provider bedrock, on every recording', () => {
  const recordings = manifestRecordings('bedrock');

  it('ProviderEventStream covers every Bedrock recording of the manifest', () => {
    expect(recordings.map((r) => r.file)).toEqual([
      'bedrock/text-then-tool-use.eventstream',
      'bedrock/text-then-tool-use.decoded.jsonl',
      'bedrock/reasoning-signature-then-text.eventstream',
      'bedrock/reasoning-signature-then-text.decoded.jsonl',
      'bedrock/handwritten-text-then-2-tool-use.jsonl',
    ]);
  });

  for (const recording of recordings.filter((r) => r.file.endsWith('.eventstream'))) {
    describe(recording.file, () => {
      const bytes = bytesOf(recording.file);
      const twin = recording.file.replace('.eventstream', '.decoded.jsonl');
      const objects = sdkObjectsOf(twin);

      it('ProviderEventStream reads as many frames as the decoded twin has lines', () => {
        expect(frameOffsets(bytes)).toHaveLength(objects.length);
      });

      for (const seed of [1, 2, 3]) {
        for (const [cutting, chunks] of cuttings(bytes, seed)) {
          if (seed > 1 && cutting !== `random cuts (seed ${seed})`) continue;
          it(`ProviderEventStream assembles the manifest's tool calls, texts and finish (${cutting})`, async () => {
            expectManifest(assembleEvents(await eventsOf('bedrock', chunks)), recording, objects);
          });
        }
      }

      it('ProviderEventStream gives the same events for the SDK objects of the decoded twin as for the bytes', async () => {
        const fromBytes = await eventsOf('bedrock', [bytes]);
        const fromObjects = await eventsOf('bedrock', objects);
        expect(fromObjects).toEqual(fromBytes);
        expectManifest(assembleEvents(fromObjects), recordings.find((r) => r.file === twin) as ManifestRecording, objects);
      });

      it('ProviderEventStream reads frames cut at every split point', async () => {
        const whole = await eventsOf('bedrock', [bytes]);
        for (let at = 1; at < bytes.length; at += 7) {
          expect(await eventsOf('bedrock', [bytes.subarray(0, at), bytes.subarray(at)])).toEqual(whole);
        }
      });
    });
  }

  describe('bedrock/handwritten-text-then-2-tool-use.jsonl', () => {
    const recording = recordings.find((r) => r.file === 'bedrock/handwritten-text-then-2-tool-use.jsonl') as ManifestRecording;
    const objects = sdkObjectsOf(recording.file);
    const frames = concatBytes(
      objects.map((object) => {
        const [name, payload] = Object.entries(object)[0] as [string, unknown];
        return eventFrame(name, payload);
      }),
    );

    it("ProviderEventStream assembles the SDK objects to the manifest's tool calls, with usage sent before messageStop", async () => {
      const assembly = assembleEvents(await eventsOf('bedrock', objects));
      expectManifest(assembly, recording, objects);
      expect(assembly.finished?.usage).toEqual({
        inputTokens: 500,
        outputTokens: 100,
        totalTokens: 600,
        raw: { inputTokens: 500, outputTokens: 100, totalTokens: 600 },
      });
    });

    for (const [cutting, chunks] of cuttings(frames)) {
      it(`ProviderEventStream assembles the same calls encoded as frames (${cutting})`, async () => {
        expect(await eventsOf('bedrock', chunks)).toEqual(await eventsOf('bedrock', objects));
      });
    }
  });
});

describe('ProviderEventStream with provider bedrock, details', () => {
  const file = 'bedrock/text-then-tool-use.eventstream';

  it('ProviderEventStream keeps Nova <thinking> text as text and reports usage after messageStop', async () => {
    const events = await eventsOf('bedrock', [bytesOf(file)]);
    const { slots, finished } = assembleEvents(events);
    expect(slots[0]?.kinds).toEqual(['message']);
    expect(slots[0]?.text.startsWith('<thinking>')).toBe(true);
    expect(finished).toEqual({
      type: 'finished',
      reason: 'tool-calls',
      rawReason: 'tool_use',
      usage: { inputTokens: 471, outputTokens: 91, totalTokens: 562, raw: { inputTokens: 471, outputTokens: 91, totalTokens: 562 } },
      metadata: { metrics: { latencyMs: 422 } },
    });
  });

  it('ProviderEventStream delivers the frames before a corrupted one, then errors with crc-mismatch', async () => {
    const bytes = bytesOf(file);
    const offsets = frameOffsets(bytes);
    const third = offsets[2] as number;
    const fourth = offsets[3] as number;
    const corrupt = bytes.slice();
    corrupt[fourth - 10] = (corrupt[fourth - 10] as number) ^ 0x01; // a payload byte of the third frame
    // The clean prefix is cut before messageStop: it errors with truncated, after its events.
    const { events: before, error: cut } = await runStream('bedrock', [bytes.subarray(0, third)]);
    expect(cut).toMatchObject({ provider: 'bedrock', type: 'invalid-stream', code: 'truncated' });
    const { events, error } = await runStream('bedrock', [corrupt]);
    expect(before.length).toBeGreaterThan(0);
    // The end() of the clean prefix flushed slot 0; the corrupt run never reaches end().
    expect(events).toEqual(before.filter((e) => e.type === 'part'));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'bedrock', type: 'invalid-stream', code: 'crc-mismatch' });
    expect((error as Error).message).toMatch(/message CRC/);

    const corruptPrelude = bytes.slice();
    corruptPrelude[third + 2] = (corruptPrelude[third + 2] as number) ^ 0x40;
    const prelude = await runStream('bedrock', [corruptPrelude]);
    expect(prelude.error).toMatchObject({ code: 'crc-mismatch', message: expect.stringMatching(/prelude CRC/) });
  });

  it('ProviderEventStream errors with truncated when the body stops inside a frame', async () => {
    const bytes = bytesOf(file);
    const offsets = frameOffsets(bytes);
    const cut = (offsets[3] as number) + 20;
    const { events, error } = await runStream('bedrock', [bytes.subarray(0, cut)]);
    expect(events.filter((e) => e.type === 'part')).toHaveLength(2);
    expect(error).toMatchObject({ provider: 'bedrock', type: 'invalid-stream', code: 'truncated' });
  });

  it('ProviderEventStream delivers the events before an exception frame, then errors with its type and message', async () => {
    const body = concatBytes([
      eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hel' }, p: 'abc' }),
      eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'lo' } }),
      encodeFrame(
        { ':exception-type': 'throttlingException', ':content-type': 'application/json', ':message-type': 'exception' },
        new TextEncoder().encode('{"message":"Too many requests, please wait before trying again."}'),
      ),
    ]);
    for (const [cutting, chunks] of cuttings(body)) {
      const { events, error } = await runStream('bedrock', chunks);
      expect(events, cutting).toEqual([
        { type: 'part', index: 0, part: { type: 'message', text: 'Hel' } },
        { type: 'part', index: 0, part: { type: 'message', text: 'lo' } },
      ]);
      expect(error, cutting).toBeInstanceOf(ProviderError);
      expect(error, cutting).toMatchObject({
        provider: 'bedrock',
        type: 'throttlingException',
        message: 'Too many requests, please wait before trying again.',
      });
    }
    const sdk = await runStream('bedrock', [{ modelStreamErrorException: { message: 'bad', originalStatusCode: 500 } }]);
    expect(sdk.error).toMatchObject({ type: 'modelStreamErrorException', code: '500', message: 'bad' });
  });

  it('ProviderEventStream errors at once on a frame longer than maxBufferedBytes', async () => {
    // A prelude claiming 2 GiB, correctly signed, so that only the length is wrong.
    const prelude = new Uint8Array(12);
    const view = new DataView(prelude.buffer);
    view.setUint32(0, 0x80000000);
    view.setUint32(4, 0);
    view.setUint32(8, zlibCrc32(prelude.subarray(0, 8)));
    const { error } = await runStream('bedrock', [prelude]);
    expect(error).toMatchObject({ type: 'invalid-stream', code: 'max-buffered-bytes' });
  });

  it('ProviderEventStream refuses text for Bedrock, whose framing is binary', async () => {
    const { error } = await runStream('bedrock', ['{"messageStart":{}}']);
    expect(error).toMatchObject({ type: 'invalid-stream', code: 'invalid-input' });
  });

  it('ProviderEventStream keeps redacted reasoning and citations in the flush and ignores unknown events', async () => {
    const events = await eventsOf('bedrock', [
      { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { redactedContent: 'b3BhcXVl' } } } },
      { somethingNew: { x: 1 } },
      { contentBlockStop: { contentBlockIndex: 0 } },
      { contentBlockDelta: { contentBlockIndex: 1, delta: { text: 'See [1].' } } },
      { contentBlockDelta: { contentBlockIndex: 1, delta: { citation: { title: 'doc' } } } },
      { messageStop: { stopReason: 'guardrail_intervened' } },
    ]);
    expect(events).toEqual([
      { type: 'flush', index: 0, metadata: { redactedContent: ['b3BhcXVl'] } },
      { type: 'part', index: 1, part: { type: 'message', text: 'See [1].' } },
      { type: 'flush', index: 1, metadata: { citations: [{ title: 'doc' }] } },
      { type: 'finished', reason: 'content-filter', rawReason: 'guardrail_intervened' },
    ]);
  });
});
