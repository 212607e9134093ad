#!/usr/bin/env node
// `npm run fuzz -- --count N --seed S`: bundles the fuzzer (test/fuzz/main.ts, and argstream from
// `src/`) with esbuild into node_modules/.cache, then runs it in a fresh node with --expose-gc
// (for the heap figures). Arguments are passed on; see main.ts for the options.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../..', import.meta.url));
const outdir = join(root, 'node_modules', '.cache', 'argstream-fuzz');
const outfile = join(outdir, `fuzz-${process.pid}.mjs`);

await build({
  absWorkingDir: root,
  entryPoints: [join(root, 'test', 'fuzz', 'main.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'inline',
  logLevel: 'warning',
  // The fixtures are found relative to the source file, not the bundle.
  define: { 'import.meta.url': JSON.stringify(new URL('./test/fuzz/fuzz.ts', `file://${root}/`).href) },
});

const child = spawnSync(process.execPath, ['--expose-gc', '--enable-source-maps', '--stack-size=4000', outfile, ...process.argv.slice(2)], { stdio: 'inherit' });
rmSync(outfile, { force: true });
if (child.error) throw child.error;
process.exitCode = child.status ?? 1;
