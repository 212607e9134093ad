// `npm run build`: compile src/ to dist/, then remove from dist/ what this
// compile did not write — the output of a source file deleted or renamed since the last build —
// so that `npm pack` never ships it. Nothing is removed when the compile reports errors.
import { spawnSync } from 'node:child_process';
import { readdirSync, rmdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

// Two programs: the library (tsconfig.build.json: web-platform types only, so Node-only code in it
// fails the build) and the CLI (tsconfig.cli.json: src/cli/ with Node's types; it re-emits the
// library files it imports, byte for byte the same).
// `npm start` builds first: say so, rather than sit silent for the ten seconds tsc takes.
if (process.argv.includes('--announce')) console.log('Building argstream into dist/ (tsc, about 10 s), then starting the demo…');

const emitted = new Set();
for (const project of ['tsconfig.build.json', 'tsconfig.cli.json']) {
  const result = spawnSync(process.execPath, [tsc, '-p', project, '--listEmittedFiles'], { cwd: ROOT, encoding: 'utf8' });
  for (const line of result.stdout.split('\n')) {
    if (line.startsWith('TSFILE: ')) emitted.add(resolve(line.slice('TSFILE: '.length).trim()));
    else if (line.trim() !== '') console.log(line);
  }
  if (result.stderr) process.stderr.write(result.stderr);
  if (result.status !== 0) process.exit(result.status ?? 1);
}

let removed = 0;
/** Remove the files under `dir` that were not emitted; true when `dir` is left empty. */
function prune(dir) {
  let empty = true;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() ? prune(path) : !emitted.has(path)) {
      if (entry.isDirectory()) rmdirSync(path);
      else rmSync(path);
      if (!entry.isDirectory()) removed++;
    } else {
      empty = false;
    }
  }
  return empty;
}
prune(DIST);
if (removed > 0) console.log(`removed ${removed} stale file(s) from dist/ (no source file writes them any more)`);
