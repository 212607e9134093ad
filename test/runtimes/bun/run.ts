/** Bun runner (`bun` npm package): the command-line bundle, then src/ run directly as TypeScript. */
import { join } from 'node:path';
import { execute, localBin, notInstalled, reportFrom, ROOT, RUNTIMES_DIR, smoke, versionOf, type Runner } from '../harness.ts';

export const bun: Runner = {
  missing: () => (localBin('bun') ? undefined : notInstalled('bun')),
  async run(bundlesDir) {
    const bin = localBin('bun')!;
    const version = await versionOf(bin);
    const result = await execute(bin, [join(bundlesDir, 'main.mjs')], { cwd: bundlesDir });
    const srcSmoke = await smoke('Bun runs src/index.ts directly', bin, [join(RUNTIMES_DIR, 'src-smoke.ts')], /^src-smoke ok/m, { cwd: ROOT });
    return { version, report: reportFrom(result, 'bun'), smoke: [srcSmoke] };
  },
};
