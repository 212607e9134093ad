/**
 * The packages as a user receives them. npm: `npm pack` (of the built dist/: `npm test` builds first),
 * installed from the tarball into a fresh project, then imported from an ESM script, type-checked
 * from TypeScript under `node16` and `bundler` resolution, and linted by publint and
 * arethetypeswrong. Nothing of that needs the internet: eventsource-parser, the one runtime
 * dependency, comes from npm's cache, which the contributor's `npm ci` filled; the AI SDK's page
 * is type-checked with this repository's `ai` and `@ai-sdk/react` in each layout npm makes. One
 * describe does need the registry: `npm install <tarball> ai @ai-sdk/react` as the README says it,
 * on the Node running the tests and on Node 24 (skipped offline, failed in CI). JSR: `deno publish
 * --dry-run` of deno.json's `@argstream/argstream` (Deno finds eventsource-parser in node_modules).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES } from '../helpers.ts';
import { manifestEntry } from '../manifest.ts';
import { execute, localBin, notInstalled, npm, ROOT, versionOf, type ProcessResult } from '../runtimes/harness.ts';
import { NODE24 } from '../runtimes/node/run.ts';

const require = createRequire(import.meta.url);
const IN_CI = process.env['CI'] !== undefined && process.env['CI'] !== '' && process.env['CI'] !== 'false' && process.env['CI'] !== '0';
const TSC = require.resolve('typescript/bin/tsc');
/** The oldest TypeScript the declarations support (the README says 5.4: they use `NoInfer`), test/frameworks/typescript5.4's own install. */
const TSC_OLDEST = fileURLToPath(new URL('../frameworks/typescript5.4/node_modules/typescript/bin/tsc', import.meta.url));
const ATTW = join(dirname(require.resolve('@arethetypeswrong/cli/package.json')), 'dist', 'index.js');

interface PackedFile {
  readonly path: string;
}

let work = '';
let tarball = '';
let packed: readonly string[] = [];
let app = '';
/** The installed package: app/node_modules/argstream. */
let installed = '';
let installMode = '';

function ok(result: ProcessResult, what: string): ProcessResult {
  if (result.code !== 0) throw new Error(`${what} exited with code ${result.code}\n--- stdout\n${result.stdout.slice(-3000)}\n--- stderr\n${result.stderr.slice(-3000)}`);
  return result;
}

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first (`npm test` does)');
  work = mkdtempSync(join(tmpdir(), 'argstream-pack-'));
  // --ignore-scripts: the package's `prepack` would build again; the tests pack the dist/ they test.
  const pack = ok(await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT), 'npm pack');
  const [info] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as [{ filename: string; files: PackedFile[] }];
  tarball = join(work, info.filename);
  packed = info.files.map((f) => f.path).sort();

  app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'argstream-user', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`);
  const args = ['install', '--no-audit', '--no-fund', '--no-package-lock', tarball];
  let result = await npm(['--offline', ...args], app);
  installMode = '--offline';
  if (result.code !== 0) {
    // The registry's metadata for eventsource-parser may be missing from the cache.
    result = await npm(['--prefer-offline', ...args], app);
    installMode = `--prefer-offline (--offline failed: ${result.stderr.split('\n').find((l) => /error/i.test(l)) ?? ''})`;
  }
  ok(result, `npm install ${installMode} of the tarball`);
  installed = join(app, 'node_modules', 'argstream');
}, 180_000);

afterAll(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
}, 60_000);

describe('the npm package, packed and installed into a fresh project', () => {
  it('packs dist/, src/, README.md, LICENSE and package.json, and nothing from test/, bench/ or examples/', () => {
    const top = [...new Set(packed.map((p) => p.split('/')[0]))].sort();
    expect(top).toEqual(['LICENSE', 'README.md', 'dist', 'package.json', 'src']);
    expect(packed.filter((p) => /^(test|bench|examples)\//.test(p) || /\.test\.ts$/.test(p))).toEqual([]);
    expect(packed).toContain('dist/index.js');
    expect(packed).toContain('dist/index.d.ts');
    expect(packed).toContain('src/index.ts');
  });

  it("installs (offline from npm's cache) only argstream and its runtime dependency", () => {
    console.log(`npm install ${installMode}`);
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    expect(Object.keys(manifest.dependencies ?? {})).toEqual(['eventsource-parser']);
    const packages = readdirSync(join(app, 'node_modules'))
      .filter((name) => !name.startsWith('.'))
      .flatMap((name) => (name.startsWith('@') ? readdirSync(join(app, 'node_modules', name)).map((n) => `${name}/${n}`) : [name]))
      .sort();
    expect(packages).toEqual(['argstream', 'eventsource-parser']);
  });

  it('runs from an ESM script: a recorded Anthropic stream through ProviderEventStream → collectTurn', async () => {
    const recording = 'anthropic/text-then-tool-use.sse';
    writeFileSync(
      join(app, 'run.mjs'),
      [
        "import { readFileSync } from 'node:fs';",
        "import { collectTurn, ProviderEventStream } from 'argstream';",
        'const body = new Response(readFileSync(process.argv[2])).body;',
        "const turn = await collectTurn(body.pipeThrough(new TextDecoderStream()).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })));",
        "const calls = turn.toolCalls.map((c) => ({ id: c.toolCallId, name: c.toolName, arguments: c.arguments }));",
        "console.log(JSON.stringify({ resolved: import.meta.resolve('argstream'), calls, finish: turn.rawFinishReason }));",
        '',
      ].join('\n'),
    );
    const result = ok(await execute(process.execPath, ['run.mjs', join(FIXTURES, 'providers', recording)], { cwd: app }), 'node run.mjs');
    const output = JSON.parse(result.stdout) as { resolved: string; calls: unknown[]; finish: string };
    expect(new URL(output.resolved).pathname).toBe(new URL(`file://${join(installed, 'dist', 'index.js').split(sep).join('/')}`).pathname);
    const expected = manifestEntry(recording);
    expect(output.calls).toEqual(expected.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: JSON.parse(c.args) as unknown })));
    expect(output.finish).toBe(JSON.parse(expected.finish));
  });

  it('runs the README\'s one-hop forms from the package: fromResponse with a stage and chain() from a body, into collectTurn', async () => {
    const recording = 'anthropic/text-then-tool-use.sse';
    writeFileSync(
      join(app, 'forms.mjs'),
      [
        "import { readFileSync } from 'node:fs';",
        "import { chain, collectTurn, ConversationEventStream, fromResponse, ProviderEventStream } from 'argstream';",
        'const bytes = readFileSync(process.argv[2]);',
        "const viaResponse = await collectTurn(fromResponse(new Response(bytes), { provider: 'anthropic' }, new ConversationEventStream({ progress: true })));",
        "const viaChain = await collectTurn(new Response(bytes).body.pipeThrough(chain(new ProviderEventStream({ provider: 'anthropic' }), new ConversationEventStream({ progress: true }))));",
        "const calls = (turn) => turn.toolCalls.map((c) => ({ id: c.toolCallId, name: c.toolName, arguments: c.arguments }));",
        'console.log(JSON.stringify({ viaResponse: calls(viaResponse), viaChain: calls(viaChain) }));',
        '',
      ].join('\n'),
    );
    const result = ok(await execute(process.execPath, ['forms.mjs', join(FIXTURES, 'providers', recording)], { cwd: app }), 'node forms.mjs');
    const output = JSON.parse(result.stdout) as { viaResponse: unknown[]; viaChain: unknown[] };
    const expected = manifestEntry(recording).toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: JSON.parse(c.args) as unknown }));
    expect(output.viaResponse).toEqual(expected);
    expect(output.viaChain).toEqual(expected);
  });

  it('reads the providers at entry points of their own from the package: by name (their module loaded from dist/), and by definition from argstream/gemini-interactions, argstream/langchain and argstream/ag-ui', async () => {
    const recording = 'gemini-interactions/constructed-thought-text-function-call-arguments-delta.sse';
    writeFileSync(
      join(app, 'providers.mjs'),
      [
        "import { readFileSync } from 'node:fs';",
        "import { collectTurn, fromResponse, ProviderEventDecoder, ProviderEventStream } from 'argstream';",
        "import { GEMINI_INTERACTIONS_PROVIDER } from 'argstream/gemini-interactions';",
        "import { LANGCHAIN_PROVIDER } from 'argstream/langchain';",
        "import { AG_UI_PROVIDER } from 'argstream/ag-ui';",
        'const bytes = readFileSync(process.argv[2]);',
        "const calls = (turn) => turn.toolCalls.map((c) => ({ id: c.toolCallId, name: c.toolName, arguments: c.arguments }));",
        "const byName = calls(await collectTurn(fromResponse(new Response(bytes), { provider: 'gemini-interactions' })));",
        "const streamed = calls(await collectTurn(new Response(bytes).body.pipeThrough(new ProviderEventStream({ provider: 'gemini-interactions' }))));",
        'const decoder = new ProviderEventDecoder({ provider: GEMINI_INTERACTIONS_PROVIDER });',
        'const events = [...decoder.push(bytes), ...decoder.end()];',
        'const byDefinition = calls(await collectTurn(ReadableStream.from(events)));',
        "let refused = '';",
        "try { new ProviderEventDecoder({ provider: 'langchain' }); } catch (error) { refused = `${error.name}: ${error.message}`; }",
        'console.log(JSON.stringify({ byName, streamed, byDefinition, refused, names: [LANGCHAIN_PROVIDER.name, AG_UI_PROVIDER.name] }));',
        '',
      ].join('\n'),
    );
    const result = ok(await execute(process.execPath, ['providers.mjs', join(FIXTURES, 'providers', recording)], { cwd: app }), 'node providers.mjs');
    const output = JSON.parse(result.stdout) as { byName: unknown[]; streamed: unknown[]; byDefinition: unknown[]; refused: string; names: string[] };
    const expected = manifestEntry(recording).toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: JSON.parse(c.args) as unknown }));
    expect(output.byName).toEqual(expected);
    expect(output.streamed).toEqual(expected);
    expect(output.byDefinition).toEqual(expected);
    expect(output.refused).toMatch(/^TypeError: .*import \{ LANGCHAIN_PROVIDER \} from 'argstream\/langchain'/);
    expect(output.names).toEqual(['langchain', 'ag-ui']);
  });

  it('runs argstream/partial-json from the package: the parser alone, with no peer installed', async () => {
    writeFileSync(
      join(app, 'partial.mjs'),
      [
        "import { createPartialJsonParser } from 'argstream/partial-json';",
        'const parser = createPartialJsonParser();',
        "const results = ['{\"a\":[1,', '{\"a\":[1,2]}'].map((text) => parser.parse(text));",
        "console.log(JSON.stringify({ results, resolved: import.meta.resolve('argstream/partial-json') }));",
        '',
      ].join('\n'),
    );
    const result = ok(await execute(process.execPath, ['partial.mjs'], { cwd: app }), 'node partial.mjs');
    const output = JSON.parse(result.stdout) as { results: unknown[]; resolved: string };
    expect(output.results).toEqual([
      { value: { a: [1] }, state: 'repaired-parse' },
      { value: { a: [1, 2] }, state: 'successful-parse' },
    ]);
    expect(new URL(output.resolved).pathname).toBe(new URL(`file://${join(installed, 'dist', 'bindings', 'partial-json.js').split(sep).join('/')}`).pathname);
  });

  // The bindings' entry points, as a user with the framework installed imports them (the peers are
  // linked from this repository's node_modules, as the user's own install would provide them).
  it('runs argstream/react, argstream/vue and argstream/svelte from the package, each with its framework', async () => {
    for (const name of ['react', 'react-dom', 'vue', '@vue', 'scheduler']) {
      const from = join(ROOT, 'node_modules', name);
      const to = join(app, 'node_modules', name);
      if (existsSync(from) && !existsSync(to)) symlinkSync(from, to, 'dir');
    }
    writeFileSync(
      join(app, 'bindings.mjs'),
      [
        "import { createElement } from 'react';",
        "import { renderToString } from 'react-dom/server';",
        "import { createSSRApp, h } from 'vue';",
        "import { renderToString as renderVue } from 'vue/server-renderer';",
        "import { TurnStore } from 'argstream';",
        "import { useTurn } from 'argstream/react';",
        "import { useTurn as useVueTurn } from 'argstream/vue';",
        "import { turnStore } from 'argstream/svelte';",
        "const store = new TurnStore({ schedule: 'sync' });",
        "store.push({ type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: 'c1', toolName: 'write_file' } });",
        "store.push({ type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: '{\"path\":\"a.txt\",\"content\":\"hel' } });",
        "const Call = () => { const turn = useTurn(store); return createElement('p', null, `${turn.calls[0].input.path}:${turn.calls[0].input.content}`); };",
        "const react = renderToString(createElement(Call));",
        "const vue = await renderVue(createSSRApp({ setup() { const turn = useVueTurn(store); return () => h('p', `${turn.value.calls[0].input.path}:${turn.value.calls[0].input.content}`); } }));",
        'let svelte;',
        "const unsubscribe = turnStore(store).subscribe((turn) => { svelte = `${turn.calls[0].input.path}:${turn.calls[0].input.content}`; });",
        'unsubscribe();',
        "console.log(JSON.stringify({ react, vue, svelte, resolved: import.meta.resolve('argstream/react') }));",
        '',
      ].join('\n'),
    );
    const result = ok(await execute(process.execPath, ['bindings.mjs'], { cwd: app }), 'node bindings.mjs');
    const output = JSON.parse(result.stdout) as { react: string; vue: string; svelte: string; resolved: string };
    expect(output.react).toBe('<p>a.txt:hel</p>');
    expect(output.vue).toBe('<p>a.txt:hel</p>');
    expect(output.svelte).toBe('a.txt:hel');
    expect(new URL(output.resolved).pathname).toBe(new URL(`file://${join(installed, 'dist', 'bindings', 'react.js').split(sep).join('/')}`).pathname);
  });

  // A user module that uses the types: a wrong provider name must be an error, so `any` cannot pass.
  const userModule = [
    "import { collectTurn, ProviderEventStream, type ToolCallEvent, type Turn } from 'argstream';",
    '',
    'export async function firstToolCall(response: Response): Promise<ToolCallEvent | undefined> {',
    "  if (response.body === null) throw new Error('no body');",
    "  const turn: Turn = await collectTurn(response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })));",
    '  const name: string | undefined = turn.toolCalls[0]?.toolName;',
    '  return name === undefined ? undefined : turn.toolCalls[0];',
    '}',
    '',
    '// @ts-expect-error: not a provider argstream knows',
    "export const wrong = new ProviderEventStream({ provider: 'no-such-provider' });",
    '',
  ].join('\n');

  for (const [label, module, moduleResolution, tsc] of [
    ['node16', 'node16', 'node16', TSC],
    ['bundler', 'esnext', 'bundler', TSC],
    ['node16-ts5.4', 'node16', 'node16', TSC_OLDEST],
    ['bundler-ts5.4', 'esnext', 'bundler', TSC_OLDEST],
  ] as const) {
    it(`type-checks a TypeScript module importing 'argstream' under module ${module}, moduleResolution ${moduleResolution}${tsc === TSC_OLDEST ? ', with TypeScript 5.4 (the oldest supported)' : ''}`, async (context) => {
      if (!existsSync(tsc)) {
        const missing = 'TypeScript 5.4 is missing from test/frameworks/typescript5.4: run `npm test` (it installs it on first run) or `node test/frameworks/install.mjs`';
        if (IN_CI) throw new Error(missing);
        console.warn(`skipped: ${missing}`);
        context.skip(missing);
        return;
      }
      writeFileSync(join(app, 'user.ts'), userModule);
      const config = `tsconfig.${label}.json`;
      const compilerOptions = { module, moduleResolution, target: 'es2022', lib: ['es2022', 'dom', 'dom.iterable'], types: [], strict: true, noEmit: true, skipLibCheck: false };
      writeFileSync(join(app, config), `${JSON.stringify({ compilerOptions, files: ['user.ts'] }, null, 2)}\n`);
      const result = await execute(process.execPath, [tsc, '-p', config, '--listFiles'], { cwd: app, timeoutMs: 60_000 });
      expect(result.code, `tsc (${label}) reported:\n${result.stdout}${result.stderr}`).toBe(0);
      const files = result.stdout.split('\n').map((f) => f.trim().split(/[\\/]/).join('/'));
      expect(files).toContain(join(installed, 'dist', 'index.d.ts').split(sep).join('/'));
    });
  }

  it('has every package.json bin in the tarball, starting with #!/usr/bin/env node', () => {
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { bin?: Record<string, string> };
    const bins = Object.entries(manifest.bin ?? {});
    expect(bins.map(([name]) => name)).toEqual(['argstream']);
    for (const [name, target] of bins) {
      const path = target.replace(/^\.\//, '');
      expect(packed, `bin ${name} → ${target}`).toContain(path);
      expect(readFileSync(join(installed, path), 'utf8').split('\n', 1)[0], `first line of ${target}`).toBe('#!/usr/bin/env node');
    }
  });

  it('has source maps and declaration maps whose sources are shipped in src/', () => {
    const maps = packed.filter((p) => p.startsWith('dist/') && p.endsWith('.map'));
    expect(maps).toContain('dist/index.js.map');
    expect(maps).toContain('dist/index.d.ts.map');
    const unresolved: string[] = [];
    for (const map of maps) {
      const { sources, sourceRoot } = JSON.parse(readFileSync(join(installed, map), 'utf8')) as { sources: string[]; sourceRoot?: string };
      for (const source of sources) {
        const file = resolve(dirname(join(installed, map)), sourceRoot ?? '', source);
        const inside = relative(installed, file).split(sep).join('/');
        if (!inside.startsWith('src/') || !existsSync(file) || !statSync(file).isFile()) unresolved.push(`${map} → ${source}`);
      }
    }
    expect(unresolved).toEqual([]);
  });

  it('passes publint on the tarball (strict, suggestions included)', async () => {
    const bytes = readFileSync(tarball);
    const { messages, pkg } = await publint({
      pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) },
      level: 'suggestion',
      strict: true,
    });
    expect(messages.map((m) => `${m.type}: ${formatMessage(m, pkg) ?? m.code}`)).toEqual([]);
  });

  it('passes arethetypeswrong on the tarball (ESM-only profile)', async () => {
    // The package is ESM-only (type: module, exports without a `require` condition): the
    // `esm-only` profile leaves out the `node10` and `node16-cjs` resolutions, where a CommonJS
    // `require` meets ESM by design. Every other resolution must have no problem.
    const result = await execute(process.execPath, [ATTW, tarball, '--profile', 'esm-only', '--format', 'json'], { timeoutMs: 60_000 });
    const report = JSON.parse(result.stdout) as { problems?: Record<string, { kind: string; resolutionKind?: string; entrypoint?: string }[]> };
    const problems = Object.values(report.problems ?? {})
      .flat()
      .filter((p) => p.resolutionKind !== 'node10' && p.resolutionKind !== 'node16-cjs')
      .map((p) => `${p.kind} (${p.entrypoint ?? ''} ${p.resolutionKind ?? ''})`);
    expect(problems).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
  });
});

describe('the JSR package (deno.json)', () => {
  it('passes `deno publish --dry-run`: no slow types, only src/ (without the Node-only src/cli/), README.md and LICENSE', async (context) => {
    const deno = localBin('deno');
    if (deno === undefined) {
      const missing = notInstalled('deno');
      if (IN_CI) throw new Error(`deno is required in CI: ${missing}`);
      console.warn(`skipped deno publish --dry-run: ${missing}`);
      context.skip(`deno is not installed here: ${missing}`);
      return;
    }
    // --allow-dirty: the working tree may hold uncommitted changes; publishing itself refuses them.
    const result = await execute(deno, ['publish', '--dry-run', '--allow-dirty'], { env: { ...process.env, NO_COLOR: '1' }, timeoutMs: 120_000 });
    const output = `${result.stdout}\n${result.stderr}`;
    expect(result.code, output).toBe(0);
    expect(output).toMatch(/Checking for slow types in the public API/);
    expect(output).toMatch(/Success Dry run complete/);
    expect(output.split('\n').filter((line) => /^\s*(warning|error)\b/i.test(line)), output).toEqual([]);
    const root = pathToFileURL(ROOT).href.replace(/\/?$/, '/');
    const files = [...output.matchAll(/^\s+(file:\/\/\S+) \(/gm)].map((m) => (m[1] ?? '').slice(root.length)).sort();
    expect(files).toContain('src/index.ts');
    expect(files).toContain('README.md');
    expect(files).toContain('LICENSE');
    expect(files).toContain('deno.json');
    expect(files.filter((f) => !/^(src\/.*\.ts|README\.md|LICENSE|deno\.json)$/.test(f))).toEqual([]);
    expect(files.filter((f) => f.startsWith('src/cli/') || /\.test\.ts$/.test(f))).toEqual([]);
  }, 180_000);
});

// ---------------------------------------------------------------------------------------------
// With the AI SDK: the page of docs/ai-sdk.md type-checked against the packed declarations, with
// each `ai` and `@ai-sdk/react` a user can end up with.

/**
 * A page on argstream's transport, as docs/ai-sdk.md writes it: the transport given to `useChat`,
 * its snapshot to `useTurn` (typed by the transport's tools). The `@ts-expect-error` line makes a
 * check that sees `any` fail.
 */
const AI_SDK_PAGE = [
  "import { useChat } from '@ai-sdk/react';",
  "import { defineTools } from 'argstream';",
  "import { ArgstreamChatTransport } from 'argstream/ai-sdk';",
  "import { useTurn } from 'argstream/react';",
  "import * as z from 'zod';",
  '',
  "const tools = defineTools({ write_file: z.object({ path: z.string(), content: z.string() }) });",
  "const transport = new ArgstreamChatTransport({ api: '/api/chat', tools });",
  '',
  'export function usePage() {',
  '  const chat = useChat({ transport });',
  '  const turn = useTurn(transport);',
  '  const call = turn.calls[0];',
  "  const path: string | undefined = call?.toolName === 'write_file' ? call.input.path : undefined;",
  '  // @ts-expect-error: the input is typed by the transport\'s tools',
  "  const wrong: number | undefined = call?.toolName === 'write_file' ? call.input.path : undefined;",
  '  return [chat.status, path, wrong] as const;',
  '}',
  '',
].join('\n');

/**
 * The control of a folder with two `ai` packages: a transport of the top one (the AI SDK's
 * `DefaultChatTransport`, whose chunks are the top `ai`'s) is no `ChatTransport` of the hook's
 * `ai` when the top one's chunks are not the hook's (a later major's, or an earlier one's provider
 * metadata): what `ArgstreamChatTransport` was before its chunks were typed by the reader.
 */
const AI_SDK_CONTROL = [
  "import { useChat } from '@ai-sdk/react';",
  "import { DefaultChatTransport } from 'ai';",
  '',
  "export const usePage = () => useChat({ transport: new DefaultChatTransport({ api: '/api/chat' }) });",
  '',
].join('\n');

/** Type-check `files` in `folder` as a React app written in TypeScript does (bundler resolution, strict). */
async function typecheckApp(folder: string, files: readonly string[]): Promise<ProcessResult> {
  const compilerOptions = { module: 'preserve', moduleResolution: 'bundler', target: 'es2022', lib: ['es2022', 'dom', 'dom.iterable'], types: [], strict: true, noEmit: true, skipLibCheck: true };
  const config = `tsconfig.${files.join('-').replace(/\W/g, '_')}.json`;
  writeFileSync(join(folder, config), `${JSON.stringify({ compilerOptions, files }, null, 2)}\n`);
  return execute(process.execPath, [TSC, '-p', config], { cwd: folder, timeoutMs: 90_000 });
}

/** The version of the package `name` installed in `folder` (its own copy, as Node resolves it from there). */
function versionIn(folder: string, name: string): string {
  return (JSON.parse(readFileSync(join(folder, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The version of `ai` that `@ai-sdk/react` installed in `folder` loads: its own nested copy, or the top one. */
function aiOfReactIn(folder: string): string {
  const react = join(folder, 'node_modules', '@ai-sdk', 'react');
  const nested = join(react, 'node_modules', 'ai', 'package.json');
  return (JSON.parse(readFileSync(existsSync(nested) ? nested : join(folder, 'node_modules', 'ai', 'package.json'), 'utf8')) as { version: string }).version;
}

describe("the npm package with the AI SDK: the page of docs/ai-sdk.md type-checks with every `ai` and `@ai-sdk/react` (offline: this repository's copies)", () => {
  /**
   * `ai` at the top and `@ai-sdk/react` beside it, as npm lays them out: the packages linked from
   * this repository's node_modules (`@ai-sdk/react` 3 and 4 have their own `ai` inside, as npm
   * installs them when the top one is another). `argstream` is the installed package, copied so
   * that its declarations' `import … from 'ai'` finds the `ai` of this folder.
   */
  const LAYOUTS = [
    { name: 'ai 5 with @ai-sdk/react 2', ai: 'ai', react: 'ai-sdk-react2', mixed: false, control: 'accepted' },
    { name: 'ai 6 with @ai-sdk/react 3 (its own ai 6)', ai: 'ai-sdk-react3/node_modules/ai', react: 'ai-sdk-react3', mixed: false, control: 'accepted' },
    { name: 'ai 7 with @ai-sdk/react 4 (its own ai 7)', ai: '@ai-sdk/react/node_modules/ai', react: '@ai-sdk/react', mixed: false, control: 'accepted' },
    { name: 'ai 7 at the top, @ai-sdk/react 3 with its own ai 6 (what npm installs on Node 20 for `ai@7 @ai-sdk/react`)', ai: 'ai7', react: 'ai-sdk-react3', mixed: true, control: 'refused' },
    { name: 'ai 5 at the top, @ai-sdk/react 3 with its own ai 6', ai: 'ai', react: 'ai-sdk-react3', mixed: true, control: 'refused' },
    // ai 6's chunks are a subset of ai 7's: its own transport is accepted by ai 7's hook too.
    { name: 'ai 6 at the top, @ai-sdk/react 4 with its own ai 7', ai: 'ai6', react: '@ai-sdk/react', mixed: true, control: 'accepted' },
  ] as const;

  for (const layout of LAYOUTS) {
    it(`${layout.name}: useChat({ transport }) and useTurn(transport), typed by the transport's tools`, async () => {
      const folder = join(work, `ai-sdk-${LAYOUTS.indexOf(layout)}`);
      mkdirSync(join(folder, 'node_modules', '@ai-sdk'), { recursive: true });
      mkdirSync(join(folder, 'node_modules', '@types'), { recursive: true });
      cpSync(installed, join(folder, 'node_modules', 'argstream'), { recursive: true });
      const link = (from: string, to: string) => symlinkSync(join(ROOT, 'node_modules', from), join(folder, 'node_modules', to), 'dir');
      link(layout.ai, 'ai');
      link(layout.react, '@ai-sdk/react');
      for (const name of ['react', '@types/react', 'zod', 'eventsource-parser']) link(name, name);
      writeFileSync(join(folder, 'page.ts'), AI_SDK_PAGE);
      writeFileSync(join(folder, 'control.ts'), AI_SDK_CONTROL);
      expect(versionIn(folder, 'ai') !== aiOfReactIn(folder), 'two ai packages').toBe(layout.mixed);

      const page = await typecheckApp(folder, ['page.ts']);
      expect(page.code, `tsc reported:\n${page.stdout}${page.stderr}`).toBe(0);
      const control = await typecheckApp(folder, ['control.ts']);
      if (layout.control === 'refused') {
        // Two `ai`: the top one's own transport is refused by the hook, so the page's check above saw both.
        expect(control.code).not.toBe(0);
        expect(control.stdout).toMatch(/is not assignable to type 'ChatTransport</);
      } else expect(control.code, `tsc reported:\n${control.stdout}${control.stderr}`).toBe(0);
    }, 120_000);
  }
});

/** npm's command-line script: the one running this process (`npm_execpath`), else the `npm` on PATH (a link to it). */
function npmCli(): string | undefined {
  const cli = process.env['npm_execpath'];
  if (cli !== undefined && /\.[cm]?js$/.test(cli)) return cli;
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    const link = join(dir, 'npm');
    if (!existsSync(link)) continue;
    const real = realpathSync(link);
    if (/\.[cm]?js$/.test(real)) return real;
  }
  return undefined;
}

/** An npm failure that says the registry could not be reached. */
const OFFLINE = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|network request|request to .* failed/i;

describe('npm install <packed argstream> ai @ai-sdk/react, from the registry (as the README installs it)', () => {
  const nodes = [
    { name: 'the Node running the tests', node: process.execPath, missing: undefined as string | undefined },
    { name: 'Node 24 (test/runtimes)', node: NODE24, missing: existsSync(NODE24) ? undefined : notInstalled('node@24 (node/bin/node)') },
  ];

  for (const { name, node, missing } of nodes) {
    it(`on ${name}: no ERESOLVE; npm picks the ai that Node can run (6 before Node 22, 7 from it) with its @ai-sdk/react, and the page type-checks and runs on them`, async (context) => {
      const skip = (why: string) => {
        if (IN_CI) throw new Error(`required in CI: ${why}`);
        console.warn(`skipped: ${why}`);
        context.skip(why);
      };
      if (missing !== undefined) return skip(missing);
      const cli = npmCli();
      if (cli === undefined) return skip('npm (its npm-cli.js) is not found');
      const version = await versionOf(node);
      const expected = Number(/^v(\d+)/.exec(version)?.[1]) >= 22 ? 7 : 6;

      const folder = join(work, `registry-${nodes.findIndex((n) => n.node === node)}`);
      mkdirSync(folder);
      writeFileSync(join(folder, 'package.json'), `${JSON.stringify({ name: 'argstream-ai-sdk-user', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`);
      const env: NodeJS.ProcessEnv = { PATH: `${dirname(node)}${delimiter}${process.env['PATH'] ?? ''}` };
      for (const [key, value] of Object.entries(process.env)) {
        if (key !== 'PATH' && !/^npm_(package_|lifecycle_|config_local_prefix$|config_allow_scripts$)/i.test(key)) env[key] = value;
      }
      const install = await execute(node, [cli, 'install', '--no-audit', '--no-fund', '--no-package-lock', tarball, 'ai', '@ai-sdk/react'], { cwd: folder, env, timeoutMs: 240_000 });
      const output = `${install.stdout}\n${install.stderr}`;
      if (install.code !== 0 && OFFLINE.test(output)) return skip(`the npm registry is not reachable: ${output.split('\n').find((line) => OFFLINE.test(line)) ?? ''}`);
      expect(output).not.toMatch(/ERESOLVE/);
      expect(install.code, output).toBe(0);
      console.log(`${version}: ai ${versionIn(folder, 'ai')}, @ai-sdk/react ${versionIn(folder, '@ai-sdk/react')} (its ai ${aiOfReactIn(folder)})`);
      expect(Number(versionIn(folder, 'ai').split('.')[0])).toBe(expected);
      expect(Number(versionIn(folder, '@ai-sdk/react').split('.')[0])).toBe(expected - 3);
      expect(Number(aiOfReactIn(folder).split('.')[0])).toBe(expected);

      // The page of docs/ai-sdk.md, against what npm installed (React's types from this repository).
      mkdirSync(join(folder, 'node_modules', '@types'), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules', '@types', 'react'), join(folder, 'node_modules', '@types', 'react'), 'dir');
      writeFileSync(join(folder, 'page.ts'), AI_SDK_PAGE);
      const page = await typecheckApp(folder, ['page.ts']);
      expect(page.code, `tsc reported:\n${page.stdout}${page.stderr}`).toBe(0);

      // At run time, on that Node: the hook's Chat (its own ai, when npm nested one) on the
      // transport, answering the recording of the AI SDK's own server of that major.
      writeFileSync(
        join(folder, 'chat.mjs'),
        [
          "import { readFileSync } from 'node:fs';",
          "import { Chat } from '@ai-sdk/react';",
          "import { ArgstreamChatTransport } from 'argstream/ai-sdk';",
          'const sse = readFileSync(process.argv[2]);',
          "const headers = { 'content-type': 'text/event-stream', 'x-vercel-ai-ui-message-stream': 'v1' };",
          "const transport = new ArgstreamChatTransport({ api: 'http://127.0.0.1/api/chat', fetch: async () => new Response(sse, { headers }) });",
          'const chat = new Chat({ transport });',
          "await chat.sendMessage({ text: 'Write a Rust hello world to src/main.rs.' });",
          "const part = chat.messages.at(-1).parts.find((p) => p.type === 'tool-write_file');",
          'console.log(JSON.stringify({ status: chat.status, error: chat.error?.message, state: part?.state, input: part?.input, calls: transport.getSnapshot().calls.map((c) => [c.status, c.input]) }));',
          '',
        ].join('\n'),
      );
      const run = ok(await execute(node, ['chat.mjs', join(FIXTURES, 'ai-sdk-ui', `ai${expected}-reasoning-text-write-file.sse`)], { cwd: folder, timeoutMs: 60_000 }), `node chat.mjs (${version})`);
      const input = { path: 'src/main.rs', content: 'fn main() {\n    println!("héllo, \\"wörld\\" 🚀");\n}\n' };
      expect(JSON.parse(run.stdout)).toEqual({ status: 'ready', state: 'input-available', input, calls: [['complete', input]] });
    }, 360_000);
  }
});
