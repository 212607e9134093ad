/**
 * The portable suite: the library's behaviour checks written once, with web-platform APIs only
 * (no `node:` module, no `process`, no file system), bundled with `src/` and run unchanged on
 * every runtime we claim — Node, Deno, Bun, workerd, edge-runtime, Chromium, Firefox and WebKit.
 *
 * Fixtures come from the bundle (see `fixtures.d.ts`); expected tool calls are written out from
 * test/fixtures/providers/MANIFEST.md; the JSON oracle is the runtime's own `JSON.parse`.
 */
import { jsonTestSuite, recordings } from 'argstream-portable:fixtures';
import {
  collectTurn,
  ConversationEventStream,
  EVENT_STREAM_HEADERS,
  EventStreamDecoder,
  EventStreamEncoder,
  FieldEventStream,
  fromAsyncIterable,
  fromResponse,
  FragmentAggregator,
  IncrementalJsonParser,
  IncrementalJsonValueParser,
  iterate,
  JsonFragmentRebuilder,
  JsonFragmentStream,
  JsonStreamError,
  JsonTextStream,
  JsonValueStream,
  NdjsonDecoder,
  NdjsonEncoder,
  PathUpdateStream,
  ProviderError,
  ProviderEventDecoder,
  ProviderEventStream,
  RelayError,
  resumeEventStream,
  ToolCallArgumentsError,
  ToolCallProgressStream,
  TurnStore,
  type FieldEvent,
  type JsonValue,
  type ProviderName,
  type StreamEvent,
  type StreamFragment,
  type ToolCallArgumentProgress,
  type Turn,
} from '../../src/index.ts';
import { ToolInputNotificationStream, type ToolInputNotification } from '../../src/bindings/mcp-apps.ts';
import { errorClasses, errorRecord, pageErrorRecord, reviveError } from '../../src/relay/error-record.ts';
import { AG_UI_HEADERS, AgUiEncoder } from '../../src/bindings/ag-ui.ts';
import { iterableStream } from '../../src/sources/iterable.ts';
import { readerIterator } from '../../src/sinks/iterate.ts';
import { REPORT_PREFIX, type CheckResult, type Report } from './report.ts';
import { failureMessage, groupNames, runGroup } from './semantics.ts';

export type { CheckResult, Report };

// ---------------------------------------------------------------------------------------------
// A tiny registry and report

interface Check {
  readonly name: string;
  readonly fn: () => Promise<void> | void;
}

const checks: Check[] = [];

function test(name: string, fn: () => Promise<void> | void): void {
  checks.push({ name, fn });
}

/**
 * Checks known to fail on a runtime because of a bug in src/, by runtime key (see
 * `runtimeKey()`): check name → the bug. A known failure is reported, not counted as failed; one
 * that passes again is reported as `fixed` and counted as failed, so the entry gets removed.
 */
const knownFailing: Readonly<Record<string, Readonly<Record<string, string>>>> = {};

/** The names of the checks, in order. */
export function checkNames(): string[] {
  return checks.map((check) => check.name);
}

/** Run every check (or those whose name contains `filter`) and report each one. */
export async function runChecks(filter?: string): Promise<Report> {
  const started = now();
  const known = knownFailing[runtimeKey()] ?? {};
  const results: CheckResult[] = [];
  for (const check of checks) {
    if (filter !== undefined && !check.name.includes(filter)) continue;
    const t0 = now();
    let error: string | undefined;
    try {
      await check.fn();
    } catch (caught) {
      error = describeError(caught);
    }
    const ms = Math.round(now() - t0);
    const bug = known[check.name];
    if (bug !== undefined) {
      results.push(error === undefined ? { name: check.name, status: 'fixed', ms, error: `passes now; remove it from knownFailing (${bug})` } : { name: check.name, status: 'known-failing', ms, error: `${bug}: ${error}` });
    } else results.push(error === undefined ? { name: check.name, status: 'pass', ms } : { name: check.name, status: 'fail', ms, error });
  }
  const failed = results.filter((r) => r.status === 'fail' || r.status === 'fixed').length;
  return { runtime: describeRuntime(), results, passed: results.filter((r) => r.status === 'pass').length, failed, ms: Math.round(now() - started) };
}

/** The report as TAP-like lines, then one line `# argstream-report <JSON>` for the test to read. */
export function formatReport(report: Report): string {
  const lines = [`# ${report.runtime}`];
  report.results.forEach((r, i) => {
    const ok = r.status === 'pass' || r.status === 'known-failing';
    lines.push(`${ok ? 'ok' : 'not ok'} ${i + 1} - ${r.name} (${r.ms} ms)${r.status === 'known-failing' ? ' # TODO known failing' : ''}${r.error === undefined ? '' : `\n  # ${r.error.replace(/\n/g, '\n  # ')}`}`);
  });
  lines.push(`# ${report.passed} passed, ${report.failed} failed, ${report.results.length} checks in ${report.ms} ms`);
  lines.push(`${REPORT_PREFIX}${JSON.stringify(report)}`);
  return lines.join('\n');
}


function now(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

function runtimeKey(): string {
  const g = globalThis as Record<string, unknown>;
  if (g['Deno'] !== undefined) return 'deno';
  if (g['Bun'] !== undefined) return 'bun';
  if (typeof g['EdgeRuntime'] === 'string') return 'edge-runtime';
  const agent = typeof navigator !== 'undefined' ? String(navigator.userAgent) : '';
  if (agent.startsWith('Cloudflare-Workers')) return 'workerd';
  if (agent.includes('Chrome/')) return 'chromium';
  if (agent.includes('Firefox/')) return 'firefox';
  if (agent.includes('AppleWebKit/')) return 'webkit';
  return 'node';
}

function describeRuntime(): string {
  const g = globalThis as Record<string, any>;
  if (g['Deno'] !== undefined) return `Deno ${g['Deno'].version?.deno} (V8 ${g['Deno'].version?.v8})`;
  if (g['Bun'] !== undefined) return `Bun ${g['Bun'].version}`;
  if (typeof g['EdgeRuntime'] === 'string') return `edge-runtime (${g['EdgeRuntime']})`;
  const agent = typeof navigator !== 'undefined' ? String(navigator.userAgent) : '';
  if (agent !== '') return agent;
  const versions = g['process']?.versions;
  return versions?.node !== undefined ? `Node.js ${versions.node}` : 'unknown runtime';
}

// ---------------------------------------------------------------------------------------------
// Assertions and helpers (web APIs only)

class AssertionError extends Error {
  override readonly name = 'AssertionError';
}

function fail(message: string): never {
  throw new AssertionError(message);
}

function show(value: unknown): string {
  try {
    const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'number' && Object.is(v, -0) ? '-0' : v));
    if (text === undefined) return String(value);
    return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    return String(value);
  }
}

/** Deep equality of JSON-like values; numbers compare with `Object.is` (so -0 ≠ 0). */
function equal(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Object.is(a, b);
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => equal(item, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const rb = b as Record<string, unknown>;
  const ra = a as Record<string, unknown>;
  return ka.every((key) => Object.prototype.hasOwnProperty.call(rb, key) && equal(ra[key], rb[key]));
}

function assertEqual(actual: unknown, expected: unknown, label: string): void {
  if (!equal(actual, expected)) fail(`${label}: expected ${show(expected)}, got ${show(actual)}`);
}

function assert(condition: boolean, label: string): asserts condition {
  if (!condition) fail(label);
}

function fromBase64(base64: string): Uint8Array<ArrayBuffer> {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function recording(path: string): Uint8Array<ArrayBuffer> {
  const base64 = recordings[path];
  if (base64 === undefined) fail(`recording ${path} is not in the bundle`);
  return fromBase64(base64);
}

/** mulberry32: random cuttings reproducible from a seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function oneByOne<T extends string | Uint8Array>(input: T): T[] {
  const out: T[] = [];
  for (let i = 0; i < input.length; i++) out.push(input.slice(i, i + 1) as T);
  return out;
}

function randomCuts<T extends string | Uint8Array>(input: T, random: () => number, count = 8): T[] {
  const cuts = Array.from({ length: count }, () => Math.floor(random() * input.length)).sort((x, y) => x - y);
  const out: T[] = [];
  let last = 0;
  for (const cut of cuts) {
    if (cut > last && cut < input.length) {
      out.push(input.slice(last, cut) as T);
      last = cut;
    }
  }
  out.push(input.slice(last) as T);
  return out;
}

/** Whole, one byte (or code unit) at a time, and at random cuts. */
function cuttings<T extends string | Uint8Array>(input: T, seed: number): Array<[string, T[]]> {
  return [
    ['whole', [input]],
    ['one by one', oneByOne(input)],
    [`random cuts (seed ${seed})`, randomCuts(input, rng(seed))],
  ];
}

/** A pull source of the chunks that records its cancel reason and reads after its end. */
function recordingSource<T>(chunks: readonly T[]) {
  const log = { cancelled: undefined as unknown, cancelCalls: 0, pullsAfterEnd: 0 };
  let i = 0;
  let ended = false;
  const stream = new ReadableStream<T>({
    pull(controller) {
      if (ended) {
        log.pullsAfterEnd++;
        return;
      }
      if (i < chunks.length) controller.enqueue(chunks[i++] as T);
      else {
        ended = true;
        controller.close();
      }
    },
    cancel(reason) {
      ended = true;
      log.cancelCalls++;
      log.cancelled = reason;
    },
  });
  return { stream, log };
}

function streamOf<T>(chunks: readonly T[]): ReadableStream<T> {
  return recordingSource(chunks).stream;
}

async function readAll<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

async function settle<T>(stream: ReadableStream<T>): Promise<{ values: T[]; error: unknown }> {
  const values: T[] = [];
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { values, error: undefined };
      values.push(value);
    }
  } catch (error) {
    return { values, error };
  }
}

/** Let pending stream callbacks (cancel of the source after an error) run. */
function tick(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

function aggregate(fragments: readonly StreamFragment[]): JsonValue | undefined {
  const aggregator = new FragmentAggregator();
  let value: JsonValue | undefined;
  for (const fragment of fragments) {
    const result = aggregator.push(fragment);
    if (result !== undefined) value = result;
  }
  return value;
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// JSON engine: exactness against JSON.parse on JSONTestSuite, under every cutting

type Oracle = { ok: true; value: unknown } | { ok: false };

function oracle(text: string): Oracle {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/**
 * The two 100–250 KB cases (10⁵-deep arrays) are fed whole and at random cuts only: one by one,
 * they would take seconds on every runtime, and the vitest suite already feeds them that way.
 */
const ONE_BY_ONE_MAX = 10_000;

/** The fragment path costs O(depth) per fragment by design; the 10⁵-deep cases get a limit. */
const FRAGMENT_OPTIONS = { maxDepth: 1000 };
const VALUE_OPTIONS = { maxDepth: Infinity };

function checkJsonTestSuiteCase(name: string, bytes: Uint8Array): void {
  const text = new TextDecoder().decode(bytes);
  const expected = oracle(text);
  const seed = name.length * 7919 + bytes.length;
  const inputs: Array<[string, Array<string | Uint8Array>]> = [
    ...cuttings(bytes, seed).map(([how, chunks]): [string, Array<string | Uint8Array>] => [`bytes ${how}`, chunks]),
    ...cuttings(text, seed).map(([how, chunks]): [string, Array<string | Uint8Array>] => [`string ${how}`, chunks]),
  ].filter(([how]) => bytes.length <= ONE_BY_ONE_MAX || !how.endsWith('one by one'));
  let firstError: JsonStreamError | undefined;
  for (const [how, chunks] of inputs) {
    const engines: Array<[string, () => unknown]> = [
      [
        'IncrementalJsonValueParser',
        () => {
          const parser = new IncrementalJsonValueParser(VALUE_OPTIONS);
          for (const chunk of chunks) parser.push(chunk);
          return parser.end();
        },
      ],
      [
        'IncrementalJsonParser + FragmentAggregator',
        () => {
          const parser = new IncrementalJsonParser(FRAGMENT_OPTIONS);
          const fragments: StreamFragment[] = [];
          for (const chunk of chunks) fragments.push(...parser.push(chunk));
          fragments.push(...parser.end());
          return aggregate(fragments);
        },
      ],
    ];
    for (const [engine, run] of engines) {
      const label = `${name}, ${how}, ${engine}`;
      if (expected.ok) {
        let value: unknown;
        try {
          value = run();
        } catch (error) {
          fail(`${label}: JSON.parse accepts it, the engine threw ${describeError(error)}`);
        }
        assertEqual(value, expected.value, label);
      } else {
        const error = thrown(run);
        if (!(error instanceof JsonStreamError)) fail(`${label}: JSON.parse rejects it, the engine gave ${error === undefined ? 'a value' : describeError(error)}`);
        if (engine === 'IncrementalJsonValueParser') {
          firstError ??= error;
          assertEqual([error.code, error.offset], [firstError.code, firstError.offset], `${label}: the error does not depend on the cutting`);
        }
      }
    }
  }
}

for (const [prefix, verdict] of [
  ['y_', 'accepted'],
  ['n_', 'rejected'],
  ['i_', 'implementation-defined'],
] as const) {
  test(`JSONTestSuite ${verdict} (${prefix}*) cases: both engines agree with JSON.parse, bytes and strings, whole, one by one, random cuts`, () => {
    const cases = jsonTestSuite.filter(([name]) => name.startsWith(prefix));
    assert(cases.length > 30, `the bundle holds the ${prefix} cases (found ${cases.length})`);
    const failures: string[] = [];
    for (const [name, base64] of cases) {
      try {
        checkJsonTestSuiteCase(name, fromBase64(base64));
      } catch (error) {
        failures.push(describeError(error));
      }
    }
    if (failures.length > 0) fail(`${failures.length} of ${cases.length} cases failed:\n${failures.slice(0, 10).join('\n')}`);
  });
}

test('JSONTestSuite: the bundle holds all 318 test_parsing cases', () => {
  assertEqual(jsonTestSuite.length, 318, 'number of cases');
});

test('IncrementalJsonValueParser is prompt: a string prefix shows before its closing quote, a split escape and surrogate pair are held back', () => {
  const parser = new IncrementalJsonValueParser();
  parser.push('{"path":"src/ma');
  assertEqual(parser.snapshot(), { path: 'src/ma' }, 'after the first chunk');
  parser.push('in.rs","text":"a\\');
  assertEqual(parser.snapshot(), { path: 'src/main.rs', text: 'a' }, 'split escape held back');
  parser.push('n\\ud83d');
  assertEqual(parser.snapshot(), { path: 'src/main.rs', text: 'a\n' }, 'half a surrogate pair held back');
  parser.push('\\ude00"}');
  assertEqual(parser.end(), { path: 'src/main.rs', text: 'a\n😀' }, 'the value');
});

test('IncrementalJsonParser rejects invalid text with a JsonStreamError at the same offset for every cutting', () => {
  const text = '{"a":[1,2,}';
  const offsets = cuttings(text, 3).map(([how, chunks]) => {
    const error = thrown(() => {
      const parser = new IncrementalJsonParser();
      for (const chunk of chunks) parser.push(chunk);
      parser.end();
    });
    if (!(error instanceof JsonStreamError)) fail(`${how}: expected a JsonStreamError, got ${String(error)}`);
    return [error.code, error.offset];
  });
  assertEqual(offsets, [['invalid-json', 10], ['invalid-json', 10], ['invalid-json', 10]], 'code and offset per cutting');
});

// ---------------------------------------------------------------------------------------------
// Stream shells: pipeThrough, TextDecoderStream, errors both ways, cancellation

const DOCUMENT = '{"path":"src/ü.rs","content":"fn main() {\\n\\tprintln!(\\"😀\\");\\n}","n":[1,-0.5e2,true,null]}';

test('JsonFragmentStream: UTF-8 bytes cut anywhere, piped from a ReadableStream<Uint8Array>, aggregate to JSON.parse', async () => {
  const bytes = new TextEncoder().encode(DOCUMENT);
  for (const [how, chunks] of cuttings(bytes, 11)) {
    const fragments = await readAll(streamOf(chunks).pipeThrough(new JsonFragmentStream()));
    assertEqual(fragments[0], { type: 'start', kind: 'object' }, `${how}: first fragment`);
    assertEqual(aggregate(fragments), JSON.parse(DOCUMENT), how);
  }
});

test('JsonFragmentStream after TextDecoderStream: a multi-byte character split across chunks', async () => {
  const bytes = new TextEncoder().encode(DOCUMENT);
  for (const [how, chunks] of cuttings(bytes, 12)) {
    const fragments = await readAll(streamOf(chunks).pipeThrough(new TextDecoderStream()).pipeThrough(new JsonFragmentStream()));
    assertEqual(aggregate(fragments), JSON.parse(DOCUMENT), how);
  }
});

test('JsonValueStream from a Response body: the final value once the root completes', async () => {
  const body = new Response(new TextEncoder().encode(`${DOCUMENT}  \n`)).body;
  assert(body !== null, 'Response has a body');
  assertEqual(await readAll(body.pipeThrough(new JsonValueStream())), [{ value: JSON.parse(DOCUMENT), complete: true }], 'output');
});

test('JsonValueStream with snapshots: one snapshot per chunk that changed the value, then the complete value', async () => {
  const seen: unknown[] = [];
  const reader = streamOf(['{"path":"src/ma', 'in.rs","n":', '1', '2', '}']).pipeThrough(new JsonValueStream({ snapshots: true })).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    seen.push(JSON.parse(JSON.stringify(value))); // snapshots are live: copy to keep
  }
  const last = seen[seen.length - 1];
  assertEqual(last, { value: { path: 'src/main.rs', n: 12 }, complete: true }, 'last output');
  assertEqual(seen[0], { value: { path: 'src/ma' }, complete: false }, 'first snapshot');
});

test('JsonFragmentStream: fragments before an error are delivered, then the readable errors with a JsonStreamError', async () => {
  const { values, error } = await settle(streamOf(['{"a":"x', 'y",,']).pipeThrough(new JsonFragmentStream()));
  assert(error instanceof JsonStreamError, `error is a JsonStreamError (got ${String(error)})`);
  assertEqual([error.code, error.offset], ['invalid-json', 10], 'code and offset');
  assertEqual(aggregate(values), undefined, 'no complete value');
  assertEqual(values.length, 5, 'fragments delivered before the error');
});

test('JsonFragmentStream: a parse error reaches both ends (the source is cancelled with it)', async () => {
  const { stream, log } = recordingSource(['[1,', 'x', ']', '[']);
  const { error } = await settle(stream.pipeThrough(new JsonFragmentStream()));
  assert(error instanceof JsonStreamError, `error is a JsonStreamError (got ${String(error)})`);
  await tick();
  assert(log.cancelled === error, `the source was cancelled with the error (got ${String(log.cancelled)})`);
  assertEqual(log.pullsAfterEnd, 0, 'reads after the end');
});

test('JsonFragmentStream: unexpected-end when the input stops inside the document, with the open path', async () => {
  const { error } = await settle(streamOf(['{"a":[1']).pipeThrough(new JsonFragmentStream()));
  assert(error instanceof JsonStreamError, `error is a JsonStreamError (got ${String(error)})`);
  assertEqual([error.code, error.path], ['unexpected-end', '/a'], 'code and path');
});

test('JsonFragmentStream: cancellation by the consumer reaches the source', async () => {
  const { stream, log } = recordingSource(['["a', 'b', 'c', 'd"]']);
  const reader = stream.pipeThrough(new JsonFragmentStream()).getReader();
  await reader.read();
  await reader.cancel('user went away');
  await tick();
  assertEqual(log.cancelled, 'user went away', 'cancel reason at the source');
});

test('JsonValueStream: an error of the source reaches the consumer', async () => {
  let sent = false;
  const source = new ReadableStream<string>({
    pull(controller) {
      if (!sent) {
        sent = true;
        controller.enqueue('{"a":');
      } else controller.error(new TypeError('network went away'));
    },
  });
  const { error } = await settle(source.pipeThrough(new JsonValueStream()));
  assert(error instanceof TypeError && error.message === 'network went away', `the source's error (got ${String(error)})`);
});

// ---------------------------------------------------------------------------------------------
// Providers → turns, on real recordings (expected values from test/fixtures/providers/MANIFEST.md)

interface ExpectedCall {
  readonly id: string;
  readonly name: string;
  readonly index?: number;
  readonly args: JsonValue;
}

interface RecordingCase {
  readonly file: string;
  readonly provider: ProviderName;
  /** `undefined` for AG-UI, whose RUN_FINISHED states no finish reason. */
  readonly rawFinishReason: string | undefined;
  readonly toolCalls: readonly ExpectedCall[];
  /** Calls the provider ran itself (never in `turn.toolCalls`). */
  readonly providerToolCalls?: readonly ExpectedCall[];
}

/** The write_file call of the Gemini Interactions recording (MANIFEST.md). */
const WRITE_FILE: JsonValue = {
  path: 'src/main.rs',
  content: 'fn main() {\n    println!("héllo, \\"wörld\\" 🚀");\n}\n',
  options: { create_dirs: true, mode: 420, tags: ['rust', null, 1500] },
};

const RECORDINGS: readonly RecordingCase[] = [
  {
    file: 'anthropic/text-then-2-parallel-tool-use.sse',
    provider: 'anthropic',
    rawFinishReason: 'tool_use',
    toolCalls: [
      { id: 'toolu_01YUs66wivdF51ENZFX8gX9S', name: 'get_weather', index: 1, args: { location: 'New York, NY', unit: 'fahrenheit' } },
      { id: 'toolu_01NRtod2L7M7TBDj9GCzsZCx', name: 'get_time', index: 2, args: { timezone: 'America/New_York' } },
    ],
  },
  {
    file: 'anthropic/server-tool-use-code-execution-escapes-emoji.sse',
    provider: 'anthropic',
    rawFinishReason: 'end_turn',
    toolCalls: [],
    providerToolCalls: [
      { id: 'srvtoolu_01MwXaweAHve88x6s3Fc8x6Q', name: 'bash_code_execution', index: 2, args: { command: 'echo "65465-6544 * 65464-6+1.02255" | bc -l' } },
    ],
  },
  {
    file: 'anthropic/thinking-signature-then-tool-use-no-args.sse',
    provider: 'anthropic',
    rawFinishReason: 'tool_use',
    toolCalls: [{ id: 'toolu_01825dXWLSoJwCst1qTsiWdb', name: 'fixed_version', index: 1, args: {} }],
  },
  {
    file: 'openai-chat/parallel-2-tool-calls.sse',
    provider: 'openai-chat',
    rawFinishReason: 'tool_calls',
    toolCalls: [
      { id: 'call_JMW1whyEaYG438VE1OIflxA2', name: 'GetWeatherArgs', args: { city: 'Edinburgh', country: 'GB', units: 'c' } },
      { id: 'call_DNYTawLBoN8fj3KN6qU9N1Ou', name: 'get_stock_price', args: { ticker: 'AAPL', exchange: 'NASDAQ' } },
    ],
  },
  {
    file: 'openai-chat/single-tool-call.sse',
    provider: 'openai-chat',
    rawFinishReason: 'tool_calls',
    toolCalls: [{ id: 'call_c91SqDXlYFuETYv8mUHzz6pp', name: 'GetWeatherArgs', args: { city: 'Edinburgh', country: 'UK', units: 'c' } }],
  },
  {
    file: 'ag-ui/anthropic-text-then-2-parallel-tool-use.sse',
    provider: 'ag-ui',
    rawFinishReason: undefined,
    toolCalls: [
      { id: 'toolu_01YUs66wivdF51ENZFX8gX9S', name: 'get_weather', args: { location: 'New York, NY', unit: 'fahrenheit' } },
      { id: 'toolu_01NRtod2L7M7TBDj9GCzsZCx', name: 'get_time', args: { timezone: 'America/New_York' } },
    ],
  },
  {
    file: 'ag-ui/openai-chat-parallel-2-tool-calls-chunks.sse',
    provider: 'ag-ui',
    rawFinishReason: undefined,
    toolCalls: [
      { id: 'call_JMW1whyEaYG438VE1OIflxA2', name: 'GetWeatherArgs', args: { city: 'Edinburgh', country: 'GB', units: 'c' } },
      { id: 'call_DNYTawLBoN8fj3KN6qU9N1Ou', name: 'get_stock_price', args: { ticker: 'AAPL', exchange: 'NASDAQ' } },
    ],
  },
  {
    file: 'gemini-interactions/constructed-thought-text-function-call-arguments-delta.sse',
    provider: 'gemini-interactions',
    rawFinishReason: 'requires_action',
    toolCalls: [{ id: 'fc_7d1c0b2e', name: 'write_file', args: WRITE_FILE }],
  },
  {
    file: 'gemini-interactions/constructed-code-execution-then-text.sse',
    provider: 'gemini-interactions',
    rawFinishReason: 'completed',
    toolCalls: [],
    providerToolCalls: [{ id: 'ce_3f9a', name: 'code_execution', args: { language: 'PYTHON', code: 'print(sum(i * i for i in range(1, 11)))' } }],
  },
];

function checkTurn(turn: Turn, expected: RecordingCase, label: string): void {
  assertEqual(turn.incompleteToolCalls, [], `${label}: incomplete calls`);
  assertEqual(
    turn.toolCalls.map((call) => ({ id: call.toolCallId, name: call.toolName, args: call.arguments })),
    expected.toolCalls.map((call) => ({ id: call.id, name: call.name, args: call.args })),
    `${label}: tool calls`,
  );
  for (const [i, call] of expected.toolCalls.entries()) {
    if (call.index !== undefined) assertEqual(turn.toolCalls[i]?.index, call.index, `${label}: index of call ${i}`);
  }
  assertEqual(
    turn.providerToolCalls.map((call) => ({ id: call.toolCallId, name: call.toolName, args: call.arguments })),
    (expected.providerToolCalls ?? []).map((call) => ({ id: call.id, name: call.name, args: call.args })),
    `${label}: calls the provider ran`,
  );
  assertEqual(turn.rawFinishReason, expected.rawFinishReason, `${label}: raw finish reason`);
}

for (const expected of RECORDINGS) {
  test(`ProviderEventStream (${expected.provider}) → collectTurn on ${expected.file}: the manifest's tool calls, whole, byte by byte and at random cuts`, async () => {
    const bytes = recording(expected.file);
    const turns: Turn[] = [];
    for (const [how, chunks] of cuttings(bytes, bytes.length)) {
      const turn = await collectTurn(streamOf(chunks).pipeThrough(new ProviderEventStream({ provider: expected.provider })));
      checkTurn(turn, expected, how);
      turns.push(turn);
    }
    // The message text and reasoning do not depend on the cutting either.
    for (const turn of turns) assertEqual([turn.text, turn.reasoning], [turns[0]!.text, turns[0]!.reasoning], 'text and reasoning');
  });
}

/**
 * LangChain.js objects (the real packages' chunks, tuples and events, recorded as JSON lines): read
 * as objects, with the calls of the provider recording they were made from (MANIFEST.md).
 */
const LANGCHAIN_RECORDINGS: ReadonlyArray<RecordingCase & { readonly text: string }> = [
  {
    file: 'langchain/anthropic-text-then-2-parallel-tool-use.stream-v0.jsonl',
    provider: 'langchain',
    rawFinishReason: 'tool_use',
    text: "Certainly! I'd be happy",
    toolCalls: [
      { id: 'toolu_01YUs66wivdF51ENZFX8gX9S', name: 'get_weather', args: { location: 'New York, NY', unit: 'fahrenheit' } },
      { id: 'toolu_01NRtod2L7M7TBDj9GCzsZCx', name: 'get_time', args: { timezone: 'America/New_York' } },
    ],
  },
  {
    file: 'langchain/anthropic-server-tool-use-code-execution-escapes-emoji.events-v1.jsonl',
    provider: 'langchain',
    rawFinishReason: 'end_turn',
    text: "I'll calculate",
    toolCalls: [],
    providerToolCalls: [{ id: 'srvtoolu_01MwXaweAHve88x6s3Fc8x6Q', name: 'bash_code_execution', args: { command: 'echo "65465-6544 * 65464-6+1.02255" | bc -l' } }],
  },
  {
    file: 'langchain/anthropic-thinking-signature-then-tool-use-no-args.protocol.jsonl',
    provider: 'langchain',
    rawFinishReason: 'tool_use',
    text: '',
    toolCalls: [{ id: 'toolu_01825dXWLSoJwCst1qTsiWdb', name: 'fixed_version', args: {} }],
  },
  {
    file: 'langchain/openai-chat-parallel-2-tool-calls.messages-v0.jsonl',
    provider: 'langchain',
    // LangGraph's messages mode leaves out ChatOpenAI's finish reason: the graph's stream ends it.
    rawFinishReason: undefined,
    text: '',
    toolCalls: [
      { id: 'call_JMW1whyEaYG438VE1OIflxA2', name: 'GetWeatherArgs', args: { city: 'Edinburgh', country: 'GB', units: 'c' } },
      { id: 'call_DNYTawLBoN8fj3KN6qU9N1Ou', name: 'get_stock_price', args: { ticker: 'AAPL', exchange: 'NASDAQ' } },
    ],
  },
  {
    file: 'langchain/openai-compatible-qwen-dashscope-empty-string-ids.stream-v1.jsonl',
    provider: 'langchain',
    rawFinishReason: 'tool_calls',
    text: '',
    toolCalls: [{ id: 'call_eee11723464a4b9eb8cee71d', name: 'weather', args: { location: 'San Francisco' } }],
  },
  {
    file: 'langchain/openai-responses-reasoning-summary-then-function-call.graph-protocol.jsonl',
    provider: 'langchain',
    rawFinishReason: 'completed',
    text: '',
    toolCalls: [{ id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn', name: 'calculator', args: { a: 12, b: 7, op: 'add' } }],
  },
];

/** The objects of a JSON-lines recording. */
function objectsOf(bytes: Uint8Array): object[] {
  return new TextDecoder()
    .decode(bytes)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as object);
}

for (const expected of LANGCHAIN_RECORDINGS) {
  test(`ProviderEventStream (langchain) → collectTurn on ${expected.file}: the source recording's calls, read from plain objects`, async () => {
    const objects = objectsOf(recording(expected.file));
    const turn = await collectTurn(streamOf(objects).pipeThrough(new ProviderEventStream({ provider: 'langchain' })));
    checkTurn(turn, expected, 'objects');
    assert(turn.text.startsWith(expected.text), `the text begins ${show(expected.text)} (got ${show(turn.text.slice(0, 40))})`);
    // Cut before its last object, a turn is incomplete: a typed error, or (a LangGraph stream ends
    // with the graph) the same calls.
    const { error } = await settle(streamOf(objects.slice(0, -1)).pipeThrough(new ProviderEventStream({ provider: 'langchain' })));
    if (error !== undefined) {
      assert(error instanceof ProviderError, `a ProviderError (got ${String(error)})`);
      assertEqual([error.type, error.code], ['invalid-stream', 'truncated'], 'the cut stream');
    }
  });
}

test('ProviderEventStream (langchain) refuses text: LangChain\'s streams are objects', async () => {
  const { error } = await settle(streamOf(['{"type":"ai","content":"x"}']).pipeThrough(new ProviderEventStream({ provider: 'langchain' })));
  assert(error instanceof ProviderError, `a ProviderError (got ${String(error)})`);
  assertEqual([error.provider, error.type, error.code], ['langchain', 'invalid-stream', 'invalid-input'], 'the error');
});

test('A provider at an entry point of its own: by name, ProviderEventStream and fromResponse load its module; its definition decodes the same synchronously; ProviderEventDecoder refuses its name', async () => {
  const expected = RECORDINGS.find((r) => r.file === 'gemini-interactions/constructed-thought-text-function-call-arguments-delta.sse')!;
  const bytes = recording(expected.file);
  // The entry point, imported as a page would import it later (a chunk of its own here too).
  const { GEMINI_INTERACTIONS_PROVIDER } = await import('../../src/bindings/gemini-interactions.ts');
  const byName = await collectTurn(streamOf(oneByOne(bytes)).pipeThrough(new ProviderEventStream({ provider: 'gemini-interactions' })));
  checkTurn(byName, expected, 'by name');
  const fetched = await collectTurn(fromResponse(new Response(bytes), { provider: 'gemini-interactions' }));
  checkTurn(fetched, expected, 'fromResponse by name');
  const decoder = new ProviderEventDecoder({ provider: GEMINI_INTERACTIONS_PROVIDER });
  const events = [...decoder.push(bytes), ...decoder.end()];
  const fromDefinition = await collectTurn(streamOf(events));
  checkTurn(fromDefinition, expected, 'ProviderEventDecoder with the definition');
  let refused: unknown;
  try {
    new ProviderEventDecoder({ provider: 'gemini-interactions' });
  } catch (error) {
    refused = error;
  }
  assert(refused instanceof TypeError && refused.message.includes("import { GEMINI_INTERACTIONS_PROVIDER } from 'argstream/gemini-interactions'"), `a TypeError that says what to import (got ${String(refused)})`);
});

test('ToolInputNotificationStream (argstream/mcp-apps) on the Gemini Interactions recording, one byte at a time: partials that only grow, then the exact arguments', async () => {
  const bytes = recording('gemini-interactions/constructed-thought-text-function-call-arguments-delta.sse');
  const notifications: ToolInputNotification[] = [];
  const reader = streamOf(oneByOne(bytes))
    .pipeThrough(new ProviderEventStream({ provider: 'gemini-interactions' }))
    .pipeThrough(new ToolInputNotificationStream({ minGrowth: 0 }))
    .getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) notifications.push(read.value);
  const final = notifications.at(-1);
  assertEqual(final, { jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: WRITE_FILE } }, 'the final tool-input');
  const partials = notifications.slice(0, -1);
  assert(partials.length > 5, `partials while the arguments stream (got ${partials.length})`);
  let content = '';
  for (const partial of partials) {
    assertEqual(partial.method, 'ui/notifications/tool-input-partial', 'a partial');
    const next = ((partial.params as { arguments: { content?: string } }).arguments.content ?? '');
    assert(next.startsWith(content) && (WRITE_FILE as { content: string }).content.startsWith(next), `the content only grows (${show(next.slice(-20))})`);
    content = next;
  }
});

test('ProviderEventStream after TextDecoderStream on a Response body (anthropic): an emoji split across deltas and bytes reads the same', async () => {
  const expected = RECORDINGS[1]!;
  const bytes = recording(expected.file);
  const whole = await collectTurn(new Response(bytes).body!.pipeThrough(new TextDecoderStream()).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })));
  checkTurn(whole, expected, 'Response body');
  assert(whole.text.includes('1️⃣'), `the keycap emoji is whole in the text (${show(whole.text.slice(0, 80))})`);
  const oneByOneTurn = await collectTurn(streamOf(oneByOne(bytes)).pipeThrough(new TextDecoderStream()).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })));
  assertEqual([oneByOneTurn.text, oneByOneTurn.reasoning], [whole.text, whole.reasoning], 'text and reasoning, one byte at a time');
});

test('collectTurn: a hosted web search is the provider\'s call, never a tool call; a refusal is the turn\'s refusal, never its text', async () => {
  const bytes = recording('openai-responses/web-search-call-then-message-annotations.sse');
  for (const [how, chunks] of cuttings(bytes, bytes.length)) {
    const turn = await collectTurn(streamOf(chunks).pipeThrough(new ProviderEventStream({ provider: 'openai-responses' })));
    assertEqual(turn.toolCalls, [], `${how}: tool calls`);
    assertEqual(
      turn.providerToolCalls.map((call) => [call.toolCallId, call.toolName, call.result]),
      [['ws_67ccf18f64008190a39b619f4c8455ef087bb177ab789d5c', 'web_search', { status: 'completed' }]],
      `${how}: calls the provider ran`,
    );
  }
  const refused = await collectTurn(streamOf(oneByOne(recording('openai-chat/refusal.sse'))).pipeThrough(new ProviderEventStream({ provider: 'openai-chat' })));
  assertEqual([refused.text, refused.refusal], ['', "I'm sorry, I can't assist with that request."], 'refusal');
});

test('ConversationEventStream (openai-chat): tool-call events with parsed arguments, then finished', async () => {
  const expected = RECORDINGS[3]!;
  const events = await readAll(
    streamOf(oneByOne(recording(expected.file)))
      .pipeThrough(new ProviderEventStream({ provider: 'openai-chat' }))
      .pipeThrough(new ConversationEventStream()),
  );
  const calls = events.flatMap((event) => (event.type === 'tool-call' ? [{ id: event.toolCallId, name: event.toolName, args: event.arguments }] : []));
  assertEqual(calls, expected.toolCalls.map((c) => ({ id: c.id, name: c.name, args: c.args })), 'tool calls');
  const last = events[events.length - 1];
  assert(last?.type === 'finished', `the last event is finished (got ${last?.type})`);
  assertEqual([last.reason, last.rawReason], ['tool-calls', 'tool_calls'], 'finish reason');
});

test('ConversationEventStream (anthropic, max_tokens): a truncated call is tool-call-incomplete, or repaired and marked truncated', async () => {
  const bytes = recording('anthropic/tool-use-truncated-max-tokens.sse');
  const turn = await collectTurn(streamOf([bytes]).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })));
  assertEqual(turn.toolCalls, [], 'complete calls');
  assertEqual(turn.incompleteToolCalls.length, 1, 'incomplete calls');
  const call = turn.incompleteToolCalls[0]!;
  assertEqual([call.toolCallId, call.toolName, call.stopReason], ['toolu_01EKqbqmZrGRXy18eN7m9kvY', 'make_file', 'max_tokens'], 'identity and stop reason');
  const lines = ['# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s', '', '## INTRODUCTION', '', 'Filing taxes'];
  assertEqual(call.partialArguments, { filename: 'taxes.txt', lines_of_text: lines }, 'partial arguments');
  const events = await readAll(
    streamOf(oneByOne(bytes))
      .pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))
      .pipeThrough(new ConversationEventStream({ repair: true })),
  );
  const repaired = events.find((event) => event.type === 'tool-call');
  assert(repaired?.type === 'tool-call', 'a repaired tool-call event');
  assertEqual([repaired.arguments, repaired.truncated], [{ filename: 'taxes.txt', lines_of_text: lines }, true], 'repaired arguments');
});

test('ProviderEventStream: input that stops inside an event errors with a ProviderError (truncated), after the events before it', async () => {
  const bytes = recording('openai-chat/single-tool-call.sse');
  const { values, error } = await settle(streamOf([bytes.slice(0, Math.floor(bytes.length / 2))]).pipeThrough(new ProviderEventStream({ provider: 'openai-chat' })));
  assert(error instanceof ProviderError, `a ProviderError (got ${String(error)})`);
  assertEqual([error.type, error.code], ['invalid-stream', 'truncated'], 'type and code');
  assert(values.length > 0, 'events before the cut were delivered');
});

test('ToolCallProgressStream (anthropic, parallel calls): progress fragments replace the argument parts, arrive before the call\'s tool-call event and aggregate to its arguments', async () => {
  const expected = RECORDINGS[0]!;
  const outputs = await readAll(
    streamOf(oneByOne(recording(expected.file)))
      .pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))
      .pipeThrough(new ToolCallProgressStream()),
  );
  const byCall = new Map<string, StreamFragment[]>();
  for (const output of outputs) {
    if (output.type !== 'tool-call-progress') continue;
    const progress: ToolCallArgumentProgress = output;
    const list = byCall.get(progress.toolCallId) ?? [];
    list.push(progress.fragment);
    byCall.set(progress.toolCallId, list);
  }
  for (const call of expected.toolCalls) {
    const fragments = byCall.get(call.id);
    assert(fragments !== undefined && fragments.length > 2, `progress for ${call.id}`);
    assertEqual(aggregate(fragments), call.args, `aggregated progress of ${call.name}`);
    // The first fragment comes before the call's tool-call event (which replaced the slot's
    // flush): progress is live, not replayed at the end.
    const first = outputs.findIndex((o) => o.type === 'tool-call-progress' && o.toolCallId === call.id);
    const end = outputs.findIndex((o) => o.type === 'tool-call' && o.index === call.index);
    assert(first >= 0 && end > first, `${call.name}: progress (at ${first}) before the tool-call event (at ${end})`);
    const event = outputs[end];
    assert(event?.type === 'tool-call', `${call.name}: a tool-call event`);
    assertEqual([event.toolCallId, event.toolName, event.arguments], [call.id, call.name, call.args], `${call.name}: the tool-call event`);
    assert(!outputs.some((o) => o.type === 'flush' && o.index === call.index), `${call.name}: no flush of its slot passes`);
  }
  assert(!outputs.some((o) => o.type === 'part' && o.part.type === 'tool-call-arguments'), 'no raw argument part passes');
  const passedThrough = outputs.filter((o): o is StreamEvent => o.type === 'part' || o.type === 'flush' || o.type === 'finished');
  assert(passedThrough.some((o) => o.type === 'finished'), 'stream events pass through');
  assert(passedThrough.some((o) => o.type === 'part' && o.part.type === 'tool-call-start'), 'tool-call-start parts pass through');
});

// ---------------------------------------------------------------------------------------------
// Relay stages: field events, JSON text again, path updates over the wire and their rebuilder

test('FieldEventStream after JsonFragmentStream: start, deltas as they arrive, end per top-level field', async () => {
  const output = await readAll(streamOf(['{"pat', 'h":"/tm', 'p/file","n":', '12}']).pipeThrough(new JsonFragmentStream()).pipeThrough(new FieldEventStream({ keepProgress: false })));
  const events = output.filter((e): e is FieldEvent => e.type.startsWith('field-'));
  assertEqual(events.length, output.length, 'only field events for a bare document');
  const brief = events.map((event) => `${event.type} ${event.key}${'text' in event ? ` ${JSON.stringify(event.text)}` : ''}`);
  assertEqual(brief, ['field-start path', 'field-delta path "/tm"', 'field-delta path "p/file"', 'field-end path', 'field-start n', 'field-delta n "12"', 'field-end n'], 'field events');
});

test('JsonTextStream writes the document again as the same compact JSON text, whatever the cutting', async () => {
  const bytes = new TextEncoder().encode(DOCUMENT);
  for (const [how, chunks] of cuttings(bytes, 21)) {
    const text = (await readAll(streamOf(chunks).pipeThrough(new JsonFragmentStream()).pipeThrough(new JsonTextStream()))).join('');
    // DOCUMENT is compact already, with numbers kept as written: it comes back character for character.
    assertEqual(text, DOCUMENT, how);
  }
});

test('PathUpdateStream → JSON over the wire → JsonFragmentRebuilder rebuilds the document', async () => {
  const updates = await readAll(streamOf(oneByOne(new TextEncoder().encode(DOCUMENT))).pipeThrough(new JsonFragmentStream()).pipeThrough(new PathUpdateStream({ keepProgress: false })));
  const rebuilder = new JsonFragmentRebuilder();
  for (const update of updates) {
    if (update.type !== 'path-update') fail(`only path updates for a bare document (got ${update.type})`);
    rebuilder.push(JSON.parse(JSON.stringify(update)) as typeof update);
  }
  assertEqual(rebuilder.value, JSON.parse(DOCUMENT), 'rebuilt value');
});

test('fragments nested past depth 8 read as plain data: JSON, spread, structuredClone, the aggregator and path updates', async () => {
  const deep = '{"a":' + '['.repeat(20) + '{"k":"v\\u00e9","n":[1,true,null]}' + ']'.repeat(20) + '}';
  const fragments: StreamFragment[] = [];
  const parser = new IncrementalJsonParser();
  for (const chunk of oneByOne(deep)) parser.push(chunk, fragments);
  parser.end(fragments);
  const plain = JSON.parse(JSON.stringify(fragments)) as StreamFragment[];
  const deepest = fragments.find((f) => JSON.stringify(f).includes('"scalar"')) as StreamFragment;
  assertEqual(structuredClone(deepest), JSON.parse(JSON.stringify(deepest)), 'structuredClone of a deep fragment');
  assertEqual({ ...deepest }, JSON.parse(JSON.stringify(deepest)), 'spread of a deep fragment');
  assertEqual(aggregate(fragments), JSON.parse(deep), 'aggregated from lazy fragments');
  assertEqual(aggregate(plain), JSON.parse(deep), 'aggregated from plain copies');
  const updates = await readAll(streamOf(fragments).pipeThrough(new PathUpdateStream({ keepProgress: false })));
  const rebuilder = new JsonFragmentRebuilder();
  for (const update of updates) rebuilder.push(JSON.parse(JSON.stringify(update)) as typeof update & { type: 'path-update' });
  assertEqual(rebuilder.value, JSON.parse(deep), 'rebuilt from relative path updates');
});

// ---------------------------------------------------------------------------------------------
// Relaying to a browser: EventStreamEncoder / NdjsonEncoder in a Response, decoded again

/**
 * A value as the relay promises to give it back: `undefined` members absent, each error as its
 * class, name, message, own fields and cause (so two values compare with `assertEqual`).
 */
function relayed(value: unknown): unknown {
  if (value instanceof Error) {
    const fields: Record<string, unknown> = {};
    // Name and message are compared apart (an engine may make either an own enumerable member); the rest by name.
    for (const key of Object.keys(value).sort()) {
      if (key !== 'name' && key !== 'message' && key !== 'stack' && (value as unknown as Record<string, unknown>)[key] !== undefined) fields[key] = relayed((value as unknown as Record<string, unknown>)[key]);
    }
    return { '#class': (Object.getPrototypeOf(value) as { constructor: { name: string } }).constructor.name, name: value.name, message: value.message, cause: relayed(value.cause) ?? null, fields };
  }
  if (Array.isArray(value)) return value.map(relayed);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) if (member !== undefined) out[key] = relayed(member);
    return out;
  }
  return value;
}

/** The events a stream gave and the error it ended with (`undefined` when it closed). */
async function eventsOf(source: ReadableStream<unknown>): Promise<{ values: unknown[]; error: unknown }> {
  return settle(source);
}

/** A stream of `events` that errors with `error` after them (closes when it is `undefined`). */
function eventsThen(events: readonly unknown[], error: unknown): ReadableStream<unknown> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < events.length) controller.enqueue(events[i++]);
      else if (error === undefined) controller.close();
      else controller.error(error);
    },
  });
}

/** The body of a Response made of `body`, as bytes (the runtime's own Response reads the stream). */
async function responseBytes(body: ReadableStream<Uint8Array>, headers: Readonly<Record<string, string>>): Promise<Uint8Array> {
  const response = new Response(body, { headers: { ...headers } });
  assertEqual(response.headers.get('content-type'), headers['content-type'], 'content type');
  return new Uint8Array(await response.arrayBuffer());
}

const PAGE_CLASSES = errorClasses(undefined);

/** `value` with every error in it as a page gets it: its page record, read back (argstream's words, no cause but argstream's). */
function onPage(value: unknown): unknown {
  if (value instanceof Error) return reviveError(errorRecord(value), PAGE_CLASSES);
  if (Array.isArray(value)) return value.map(onPage);
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) copy[key] = onPage(member);
  return copy;
}

/** What a page decoded equals what the server sent, as a page is promised it (errors as their page records). */
function assertRelayed(actual: { values: unknown[]; error: unknown }, expected: { values: unknown[]; error: unknown }, label: string): void {
  assertEqual(relayed(actual.values), relayed(onPage(expected.values)), `${label}: events`);
  const error = expected.error === undefined ? undefined : reviveError(pageErrorRecord(expected.error), PAGE_CLASSES);
  assertEqual(relayed(actual.error) ?? null, relayed(error) ?? null, `${label}: error`);
}

const RELAY_RECORDINGS = ['anthropic/text-then-2-parallel-tool-use.sse', 'anthropic/server-tool-use-code-execution-escapes-emoji.sse', 'openai-chat/parallel-2-tool-calls.sse'];

test('EventStreamEncoder in a Response → EventStreamDecoder: recorded turns (progress, fields, tool calls) come back equal, whole, byte by byte and cut at random', async () => {
  for (const file of RELAY_RECORDINGS) {
    const provider: ProviderName = file.startsWith('openai-chat/') ? 'openai-chat' : 'anthropic';
    const pipeline = () => streamOf([recording(file)]).pipeThrough(new ProviderEventStream({ provider })).pipeThrough(new ConversationEventStream({ progress: true, passthrough: true })).pipeThrough(new FieldEventStream({ keepProgress: true }));
    const expected = await eventsOf(pipeline());
    assert(expected.error === undefined && expected.values.length > 10, `${file}: events to relay`);
    const bytes = await responseBytes(pipeline().pipeThrough(new EventStreamEncoder()), EVENT_STREAM_HEADERS);
    for (const [how, chunks] of cuttings(bytes, file.length)) {
      assertRelayed(await settle(streamOf(chunks).pipeThrough(new EventStreamDecoder())), expected, `${file}, ${how}`);
    }
    const ndjson = await responseBytes(pipeline().pipeThrough(new NdjsonEncoder()), { 'content-type': 'application/x-ndjson; charset=utf-8' });
    for (const [how, chunks] of cuttings(ndjson, file.length + 1)) {
      assertRelayed(await settle(streamOf(chunks).pipeThrough(new NdjsonDecoder())), expected, `${file} as NDJSON, ${how}`);
    }
  }
});

test('AgUiEncoder in a Response → ProviderEventStream ag-ui: a recorded turn comes back with its text and exact calls, whole, byte by byte and cut at random, as deltas and as path updates', async () => {
  for (const file of RELAY_RECORDINGS) {
    const provider: ProviderName = file.startsWith('openai-chat/') ? 'openai-chat' : 'anthropic';
    const expected = await collectTurn(streamOf([recording(file)]).pipeThrough(new ProviderEventStream({ provider })));
    for (const toolInputs of ['deltas', 'path-updates'] as const) {
      const bytes = await responseBytes(streamOf([recording(file)]).pipeThrough(new ProviderEventStream({ provider })).pipeThrough(new AgUiEncoder({ toolInputs })), AG_UI_HEADERS);
      for (const [how, chunks] of cuttings(bytes, file.length)) {
        const turn = await collectTurn(streamOf(chunks).pipeThrough(new ProviderEventStream({ provider: 'ag-ui' })));
        const label = `${file}, ${toolInputs}, ${how}`;
        assertEqual([turn.text, turn.reasoning], [expected.text, expected.reasoning], `${label}: text and reasoning`);
        assertEqual(
          [...turn.toolCalls].map((call) => [call.toolCallId, call.toolName, call.arguments]),
          [...expected.toolCalls, ...expected.providerToolCalls].map((call) => [call.toolCallId, call.toolName, call.arguments]),
          `${label}: calls`,
        );
      }
    }
  }
});

test('TurnStore reads a relay Response (SSE and NDJSON, cut at random) to the turn collectTurn builds, structurally shared; a snapshot resume gives the same turn', async () => {
  const file = 'anthropic/text-then-2-parallel-tool-use.sse';
  const pipeline = () => streamOf([recording(file)]).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })).pipeThrough(new FieldEventStream({ keepProgress: false }));
  const turn = await collectTurn(pipeline());
  const expected = turn.toolCalls.map((call) => [call.toolCallId, call.toolName, call.arguments]);
  for (const [encoder, type] of [[() => new EventStreamEncoder(), 'text/event-stream'], [() => new NdjsonEncoder(), 'application/x-ndjson']] as const) {
    const bytes = await responseBytes(pipeline().pipeThrough(encoder()), { 'content-type': type === 'text/event-stream' ? EVENT_STREAM_HEADERS['content-type'] : 'application/x-ndjson; charset=utf-8' });
    for (const [how, chunks] of cuttings(bytes, 7)) {
      const store = new TurnStore({ schedule: 'sync' });
      let previous = store.getSnapshot();
      let changes = 0;
      store.subscribe(() => {
        const next = store.getSnapshot();
        // A change makes a new snapshot; a call that did not change keeps its object.
        for (const call of next.calls) {
          const before = previous.calls.find((c) => c.toolCallId === call.toolCallId);
          if (before !== undefined && before.status === 'complete') assert(before === call, `${type}, ${how}: a complete call keeps its identity`);
        }
        previous = next;
        changes++;
      });
      const snapshot = await store.consume(new Response(streamOf(chunks), { headers: { 'content-type': type } }));
      assertEqual(snapshot.status, 'done', `${type}, ${how}: status`);
      assertEqual(snapshot.text, turn.text, `${type}, ${how}: text`);
      assertEqual(snapshot.calls.map((call) => [call.toolCallId, call.toolName, call.input]), expected, `${type}, ${how}: calls`);
      assert(changes > 2, `${type}, ${how}: listeners told as it streamed`);
    }
  }
  // A client that has nothing resumes with one snapshot of what it lacks: the same turn.
  const kept = (await eventsOf(pipeline())).values;
  const resumed = await collectTurn(resumeEventStream([...kept, { type: 'end' as const }], 0, { snapshot: true }).pipeThrough(new EventStreamDecoder()));
  assertEqual(resumed.toolCalls.map((call) => [call.toolCallId, call.toolName, call.arguments]), expected, 'resumed from a snapshot');
  assertEqual(resumed.text, turn.text, 'resumed text');
});

test('EventStreamEncoder sends a provider error as event: error, and errors inside events, as their classes', async () => {
  // An Anthropic stream that fails after its text: the provider's error event.
  const text = new TextDecoder().decode(recording('anthropic/text-then-2-parallel-tool-use.sse'));
  const cut = text.indexOf('event: content_block_stop');
  const failing = `${text.slice(0, cut)}event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n`;
  const pipeline = () => streamOf([new TextEncoder().encode(failing)]).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })).pipeThrough(new FieldEventStream());
  const expected = await eventsOf(pipeline());
  assert(expected.error instanceof ProviderError, 'the provider error ends the events');
  for (const [encoder, decoder] of [[() => new EventStreamEncoder(), () => new EventStreamDecoder()], [() => new NdjsonEncoder(), () => new NdjsonDecoder()]] as const) {
    const bytes = await responseBytes(pipeline().pipeThrough(encoder()), EVENT_STREAM_HEADERS);
    const decoded = await settle(streamOf(oneByOne(bytes)).pipeThrough(decoder()));
    assert(decoded.error instanceof ProviderError, `a ProviderError, got ${String(decoded.error)}`);
    // The page reads argstream's words for it, not the provider's ("Overloaded" stays on the server).
    assertEqual([decoded.error.provider, decoded.error.type, decoded.error.message], ['anthropic', 'overloaded_error', 'anthropic: the provider reported an error "overloaded_error"'], 'its fields');
    assertRelayed(decoded, expected, 'events and error');
  }
  // A tool call with invalid arguments, isolated: the event carries a ToolCallArgumentsError.
  const failed = await eventsOf(
    streamOf([
      { type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: 'call_1', toolName: 'write_file' } },
      { type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: '{"path":"é🙂"x}' } },
      { type: 'flush', index: 0 },
    ] as StreamEvent[]).pipeThrough(new ConversationEventStream({ isolateErrors: true })),
  );
  const decoded = await settle(streamOf([await responseBytes(eventsThen(failed.values, undefined).pipeThrough(new EventStreamEncoder<unknown>()), EVENT_STREAM_HEADERS)]).pipeThrough(new EventStreamDecoder()));
  const event = decoded.values.find((e) => (e as { type: string }).type === 'tool-call-failed') as { error: ToolCallArgumentsError } | undefined;
  assert(event !== undefined && event.error instanceof ToolCallArgumentsError && event.error.cause instanceof JsonStreamError, 'a ToolCallArgumentsError with its JsonStreamError');
  assertEqual([event.error.toolCallId, event.error.offset, event.error.code, event.error.cause.offset], ['call_1', 13, 'invalid-json', 13], 'its fields (the offset of x, counted by hand)');
  assertRelayed(decoded, failed, 'failed call');
});

test('EventStreamDecoder: a connection cut mid-stream resumes with Last-Event-ID (resumeEventStream) and the events join up', async () => {
  const kept = (await eventsOf(streamOf([recording('anthropic/text-then-2-parallel-tool-use.sse')]).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })).pipeThrough(new FieldEventStream()))).values;
  const bytes = await responseBytes(eventsThen(kept, undefined).pipeThrough(new EventStreamEncoder<unknown>()), EVENT_STREAM_HEADERS);
  for (const cut of [0, 17, Math.floor(bytes.length / 2), bytes.length - 20]) {
    const decoder = new EventStreamDecoder<unknown>();
    const before = await settle(streamOf([bytes.slice(0, cut)]).pipeThrough(decoder));
    assert(before.error instanceof RelayError && before.error.code === 'incomplete', `cut at ${cut}: incomplete`);
    const request = new Request('http://127.0.0.1/events', { headers: decoder.lastEventId === undefined ? {} : { 'last-event-id': decoder.lastEventId } });
    const rest = await responseBytes(resumeEventStream([...kept, { type: 'end' as const }], request), EVENT_STREAM_HEADERS);
    const after = await settle(streamOf([rest]).pipeThrough(new EventStreamDecoder<unknown>()));
    assertRelayed({ values: [...before.values, ...after.values], error: after.error }, { values: kept, error: undefined }, `cut at ${cut}`);
  }
});

// ---------------------------------------------------------------------------------------------
// Sources: fetch responses, (async) iterables, and the NDJSON of an SDK's toReadableStream()

/** The JSON `data` of each SSE event of a recording: the objects an SDK yields. */
function sseDataObjects(bytes: Uint8Array): unknown[] {
  return new TextDecoder()
    .decode(bytes)
    .split(/\r\n\r\n|\n\n|\r\r/)
    .map((event) => event.split(/\r\n|\n|\r/).filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim()).join('\n'))
    .filter((data) => data !== '' && data !== '[DONE]')
    .map((data) => JSON.parse(data) as unknown);
}

test('fromAsyncIterable (ReadableStream.from where present, and the pull-based fallback): SDK event objects give the manifest turn; cancel calls return()', async () => {
  const expected = RECORDINGS.find((r) => r.file === 'openai-chat/parallel-2-tool-calls.sse')!;
  const objects = sseDataObjects(recording(expected.file));
  async function* sdkStream() {
    for (const object of objects) yield object;
  }
  for (const [how, from] of [['fromAsyncIterable', fromAsyncIterable], ['fallback', iterableStream]] as const) {
    checkTurn(await collectTurn(from(sdkStream()).pipeThrough(new ProviderEventStream({ provider: 'openai-chat' }))), expected, how);
    let returned = false;
    const iterable: AsyncIterable<number> = {
      [Symbol.asyncIterator]: () => ({ next: async () => ({ done: false, value: 1 }), return: async () => ((returned = true), { done: true, value: undefined }) }),
    };
    const reader = from(iterable).getReader();
    await reader.read();
    await reader.cancel();
    assert(returned, `${how}: cancel calls return()`);
  }
});

test('fromResponse: a Response gives the manifest turn (fused with the stages after it); an error status a ProviderError with the provider\'s fields', async () => {
  const expected = RECORDINGS.find((r) => r.file === 'openai-chat/single-tool-call.sse')!;
  const bytes = recording(expected.file);
  checkTurn(await collectTurn(fromResponse(new Response(streamOf(oneByOne(bytes))), { provider: 'openai-chat' })), expected, 'byte by byte');
  const events = await readAll(fromResponse(new Response(bytes), { provider: 'openai-chat' }).pipeThrough(new ConversationEventStream()));
  assertEqual(events.filter((e) => e.type === 'tool-call').map((e) => (e as { toolName: string }).toolName), ['GetWeatherArgs'], 'conversation events');
  const failed = await settle(
    fromResponse(new Response('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', { status: 529 }), { provider: 'anthropic' }),
  );
  assert(failed.error instanceof ProviderError, `a ProviderError, got ${String(failed.error)}`);
  assertEqual([failed.error.status, failed.error.type, failed.error.message], [529, 'overloaded_error', 'anthropic HTTP 529: overloaded_error: Overloaded'], 'its fields');
});

test('ProviderEventStream reads the NDJSON of event objects (an SDK toReadableStream()) as the SSE, and an HTTP error body as the provider error', async () => {
  const expected = RECORDINGS.find((r) => r.file === 'anthropic/text-then-2-parallel-tool-use.sse')!;
  const ndjson = new TextEncoder().encode(sseDataObjects(recording(expected.file)).map((object) => `${JSON.stringify(object)}\n`).join(''));
  for (const [how, chunks] of cuttings(ndjson, 7)) {
    checkTurn(await collectTurn(streamOf(chunks).pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))), expected, how);
  }
  const error = await settle(streamOf([new TextEncoder().encode('{"error":{"code":429,"message":"Quota","status":"RESOURCE_EXHAUSTED"}}')]).pipeThrough(new ProviderEventStream({ provider: 'gemini' })));
  assert(error.error instanceof ProviderError, `a ProviderError, got ${String(error.error)}`);
  assertEqual([error.error.type, error.error.code, error.error.message], ['RESOURCE_EXHAUSTED', '429', 'gemini: RESOURCE_EXHAUSTED: Quota'], 'its fields');
});

test('iterate: for await over a stage\'s output, also where ReadableStream has no async iterator (WebKit): every event, the error after them, a break cancels the source', async () => {
  const expected = RECORDINGS.find((r) => r.file === 'openai-chat/single-tool-call.sse')!;
  const bytes = recording(expected.file);
  for (const [how, iterateStream] of [['iterate', iterate], ['over a reader', readerIterator]] as const) {
    const calls: string[] = [];
    const stages = streamOf(oneByOne(bytes)).pipeThrough(new ProviderEventStream({ provider: 'openai-chat' })).pipeThrough(new ConversationEventStream());
    for await (const event of iterateStream(stages)) if (event.type === 'tool-call') calls.push(event.toolName);
    assertEqual(calls, ['GetWeatherArgs'], `${how}: the turn's call`);
    assert(!stages.locked, `${how}: the lock is released at the end`);

    const values: unknown[] = [];
    let caught: unknown;
    try {
      for await (const value of iterateStream(streamOf(['[1, 2, ', '}']).pipeThrough(new JsonValueStream({ snapshots: true })))) values.push(value);
    } catch (error) {
      caught = error;
    }
    assert(caught instanceof JsonStreamError, `${how}: the stage's error is thrown in the loop, got ${String(caught)}`);
    assert(values.length > 0, `${how}: after the values before it`);

    const { stream, log } = recordingSource(oneByOne(new TextEncoder().encode('{"path": "src/main.rs", "content": "fn main() {}"}')));
    for await (const fragment of iterateStream(stream.pipeThrough(new JsonFragmentStream()))) if (fragment.type !== 'start') break;
    await tick();
    assertEqual([log.cancelCalls, log.cancelled], [1, undefined], `${how}: a break cancels the source`);
  }
});

// ---------------------------------------------------------------------------------------------
// Observably standard: every exported stream, alone and in chains, against identity TransformStreams (semantics.ts)

for (const group of groupNames()) {
  test(`standard semantics: ${group} behaves as a chain of identity TransformStreams (locks, pipe options, signals, cancel and error reasons, tee, for await)`, async () => {
    const message = failureMessage(await runGroup(group));
    if (message !== undefined) fail(message);
  });
}
