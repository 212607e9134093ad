/**
 * Node runners: the Node that runs the tests (the machine's, ≥ 20) and Node 24 from the `node`
 * npm package (a devDependency of test/runtimes/package.json). Both run the command-line bundle;
 * Node 24 also runs src/ as TypeScript directly (its type stripping), as a user's `node app.ts`
 * importing the sources would.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execute, notInstalled, reportFrom, RUNTIMES_DIR, smoke, versionOf, type Runner } from '../harness.ts';

/** The machine's Node: the one running vitest. */
export const hostNode: Runner = {
  missing: () => undefined,
  async run(bundlesDir) {
    const result = await execute(process.execPath, [join(bundlesDir, 'main.mjs')]);
    return { version: process.version, report: reportFrom(result, 'node'), smoke: [] };
  },
};

/**
 * The Node 24 binary of test/runtimes' `node@24` devDependency, by its own path (its
 * test/runtimes/node_modules/.bin/node link is on no PATH the tests run with).
 */
export const NODE24 = join(RUNTIMES_DIR, 'node_modules', 'node', 'bin', 'node');

export const node24: Runner = {
  missing: () => (existsSync(NODE24) ? undefined : notInstalled('node@24 (node/bin/node)')),
  async run(bundlesDir) {
    const version = await versionOf(NODE24);
    const result = await execute(NODE24, [join(bundlesDir, 'main.mjs')]);
    const srcSmoke = await smoke('Node 24 runs src/index.ts as TypeScript (type stripping)', NODE24, [join(RUNTIMES_DIR, 'src-smoke.ts')], /^src-smoke ok/m);
    return { version, report: reportFrom(result, 'node 24'), smoke: [srcSmoke] };
  },
};
