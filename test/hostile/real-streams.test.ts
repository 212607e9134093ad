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
import { ProviderError } from '../../src/errors.ts';
import { collectTurn, type Turn } from '../../src/sinks/collect-turn.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import { readFixture, streamOf } from '../helpers.ts';

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


