// @ts-check
/**
 * The model of the example when no API key is given: a `fetch` for Anthropic's Messages API that
 * answers every request with a recipe as JSON text (what the model writes when the request asks for
 * structured output), in Anthropic's wire format, a few characters per event, at a model's pace.
 * The recipe is written here, not recorded; `anthropicRecipeEvents` is also what the tests' scripted
 * model plays.
 */

/** The recipe the stand-in writes: escapes, non-ASCII and an emoji in its strings. */
export const STAND_IN_RECIPE = {
  title: 'Crêpes "fines" 🥞',
  servings: 650,
  vegetarian: true,
  ingredients: [
    { name: 'flour', amount: '250 g' },
    { name: 'eggs', amount: '4' },
    { name: 'milk', amount: '½ l' },
  ],
  steps: ['Whisk the flour, the eggs and the milk\ninto a smooth batter.', 'Let it rest for an hour.', 'Cook each crêpe a minute per side in a hot, buttered pan.'],
};

/**
 * One SSE event of Anthropic's Messages stream.
 * @param {string} type
 * @param {object} data
 */
function anthropicEvent(type, data) {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/**
 * A Messages stream whose one text block is `text`, cut into `pieces` (default: 3–9 characters
 * each), then `end_turn`.
 * @param {string} text
 * @param {readonly string[]} [pieces]
 * @returns {string[]}
 */
export function anthropicRecipeEvents(text, pieces = text.match(/[\s\S]{1,7}/g) ?? []) {
  return [
    anthropicEvent('message_start', { message: { id: 'msg_recipe', type: 'message', role: 'assistant', content: [], model: 'claude-sonnet-4-5', stop_reason: null, usage: { input_tokens: 20, output_tokens: 1 } } }),
    anthropicEvent('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    ...pieces.map((piece) => anthropicEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text: piece } })),
    anthropicEvent('content_block_stop', { index: 0 }),
    anthropicEvent('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 120 } }),
    anthropicEvent('message_stop', {}),
  ];
}

/**
 * A `fetch` that answers every request with {@link STAND_IN_RECIPE}, one event per `delayMs`.
 * @param {{ delayMs?: number }} [options] pacing, per event (default 30)
 * @returns {typeof fetch}
 */
export function standInAnthropicFetch(options = {}) {
  const delayMs = options.delayMs ?? 30;
  return async (_input, init) => {
    const events = anthropicRecipeEvents(JSON.stringify(STAND_IN_RECIPE, null, 1));
    const signal = init?.signal ?? undefined;
    const utf8 = new TextEncoder();
    let i = 0;
    const stream = new ReadableStream({
      async pull(controller) {
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        if (signal?.aborted) return controller.error(signal.reason);
        const event = events[i++];
        if (event === undefined) controller.close();
        else controller.enqueue(utf8.encode(event));
      },
    });
    return new Response(stream, { headers: { 'content-type': 'text/event-stream; charset=utf-8', 'request-id': 'req_stand_in' } });
  };
}
