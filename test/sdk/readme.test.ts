/**
 * The SDK snippets — docs/sdks.md, and the README's recipe "From an official SDK or `fetch` to a
 * turn" — run as written against the replay server: each `ts` block is stripped of its types
 * (esbuild), its imports are served from this repository (`argstream` is `src/index.ts`; each
 * SDK's client class is the real one with the replay server's URL and a fake key as defaults),
 * `fetch` goes to the replay server, and what the snippet prints is compared with the MANIFEST or
 * with hand-written expectations. (test/docs/typecheck.test.ts type-checks the same blocks.)
 */
import { readFileSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import { createAnthropic } from '@ai-sdk/anthropic';
import { GoogleGenAI, type GoogleGenAIOptions } from '@google/genai';
import * as ai from 'ai';
import { transform } from 'esbuild';
import OpenAI, { type ClientOptions } from 'openai';
import { describe, expect, it } from 'vitest';
import * as zod from 'zod';
import * as argstream from '../../src/index.ts';
import { startReplayServer, type ReplayProvider } from '../../src/cli/replay-server.ts';
import { readFixture } from '../helpers.ts';
import { manifestEntry } from '../manifest.ts';

const tsBlocks = (markdown: string) => [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] as string);
/** The blocks of docs/sdks.md. */
const blocks = tsBlocks(readFileSync(new URL('../../docs/sdks.md', import.meta.url), 'utf8'));
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const recipe = readme.slice(readme.indexOf('### From an official SDK or `fetch` to a turn'));
/** The blocks of the README's recipe. */
const readmeBlocks = tsBlocks(recipe.slice(0, recipe.search(/\n##+ /)));

/** A hand-written Anthropic stream of one write_file call, for the AI SDK snippet. */
const WRITE_FILE_SSE = [
  'event: message_start',
  'data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}}',
  '',
  'event: content_block_start',
  'data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"write_file","input":{}}}',
  '',
  'event: content_block_delta',
  'data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"path\\": \\"src/ma"}}',
  '',
  'event: content_block_delta',
  'data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"in.rs\\", \\"content\\": \\"fn main() {\\\\n"}}',
  '',
  'event: content_block_delta',
  'data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"    println!(\\\\\\"hello\\\\\\");\\\\n}\\\\n\\"}"}}',
  '',
  'event: content_block_stop',
  'data: {"type":"content_block_stop","index":0}',
  '',
  'event: message_delta',
  'data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":30}}',
  '',
  'event: message_stop',
  'data: {"type":"message_stop"}',
  '',
  '',
].join('\n');

/** Run one block with its imports served here and `fetch` sent to `url`; returns what it printed. */
async function runBlock(code: string, url: string): Promise<{ log: unknown[][]; error: unknown[][]; stdout: string }> {
  const printed = { log: [] as unknown[][], error: [] as unknown[][], stdout: '' };
  const modules: Record<string, Record<string, unknown>> = {
    argstream,
    '@anthropic-ai/sdk': {
      default: class extends Anthropic {
        constructor(options: ConstructorParameters<typeof Anthropic>[0] = {}) {
          super({ apiKey: 'replay', baseURL: url, maxRetries: 0, ...options });
        }
      },
    },
    openai: {
      default: class extends OpenAI {
        constructor(options: ClientOptions = {}) {
          super({ apiKey: 'replay', baseURL: `${url}/v1`, maxRetries: 0, ...options });
        }
      },
    },
    '@google/genai': {
      GoogleGenAI: class extends GoogleGenAI {
        constructor(options: GoogleGenAIOptions) {
          super({ apiKey: 'replay', ...options, httpOptions: { baseUrl: url } });
        }
      },
    },
    '@ai-sdk/anthropic': { anthropic: createAnthropic({ apiKey: 'replay', baseURL: `${url}/v1` }) },
    ai,
    zod,
  };
  const { code: js } = await transform(code, { loader: 'ts', format: 'esm' });
  const body = js.replace(/^import (?:(\w+)|\* as (\w+)|\{([^}]*)\}) from "([^"]+)";$/gm, (_, name: string | undefined, star: string | undefined, names: string | undefined, from: string) =>
    name !== undefined
      ? `const ${name} = __import(${JSON.stringify(from)}).default;`
      : star !== undefined
        ? `const ${star} = __import(${JSON.stringify(from)});`
        : `const {${(names ?? '').replace(/ as /g, ': ')}} = __import(${JSON.stringify(from)});`,
  );
  const fakeFetch = (input: string, init?: RequestInit) => fetch(input.replace(/^https:\/\/[^/]+/, url), init);
  const fakeConsole = { log: (...args: unknown[]) => printed.log.push(args), error: (...args: unknown[]) => printed.error.push(args) };
  const fakeProcess = { env: {}, stdout: { write: (text: string) => (printed.stdout += text) } };
  const context = {
    tools: [{ name: 'get_weather', description: 'Weather of a place', input_schema: { type: 'object', properties: { location: { type: 'string' } } } }],
    messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
    chatMessages: [{ role: 'user', content: 'Weather in Edinburgh?' }],
    chatTools: [{ type: 'function', function: { name: 'GetWeatherArgs', parameters: { type: 'object' } } }],
    responseTools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object' }, strict: false }],
    functionDeclarations: [{ name: 'get_capital', parameters: { type: 'OBJECT' } }],
  };
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => (...values: unknown[]) => Promise<void>;
  const run = new AsyncFunction('__import', 'fetch', 'console', 'process', ...Object.keys(context), body);
  await run((name: string) => modules[name] ?? (() => { throw new Error(`the snippet imports ${name}`); })(), fakeFetch, fakeConsole, fakeProcess, ...Object.values(context));
  return printed;
}

async function withServer<T>(recording: Uint8Array, provider: ReplayProvider, status: number | undefined, body: (url: string) => Promise<T>): Promise<T> {
  const server = await startReplayServer({ recording, provider, ...(status !== undefined ? { status } : {}) });
  try {
    return await body(server.url);
  } finally {
    await server.close();
  }
}

const args = (file: string) => manifestEntry(file).toolCalls.map((call) => [call.name, JSON.parse(call.args)] as const);

describe('docs/sdks.md and the README recipe: official SDKs and fetch responses', () => {
  it('docs/sdks.md has the six snippets: fetch, Anthropic, OpenAI chat and responses, Gemini, AI SDK; the README two', () => {
    expect(blocks).toHaveLength(6);
    expect(blocks[0]).toContain('fromResponse(response');
    expect(blocks[1]).toContain("from '@anthropic-ai/sdk'");
    expect(blocks[2]).toContain('chat.completions.create');
    expect(blocks[3]).toContain('responses.stream');
    expect(blocks[4]).toContain("from '@google/genai'");
    expect(blocks[5]).toContain("result.fullStream.pipeThrough(chain(new ProviderEventStream({ provider: 'ai-sdk' }), new FieldEventStream()))");
    expect(readmeBlocks).toHaveLength(2);
    expect(readmeBlocks[0]).toContain('collectTurn(fromResponse(response');
    expect(readmeBlocks[1]).toContain("from '@anthropic-ai/sdk'");
  });

  it.each([
    ['docs/sdks.md', () => blocks[0]],
    ['README.md', () => readmeBlocks[0]],
  ] as const)('%s fetch + fromResponse: the tool calls, and an HTTP error as status, type and message', async (_doc, block) => {
    const file = 'anthropic/text-then-tool-use.sse';
    const ok = await withServer(readFixture(`providers/${file}`), 'anthropic', undefined, (url) => runBlock(block() as string, url));
    expect(ok.log).toEqual(args(file));
    const failed = await withServer(new TextEncoder().encode('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'), 'anthropic', 529, (url) =>
      runBlock(block() as string, url),
    );
    expect(failed.error).toEqual([[529, 'overloaded_error', 'anthropic HTTP 529: overloaded_error: Overloaded']]);
  });

  it.each([
    ['docs/sdks.md', () => blocks[1]],
    ['README.md', () => readmeBlocks[1]],
  ] as const)('%s Anthropic SDK snippet prints the MANIFEST calls', async (_doc, block) => {
    const file = 'anthropic/text-then-2-parallel-tool-use.sse';
    const printed = await withServer(readFixture(`providers/${file}`), 'anthropic', undefined, (url) => runBlock(block() as string, url));
    expect(printed.log).toEqual(args(file));
  });

  it.each([
    [2, 'openai-chat/parallel-2-tool-calls.sse', 'openai-chat'],
    [3, 'openai-responses/function-call.sse', 'openai-responses'],
  ] as const)('docs/sdks.md OpenAI snippet %i prints the MANIFEST tool names (%s)', async (index, file, provider) => {
    const printed = await withServer(readFixture(`providers/${file}`), provider, undefined, (url) => runBlock(blocks[index] as string, url));
    expect(printed.log).toEqual([[manifestEntry(file).toolCalls.map((call) => call.name)]]);
  });

  it('docs/sdks.md Gemini snippet prints the MANIFEST calls', async () => {
    const file = 'gemini/function-call-whole-args-crlf.sse';
    const printed = await withServer(readFixture(`providers/${file}`), 'gemini', undefined, (url) => runBlock(blocks[4] as string, url));
    expect(printed.log).toEqual([[args(file).map(([name, value]) => [name, value])]]);
  });

  it('docs/sdks.md AI SDK snippet streams the fields of write_file, then the call', async () => {
    const printed = await withServer(new TextEncoder().encode(WRITE_FILE_SSE), 'anthropic', undefined, (url) => runBlock(blocks[5] as string, url));
    expect(printed.stdout).toBe('\npath: src/main.rs\ncontent: fn main() {\n    println!("hello");\n}\n');
    expect(printed.log).toEqual([['\n→ write_file']]);
  });
});
