/**
 * Records of the wrong shape, for every provider, through `ProviderEventStream` from bytes (the
 * AI SDK's `fullStream` and LangChain's streams, which have no wire format, from objects): a record that is not an object,
 * or a known record missing its members or holding members of the wrong type, ends the stream in
 * a `ProviderError` with type `'invalid-format'` after everything before it — never a `TypeError`
 * or `RangeError` — and a record of a type the adapter does not know is ignored, as a provider may
 * add types later. The `null`s compatible servers send read as absent members. Whole arguments
 * nested too deeply for `JSON.stringify` end the same way.
 */
import { describe, expect, it } from 'vitest';
import { ProviderError, type ProviderName } from '../../src/errors.ts';
import { ProviderEventStream, type ProviderEventStreamInput } from '../../src/transforms/provider-event-stream.ts';
import type { StreamEvent } from '../../src/types.ts';
import { fromResponse } from '../../src/sources/response.ts';
import { settle, streamOf } from '../helpers.ts';
import { eventFrame } from '../providers/event-stream-helpers.ts';

const encoder = new TextEncoder();

/**
 * A record of a provider's stream: its JSON value, or its JSON text as written (`json`: a value
 * too deep for the test's own `JSON.stringify`), and the event name (SSE `event:`, AWS `:event-type`).
 */
type WireRecord = ({ readonly value: unknown; readonly json?: undefined } | { readonly json: string; readonly value?: undefined }) & {
  readonly event?: string;
};

function jsonOf(record: WireRecord): string {
  return record.json ?? JSON.stringify(record.value);
}

/** How each provider's records go on the wire. */
function wire(provider: ProviderName, records: readonly WireRecord[]): ProviderEventStreamInput[] {
  switch (provider) {
    case 'ai-sdk':
    case 'langchain':
      return records.map((record) => (record.json === undefined ? record.value : JSON.parse(record.json)) as object);
    case 'bedrock':
      return records.map((record) => eventFrame(record.event ?? 'messageStart', record.value));
    case 'ollama':
      return [encoder.encode(records.map((record) => `${jsonOf(record)}\n`).join(''))];
    default:
      return [encoder.encode(records.map((record) => `${record.event === undefined ? '' : `event: ${record.event}\n`}data: ${jsonOf(record)}\n\n`).join(''))];
  }
}

/** Per provider: a known record missing its members, one with members of the wrong type, an unknown record type and a terminal record. */
interface ProviderShapes {
  readonly missing: WireRecord;
  readonly wrongType: WireRecord;
  readonly unknown: WireRecord;
  readonly terminal: readonly WireRecord[];
}

const SHAPES: Readonly<Record<ProviderName, ProviderShapes>> = {
  anthropic: {
    missing: { value: { type: 'content_block_delta' } },
    wrongType: { value: { type: 'content_block_delta', index: '0', delta: { type: 'text_delta', text: 5 } } },
    unknown: { value: { type: 'content_block_future', index: 0 } },
    terminal: [{ value: { type: 'message_delta', delta: { stop_reason: 'end_turn' } } }, { value: { type: 'message_stop' } }],
  },
  'openai-chat': {
    missing: { value: { object: 'chat.completion.chunk', choices: [null] } },
    wrongType: { value: { object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 5 } }] } },
    unknown: { value: { object: 'chat.completion.future' } },
    terminal: [{ value: { object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] } }],
  },
  'openai-responses': {
    missing: { value: { type: 'response.output_text.delta' } },
    wrongType: { value: { type: 'response.output_text.delta', item_id: 5, output_index: '0', content_index: 0, delta: 5 } },
    unknown: { value: { type: 'response.future_event', sequence_number: 0 } },
    terminal: [{ value: { type: 'response.completed', sequence_number: 1, response: { status: 'completed', output: [] } } }],
  },
  gemini: {
    missing: { value: { candidates: [null] } },
    wrongType: { value: { candidates: [{ content: { parts: [{ text: 5 }] } }] } },
    unknown: { value: { futureMember: { x: 1 } } },
    terminal: [{ value: { candidates: [{ content: { parts: [{ text: 'a' }] }, finishReason: 'STOP' }], usageMetadata: { totalTokenCount: 1 } } }],
  },
  ollama: {
    missing: { value: { model: 'm', message: null, done: false } },
    wrongType: { value: { model: 'm', message: { role: 'assistant', content: 5 }, done: false } },
    unknown: { value: { model: 'm', future: true, done: false } },
    terminal: [{ value: { model: 'm', message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop' } }],
  },
  bedrock: {
    missing: { event: 'contentBlockDelta', value: {} },
    wrongType: { event: 'contentBlockDelta', value: { contentBlockIndex: '0', delta: { text: 5 } } },
    unknown: { event: 'futureEvent', value: { x: 1 } },
    terminal: [{ event: 'messageStop', value: { stopReason: 'end_turn' } }, { event: 'metadata', value: { usage: { inputTokens: 1, outputTokens: 1 } } }],
  },
  cohere: {
    missing: { value: { type: 'content-delta' } },
    wrongType: { value: { type: 'content-delta', index: '0', delta: { message: { content: { text: 5 } } } } },
    unknown: { value: { type: 'future-event' } },
    terminal: [{ value: { type: 'message-end', delta: { finish_reason: 'COMPLETE' } } }],
  },
  'ai-sdk': {
    missing: { value: { type: 'text-delta' } },
    wrongType: { value: { type: 'text-delta', id: 5, text: 5 } },
    unknown: { value: { type: 'future-part' } },
    terminal: [{ value: { type: 'finish', finishReason: 'stop' } }],
  },
  'ai-sdk-ui': {
    missing: { value: { type: 'text-delta' } },
    wrongType: { value: { type: 'text-delta', id: 5, delta: 5 } },
    unknown: { value: { type: 'future-chunk' } },
    terminal: [{ value: { type: 'finish' } }],
  },
  'ag-ui': {
    missing: { value: { type: 'TEXT_MESSAGE_CONTENT' } },
    wrongType: { value: { type: 'TOOL_CALL_ARGS', toolCallId: 5, delta: 5 } },
    unknown: { value: { type: 'FUTURE_EVENT', x: 1 } },
    terminal: [{ value: { type: 'RUN_FINISHED', threadId: 't', runId: 'r' } }],
  },
  langchain: {
    missing: { value: { event: 'on_chat_model_stream', run_id: 'r1', data: {} } },
    wrongType: { value: { type: 'ai', content: 5, tool_call_chunks: [] } },
    unknown: { value: { event: 'on_future_event', run_id: 'r1', data: {} } },
    terminal: [{ value: { type: 'ai', content: 'a', tool_call_chunks: [], response_metadata: { finish_reason: 'stop' } } }],
  },
  'gemini-interactions': {
    missing: { value: { event_type: 'step.delta', index: 0 } },
    wrongType: { value: { event_type: 'step.delta', index: '0', delta: { type: 'text', text: 5 } } },
    unknown: { value: { event_type: 'interaction.future_event', x: 1 } },
    terminal: [{ value: { event_type: 'interaction.completed', interaction: { id: 'v1_x', status: 'completed' } } }],
  },
};

const PROVIDERS = Object.keys(SHAPES) as ProviderName[];

/** Records that are not objects, where every provider reads one. */
const NOT_OBJECTS: ReadonlyArray<readonly [string, unknown]> = [
  ['null', null],
  ['a number', 5],
  ['an array', []],
  ['a string', 'x'],
];

async function run(provider: ProviderName, records: readonly WireRecord[]): Promise<unknown> {
  return (await runAll(provider, records)).error;
}

async function runAll(provider: ProviderName, records: readonly WireRecord[]): Promise<{ values: StreamEvent[]; error: unknown }> {
  return settle(streamOf(wire(provider, records)).pipeThrough(new ProviderEventStream({ provider })));
}

/** The error a record of the wrong shape must end in. */
function expectInvalidFormat(error: unknown, provider: ProviderName): void {
  expect(error).toBeInstanceOf(ProviderError);
  expect(error).toMatchObject({ provider, type: 'invalid-format' });
}

describe('ProviderEventStream records of the wrong shape', () => {
  for (const provider of PROVIDERS) {
    const shapes = SHAPES[provider];
    for (const [name, value] of NOT_OBJECTS) {
      it(`ProviderEventStream ends a ${provider} stream whose record is ${name} in a typed error`, async () => {
        const error = await run(provider, [{ value, event: provider === 'bedrock' ? 'contentBlockDelta' : undefined } as WireRecord]);
        if ((provider === 'ai-sdk' || provider === 'langchain') && !Array.isArray(value)) {
          // `fullStream` and LangChain's streams yield objects: anything else is input of the wrong kind.
          expect(error).toBeInstanceOf(ProviderError);
          expect(error).toMatchObject({ provider, type: 'invalid-stream', code: 'invalid-input' });
        } else {
          expectInvalidFormat(error, provider);
        }
      });
    }

    it(`ProviderEventStream ends a ${provider} stream whose known record misses its members in invalid-format`, async () => {
      expectInvalidFormat(await run(provider, [shapes.missing, ...shapes.terminal]), provider);
    });

    it(`ProviderEventStream ends a ${provider} stream whose known record has members of the wrong type in invalid-format`, async () => {
      expectInvalidFormat(await run(provider, [shapes.wrongType, ...shapes.terminal]), provider);
    });

    it(`ProviderEventStream ignores a ${provider} record of a type it does not know`, async () => {
      expect(await run(provider, [shapes.unknown, ...shapes.terminal])).toBeUndefined();
    });
  }
});

/** Anthropic's records before a content block: a message that has started. */
const ANTHROPIC_START: WireRecord = { value: { type: 'message_start', message: { id: 'msg_1', model: 'm', content: [], usage: { input_tokens: 1 } } } };
const CHAT = 'chat.completion.chunk';

/** More known records with a member missing or of the wrong type, each after a record the stream reads. */
const MEMBER_CASES: ReadonlyArray<readonly [ProviderName, string, WireRecord]> = [
  ['anthropic', 'content_block_start without content_block', { value: { type: 'content_block_start', index: 1 } }],
  ['anthropic', 'content_block_start without index', { value: { type: 'content_block_start', content_block: { type: 'text', text: '' } } }],
  ['anthropic', 'content_block_delta whose delta is a string', { value: { type: 'content_block_delta', index: 0, delta: 'Hi' } }],
  ['anthropic', 'an input_json_delta whose partial_json is an object', { value: { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: {} } } }],
  ['anthropic', 'a text_delta whose text is a number', { value: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 5 } } }],
  ['anthropic', 'content_block_stop whose index is a string', { value: { type: 'content_block_stop', index: '0' } }],
  ['openai-chat', 'choices that are an object', { value: { object: CHAT, choices: { index: 0 } } }],
  ['openai-chat', 'delta.tool_calls that are an object', { value: { object: CHAT, choices: [{ index: 0, delta: { tool_calls: { index: 0 } } }] } }],
  ['openai-chat', 'a tool call whose index is a string', { value: { object: CHAT, choices: [{ index: 0, delta: { tool_calls: [{ index: '0', function: { arguments: '{}' } }] } }] } }],
  ['openai-chat', 'function.arguments that are a number', { value: { object: CHAT, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: 5 } }] } }] } }],
  ['openai-chat', 'a delta that is a string', { value: { object: CHAT, choices: [{ index: 0, delta: 'Hi' }] } }],
  ['openai-chat', 'a tool call that is not an object', { value: { object: CHAT, choices: [{ index: 0, delta: { tool_calls: ['{}'] } }] } }],
  ['openai-responses', 'an output_index that is a string', { value: { type: 'response.function_call_arguments.delta', output_index: '0', item_id: 'fc_1', delta: '{}' } }],
  ['openai-responses', 'a delta that is a number', { value: { type: 'response.function_call_arguments.delta', output_index: 0, item_id: 'fc_1', delta: 5 } }],
  ['openai-responses', 'output_item.added whose item is a string', { value: { type: 'response.output_item.added', output_index: 1, item: 'message' } }],
  ['openai-responses', 'output_item.done without output_index', { value: { type: 'response.output_item.done', item: { type: 'message', id: 'msg_1', content: [] } } }],
  ['cohere', 'tool-call-delta without index', { value: { type: 'tool-call-delta', delta: { message: { tool_calls: { function: { arguments: '{}' } } } } } }],
  ['cohere', 'tool-call-delta whose arguments are an object', { value: { type: 'tool-call-delta', index: 0, delta: { message: { tool_calls: { function: { arguments: {} } } } } } }],
  ['cohere', 'content-delta without delta.message', { value: { type: 'content-delta', index: 0, delta: {} } }],
  ['cohere', 'content-end whose index is a string', { value: { type: 'content-end', index: '0' } }],
  ['ai-sdk', 'tool-input-delta whose delta is a number', { value: { type: 'tool-input-delta', id: 'c1', delta: 5 } }],
  ['ai-sdk', 'tool-input-start without toolName', { value: { type: 'tool-input-start', id: 'c1' } }],
  ['ai-sdk', 'text-end whose id is a number', { value: { type: 'text-end', id: 5 } }],
  ['ai-sdk-ui', 'tool-input-delta whose inputTextDelta is a number', { value: { type: 'tool-input-delta', toolCallId: 'c1', inputTextDelta: 5 } }],
  ['ai-sdk-ui', 'tool-input-start without toolCallId', { value: { type: 'tool-input-start', toolName: 'f' } }],
  ['ai-sdk-ui', 'reasoning-delta whose delta is an object', { value: { type: 'reasoning-delta', id: 'r', delta: {} } }],
  ['ag-ui', 'TOOL_CALL_START without toolCallName', { value: { type: 'TOOL_CALL_START', toolCallId: 'c1' } }],
  ['ag-ui', 'TEXT_MESSAGE_CONTENT whose delta is a number', { value: { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 5 } }],
  ['ag-ui', 'a first TOOL_CALL_CHUNK without toolCallName', { value: { type: 'TOOL_CALL_CHUNK', toolCallId: 'c1', delta: '{}' } }],
  ['ag-ui', 'a TOOL_CALL_CHUNK without toolCallId and no call streaming', { value: { type: 'TOOL_CALL_CHUNK', delta: '{}' } }],
  ['ag-ui', 'RUN_ERROR whose message is an object', { value: { type: 'RUN_ERROR', message: {} } }],
  ['ag-ui', 'an event whose subagentRunId is a number', { value: { type: 'STEP_STARTED', stepName: 's', subagentRunId: 5 } }],
  ['ag-ui', 'an event without a type', { value: { messageId: 'm', delta: 'x' } }],
  ['langchain', 'a tool call chunk whose args are an object', { value: { type: 'ai', content: '', tool_call_chunks: [{ index: 0, id: 'c', name: 'f', args: {} }] } }],
  ['langchain', 'a tool call chunk whose index is a boolean', { value: { type: 'ai', content: '', tool_call_chunks: [{ index: true, id: 'c', name: 'f', args: '{}' }] } }],
  ['langchain', 'a tool call chunk whose name is a number', { value: { type: 'ai', content: '', tool_call_chunks: [{ index: 0, id: 'c', name: 5, args: '{}' }] } }],
  ['langchain', 'a tool call chunk that is a string', { value: { type: 'ai', content: '', tool_call_chunks: ['{}'] } }],
  ['langchain', 'tool_call_chunks that are an object', { value: { type: 'ai', content: '', tool_call_chunks: { index: 0 } } }],
  ['langchain', 'usage_metadata that is a string', { value: { type: 'ai', content: '', tool_call_chunks: [], usage_metadata: '5' } }],
  ['langchain', 'a content block that is a number', { value: { type: 'ai', content: [5], tool_call_chunks: [] } }],
  ['langchain', 'a text block whose text is a number', { value: { type: 'ai', content: [{ type: 'text', text: 5 }], tool_call_chunks: [] } }],
  ['langchain', 'an on_chat_model_stream whose chunk is a string', { value: { event: 'on_chat_model_stream', run_id: 'r1', data: { chunk: 'Hi' } } }],
  ['langchain', 'a content-block-delta without its index', { value: { event: 'content-block-delta', delta: { type: 'text-delta', text: 'x' } } }],
  ['langchain', 'a text-delta whose text is a number', { value: { event: 'content-block-delta', index: 0, delta: { type: 'text-delta', text: 5 } } }],
  ['langchain', 'an object that is no LangChain stream object', { value: { messages: [] } }],
  ['langchain', 'a tuple of three objects', { value: [{}, {}, {}] }],
  ['gemini-interactions', 'step.start without its step', { value: { event_type: 'step.start', index: 1 } }],
  ['gemini-interactions', 'a step.delta whose delta is a string', { value: { event_type: 'step.delta', index: 0, delta: 'Hi' } }],
  ['gemini-interactions', 'an arguments_delta whose arguments are an object', { value: { event_type: 'step.delta', index: 0, delta: { type: 'arguments_delta', arguments: {} } } }],
  ['gemini-interactions', 'a step.stop whose index is a string', { value: { event_type: 'step.stop', index: '0' } }],
  ['gemini-interactions', 'a function_call step whose name is a number', { value: { event_type: 'step.start', index: 1, step: { type: 'function_call', id: 'f', name: 5 } } }],
  ['gemini-interactions', 'a thought_summary whose text is a number', { value: { event_type: 'step.delta', index: 0, delta: { type: 'thought_summary', content: { type: 'text', text: 5 } } } }],
];

/** Per provider: records the stream reads before the record of the wrong shape, and the text they carry. */
const BEFORE: Readonly<Partial<Record<ProviderName, readonly WireRecord[]>>> = {
  anthropic: [ANTHROPIC_START, { value: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } }, { value: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'before' } } }],
  'openai-chat': [{ value: { object: CHAT, choices: [{ index: 0, delta: { role: 'assistant', content: 'before' } }] } }],
  'openai-responses': [
    { value: { type: 'response.output_item.added', output_index: 0, item: { type: 'message', id: 'msg_0', content: [] } } },
    { value: { type: 'response.output_text.delta', output_index: 0, item_id: 'msg_0', content_index: 0, delta: 'before' } },
  ],
  cohere: [{ value: { type: 'content-delta', index: 0, delta: { message: { content: { text: 'before' } } } } }],
  'ai-sdk': [{ value: { type: 'text-start', id: 't' } }, { value: { type: 'text-delta', id: 't', text: 'before' } }],
  'ai-sdk-ui': [{ value: { type: 'text-start', id: 't' } }, { value: { type: 'text-delta', id: 't', delta: 'before' } }],
  'ag-ui': [{ value: { type: 'RUN_STARTED', threadId: 't', runId: 'r' } }, { value: { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' } }, { value: { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'before' } }],
  langchain: [{ value: { type: 'ai', id: 'msg_1', content: 'before', tool_call_chunks: [] } }],
  'gemini-interactions': [{ value: { event_type: 'step.start', index: 0, step: { type: 'model_output' } } }, { value: { event_type: 'step.delta', index: 0, delta: { type: 'text', text: 'before' } } }],
};

/** The message text a stream's events carry. */
function messageText(values: readonly StreamEvent[]): string {
  return values.map((event) => (event.type === 'part' && event.part.type === 'message' ? event.part.text : '')).join('');
}

describe('ProviderEventStream known records whose members are missing or of the wrong type', () => {
  for (const [provider, name, record] of MEMBER_CASES) {
    it(`ProviderEventStream ends a ${provider} stream with ${name} in invalid-format, after the text before it`, async () => {
      const { values, error } = await runAll(provider, [...(BEFORE[provider] ?? []), record, ...SHAPES[provider].terminal]);
      expectInvalidFormat(error, provider);
      expect(messageText(values)).toBe('before');
    });
  }

  it('ProviderEventStream reads the nulls OpenAI-compatible servers send as absent members, and whole calls without an index (Mistral)', async () => {
    const { values, error } = await runAll('openai-chat', [
      { value: { object: CHAT, usage: null, choices: [{ index: 0, delta: { role: 'assistant', content: null, refusal: null, tool_calls: null }, finish_reason: null }] } },
      { value: { object: CHAT, choices: [{ index: 0, delta: { content: null, tool_calls: [{ index: 0, id: 'c0', type: 'function', function: { name: 'f', arguments: null } }] } }] } },
      { value: { object: CHAT, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: null, type: null, function: { name: null, arguments: '{"a":1}' } }] } }] } },
      { value: { object: CHAT, choices: [{ index: 0, delta: { tool_calls: [{ id: 'c1', function: { name: 'g', arguments: '{}' } }] } }] } },
      { value: { object: CHAT, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 1, completion_tokens: 1 } } },
    ]);
    expect(error).toBeUndefined();
    const args = values.flatMap((event) => (event.type === 'part' && event.part.type === 'tool-call-arguments' ? [[event.index, event.part.chunk]] : []));
    expect(args).toEqual([
      [0, '{"a":1}'],
      [1, '{}'],
    ]);
  });
});

/**
 * Arguments nested deeper than `JSON.stringify` can recurse (Node overflows near 5,000 levels;
 * 100,000 is past every engine's stack, yet 0.2 MB of JSON text, far within `maxBufferedBytes`,
 * and `JSON.parse` reads it): as JSON text, written without `JSON.stringify`.
 */
const DEEP = 100_000;
const DEEP_ARGS = `{"a":${'['.repeat(DEEP)}${']'.repeat(DEEP)}}`;

/** Per adapter that passes a whole arguments object through `JSON.stringify`: the records that send one. */
const DEEP_CASES: ReadonlyArray<readonly [ProviderName, string, readonly WireRecord[]]> = [
  ['gemini', 'functionCall args', [{ json: `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":${DEEP_ARGS}}}]}}]}` }]],
  [
    'anthropic',
    'a tool_use block whose input came whole in content_block_start',
    [ANTHROPIC_START, { json: `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":${DEEP_ARGS}}}` }, { value: { type: 'content_block_stop', index: 0 } }],
  ],
  ['anthropic', 'a tool_use block whole in message_start', [{ json: `{"type":"message_start","message":{"id":"m","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":${DEEP_ARGS}}]}}` }]],
  ['openai-chat', 'function.arguments sent as an object', [{ json: `{"object":"${CHAT}","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":${DEEP_ARGS}}}]}}]}` }]],
  ['ollama', 'tool call arguments', [{ json: `{"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":${DEEP_ARGS}}}]},"done":false}` }]],
  [
    'openai-responses',
    "a computer_call's action",
    [
      { value: { type: 'response.output_item.added', output_index: 0, item: { type: 'computer_call', id: 'cu_1', call_id: 'call_1' } } },
      { json: `{"type":"response.output_item.done","output_index":0,"item":{"type":"computer_call","id":"cu_1","call_id":"call_1","action":${DEEP_ARGS}}}` },
    ],
  ],
  ['ai-sdk', "a tool-call part's input", [{ json: `{"type":"tool-call","toolCallId":"c","toolName":"f","input":${DEEP_ARGS}}` }]],
  ['ai-sdk-ui', "a tool-input-available chunk's input", [{ json: `{"type":"tool-input-available","toolCallId":"c","toolName":"f","input":${DEEP_ARGS}}` }]],
  ['langchain', "the tool_calls args of a whole AIMessage (a LangGraph node's output)", [{ json: `{"type":"ai","id":"m","content":"","tool_calls":[{"id":"c","name":"f","args":${DEEP_ARGS}}]}` }]],
  ['langchain', "a content-block-finish's whole tool call args", [{ value: { event: 'message-start' } }, { json: `{"event":"content-block-finish","index":0,"content":{"type":"tool_call","id":"c","name":"f","args":${DEEP_ARGS}}}` }]],
  [
    'gemini-interactions',
    "a function_call step's arguments that never streamed",
    [{ json: `{"event_type":"step.start","index":0,"step":{"type":"function_call","id":"f","name":"f","arguments":${DEEP_ARGS}}}` }, { value: { event_type: 'step.stop', index: 0 } }],
  ],
];

describe('ProviderEventStream whole arguments nested too deeply to write as JSON text', () => {
  for (const [provider, name, records] of DEEP_CASES) {
    it(`ProviderEventStream ends a ${provider} stream in invalid-format, not a RangeError, for ${name} nested ${DEEP} levels deep`, async () => {
      const error = await run(provider, records);
      expectInvalidFormat(error, provider);
      expect((error as Error).message).toMatch(/could not be written as JSON text/);
      expect((error as Error).cause).toBeInstanceOf(RangeError);
    });
  }

  it('ProviderEventStream ends an ai-sdk stream whose tool-call input holds a cycle or a BigInt in invalid-format, not a TypeError', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    for (const input of [cyclic, { n: 1n }]) {
      const { error } = await settle(
        streamOf<object>([{ type: 'tool-call', toolCallId: 'c', toolName: 'f', input }]).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk' })),
      );
      expectInvalidFormat(error, 'ai-sdk');
      expect((error as Error).cause).toBeInstanceOf(TypeError);
    }
  });

  it('ProviderEventStream ends an ai-sdk-ui stream whose message metadata nests too deeply to merge in invalid-format', async () => {
    const metadata = `{"m":${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}}`;
    const error = await run('ai-sdk-ui', [{ json: `{"type":"start","messageMetadata":${metadata}}` }, { json: `{"type":"finish","messageMetadata":${metadata}}` }]);
    expectInvalidFormat(error, 'ai-sdk-ui');
  });
});

describe('an HTTP error body nested too deep to write', () => {
  it('fromResponse ends in the ProviderError of the status, never a RangeError', async () => {
    const body = `{"error":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`;
    const { error } = await settle(fromResponse(new Response(body, { status: 400, headers: { 'content-type': 'application/json' } }), { provider: 'anthropic' }));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'anthropic', status: 400 });
  });
});
