/**
 * The Node terminal demo (`npm start`, examples/live-demo.mjs): it runs for every provider and
 * shows the file it streams and the exact-arguments check; its scripted responses are each
 * provider's wire format, as ProviderEventStream and the official SDKs read them.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { ProviderEventStream, collectTurn, type ProviderName } from '../src/index.ts';
import { eventFrame as oracleFrame } from './providers/event-stream-helpers.ts';
import { eventFrame } from '../examples/live-demo/aws-event-stream.mjs';
import { PROVIDERS, scriptedResponse as script } from '../examples/live-demo/wire-formats.mjs';

const run = promisify(execFile);
const demo = new URL('../examples/live-demo.mjs', import.meta.url).pathname;

/** The file the demo's model writes, as a user reads it in examples/live-demo.mjs. */
const FILE = [
  'use std::io::{self, BufRead};',
  '',
  '/// Counts the lines, words and characters on standard input, like `wc`.',
  'fn main() {',
  '    let stdin = io::stdin();',
  '    let (mut lines, mut words, mut chars) = (0usize, 0usize, 0usize);',
  '    for line in stdin.lock().lines() {',
  '        let line = line.expect("read error");',
  '        lines += 1;',
  '        words += line.split_whitespace().count();',
  '        chars += line.chars().count() + 1;',
  '    }',
  '    println!("{lines} lines, {words} words, {chars} characters — \\"done\\" ✓");',
  '}',
  '',
].join('\n');

// `npm test` builds dist/ first; the demo imports the package by its name, as a user would.
describe('examples: the terminal demo (npm start)', () => {
  it('live-demo offers every provider', () => {
    expect(PROVIDERS).toEqual(['anthropic', 'openai-chat', 'openai-responses', 'gemini', 'ollama', 'bedrock']);
  });

  for (const provider of ['anthropic', 'openai-chat', 'openai-responses', 'gemini', 'ollama', 'bedrock']) {
    it(`live-demo streams the ${provider} turn, the exact file content, and ends with the exact arguments`, async () => {
      const { stdout, stderr } = await run(process.execPath, [demo, '--fast', '--provider', provider]);
      expect(stderr).toBe('');
      expect(stdout).toMatch(new RegExp(`^argstream live demo: the model \\(${provider} wire format\\) streams from http://127\\.0\\.0\\.1:\\d+/`));
      expect(stdout).toContain("I'll create the word counter in src/main.rs.\n\n▶ write_file\n  creating src/main.rs   ← ");
      expect(stdout).toContain(`  ┌────────\n${FILE}  └────────\n`);
      expect(stdout).toContain('arguments equal what the model sent: yes\n');
      expect(stdout).toMatch(/\nfinished: tool-calls \([^)]+\), 120 input \+ 210 output tokens\n/);
      expect(stdout).toMatch(/argstream showed the path after \d+\.\d\d s and the content from \d+\.\d\d s on; a complete-call SDK would have shown it after \d+\.\d\d s, when the call's last event arrived/);
      expect(stdout).toContain(provider === 'ollama' ? 'ollama sent the call whole: any SDK shows it now' : 'an SDK that waits for the complete call shows nothing yet');
      expect(stdout).not.toContain('\x1b');
    });
  }

  it('live-demo --help says how to run it, and a wrong provider exits 2 with the list', async () => {
    const { stdout } = await run(process.execPath, [demo, '--help']);
    expect(stdout).toContain('Usage: npm start -- [--provider <name>] [--fast]');
    expect(stdout).toContain('anthropic, openai-chat, openai-responses, gemini, ollama, bedrock');
    const failure = await run(process.execPath, [demo, '--provider', 'cohere']).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toContain('--provider must be one of anthropic, openai-chat, openai-responses, gemini, ollama, bedrock, not cohere');
  });
});

/** A turn with what wire formats must escape: quotes, backslashes, newlines, non-ASCII. */
const TURN = {
  text: 'Writing "notes" — ✓ now.',
  call: { id: 'call_test01', name: 'write_file', arguments: { path: 'docs/nötes.md', content: 'a "quoted" \\ line\n\tand 😀\n', overwrite: true } },
  usage: { input: 7, output: 9 },
};

function bodyOf(chunks: ReadonlyArray<string | Uint8Array>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      const chunk = chunks[i++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
    },
  });
}

describe('examples: the demo speaks each provider wire format', () => {
  for (const provider of ['anthropic', 'openai-chat', 'openai-responses', 'gemini', 'ollama', 'bedrock'] as const) {
    it(`the demo's ${provider} script reads through ProviderEventStream to the scripted turn`, async () => {
      const turn = await collectTurn(bodyOf(script(provider, TURN).chunks).pipeThrough(new ProviderEventStream({ provider })));
      expect(turn.text).toBe(TURN.text);
      expect(turn.toolCalls.map((call) => [call.toolCallId, call.toolName, call.arguments])).toEqual([[provider === 'gemini' ? turn.toolCalls[0]?.toolCallId : TURN.call.id, 'write_file', TURN.call.arguments]]);
      expect(turn.finishReason).toBe('tool-calls');
      expect([turn.usage?.inputTokens, turn.usage?.outputTokens]).toEqual([7, 9]);
    });
  }

  it("the demo's Bedrock frames are byte for byte those of an encoder with zlib's CRC-32", () => {
    const payload = { contentBlockIndex: 1, delta: { toolUse: { input: '{"path":"ü' } } };
    expect(eventFrame('contentBlockDelta', payload)).toEqual(oracleFrame('contentBlockDelta', payload));
  });

  let server: Server | undefined;
  afterEach(() => {
    server?.close();
    server = undefined;
  });

  /** Serve `provider`'s scripted response on 127.0.0.1; its base URL. */
  async function serve(provider: ProviderName): Promise<string> {
    const response = script(provider, TURN);
    server = createServer((request, reply) => {
      request.resume();
      reply.writeHead(200, { 'content-type': response.contentType });
      for (const chunk of response.chunks) reply.write(chunk);
      reply.end();
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it("the Anthropic SDK's final message of the demo's anthropic script is the scripted turn", async () => {
    const client = new Anthropic({ apiKey: 'test', baseURL: await serve('anthropic'), maxRetries: 0 });
    const message = await client.messages.stream({ model: 'claude-demo', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
    expect(message.content).toEqual([
      { type: 'text', text: TURN.text },
      { type: 'tool_use', id: TURN.call.id, name: 'write_file', input: TURN.call.arguments },
    ]);
    expect(message.stop_reason).toBe('tool_use');
  });

  it("the OpenAI SDK's final chat completion of the demo's openai-chat script is the scripted turn", async () => {
    const client = new OpenAI({ apiKey: 'test', baseURL: `${await serve('openai-chat')}/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.stream({ model: 'gpt-demo', messages: [{ role: 'user', content: 'hi' }] }).finalChatCompletion();
    const message = completion.choices[0]?.message;
    expect(message?.content).toBe(TURN.text);
    expect(message?.tool_calls?.map((call) => (call.type === 'function' ? [call.id, call.function.name, JSON.parse(call.function.arguments)] : call))).toEqual([
      [TURN.call.id, 'write_file', TURN.call.arguments],
    ]);
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it("the OpenAI SDK's final response of the demo's openai-responses script is the scripted turn", async () => {
    const client = new OpenAI({ apiKey: 'test', baseURL: `${await serve('openai-responses')}/v1`, maxRetries: 0 });
    const response = await client.responses.stream({ model: 'gpt-demo', input: 'hi' }).finalResponse();
    expect(response.output_text).toBe(TURN.text);
    const call = response.output.find((item) => item.type === 'function_call');
    expect(call?.type === 'function_call' ? [call.call_id, call.name, JSON.parse(call.arguments)] : call).toEqual([TURN.call.id, 'write_file', TURN.call.arguments]);
  });
});
