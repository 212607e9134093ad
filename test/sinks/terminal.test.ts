/**
 * The terminal view: exact output written by hand for small scripted turns (plain and color),
 * the same text from every stage a user may pipe into it, every recording drawn with the
 * MANIFEST's tool calls, the same output however the input is cut, and the stream protocol
 * (upstream errors, abort, a failing output, backpressure).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { transform } from 'esbuild';
import { describe, expect, it } from 'vitest';
import * as argstream from '../../src/index.ts';
import {
  ArgumentValidationStream,
  CoalesceStream,
  ConversationEventStream,
  FieldEventStream,
  PathUpdateStream,
  ProviderError,
  ProviderEventStream,
  TerminalRenderer,
  TerminalSink,
  ToolCallDeltaStream,
  ToolCallProgressStream,
  type PipelineEvent,
  type ProviderName,
  type StandardSchema,
  type StreamEvent,
  type TerminalSinkOptions,
  type ToolRenderer,
} from '../../src/index.ts';
import { args, finished, flush, readFixture, recordingSource, rng, randomCuts, start, streamOf, text } from '../helpers.ts';
import { readManifest, type ManifestRecording } from '../manifest.ts';
import { ROOT, execute, localBin, notInstalled } from '../runtimes/harness.ts';
import {
  PROVIDER_OF_DIR,
  bytesOf,
  expectedArguments,
  manifestError,
  readableRecordings,
  recordingInput,
  sdkObjectsOf,
} from '../providers/event-stream-helpers.ts';

const reasoning = (index: number, t: string): StreamEvent => ({ type: 'part', index, part: { type: 'reasoning', text: t } });

/** A scripted turn: reasoning, text, a `write_file` call and a `search` call, cut mid-token. */
const TURN: StreamEvent[] = [
  reasoning(0, 'Plan: write '),
  reasoning(0, 'the file.'),
  flush(0),
  text(1, 'Creating '),
  text(1, 'it now.'),
  flush(1),
  start(2, 'call_1', 'write_file'),
  args(2, '{"path":"src/ma'),
  args(2, 'in.rs","content":"fn main() {\\n'),
  args(2, '    println!(\\"hi\\");\\n}\\n"'),
  args(2, ',"overwrite":false}'),
  flush(2),
  start(3, 'call_2', 'search'),
  args(3, '{"query":"rust'),
  args(3, ' wc","limit":5}'),
  flush(3),
  { type: 'finished', reason: 'tool-calls', rawReason: 'tool_use', usage: { inputTokens: 12, outputTokens: 34 } },
];

const PLAIN = `∴ thinking
Plan: write the file.

Creating it now.

▶ write_file
  creating src/main.rs
  ┌────────
fn main() {
    println!("hi");
}
  └────────
✓ write_file {"path":"src/main.rs","content":"fn main() {\\n    println!(\\"hi\\");\\n}\\n","overwrite":false}

▶ search
  query: rust wc
  limit: 5
✓ search {"query":"rust wc","limit":5}

finished: tool-calls (tool_use), 12 input + 34 output tokens
`;

const E = '\x1b[';
const COLOR =
  `${E}2m∴ thinking\nPlan: write the file.${E}22m\n\nCreating it now.\n\n` +
  `${E}1m▶ write_file${E}22m\n  creating ${E}1msrc/main.rs${E}22m\n${E}2m  ┌────────${E}22m\n` +
  'fn main() {\n    println!("hi");\n}\n' +
  `${E}2m  └────────${E}22m\n` +
  `${E}32m✓${E}39m ${E}1mwrite_file${E}22m ${E}2m{"path":"src/main.rs","content":"fn main() {\\n    println!(\\"hi\\");\\n}\\n","overwrite":false}${E}22m\n\n` +
  `${E}1m▶ search${E}22m\n  ${E}2mquery:${E}22m rust wc\n  ${E}2mlimit:${E}22m 5\n` +
  `${E}32m✓${E}39m ${E}1msearch${E}22m ${E}2m{"query":"rust wc","limit":5}${E}22m\n\n` +
  `${E}2mfinished: tool-calls (tool_use), 12 input + 34 output tokens${E}22m\n`;

/** Draw `events` through a TerminalSink; the text it wrote. */
async function draw(events: ReadableStream<PipelineEvent> | readonly PipelineEvent[], options: TerminalSinkOptions = {}): Promise<string> {
  let out = '';
  const stream = Array.isArray(events) ? streamOf(events as PipelineEvent[]) : (events as ReadableStream<PipelineEvent>);
  await stream.pipeTo(new TerminalSink({ write: (t) => void (out += t) }, { width: 200, ...options }));
  return out;
}

/** Draw `events` through the renderer alone, one event at a time. */
function render(events: readonly PipelineEvent[], options: TerminalSinkOptions = {}): string {
  const renderer = new TerminalRenderer({ width: 200, ...options });
  let out = '';
  for (const event of events) out += renderer.push(event);
  return out + renderer.end();
}

type AnyStage = { readonly writable: WritableStream<never>; readonly readable: ReadableStream<unknown> };
const accept: StandardSchema = { '~standard': { version: 1, vendor: 'test', validate: (value) => ({ value }) } };

describe('TerminalSink draws a scripted turn exactly', () => {
  it('TerminalSink draws text, dimmed reasoning, write_file and a generic call in plain text', async () => {
    expect(await draw(TURN)).toBe(PLAIN);
  });

  it('TerminalSink with color writes ANSI styles where the style changes', async () => {
    expect(await draw(TURN, { color: true })).toBe(COLOR);
  });

  it('TerminalRenderer gives the same text without a stream', () => {
    expect(render(TURN)).toBe(PLAIN);
    expect(render(TURN, { color: true })).toBe(COLOR);
  });

  it('TerminalRenderer draws the same text whatever the deltas (one character per part)', () => {
    const fine: StreamEvent[] = [];
    for (const event of TURN) {
      if (event.type === 'part' && event.part.type === 'tool-call-arguments') for (const c of event.part.chunk) fine.push(args(event.index, c));
      else if (event.type === 'part' && (event.part.type === 'message' || event.part.type === 'reasoning')) {
        for (const c of event.part.text) fine.push({ type: 'part', index: event.index, part: { type: event.part.type, text: c } });
      } else fine.push(event);
    }
    expect(render(fine)).toBe(PLAIN);
    expect(render(fine, { color: true })).toBe(COLOR);
  });

  const chains: ReadonlyArray<readonly [string, ReadonlyArray<() => AnyStage>]> = [
    ['ToolCallProgressStream', [() => new ToolCallProgressStream()]],
    ['ConversationEventStream (conversation events only)', [() => new ConversationEventStream()]],
    ['ConversationEventStream({progress, passthrough})', [() => new ConversationEventStream({ progress: true, passthrough: true })]],
    ['ConversationEventStream({passthrough})', [() => new ConversationEventStream({ passthrough: true })]],
    ['ToolCallDeltaStream → ConversationEventStream({passthrough})', [() => new ToolCallDeltaStream(), () => new ConversationEventStream({ passthrough: true })]],
    ['FieldEventStream', [() => new FieldEventStream()]],
    ['ToolCallProgressStream → FieldEventStream', [() => new ToolCallProgressStream(), () => new FieldEventStream()]],
    ['ConversationEventStream({progress, passthrough}) → FieldEventStream', [() => new ConversationEventStream({ progress: true, passthrough: true }), () => new FieldEventStream()]],
    ['PathUpdateStream', [() => new PathUpdateStream()]],
    ['ConversationEventStream({progress, passthrough}) → PathUpdateStream', [() => new ConversationEventStream({ progress: true, passthrough: true }), () => new PathUpdateStream()]],
    ['ToolCallDeltaStream', [() => new ToolCallDeltaStream()]],
    ['ArgumentValidationStream', [() => new ArgumentValidationStream({ schema: accept })]],
    ['ToolCallProgressStream → CoalesceStream', [() => new ToolCallProgressStream(), () => new CoalesceStream({ maxDelayMs: Infinity }) as AnyStage]],
  ];
  for (const [name, stages] of chains) {
    it(`TerminalSink draws the same text from ${name}`, async () => {
      let stream: ReadableStream<unknown> = streamOf(TURN);
      for (const make of stages) stream = stream.pipeThrough(make() as never);
      expect(await draw(stream as ReadableStream<PipelineEvent>)).toBe(PLAIN);
    });
  }
});

describe('TerminalSink tool calls', () => {
  const call = (chunks: string[], name = 'write_file'): StreamEvent[] => [start(0, 'c1', name), ...chunks.map((c) => args(0, c)), flush(0)];

  it('TerminalSink writes overwriting <path> when overwrite: true comes before the path', async () => {
    const out = await draw(call(['{"overwrite":true,"path":"a.txt","content":"x"}']));
    expect(out).toBe('▶ write_file\n  overwriting a.txt\n  ┌────────\nx\n  └────────\n✓ write_file {"overwrite":true,"path":"a.txt","content":"x"}\n');
  });

  it('TerminalSink notes an overwrite: true that comes after the path', async () => {
    const out = await draw(call(['{"path":"a.txt","content":"x\\n","overwrite":true}']));
    expect(out).toBe(
      '▶ write_file\n  creating a.txt\n  ┌────────\nx\n  └────────\n  (overwrite: true — replaces the existing file)\n✓ write_file {"path":"a.txt","content":"x\\n","overwrite":true}\n',
    );
  });

  it('TerminalSink draws any other tool field by field, indenting the lines of a long string', async () => {
    const out = await draw(call(['{"cmd":"ls\\n', 'pwd\\n","env":{"A":[1,', 'true]}}'], 'shell'));
    expect(out).toBe('▶ shell\n  cmd: ls\n    pwd\n  env: {"A":[1,true]}\n✓ shell {"cmd":"ls\\npwd\\n","env":{"A":[1,true]}}\n');
  });

  it('TerminalSink draws a call without arguments and one with a non-object root', async () => {
    const out = await draw([start(0, 'a', 'ping'), flush(0), start(1, 'b', 'list'), args(1, '[1,2]'), flush(1)]);
    expect(out).toBe('▶ ping\n✓ ping {}\n\n▶ list\n  [1,2]\n✓ list [1,2]\n');
  });

  it('TerminalSink cuts the result line to the width', async () => {
    const out = await draw(call(['{"q":"abcdefghijklmnopqrstuvwxyz"}'], 'find'), { width: 20 });
    // "✓ find " is 7 columns: 13 remain for the JSON, 12 characters and the ellipsis.
    expect(out).toBe('▶ find\n  q: abcdefghijklmnopqrstuvwxyz\n✓ find {"q":"abcdef…\n');
  });

  it('TerminalSink draws a call cut off by max_tokens as incomplete, closing its content', async () => {
    const out = await draw([...call(['{"path":"a.rs","content":"fn a() {\\n'], 'write_file').slice(0, -1), finished('length', 'max_tokens')]);
    expect(out).toBe(
      '▶ write_file\n  creating a.rs\n  ┌────────\nfn a() {\n  └ cut off ────────\n✗ write_file incomplete: its arguments stopped in /content (stop reason: max_tokens)\n\nfinished: length (max_tokens)\n',
    );
  });

  it('TerminalSink marks a call that a stage before repaired', async () => {
    const events = streamOf([start(0, 'c', 'find'), args(0, '{"q":"ab'), finished('length', 'max_tokens')]).pipeThrough(new ConversationEventStream({ repair: true }));
    expect(await draw(events)).toBe('▶ find\n  q: ab\n⚠ find (repaired: its arguments were cut off) {"q":"ab"}\n\nfinished: length (max_tokens)\n');
  });

  it('TerminalSink draws a structured-output document as it streams', async () => {
    const events: StreamEvent[] = [
      { type: 'part', index: 0, part: { type: 'structured', json: '{"city":"Pa' } },
      { type: 'part', index: 0, part: { type: 'structured', json: 'ris","n":2}' } },
      flush(0),
    ];
    expect(await draw(events)).toBe('▶ structured output\n  city: Paris\n  n: 2\n✓ structured output {"city":"Paris","n":2}\n');
  });

  it('TerminalSink draws a call still open when the input ends as incomplete', async () => {
    const out = await draw([start(0, 'c', 'find'), args(0, '{"q":"ab')]);
    expect(out).toBe('▶ find\n  q: ab\n✗ find incomplete: its arguments stopped in /q (the stream ended)\n');
  });

  it('TerminalSink draws invalid arguments as a failed call and goes on', async () => {
    const out = await draw([start(0, 'c', 'find'), args(0, '{"q" 1}'), flush(0), text(1, 'after')]);
    expect(out).toBe(
      "▶ find\n✗ find failed: ToolCallArgumentsError: Invalid arguments for tool call c (find): Unexpected '1' at offset 5 in /q: expected ':'\n\nafter\n",
    );
  });

  it('TerminalSink draws a validation error in its call, as soon as the field fails', async () => {
    const noEtc: StandardSchema = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: (value) => {
          const path = (value as { path?: unknown }).path;
          return typeof path === 'string' && path.startsWith('/etc') ? { issues: [{ message: 'forbidden path', path: ['path'] }] } : { value };
        },
      },
    };
    const events = streamOf(call(['{"path":"/etc/passwd",', '"content":"x"}'])).pipeThrough(new ArgumentValidationStream({ tools: { write_file: noEtc } }));
    const out = await draw(events);
    expect(out).toBe('▶ write_file\n  creating /etc/passwd\n✗ write_file /path: forbidden path\n  ┌────────\nx\n  └────────\n✓ write_file {"path":"/etc/passwd","content":"x"}\n');
  });

  it('TerminalSink shows a call header again, marked (continued), when calls interleave, and their result lines together', async () => {
    const out = await draw([start(0, 'a', 'one'), start(1, 'b', 'two'), args(0, '{"x":"1"}'), args(1, '{"y":"2"}'), flush(0), flush(1)]);
    expect(out).toBe('▶ one\n\n▶ two\n\n▶ one (continued)\n  x: 1\n\n▶ two (continued)\n  y: 2\n✓ one {"x":"1"}\n✓ two {"y":"2"}\n');
  });

  it('TerminalSink uses a renderer registered for a tool name', async () => {
    const search: ToolRenderer = (info, style) => {
      let query = '';
      return {
        field: (event) => {
          if (event.type === 'field-delta' && event.key === 'query') query += event.text;
          return event.type === 'field-end' && event.key === 'query' ? `  ${style.bold(`searching for ${query}`)} (${info.toolCallId})\n` : '';
        },
        end: (event) => (event.type === 'tool-call' ? '  done\n' : ''),
      };
    };
    const out = await draw(call(['{"query":"rust","limit":5}'], 'search'), { tools: { search } });
    expect(out).toBe('▶ search\n  searching for rust (c1)\n  done\n✓ search {"query":"rust","limit":5}\n');
  });

  it('TerminalSink replaces control characters of model output by visible ones (no escape reaches the terminal)', async () => {
    const out = await draw([text(0, 'a\x1b[2Jb\r\nc\x07'), flush(0), start(1, 'c', 'x\x1b]0;t\x07'), args(1, '{"k":"\\u001b[31m"}'), flush(1)], { color: false });
    expect(out).not.toContain('\x1b');
    expect(out).not.toContain('\r');
    expect(out).toBe('a␛[2Jb\nc␇\n\n▶ x␛]0;t␇\n  k: ␛[31m\n✓ x␛]0;t␇ {"k":"\\u001b[31m"}\n');
  });

  it('TerminalRenderer refuses a negative or NaN width, and takes 0 columns (a terminal that does not know) as 80', () => {
    expect(() => new TerminalRenderer({ width: -1 })).toThrow(RangeError);
    expect(() => new TerminalSink({ write: () => undefined }, { width: Number.NaN })).toThrow(/width/);
    const long = [start(0, 'c', 'find'), args(0, `{"q":"${'a'.repeat(100)}"}`), flush(0)];
    // "✓ find " is 7 columns: 73 remain, 72 characters of JSON and the ellipsis.
    expect(render(long, { width: 0 }).split('\n')[2]).toBe(`✓ find {"q":"${'a'.repeat(66)}…`);
    expect(render(long, { width: Infinity }).split('\n')[2]).toBe(`✓ find {"q":"${'a'.repeat(100)}"}`);
  });
});

// ---------------------------------------------------------------------------------------------
// The recordings

const recordings = readableRecordings();

function providerOf(recording: ManifestRecording): ProviderName {
  return PROVIDER_OF_DIR[recording.dir] as ProviderName;
}

async function drawRecording(recording: ManifestRecording, chunks: ReadonlyArray<Uint8Array | string | object>, options: TerminalSinkOptions = {}) {
  return draw(streamOf(chunks).pipeThrough(new ProviderEventStream({ provider: providerOf(recording) })), { width: 100_000, ...options });
}

describe('TerminalSink on every recording', () => {
  for (const recording of recordings) {
    it(`TerminalSink draws the MANIFEST's tool calls of ${recording.file}, with no escape in plain text`, async () => {
      const out = await drawRecording(recording, recordingInput(recording));
      expect(out).not.toMatch(/[\x1b\r]/);
      expect(out.endsWith('\n')).toBe(true);
      for (const call of recording.toolCalls) {
        const name = call.name === '' ? '(unnamed tool call)' : call.name;
        expect(out).toContain(`▶ ${name}\n`);
        if (call.remark?.startsWith('NOT valid JSON')) {
          expect(out).toContain(`✗ ${name} incomplete: its arguments stopped in `);
          continue;
        }
        const value = expectedArguments(call.args) as Record<string, unknown>;
        expect(out).toContain(`✓ ${name} ${JSON.stringify(value)}\n`);
        if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
          // write_file has a renderer of its own: `creating <path>`, then the content in a box.
          const writeFile = call.name === 'write_file';
          if (writeFile) expect(out).toContain(`  creating ${String(value['path'])}\n`);
          for (const [key, member] of Object.entries(value)) {
            const first = typeof member === 'string' ? (member.split('\n')[0] as string) : '';
            if (writeFile && key === 'content') expect(out).toContain(`\n${first}`);
            else if (!writeFile || key !== 'path') expect(out).toContain(`  ${key}: ${first}`);
          }
        }
      }
      // A call the provider ran is drawn as such, with the result line its stream carried (LangChain's
      // message chunks leave out the result of Anthropic's code execution; its content-block events keep it).
      const carriesResults = recording.dir !== 'langchain' || /protocol/.test(recording.file);
      for (const call of recording.providerToolCalls) {
        expect(out).toContain(`▶ ${call.name} (run by the provider)\n`);
        expect(out).toContain(`✓ ${call.name} (run by the provider) ${JSON.stringify(expectedArguments(call.args))}\n`);
        expect(out.includes(`↳ ${call.name} result: `)).toBe(carriesResults);
      }
      if (recording.toolCalls.length + recording.providerToolCalls.length === 0) expect(out).not.toContain('▶ ');
      // Refusal text (OpenAI's) is drawn under a mark of its own, never as message text.
      const refused = /\.refusal\.delta|"refusal": ?"[^"]/.test(new TextDecoder().decode(readFixture(`providers/${recording.file}`)));
      expect(out.includes('⊘ refused\n')).toBe(refused);
      // A refusal stop reason (Anthropic's) is marked above the finish line.
      expect(out.includes('⊘ refused (the model stopped: refusal)\n')).toBe(recording.finish === '"refusal"');
      expect(out).toMatch(/\nfinished: [a-z-]+.*\n$|^finished: /);
    });
  }

  for (const recording of recordings) {
    it(`TerminalSink draws ${recording.file} the same after any stage`, async () => {
      const direct = await drawRecording(recording, recordingInput(recording));
      const stages: Array<[string, () => AnyStage]> = [
        ['ToolCallProgressStream', () => new ToolCallProgressStream({ isolateErrors: true })],
        ['FieldEventStream', () => new FieldEventStream({ isolateErrors: true })],
        ['PathUpdateStream', () => new PathUpdateStream({ isolateErrors: true })],
        ['ToolCallDeltaStream', () => new ToolCallDeltaStream()],
        ['ConversationEventStream({progress, passthrough})', () => new ConversationEventStream({ progress: true, passthrough: true, isolateErrors: true })],
      ];
      for (const [name, make] of stages) {
        const events = streamOf(recordingInput(recording)).pipeThrough(new ProviderEventStream({ provider: providerOf(recording) })).pipeThrough(make() as never);
        expect(await draw(events as ReadableStream<PipelineEvent>, { width: 100_000 }), name).toBe(direct);
      }
    });
  }

  for (const recording of recordings.filter((r) => recordingInput(r)[0] instanceof Uint8Array)) {
    it(`TerminalSink writes the same text however ${recording.file} is cut (plain and color)`, async () => {
      const bytes = bytesOf(recording.file);
      for (const color of [false, true]) {
        const whole = await drawRecording(recording, [bytes], { color });
        const cuttings: Array<Array<Uint8Array | string>> = [1, 2, 3].map((seed) => randomCuts(bytes, rng(seed), 24));
        if (providerOf(recording) !== 'bedrock') cuttings.push(randomCuts(new TextDecoder().decode(bytes), rng(4), 24));
        if (bytes.length < 20_000) cuttings.push(Array.from(bytes, (_, i) => bytes.subarray(i, i + 1)));
        for (const chunks of cuttings) expect(await drawRecording(recording, chunks, { color })).toBe(whole);
        // And as the objects an official SDK yields.
        expect(await drawRecording(recording, sdkObjectsOf(recording.file), { color })).toBe(whole);
      }
    });
  }
});

// ---------------------------------------------------------------------------------------------
// The stream protocol

describe('TerminalSink as a stream citizen', () => {
  for (const recording of readManifest().filter((r) => r.errors !== undefined && PROVIDER_OF_DIR[r.dir] !== undefined)) {
    it(`TerminalSink draws the provider's error of ${recording.file} as one line and pipeTo rejects with it`, async () => {
      const expected = manifestError(recording.errors as string);
      let out = '';
      const error = await streamOf(recordingInput(recording))
        .pipeThrough(new ProviderEventStream({ provider: providerOf(recording) }))
        .pipeTo(new TerminalSink({ write: (t) => void (out += t) }, { width: 100_000 }))
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(ProviderError);
      const last = out.trimEnd().split('\n').at(-1);
      expect(last).toBe(`✗ error: ProviderError: ${expected.message.split('\n')[0]}`);
    });
  }

  it('TerminalSink draws an upstream failure after what came before it, in color in red', async () => {
    let out = '';
    const failure = new Error('connection reset');
    let sent = false;
    const source = new ReadableStream<PipelineEvent>({
      pull(controller) {
        if (!sent) {
          sent = true;
          controller.enqueue(text(0, 'partial'));
        } else controller.error(failure);
      },
    });
    await expect(source.pipeTo(new TerminalSink({ write: (t) => void (out += t) }, { color: true }))).rejects.toBe(failure);
    expect(out).toBe(`partial\n${E}31m✗ error: connection reset${E}39m\n`);
  });

  it('TerminalSink draws the reason of an abort and releases a WritableStream output without closing it', async () => {
    const written: string[] = [];
    let closed = false;
    const output = new WritableStream<string>({ write: (t) => void written.push(t), close: () => void (closed = true) });
    const sink = new TerminalSink(output, {});
    const writer = sink.getWriter();
    await writer.write(text(0, 'hello'));
    await writer.abort(new TypeError('stopped by the user'));
    expect(written.join('')).toBe('hello\n✗ error: TypeError: stopped by the user\n');
    expect(output.locked).toBe(false);
    expect(closed).toBe(false);
  });

  it('TerminalSink ends the last line at close and leaves a WritableStream output open for the next turn', async () => {
    const written: string[] = [];
    const output = new WritableStream<string>({ write: (t) => void written.push(t) });
    await streamOf([text(0, 'one')]).pipeTo(new TerminalSink(output));
    await streamOf([text(0, 'two')]).pipeTo(new TerminalSink(output));
    expect(written.join('')).toBe('one\ntwo\n');
  });

  it('TerminalSink errors, and cancels the source, when its output fails', async () => {
    const { stream, log } = recordingSource<PipelineEvent>([text(0, 'a'), text(0, 'b'), text(0, 'c')]);
    const failure = new Error('EPIPE');
    const sink = new TerminalSink({
      write: () => {
        throw failure;
      },
    });
    await expect(stream.pipeTo(sink)).rejects.toBe(failure);
    expect(log.cancelled).toBe(failure);
  });

  it('TerminalSink waits for an asynchronous write before the next one (backpressure), in order', async () => {
    const log: string[] = [];
    let busy = false;
    const output = {
      write: async (t: string) => {
        if (busy) log.push('overlap');
        busy = true;
        await new Promise((resolve) => setTimeout(resolve, 1));
        log.push(t);
        busy = false;
      },
    };
    await streamOf([text(0, 'a'), text(0, 'b'), flush(0), finished('stop', 'end_turn')]).pipeTo(new TerminalSink(output));
    expect(log).toEqual(['a', 'b', '\n\nfinished: stop (end_turn)\n']);
  });

  it('TerminalSink errors with a one-line reason for path updates that do not fit together', async () => {
    let out = '';
    const events: PipelineEvent[] = [
      { type: 'path-update', index: 0, toolCallId: 'c', path: '', kind: 'start-object' },
      { type: 'path-update', index: 0, toolCallId: 'c', path: '', kind: 'start-array' },
    ];
    const error = await streamOf(events)
      .pipeTo(new TerminalSink({ write: (t) => void (out += t) }))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(TypeError);
    expect(out.split('\n').filter((l) => l.startsWith('✗ error: TypeError: '))).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------
// Other runtimes, with the README's forms

const IN_CI = process.env['CI'] !== undefined && process.env['CI'] !== '' && process.env['CI'] !== 'false' && process.env['CI'] !== '0';

describe('TerminalSink on Deno and Bun', () => {
  const index = pathToFileURL(join(ROOT, 'src', 'index.ts')).href;
  const source = `const source = new ReadableStream({ start(c) { for (const e of ${JSON.stringify(TURN)}) c.enqueue(e); c.close(); } });`;
  const scripts: ReadonlyArray<readonly [string, string, (script: string) => string[]]> = [
    [
      'deno',
      [
        `import { TerminalSink } from ${JSON.stringify(index)};`,
        source,
        'const encoder = new TextEncoder();',
        'const stdout = Deno.stdout.writable.getWriter();',
        'await source.pipeTo(new TerminalSink(',
        '  { write: (text) => stdout.write(encoder.encode(text)) },',
        '  { color: Deno.stdout.isTerminal(), width: Deno.stdout.isTerminal() ? Deno.consoleSize().columns : 200 },',
        '));',
      ].join('\n'),
      (script) => ['run', '--no-lock', '--no-prompt', '--config', join(ROOT, 'deno.json'), script],
    ],
    [
      'bun',
      [
        `import { TerminalSink } from ${JSON.stringify(index)};`,
        source,
        'await source.pipeTo(new TerminalSink(',
        '  { write: (text) => process.stdout.write(text) },',
        '  { color: process.stdout.isTTY === true, width: process.stdout.columns ?? 200 },',
        '));',
      ].join('\n'),
      (script) => [script],
    ],
  ];
  for (const [runtime, code, argsOf] of scripts) {
    it(`TerminalSink draws the scripted turn on ${runtime} as on Node, plain when piped`, async (context) => {
      const bin = localBin(runtime);
      if (bin === undefined) {
        if (IN_CI) throw new Error(`${runtime} is required in CI: ${notInstalled(runtime)}`);
        console.warn(`skipped ${runtime}: ${notInstalled(runtime)}`);
        context.skip(notInstalled(runtime));
        return;
      }
      const dir = mkdtempSync(join(tmpdir(), 'argstream-terminal-'));
      try {
        const script = join(dir, 'draw.ts');
        writeFileSync(script, code);
        const result = await execute(bin, argsOf(script), { cwd: ROOT });
        expect(result.stderr).toBe('');
        expect(result.stdout).toBe(PLAIN);
        expect(result.code).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }, 60_000);
  }
});

// ---------------------------------------------------------------------------------------------
// The examples of docs/terminal.md (the README's terminal recipe is its first), run as written

const readme = readFileSync(new URL('../../docs/terminal.md', import.meta.url), 'utf8');
const README_BLOCKS = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] as string);
/** A recording whose MANIFEST call the README's snippets must draw. */
const RECORDING = 'anthropic/text-then-tool-use.sse';

/** A README block as a function of the names it uses: types stripped, `argstream` imports taken from src/. */
async function readmeBlock(code: string, names: readonly string[]): Promise<(...values: unknown[]) => Promise<void>> {
  const { code: js } = await transform(code, { loader: 'ts' });
  const body = js.replace(/^import \{([^}]*)\} from "argstream";$/gm, 'const {$1} = argstream;');
  const AsyncFunction = (async () => undefined).constructor as new (...args: string[]) => (...values: unknown[]) => Promise<void>;
  return new AsyncFunction('argstream', ...names, body);
}

describe('TerminalSink: the examples of docs/terminal.md', () => {
  it('docs/terminal.md shows the Node form, the Deno form and a custom renderer', () => {
    expect(README_BLOCKS).toHaveLength(3);
  });

  it("the README's Node example draws a recording's call", async () => {
    let out = '';
    const stdout = { isTTY: false, columns: 80, write: (t: string) => void (out += t) };
    const run = await readmeBlock(README_BLOCKS[0] as string, ['response', 'process']);
    await run(argstream, new Response(new TextDecoder().decode(readFixture(`providers/${RECORDING}`))), { stdout });
    expect(out).toContain('▶ get_weather\n  location: Paris\n✓ get_weather {"location":"Paris"}\n');
    expect(out).not.toContain('\x1b');
  });

  it("the README's custom renderer draws its own line for its tool", async () => {
    let out = '';
    const output = { write: (t: string) => void (out += t) };
    const run = await readmeBlock(`${README_BLOCKS[2]}\nawait streamOf(events).pipeTo(sink);`, ['output', 'streamOf', 'events']);
    await run(argstream, output, streamOf, [start(0, 'c1', 'search'), args(0, '{"query":"rust wc"}'), flush(0), start(1, 'c2', 'create_file'), args(1, '{"path":"a.txt","content":"x"}'), flush(1)]);
    expect(out).toBe('▶ search\n  searching for rust wc\n✓ search {"query":"rust wc"}\n\n▶ create_file\n  creating a.txt\n  ┌────────\nx\n  └────────\n✓ create_file {"path":"a.txt","content":"x"}\n');
  });

  it("the README's Deno example draws a recording's call in Deno", async (context) => {
    const bin = localBin('deno');
    if (bin === undefined) {
      if (IN_CI) throw new Error(`deno is required in CI: ${notInstalled('deno')}`);
      context.skip(notInstalled('deno'));
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), 'argstream-terminal-'));
    try {
      const script = join(dir, 'readme.ts');
      const sse = new TextDecoder().decode(readFixture(`providers/${RECORDING}`));
      writeFileSync(
        script,
        [
          `import { ProviderEventStream, TerminalSink } from ${JSON.stringify(pathToFileURL(join(ROOT, 'src', 'index.ts')).href)};`,
          `const response = new Response(${JSON.stringify(sse)});`,
          README_BLOCKS[1] as string,
        ].join('\n'),
      );
      const result = await execute(bin, ['run', '--no-lock', '--no-prompt', '--config', join(ROOT, 'deno.json'), script], { cwd: ROOT });
      expect(result.stderr).toBe('');
      expect(result.stdout).toContain('▶ get_weather\n  location: Paris\n✓ get_weather {"location":"Paris"}\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
