/**
 * Deno runner (`deno` npm package): the command-line bundle, then src/ as Deno users import it —
 * `deno.json` exports ./src/index.ts — run directly and type-checked by `deno check`.
 */
import { join } from 'node:path';
import { execute, localBin, reportFrom, ROOT, RUNTIMES_DIR, smoke, versionOf, type Runner } from '../harness.ts';

export const deno: Runner = {
  missing: () => (localBin('deno') ? undefined : 'node_modules/.bin/deno is missing: run `npm ci` (devDependency deno; its install script must be allowed)'),
  async run(bundlesDir) {
    const bin = localBin('deno')!;
    const version = await versionOf(bin);
    // --no-lock: write no deno.lock into the repository; the bundle needs no permission at all.
    const result = await execute(bin, ['run', '--no-lock', '--no-prompt', join(bundlesDir, 'main.mjs')], { cwd: bundlesDir });
    const smokes = [
      await smoke('Deno runs src/index.ts directly', bin, ['run', '--no-lock', '--no-prompt', join(RUNTIMES_DIR, 'src-smoke.ts')], /^src-smoke ok/m, { cwd: ROOT }),
      await smoke('deno check src/index.ts', bin, ['check', '--no-lock', 'src/index.ts'], /.?/, { cwd: ROOT }),
    ];
    return { version, report: reportFrom(result, 'deno'), smoke: smokes };
  },
};
