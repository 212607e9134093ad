/**
 * `collectTurn` after `ProviderEventStream` on every recording of the provider APIs: the
 * turn's tool calls, text, reasoning, finish reason and errors against the MANIFEST and against
 * test-side oracles read from the decoded records — for the bytes whole, byte by byte and at
 * random cuts, and for the objects an SDK yields.
 */
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/errors.ts';
import { collectTurn, type Turn } from '../../src/sinks/collect-turn.ts';
import { ProviderEventStream, type ProviderEventStreamInput } from '../../src/transforms/provider-event-stream.ts';
import type { FinishReason } from '../../src/types.ts';
import { cuttings, readFixture, streamOf } from '../helpers.ts';
import { args, recordingSource, start } from '../helpers.ts';
import { ToolCallArgumentsError } from '../../src/errors.ts';
import { type ManifestRecording, readManifest } from '../manifest.ts';
import { manifestError, PROVIDER_OF_DIR, readableRecordings, recordingInput, sdkObjectsOf, streamCuttings } from '../providers/event-stream-helpers.ts';

/** Each API's raw finish reasons and what they normalize to (from the API references). */
const FINISH: Readonly<Record<string, Readonly<Record<string, FinishReason>>>> = {
  anthropic: { end_turn: 'stop', tool_use: 'tool-calls', max_tokens: 'length', refusal: 'refusal' },
  'openai-chat': { stop: 'stop', tool_calls: 'tool-calls', length: 'length' },
  // Responses, Gemini and Ollama say `completed` / `STOP` / `stop` whether or not the model called tools.
  'openai-responses': { completed: 'stop' },
  gemini: { STOP: 'stop' },
  ollama: { stop: 'stop' },
  bedrock: { end_turn: 'stop', tool_use: 'tool-calls' },
  cohere: { COMPLETE: 'stop', TOOL_CALL: 'tool-calls', MAX_TOKENS: 'length' },
  // AG-UI's RUN_FINISHED states no finish reason: tool-calls when the run left calls unanswered.
  'ag-ui': { RUN_FINISHED: 'stop' },
  'gemini-interactions': { completed: 'stop', requires_action: 'tool-calls', incomplete: 'length' },
};

/**
 * Every wire recording. LangChain's objects (`langchain/`) have no wire format whose texts this
 * file's oracle reads: langchain.test.ts holds their turns to the turn of the provider recording
 * they were made from, and differential.test.ts to LangChain's own reading of them.
 */
const RECORDINGS = readManifest().filter((r) => r.dir in PROVIDER_OF_DIR && r.dir !== 'langchain');

async function turnOf(recording: ManifestRecording, chunks: readonly ProviderEventStreamInput[]): Promise<Turn> {
  const provider = PROVIDER_OF_DIR[recording.dir];
  if (provider === undefined) throw new Error(`no provider for ${recording.dir}`);
  return collectTurn(streamOf(chunks).pipeThrough(new ProviderEventStream({ provider })));
}

/** The recording's raw final stop/finish reason, from the manifest (choice 0 for chat). */
function rawFinish(recording: ManifestRecording): string {
  const finish = JSON.parse(recording.finish) as string | Record<string, string>;
  return typeof finish === 'string' ? finish : (finish['0'] as string);
}

/** The manifest's arguments as values: `JSON.parse` of the assembled text, `{}` for none. */
function manifestArguments(recording: ManifestRecording): unknown[] {
  return recording.toolCalls.map((c) => (c.args === '' ? {} : (JSON.parse(c.args) as unknown)));
}

type Texts = { messages: string[]; reasoning: string[]; refusals: string[] };

/**
 * Test-side oracle of the texts: per content slot, the concatenated text and reasoning deltas of
 * the decoded records, read by the wire formats' documented fields (independent of the adapters).
 */
function oracleTexts(recording: ManifestRecording, objects: readonly object[]): Texts {
  const messages = new Map<string, string>();
  const reasoning = new Map<string, string>();
  const refusals = new Map<string, string>();
  const add = (map: Map<string, string>, key: string, text: unknown): void => {
    if (typeof text === 'string' && text !== '') map.set(key, (map.get(key) ?? '') + text);
  };
  for (const object of objects as Array<Record<string, any>>) {
    switch (PROVIDER_OF_DIR[recording.dir]) {
      case 'anthropic':
        // Blocks a message_start already carries whole (programmatic tool calling).
        if (object.type === 'message_start') {
          for (const [i, block] of (object.message?.content ?? []).entries()) {
            add(messages, `${i}`, block.text);
            add(reasoning, `${i}`, block.thinking);
          }
        }
        if (object.type === 'content_block_delta') {
          add(messages, `${object.index}`, object.delta?.text);
          add(reasoning, `${object.index}`, object.delta?.thinking);
        }
        break;
      case 'openai-chat':
        for (const choice of object.choices ?? []) {
          const delta = choice.delta ?? {};
          if (typeof delta.content === 'string') add(messages, `${choice.index}/content`, delta.content);
          // Mistral's content chunks: `thinking` items carry reasoning, `text` items text.
          for (const item of Array.isArray(delta.content) ? delta.content : []) {
            if (item.type === 'text') add(messages, `${choice.index}/content`, item.text);
            for (const inner of item.type === 'thinking' ? item.thinking : []) add(reasoning, `${choice.index}`, inner.text);
          }
          add(refusals, `${choice.index}`, delta.refusal);
          add(reasoning, `${choice.index}`, delta.reasoning_content ?? delta.reasoning);
        }
        break;
      case 'openai-responses':
        if (object.type === 'response.output_text.delta') add(messages, `${object.output_index}`, object.delta);
        // The final text of `output_text.done` wins over the deltas.
        if (object.type === 'response.output_text.done') messages.set(`${object.output_index}`, object.text);
        if (object.type === 'response.refusal.delta') add(refusals, `${object.output_index}/${object.content_index}`, object.delta);
        if (object.type === 'response.reasoning_summary_text.delta' || object.type === 'response.reasoning_text.delta') {
          add(reasoning, `${object.output_index}`, object.delta);
        }
        break;
      case 'gemini':
        for (const candidate of object.candidates ?? []) {
          for (const part of candidate.content?.parts ?? []) add(part.thought ? reasoning : messages, `${candidate.index ?? 0}`, part.text);
        }
        break;
      case 'ollama':
        add(messages, 'content', object.message?.content ?? object.response);
        add(reasoning, 'thinking', object.message?.thinking);
        break;
      case 'ag-ui':
        // Assistant text and reasoning, by message (a chunk without an id continues the last one).
        if (object.type === 'TEXT_MESSAGE_CONTENT' || object.type === 'TEXT_MESSAGE_CHUNK') add(messages, `${object.messageId ?? [...messages.keys()].at(-1)}`, object.delta);
        if (object.type === 'REASONING_MESSAGE_CONTENT' || object.type === 'REASONING_MESSAGE_CHUNK') add(reasoning, `${object.messageId ?? [...reasoning.keys()].at(-1)}`, object.delta);
        break;
      case 'cohere':
        // The tool plan (the model's plan before it calls tools) is reasoning; content is text or thinking.
        if (object.type === 'tool-plan-delta') add(reasoning, 'plan', object.delta?.message?.tool_plan);
        if (object.type === 'content-start' || object.type === 'content-delta') {
          add(messages, `${object.index}`, object.delta?.message?.content?.text);
          add(reasoning, `content/${object.index}`, object.delta?.message?.content?.thinking);
        }
        break;
      case 'gemini-interactions': {
        // Steps (and the earlier revision's contents) by index: `text` deltas are text, a thought's
        // summaries reasoning; a thought that is only a signature is a reasoning of no text.
        const delta = object.delta ?? {};
        const start = object.step ?? object.content;
        if (start?.type === 'text') add(messages, `${object.index}`, start.text);
        if (delta.type === 'text') add(messages, `${object.index}`, delta.text);
        if (delta.type === 'thought_summary') add(reasoning, `${object.index}`, delta.content?.text);
        if (delta.type === 'thought_signature' && !reasoning.has(`${object.index}`)) reasoning.set(`${object.index}`, '');
        break;
      }
      case 'bedrock': {
        const delta = object.contentBlockDelta;
        if (delta !== undefined) {
          add(messages, `${delta.contentBlockIndex}`, delta.delta?.text);
          add(reasoning, `${delta.contentBlockIndex}`, delta.delta?.reasoningContent?.text);
        }
        break;
      }
    }
  }
  return { messages: [...messages.values()], reasoning: [...reasoning.values()], refusals: [...refusals.values()] };
}

/** What every turn of a recording without an error must hold. */
function expectTurn(recording: ManifestRecording, turn: Turn, texts: Texts): void {
  const provider = PROVIDER_OF_DIR[recording.dir] as string;
  expect(turn.incompleteToolCalls).toEqual([]);
  expect(turn.failedToolCalls).toEqual([]);
  expect(turn.toolCalls.map((c) => c.toolName)).toEqual(recording.toolCalls.map((c) => c.name));
  expect(turn.toolCalls.map((c) => c.arguments)).toEqual(manifestArguments(recording));
  for (const call of turn.toolCalls) expect(call.truncated).toBeUndefined();
  // Ids: the wire's where it has them; generated ones (Gemini, Ollama) non-empty and distinct.
  const ids = turn.toolCalls.map((c) => c.toolCallId);
  recording.toolCalls.forEach((expected, i) => {
    if (expected.id !== '') expect(ids[i]).toBe(expected.id);
    else expect(ids[i]).toMatch(/\S/);
  });
  expect(new Set(ids).size).toBe(ids.length);

  const messages = turn.events.flatMap((e) => (e.type === 'message' ? [e.text] : []));
  const reasoning = turn.events.flatMap((e) => (e.type === 'reasoning' ? [e.text] : []));
  expect([...messages].sort()).toEqual([...texts.messages].sort());
  expect([...reasoning].sort()).toEqual([...texts.reasoning].sort());
  expect(turn.text).toBe(messages.join(''));
  expect(turn.reasoning).toBe(reasoning.join(''));

  // Refusal text is its own event, never message text; a refusal stop reason without text of its
  // own (Anthropic) makes the turn's text the refusal.
  const refusals = turn.events.flatMap((e) => (e.type === 'refusal' ? [e.text] : []));
  expect(refusals).toEqual(texts.refusals);
  const refusedByStop = FINISH[provider]?.[rawFinish(recording)] === 'refusal';
  expect(turn.refusal).toBe(refusals.length > 0 ? refusals.join('') : refusedByStop ? turn.text : undefined);

  // Calls the provider ran are never the application's: apart, with the result the stream carried.
  expect(turn.providerToolCalls.map((c) => [c.toolCallId, c.toolName])).toEqual(recording.providerToolCalls.map((c) => [c.id, c.name]));
  expect(turn.providerToolCalls.map((c) => c.arguments)).toEqual(
    recording.providerToolCalls.map((c) => (c.args === '' ? {} : (JSON.parse(c.args) as unknown))),
  );
  // Every provider-run call of the recordings has its result in the stream.
  for (const call of turn.providerToolCalls) {
    expect(call.result).toBeDefined();
    expect(call.incomplete).toBeUndefined();
  }

  const raw = rawFinish(recording);
  const reasons = FINISH[provider] as Record<string, FinishReason>;
  const saysToolCalls = provider === 'openai-responses' || provider === 'gemini' || provider === 'ollama' || provider === 'ag-ui';
  const normalized = saysToolCalls && recording.toolCalls.length > 0 ? 'tool-calls' : reasons[raw];
  expect(turn.rawFinishReason).toBe(provider === 'ag-ui' ? undefined : raw);
  expect(turn.finishReason).toBe(normalized);
}

/** The cuttings of a recording's bytes (Bedrock's framing is binary: no text cutting). */
function inputCuttings(recording: ManifestRecording): Array<[string, ProviderEventStreamInput[]]> {
  const bytes = readFixture(`providers/${recording.file}`);
  if (recording.dir !== 'bedrock') return streamCuttings(bytes);
  return [2, 3].reduce((all, seed) => [...all, ...cuttings(bytes, seed).slice(2)], cuttings(bytes, 1) as Array<[string, Uint8Array[]]>);
}

describe('collectTurn on every recording of every API', () => {
  it('collectTurn covers every recording', () => {
    expect(RECORDINGS).toHaveLength(readManifest().filter((r) => r.dir !== 'langchain').length);
    expect(new Set(RECORDINGS.map((r) => r.dir))).toEqual(new Set(Object.keys(PROVIDER_OF_DIR).filter((dir) => dir !== 'langchain')));
  });

  // The cut recording has its own tests below.
  for (const recording of RECORDINGS.filter((r) => !r.toolCalls.some((c) => c.remark?.startsWith('NOT valid JSON')))) {
    describe(recording.file, () => {
      const objects = sdkObjectsOf(recording.file);
      const texts = oracleTexts(recording, objects);
      // Only the SDK-shaped Bedrock `.jsonl` files have no wire bytes of their own.
      const wire = !recording.file.endsWith('.jsonl');

      if (recording.errors !== undefined) {
        const expected = manifestError(recording.errors);
        for (const [cutting, chunks] of inputCuttings(recording)) {
          it(`collectTurn rejects with the manifest's ProviderError (${cutting})`, async () => {
            const error: unknown = await turnOf(recording, chunks).then(
              () => undefined,
              (e: unknown) => e,
            );
            expect(error).toBeInstanceOf(ProviderError);
            expect(error).toMatchObject({ provider: PROVIDER_OF_DIR[recording.dir], message: expected.message });
            if (expected.code !== undefined) expect((error as ProviderError).code).toBe(expected.code);
            // AG-UI's RUN_ERROR carries a code and a message, no type.
            if (expected.type !== undefined && recording.dir !== 'ag-ui') expect((error as ProviderError).type).toBe(expected.type);
          });
        }
        return;
      }

      if (wire) {
        for (const [cutting, chunks] of inputCuttings(recording)) {
          it(`collectTurn gives the manifest's tool calls, the texts, reasoning and finish (${cutting})`, async () => {
            expectTurn(recording, await turnOf(recording, chunks), texts);
          });
        }
      }

      it('collectTurn gives the same turn for the objects an SDK yields', async () => {
        const fromObjects = await turnOf(recording, objects);
        expectTurn(recording, fromObjects, texts);
        if (wire) expect(fromObjects).toEqual(await turnOf(recording, [readFixture(`providers/${recording.file}`)]));
      });

      if (recording.toolCalls.some((c) => c.id === '')) {
        it('collectTurn gives generated ids that are the same on every replay and every cutting', async () => {
          const ids = async (chunks: readonly ProviderEventStreamInput[]) => (await turnOf(recording, chunks)).toolCalls.map((c) => c.toolCallId);
          const first = await ids([readFixture(`providers/${recording.file}`)]);
          expect(await ids([readFixture(`providers/${recording.file}`)])).toEqual(first);
          expect(await ids(objects)).toEqual(first);
          for (const [, chunks] of inputCuttings(recording)) expect(await ids(chunks)).toEqual(first);
        });
      }
    });
  }
});

describe('collectTurn on the recordings that stop early', () => {
  const truncated = RECORDINGS.find((r) => r.file === 'anthropic/tool-use-truncated-max-tokens.sse') as ManifestRecording;
  /** What had arrived of the cut arguments (the manifest's text, up to the open string). */
  const partial = {
    filename: 'taxes.txt',
    lines_of_text: ['# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s', '', '## INTRODUCTION', '', 'Filing taxes'],
  };

  it('collectTurn reads the manifest of the truncated recording as cut JSON with a max_tokens stop', () => {
    expect(rawFinish(truncated)).toBe('max_tokens');
    expect(truncated.toolCalls[0]?.remark).toMatch(/^NOT valid JSON/);
    expect(() => JSON.parse(truncated.toolCalls[0]?.args ?? '')).toThrow(SyntaxError);
  });

  for (const [cutting, chunks] of inputCuttings(truncated)) {
    it(`collectTurn reports the cut call as incomplete, with its open path and the stop reason, never as complete (${cutting})`, async () => {
      const turn = await turnOf(truncated, chunks);
      expect(turn.toolCalls).toEqual([]);
      expect(turn.incompleteToolCalls).toEqual([
        {
          type: 'tool-call-incomplete',
          index: 1,
          toolCallId: truncated.toolCalls[0]?.id,
          toolName: truncated.toolCalls[0]?.name,
          partialArguments: partial,
          path: '/lines_of_text/4',
          stopReason: 'max_tokens',
        },
      ]);
      expect([turn.finishReason, turn.rawFinishReason]).toEqual(['length', 'max_tokens']);
      expect(turn.text).toMatch(/^I'll create a comprehensive tax guide/);
    });
  }

  it('collectTurn with repair closes the cut call and marks it truncated', async () => {
    const bytes = readFixture(`providers/${truncated.file}`);
    for (const chunks of [[bytes], sdkObjectsOf(truncated.file)]) {
      const turn = await collectTurn(streamOf<ProviderEventStreamInput>(chunks).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })), {
        repair: true,
      });
      expect(turn.incompleteToolCalls).toEqual([]);
      expect(turn.toolCalls).toEqual([
        { type: 'tool-call', index: 1, toolCallId: truncated.toolCalls[0]?.id, toolName: 'make_file', arguments: partial, truncated: true },
      ]);
      expect(turn.finishReason).toBe('length');
    }
  });

  it('collectTurn reports a length finish without tool calls as just text (openai-chat/finish-length.sse)', async () => {
    const recording = RECORDINGS.find((r) => r.file === 'openai-chat/finish-length.sse') as ManifestRecording;
    const turn = await turnOf(recording, [readFixture(`providers/${recording.file}`)]);
    expect([turn.toolCalls, turn.incompleteToolCalls]).toEqual([[], []]);
    expect([turn.finishReason, turn.rawFinishReason]).toEqual(['length', 'length']);
  });
});

describe('collectTurn on the recordings with errors, fed as SDK objects', () => {
  for (const recording of RECORDINGS.filter((r) => r.errors !== undefined)) {
    it(`collectTurn rejects with the manifest's ProviderError for the objects of ${recording.file}`, async () => {
      const expected = manifestError(recording.errors as string);
      const error: unknown = await turnOf(recording, sdkObjectsOf(recording.file)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ message: expected.message });
      if (expected.code !== undefined) expect((error as ProviderError).code).toBe(expected.code);
    });
  }
});

describe('collectTurn in a process with nothing else to do', () => {
  it('collectTurn settles with the provider error before Node exits (draining never waits on an unref-ed timer)', async () => {
    const { build } = await import('esbuild');
    const { spawnSync } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    const body = new TextDecoder().decode(readFixture('providers/openai-compatible/openrouter-comments-midstream-error.sse'));
    const script = [
      `import { collectTurn } from ${JSON.stringify(fileURLToPath(new URL('../../src/sinks/collect-turn.ts', import.meta.url)))};`,
      `import { ProviderEventStream } from ${JSON.stringify(fileURLToPath(new URL('../../src/transforms/provider-event-stream.ts', import.meta.url)))};`,
      `const body = ${JSON.stringify(body)};`,
      'const stream = new ReadableStream({ start(c) { c.enqueue(body); c.close(); } });',
      "const turn = collectTurn(stream.pipeThrough(new ProviderEventStream({ provider: 'openai-chat' })));",
      "turn.then(() => console.log('resolved'), (error) => console.log(`rejected ${error.name} ${error.message}`));",
    ].join('\n');
    const bundle = await build({ stdin: { contents: script, loader: 'ts', resolveDir: process.cwd() }, bundle: true, format: 'esm', platform: 'node', write: false, logLevel: 'silent' });
    const run = spawnSync(process.execPath, ['--input-type=module', '-'], { input: bundle.outputFiles[0]?.text ?? '', encoding: 'utf8' });
    expect(run.stdout.trim()).toBe('rejected ProviderError Token limit reached');
    expect(run.status).toBe(0);
  });
});

describe('collectTurn when a tool call fails', () => {
  it('collectTurn cancels its source with the error when invalid arguments end the turn', async () => {
    // The source has more to give: a provider body still streaming.
    const { stream, log } = recordingSource([start(0, 'c', 'write_file'), args(0, '{"path" x'), args(0, '}')]);
    const error = await collectTurn(stream).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolCallArgumentsError);
    expect(log.cancelled).toBe(error);
    expect(stream.locked).toBe(false);
  });
});

/** Item and block types of the calls a provider runs itself, by the providers' API references. */
const PROVIDER_RUN_TYPES: ReadonlySet<string> = new Set([
  // Anthropic content blocks.
  'server_tool_use',
  'mcp_tool_use',
  // OpenAI Responses output items (a `shell_call` is the provider's only in a hosted container).
  'web_search_call',
  'file_search_call',
  'code_interpreter_call',
  'image_generation_call',
  'mcp_call',
  // LangChain's standard content blocks (v1, the content-block events).
  'server_tool_call_chunk',
  'server_tool_call',
  // Gemini Interactions steps (Gemini's own tools).
  'code_execution_call',
  'google_search_call',
  'url_context_call',
  'file_search_call',
  'google_maps_call',
  'mcp_server_tool_call',
]);

/** The ids of the provider-run calls anywhere in a recording's records (walked, not adapted). */
function providerRunIds(objects: readonly object[]): Set<string> {
  const ids = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) walk(item);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const record = value as Record<string, unknown>;
    if (typeof record['type'] === 'string' && PROVIDER_RUN_TYPES.has(record['type']) && typeof record['id'] === 'string') ids.add(record['id']);
    if (record['providerExecuted'] === true && typeof record['toolCallId'] === 'string') ids.add(record['toolCallId']);
    for (const member of Object.values(record)) walk(member);
  };
  walk(objects);
  return ids;
}

describe('turn.toolCalls holds only the calls the application runs', () => {
  it('on every recording, no call the provider ran is in turn.toolCalls, and each is in turn.providerToolCalls', async () => {
    let providerRun = 0;
    for (const recording of readableRecordings()) {
      const objects = sdkObjectsOf(recording.file);
      const ids = providerRunIds(objects);
      providerRun += ids.size;
      for (const turn of [await turnOf(recording, recordingInput(recording)), await turnOf(recording, objects)]) {
        expect(turn.toolCalls.filter((call) => ids.has(call.toolCallId)), recording.file).toEqual([]);
        expect(new Set(turn.providerToolCalls.map((call) => call.toolCallId)), recording.file).toEqual(ids);
      }
    }
    // The recordings with server tools (two Anthropic, one Responses web search, one Gemini
    // Interactions code execution), and the eight LangChain recordings made from one of them.
    expect(providerRun).toBe(4 + 8);
  });
});

describe('turn.warnings', () => {
  it('collectTurn gives the finished event’s warnings as they came, and the turn is whole', async () => {
    const warnings = [
      { type: 'sequence-gap', expected: 10, received: 11 },
      { type: 'sequence-gap', expected: 26, received: 29 },
    ] as const;
    const turn = await collectTurn(
      streamOf([start(0, 'call_1', 'get_capital'), args(0, '{"country":'), args(0, '"France"}'), { type: 'flush', index: 0 }, { type: 'finished', reason: 'tool-calls', rawReason: 'completed', warnings }]),
    );
    expect(turn.warnings).toEqual([
      { type: 'sequence-gap', expected: 10, received: 11 },
      { type: 'sequence-gap', expected: 26, received: 29 },
    ]);
    expect(turn.toolCalls.map((c) => [c.toolCallId, c.arguments])).toEqual([['call_1', { country: 'France' }]]);
    expect(turn.finishReason).toBe('tool-calls');
  });

  it('collectTurn gives no warnings for a finished event without them, or no finished event', async () => {
    const finished = await collectTurn(streamOf([{ type: 'finished', reason: 'stop', rawReason: 'completed' }]));
    expect(finished.warnings).toEqual([]);
    const cut = await collectTurn(streamOf([start(0, 'call_1', 'f'), args(0, '{}'), { type: 'flush', index: 0 }]));
    expect(cut.warnings).toEqual([]);
  });

  it('collectTurn gives no warnings on any recording, as recorded', async () => {
    for (const recording of RECORDINGS) {
      // A `.decoded.jsonl` file is the test-side decoding of an `.eventstream` capture (frames
      // with their headers), not an input: read as SDK objects, it is records with no event in them.
      if (recording.errors !== undefined || recording.file.endsWith('.decoded.jsonl')) continue;
      const turn = await turnOf(recording, recordingInput(recording));
      expect(turn.warnings, recording.file).toEqual([]);
    }
  });
});
