/**
 * examples/ai-sdk in Chromium (issue 22 §3, issue 30 §1): the AI SDK's own `useChat` pages with the
 * real `ai` packages, in both directions and for every major —
 *
 * - the AI SDK's server of the page's major (`streamText` of ai 5 with `@ai-sdk/anthropic` 2,
 *   `toUIMessageStreamResponse()`; `streamText` of ai 6 with `@ai-sdk/anthropic` 3,
 *   `toUIMessageStreamResponse()`; `streamText` of ai 7 with `@ai-sdk/anthropic` 4,
 *   `toUIMessageStream` → `createUIMessageStreamResponse`) and a page on `ArgstreamChatTransport`
 *   + `useTurn`;
 * - an argstream server (`fromResponse` → `UIMessageStreamEncoder`) and a plain page on the AI
 *   SDK's `DefaultChatTransport`;
 * - an argstream server sending path updates (`UIMessageStreamEncoder({ toolInputs:
 *   'path-updates' })`) and the page on `ArgstreamChatTransport`;
 *
 * each with `ai` 5 (`@ai-sdk/react` 2), `ai` 6 (`@ai-sdk/react` 3) and `ai` 7 (`@ai-sdk/react` 4).
 * Every server is served by
 * examples/ai-sdk/serve.mjs (argstream bundled from src/) in front of one Anthropic model on
 * loopback that stops at chosen points until the test lets it go on (scripted-model.ts); one
 * Chromium for every page. DOM assertions, and what the server received:
 *
 * - one write_file call written by the scripted model: right after its path (the path, no ✓),
 *   twice in the middle of its content (exactly the characters sent so far, then more of them: a
 *   proper prefix), then the end (✓ at `input-available`, exactly the input); Save runs the tool in
 *   the page (`addToolResult` with ai 5, `addToolOutput` with ai 6 and 7), `sendAutomaticallyWhen` sends
 *   the chat on, and the next request carries the result — in the UI messages the page POSTs and
 *   in the Messages request the server makes — and the model's answer to it is on the page;
 * - the connection cut in the middle of the content (the server drops it, as a network would):
 *   `ArgstreamChatTransport` resumes by itself, with no error shown; on `DefaultChatTransport`, the
 *   page's error and Resume, and `resumeStream()`; either reconnects (GET /api/chat/:id/stream), which
 *   replays the response from its start for ai 7 (`resumeStreamIsReplay`) and continues it from
 *   the cut for ai 5 and for ai 6 (@ai-sdk/react 3's `useChat` continues the message whatever the
 *   transport says: it does not pass `resumeStreamIsReplay` on to its `Chat`); the content shown is the same prefix, then a longer one, then exactly the
 *   input — never the prefix twice — in one assistant message with one text and one call;
 * - a real recorded Anthropic stream (test/fixtures/providers/anthropic/text-then-2-parallel-tool-use.sse,
 *   none of the recordings has a write_file call) replayed event by event, stopped in the middle of
 *   each call's input: each call's exact input so far, then ✓ and exactly the recorded inputs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageOf, startAiSdkExample, type AiSdkExample } from '../../examples/ai-sdk/serve.mjs';
import { readFixture } from '../helpers.ts';
import { manifestEntry } from '../manifest.ts';
import type { BrowserSession } from '../runtimes/harness.ts';
import { execute } from '../runtimes/harness.ts';
import { consoleProblems, IN_CI, send as sendOn, until as untilShown } from './page-harness.ts';
import { chromiumMissing, launchChromium } from '../runtimes/chromium/run.ts';
import { anthropicEvent, anthropicTurn, startScriptedModel, type ScriptedModel } from './scripted-model.ts';


interface Combo {
  readonly name: string;
  readonly server: 'ai-sdk' | 'argstream';
  readonly major: 5 | 6 | 7;
  /** How argstream's server sends a call's input (default: deltas, as the AI SDK's server does). */
  readonly toolInputs?: 'path-updates';
}

const COMBOS: readonly Combo[] = ([5, 6, 7] as const).flatMap((major): Combo[] => [
  { name: `the AI SDK's server (ai ${major}), ArgstreamChatTransport, ai ${major}`, server: 'ai-sdk', major },
  { name: `an argstream server, DefaultChatTransport, ai ${major}`, server: 'argstream', major },
  { name: `an argstream server sending path updates, ArgstreamChatTransport, ai ${major}`, server: 'argstream', major, toolInputs: 'path-updates' },
]);

/**
 * Whether the AI SDK's own part has an input while a call streams: not on argstream's transport
 * (the deltas, or the path updates, never reach the AI SDK), its parse so far on its own transport.
 */
const partInputWhileStreaming = (combo: Combo): 'none' | 'some' => (pageOf(combo.server, combo.toolInputs) === 'argstream-client' ? 'none' : 'some');

/** What the AI SDK's Anthropic provider of each major says it is (its `user-agent`). */
const PROVIDER_OF_MAJOR = { 5: /^ai-sdk\/anthropic\/2\.\d+\.\d+ /, 6: /^ai-sdk\/anthropic\/3\.\d+\.\d+ /, 7: /^ai-sdk-anthropic\/4\.\d+\.\d+ / } as const;

/** The call the model writes: escapes, quotes, non-ASCII and an emoji in the content. */
const EXPECTED = {
  path: 'src/greet.rs',
  content:
    'pub fn greet(name: &str) -> String {\n    format!("héllo, {name} 👋 \\"friend\\"\\n")\n}\n\n#[test]\nfn greets() {\n    assert_eq!(greet("ana"), "héllo, ana 👋 \\"friend\\"\\n");\n}\n\n#[test]\nfn greets_bob() {\n    assert!(greet("bob").starts_with("héllo, bob"));\n}\n',
};
const TEXT = "I'll add the greeting function.";
const ANSWER = 'Saved src/greet.rs: run `cargo test`.';
const CALL_ID = 'toolu_file_1';

/** Model-sized pieces of the call's argument JSON. */
const PIECES = JSON.stringify(EXPECTED).match(/[\s\S]{1,7}/g)!;
const ARGUMENTS = PIECES.join('');
const CONTENT_START = ARGUMENTS.indexOf('"content":"') + '"content":"'.length;

/**
 * The content after the first `k` pieces, when that is a clean cut: not inside an escape, not
 * between the halves of a surrogate pair (where the AI SDK's own parse and argstream's may differ
 * by a character: the stops are put where both must show exactly this).
 */
function cleanContentAfter(k: number): string | undefined {
  const raw = PIECES.slice(0, k).join('').slice(CONTENT_START);
  try {
    const text = JSON.parse(`"${raw}"`) as string;
    return /[\uD800-\uDBFF]$/.test(text) ? undefined : text;
  } catch {
    return undefined;
  }
}

/** The first clean stop at or after `length` characters of the argument text: how many pieces. */
function stopAt(length: number): number {
  let k = 0;
  for (let sent = 0; sent < length; k++) sent += PIECES[k]!.length;
  while (cleanContentAfter(k) === undefined) k++;
  return k;
}

/** What the page shows of the content after `k` pieces. */
function contentAfter(k: number): string {
  return cleanContentAfter(k)!;
}

/** The model's turn: the text, then the call; `firstPiece` is the index of its first argument event. */
function callTurn() {
  const { events, firstPiece } = anthropicTurn(TEXT, [{ id: CALL_ID, name: 'write_file', pieces: PIECES }]);
  return { events, firstPiece: firstPiece[0]! };
}

/** The model's answer to the tool result: a sentence, `end_turn`. */
function answerTurn(): string[] {
  return [
    anthropicEvent('message_start', { message: { id: 'msg_answer', type: 'message', role: 'assistant', content: [], model: 'test', stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } }),
    anthropicEvent('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    anthropicEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text: ANSWER } }),
    anthropicEvent('content_block_stop', { index: 0 }),
    anthropicEvent('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 12 } }),
    anthropicEvent('message_stop', {}),
  ];
}

// ---------------------------------------------------------------------------------------------
// A recorded stream

/** A real Anthropic capture: a text, then two calls whose inputs stream in small pieces. */
const RECORDING = 'anthropic/text-then-2-parallel-tool-use.sse';
/** The tools the AI SDK's servers declare for it (the AI SDK fails a call to a tool it was not given). */
const RECORDED_TOOLS = { get_weather: { type: 'object' }, get_time: { type: 'object' } };

/** The recording's SSE events, byte for byte, one write each. */
const RECORDED_EVENTS = new TextDecoder().decode(readFixture(`providers/${RECORDING}`)).split(/(?<=\n\n)/);

/** The event after the one that carries `partialJson` as a call's input piece: where the model stops. */
function stopAfterPiece(partialJson: string): number {
  const index = RECORDED_EVENTS.findIndex((event) => event.includes(`"partial_json":${JSON.stringify(partialJson)}`));
  if (index < 0) throw new Error(`no input piece ${partialJson} in ${RECORDING}`);
  return index + 1;
}

/**
 * Where the replay stops, and what the page shows then: every call so far with its input so far
 * (strings as the prefix that arrived; a call whose block ended is complete).
 */
const RECORDED_STOPS = [
  { stop: stopAfterPiece('w Y'), calls: [['get_weather', 'input-streaming', { location: 'New Y' }]] },
  { stop: stopAfterPiece(': "fahrenhe'), calls: [['get_weather', 'input-streaming', { location: 'New York, NY', unit: 'fahrenhe' }]] },
  {
    stop: stopAfterPiece('rica/'),
    calls: [
      ['get_weather', 'input-available', { location: 'New York, NY', unit: 'fahrenheit' }],
      ['get_time', 'input-streaming', { timezone: 'America/' }],
    ],
  },
] as const;

/** The recording's text: its text deltas, joined. */
const RECORDED_TEXT = RECORDED_EVENTS.flatMap((event) => {
  const data = /^data: (.*)$/m.exec(event)?.[1];
  const parsed = data === undefined ? undefined : (JSON.parse(data) as { type: string; delta?: { type: string; text?: string } });
  return parsed?.type === 'content_block_delta' && parsed.delta?.type === 'text_delta' ? [parsed.delta.text ?? ''] : [];
}).join('');

// ---------------------------------------------------------------------------------------------
// The page

function shown(session: BrowserSession) {
  return session.evaluate(() => {
    const messages = Array.from(document.querySelectorAll<HTMLElement>('#messages article.message')).map((message) => ({
      role: message.dataset['role'],
      texts: Array.from(message.querySelectorAll(':scope > .text')).map((text) => text.textContent ?? ''),
      calls: Array.from(message.querySelectorAll<HTMLElement>('article.call')).map((call) => ({
        id: call.dataset['id'],
        tool: call.dataset['tool'],
        input: call.querySelector('.input-value')?.textContent ?? null,
        state: call.dataset['state'],
        partInput: call.dataset['partInput'],
        path: call.querySelector('.path-value')?.textContent ?? null,
        content: call.querySelector('.content-value')?.textContent ?? null,
        check: call.querySelector('.check')?.textContent ?? null,
        save: call.querySelector('.save') !== null,
        output: call.querySelector('.output')?.textContent ?? null,
        error: call.querySelector('.call-error')?.textContent ?? null,
      })),
    }));
    return {
      setup: document.getElementById('versions')?.textContent ?? '',
      status: document.getElementById('status')?.dataset['status'],
      error: document.getElementById('error')?.textContent ?? null,
      resume: document.getElementById('resume') !== null,
      messages,
      calls: messages.flatMap((message) => message.calls),
      call: messages.flatMap((message) => message.calls)[0],
    };
  });
}

type Shown = Awaited<ReturnType<typeof shown>>;

/** Poll what the page shows until `ready` says so; fails with the last thing shown. */
const until = (session: BrowserSession, ready: (page: Shown) => boolean, what: string, timeoutMs = 15_000): Promise<Shown> => untilShown(session, shown, ready, what, timeoutMs);

/** Open the page and press Send, as a user would. */
const send = (session: BrowserSession, example: AiSdkExample): Promise<void> => sendOn(session, `${example.url}/`);


// ---------------------------------------------------------------------------------------------

let model: ScriptedModel;
let session: BrowserSession | undefined;
const examples = new Map<string, AiSdkExample>();

beforeAll(async () => {
  const starting: Array<Promise<void>> = [startScriptedModel().then((m) => void (model = m))];
  if (chromiumMissing() === undefined) starting.push(launchChromium().then((s) => void (session = s)));
  await Promise.all(starting);
  // One after the other: each bundles a page (2 cores).
  for (const combo of COMBOS) {
    examples.set(
      combo.name,
      await startAiSdkExample({
        server: combo.server,
        major: combo.major,
        argstream: 'src',
        anthropicUrl: model.url,
        ...(combo.toolInputs === undefined ? {} : { toolInputs: combo.toolInputs }),
        ...(combo.server === 'ai-sdk' ? { moreTools: RECORDED_TOOLS } : {}),
      }),
    );
  }
}, 150_000);

afterAll(async () => {
  await session?.close();
  for (const example of examples.values()) await example.close();
  await model?.close();
}, 30_000);

/** The browser, or the test skipped with what to install (failed in CI). */
function browser(context: { skip(note?: string): void }): BrowserSession {
  const why = chromiumMissing();
  if (why !== undefined) {
    if (IN_CI) throw new Error(`Chromium is required in CI: ${why}`);
    console.warn(`skipped: ${why}`);
    context.skip(why);
  }
  if (session === undefined) throw new Error('Chromium did not start');
  return session;
}

function exampleOf(combo: Combo): AiSdkExample {
  const example = examples.get(combo.name);
  if (example === undefined) throw new Error(`the example for ${combo.name} did not start`);
  return example;
}

describe('examples/ai-sdk without a browser', () => {
  it('type-checks against ai 5 with @ai-sdk/react 2, ai 6 with @ai-sdk/react 3 and ai 7 with @ai-sdk/react 4', async () => {
    const tsc = new URL('../../node_modules/typescript/bin/tsc', import.meta.url).pathname;
    // One after the other (2 cores); the layouts npm makes with two `ai` packages are checked on the
    // packed package (test/package/install.test.ts): paths here would send the hook's `ai` too.
    for (const project of ['examples/ai-sdk', 'examples/ai-sdk/tsconfig.ai6.json', 'examples/ai-sdk/tsconfig.ai7.json']) {
      const result = await execute(process.execPath, [tsc, '-p', project, '--noEmit'], { timeoutMs: 90_000 });
      expect(result.stdout + result.stderr, project).toBe('');
    }
  }, 240_000);

  it("bundles one `ai` per page: the hook's own (ai 6 for @ai-sdk/react 3, ai 7 for @ai-sdk/react 4), which argstream's transport extends", async () => {
    for (const combo of COMBOS) {
      const bundle = await (await fetch(`${exampleOf(combo).url}/app.js`)).text();
      // One HttpChatTransport class (a second `ai` would add HttpChatTransport2).
      expect(bundle.match(/\bvar HttpChatTransport\d* = class/g), combo.name).toEqual(['var HttpChatTransport = class']);
      // @ai-sdk/react 4 (ai 7) has queued messages, @ai-sdk/react 2 and 3 do not.
      expect(bundle.includes('experimental_queuedMessages'), combo.name).toBe(combo.major === 7);
      // ai 6's own version string (ai 5's and 7's bundles have theirs).
      expect(bundle.includes('"6.0.'), combo.name).toBe(combo.major === 6);
      expect(bundle.includes('class ArgstreamChatTransport') || /ArgstreamChatTransport = class/.test(bundle), combo.name).toBe(pageOf(combo.server, combo.toolInputs) === 'argstream-client');
    }
  });
});

/** The chunks of a UI message stream's SSE body. */
function chunksOf(sse: string): Array<{ type: string; [key: string]: unknown }> {
  return sse
    .split('\n\n')
    .map((event) => event.replace(/^data: /, ''))
    .filter((data) => data !== '' && data !== '[DONE]')
    .map((data) => JSON.parse(data) as { type: string });
}

describe('examples/ai-sdk without a key', () => {
  for (const [server, major] of [['ai-sdk', 5], ['ai-sdk', 6], ['ai-sdk', 7], ['argstream', 7]] as const) {
    it(`serve.mjs (${server} server, ai ${major}) answers with the recorded model: the write_file call, then the answer to its result`, async () => {
      const example = await startAiSdkExample({ server, major, argstream: 'src', delayMs: 0 });
      try {
        const page = await (await fetch(`${example.url}/`)).text();
        expect(page).toContain('<script type="module" src="/app.js"></script>');
        for (const file of ['/style.css', '/chat.css']) expect((await fetch(`${example.url}${file}`)).status).toBe(200);
        const user = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Write a word counter' }] };
        const post = (messages: object[]) =>
          fetch(`${example.url}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'chat-1', messages, trigger: 'submit-message' }) });
        const first = await post([user]);
        expect(first.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
        const chunks = chunksOf(await first.text());
        const call = chunks.find((chunk) => chunk.type === 'tool-input-available') as unknown as { toolCallId: string; toolName: string; input: { path: string; content: string } };
        expect(call.toolName).toBe('write_file');
        expect(call.input.path).toBe('src/main.rs');
        expect(call.input.content).toMatch(/^use std::io::\{self, BufRead\};\n[\s\S]*words — \\"done\\" ✓"\);\n\}\n$/);
        expect(chunks.filter((chunk) => chunk.type === 'tool-input-delta').length).toBeGreaterThan(50);
        expect(chunks.at(-1)).toMatchObject({ type: 'finish' });
        // Everything was sent: nothing to reconnect to.
        expect((await fetch(`${example.url}/api/chat/chat-1/stream`)).status).toBe(204);

        const assistant = { id: 'a1', role: 'assistant', parts: [{ type: 'step-start' }, { type: 'tool-write_file', toolCallId: call.toolCallId, state: 'output-available', input: call.input, output: { saved: 'src/main.rs' } }] };
        const second = chunksOf(await (await post([user, assistant])).text());
        const text = second.filter((chunk) => chunk.type === 'text-delta').map((chunk) => chunk['delta']).join('');
        expect(text).toBe('Saved src/main.rs. Build and run it with `cargo run < input.txt`.');
        expect(example.modelRequests.at(-1).messages.at(-1).content[0]).toMatchObject({ type: 'tool_result', tool_use_id: call.toolCallId });
        // The AI SDK's server is that major's: its Anthropic provider (2 for ai 5, 3 for ai 6, 4 for ai 7) made the requests.
        for (const agent of example.modelUserAgents) {
          if (server === 'ai-sdk') expect(agent).toMatch(PROVIDER_OF_MAJOR[major]);
          else expect(agent).toBeNull();
        }
      } finally {
        await example.close();
      }
    });
  }
});

/** What the server sent to the page: each call's input as deltas (the AI SDK's servers, argstream's by default), or as path updates only. */
function expectInputsSentAsConfigured(combo: Combo, response: readonly Uint8Array[]): void {
  const types = chunksOf(new TextDecoder().decode(Buffer.concat(response))).map((chunk) => chunk.type);
  expect(types.includes('tool-input-delta'), 'tool-input-delta chunks').toBe(combo.toolInputs !== 'path-updates');
  expect(types.includes('data-argstream-tool-input'), 'path update chunks').toBe(combo.toolInputs === 'path-updates');
  expect(types).toContain('tool-input-available');
}

describe('examples/ai-sdk in Chromium', () => {
  for (const combo of COMBOS) {
    describe(combo.name, () => {
      it('shows the write_file path, then a growing exact prefix of the content, then ✓ and exactly the input; Save sends the tool result back to the server and the model', async (context) => {
        const page = browser(context);
        const example = exampleOf(combo);
        const pathEnd = ARGUMENTS.indexOf('","content":"') + 1;
        let pathStop = 0;
        for (let sent = 0; sent < pathEnd; pathStop++) sent += PIECES[pathStop]!.length;
        const stops = [pathStop, stopAt(CONTENT_START + 40), stopAt(CONTENT_START + 120)];
        expect(PIECES.slice(0, stops[0]).join('').length, 'stop 0 comes before the content key is complete').toBeLessThan(CONTENT_START - 2);
        const { events, firstPiece } = callTurn();
        const script = model.play(
          events,
          stops.map((k) => firstPiece + k),
        );
        const requestsBefore = example.requests.length;
        await send(page, example);
        expect((await shown(page)).setup).toContain(`ai ${combo.major}`);

        await script.reached(0);
        if (combo.server === 'ai-sdk') expect(example.modelUserAgents.at(-1)).toMatch(PROVIDER_OF_MAJOR[combo.major]);
        const path = await until(page, (p) => p.call?.path === EXPECTED.path, 'the path');
        expect(path.status).toBe('streaming');
        expect(path.call).toMatchObject({ id: CALL_ID, state: 'input-streaming', check: null, save: false });
        expect(path.messages.map((m) => [m.role, m.texts])).toEqual([
          ['user', ['Write a word counter in Rust to src/main.rs']],
          ['assistant', [TEXT]],
        ]);

        script.next();
        await script.reached(1);
        const first = await until(page, (p) => p.call?.content === contentAfter(stops[1]!), `the content's first ${contentAfter(stops[1]!).length} characters`);
        expect(first.call!.content!.length).toBeGreaterThan(0);
        expect(first.call).toMatchObject({ state: 'input-streaming', path: EXPECTED.path, check: null });
        // With argstream's transport the AI SDK never saw a delta (or a path update): its part has no
        // input yet, the content on the page is the transport's snapshot. With its own transport, its parse.
        expect(first.call!.partInput).toBe(partInputWhileStreaming(combo));

        script.next();
        await script.reached(2);
        const second = await until(page, (p) => p.call?.content === contentAfter(stops[2]!), `the content's first ${contentAfter(stops[2]!).length} characters`);
        expect(second.call!.content!.length).toBeGreaterThan(first.call!.content!.length);
        expect(second.call!.content!.length).toBeLessThan(EXPECTED.content.length);
        expect(EXPECTED.content.startsWith(second.call!.content!)).toBe(true);
        expect(second.call).toMatchObject({ state: 'input-streaming', check: null });

        script.next();
        const end = await until(page, (p) => p.status === 'ready', 'the end of the stream');
        expect(end.error).toBeNull();
        expect(end.call).toMatchObject({ id: CALL_ID, state: 'input-available', partInput: 'some', check: '✓', path: EXPECTED.path, content: EXPECTED.content, save: true, output: null });

        // Save: the page runs the tool and the chat sends its result on by itself.
        const answer = model.play(answerTurn());
        await page.click('#messages .call .save');
        const answered = await until(page, (p) => p.status === 'ready' && p.messages.at(-1)?.texts.includes(ANSWER) === true, "the model's answer to the result");
        const output = { saved: EXPECTED.path, bytes: new TextEncoder().encode(EXPECTED.content).length };
        expect(answered.call).toMatchObject({ state: 'output-available', check: '✓', content: EXPECTED.content, save: false });
        expect(JSON.parse(answered.call!.output!)).toEqual(output);
        expect(answered.messages.map((m) => [m.role, m.texts])).toEqual([
          ['user', ['Write a word counter in Rust to src/main.rs']],
          ['assistant', [TEXT, ANSWER]],
        ]);
        await answer.ended;

        expectInputsSentAsConfigured(combo, example.responses.at(-2)!);

        // What the server received: the result in the UI messages of the next request…
        const posts = example.requests.slice(requestsBefore).filter((request) => request.method === 'POST');
        expect(posts).toHaveLength(2);
        const assistant = posts[1]!.body.messages.at(-1);
        expect(assistant.role).toBe('assistant');
        const part = assistant.parts.find((p: { toolCallId?: string }) => p.toolCallId === CALL_ID);
        expect(part).toMatchObject({ type: 'tool-write_file', state: 'output-available', input: EXPECTED, output });
        // …and, from the server, in the Messages request: the call and its tool_result.
        const upstream = example.modelRequests.at(-1).messages;
        expect(upstream.at(-2)).toMatchObject({ role: 'assistant', content: expect.arrayContaining([expect.objectContaining({ type: 'tool_use', id: CALL_ID, name: 'write_file', input: EXPECTED })]) });
        const result = upstream.at(-1).content.find((block: { type: string }) => block.type === 'tool_result');
        expect(result).toMatchObject({ tool_use_id: CALL_ID });
        const resultText = typeof result.content === 'string' ? result.content : result.content.map((c: { text: string }) => c.text).join('');
        expect(JSON.parse(resultText)).toEqual(output);

        expect(page.problems()).toEqual([]);
        expect(await consoleProblems(page)).toEqual([]);
      });

      it(`resumes a cut stream — ${pageOf(combo.server, combo.toolInputs) === 'argstream-client' ? 'the transport by itself' : 'resumeStream()'} (${combo.major === 7 ? 'a replay from the start' : 'a continuation from the cut'}) — without doubling the partial input`, async (context) => {
        const page = browser(context);
        const example = exampleOf(combo);
        const stops = [stopAt(CONTENT_START + 40), stopAt(CONTENT_START + 120)];
        const { events, firstPiece } = callTurn();
        const script = model.play(
          events,
          stops.map((k) => firstPiece + k),
        );
        const problemsBefore = page.problems().length;
        await send(page, example);

        await script.reached(0);
        const before = await until(page, (p) => p.call?.content === contentAfter(stops[0]!), 'the content before the cut');
        expect(before.call).toMatchObject({ state: 'input-streaming', path: EXPECTED.path });

        const chatId = example.requests.at(-1)!.body.id as string;
        const gets = example.requests.length;
        // The network drops the connection; the server goes on reading the model's answer.
        expect(example.cut()).toBe(1);
        let resumed: Shown;
        if (pageOf(combo.server, combo.toolInputs) === 'argstream-client') {
          // ArgstreamChatTransport resumes by itself (the same GET): no error, no Resume to press.
          resumed = await until(page, (p) => example.requests.length > gets && p.call?.content === contentAfter(stops[0]!), "the transport's own resume");
          expect(resumed.status).not.toBe('error');
        } else {
          const cut = await until(page, (p) => p.status === 'error' && p.resume, 'the error of the cut connection, and Resume');
          expect(cut.error).toMatch(/^TypeError: .*network/i);
          expect(cut.call).toMatchObject({ state: 'input-streaming', path: EXPECTED.path, content: contentAfter(stops[0]!) });
          await page.click('#resume');
          resumed = await until(page, (p) => p.status !== 'error' && p.call?.content === contentAfter(stops[0]!), 'the same content after the reconnect');
        }
        expect(example.requests.slice(gets).map((request) => [request.method, request.path])).toEqual([['GET', `/api/chat/${chatId}/stream`]]);
        expect(resumed.error).toBeNull();
        expect(resumed.call!.partInput).toBe(partInputWhileStreaming(combo));
        expect(resumed.messages.map((m) => [m.role, m.texts, m.calls.length])).toEqual([
          ['user', ['Write a word counter in Rust to src/main.rs'], 0],
          ['assistant', [TEXT], 1],
        ]);

        script.next();
        await script.reached(1);
        const later = await until(page, (p) => p.call?.content === contentAfter(stops[1]!), `the content's first ${contentAfter(stops[1]!).length} characters, once`);
        expect(later.call).toMatchObject({ state: 'input-streaming', check: null });
        expect(EXPECTED.content.startsWith(later.call!.content!)).toBe(true);

        script.next();
        const end = await until(page, (p) => p.status === 'ready', 'the end of the resumed stream');
        expect(end.error).toBeNull();
        expect(end.messages.map((m) => [m.role, m.texts, m.calls.length])).toEqual([
          ['user', ['Write a word counter in Rust to src/main.rs'], 0],
          ['assistant', [TEXT], 1],
        ]);
        expect(end.call).toMatchObject({ id: CALL_ID, state: 'input-available', check: '✓', path: EXPECTED.path, content: EXPECTED.content });
        expect(page.problems().slice(problemsBefore)).toEqual([]);
        expect(await consoleProblems(page)).toEqual([]);
      });

      it(`shows the calls of a recorded Anthropic stream (${RECORDING}) replayed in pieces: each call's exact input so far, then ✓ and exactly the recorded inputs`, async (context) => {
        const page = browser(context);
        const example = exampleOf(combo);
        const script = model.play(
          RECORDED_EVENTS,
          RECORDED_STOPS.map((stop) => stop.stop),
        );
        const problemsBefore = page.problems().length;
        await send(page, example);
        const inputs = (p: Shown) => p.calls.map((call) => [call.tool, call.state, call.input === null ? null : (JSON.parse(call.input) as unknown)]);

        for (const [i, { calls }] of RECORDED_STOPS.entries()) {
          await script.reached(i);
          const mid = await until(page, (p) => JSON.stringify(inputs(p)) === JSON.stringify(calls), `stop ${i}: ${JSON.stringify(calls)}`);
          expect(mid.status).toBe('streaming');
          expect(mid.messages.map((m) => [m.role, m.texts])).toEqual([
            ['user', ['Write a word counter in Rust to src/main.rs']],
            ['assistant', [RECORDED_TEXT]],
          ]);
          expect(mid.calls.at(-1)).toMatchObject({ state: 'input-streaming', check: null, partInput: partInputWhileStreaming(combo) });
          script.next();
        }

        const end = await until(page, (p) => p.status === 'ready', 'the end of the recorded stream');
        expect(end.error).toBeNull();
        expect(end.messages.map((m) => [m.role, m.texts])).toEqual([
          ['user', ['Write a word counter in Rust to src/main.rs']],
          ['assistant', [RECORDED_TEXT]],
        ]);
        const recorded = manifestEntry(RECORDING).toolCalls;
        expect(recorded).toHaveLength(2);
        expect(end.calls.map((call) => ({ id: call.id, tool: call.tool, state: call.state, check: call.check, partInput: call.partInput, input: JSON.parse(call.input ?? 'null') as unknown }))).toEqual(
          recorded.map((call) => ({ id: call.id, tool: call.name, state: 'input-available', check: '✓', partInput: 'some', input: JSON.parse(call.args) as unknown })),
        );
        await script.ended;
        expectInputsSentAsConfigured(combo, example.responses.at(-1)!);
        if (combo.server === 'ai-sdk') expect(example.modelUserAgents.at(-1)).toMatch(PROVIDER_OF_MAJOR[combo.major]);
        expect(page.problems().slice(problemsBefore)).toEqual([]);
        expect(await consoleProblems(page)).toEqual([]);
      });
    });
  }
});
