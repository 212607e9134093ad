#!/usr/bin/env node
// Prints the functions with the most self time in a V8 .cpuprofile (from `npm run bench --
// --cpu-prof …`): `node bench/profile-summary.mjs [file.cpuprofile | directory] [count]`; with a
// directory (default: where `npm run bench -- --cpu-prof` writes) the newest profile in it.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const defaultDir = fileURLToPath(new URL('../node_modules/.cache/argstream-bench/profiles/', import.meta.url));
const target = process.argv[2] || defaultDir;
const countArg = process.argv[3] || '25';
let file = target;
if (statSync(target).isDirectory()) {
  const profiles = readdirSync(target)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => join(target, name))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (profiles.length === 0) {
    console.error(`no .cpuprofile in ${target}; run \`npm run bench -- --cpu-prof --filter …\` first`);
    process.exit(2);
  }
  file = profiles[0];
}
console.log(`profile: ${basename(file)}`);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));

// Self time per node: each sample is charged the time delta that follows it.
const selfMicros = new Map();
let total = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const delta = profile.timeDeltas[i + 1] ?? 0;
  selfMicros.set(profile.samples[i], (selfMicros.get(profile.samples[i]) ?? 0) + delta);
  total += delta;
}

// In an esbuild bundle every module starts with a `// path/to/module.ts` comment: use it to name
// the source module of a bundle line.
const moduleStarts = new Map();
function sourceModule(url, line) {
  if (!url.startsWith('file:')) return undefined;
  let starts = moduleStarts.get(url);
  if (starts === undefined) {
    starts = [];
    const path = fileURLToPath(url);
    if (existsSync(path)) {
      readFileSync(path, 'utf8')
        .split('\n')
        .forEach((text, index) => {
          const match = /^\/\/ (\S+\.[cm]?[jt]s)$/.exec(text);
          if (match) starts.push([index, match[1]]);
        });
    }
    moduleStarts.set(url, starts);
  }
  let found;
  for (const [index, module] of starts) if (index <= line) found = module;
  return found;
}

// Group by function (name + location), since V8 has one node per call path.
const byFunction = new Map();
for (const [id, micros] of selfMicros) {
  const { callFrame } = nodes.get(id);
  const module = callFrame.url ? sourceModule(callFrame.url, callFrame.lineNumber) : undefined;
  const where = callFrame.url
    ? `${basename(callFrame.url)}:${callFrame.lineNumber + 1}${module ? ` (${module})` : ''}`
    : '';
  const key = `${callFrame.functionName || '(anonymous)'} ${where}`.trim();
  byFunction.set(key, (byFunction.get(key) ?? 0) + micros);
}
const rows = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(countArg));
console.log(`total ${(total / 1000).toFixed(0)} ms sampled`);
console.log('| self % | self ms | function |\n|--:|--:|---|');
for (const [key, micros] of rows) {
  console.log(`| ${((100 * micros) / total).toFixed(1)} | ${(micros / 1000).toFixed(0)} | \`${key}\` |`);
}
