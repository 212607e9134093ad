/**
 * Deno runner (`deno` npm package): the command-line bundle, then src/ as Deno users import it —
 * `deno.json` exports ./src/index.ts — run directly and type-checked by `deno check` (src/index.ts
 * itself, and a user module importing it: deno/user-module.ts), inside the repository (npm packages
 * from node_modules) and from deno.json alone.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execute, localBin, notInstalled, reportFrom, ROOT, RUNTIMES_DIR, smoke, versionOf, type Runner } from '../harness.ts';

export const deno: Runner = {
  missing: () => (localBin('deno') ? undefined : notInstalled('deno')),
  async run(bundlesDir) {
    const bin = localBin('deno')!;
    const version = await versionOf(bin);
    // --no-lock: write no deno.lock into the repository; the bundle needs no permission at all.
    const result = await execute(bin, ['run', '--no-lock', '--no-prompt', join(bundlesDir, 'main.mjs')], { cwd: bundlesDir });
    // A Deno user without package.json or node_modules: only deno.json and src/ (what JSR publishes).
    const alone = mkdtempSync(join(tmpdir(), 'argstream-deno-'));
    try {
      cpSync(join(ROOT, 'src'), join(alone, 'src'), { recursive: true });
      cpSync(join(ROOT, 'deno.json'), join(alone, 'deno.json'));
      cpSync(join(RUNTIMES_DIR, 'src-smoke.ts'), join(alone, 'test', 'runtimes', 'src-smoke.ts'));
      cpSync(join(RUNTIMES_DIR, 'deno', 'user-module.ts'), join(alone, 'test', 'runtimes', 'deno', 'user-module.ts'));
      const smokes = [
        await smoke('Deno runs src/index.ts directly (in the repository)', bin, ['run', '--no-lock', '--no-prompt', join(RUNTIMES_DIR, 'src-smoke.ts')], /^src-smoke ok/m, { cwd: ROOT }),
        await smoke('deno check src/index.ts', bin, ['check', '--no-lock', 'src/index.ts'], /.?/, { cwd: ROOT }),
        // A module outside tsconfig.json's `include` is checked with Deno's default compiler options
        // (no exactOptionalPropertyTypes), and src/ with it: `deno check src/index.ts` alone misses that.
        await smoke('deno check of a user module importing src/index.ts (in the repository)', bin, ['check', '--no-lock', 'test/runtimes/deno/user-module.ts'], /.?/, { cwd: ROOT }),
        await smoke('deno check of a user module importing src/index.ts (deno.json alone)', bin, ['check', '--no-lock', 'test/runtimes/deno/user-module.ts'], /.?/, { cwd: alone }),
        await smoke('Deno runs src/index.ts with deno.json alone (no package.json, no node_modules)', bin, ['run', '--no-lock', '--no-prompt', 'test/runtimes/src-smoke.ts'], /^src-smoke ok/m, { cwd: alone }),
      ];
      return { version, report: reportFrom(result, 'deno'), smoke: smokes };
    } finally {
      rmSync(alone, { recursive: true, force: true });
    }
  },
};
