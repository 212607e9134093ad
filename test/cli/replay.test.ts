/**
 * `argstream replay`, run as a user runs it: it serves a recording on the provider's endpoint,
 * prints where, answers `fetch` and an official SDK, and stops on SIGINT / SIGTERM.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { manifestEntry } from '../manifest.ts';
import { expectedArguments } from '../providers/event-stream-helpers.ts';
import { assertBuilt, recordingPath, runCli, startCli, waitForOutput } from './cli-helpers.ts';

beforeAll(() => assertBuilt());

const running: ChildProcessWithoutNullStreams[] = [];

afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Start `argstream replay …args` and wait for the line that says where it listens. */
async function startReplay(args: readonly string[]): Promise<{ child: ChildProcessWithoutNullStreams; url: string; stdout: string; exited: Promise<number | null> }> {
  const child = startCli(['replay', ...args]);
  running.push(child);
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const stdout = await Promise.race([
    waitForOutput(child.stdout, (text) => text.includes('Ctrl-C stops it.'), 'replay banner'),
    exited.then((code) => {
      throw new Error(`argstream replay exited with ${code}: ${stderr}`);
    }),
  ]);
  const url = /at (http:\/\/127\.0\.0\.1:\d+)\n/.exec(stdout)?.[1];
  if (url === undefined) throw new Error(`no URL in: ${stdout}`);
  return { child, url, stdout, exited };
}

describe('argstream replay', () => {
  it('serves the recording byte for byte on the provider path, prints how to reach it, and stops on SIGINT', async () => {
    const file = recordingPath('anthropic/text-then-tool-use.sse');
    const { child, url, stdout, exited } = await startReplay([file, '--provider', 'anthropic']);
    expect(stdout).toContain('  endpoint  POST /v1/messages');
    expect(stdout).toContain(`curl -N -X POST -H 'content-type: application/json' -d '{}' '${url}/v1/messages'`);
    expect(stdout).toContain(`new Anthropic({ baseURL: '${url}', apiKey: 'replay' })`);

    const response = await fetch(`${url}/v1/messages`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(new Uint8Array(readFileSync(file)));

    const elsewhere = await fetch(`${url}/v1/chat/completions`, { method: 'POST', body: '{}' });
    expect(elsewhere.status).toBe(404);
    await elsewhere.arrayBuffer();

    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  it('the Anthropic SDK streams from it (baseURL) to the manifest\'s tool calls; argstream inspect reads the same bytes', async () => {
    const recording = manifestEntry('anthropic/text-then-2-parallel-tool-use.sse');
    const { child, url, exited } = await startReplay([recordingPath(recording.file)]);
    const client = new Anthropic({ baseURL: url, apiKey: 'replay', maxRetries: 0 });
    const message = await client.messages
      .stream({ model: 'replay', max_tokens: 1024, messages: [{ role: 'user', content: 'weather and time in New York' }] })
      .finalMessage();
    const calls = message.content.filter((block) => block.type === 'tool_use');
    expect(calls.map((block) => ({ id: block.id, name: block.name, input: block.input }))).toEqual(
      recording.toolCalls.map((call) => ({ id: call.id, name: call.name, input: expectedArguments(call.args) })),
    );

    // What `curl -N … | argstream inspect` does.
    const body = new Uint8Array(await (await fetch(`${url}/v1/messages`, { method: 'POST', body: '{}' })).arrayBuffer());
    const inspected = await runCli(['inspect', '--provider', 'anthropic', '--view', 'turn', '--json'], body);
    expect(inspected.code).toBe(0);
    const turn = JSON.parse(inspected.stdout.trim().split('\n').at(-1)!) as { toolCalls: Array<{ toolCallId: string; arguments: unknown }> };
    expect(turn.toolCalls.map((call) => [call.toolCallId, call.arguments])).toEqual(
      recording.toolCalls.map((call) => [call.id, expectedArguments(call.args)]),
    );
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('recognises an OpenAI Chat recording and serves it to the OpenAI SDK (baseURL …/v1)', async () => {
    const recording = manifestEntry('openai-chat/single-tool-call.sse');
    const { child, url, stdout, exited } = await startReplay([recordingPath(recording.file), '--delay', '1']);
    expect(stdout).toContain('(openai-chat, ');
    expect(stdout).toContain(`new OpenAI({ baseURL: '${url}/v1', apiKey: 'replay' })`);
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'replay', maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: 'replay', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    let args = '';
    let name = '';
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        name ||= call.function?.name ?? '';
        args += call.function?.arguments ?? '';
      }
    }
    const expected = recording.toolCalls[0]!;
    expect(name).toBe(expected.name);
    expect(args).toBe(expected.args);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  it('--status sends the file as an HTTP error body, which argstream inspect reports with the provider\'s message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'argstream-replay-'));
    try {
      const file = join(dir, 'overloaded.json');
      writeFileSync(file, '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}');
      const { child, url, exited } = await startReplay([file, '--status', '529']);
      const response = await fetch(`${url}/v1/messages`, { method: 'POST', body: '{}' });
      expect(response.status).toBe(529);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const inspected = await runCli(['inspect'], new Uint8Array(await response.arrayBuffer()));
      expect(inspected.code).toBe(1);
      expect(inspected.stderr).toContain('overloaded_error');
      expect(inspected.stderr).toContain('Overloaded');
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('usage errors exit 2: no file, an unknown option, a bad port', async () => {
    for (const args of [['replay'], ['replay', recordingPath('anthropic/text-then-tool-use.sse'), '--nope'], ['replay', recordingPath('anthropic/text-then-tool-use.sse'), '--port', 'eighty']]) {
      const result = await runCli(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^argstream replay: .*\(see argstream replay --help\)\n$/);
    }
  });

  it('a file that does not exist: exit 1', async () => {
    const result = await runCli(['replay', recordingPath('anthropic/no-such-file.sse')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^argstream: cannot read .*no-such-file\.sse: ENOENT/);
  });
});
