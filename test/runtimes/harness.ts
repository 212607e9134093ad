/** Shared by the runners: child processes, free ports, reading the report a runtime printed. */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPORT_PREFIX, type Report } from './report.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const RUNTIMES_DIR = fileURLToPath(new URL('./', import.meta.url));

/** What a runner hands back: the portable report, the runtime's version, and smoke results. */
export interface RunOutcome {
  readonly version: string;
  readonly report: Report;
  /** Runtime-specific smoke checks (src/ run directly, `deno check`, …). */
  readonly smoke: readonly SmokeResult[];
}

export interface SmokeResult {
  readonly name: string;
  /** Why it failed; `undefined` when it passed. */
  readonly error?: string;
  /** A known bug outside this suite that makes it fail: reported, not counted, until it passes. */
  readonly knownFailing?: string;
}

export interface Runner {
  /** Why the runtime cannot run here (and what to install), or `undefined` when it can. */
  missing(): string | undefined;
  run(bundlesDir: string): Promise<RunOutcome>;
}

/**
 * A runtime binary that test/runtimes/package.json installs (`npm test` runs `npm ci` there on
 * first run: install.mjs), from test/runtimes/node_modules/.bin, or `undefined` when it is not
 * installed.
 */
export function localBin(name: string): string | undefined {
  const path = join(RUNTIMES_DIR, 'node_modules', '.bin', name);
  return existsSync(path) ? path : undefined;
}

/** What a runner's `missing()` says when a runtime of test/runtimes/package.json is not installed. */
export function notInstalled(what: string): string {
  return `${what} is missing from test/runtimes/node_modules: run \`npm test\` (it installs the runtimes on first run) or \`node test/runtimes/install.mjs\` (npm ci in test/runtimes)`;
}

export interface ProcessResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run a command to its end (killed after `timeoutMs`), collecting its output. */
export function execute(command: string, args: readonly string[], options: { cwd?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd ?? ROOT, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Run npm (the one running this process when there is one: `npm_execpath`, else `npm` on PATH) in
 * `cwd` as a project of its own: the variables in which an npm script describes the root project
 * to its children are left out.
 */
export function npm(args: readonly string[], cwd: string, timeoutMs = 120_000): Promise<ProcessResult> {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^npm_(package_|lifecycle_|config_local_prefix$|config_allow_scripts$)/i.test(name)) env[name] = value;
  }
  const cli = process.env['npm_execpath'];
  if (cli !== undefined && /\.[cm]?js$/.test(cli)) return execute(process.execPath, [cli, ...args], { cwd, env, timeoutMs });
  return execute(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, { cwd, env, timeoutMs });
}

/** The report line a runtime printed, parsed; throws with the output when there is none. */
export function reportFrom(result: ProcessResult, what: string): Report {
  const line = result.stdout.split('\n').find((l) => l.startsWith(REPORT_PREFIX));
  if (line === undefined) {
    throw new Error(`${what} printed no report (exit code ${result.code})\n--- stdout\n${result.stdout.slice(-3000)}\n--- stderr\n${result.stderr.slice(-3000)}`);
  }
  return JSON.parse(line.slice(REPORT_PREFIX.length)) as Report;
}

/** Run a smoke command: it passes when it exits 0 and prints a line matching `expect`. */
export async function smoke(
  name: string,
  command: string,
  args: readonly string[],
  expect: RegExp,
  options: { cwd?: string; env?: NodeJS.ProcessEnv; knownFailing?: string } = {},
): Promise<SmokeResult> {
  const result = await execute(command, args, options);
  const known = options.knownFailing === undefined ? {} : { knownFailing: options.knownFailing };
  if (result.code === 0 && expect.test(result.stdout)) return { name, ...known };
  return { name, error: `exit code ${result.code}\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-2000)}`, ...known };
}

/** A TCP port free on 127.0.0.1 at the time of asking. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** GET `url` until it answers (a server starting up), for at most `timeoutMs`. */
export async function fetchWhenUp(url: string, timeoutMs: number, isAlive: () => boolean): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fetch(url);
    } catch (error) {
      if (!isAlive()) throw new Error(`the server exited before answering ${url}`);
      if (Date.now() > deadline) throw new Error(`no answer from ${url} within ${timeoutMs} ms: ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** The first line of a command's `--version` output. */
export async function versionOf(command: string, args: readonly string[] = ['--version']): Promise<string> {
  const result = await execute(command, args, { timeoutMs: 20_000 });
  return (result.stdout.trim() || result.stderr.trim()).split('\n')[0] ?? 'unknown';
}
