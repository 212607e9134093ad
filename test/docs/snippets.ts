/**
 * The `ts` snippets of the README, the CHANGELOG and docs/*.md (not the generated docs/api/):
 * where each one is, the names a snippet leaves to the reader (declared once here, with their
 * types), and a runner that executes a snippet as written with its imports served from this
 * repository.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { transform } from 'esbuild';

export const ROOT = new URL('../../', import.meta.url);

/** The documents whose snippets are checked, relative to the repository. */
export function documents(): string[] {
  const docs = readdirSync(new URL('docs/', ROOT))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', 'CHANGELOG.md', ...docs];
}

export interface Snippet {
  /** The document, relative to the repository. */
  readonly doc: string;
  /** Its position among the document's `ts` blocks, from 0. */
  readonly index: number;
  /** The line of the document where the code begins (1-based). */
  readonly line: number;
  readonly code: string;
}

/** Every ` ```ts ` block of `doc`, in order. */
export function snippetsOf(doc: string): Snippet[] {
  const text = readFileSync(new URL(doc, ROOT), 'utf8');
  const snippets: Snippet[] = [];
  // A fence may be indented (inside a list item): its lines lose that indentation.
  for (const match of text.matchAll(/^( *)```ts\n([\s\S]*?)^\1```$/gm)) {
    const indent = (match[1] as string).length;
    const line = text.slice(0, match.index).split('\n').length + 1;
    const code = (match[2] as string).split('\n').map((codeLine) => codeLine.slice(Math.min(indent, codeLine.search(/\S|$/)))).join('\n');
    snippets.push({ doc, index: snippets.length, line, code });
  }
  return snippets;
}

export function allSnippets(): Snippet[] {
  return documents().flatMap(snippetsOf);
}

/** The value exports and type exports of `src/index.ts`. */
export function indexExports(): { values: string[]; types: string[] } {
  const source = readFileSync(new URL('src/index.ts', ROOT), 'utf8');
  const values: string[] = [];
  const types: string[] = [];
  for (const match of source.matchAll(/^export (type )?\{([^}]*)\}/gm)) {
    const names = (match[2] as string).split(',').map((name) => name.trim()).filter(Boolean);
    (match[1] === undefined ? values : types).push(...names);
  }
  return { values, types };
}

/**
 * The names snippets use without defining them: what the reader has at that point of their own
 * program. One declaration per name for every page, so a name means one thing everywhere.
 */
export const PLACEHOLDERS = `
import type * as A from 'argstream';
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import type { FunctionDeclaration } from '@google/genai';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge';

declare global {
  /** A provider request's headers and body. */
  const headers: HeadersInit;
  const body: BodyInit;
  /** A provider's streaming fetch Response (several, where a snippet shows alternatives). */
  const response: Response;
  const upstream: Response;
  const otherResponse: Response;
  const otherBytes: ReadableStream<Uint8Array>;
  /** Where a server keeps a finished turn, and reports what failed. */
  function saveTurn(turn: A.Turn): void;
  function reportError(error: unknown): void;
  /** A provider's response body, already in hand. */
  const bytes: ReadableStream<Uint8Array>;
  /** The same, read by the program into an array. */
  const chunks: readonly Uint8Array[];
  /** Argument text from another SDK, delta by delta. */
  const argumentDeltas: AsyncIterable<string>;
  const argumentChunks: ReadableStream<string>;
  /** Where a relay writes JSON text. */
  const relay: WritableStream<string>;
  /** What a browser received from a PathUpdateStream relay. */
  const updatesFromServer: ReadableStream<A.ToolCallRebuilderInput>;
  /** The provider for the CHANGELOG's before/after lines. */
  const provider: A.ProviderName;
  /** Request parameters of the SDK snippets. */
  const tools: Anthropic.Messages.Tool[];
  const messages: Anthropic.Messages.MessageParam[];
  const chatMessages: OpenAI.Chat.ChatCompletionMessageParam[];
  const chatTools: OpenAI.Chat.ChatCompletionTool[];
  const responseTools: OpenAI.Responses.Tool[];
  const functionDeclarations: FunctionDeclaration[];
  /** LangChain.js tools, a chat model and a question for it (docs/langchain.md). */
  const langChainTools: StructuredToolInterface[];
  const chatModel: BaseChatModel;
  const question: string;
  /** An MCP Apps host's bridge to the view of one call, and that call's id. */
  const bridge: AppBridge;
  const toolCallId: string;
  /** A page: the prompt, and the element a file's content goes into. */
  const prompt: string;
  const pre: HTMLElement;
  /** Where a TerminalSink writes. */
  const output: A.TerminalOutput;
  /** The application's own functions. */
  function render(...values: unknown[]): void;
  function run(toolName: string, args: A.JsonValue): Promise<void>;
  function show(toolName: string, args: A.JsonValue): void;
  function reconnect(lastEventId: string | undefined): void;
  function showError(error: unknown): void;
  function handle(event: unknown): void;
  function abort(toolCallId: string | undefined, issues: readonly A.ArgumentIssue[]): void;
  function subscribe(listener: () => void): () => void;
  /** The resume recipe's handlers (docs/relay.md), served by a Node adapter. */
  function chat(request: Request): Promise<Response>;
  function resume(request: Request, streamId: string): Promise<Response>;
  function stop(streamId: string): Promise<Response>;
  /** Deno's global, as much of it as the snippets use (Node's type-check has no Deno types). */
  const Deno: {
    readonly stdout: { readonly writable: WritableStream<Uint8Array>; isTerminal(): boolean };
    consoleSize(): { columns: number; rows: number };
  };
}
export {};
`;

/** Modules a snippet may import, by specifier. */
export type Modules = Record<string, Record<string, unknown>>;

export interface Printed {
  log: unknown[][];
  warn: unknown[][];
  error: unknown[][];
  stdout: string;
  /** What the code appended by a test passed to `__result(…)`. */
  result: unknown[];
  /** What the snippet exports (`export default`, `export function`). */
  exports: Record<string, unknown>;
}

/**
 * Run a snippet as written: its types stripped (esbuild), its imports taken from `modules`, the
 * names it leaves to the reader from `scope`, `console` and `process.stdout` recorded. `after`
 * is code appended to the snippet (it may call `__result(value)`).
 */
export async function runSnippet(code: string, options: { modules: Modules; scope?: Record<string, unknown>; after?: string }): Promise<Printed> {
  const printed: Printed = { log: [], warn: [], error: [], stdout: '', result: [], exports: {} };
  const { code: js } = await transform(`${code}\n${options.after ?? ''}`, { loader: 'ts', format: 'esm' });
  const exported: string[] = [];
  const body = js
    .replace(/^import (?:(\w+)|\* as (\w+)|\{([^}]*)\}) from "([^"]+)";$/gm, (_, name?: string, star?: string, names?: string, from?: string) => {
      const source = `__import(${JSON.stringify(from)})`;
      if (name !== undefined) return `const ${name} = ${source}.default;`;
      if (star !== undefined) return `const ${star} = ${source};`;
      return `const {${(names ?? '').replace(/ as /g, ': ')}} = ${source};`;
    })
    .replace(/^export default /gm, '__exports.default = ')
    .replace(/^export \{([^}]*)\};$/gm, (_, names: string) =>
      names
        .split(',')
        .map((name) => name.trim().split(/\s+as\s+/))
        .map(([local, as]) => `__exports.${as ?? local} = ${local};`)
        .join(' '),
    )
    .replace(/^export (async function|function|const|let|class) (\w+)/gm, (_, kind: string, name: string) => {
      exported.push(name);
      return `${kind} ${name}`;
    });
  const tail = exported.map((name) => `__exports.${name} = ${name};`).join('\n');
  // Live snapshots change after they are printed: keep what they were at the time.
  const copy = (value: unknown) => {
    try {
      return typeof value === 'object' && value !== null ? structuredClone(value) : value;
    } catch {
      return value;
    }
  };
  const recorded = (list: unknown[][]) => (...args: unknown[]) => void list.push(args.map(copy));
  const fakeConsole = { log: recorded(printed.log), warn: recorded(printed.warn), error: recorded(printed.error) };
  const fakeProcess = {
    env: {},
    stdout: { isTTY: false, columns: 80, write: (text: string) => ((printed.stdout += text), true) },
  };
  const scope = { process: fakeProcess, console: fakeConsole, ...(options.scope ?? {}) };
  const importer = (name: string) => options.modules[name] ?? (() => { throw new Error(`the snippet imports ${name}, which the test does not serve`); })();
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => (...values: unknown[]) => Promise<void>;
  const run = new AsyncFunction('__import', '__exports', '__result', ...Object.keys(scope), `${body}\n${tail}`);
  await run(importer, printed.exports, (value: unknown) => void printed.result.push(value), ...Object.values(scope));
  return printed;
}
