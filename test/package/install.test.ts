/**
 * The packages as a user receives them. npm: `npm pack` (of the built dist/: `npm test` builds first),
 * installed from the tarball into a fresh project, then imported from an ESM script, type-checked
 * from TypeScript under `node16` and `bundler` resolution, and linted by publint and
 * arethetypeswrong. Nothing here needs the internet: eventsource-parser, the one runtime
 * dependency, comes from npm's cache, which the contributor's `npm ci` filled. JSR: `deno publish
 * --dry-run` of deno.json's `@argstream/argstream` (Deno finds eventsource-parser in node_modules).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES } from '../helpers.ts';
import { manifestEntry } from '../manifest.ts';
import { execute, localBin, notInstalled, npm, ROOT, type ProcessResult } from '../runtimes/harness.ts';

const require = createRequire(import.meta.url);
const IN_CI = process.env['CI'] !== undefined && process.env['CI'] !== '' && process.env['CI'] !== 'false' && process.env['CI'] !== '0';
const TSC = require.resolve('typescript/bin/tsc');
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
});

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

  for (const [label, module, moduleResolution] of [
    ['node16', 'node16', 'node16'],
    ['bundler', 'esnext', 'bundler'],
  ] as const) {
    it(`type-checks a TypeScript module importing 'argstream' under module ${module}, moduleResolution ${moduleResolution}`, async () => {
      writeFileSync(join(app, 'user.ts'), userModule);
      const config = `tsconfig.${label}.json`;
      const compilerOptions = { module, moduleResolution, target: 'es2022', lib: ['es2022', 'dom', 'dom.iterable'], types: [], strict: true, noEmit: true, skipLibCheck: false };
      writeFileSync(join(app, config), `${JSON.stringify({ compilerOptions, files: ['user.ts'] }, null, 2)}\n`);
      const result = await execute(process.execPath, [TSC, '-p', config, '--listFiles'], { cwd: app, timeoutMs: 60_000 });
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
