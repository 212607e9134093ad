/**
 * `npm run fuzz -- --count N --seed S`: run N fuzz inputs (see fuzz.ts), print the failures per
 * class with a replayable record of the first few of each, the slowest input and the peak heap;
 * exit 1 on any failure.
 *
 * Options: --count N (default 10000), --seed S (default 1), --start I (first index, default 0),
 * --index I (run only input I), --replay '<json>' (run one printed case record),
 * --time-bound MS (an input slower than this fails as `slow`, default 2000),
 * --show K (records printed per class, default 3), --progress N (a progress line every N inputs).
 */
import { check, escaped, makeCase, type Failure, type FuzzCase } from './fuzz.ts';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
};
const seed = Number(opt('seed') ?? 1);
const count = Number(opt('count') ?? 10000);
const start = Number(opt('start') ?? 0);
const timeBound = Number(opt('time-bound') ?? 2000);
const show = Number(opt('show') ?? 3);
const progress = Number(opt('progress') ?? 0);
const gc = (globalThis as { gc?: () => void }).gc;
const heap = (): number => {
  gc?.();
  return process.memoryUsage().heapUsed;
};

const counts = new Map<string, number>();
const shown = new Map<string, number>();
let failed = 0;
let slowest = { ms: 0, index: -1, size: 0 };
let peakHeap = 0;

function report(index: number | undefined, c: FuzzCase, failures: readonly Failure[]): void {
  if (failures.some((f) => !f.kind.startsWith('note:'))) failed++;
  for (const f of failures) {
    counts.set(f.kind, (counts.get(f.kind) ?? 0) + 1);
    const n = shown.get(f.kind) ?? 0;
    if (n >= show) continue;
    shown.set(f.kind, n + 1);
    const input = c.kind === 'json' ? `text ${escaped(c.text)}${c.bytesHex !== undefined ? ` bytes ${c.bytesHex}` : ''} limits ${JSON.stringify(c.limits)}` : `${c.file} (${c.mutation}) bytes ${c.bytesHex.length / 2}`;
    // `note:` kinds are what the wire cannot show (a repeated delta where nothing is numbered).
    console.log(`${f.kind.startsWith('note:') ? 'NOTE' : 'FAIL'} [${f.kind}] seed ${seed}${index !== undefined ? ` index ${index}` : ''}`);
    console.log(`  ${f.detail}`);
    console.log(`  input: ${input.slice(0, 2000)}`);
    console.log(`  replay: ${index !== undefined ? `npm run fuzz -- --seed ${seed} --index ${index}` : ''}`);
    const record = JSON.stringify(c);
    console.log(`  record (--replay): ${record.length <= 200_000 ? record : `${record.length} characters; replay by index`}`);
  }
}

async function runOne(index: number | undefined, c: FuzzCase): Promise<void> {
  const t0 = performance.now();
  const failures = [...(await check(c))];
  const ms = performance.now() - t0;
  const size = c.kind === 'json' ? c.text.length : c.bytesHex.length / 2;
  if (ms > slowest.ms) slowest = { ms, index: index ?? -1, size };
  if (ms > timeBound) failures.push({ kind: 'slow', detail: `${ms.toFixed(0)} ms > ${timeBound} ms` });
  if (failures.length > 0) report(index, c, failures);
}

const t0 = performance.now();
const heapBefore = heap();
const replay = opt('replay');
const only = opt('index');
let ran = 0;
if (replay !== undefined) {
  await runOne(undefined, JSON.parse(replay) as FuzzCase);
  ran = 1;
} else if (only !== undefined) {
  await runOne(Number(only), makeCase(seed, Number(only)));
  ran = 1;
} else {
  for (let i = start; i < start + count; i++) {
    await runOne(i, makeCase(seed, i));
    ran++;
    if (ran % 100 === 0) peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    if (progress > 0 && ran % progress === 0) {
      const s = (performance.now() - t0) / 1000;
      console.error(`${new Date().toISOString()} ${ran}/${count} inputs, ${s.toFixed(0)} s, ${failed} failing, heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MB (peak ${(peakHeap / 2 ** 20).toFixed(0)} MB), slowest index ${slowest.index} ${slowest.ms.toFixed(0)} ms, classes ${JSON.stringify(Object.fromEntries(counts))}`);
    }
  }
}
const heapAfter = heap();
peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
const seconds = (performance.now() - t0) / 1000;
// Retained heap after the run: more than 64 MiB above the start is a leak.
if (gc && heapAfter - heapBefore > 64 * 2 ** 20) {
  counts.set('heap-growth', 1);
  failed++;
}
console.log(`\n${ran} inputs (seed ${seed}, indices ${start}…${start + ran - 1}) in ${seconds.toFixed(1)} s; ${failed} failing`);
for (const [kind, n] of [...counts].sort()) console.log(`  ${n.toString().padStart(8)}  ${kind}`);
console.log(`slowest input: index ${slowest.index}, ${slowest.ms.toFixed(1)} ms, ${slowest.size} units`);
console.log(`heap: ${(heapBefore / 2 ** 20).toFixed(1)} MB before, ${(heapAfter / 2 ** 20).toFixed(1)} MB after${gc ? ' (after gc)' : ''}, peak sampled ${(peakHeap / 2 ** 20).toFixed(1)} MB`);
process.exitCode = failed > 0 ? 1 : 0;
