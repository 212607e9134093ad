/**
 * Differential test of the provider adapters: for every recording under fixtures/providers/, the
 * turn an independent accumulation of the raw wire records states (wire-accumulators.ts, written
 * from the providers' documentation, sharing nothing with `src/`) must be the turn
 * `collectTurn(ProviderEventStream)` assembles, with the bytes fed whole and at random cuts, and
 * the records fed as the objects an SDK yields. LangChain.js objects (`langchain/`) have no wire:
 * their oracle is LangChain's own reading of them (langchain-accumulator.ts).
 */
import { describe, expect, it } from 'vitest';
import type { ProviderName } from '../../src/errors.ts';
import { collectTurn, type Turn } from '../../src/sinks/collect-turn.ts';
import { ProviderEventStream, type ProviderEventStreamInput } from '../../src/transforms/provider-event-stream.ts';
import { randomCuts, readFixture, rng, streamOf } from '../helpers.ts';
import { readManifest } from '../manifest.ts';
import {
  WireError,
  type WireTurn,
  agUiTurn,
  type WireUsage,
  anthropicTurn,
  awsEventStreamRecords,
  bedrockTurn,
  cohereTurn,
  geminiInteractionsTurn,
  geminiTurn,
  ndjsonRecords,
  ollamaTurn,
  openAIChatTurn,
  openAIResponsesTurn,
  sseRecords,
} from './wire-accumulators.ts';
import { langChainTurn } from './langchain-accumulator.ts';

/** Each recording folder: the accumulator of its wire format and the provider API it is read as. */
const FORMATS: Readonly<Record<string, { readonly provider: ProviderName; readonly read: (bytes: Uint8Array, file: string) => WireTurn | Promise<WireTurn> }>> = {
  anthropic: { provider: 'anthropic', read: (bytes) => anthropicTurn(textOf(bytes)) },
  'openai-chat': { provider: 'openai-chat', read: (bytes) => openAIChatTurn(textOf(bytes)) },
  'openai-compatible': { provider: 'openai-chat', read: (bytes) => openAIChatTurn(textOf(bytes)) },
  mistral: { provider: 'openai-chat', read: (bytes) => openAIChatTurn(textOf(bytes)) },
  'openai-responses': { provider: 'openai-responses', read: (bytes) => openAIResponsesTurn(textOf(bytes)) },
  gemini: { provider: 'gemini', read: (bytes) => geminiTurn(textOf(bytes)) },
  ollama: { provider: 'ollama', read: (bytes) => ollamaTurn(textOf(bytes)) },
  bedrock: {
    provider: 'bedrock',
    read: (bytes, file) => bedrockTurn(file.endsWith('.eventstream') ? awsEventStreamRecords(bytes) : ndjsonRecords(textOf(bytes))),
  },
  cohere: { provider: 'cohere', read: (bytes) => cohereTurn(textOf(bytes)) },
  'ag-ui': { provider: 'ag-ui', read: (bytes) => agUiTurn(textOf(bytes)) },
  langchain: { provider: 'langchain', read: (bytes) => langChainTurn(ndjsonRecords(textOf(bytes))) },
  'gemini-interactions': { provider: 'gemini-interactions', read: (bytes) => geminiInteractionsTurn(textOf(bytes)) },
};

function textOf(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}

/** The recordings: every manifest file but the decoded twins of the Bedrock captures. */
const RECORDINGS = readManifest().filter((r) => !r.file.endsWith('.decoded.jsonl'));

// ---------------------------------------------------------------------------------------------
// What is compared.

interface ComparedCall {
  readonly id: unknown;
  readonly name: string;
  readonly arguments?: unknown;
  readonly result?: unknown;
}

/** The parts of a turn both sides state. */
interface Compared {
  readonly text: string;
  readonly reasoning: string;
  readonly refusal: string | undefined;
  readonly toolCalls: readonly ComparedCall[];
  /** Calls cut before their arguments were complete: identity only. */
  readonly incompleteToolCalls: readonly ComparedCall[];
  readonly providerToolCalls: readonly ComparedCall[];
  readonly finishReason: string | undefined;
  readonly usage: WireUsage | undefined;
}

/**
 * Where a provider-run call's arguments and result are compared too: the wire states them
 * (Anthropic's server tool input and result blocks, Gemini's `executableCode` and
 * `codeExecutionResult`). Of OpenAI's hosted calls, the identity is compared.
 */
const DETAILED_PROVIDER_CALLS: ReadonlySet<string> = new Set(['anthropic', 'gemini', 'gemini-interactions']);

/** An id the adapter made up where the wire has none: any non-empty string. */
const ANY_ID = expect.stringMatching(/./);

/**
 * The wire's turn as compared. Where the wire lacks a call id the adapter makes one; where it
 * lacks `totalTokens` the adapter adds input and output. `outputTokens` counts reasoning tokens
 * too, as OpenAI's `completion_tokens` and Anthropic's `output_tokens` do: Gemini states its
 * `thoughtsTokenCount` apart from `candidatesTokenCount`, so they are added.
 */
function fromWire(wire: WireTurn, dir: string): Compared {
  const call = (c: WireTurn['toolCalls'][number], withArguments = true): ComparedCall => ({
    id: c.id === '' ? ANY_ID : c.id,
    name: c.name,
    ...(withArguments ? { arguments: c.arguments } : {}),
    ...(c.result !== undefined ? { result: c.result } : {}),
  });
  let usage = wire.usage === undefined ? undefined : { ...wire.usage };
  if (usage !== undefined && (dir === 'gemini' || dir === 'gemini-interactions') && usage.reasoningTokens !== undefined) {
    usage.outputTokens = (usage.outputTokens ?? 0) + usage.reasoningTokens;
  }
  if (usage?.totalTokens === undefined && usage?.inputTokens !== undefined && usage.outputTokens !== undefined) {
    usage = { ...usage, totalTokens: usage.inputTokens + usage.outputTokens };
  }
  return {
    text: wire.text,
    reasoning: wire.reasoning,
    refusal: wire.refusal,
    toolCalls: wire.toolCalls.filter((c) => c.complete).map((c) => call(c)),
    incompleteToolCalls: wire.toolCalls.filter((c) => !c.complete).map((c) => call(c, false)),
    providerToolCalls: wire.serverToolCalls.map((c) => call(c, DETAILED_PROVIDER_CALLS.has(dir))),
    finishReason: wire.finishReason,
    usage,
  };
}

/** The adapter's turn as compared. */
function fromTurn(turn: Turn, dir: string): Compared {
  const { raw: _raw, ...usage } = turn.usage ?? {};
  return {
    text: turn.text,
    reasoning: turn.reasoning,
    refusal: turn.refusal,
    toolCalls: turn.toolCalls.map((c) => ({ id: c.toolCallId, name: c.toolName, arguments: c.arguments })),
    incompleteToolCalls: turn.incompleteToolCalls.map((c) => ({ id: c.toolCallId, name: c.toolName })),
    providerToolCalls: turn.providerToolCalls.map((c) => ({
      id: c.toolCallId,
      name: c.toolName,
      ...(DETAILED_PROVIDER_CALLS.has(dir) ? { arguments: c.arguments, ...(c.result !== undefined ? { result: c.result } : {}) } : {}),
    })),
    finishReason: turn.rawFinishReason,
    usage: turn.usage === undefined ? undefined : usage,
  };
}

/**
 * Where an adapter does not do yet what the wire says, by recording: how its turn differs from
 * the wire's, each named after the bullet of "Provider fidelity" that fixes it. The test asserts
 * this difference exactly, so a fix shows up as a failure here to delete the entry.
 */
const PENDING: Readonly<Record<string, { readonly bullet: string; readonly turn: (wire: Compared) => Compared }>> = {};

/**
 * Where an oracle that is the ecosystem's own reader states less than its recording does, by
 * recording: what it lost and where. `@langchain/core` 1.4.0's conversion of OpenAI Chat chunks to
 * content-block events (`openai_completions_stream.js`: `if (rawToolCall.id != null) acc.id =
 * rawToolCall.id`) lets a continuation's `id: ""` (Qwen) replace the call's id, so its
 * `content-block-finish` and the message `ChatModelStream` assembles carry `id: ''`; the
 * `content-block-start` before it has the id, which argstream keeps. Asserted exactly: a fix
 * upstream fails here, to delete the entry.
 */
const ORACLE_LOSSES: Readonly<Record<string, string>> = {
  'langchain/openai-compatible-qwen-dashscope-empty-string-ids.protocol.jsonl': 'the call id',
  'langchain/openai-compatible-qwen-dashscope-empty-string-ids.graph-protocol.jsonl': 'the call id',
};

// ---------------------------------------------------------------------------------------------
// Running both sides.

async function adapterTurn(provider: ProviderName, chunks: readonly ProviderEventStreamInput[], dir: string): Promise<Compared> {
  const turn = await collectTurn(streamOf(chunks).pipeThrough(new ProviderEventStream({ provider })));
  return fromTurn(turn, dir);
}

/**
 * The input a recording is fed as: whole, at random cuts, and as the objects an SDK yields (each
 * SSE event's parsed `data`, each NDJSON line, each element of a JSON array stream; a `.jsonl`
 * file is SDK objects already).
 */
function feeds(bytes: Uint8Array, file: string): Array<[string, ProviderEventStreamInput[]]> {
  if (file.endsWith('.jsonl')) return [['SDK objects', ndjsonRecords(textOf(bytes))]];
  const objects: Array<[string, ProviderEventStreamInput[]]> = file.endsWith('.sse')
    ? [['SDK objects', sseRecords(textOf(bytes)).map((r) => r.data)]]
    : file.endsWith('.ndjson')
      ? [['SDK objects', ndjsonRecords(textOf(bytes))]]
      : file.endsWith('.json')
        ? [['SDK objects', JSON.parse(textOf(bytes)) as object[]]]
        : [];
  return [
    ['whole', [bytes]],
    ...[11, 12, 13].map((seed): [string, ProviderEventStreamInput[]] => [`random cuts (seed ${seed})`, randomCuts(bytes, rng(seed), 12)]),
    ...objects,
  ];
}

describe('differential: an independent accumulation of the wire agrees with collectTurn', () => {
  it('has an accumulator for every recording folder', () => {
    expect(RECORDINGS.length).toBeGreaterThanOrEqual(50);
    for (const r of RECORDINGS) expect(Object.keys(FORMATS)).toContain(r.dir);
  });

  for (const recording of RECORDINGS) {
    const format = FORMATS[recording.dir];
    if (format === undefined) continue;
    const { provider } = format;
    const pending = PENDING[recording.file];

    it(`${recording.file}${pending ? ` (pending: ${pending.bullet})` : ''}`, async () => {
      const bytes = readFixture(`providers/${recording.file}`);
      let wire: Compared | WireError;
      try {
        wire = fromWire(await format.read(bytes, recording.file), recording.dir);
      } catch (error) {
        if (!(error instanceof WireError)) throw error;
        wire = error;
      }
      for (const [label, chunks] of feeds(bytes, recording.file)) {
        if (wire instanceof WireError) {
          // The stream carries an error: the turn fails with the provider's message.
          await expect(adapterTurn(provider, chunks, recording.dir), label).rejects.toThrow(wire.message);
          continue;
        }
        const expected = pending ? pending.turn(wire) : wire;
        expect(await adapterTurn(provider, chunks, recording.dir), label).toEqual(expected);
      }
    });
  }
});

describe('differential: structured output is the JSON of the message text', () => {
  // The recordings of a request that asked for JSON output, read with `structuredOutput`.
  for (const recording of RECORDINGS.filter((r) => /structured-output|format-json-schema/.test(r.file))) {
    const format = FORMATS[recording.dir];
    if (format === undefined) continue;
    const { provider } = format;
    it(recording.file, async () => {
      const bytes = readFixture(`providers/${recording.file}`);
      const wire = await format.read(bytes, recording.file);
      for (const [label, chunks] of feeds(bytes, recording.file)) {
        const turn = await collectTurn(streamOf(chunks).pipeThrough(new ProviderEventStream({ provider, structuredOutput: true })));
        expect(turn.structured, label).toEqual(JSON.parse(wire.text));
        expect(turn.text, label).toBe('');
        expect(turn.reasoning, label).toBe(wire.reasoning);
      }
    });
  }
});

describe('differential: hand-written streams of what no recording holds yet', () => {
  // Gemini's code execution, shaped as its documentation shows it: text, the code, its result, text.
  const chunk = (parts: object[], candidate: object = {}, response: object = {}) =>
    `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts }, ...candidate }], ...response })}\r\n\r\n`;
  const geminiCodeExecution =
    chunk([{ text: 'Let me compute that.' }]) +
    chunk([{ executableCode: { language: 'PYTHON', code: 'print(sum(range(1, 51)))' } }]) +
    chunk([{ codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1275\n' } }]) +
    chunk([{ text: 'The sum is 1275.' }], { finishReason: 'STOP' }, { usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 30, totalTokenCount: 42 } });

  it('gemini code execution', async () => {
    const bytes = new TextEncoder().encode(geminiCodeExecution);
    const wire = fromWire(geminiTurn(geminiCodeExecution), 'gemini');
    expect([wire.text, wire.finishReason, wire.usage?.totalTokens]).toEqual(['Let me compute that.The sum is 1275.', 'STOP', 42]);
    expect(wire.providerToolCalls).toEqual([
      { id: ANY_ID, name: 'code_execution', arguments: { language: 'PYTHON', code: 'print(sum(range(1, 51)))' }, result: { outcome: 'OUTCOME_OK', output: '1275\n' } },
    ]);
    for (const [label, chunks] of feeds(bytes, 'code-execution.sse')) {
      expect(await adapterTurn('gemini', chunks, 'gemini'), label).toEqual(wire);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The accumulators themselves, against the manifest (written by hand from the recordings).

describe('the accumulators agree with the manifest', () => {
  for (const recording of RECORDINGS) {
    const format = FORMATS[recording.dir];
    if (format === undefined || recording.errors !== undefined) continue;
    it(recording.file, async () => {
      const wire = await format.read(readFixture(`providers/${recording.file}`), recording.file);
      if (ORACLE_LOSSES[recording.file] !== undefined) {
        // The oracle lost the ids the recording holds (see ORACLE_LOSSES): '' where the manifest has one.
        expect(wire.toolCalls.map((c) => c.id)).toEqual(recording.toolCalls.map(() => ''));
        wire.toolCalls = wire.toolCalls.map((c, i) => ({ ...c, id: recording.toolCalls[i]?.id ?? c.id }));
      }
      const same = (calls: WireTurn['toolCalls'], expected: typeof recording.toolCalls): void => {
        expect(calls.map((c) => ({ id: c.id, name: c.name }))).toEqual(expected.map((c) => ({ id: c.id, name: c.name })));
        expected.forEach((call, i) => {
          const wireCall = calls[i];
          // A Responses hosted call's arguments are left to the adapter's own tests.
          if (wireCall?.arguments === undefined) return;
          if (wireCall.complete) expect(wireCall.arguments).toEqual(call.args === '' ? {} : JSON.parse(call.args));
          else expect(wireCall.arguments).toBe(call.args);
        });
      };
      same(wire.toolCalls, recording.toolCalls);
      same(wire.serverToolCalls, recording.providerToolCalls);
      // The manifest quotes the raw finish reason (a JSON string, or a map per choice); AG-UI's
      // RUN_FINISHED has none (its manifest names the event).
      if (recording.finish !== '' && recording.dir !== 'ag-ui') {
        const finish = JSON.parse(recording.finish) as unknown;
        expect(wire.finishReason).toBe(typeof finish === 'string' ? finish : (finish as Record<string, string>)['0']);
      }
    });
  }
});
