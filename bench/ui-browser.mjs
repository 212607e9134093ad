#!/usr/bin/env node
// `npm run bench:ui-browser`: bundles bench/ui-browser.ts (esbuild, argstream from src/, packages
// external) next to it, so that the example server it imports finds its files, and runs it.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const entry = fileURLToPath(new URL('./ui-browser.ts', import.meta.url));
const outfile = fileURLToPath(new URL(`./.ui-browser-${process.pid}.mjs`, import.meta.url));
await build({
  entryPoints: [entry],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  external: ['../examples/*'],
  logLevel: 'warning',
});
try {
  const child = spawnSync(process.execPath, [outfile, ...process.argv.slice(2)], { stdio: 'inherit' });
  if (child.error) throw child.error;
  process.exitCode = child.status ?? 1;
} finally {
  rmSync(outfile, { force: true });
}
