/**
 * The portable suite on every runtime we claim: the bundles are built once, then each runtime
 * runs them and must pass every check (and its smoke checks). A runtime that is not installed is
 * skipped with what to install — except in CI (`CI` set), where a missing runtime fails.
 *
 * One runtime alone: `npx vitest run test/runtimes -t deno` (see test/runtimes/README.md).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBundles } from './build.ts';
import type { Runner } from './harness.ts';
import type { Report } from './report.ts';
import { bun } from './bun/run.ts';
import { chromium } from './chromium/run.ts';
import { deno } from './deno/run.ts';
import { edgeRuntime } from './edge-runtime/run.ts';
import { firefox } from './firefox/run.ts';
import { hostNode, NODE24, node24 } from './node/run.ts';
import { webkit } from './webkit/run.ts';
import { workerd } from './workerd/run.ts';

const RUNTIMES: ReadonlyArray<[string, Runner]> = [
  [`node ${process.version} (the machine's)`, hostNode],
  ['node 24', node24],
  ['deno', deno],
  ['bun', bun],
  ['workerd', workerd],
  ['edge-runtime', edgeRuntime],
  ['chromium', chromium],
  ['firefox', firefox],
  ['webkit', webkit],
];

const IN_CI = process.env['CI'] !== undefined && process.env['CI'] !== '' && process.env['CI'] !== 'false' && process.env['CI'] !== '0';

let bundlesDir = '';
let expectedChecks: string[] = [];

beforeAll(async () => {
  bundlesDir = mkdtempSync(join(tmpdir(), 'argstream-runtimes-'));
  const bundles = await buildBundles(bundlesDir);
  const suite = (await import(pathToFileURL(bundles.suite).href)) as { checkNames(): string[] };
  expectedChecks = suite.checkNames();
}, 60_000);

afterAll(() => {
  if (bundlesDir !== '') rmSync(bundlesDir, { recursive: true, force: true });
});

function summary(name: string, version: string, report: Report): string {
  const known = report.results.filter((r) => r.status === 'known-failing');
  return `${name} (${version}; reports itself as ${report.runtime}): ${report.passed} passed, ${report.failed} failed${known.length > 0 ? `, ${known.length} known failing` : ''}, ${report.results.length} checks in ${report.ms} ms`;
}

describe('the portable suite on every runtime', () => {
  it('has checks to run', () => {
    expect(expectedChecks.length).toBeGreaterThan(20);
  });

  // The runtimes below then load real chunks with `import()`: the suite reads 'langchain' and
  // 'gemini-interactions' by name, and the script and the page hold neither adapter themselves.
  it('splits the providers read by name into chunks of their own in the script and the page', () => {
    for (const [bundle, chunks] of [['main.mjs', 'main-chunks'], ['page.mjs', 'page-chunks']] as const) {
      const files = readdirSync(join(bundlesDir, chunks)).map((file) => readFileSync(join(bundlesDir, chunks, file), 'utf8'));
      const own = readFileSync(join(bundlesDir, bundle), 'utf8');
      for (const marker of ['on_chat_model_end', 'interaction.completed']) {
        expect(own.includes(marker), `${bundle} carries ${marker}`).toBe(false);
        expect(files.filter((file) => file.includes(marker)).length, `a chunk of ${chunks} carries ${marker}`).toBe(1);
      }
    }
  });

  it("runs the tests on the machine's Node, not on test/runtimes' node@24", () => {
    // npm links node@24 as test/runtimes/node_modules/.bin/node, which is on PATH only for npm
    // commands run inside test/runtimes/: run vitest from the repository root.
    expect(process.execPath, 'vitest runs on test/runtimes/node_modules/node: run it from the repository root (npm test, npx vitest)').not.toBe(NODE24);
  });

  for (const [name, runner] of RUNTIMES) {
    it(`runs on ${name}`, async (context) => {
      const missing = runner.missing();
      if (missing !== undefined) {
        if (IN_CI) throw new Error(`${name} is required in CI: ${missing}`);
        // The note shows with the verbose reporter; the warning shows with every reporter.
        console.warn(`skipped ${name}: ${missing}`);
        context.skip(`${name} is not installed here: ${missing}`);
      }
      const started = Date.now();
      const outcome = await runner.run(bundlesDir);
      console.log(`${summary(name, outcome.version, outcome.report)}; ${Date.now() - started} ms with start-up and smoke checks`);
      for (const r of outcome.report.results) {
        if (r.status === 'known-failing') console.log(`  known failing on ${name}: ${r.name}: ${r.error}`);
      }
      const failures = outcome.report.results.filter((r) => r.status === 'fail' || r.status === 'fixed').map((r) => `${r.name}\n    ${r.error}`);
      expect(failures, `checks that failed on ${name}`).toEqual([]);
      expect(outcome.report.results.map((r) => r.name), `the checks ${name} ran`).toEqual(expectedChecks);
      for (const s of outcome.smoke) {
        if (s.knownFailing !== undefined && s.error !== undefined) console.log(`  known failing on ${name}: ${s.name}: ${s.knownFailing}`);
      }
      const smokeFailures = outcome.smoke.flatMap((s) => {
        if (s.knownFailing === undefined) return s.error === undefined ? [] : [`${s.name}: ${s.error}`];
        return s.error === undefined ? [`${s.name} passes now: remove its knownFailing (${s.knownFailing})`] : [];
      });
      expect(smokeFailures, `smoke checks that failed on ${name}`).toEqual([]);
    }, 300_000); // a browser: start-up (30 s at most), the checks (BROWSER_REPORT_TIMEOUT_MS), closing (15 s)
  }
});
