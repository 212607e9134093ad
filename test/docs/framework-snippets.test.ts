/**
 * The `svelte` and `vue` snippets of docs/ui.md, type-checked as components (svelte-check,
 * vue-tsc) in a folder of their own beside the example pages' tools: a snippet that stops
 * compiling against the bindings fails here (snippets.test.ts runs the `ts` ones).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { execute } from '../runtimes/harness.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const UI = readFileSync(new URL('../../docs/ui.md', import.meta.url), 'utf8');

function snippetsOf(language: string): string[] {
  return [...UI.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((match) => match[1]!);
}

/** A folder under test/docs/ (ignored by git), with the examples' tools and a tsconfig like theirs. */
function workspace(name: string, include: string[], extra: Record<string, string>): string {
  const dir = `${ROOT}test/docs/.snippets-${name}-${process.pid}/`;
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}tools.ts`, readFileSync(`${ROOT}examples/svelte/tools.ts`));
  const tsconfig = {
    extends: '../../../tsconfig.json',
    compilerOptions: {
      module: 'preserve',
      moduleResolution: 'bundler',
      rootDir: '../../..',
      types: [],
      rewriteRelativeImportExtensions: false,
      noEmit: true,
      paths: { argstream: ['../../../src/index.ts'], 'argstream/*': ['../../../src/bindings/*.ts'] },
    },
    include,
  };
  writeFileSync(`${dir}tsconfig.json`, JSON.stringify(tsconfig, null, 2));
  for (const [file, text] of Object.entries(extra)) writeFileSync(`${dir}${file}`, text);
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
const cleanups: Array<() => void> = [];
afterAll(() => {
  for (const cleanup of cleanups) cleanup();
});

describe("docs/ui.md's component snippets", () => {
  it('has a Svelte and a Vue snippet', () => {
    expect(snippetsOf('svelte')).toHaveLength(1);
    expect(snippetsOf('vue')).toHaveLength(1);
  });

  it('the Svelte snippet type-checks with svelte-check, without an error or a warning', async () => {
    const dir = workspace('svelte', ['*.ts', '*.svelte'], { 'Turn.svelte': snippetsOf('svelte')[0]! });
    const svelteCheck = `${ROOT}node_modules/svelte-check/bin/svelte-check`;
    const result = await execute(process.execPath, [svelteCheck, '--workspace', dir, '--tsconfig', `${dir}tsconfig.json`, '--output', 'machine', '--fail-on-warnings'], { timeoutMs: 120_000 });
    expect(result.stdout).toMatch(/COMPLETED [1-9]\d* FILES 0 ERRORS 0 WARNINGS/);
    expect(result.code).toBe(0);
  }, 150_000);

  it('the Vue snippet type-checks with vue-tsc, its template included', async () => {
    const dir = workspace('vue', ['*.ts', '*.vue'], { 'Turn.vue': snippetsOf('vue')[0]!, 'env.d.ts': readFileSync(`${ROOT}examples/vue/env.d.ts`, 'utf8') });
    const vueTsc = `${ROOT}node_modules/vue-tsc/bin/vue-tsc.js`;
    const result = await execute(process.execPath, [vueTsc, '-p', dir, '--noEmit'], { timeoutMs: 120_000 });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  }, 150_000);
});
