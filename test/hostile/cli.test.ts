/**
 * The `argstream` command on hostile recordings: a tool id that writes the clipboard (OSC 52), a
 * key that sets a color through the C1 CSI (U+009B), carriage returns, DEL, an error message full
 * of escapes, a file name and a command line with them. Whatever the view, in text or JSON, on
 * stdout or stderr, no raw control character but line feed (and tab) reaches the terminal: text
 * views show them as TerminalSink does (`␛`, `␇`, U+FFFD for C1, CR dropped), JSON escapes them.
 *
 * The command runs from source: src/cli/main.ts bundled with esbuild into a temporary directory.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TerminalRenderer, type FinishedEvent, type PipelineEvent } from '../../src/index.ts';

/** Control characters a terminal acts on: C0 but tab and line feed, DEL, C1. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const OSC52 = '\u001b]52;c;ZXZpbA==\u0007';
const CSI_KEY = '\u009b31m';

/** An Anthropic SSE event. */
function sse(type: string, data: object): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/** A turn whose text, tool id, tool name, argument keys and values, and stop reason carry escapes. */
const HOSTILE_TURN = [
  sse('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } } }),
  sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: `hello\r\u001b[2J${CSI_KEY}\u007f world\n` } }),
  sse('content_block_stop', { index: 0 }),
  sse('content_block_start', { index: 1, content_block: { type: 'tool_use', id: OSC52, name: `write_file\r\u009b2J`, input: {} } }),
  sse('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: JSON.stringify({ [CSI_KEY]: `a\r${OSC52}b`, path: `x\u001b[8m\u0085` }) } }),
  sse('content_block_stop', { index: 1 }),
  sse('message_delta', { delta: { stop_reason: `tool_use\u001b]0;title\u0007`, stop_sequence: null }, usage: { output_tokens: 9 } }),
  sse('message_stop', {}),
].join('');

/** A turn that stops (max_tokens) inside a call whose name, id and key carry escapes: an incomplete call, whose problem goes to stderr. */
const CUT_TURN = [
  sse('message_start', { message: { id: 'msg_2', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } } }),
  sse('content_block_start', { index: 0, content_block: { type: 'tool_use', id: OSC52, name: `run${CSI_KEY}`, input: {} } }),
  sse('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: `{"${CSI_KEY}\\u001b[2J": "x` } }),
  sse('message_delta', { delta: { stop_reason: 'max_tokens', stop_sequence: null }, usage: { output_tokens: 9 } }),
  sse('message_stop', {}),
].join('');

/** A provider error whose message carries escapes. */
const ERROR_TURN = [
  sse('message_start', { message: { id: 'msg_3', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } } }),
  sse('error', { error: { type: `overloaded_error${CSI_KEY}`, message: `try again ${OSC52}\r\n\u001b[2Jlater` } }),
].join('');

const VIEWS = ['events', 'fragments', 'fields', 'paths', 'turn'] as const;

let dir: string;
let cli: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'argstream-hostile-cli-'));
  cli = join(dir, 'main.mjs');
  await build({ entryPoints: [fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))], outfile: cli, bundle: true, platform: 'node', format: 'esm', target: 'node20', logLevel: 'silent' });
  writeFileSync(join(dir, 'hostile.sse'), HOSTILE_TURN);
  writeFileSync(join(dir, 'cut.sse'), CUT_TURN);
  writeFileSync(join(dir, 'error.sse'), ERROR_TURN);
  // The demo imports the package by its name: here, the source.
  const src = fileURLToPath(new URL('../../src/index.ts', import.meta.url));
  await build({ entryPoints: [fileURLToPath(new URL('../../examples/live-demo.mjs', import.meta.url))], outfile: join(dir, 'live-demo.mjs'), bundle: true, platform: 'node', format: 'esm', target: 'node20', alias: { argstream: src }, logLevel: 'silent' });
});
afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** Run the command (or `script`), without colors, standard input closed. */
function run(args: readonly string[], script = cli): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end();
  });
}

/** The first raw control character of `text` and what surrounds it, or `undefined`. */
function rawControl(text: string): string | undefined {
  const at = text.search(RAW_CONTROL);
  return at === -1 ? undefined : JSON.stringify(text.slice(Math.max(0, at - 40), at + 20));
}

describe('argstream inspect on hostile recordings', () => {
  for (const view of VIEWS) {
    for (const json of [false, true]) {
      it(`argstream inspect --view ${view}${json ? ' --json' : ''} writes no raw control character`, async () => {
        for (const file of ['hostile.sse', 'cut.sse', 'error.sse']) {
          const result = await run(['inspect', '--provider', 'anthropic', '--view', view, ...(json ? ['--json'] : []), file]);
          expect(result.stdout.length + result.stderr.length, file).toBeGreaterThan(0);
          expect(rawControl(result.stdout), `${file} stdout`).toBeUndefined();
          expect(rawControl(result.stderr), `${file} stderr`).toBeUndefined();
          if (json) for (const line of result.stdout.split('\n').filter((l) => l !== '')) JSON.parse(line);
        }
      });
    }
  }

  it('argstream inspect --view events shows the escapes of a tool id, a name and a stop reason as TerminalSink does', async () => {
    const result = await run(['inspect', '--provider', 'anthropic', '--view', 'events', 'hostile.sse']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('part #1 tool-call-start write_file\ufffd2J ␛]52;c;ZXZpbA==␇\n');
    expect(result.stdout).toContain('finished other (tool_use␛]0;title␇) · 1 in / 9 out tokens\n');
  });

  it('argstream inspect --json keeps the exact values, escaped: JSON.parse gives back the hostile id and key', async () => {
    const result = await run(['inspect', '--provider', 'anthropic', '--view', 'turn', '--json', 'hostile.sse']);
    const turn = JSON.parse(result.stdout.trim().split('\n').at(-1) as string) as { toolCalls: Array<{ toolCallId: string; toolName: string; arguments: Record<string, string> }> };
    expect(turn.toolCalls).toHaveLength(1);
    expect(turn.toolCalls[0]?.toolCallId).toBe(OSC52);
    expect(turn.toolCalls[0]?.toolName).toBe('write_file\r\u009b2J');
    expect(turn.toolCalls[0]?.arguments).toEqual({ [CSI_KEY]: `a\r${OSC52}b`, path: 'x\u001b[8m\u0085' });
    expect(result.stdout).toContain('"toolCallId":"\\u001b]52;c;ZXZpbA==\\u0007"');
  });

  it('argstream inspect writes an incomplete call\'s id and a provider error\'s message to stderr with their escapes visible', async () => {
    const cut = await run(['inspect', '--provider', 'anthropic', 'cut.sse']);
    expect(cut.code).toBe(3);
    expect(cut.stderr).toContain('tool call run\ufffd31m (␛]52;c;ZXZpbA==␇) is incomplete');
    const failed = await run(['inspect', '--provider', 'anthropic', 'error.sse']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^argstream: .*try again ␛]52;c;ZXZpbA==␇ ␛\[2Jlater\n$/);
  });

  it('argstream writes a hostile file name and a hostile command with their escapes visible', async () => {
    const missing = await run(['inspect', `no-such-${OSC52}${CSI_KEY}.sse`]);
    expect(missing.code).toBe(1);
    expect(rawControl(missing.stderr)).toBeUndefined();
    expect(missing.stderr).toContain('cannot read no-such-␛]52;c;ZXZpbA==␇\ufffd31m.sse');
    const usage = await run([`${CSI_KEY}\u001b]52;c;eA==\u0007`]);
    expect(usage.code).toBe(2);
    expect(rawControl(usage.stderr)).toBeUndefined();
    const replay = await run(['replay', `gone-${CSI_KEY}.sse`]);
    expect(replay.code).toBe(1);
    expect(rawControl(replay.stderr)).toBeUndefined();
  });
});

describe('TerminalRenderer on events a hostile relay decodes', () => {
  it('TerminalRenderer shows a finish reason and usage that are not the normalized ones with their escapes visible', () => {
    // A relay decoder gives back whatever reason and usage the wire says: nothing checks them against the union.
    const finished = { type: 'finished', reason: `stop${OSC52}`, rawReason: 'end_turn', usage: { inputTokens: `${CSI_KEY}1`, outputTokens: 2 } } as unknown as FinishedEvent;
    const renderer = new TerminalRenderer({ color: false });
    const events: PipelineEvent[] = [{ type: 'message', index: 0, text: 'hi' }, finished];
    let text = '';
    for (const event of events) text += renderer.push(event);
    text += renderer.end();
    expect(rawControl(text)).toBeUndefined();
    expect(text).toBe('hi\n\nfinished: stop␛]52;c;ZXZpbA==␇ (end_turn), \ufffd31m1 input + 2 output tokens\n');
  });
});

describe('the live demo (examples/live-demo.mjs) on a hostile command line', () => {
  it('live-demo names a wrong --provider only when it is a plain name, and writes no raw control character', async () => {
    const hostile = await run(['--provider', `${OSC52}${CSI_KEY}`], join(dir, 'live-demo.mjs'));
    expect(hostile.code).toBe(2);
    expect(rawControl(hostile.stderr)).toBeUndefined();
    expect(hostile.stderr).toMatch(/^--provider must be one of anthropic, openai-chat, openai-responses, gemini, ollama, bedrock\n\nUsage:/);
    const plain = await run(['--provider', 'cohere'], join(dir, 'live-demo.mjs'));
    expect(plain.stderr).toMatch(/^--provider must be one of anthropic, openai-chat, openai-responses, gemini, ollama, bedrock, not cohere\n/);
    const demo = await run(['--fast'], join(dir, 'live-demo.mjs'));
    expect(demo.code).toBe(0);
    expect(demo.stdout).toContain('arguments equal what the model sent: yes\n');
  });
});
