#!/usr/bin/env node
// `npm run bench`: bundles the TypeScript benchmark (and argstream from `src/`) with esbuild into
// node_modules/.cache, then runs it in a fresh node with --expose-gc. Peer libraries stay external
// so they load exactly as published. Arguments are passed on; `--cpu-prof` becomes a node flag
// (the profile lands in node_modules/.cache/argstream-bench/profiles/ unless --cpu-prof-dir says
// otherwise; summarise it with bench/profile-summary.mjs), and so does `--no-turbo-inlining` (each
// function's own time in a profile, at some cost in speed).
// Each run bundles to its own file, so runs in parallel do not overwrite each other's bundle;
// the file is removed afterwards unless a profile refers to it.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, relative } from 'node:path';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outfile = join(root, 'node_modules', '.cache', 'argstream-bench', `bench-${process.pid}.mjs`);

await build({
  absWorkingDir: root,
  entryPoints: [join(root, 'bench', 'main.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  // Native #private fields, classes and async functions: what Node 20 runs from `dist/` too.
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});

const nodeFlags = ['--expose-gc'];
const args = [];
for (const arg of process.argv.slice(2)) {
  if (arg === '--cpu-prof' || arg.startsWith('--cpu-prof-') || arg === '--no-turbo-inlining') nodeFlags.push(arg);
  else args.push(arg);
}
// Profiles go next to the bundle they refer to, not into the working tree.
const profileDir = join(root, 'node_modules', '.cache', 'argstream-bench', 'profiles');
if (nodeFlags.includes('--cpu-prof') && !nodeFlags.some((flag) => flag.startsWith('--cpu-prof-dir'))) {
  nodeFlags.push(`--cpu-prof-dir=${profileDir}`);
}

const child = spawnSync(process.execPath, [...nodeFlags, outfile, ...args], { stdio: 'inherit' });
if (nodeFlags.length === 1) {
  rmSync(outfile, { force: true });
  rmSync(`${outfile}.map`, { force: true });
} else {
  process.stderr.write(
    `profile in ${relative(process.cwd(), profileDir)}/ (unless --cpu-prof-dir said otherwise), ` +
      `bundle kept for it: ${relative(process.cwd(), outfile)}\n`,
  );
}
if (child.error) throw child.error;
process.exitCode = child.status ?? 1;
