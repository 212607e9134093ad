/**
 * `argstream inspect`, run as a user runs it: `node dist/cli/main.js` on the provider recordings
 * (as a file and on standard input), every view in text and JSON, live output, exit codes and
 * error lines. Expected tool calls come from the MANIFEST.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { type ManifestRecording, type ManifestToolCall, manifestEntry } from '../manifest.ts';
import { PROVIDER_OF_DIR, expectedArguments, readableRecordings } from '../providers/event-stream-helpers.ts';
import { assertBuilt, recordingPath, runCli, startCli, waitForOutput } from './cli-helpers.ts';

beforeAll(() => assertBuilt());

/** Recordings the command reads as bytes (the `.jsonl` ones are SDK objects, not wire bytes). */
const RECORDINGS = readableRecordings().filter((r) => !r.file.endsWith('.jsonl'));

/** Whether every tool call of the recording has complete, valid arguments (so the turn is complete). */
function complete(recording: ManifestRecording): boolean {
  return recording.toolCalls.every((call) => call.remark === undefined || !call.remark.startsWith('NOT valid JSON'));
}

interface SeenCall {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly arguments: unknown;
}

/** Every expected call is among the calls seen (matched by id when the wire has one), with its arguments. */
function expectCalls(seen: readonly SeenCall[], expected: readonly ManifestToolCall[]): void {
  expect(seen).toHaveLength(expected.length);
  const left = [...seen];
  for (const call of expected) {
    const args = expectedArguments(call.args);
    // Without an id on the wire (Gemini), a call is known by its name and arguments.
    const at = left.findIndex((s) =>
      call.id === '' ? s.toolName === call.name && JSON.stringify(s.arguments) === JSON.stringify(args) : s.toolCallId === call.id,
    );
    expect(at, `${call.name} ${call.id} ${call.args} among ${JSON.stringify(left)}`).not.toBe(-1);
    const [match] = left.splice(at, 1);
    expect(match?.toolName).toBe(call.name);
    expect(match?.arguments).toEqual(args);
  }
}

function jsonLines(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** `tool-call` events of a view printed with --json. */
function toolCallEvents(events: ReadonlyArray<Record<string, unknown>>): SeenCall[] {
  return events.filter((e) => e['type'] === 'tool-call') as unknown as SeenCall[];
}

/** The calls rebuilt from raw `events --json` output: start parts and argument chunks per slot. */
function callsFromRawEvents(events: ReadonlyArray<Record<string, unknown>>): SeenCall[] {
  const calls = new Map<number, { toolCallId: string; toolName: string; text: string }>();
  for (const event of events) {
    if (event['type'] !== 'part') continue;
    const index = event['index'] as number;
    const part = event['part'] as { type: string; toolCallId?: string; toolName?: string; chunk?: string };
    if (part.type === 'tool-call-start') {
      const call = calls.get(index) ?? { toolCallId: '', toolName: '', text: '' };
      calls.set(index, { ...call, toolCallId: call.toolCallId || (part.toolCallId ?? ''), toolName: call.toolName || (part.toolName ?? '') });
    } else if (part.type === 'tool-call-arguments') {
      const call = calls.get(index) ?? { toolCallId: '', toolName: '', text: '' };
      calls.set(index, { ...call, text: call.text + (part.chunk ?? '') });
    }
  }
  return [...calls.values()].map((call) => ({ ...call, arguments: call.text === '' ? {} : JSON.parse(call.text) }));
}

describe('argstream inspect --view turn --json, every readable recording (provider recognised from the input)', () => {
  for (const recording of RECORDINGS.filter(complete)) {
    it(`${recording.file}: the tool calls of the manifest, exit code 0`, async () => {
      const result = await runCli(['inspect', '--view', 'turn', '--json', recordingPath(recording.file)]);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const events = jsonLines(result.stdout);
      const turn = events.at(-1) as { type: string; toolCalls: SeenCall[]; finishReason: string };
      expect(turn.type).toBe('turn');
      expectCalls(turn.toolCalls, recording.toolCalls);
      // The conversation events before the summary hold the same calls.
      expectCalls(toolCallEvents(events.slice(0, -1)), recording.toolCalls);
      expect(turn.finishReason).toBeTypeOf('string');
    });
  }
});

/** One recording with tool calls per provider API, for the views. */
const PER_PROVIDER = [
  'anthropic/text-then-2-parallel-tool-use.sse',
  'openai-chat/parallel-2-tool-calls.sse',
  'openai-responses/function-call.sse',
  'gemini/vertex-partial-args-two-calls.sse',
  'ollama/docs-chat-stream-tool-call.ndjson',
  'bedrock/text-then-tool-use.eventstream',
];

/** A recording's top-level string fields, per expected call (what the field views show whole). */
function stringFields(call: ManifestToolCall): Array<[string, string]> {
  const args = expectedArguments(call.args) as Record<string, unknown>;
  return Object.entries(args).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
}

describe('argstream inspect, every view of one recording per provider', () => {
  for (const file of PER_PROVIDER) {
    const recording = manifestEntry(file);
    const provider = PROVIDER_OF_DIR[recording.dir] as string;
    const path = recordingPath(file);

    it(`${file}: events --json rebuild to the manifest's calls; text lines name each call`, async () => {
      const json = await runCli(['inspect', '--provider', provider, '--view', 'events', '--json', path]);
      expect(json.code).toBe(0);
      const events = jsonLines(json.stdout);
      expectCalls(callsFromRawEvents(events), recording.toolCalls);
      expect(events.at(-1)?.['type']).toBe('finished');

      const text = await runCli(['inspect', '--provider', provider, '--view', 'events', path]);
      expect(text.code).toBe(0);
      const lines = text.stdout.split('\n');
      for (const call of recording.toolCalls) {
        expect(lines.some((line) => line.startsWith('part #') && line.includes(` tool-call-start ${call.name}`) && line.includes(call.id))).toBe(true);
      }
      // Every line is one event: as many lines as JSON objects.
      expect(lines.filter((line) => line !== '')).toHaveLength(events.length);
      expect(lines.at(-2)).toMatch(/^finished /);
    });

    for (const view of ['fragments', 'fields', 'paths'] as const) {
      it(`${file}: ${view} --json ends each call with its tool-call event; text shows its ${view}`, async () => {
        const json = await runCli(['inspect', '--provider', provider, '--view', view, '--json', path]);
        expect(json.stderr).toBe('');
        expect(json.code).toBe(0);
        const events = jsonLines(json.stdout);
        expectCalls(toolCallEvents(events), recording.toolCalls);
        const own = { fragments: 'tool-call-progress', fields: 'field-delta', paths: 'path-update' }[view];
        expect(events.some((e) => e['type'] === own)).toBe(true);

        const text = await runCli(['inspect', '--provider', provider, '--view', view, path]);
        expect(text.code).toBe(0);
        const lines = text.stdout.split('\n');
        for (const call of recording.toolCalls) {
          const line = lines.find(
            (l) =>
              l.startsWith('tool-call #') &&
              l.includes(` ${call.name} `) &&
              l.includes(call.id) &&
              JSON.stringify(JSON.parse(l.slice(l.indexOf('{')))) === JSON.stringify(expectedArguments(call.args)),
          );
          expect(line, `${call.name} ${call.args} in\n${text.stdout}`).toBeDefined();
          for (const [key, value] of stringFields(call)) {
            if (view === 'fields') {
              // The deltas of the field in one call's slot, decoded, are its value.
              const quotedKey = ` ${JSON.stringify(key)} `;
              const bySlot = new Map<string, string>();
              for (const l of lines) {
                if (!l.startsWith('field-delta #') || !l.includes(` ${call.name} `) || !l.includes(quotedKey)) continue;
                const slot = l.split(' ')[1]!;
                bySlot.set(slot, (bySlot.get(slot) ?? '') + (JSON.parse(l.slice(l.indexOf(quotedKey) + quotedKey.length)) as string));
              }
              expect([...bySlot.values()]).toContain(value);
            } else if (view === 'paths') {
              expect(lines.some((l) => l.startsWith('path-update #') && l.endsWith(` /${key} key ${JSON.stringify(key)}`))).toBe(true);
            } else {
              expect(lines.some((l) => l.startsWith('progress #') && l.includes(` /${key} start string`))).toBe(true);
            }
          }
        }
      });
    }

    it(`${file}: turn (the default view) shows each call, its fields, its exact arguments and a summary`, async () => {
      const result = await runCli(['inspect', '--provider', provider, path]);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const lines = result.stdout.split('\n');
      expect(lines.some((line) => line.startsWith('finished: '))).toBe(true);
      expect(lines.at(-2)).toMatch(/^── turn complete: /);
      for (const call of recording.toolCalls) {
        expect(lines.some((line) => line === `▶ ${call.name}`)).toBe(true);
        // The result line: ✓ name {exact arguments} (not cut: the output is not a terminal).
        const summary = lines.find(
          (line) =>
            line.startsWith(`✓ ${call.name} {`) &&
            JSON.stringify(JSON.parse(line.slice(line.indexOf('{')))) === JSON.stringify(expectedArguments(call.args)),
        );
        expect(summary, `${call.name} ${call.args} in\n${result.stdout}`).toBeDefined();
        for (const [key, value] of stringFields(call)) if (!value.includes('\n')) expect(lines).toContain(`  ${key}: ${value}`);
      }
      // Calls the provider ran are shown as such and counted apart from the application's.
      for (const call of recording.providerToolCalls) expect(lines).toContain(`▶ ${call.name} (run by the provider)`);
      const ran = recording.providerToolCalls.map((c) => c.name);
      const runByProvider = `${ran.length} call${ran.length === 1 ? '' : 's'} run by the provider (${ran.join(', ')})`;
      expect(lines.at(-2)?.includes(runByProvider)).toBe(ran.length > 0);
    });
  }
});

describe('argstream inspect on provider-run calls and refusals', () => {
  it('prints the events of a Responses web search and a refusal, and the JSON turn lists them', async () => {
    const search = await runCli(['inspect', '--provider', 'openai-responses', '--view', 'events', recordingPath('openai-responses/web-search-call-then-message-annotations.sse')]);
    expect(search.code).toBe(0);
    expect(search.stdout).toContain('part #0 tool-call-start web_search ws_67ccf18f64008190a39b619f4c8455ef087bb177ab789d5c (provider)\n');
    expect(search.stdout).toContain('part #1 provider-tool-result web_search ws_67ccf18f64008190a39b619f4c8455ef087bb177ab789d5c {"status":"completed"}\n');
    const refusal = await runCli(['inspect', '--provider', 'openai-chat', '--view', 'turn', '--json', recordingPath('openai-chat/refusal.sse')]);
    expect(refusal.code).toBe(0);
    const turn = JSON.parse(refusal.stdout.trim().split('\n').at(-1) as string) as Record<string, unknown>;
    expect(turn).toMatchObject({ type: 'turn', text: '', refusal: "I'm sorry, I can't assist with that request.", toolCalls: [], providerToolCalls: [] });
  });
});

describe('argstream inspect on standard input', () => {
  it('reads a recording piped in (no file, and "-"), provider given or recognised', async () => {
    const recording = manifestEntry('anthropic/text-then-tool-use.sse');
    const bytes = readFileSync(recordingPath(recording.file));
    for (const args of [['inspect', '--json', '--view', 'turn'], ['inspect', '--provider', 'anthropic', '--json', '-']]) {
      const result = await runCli(args, bytes);
      expect(result.code).toBe(0);
      const turn = jsonLines(result.stdout).at(-1) as { toolCalls: SeenCall[] };
      expectCalls(turn.toolCalls, recording.toolCalls);
    }
  });

  it('prints each event as it arrives: output before standard input ends', async () => {
    const recording = manifestEntry('anthropic/text-then-2-parallel-tool-use.sse');
    const text = readFileSync(recordingPath(recording.file), 'utf8');
    const first = recording.toolCalls[0]!;
    // Cut just after the first call's arguments are complete (its content_block_stop).
    const cut = text.indexOf('content_block_stop', text.indexOf(first.id));
    const child = startCli(['inspect', '--provider', 'anthropic', '--view', 'fields']);
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const firstCallDone = waitForOutput(child.stdout, (out) => out.includes(`tool-call #1 ${first.name} ${first.id}`), 'first tool call');
    child.stdin.write(text.slice(0, text.indexOf('\n\n', cut) + 2));
    const early = await firstCallDone;
    expect(early).toContain(`field-delta #1 ${first.name} ${first.id} "unit" "fahrenheit"`);
    // Nothing of the second call yet: it has not been written.
    expect(early).not.toContain(recording.toolCalls[1]!.name);
    child.stdin.end(text.slice(text.indexOf('\n\n', cut) + 2));
    expect(await exited).toBe(0);
    expect(stdout).toContain(`tool-call #2 ${recording.toolCalls[1]!.name}`);
  });

  it('draws the turn view as it arrives: the first call complete before standard input ends', async () => {
    const recording = manifestEntry('anthropic/text-then-2-parallel-tool-use.sse');
    const text = readFileSync(recordingPath(recording.file), 'utf8');
    const [first, second] = recording.toolCalls as [ManifestToolCall, ManifestToolCall];
    const cut = text.indexOf('\n\n', text.indexOf('content_block_stop', text.indexOf(first.id))) + 2;
    const child = startCli(['inspect', '--provider', 'anthropic']);
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const firstCallDone = waitForOutput(child.stdout, (out) => out.includes(`✓ ${first.name} `), 'first tool call');
    child.stdin.write(text.slice(0, cut));
    const early = await firstCallDone;
    expect(early).toContain(`▶ ${first.name}\n  location: New York, NY\n  unit: fahrenheit\n✓ ${first.name} {"location":"New York, NY","unit":"fahrenheit"}\n`);
    expect(early).not.toContain(second.name);
    child.stdin.end(text.slice(cut));
    expect(await exited).toBe(0);
    expect(stdout).toContain(`✓ ${second.name} {"timezone":"America/New_York"}\n`);
    expect(stdout).toMatch(/── turn complete: 2 tool calls \(get_weather, get_time\)\n$/);
  });

  it('stops quietly when the reader goes away (| head)', async () => {
    const bytes = readFileSync(recordingPath('anthropic/thinking-then-text.sse'));
    const child = startCli(['inspect', '--provider', 'anthropic', '--view', 'events']);
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await new Promise<void>((resolve) => {
      child.stdout.once('data', () => {
        child.stdout.destroy();
        resolve();
      });
      child.stdin.on('error', () => undefined);
      child.stdin.write(bytes.subarray(0, 4000));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(bytes.subarray(4000));
    expect(await exited).toBe(0);
    expect(stderr).toBe('');
  });
});

describe('argstream inspect exit codes', () => {
  it('a recording cut inside an event: exit 1 and one line saying so', async () => {
    const text = readFileSync(recordingPath('anthropic/text-then-tool-use.sse'), 'utf8');
    const cut = text.indexOf('input_json_delta') + 10;
    const result = await runCli(['inspect', '--provider', 'anthropic'], text.slice(0, cut));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^argstream: anthropic: the stream ended inside an SSE event: .*\n$/);
    expect(result.stderr.split('\n')).toHaveLength(2);
  });

  it('stops at the first error without waiting for the rest of standard input', async () => {
    const child = startCli(['inspect', '--provider', 'anthropic', '--view', 'events']);
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.on('error', () => undefined);
    child.stdin.write('<html>\n');
    // Standard input stays open: the command must end by itself.
    expect(await exited).toBe(1);
    expect(stderr).toBe('argstream: anthropic: expected an SSE stream, got a line that is not an SSE field: "<html>"\n');
    child.stdin.destroy();
  });

  it('a recording cut between events: exit 1, the stream was cut before the provider\'s terminal event', async () => {
    const text = readFileSync(recordingPath('anthropic/text-then-tool-use.sse'), 'utf8');
    const cut = text.indexOf('\n\n', text.indexOf('input_json_delta')) + 2;
    const result = await runCli(['inspect', '--provider', 'anthropic', '--view', 'events'], text.slice(0, cut));
    // ProviderEventDecoder errors with truncated (as for a cut inside an event): the stream cannot be read whole.
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^argstream: anthropic: the stream ended before `message_stop`.*cut between two records.*"content_block_delta".*\n$/);
  });

  it('a tool call cut by max_tokens: exit 3, naming the call and the stop reason', async () => {
    const recording = manifestEntry('anthropic/tool-use-truncated-max-tokens.sse');
    const call = recording.toolCalls[0]!;
    for (const view of ['events', 'fragments', 'fields', 'paths', 'turn']) {
      const result = await runCli(['inspect', '--view', view, recordingPath(recording.file)]);
      expect(result.code, view).toBe(3);
      expect(result.stderr).toBe(`argstream: tool call ${call.name} (${call.id}) is incomplete: its arguments stopped in /lines_of_text/4 (max_tokens)\n`);
    }
  });

  it('not the provider\'s wire format: exit 1', async () => {
    const result = await runCli(['inspect', '--provider', 'anthropic'], '<html><body>502 Bad Gateway</body></html>\n');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^argstream: anthropic: expected an SSE stream.*"<html><body>502 Bad Gateway.*\n$/);
  });

  it('a provider error inside the stream: exit 1 with the provider\'s type and message', async () => {
    const recording = manifestEntry('openai-responses/error-then-response-failed.sse');
    const result = await runCli(['inspect', recordingPath(recording.file)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^argstream: openai-responses error insufficient_quota: You exceeded your current quota, please check your plan and billing details\..*\n$/,
    );
    expect(result.stderr.split('\n')).toHaveLength(2);
  });

  // HTTP error bodies, written by hand from each provider's documented error shape.
  const ERROR_BODIES: ReadonlyArray<{ provider: string; body: string; type: string; message: string }> = [
    {
      provider: 'anthropic',
      body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}',
      type: 'overloaded_error',
      message: 'Overloaded',
    },
    {
      provider: 'openai-chat',
      body: '{\n  "error": {\n    "message": "Incorrect API key provided: sk-abc. You can find your API key at https://platform.openai.com/account/api-keys.",\n    "type": "invalid_request_error",\n    "param": null,\n    "code": "invalid_api_key"\n  }\n}\n',
      type: 'invalid_request_error',
      message: 'Incorrect API key provided: sk-abc.',
    },
    {
      provider: 'gemini',
      body: '{\n  "error": {\n    "code": 429,\n    "message": "Resource has been exhausted (e.g. check quota).",\n    "status": "RESOURCE_EXHAUSTED"\n  }\n}\n',
      type: 'RESOURCE_EXHAUSTED',
      message: 'Resource has been exhausted (e.g. check quota).',
    },
  ];
  for (const { provider, body, type, message } of ERROR_BODIES) {
    it(`an HTTP error body of ${provider} on standard input: exit 1 with its type and message`, async () => {
      const result = await runCli(['inspect', '--provider', provider], body);
      expect(result.code).toBe(1);
      expect(result.stderr.split('\n')).toHaveLength(2);
      expect(result.stderr).toContain(type);
      expect(result.stderr).toContain(message);
    });
  }

  it('an HTTP error body with the provider left out: recognised, same message', async () => {
    const result = await runCli(['inspect'], ERROR_BODIES[0]!.body);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('overloaded_error');
    expect(result.stderr).toContain('Overloaded');
  });

  it('usage errors: exit 2 with one line', async () => {
    for (const args of [
      ['inspect', '--provider', 'anthropic', '--nope'],
      ['inspect', '--provider', 'mistral'],
      ['inspect', '--view', 'everything'],
      ['inspect', 'a.sse', 'b.sse'],
      ['frobnicate'],
      ['--nope'],
    ]) {
      const result = await runCli(args, '');
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(/^argstream( inspect)?: .* \(see argstream( inspect)? --help\)\n$/);
    }
  });

  it('input the provider cannot be recognised from, without --provider: exit 2 asking for it', async () => {
    const result = await runCli(['inspect'], 'hello\n');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('pass --provider');
  });

  it('a file that does not exist: exit 1', async () => {
    const result = await runCli(['inspect', '--provider', 'anthropic', recordingPath('anthropic/no-such-file.sse')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^argstream: cannot read .*no-such-file\.sse: ENOENT/);
  });
});

describe('argstream --help and --version', () => {
  it('--help lists the commands; inspect --help the views and exit codes; replay --help its options', async () => {
    const main = await runCli(['--help']);
    expect(main.code).toBe(0);
    expect(main.stdout).toContain('inspect [file|-]');
    expect(main.stdout).toContain('replay <file>');
    const inspect = await runCli(['inspect', '--help']);
    expect(inspect.code).toBe(0);
    for (const word of ['events', 'fragments', 'fields', 'paths', 'turn', '--json', 'anthropic', 'bedrock', 'Exit codes']) {
      expect(inspect.stdout).toContain(word);
    }
    const replay = await runCli(['replay', '--help']);
    expect(replay.code).toBe(0);
    for (const word of ['--host', '--port', '--delay', '--status', '127.0.0.1']) expect(replay.stdout).toContain(word);
  });

  it('--version prints the version of package.json', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    const result = await runCli(['--version']);
    expect(result.stdout).toBe(`${pkg.version}\n`);
  });

  it('package.json bin names this script, which starts with a node shebang (tsc keeps it)', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { bin: Record<string, string> };
    expect(pkg.bin['argstream']).toBe('./dist/cli/main.js');
    expect(readFileSync(new URL('../../dist/cli/main.js', import.meta.url), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('no command: usage on stderr, exit 2', async () => {
    const result = await runCli([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: argstream');
  });
});
