/**
 * Real provider and AI SDK streams, damaged the way a proxy or an unlucky server damages them:
 * each must still come out exact, and what cannot be exact must say so.
 *
 * - OpenAI Responses with deltas dropped (a `sequence_number` gap): each message's, reasoning
 *   stream's, refusal's and call's text is restored exactly once, whichever of the `.done` events,
 *   `output_item.done` and `response.completed`'s `output` still carry it, and wherever `output`
 *   lists the item.
 * - An AI SDK UI stream's `tool-input-error` fails that call alone; the turn goes on.
 * - A call whose input stops (updates that stop, a finish that comes too early) is never complete.
 */
import { describe, expect, it } from 'vitest';
import { ArgstreamChatTransport } from '../../src/ai-sdk/chat-transport.ts';
import { UIMessageStreamEncoder } from '../../src/ai-sdk/ui-message-stream-encoder.ts';
import { ProviderError } from '../../src/errors.ts';
import { ProviderEventDecoder } from '../../src/providers/provider-event-decoder.ts';
import { collectTurn, type Turn } from '../../src/sinks/collect-turn.ts';
import { TurnStore } from '../../src/store/source-reading.ts';
import { IncompleteToolCallError } from '../../src/store/turn-store.ts';
import { ConversationEventStream } from '../../src/transforms/conversation-event-stream.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import { readAll, readFixture, streamOf } from '../helpers.ts';
import { SEND, transportOptions } from '../ai-sdk/transport-helpers.ts';

// ---------------------------------------------------------------------------------------------
// OpenAI Responses: sequence-gap recovery gives each text once.

type ResponsesRecord = Record<string, unknown> & { type: string; sequence_number: number; output_index?: number };

/** A Responses recording's records, in order. */
function responsesRecords(file: string): ResponsesRecord[] {
  const text = new TextDecoder().decode(readFixture(`providers/openai-responses/${file}`));
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => JSON.parse(block.slice(block.indexOf('data: ') + 6)) as ResponsesRecord);
}

/** SSE text of `records` without the ones numbered `dropped`, with `output` of response.completed changed by `reshape`. */
function sseWithout(
  records: readonly ResponsesRecord[],
  dropped: ReadonlySet<number>,
  reshape: (output: Array<Record<string, unknown>>) => Array<Record<string, unknown>> = (output) => output,
): string {
  return records
    .filter((record) => !dropped.has(record.sequence_number))
    .map((record) => {
      let data: Record<string, unknown> = record;
      if (record.type === 'response.completed') {
        const response = record['response'] as Record<string, unknown>;
        data = { ...record, response: { ...response, output: reshape(structuredClone(response['output']) as Array<Record<string, unknown>>) } };
      }
      return `event: ${record.type}\ndata: ${JSON.stringify(data)}\n\n`;
    })
    .join('');
}

async function responsesTurn(text: string): Promise<{ turn?: Turn; error?: unknown }> {
  try {
    return { turn: await collectTurn(streamOf([text]).pipeThrough(new ProviderEventStream({ provider: 'openai-responses' }))) };
  } catch (error) {
    return { error };
  }
}

/** Every subset of `values`. */
function subsets<T>(values: readonly T[]): T[][] {
  return Array.from({ length: 1 << values.length }, (_, mask) => values.filter((_, bit) => (mask & (1 << bit)) !== 0));
}

/** Where response.completed's `output` lists the damaged item: as recorded, last, first behind a foreign item, or not at all. */
const PLACES = ['as recorded', 'moved to the end', 'behind an item the stream never showed', 'left out'] as const;

function placeItem(place: (typeof PLACES)[number], itemId: string): (output: Array<Record<string, unknown>>) => Array<Record<string, unknown>> {
  return (output) => {
    const entry = output.find((o) => o['id'] === itemId);
    const others = output.filter((o) => o['id'] !== itemId);
    if (entry === undefined) throw new Error(`no output entry ${itemId}`);
    switch (place) {
      case 'as recorded':
        return output;
      case 'moved to the end':
        return [...others, entry];
      case 'behind an item the stream never showed':
        // A list of MCP tools carries no text: the positions of `output` are not the stream's `output_index`.
        return [{ type: 'mcp_list_tools', id: 'mcpl_unseen', server_label: 'unseen', tools: [] }, ...others, entry];
      case 'left out':
        return others;
    }
  };
}

interface GapCase {
  readonly file: string;
  readonly what: string;
  /** The delta dropped: a gap while the item is open. */
  readonly delta: number;
  /** The events that carry the item's final text (its `.done` events and `output_item.done`). */
  readonly carriers: readonly number[];
  readonly itemId: string;
  readonly expected: {
    readonly text: string;
    readonly reasoning: string;
    readonly refusal: string | undefined;
    readonly toolCalls: ReadonlyArray<readonly [string, string, unknown]>;
  };
}

const CAPITAL_CALL = ['call_LabG58Uhrq9kZvR52BYKjToD', 'get_capital', { country: 'PotatoLand' }] as const;
const SUMMARY =
  "**Calculating step-by-step using calculator**\n\nI'll compute 12 plus 7, then multiply the result by 3, and finally multiply that by 10, reporting the final product.";

const GAP_CASES: readonly GapCase[] = [
  {
    file: 'reasoning-commentary-text-then-function-call-unicode.sse',
    what: 'message text',
    delta: 10,
    carriers: [19, 20, 21],
    itemId: 'msg_0fabc13af1ee0049006a691dfebdc881a1ae18d027c313d8ce',
    expected: { text: 'I’ll check the capital lookup tool for “PotatoLand.”', reasoning: '', refusal: undefined, toolCalls: [CAPITAL_CALL] },
  },
  {
    file: 'reasoning-commentary-text-then-function-call-unicode.sse',
    what: 'function-call arguments',
    delta: 26,
    carriers: [30, 31],
    itemId: 'fc_0fabc13af1ee0049006a691dff0c1481a1b4a0eec7e3c753bb',
    expected: { text: 'I’ll check the capital lookup tool for “PotatoLand.”', reasoning: '', refusal: undefined, toolCalls: [CAPITAL_CALL] },
  },
  {
    file: 'reasoning-summary-then-function-call.sse',
    what: 'reasoning summary text',
    delta: 12,
    carriers: [36, 37, 38],
    itemId: 'rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9',
    expected: { text: '', reasoning: SUMMARY, refusal: undefined, toolCalls: [['call_AB6AaRZ1FYZB2RwS6A5vbdqn', 'calculator', { a: 12, b: 7, op: 'add' }]] },
  },
  {
    file: 'deepseek-reasoning-text-function-call.sse',
    what: 'raw reasoning text',
    delta: 9,
    carriers: [18, 19, 20],
    itemId: 'fa6f3a83-5d25-46e8-9d03-1a89ce5cf2ba',
    expected: {
      text: '',
      reasoning: 'The user asks about temperature in Tokyo. I\'ll call the tool.',
      refusal: undefined,
      toolCalls: [['call_00_xjY8Z2BvSlzgEmmw0DtH0464', 'get_temperature', { city: 'Tokyo' }]],
    },
  },
  {
    file: 'handmade-refusal.sse',
    what: 'refusal text',
    delta: 4,
    carriers: [5, 6, 7],
    itemId: 'msg_68a0000000000000000000000000000000000000000000',
    expected: { text: '', reasoning: '', refusal: "I'm sorry, I can't help with that.", toolCalls: [] },
  },
];

describe('ProviderEventStream with provider openai-responses, deltas dropped', () => {
  it('ProviderEventStream is given the recordings and events the gap cases name', () => {
    for (const gapCase of GAP_CASES) {
      const records = responsesRecords(gapCase.file);
      const at = (sequence: number) => records.find((r) => r.sequence_number === sequence);
      expect(at(gapCase.delta)?.type, gapCase.file).toMatch(/\.delta$/);
      for (const carrier of gapCase.carriers) expect(at(carrier)?.type, `${gapCase.file} ${carrier}`).toMatch(/\.done$/);
      expect(at(gapCase.carriers.at(-1) ?? -1)).toMatchObject({ type: 'response.output_item.done', item: { id: gapCase.itemId } });
    }
  });

  for (const gapCase of GAP_CASES) {
    const records = responsesRecords(gapCase.file);
    for (const lost of subsets(gapCase.carriers)) {
      for (const place of PLACES) {
        const kept = gapCase.carriers.filter((c) => !lost.includes(c));
        const carried = kept.length > 0 || place !== 'left out';
        const name = `ProviderEventStream restores the ${gapCase.what} of ${gapCase.file} exactly once with delta ${gapCase.delta} lost, ${
          lost.length === 0 ? 'every done event kept' : `done events ${lost.join(', ')} lost`
        }, the item in output ${place}`;
        it(carried ? name : name.replace('restores the', 'errors with code sequence-gap for the'), async () => {
          const text = sseWithout(records, new Set([gapCase.delta, ...lost]), placeItem(place, gapCase.itemId));
          const { turn, error } = await responsesTurn(text);
          if (!carried) {
            expect(error).toBeInstanceOf(ProviderError);
            expect(error).toMatchObject({ provider: 'openai-responses', type: 'invalid-stream', code: 'sequence-gap' });
            return;
          }
          expect(error).toBeUndefined();
          expect(turn?.text).toBe(gapCase.expected.text);
          expect(turn?.reasoning).toBe(gapCase.expected.reasoning);
          expect(turn?.refusal).toBe(gapCase.expected.refusal);
          expect(turn?.toolCalls.map((c) => [c.toolCallId, c.toolName, c.arguments])).toEqual(gapCase.expected.toolCalls);
          expect(turn?.incompleteToolCalls).toEqual([]);
          expect(turn?.failedToolCalls).toEqual([]);
        });
      }
    }
  }

  it('ProviderEventStream does not take the output entry at a call’s position for the call when the entry is another item', async () => {
    // The web search's output_item.done is lost, and response.completed's output has a foreign
    // item where the search stood: its arguments are not that item's (`{}`), they are lost.
    const file = 'web-search-call-then-message-annotations.sse';
    const records = responsesRecords(file);
    const searchDone = records.find((r) => r.type === 'response.output_item.done' && r.output_index === 0)?.sequence_number ?? -1;
    const text = sseWithout(records, new Set([searchDone]), (output) => [
      { type: 'mcp_list_tools', id: 'mcpl_unseen', server_label: 'unseen', tools: [] },
      ...output.slice(1),
    ]);
    const { error } = await responsesTurn(text);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ type: 'invalid-stream', code: 'sequence-gap', cause: { itemId: 'ws_67ccf18f64008190a39b619f4c8455ef087bb177ab789d5c' } });
  });
});



// ---------------------------------------------------------------------------------------------
// The AI SDK's UI message stream: what becomes of a call, in collectTurn, TurnStore and the
// transport alike.

/** A call as each consumer ends it: its status, its input (partial or whole) and its error. */
interface CallEnd {
  readonly toolCallId: string;
  readonly status: string;
  readonly input: unknown;
  readonly error: unknown;
}

/** The end of a UI stream's turn in `collectTurn` (its calls in order, complete, incomplete and failed). */
async function collectedCalls(sse: string): Promise<{ calls: CallEnd[]; text: string; error?: unknown }> {
  let turn: Turn;
  try {
    turn = await collectTurn(streamOf([sse]).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' })));
  } catch (error) {
    return { calls: [], text: '', error };
  }
  const calls: CallEnd[] = [];
  for (const event of turn.events) {
    if (event.type === 'tool-call') calls.push({ toolCallId: event.toolCallId, status: 'complete', input: event.arguments, error: undefined });
    if (event.type === 'tool-call-incomplete') calls.push({ toolCallId: event.toolCallId, status: 'incomplete', input: event.partialArguments, error: undefined });
    if (event.type === 'tool-call-failed') calls.push({ toolCallId: event.toolCallId, status: 'failed', input: undefined, error: event.error });
  }
  return { calls, text: turn.text };
}

/** The end of a UI stream's turn in `TurnStore` (reading the response with the `ai-sdk-ui` decoder). */
async function storedCalls(sse: string): Promise<{ status: string; calls: CallEnd[]; text: string; error: unknown }> {
  const store = new TurnStore();
  const snapshot = await store.consume(new Response(sse), { decoder: new ProviderEventDecoder({ provider: 'ai-sdk-ui' }) });
  return {
    status: snapshot.status,
    calls: snapshot.calls.map((c) => ({ toolCallId: c.toolCallId, status: c.status, input: c.input, error: 'error' in c ? c.error : undefined })),
    text: snapshot.text,
    error: snapshot.error,
  };
}

/** The end of a UI stream's turn in `ArgstreamChatTransport`'s snapshot, the response read by the AI SDK's side to its end. */
async function transportCalls(sse: string): Promise<{ status: string; calls: CallEnd[]; text: string; error: unknown }> {
  const transport = new ArgstreamChatTransport(transportOptions(() => sse));
  await readAll(await transport.sendMessages(SEND));
  const snapshot = transport.getSnapshot();
  return {
    status: snapshot.status,
    calls: snapshot.calls.map((c) => ({ toolCallId: c.toolCallId, status: c.status, input: c.input, error: 'error' in c ? c.error : undefined })),
    text: snapshot.text,
    error: snapshot.error,
  };
}

/** An argstream server's UI stream of a real Anthropic recording, its calls' inputs as path updates: one SSE event an entry. */
async function pathUpdateEvents(): Promise<string[]> {
  const body = streamOf([readFixture('providers/anthropic/text-then-2-parallel-tool-use.sse')])
    .pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))
    .pipeThrough(new UIMessageStreamEncoder({ toolInputs: 'path-updates' }));
  return (await readAll(body))
    .map((chunk) => new TextDecoder().decode(chunk))
    .join('')
    .split(/(?<=\n\n)/);
}

const WEATHER = 'toolu_01YUs66wivdF51ENZFX8gX9S';
const WEATHER_TEXT =
  "Certainly! I'd be happy to help you with information about the current weather and time in New York. To provide you with accurate information, I'll need to use two different tools. Let's start with the weather and then check the time.";

/**
 * The recording's UI stream cut in the first call's input, right after the update that completes
 * its `location` (so its partial input is `{location: 'New York, NY'}`), with `after` in place of
 * the rest.
 */
async function cutInUpdates(after: readonly string[]): Promise<string> {
  const events = await pathUpdateEvents();
  const completesLocation = events.findIndex((e) => e.includes('data-argstream-tool-input') && e.includes(WEATHER) && e.includes('"complete-string"'));
  if (completesLocation === -1 || events.slice(0, completesLocation).some((e) => e.includes('tool-input-available'))) throw new Error('the recording changed');
  return [...events.slice(0, completesLocation + 1), ...after.map((chunk) => `data: ${chunk}\n\n`)].join('');
}

const FINISH_STEP = '{"type":"finish-step"}';
const FINISH = '{"type":"finish","finishReason":"tool-calls"}';
const DONE = '[DONE]';

describe('A cut call is never complete (ai-sdk-ui)', () => {
  const CUTS: ReadonlyArray<readonly [string, readonly string[], string]> = [
    ['the path updates stop mid-object and the step then finishes', [FINISH_STEP, FINISH, DONE], WEATHER_TEXT],
    ['the path updates stop mid-object and the finish comes at once', [FINISH, DONE], WEATHER_TEXT],
    [
      'the path updates stop mid-object and another step follows',
      [FINISH_STEP, '{"type":"start-step"}', '{"type":"text-start","id":"t9"}', '{"type":"text-delta","id":"t9","delta":" Sorry."}', '{"type":"text-end","id":"t9"}', FINISH_STEP, FINISH, DONE],
      `${WEATHER_TEXT} Sorry.`,
    ],
  ];
  for (const [what, after, text] of CUTS) {
    it(`collectTurn ends a call incomplete with its partial input when ${what}`, async () => {
      const turn = await collectedCalls(await cutInUpdates(after));
      expect(turn.error).toBeUndefined();
      expect(turn.calls).toEqual([{ toolCallId: WEATHER, status: 'incomplete', input: { location: 'New York, NY' }, error: undefined }]);
      expect(turn.text).toBe(text);
    });

    it(`TurnStore ends a call failed with its partial input when ${what}`, async () => {
      const snapshot = await storedCalls(await cutInUpdates(after));
      expect(snapshot.status).toBe('done');
      expect(snapshot.calls).toEqual([{ toolCallId: WEATHER, status: 'failed', input: { location: 'New York, NY' }, error: expect.any(IncompleteToolCallError) }]);
      expect(snapshot.text).toBe(text);
    });

    it(`ArgstreamChatTransport ends a call failed with its partial input when ${what}`, async () => {
      const snapshot = await transportCalls(await cutInUpdates(after));
      expect(snapshot.status).toBe('done');
      expect(snapshot.calls).toEqual([{ toolCallId: WEATHER, status: 'failed', input: { location: 'New York, NY' }, error: expect.any(IncompleteToolCallError) }]);
      expect(snapshot.text).toBe(text);
    });
  }

  it('collectTurn, TurnStore and ArgstreamChatTransport end a call that began and got no input before the finish incomplete, never {}', async () => {
    const sse = ['{"type":"start"}', '{"type":"start-step"}', '{"type":"tool-input-start","toolCallId":"c1","toolName":"write_file"}', FINISH_STEP, FINISH, DONE]
      .map((chunk) => `data: ${chunk}\n\n`)
      .join('');
    expect((await collectedCalls(sse)).calls).toEqual([{ toolCallId: 'c1', status: 'incomplete', input: undefined, error: undefined }]);
    for (const snapshot of [await storedCalls(sse), await transportCalls(sse)]) {
      expect(snapshot.status).toBe('done');
      // A store shows a call with no input yet as an empty object: failed, not complete.
      expect(snapshot.calls).toEqual([{ toolCallId: 'c1', status: 'failed', input: {}, error: expect.any(IncompleteToolCallError) }]);
    }
  });

  it('collectTurn still completes every call of the whole path-update stream', async () => {
    const turn = await collectedCalls((await pathUpdateEvents()).join(''));
    expect(turn.calls).toEqual([
      { toolCallId: WEATHER, status: 'complete', input: { location: 'New York, NY', unit: 'fahrenheit' }, error: undefined },
      { toolCallId: 'toolu_01NRtod2L7M7TBDj9GCzsZCx', status: 'complete', input: { timezone: 'America/New_York' }, error: undefined },
    ]);
  });

  it('ProviderEventStream refuses a path update of a kind it does not know, with a ProviderError invalid-stream', async () => {
    const sse = [
      '{"type":"start"}',
      '{"type":"tool-input-start","toolCallId":"c1","toolName":"t"}',
      '{"type":"data-argstream-tool-input","data":{"toolCallId":"c1","updates":[{"type":"path-update","kind":"start-object","path":""},{"type":"path-update","kind":"raw-json","path":"","textValue":"}"}]},"transient":true}',
    ]
      .map((chunk) => `data: ${chunk}\n\n`)
      .join('');
    const { error } = await collectedCalls(sse);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'ai-sdk-ui', type: 'invalid-stream', code: 'invalid-input' });
  });

  it('collectTurn reads a path update’s number only as a JSON literal: a raw that is not one cannot write structure', async () => {
    const sse = [
      '{"type":"start"}',
      '{"type":"tool-input-start","toolCallId":"c1","toolName":"t"}',
      '{"type":"data-argstream-tool-input","data":{"toolCallId":"c1","updates":[{"type":"path-update","kind":"start-object","path":""},{"type":"path-update","kind":"key","path":"/a","textValue":"a\\"b"},{"type":"path-update","kind":"complete-number","path":"0","value":1,"raw":"1,\\"admin\\":true"},{"type":"path-update","kind":"end-object","path":""}]},"transient":true}',
      '{"type":"tool-input-available","toolCallId":"c1","toolName":"t","input":{"a\\"b":1}}',
      FINISH,
    ]
      .map((chunk) => `data: ${chunk}\n\n`)
      .join('');
    expect((await collectedCalls(sse)).calls).toEqual([{ toolCallId: 'c1', status: 'complete', input: { 'a"b': 1 }, error: undefined }]);
  });
});

describe('A cut call is never complete (ai-sdk fullStream)', () => {
  it('collectTurn ends a call whose tool-call part never came incomplete at finish-step and finish, never {}', async () => {
    const parts = [
      { type: 'start' },
      { type: 'start-step' },
      { type: 'tool-input-start', id: 'c1', toolName: 'write_file' },
      { type: 'finish-step', finishReason: 'tool-calls' },
      { type: 'finish', finishReason: 'tool-calls' },
    ];
    const turn = await collectTurn(streamOf<object>(parts).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk' })));
    expect(turn.toolCalls).toEqual([]);
    expect(turn.incompleteToolCalls).toEqual([expect.objectContaining({ toolCallId: 'c1', toolName: 'write_file', partialArguments: undefined })]);
  });
});

describe('A call the source reports as failed fails alone', () => {
  for (const major of [5, 7]) {
    const file = `ai-sdk-ui/ai${major}-tool-input-error.sse`;
    const sse = new TextDecoder().decode(readFixture(file));

    it(`TurnStore and ArgstreamChatTransport fail only the call of ${file}'s tool-input-error; the turn goes on`, async () => {
      for (const snapshot of [await storedCalls(sse), await transportCalls(sse)]) {
        expect(snapshot.status).toBe('done');
        expect(snapshot.error).toBeUndefined();
        expect(snapshot.text).toBe('Here.');
        expect(snapshot.calls).toEqual([
          { toolCallId: 'call_1', status: 'failed', input: { path: 42 }, error: expect.objectContaining({ provider: 'ai-sdk-ui', type: 'tool-input-error' }) },
        ]);
      }
    });

    // Needs TurnBuilder to isolate a failure its source reported (see createAiSdkUiAdapter):
    // in TurnBuilder#flush, `if (!this.#options.isolateErrors && !(failure instanceof ProviderError)) throw failure;`.
    it(`collectTurn and ConversationEventStream fail only the call of ${file}'s tool-input-error by default; the turn goes on`, async () => {
      const turn = await collectTurn(streamOf([sse]).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' })));
      expect(turn.text).toBe('Here.');
      expect(turn.toolCalls).toEqual([]);
      expect(turn.failedToolCalls).toEqual([
        expect.objectContaining({ type: 'tool-call-failed', toolCallId: 'call_1', toolName: 'write_file', error: expect.objectContaining({ provider: 'ai-sdk-ui', type: 'tool-input-error' }) }),
      ]);
      expect(turn.finishReason).toBe('tool-calls');
      const events = await readAll(streamOf([sse]).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk-ui' })).pipeThrough(new ConversationEventStream()));
      expect(events.filter((e) => e.type === 'tool-call-failed')).toHaveLength(1);
      expect(events.at(-1)).toMatchObject({ type: 'finished', reason: 'tool-calls' });
    });
  }

  const invalidCall = (error: unknown): object[] => [
    { type: 'start' },
    { type: 'start-step' },
    { type: 'tool-input-start', id: 'c1', toolName: 'delete_everything' },
    { type: 'tool-input-delta', id: 'c1', delta: '{"path":"/"}' },
    { type: 'tool-input-end', id: 'c1' },
    { type: 'tool-call', toolCallId: 'c1', toolName: 'delete_everything', input: { path: '/' }, dynamic: true, invalid: true, error },
    { type: 'tool-error', toolCallId: 'c1', toolName: 'delete_everything', input: { path: '/' }, error: 'Model tried to call unavailable tool', dynamic: true },
    { type: 'finish-step', finishReason: 'tool-calls' },
    { type: 'text-start', id: 't1' },
    { type: 'text-delta', id: 't1', text: 'Done.' },
    { type: 'text-end', id: 't1' },
    { type: 'finish', finishReason: 'stop' },
  ];

  it('ProviderEventStream ai-sdk: a tool-call part the AI SDK marks invalid (a made-up tool) is a failed call with a ProviderError tool-input-error, never a call to run', async () => {
    const error = Object.assign(new Error("Model tried to call unavailable tool 'delete_everything'."), { name: 'AI_NoSuchToolError' });
    const turn = await collectTurn(streamOf<object>(invalidCall(error)).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk' })), { isolateErrors: true });
    expect(turn.toolCalls).toEqual([]);
    expect(turn.failedToolCalls).toEqual([expect.objectContaining({ toolCallId: 'c1', toolName: 'delete_everything' })]);
    expect(turn.failedToolCalls[0]?.error).toBeInstanceOf(ProviderError);
    expect(turn.failedToolCalls[0]?.error).toMatchObject({ provider: 'ai-sdk', type: 'tool-input-error', message: "Model tried to call unavailable tool 'delete_everything'.", cause: error });
    expect(turn.text).toBe('Done.');
  });

  it('collectTurn on ai-sdk parts fails only the invalid call by default; the turn goes on', async () => {
    const turn = await collectTurn(streamOf<object>(invalidCall(new Error('no such tool'))).pipeThrough(new ProviderEventStream({ provider: 'ai-sdk' })));
    expect(turn.failedToolCalls.map((c) => c.toolCallId)).toEqual(['c1']);
    expect(turn.text).toBe('Done.');
  });
});
